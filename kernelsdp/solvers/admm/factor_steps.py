"""The factor blocks of low-rank NPKL's ADMM (seed 001; see :mod:`kernelsdp.solvers.admm`):
the start, the X/Y step inside the trace ball, and the widening of a saturated factor (the
Z-step's prox is each loss's own, :attr:`kernelsdp.formulations.losses.Loss.prox`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.optimize import brentq

from ...formulations.npkl import NPKL
from ...linalg.positive_part import EigenBudget, EigenStop

#: below this n the warm start uses dense LAPACK, above it ARPACK
DENSE_N = 1500
#: above DENSE_N the warm start uses this many leading eigenpairs (ARPACK), the rest noise
WARM_START_EIGENPAIRS = 32
#: a factor is saturated when K's smallest eigenvalue exceeds this fraction of its largest
RANK_SATURATION = 1e-4


def default_rank(m: int) -> int:
    """Largest r with r(r+1)/2 ≤ m (seed 001 §4, after Pataki)."""
    return max(1, int((np.sqrt(8 * m + 1) - 1) // 2))


def warm_start(f: NPKL, r: int, seed: int) -> np.ndarray:
    """Xᵀ⁰ (n×r): the r (large n: ``WARM_START_EIGENPAIRS``) leading eigenvectors of C·T − L,
    weighted by √(w/w₁), plus 1e-3 noise (a start away from the saddle X = 0), scaled to
    tr K = B (capacity trace) or, without a capacity, by the best t on the ray t·K⁰
    (:func:`ray_scale`)."""
    A = (f.C * f.pairs.matrix() - f.L).tocsr()
    n = f.n
    if n <= DENSE_N:
        k = min(r, n - 1)
        w, V = np.linalg.eigh(A.toarray())
        w, V = w[::-1][:k], V[:, ::-1][:, :k]
    else:  # a few leading directions suffice to start; r = 218 eigenpairs took 20-30 s
        k = min(r, WARM_START_EIGENPAIRS)
        w, V = spla.eigsh(A, k=k, which="LA", tol=1e-3)
        w, V = w[::-1], V[:, ::-1]
    rng = np.random.default_rng(seed)
    Xt = 1e-3 * rng.standard_normal((n, r)) / np.sqrt(n)
    keep = w > 0
    if keep.any():
        Xt[:, :k][:, keep] += V[:, keep] * np.sqrt(w[keep] / w[0])
    trace = f.capacity == "trace"
    Xt *= np.sqrt(f.B / float(np.sum(Xt * Xt))) if trace else np.sqrt(ray_scale(f, Xt))
    return Xt


def ray_scale(f: NPKL, Xt: np.ndarray) -> float:
    """argmin over t ≥ 0 of P(t·K), K = XᵀX: tr(LK)·t + Σ h(t·K_ij), a convex function of one
    variable (bounded search on [0, t_max], t_max where the Laplacian term alone exceeds
    P(0); at least 1)."""
    from scipy.optimize import minimize_scalar

    from ...formulations.losses import LOSSES

    P, loss = f.pairs, LOSSES[f.loss]
    z = np.einsum("ij,ij->i", Xt[P.i], Xt[P.j])
    lap = float(np.sum(Xt * (f.L @ Xt)))
    p0 = f.value_at_zero()
    phi = lambda t: lap * t + float(np.sum(loss.value(t * z, P.t, f.C)))
    hi = max(1.0, 2 * p0 / lap if lap > 0 else 1.0, 4.0 / max(float(np.abs(z).max()), 1e-12))
    return float(minimize_scalar(phi, bounds=(0.0, hi), method="bounded").x) or 1.0


def ball_step(
    R: np.ndarray, G: np.ndarray, alpha: float, beta: float, B: float, out: np.ndarray
) -> float:
    """The X- or Y-step with the trace capacity as the ball ‖U‖_F² ≤ B: argmin over U (n×r) of
    ½ tr(U(βI + αG)Uᵀ) − tr(RᵀU) s.t. ‖U‖² ≤ B, with its multiplier μ (G = FᵀF, F the other
    factor), written into ``out``.

    KKT: U(βI + αG + μI) = R with μ ≥ 0, μ(‖U‖² − B) = 0.  With G = V diag(d) Vᵀ and
    s = β + αd, ‖U(μ)‖² = Σ_k a_k/(s_k + μ)² with a = diag(Vᵀ RᵀR V), decreasing in μ: μ = 0
    if that is ≤ B, else the root on [0, √(Σa/B)] (Brent)."""
    d, V = np.linalg.eigh(np.asarray(G, dtype=np.float64))  # r×r work in double
    s = beta + alpha * np.maximum(d, 0.0)
    a = np.einsum("ij,ij->j", V, np.asarray(R.T @ R, dtype=np.float64) @ V)
    mu = 0.0
    if float(np.sum(a / s**2)) > B:
        hi = float(np.sqrt(a.sum() / B))
        mu = brentq(lambda t: float(np.sum(a / (s + t) ** 2)) - B, 0.0, hi, xtol=1e-14 * hi)
    np.matmul(R, ((V / (s + mu)) @ V.T).astype(out.dtype), out=out)
    return mu


def widen(
    state, r_cap: int, seed: int, M: Callable[[], sp.csr_matrix], budget: EigenBudget | None = None
) -> np.ndarray | None:
    """The state with more columns when the rank is saturated, else None.

    Saturated: the smallest eigenvalue of K = XᵀX is above ``RANK_SATURATION`` times the
    largest, so no column is spare.  Then k = max(4, r/2) columns (at most up to ``r_cap``)
    are added to X and Y alike (X = Y stays satisfied), with H = 0 on them and A, E
    unchanged: the k lowest eigenvectors of M(β) at the current multipliers (the directions
    in which the certificate says K should grow), each of norm² equal to K's smallest
    eigenvalue.  ``budget`` carries the solver's time limit into ARPACK's products (one
    widening at n = 10⁶ took about 350 s, past a 1,200 s limit that is checked only between
    iterations): at the limit there is no widening, and the caller's check stops the run.

    Measured against 20 LOBPCG iterations for the new columns (Rayleigh quotients within 3 %
    of ARPACK's in 0.4 of the time at n = 100,000): at n = 20,000 the rougher columns
    saturated again, two widenings to rank 72 instead of one to 48, 133.6 s against 91.9 s to
    the certified gap (1,376 iterations against 1,288).  ARPACK stays."""
    X, Y, H, A, E = state
    n, r = X.shape
    ev = np.linalg.eigvalsh(X.T @ X)
    if ev[0] <= RANK_SATURATION * ev[-1]:
        return None
    k = min(r_cap, r + max(4, r // 2)) - r
    Mb, rng = M(), np.random.default_rng(seed)
    if n <= DENSE_N:
        V = np.linalg.eigh(Mb.toarray())[1][:, :k]
    else:
        try:  # directions only: a loose tolerance
            op = Mb if budget is None else budget.operator(Mb)
            V = spla.eigsh(op, k=k, which="SA", tol=1e-3, v0=rng.standard_normal(n))[1]
        except EigenStop:  # the time limit: no widening
            return None
        except spla.ArpackNoConvergence:  # any new directions will do: random ones
            V = np.linalg.qr(rng.standard_normal((n, k)))[0]
    G = V * np.sqrt(ev[0])
    return np.concatenate(
        [
            np.hstack([X, G]).ravel(),
            np.hstack([Y, G]).ravel(),
            np.hstack([H, np.zeros((n, k))]).ravel(),
            A,
            E,
        ]
    )


def free_columns(state, free, scale: float) -> np.ndarray | None:
    """The state with one more column per free null direction w of L (no capacity; see
    :mod:`kernelsdp.formulations.npkl_trace_bound`), each √(scale·tr K)·w in X and Y alike, H = 0
    on them, A and E unchanged; None without free directions.

    Along w the objective is constant, but the optimum's cross terms w·fᵀ between w's block
    and the pairs leaving it need K's mass on w to be large (Schur: f² ≤ (wᵀKw)·(…)); a factor
    started from C·T − L's leading eigenvectors has none there and ADMM crawls (measured on
    40 Iris points, hinge: 2,142 iterations to a stall 11 % off; with this escape, certified
    optimal in 2,754)."""
    X, Y, H, A, E = state
    n = X.shape[0]
    s = np.sqrt(scale * max(1.0, float(np.sum(X * X))))
    cols = []
    for idx, V in free:
        for c in range(V.shape[1]):
            w = np.zeros(n)
            w[idx] = s * V[:, c]
            cols.append(w)
    if not cols:
        return None
    G = np.array(cols).T
    k = G.shape[1]
    return np.concatenate(
        [
            np.hstack([X, G]).ravel(),
            np.hstack([Y, G]).ravel(),
            np.hstack([H, np.zeros((n, k))]).ravel(),
            A,
            E,
        ]
    )
