"""An a-priori trace bound for NPKL without a capacity (seed 001 problem (1); docs/npkl.md §6).

    min_{K ⪰ 0}  P(K) = tr(LK) + Σ_Ω h(K_ij),   h ≥ 0 (ℓ2, ℓ1, hinge, squared hinge)

has no capacity, so the trace dual of docs/npkl.md §3 has no B and the plain dual
g(β) = −Σh*(β) needs M(β) ⪰ 0 exactly, which an iterative solver's multipliers never give.
This module derives, from the data alone, a bound B̄ on the part of K that the objective can
see, and the multipliers' repair that makes the rest invisible:

**Theorem.**  Let u ≥ P(K₀) for a feasible K₀ (u = P(0) = Σ h(0) is a-priori; the returned
point's value is sharper), and S_u = {K ⪰ 0 : P(K) ≤ u}, which holds every optimum and the
tail of every minimising sequence.  Split ℝⁿ along the blocks (connected components of L's
graph) into range(L) and null(L).  Call a block's null vector v *anchored* when the block is
one-dimensional null and has an internal pair (i, j) whose loss bounds s·K_ij from above on
S_u, s = sign(v_i v_j) ≠ 0; every other null direction is *free*.  Π projects onto the
complement of the free directions.  Then for every K ∈ S_u:

1. tr(P_⊥K) ≤ tr(LK)/λ₊ ≤ u/λ₊ =: ρ (h ≥ 0; λ₊ the smallest positive eigenvalue of L);
2. for an anchored v with g = vᵀKv, a = |v_i v_j|, κ_i = min((1 − v_i²)ρ, u·(L⁺)_ii) ≥ xᵀKx
   for x = e_i − v_i v ∈ range(L) (xᵀKx ≤ (xᵀL⁺x)·tr(LK), xᵀL⁺x = (L⁺)_ii as L⁺v = 0), and
   the loss's bound s·K_ij ≤ b (ℓ2: T + √(2u/C), ℓ1: T + u/C for s = +1, the mirrored lower
   bounds for s = −1; hinge and squared hinge only bound a cannot-link from above and a
   must-link from below):
   s·K_ij = a·g + s(v_i pⱼ + v_j pᵢ) + s·xᵢᵀKxⱼ ≥ a·g − (|v_i|√κ_j + |v_j|√κ_i)√g − √(κ_iκ_j)
   (Cauchy–Schwarz in the K inner product), so √g is at most the positive root of
   a·t² − (|v_i|√κ_j + |v_j|√κ_i)·t − (√(κ_iκ_j) + b);
3. hence tr(ΠKΠ) = tr(P_⊥K) + Σ_anchored vᵀKv ≤ ρ + Σ_anchored g_max =: B̄.

Along a free direction w the objective is constant (Lw = 0 and no pair sees w's block in a
way the loss bounds), so no bound on K exists there, and none is needed: for multipliers β̃
in the domain of h* with M(β̃)w = 0 for every free w (:func:`repair_multipliers`),
M = ΠMΠ, and by Fenchel–Young, for every K ∈ S_u,

    P(K) ≥ tr(M(β̃)K) − Σh*(β̃) = tr(M·ΠKΠ) − Σh* ≥ B̄·min(0, λ_min(M(β̃))) − Σh*(β̃),

while P(K) > u outside S_u.  So p* ≥ min(u, B̄·min(0, λ_min M(β̃)) − Σh*(β̃)) — a rigorous
bound whether or not the optimum is attained, with no capacity in the problem.  The repair
keeps β where it touches no free block, and elsewhere takes the least-norm correction that
zeroes M(β̃)w (LSQR), setting to zero, round by round, the entries that leave h*'s domain
(zero is in every domain and adds nothing to M w).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import connected_components

from ..errors import InvalidDataError
from .losses import LOSSES

#: blocks up to this size get dense LAPACK; larger ones shift-invert ARPACK
DENSE_BLOCK = 2000
#: an eigenvalue of a block counts as zero below this times the block's scale
NULL_RTOL = 1e-9
#: rounds of the repair (each zeroes the entries that left h*'s domain)
REPAIR_ROUNDS = 20
#: losses for which h ≥ 0 and the pair bounds below hold (linear is not bounded below)
BOUNDED_LOSSES = ("l2", "l1", "hinge", "squared-hinge")


@dataclass(frozen=True)
class NullStructure:
    """L split along its blocks: the smallest positive eigenvalue, each one-dimensional
    block null vector (block label → (indices, v)) and the null bases of larger ones."""

    labels: np.ndarray
    lambda_plus: float
    #: the smallest eigenvalue over all blocks (the theorem needs L ⪰ 0)
    lambda_min: float
    #: (L⁺)_ii, from each block's own spectrum (1/λ₊ where a block is too large for LAPACK)
    pinv_diag: np.ndarray
    simple: dict[int, tuple[np.ndarray, np.ndarray]]
    multiple: dict[int, tuple[np.ndarray, np.ndarray]]


def null_structure(L: sp.csr_matrix) -> NullStructure:
    """Blocks of L (connected components of its off-diagonal pattern) with their null
    spaces and the smallest positive eigenvalue over all blocks."""
    L = sp.csr_matrix(L)
    n = L.shape[0]
    pattern = L.copy()
    pattern.setdiag(0)
    pattern.eliminate_zeros()
    _, labels = connected_components(pattern, directed=False)
    order = np.argsort(labels, kind="stable")
    starts = np.r_[0, np.flatnonzero(np.diff(labels[order])) + 1, n]
    lam_plus, lam_min, simple, multiple = np.inf, np.inf, {}, {}
    pinv_diag = np.full(n, np.nan)
    for a, b in zip(starts[:-1], starts[1:]):
        idx = order[a:b]
        Lb = L[idx][:, idx]
        if idx.size <= DENSE_BLOCK:
            w, V = np.linalg.eigh(Lb.toarray())
        else:  # the few smallest eigenpairs, by shift-invert just below 0
            w, V = spla.eigsh(Lb.tocsc(), k=6, sigma=-1e-3, which="LM")
            w, V = w[np.argsort(w)], V[:, np.argsort(w)]
        scale = max(1.0, float(abs(Lb).max()) if Lb.nnz else 0.0)
        lam_min = min(lam_min, float(w[0]))
        null = np.abs(w) <= NULL_RTOL * scale
        if (~null).any():
            lam_plus = min(lam_plus, float(w[~null].min()))
            if idx.size <= DENSE_BLOCK:  # the whole spectrum: (L⁺)_ii = Σ_k V_ik²/w_k
                pinv_diag[idx] = (V[:, ~null] ** 2) @ (1.0 / w[~null])
        c = int(labels[idx[0]])
        if null.sum() == 1:
            v = V[:, null][:, 0]
            simple[c] = (idx, v if v.sum() >= 0 else -v)
        elif null.sum() > 1:
            multiple[c] = (idx, V[:, null])
    pinv_diag = np.where(np.isnan(pinv_diag), 1.0 / lam_plus, pinv_diag)
    return NullStructure(labels, float(lam_plus), float(lam_min), pinv_diag, simple, multiple)


def pair_bounds(loss: str, T: np.ndarray, C: float, u: float) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) bounds on K_ij over S_u from h(K_ij) ≤ u (±inf where the loss is
    one-sided)."""
    r = {
        "l2": np.sqrt(2 * u / C),
        "l1": u / C,
        "hinge": u / C,
        "squared-hinge": np.sqrt(2 * u / C),
    }[loss]
    if loss in ("l2", "l1"):
        return T - r, T + r
    # T·z ≥ 1 − r: a must-link bounded below, a cannot-link above
    low = np.where(T > 0, 1 - r, -np.inf)
    up = np.where(T < 0, -1 + r, np.inf)
    return low, up


@dataclass
class TraceBound:
    """B̄ with its parts: ρ = u/λ₊, the anchored null directions' bounds, the free ones."""

    level: float
    B: float
    rho: float
    lambda_plus: float
    anchored: dict[int, float] = field(default_factory=dict)
    #: free directions as (block indices, basis of that block's free null space)
    free: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)

    def describe(self) -> dict:
        return {
            "level": self.level,
            "B_bar": self.B,
            "range_bound": self.rho,
            "lambda_plus": self.lambda_plus,
            "anchored_directions": len(self.anchored),
            "free_directions": int(sum(V.shape[1] for _, V in self.free)),
        }


def trace_bound(f, level: float, structure: NullStructure | None = None) -> TraceBound:
    """B̄ ≥ tr(ΠKΠ) over S_u, u = ``level`` (the module docstring, steps 1–3)."""
    if f.loss not in BOUNDED_LOSSES:
        raise ValueError(f"no a-priori trace bound for the {f.loss} loss")
    s = structure or null_structure(f.L)
    if s.lambda_min < -NULL_RTOL * max(1.0, float(abs(f.L).max())):
        raise InvalidDataError(
            f"the Laplacian has λ_min = {s.lambda_min:.3g}: the no-capacity certificate needs "
            "L ⪰ 0 to within round-off; shift it (L + |λ_min|·I) or give a capacity."
        )
    u = max(float(level), 0.0)
    rho = u / s.lambda_plus if np.isfinite(s.lambda_plus) else 0.0
    P = f.pairs
    low, up = pair_bounds(f.loss, P.t.astype(float), f.C, u)
    li, lj = s.labels[P.i], s.labels[P.j]
    anchored, free = {}, [(idx, V) for idx, V in s.multiple.values()]
    pos = np.empty(f.n, dtype=np.int64)
    for c, (idx, v) in s.simple.items():
        pos[idx] = np.arange(idx.size)
        inside = np.flatnonzero((li == c) & (lj == c))
        vi, vj = v[pos[P.i[inside]]], v[pos[P.j[inside]]]
        sign = np.sign(vi * vj)
        b = np.where(sign > 0, up[inside], -low[inside])
        ok = (sign != 0) & np.isfinite(b)
        best = np.inf
        if ok.any():
            vi, vj, b, a = np.abs(vi[ok]), np.abs(vj[ok]), b[ok], np.abs(vi[ok] * vj[ok])
            # κ_i ≤ min((1 − v_i²)ρ, u·(L⁺)_ii): x_i = e_i − v_i v ∈ range(L) and
            # xᵀKx ≤ (xᵀL⁺x)·tr(LK), with xᵀL⁺x = (L⁺)_ii since L⁺v = 0
            gi, gj = P.i[inside][ok], P.j[inside][ok]
            ki = np.minimum((1 - vi**2) * rho, u * s.pinv_diag[gi])
            kj = np.minimum((1 - vj**2) * rho, u * s.pinv_diag[gj])
            lin = vi * np.sqrt(kj) + vj * np.sqrt(ki)
            const = np.sqrt(ki * kj) + b
            disc = np.maximum(lin**2 + 4 * a * const, 0.0)
            t = np.maximum((lin + np.sqrt(disc)) / (2 * a), 0.0)
            best = float(np.min(t**2))
        if np.isfinite(best):
            anchored[c] = best
        else:
            free.append((idx, v[:, None]))
    return TraceBound(u, rho + sum(anchored.values()), rho, s.lambda_plus, anchored, free)


def _free_operator(f, free) -> sp.csr_matrix:
    """The linear map β ↦ (M(β) − L)·w over the free directions w, as a sparse matrix
    (rows: (point, direction); columns: pairs), M(β) − L = Σ β_ij (e_i e_jᵀ + e_j e_iᵀ)/2."""
    P, n = f.pairs, f.n
    rows, cols, vals, k = [], [], [], 0
    for idx, V in free:
        for col in range(V.shape[1]):
            w = np.zeros(n)
            w[idx] = V[:, col]
            for a, b in ((P.i, P.j), (P.j, P.i)):  # (M w)_a gets β·w_b / 2
                hit = np.flatnonzero(w[b] != 0)
                rows.append(k * n + a[hit])
                cols.append(hit)
                vals.append(w[b[hit]] / 2)
            k += 1
    if k == 0:
        return sp.csr_matrix((0, P.m))
    A = sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(k * n, P.m)
    )
    keep = np.flatnonzero(A.getnnz(axis=1))
    return A[keep]


def repair_multipliers(f, beta: np.ndarray, bound: TraceBound) -> tuple[np.ndarray, float]:
    """β̃ in the domain of h* with M(β̃)w = 0 on every free direction w, and the residual
    ‖(M(β̃) − L)W‖ / (1 + ‖β‖) it was met to (the module docstring)."""
    loss = LOSSES[f.loss]
    T = f.pairs.t.astype(float)
    b = loss.project(np.asarray(beta, dtype=float), T, f.C)
    A = _free_operator(f, bound.free)
    if A.shape[0] == 0:
        return b, 0.0
    active = np.flatnonzero(A.getnnz(axis=0))
    for _ in range(REPAIR_ROUNDS):
        if active.size == 0:
            break
        Aa = A[:, active]
        rhs = -(A @ b)
        delta = spla.lsqr(Aa, rhs, atol=1e-14, btol=1e-14, iter_lim=10 * Aa.shape[1] + 100)[0]
        b[active] += delta
        out = loss.domain_violation(b[active], T[active], f.C) > 0
        if not out.any():
            break
        b[active[out]] = 0.0
        active = active[~out]
    else:
        b[active] = 0.0
    if active.size == 0:  # everything touching a free block was zeroed
        b[np.flatnonzero(A.getnnz(axis=0))] = 0.0
    residual = float(np.linalg.norm(A @ b)) / (1.0 + float(np.linalg.norm(b)))
    return b, residual


def certified_lower_bound(
    f, beta: np.ndarray, level: float, structure: NullStructure | None = None, spectrum=None
) -> dict:
    """p* ≥ min(u, B̄·min(0, λ_min M(β̃)) − Σh*(β̃)) with its parts (the module's theorem).

    ``spectrum``: a callable M ↦ λ_min(M) (an iterative solver's warm-started Lanczos);
    :func:`kernelsdp.linalg.extreme.lowest_eigenvalue` otherwise."""
    from ..linalg.extreme import lowest_eigenvalue

    tb = trace_bound(f, level, structure)
    bt, residual = repair_multipliers(f, beta, tb)
    M = f.dual_matrix(bt)
    lo = (spectrum or lowest_eigenvalue)(M)
    conj = float(np.sum(LOSSES[f.loss].conjugate(bt, f.pairs.t, f.C)))
    dual = tb.B * min(0.0, lo) - conj
    return {
        "lower": min(tb.level, dual),
        "dual": dual,
        "beta": bt,
        "lambda_min": lo,
        "repair_residual": residual,
        "bound": tb,
    }
