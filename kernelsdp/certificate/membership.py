"""Verified cone membership and the enclosures a proof needs, in floating point.

- :func:`block_lower`: a lower bound on λ_min of one block of a vector v in its cone (or,
  ``dual``, in the dual cone), for the *exact* vector v_true with |v_true − v| ≤ err
  entrywise — err covers the rounding of how v was computed (s = Ax + b) — each value
  labelled proof or not.  Nonnegative entries and second-order cones are checked with
  their rounding bounded in closed form; PSD blocks through
  :func:`kernelsdp.linalg.verified.verified_min_eig`; exponential and power cones are not
  verified (their λ here is a distance estimate, :mod:`.cones`).
- :func:`min_singular_bound`: a proven lower bound on σ_min of a sparse matrix of full
  column rank, from a verified Cholesky of AᵀA − μI.  It turns a computed residual r into
  an *enclosed* exact correction: A Δ = r has a solution with ‖Δ‖₂ ≤ ‖r‖₂ / σ_min(Aᵀ) when
  Aᵀ has full column rank (the least-norm Δ = Aᵀ(AAᵀ)⁻¹r) — the step VSDP does in interval
  arithmetic (Jansen, Chaykin & Keil, SIAM J. Optim. 18, 2007, §3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..linalg.rounding import (
    UNIT_ROUNDOFF,
    abs_row_sum_max,
    as_csr,
    down,
    gamma,
    gram_abs_row_sum_max,
    norm_up,
    up,
)
from ..linalg.verified import VerifiedEig, verified_min_eig, verified_min_eig_stack
from .cones import Block, Pieces, cone_pieces, psd_groups, stacked_matrices
from .normal_equations import is_small

#: shifts tried for σ_min², relative to ‖AᵀA‖ (largest first: the first success is kept);
#: two decades apart — with four apart SDPLIB's control7 (σ_min²/‖AᵀA‖ = 8.5e-10) was
#: proven only at 1e-12, σ_min ≥ 0.13 for 6.7, and control8 (7.8e-10, whose rounding
#: bound is 9.5e-13 of ‖AᵀA‖) not at all
SIGMA_SHIFTS = (1e-4, 1e-6, 1e-8, 1e-10, 1e-12)
#: up to this many columns σ_min² is proven just below LAPACK's estimate instead
DENSE_SIGMA_MAX_N = 500


@dataclass(frozen=True)
class BlockLower:
    """λ_min lower bounds of one block: one value (psd, soc) or one per entry (nonneg)."""

    values: np.ndarray
    proof: bool
    why: str = ""


def _psd_matrix_error(blk: Block, M: np.ndarray, err: np.ndarray, dual: bool) -> np.ndarray:
    """Entrywise bound on |M_true − M|: the rows' own error, unpacked, plus the rounding of
    the unpacking (÷√2 of the off-diagonals; ÷2 is exact)."""
    E = blk.matrix(np.abs(err), dual) * (1 + 4 * UNIT_ROUNDOFF) if np.any(err) else np.zeros_like(M)
    if blk.sqrt2 or blk.triangle is None:
        E = E + 2 * UNIT_ROUNDOFF * np.abs(M - np.diag(np.diag(M)))
    return E


def block_lower(
    blk: Block,
    v: np.ndarray,
    err: np.ndarray | None = None,
    dual: bool = False,
    at_least: float | None = None,
) -> BlockLower:
    """Lower bound(s) on λ_min of the exact block within ``err`` of the float rows ``v``."""
    err = np.zeros_like(v) if err is None else np.asarray(err, dtype=float)
    if blk.kind == "nonneg":
        lo = v - err  # exact v − err when err = 0; else one rounding, undone by nextafter
        return BlockLower(np.where(err > 0, np.nextafter(lo, -np.inf), lo), True)
    if blk.kind == "soc":
        t = down(float(v[0]) - float(err[0]))
        nx = norm_up(np.abs(v[1:]) + err[1:])
        return BlockLower(np.array([down(down(t - nx) / math.sqrt(2.0))]), True)
    if blk.kind == "psd" and blk.side == 1:  # [v]: λ = v exactly (no scaling on a diagonal)
        e = up(float(np.abs(err[0])) * (1 + 4 * UNIT_ROUNDOFF)) if err[0] else 0.0
        lo = float(v[0]) - e  # one rounding when e > 0, undone by nextafter
        if not math.isfinite(lo):
            return BlockLower(np.array([-math.inf]), False, "the matrix has a non-finite entry")
        return BlockLower(np.array([math.nextafter(lo, -math.inf) if e else lo]), True)
    if blk.kind == "psd":
        M = blk.matrix(v, dual)
        r = verified_min_eig(M, _psd_matrix_error(blk, M, err, dual), at_least=at_least)
        return BlockLower(np.array([r.lower]), r.proof, r.note)
    if blk.kind == "zero":
        return BlockLower(
            np.array([np.inf if dual else -float(np.max(np.abs(v) + err, initial=0.0))]), True
        )
    r = _nonlinear_room(blk, v, err, dual)
    if r is None:
        return BlockLower(
            np.array([blk.min_eig(v, dual)]),
            False,
            f"the point is not proven inside the {blk.kind} cone",
        )
    return BlockLower(np.array([r]), True)


@dataclass(frozen=True)
class BlocksLower:
    """:func:`block_lower` of every non-zero-cone block, as arrays over the form's
    :func:`.cones.cone_pieces`: ``values`` one bound per piece, ``proof`` one label per
    block (in the pieces' block order), ``whys`` the reason of each block without a proof."""

    pieces: Pieces
    values: np.ndarray
    proof: np.ndarray
    whys: dict[int, str]

    def __getitem__(self, j: int) -> BlockLower:
        p = self.pieces.where[j]
        return BlockLower(self.values[self.pieces.of(j)], bool(self.proof[p]), self.whys.get(j, ""))


def blocks_lower(
    form, v: np.ndarray, err: np.ndarray | None = None, dual: bool = False, at_least=None
) -> BlocksLower:
    """:func:`block_lower` of every non-zero-cone block of ``form``, with ``at_least`` None
    or one value per block (NaN or None for none); the small PSD blocks of one layout
    verified as one stack (:func:`kernelsdp.linalg.verified.verified_min_eig_stack`)."""
    exact = err is None  # no error to spread over the entries (E's first part is then 0)
    err = np.zeros_like(v) if exact else np.asarray(err, dtype=float)
    goal = np.full(len(form.blocks), np.nan)
    if at_least is not None:
        goal[:] = [np.nan if g is None else g for g in at_least]
    pieces = cone_pieces(form)
    values = np.empty(pieces.starts[-1])
    proof = np.zeros(pieces.blocks.size, dtype=bool)
    whys: dict[int, str] = {}
    done = np.zeros(len(form.blocks), dtype=bool)
    for blk, idx, rows in psd_groups(form):
        M = stacked_matrices(blk, v[rows], dual)
        E = (
            np.zeros_like(M)
            if exact
            else stacked_matrices(blk, np.abs(err[rows]), dual) * (1 + 4 * UNIT_ROUNDOFF)
        )
        if blk.sqrt2 or blk.triangle is None:
            E = E + 2 * UNIT_ROUNDOFF * np.abs(M - M * np.eye(blk.side))
        found = verified_min_eig_stack(M, E, goal[idx])
        at = pieces.where[idx]
        values[pieces.starts[at]], proof[at] = found.lower, found.proof
        whys.update({int(idx[i]): why for i, why in found.notes.items()})
        done[idx] = True
    for j in pieces.blocks[~done[pieces.blocks]]:
        g = None if np.isnan(goal[j]) else float(goal[j])
        bl = block_lower(form.blocks[j], v[form.blocks[j].rows], err[form.blocks[j].rows], dual, g)
        values[pieces.of(j)], proof[pieces.where[j]] = bl.values, bl.proof
        if not bl.proof:
            whys[int(j)] = bl.why
    return BlocksLower(pieces, values, proof, whys)


def _exp_inside(x: float, y: float, z: float, r: tuple[float, float, float]) -> bool:
    """Is every point of the box (x, y, z) ± r in K_exp?  h(x, y) = y·e^{x/y} is convex, so
    its maximum over the box is at a corner, and it grows with x (libm's exp and log are
    within an ulp: the relative slack covers them and the products)."""
    ylo = y - r[1]
    if not ylo > 0:
        return False
    xhi, zlo = x + r[0], z - r[2]
    worst = max(yy * math.exp(min(xhi / yy, 700.0)) for yy in (ylo, y + r[1]))
    return worst * (1 + 1e-14) <= zlo * (1 - 1e-14) if zlo > 0 else False


def _pow_inside(x: float, y: float, z: float, a: float, r: tuple[float, float, float]) -> bool:
    """Is every point of the box in K_α = {x^α y^(1−α) ≥ |z|, x, y ≥ 0}?  The left side grows
    with x and y: its minimum is at the lower corner."""
    xlo, ylo = x - r[0], y - r[1]
    if not (xlo > 0 and ylo > 0):
        return False
    return xlo**a * ylo ** (1 - a) * (1 - 1e-14) >= (abs(z) + r[2]) * (1 + 1e-14)


def _nonlinear_room(blk: Block, v: np.ndarray, err: np.ndarray, dual: bool) -> float | None:
    """The largest r = scale·10⁻ᵏ (k = 1 … 16; or 0) such that the box v ± (err + r) lies
    in the exponential or power cone (its dual, mapped onto the primal cone: for exp
    (u, v, w) ↦ (−v, −u, e·w), for pow (u/α, v/(1 − α), w)) — a lower bound on the distance
    to the boundary; None when even r = 0 fails."""
    x, y, z = blk._triple(v)
    ex, ey, ez = blk._triple(err)
    if blk.kind == "exp":
        if dual:
            x, y, z, ex, ey, ez = -y, -x, math.e * z, ey, ex, math.e * ez * (1 + 1e-15)
        mults = (1.0, 1.0, math.e if dual else 1.0)

        def inside(rr):
            return _exp_inside(
                x,
                y,
                z,
                (
                    ex + rr * mults[0],
                    ey + rr * mults[1],
                    ez + rr * mults[2] + 4 * UNIT_ROUNDOFF * abs(z),
                ),
            )
    else:
        a = blk.alpha
        mults = (1 / a, 1 / (1 - a), 1.0) if dual else (1.0, 1.0, 1.0)
        if dual:
            x, y, ex, ey = x / a, y / (1 - a), ex / a, ey / (1 - a)

        def inside(rr):
            return _pow_inside(
                x,
                y,
                z,
                a,
                (
                    ex + rr * mults[0] + 4 * UNIT_ROUNDOFF * abs(x),
                    ey + rr * mults[1] + 4 * UNIT_ROUNDOFF * abs(y),
                    ez + rr * mults[2],
                ),
            )

    if not inside(0.0):
        return None
    scale = max(abs(x), abs(y), abs(z), 1e-300)
    for k in range(1, 17):
        if inside(scale * 10.0**-k):
            return scale * 10.0**-k
    return 0.0


def block_norm_up(A: sp.csr_matrix, blk: Block) -> float:
    """An upper bound on ‖A_rows‖₂ ≤ ‖A_rows‖_F for the rows of one block."""
    sub = A[blk.rows]
    return norm_up(sub.data)


def cached_singular_bound(form, key: str, make) -> VerifiedEig:
    """:func:`min_singular_bound` of the matrix ``make()`` built from ``form``'s rows, kept on
    the form under ``key``: every attempt at a proof (the returned point, a combination, a
    re-solve's point) shares the one verified factorisation."""
    return form.derived("singular " + key, lambda: min_singular_bound(make()))


def min_singular_bound(M: sp.spmatrix) -> VerifiedEig:
    """A proven lower bound on σ_min(M)² for M of full column rank — λ_min(MᵀM) — as
    :class:`VerifiedEig` (``lower`` ≤ 0 or ``proof`` False: no enclosure).  MᵀM is formed
    in floating point; its rounding, γ_k·|M|ᵀ|M|, is the ``extra`` of the verification.
    Up to ``DENSE_SIGMA_MAX_N`` columns the shift is LAPACK's λ_min of MᵀM less a hair
    (one or two Cholesky factorisations); above, or where that fails, a ladder of shifts
    ``SIGMA_SHIFTS``, whose first success proves at best half its rung — on SDPLIB 2 to
    10,000 times below σ_min² (hinf1: 5.7e-4 for 1.155)."""
    if is_small(M):  # a dense product: k is then every row
        D = M.toarray() if sp.issparse(M) else np.asarray(M, dtype=float)
        G, absM, k = D.T @ D, np.abs(D), max(D.shape[0], 1)
    else:
        M = as_csr(M)
        G, absM = (M.T @ M).tocsr(), abs(M)
        k = int(np.max(np.diff(M.tocsc().indptr), initial=1))
    if G.shape[0] == 0:
        return VerifiedEig(math.inf, True, "empty")
    extra = up(gamma(k) * gram_abs_row_sum_max(absM))
    if G.shape[0] <= DENSE_SIGMA_MAX_N:
        D = G.toarray() if sp.issparse(G) else G
        if not np.all(np.isfinite(D)):  # MᵀM overflowed: nothing to prove σ_min with
            return VerifiedEig(-math.inf, False, "none", "MᵀM has a non-finite entry")
        est = float(np.linalg.eigvalsh(D)[0])
        if est > 0 and (r := verified_min_eig(D, extra, estimate=est)).proof and r.lower > 0:
            return r
    scale = abs_row_sum_max(G)
    last = VerifiedEig(-math.inf, False, "none", "MᵀM is singular at every shift")
    for rel in SIGMA_SHIFTS:
        mu = rel * scale
        r = verified_min_eig(G, extra, estimate=2 * mu, at_least=mu / 2)
        if r.proof and r.lower > 0:
            return r
        last = r
    return VerifiedEig(
        last.lower,
        False,
        last.method,
        last.note or "MᵀM is not proven positive definite (rank deficient?)",
    )


def distinct_rows(A: sp.csr_matrix, b: np.ndarray) -> np.ndarray:
    """Indices of the rows of [A b] that are not exact copies (or exact negatives) of an
    earlier one: a copied equality holds exactly when its original does."""
    A = sp.csr_matrix(A)
    seen: dict[tuple, int] = {}
    keep = []
    for i in range(A.shape[0]):
        lo, hi = A.indptr[i], A.indptr[i + 1]
        idx, val = A.indices[lo:hi], A.data[lo:hi]
        order = np.argsort(idx)
        key = (tuple(idx[order]), tuple(val[order]), float(b[i]))
        neg = (tuple(idx[order]), tuple(-val[order]), float(-b[i]))
        if key in seen or neg in seen:
            continue
        seen[key] = i
        keep.append(i)
    return np.asarray(keep, dtype=int)
