"""Corrections that make a returned point satisfy its linear rows exactly — up to a
residual at the level of rounding, which the proofs then enclose (:mod:`.membership`).

- :func:`dual_correction`: y + δ with Aᵀ(y + δ) = g (stationarity of the Lagrangian), the
  weighted least-norm δ, keeping the duals of blocks without an a-priori bound in K*;
- :func:`project_equalities`: x + Δ with the zero-cone rows A_Z(x + Δ) + b_Z = 0, the
  least-norm Δ (iterative refinement on one sparse factorisation of A_Z A_Zᵀ).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp
from scipy.linalg import lapack

from .canonical import CanonicalForm
from .cones import psd_groups, stacked_matrices, stacked_vectors
from .normal_equations import (
    dense_or_sparse,
    least_squares_solver,
    ridged_solver,
    weighted_gram,
    working_matrix,
)

#: relative weight of a row in the stationarity correction: free rows and bounded blocks
#: move, the rest (whose dual must stay in K* without a bound to absorb it) barely
HEAVY = 1e6


def correct_stationarity(
    form: CanonicalForm,
    y: np.ndarray,
    g: np.ndarray,
    light_blocks: set[int],
    frozen: np.ndarray | None = None,
) -> np.ndarray:
    """y + δ with Aᵀ(y + δ) = g, δ the least Σ w_i δ_i² (w = 1 on zero rows and on the
    blocks in ``light_blocks``, HEAVY elsewhere; rows in ``frozen`` do not move)."""
    A = working_matrix(form)
    winv = np.full(A.shape[0], 1.0 / HEAVY)
    for j, blk in enumerate(form.blocks):
        if blk.kind == "zero" or j in light_blocks:
            winv[blk.rows] = 1.0
    if frozen is not None:
        winv[frozen] = 0.0
    N = weighted_gram(A, winv)
    solve = ridged_solver(N, 1e-14) or least_squares_solver(N)  # singular: least squares
    y0, y = y, y.copy()
    for _ in range(3):  # iterative refinement against the ridge and rounding
        r = g - A.T @ y
        with np.errstate(all="ignore"):
            step = winv * (A @ solve(r))
        if not np.all(np.isfinite(step)):  # a singular system: keep what we have
            break
        y += step
    return y if np.all(np.isfinite(y)) else y0


def dual_correction(
    form: CanonicalForm,
    y: np.ndarray,
    g: np.ndarray,
    bounds: Mapping[int, float],
    rounds: int = 3,
    floor: float = 0.0,
) -> np.ndarray:
    """Exact stationarity for the lower bound, keeping the unbounded cones' duals in K*.

    The least-norm correction may push an unbounded block's dual (one no a-priori bound can
    absorb) slightly out of K* — e.g. an inactive hinge row's multiplier 3e-9 → −7e-11.  Such
    entries are then set to their projection onto the cone shifted *inside* by ``floor``
    (nonneg: max(v, floor); soc/psd: λ_min raised to floor), held there, and the
    correction is redone on the other rows, at most ``rounds`` times.  A positive floor
    leaves room for the enclosure of the last rounding residual (:mod:`.ends`): a dual held
    at exactly 0 could not absorb it without an a-priori bound."""
    frozen = np.zeros(form.A.shape[0], dtype=bool)
    y = y.copy()
    for _ in range(rounds):
        yc = correct_stationarity(form, y, g, set(bounds), frozen)
        if not _hold_inside(form, yc, (y, frozen), bounds, floor):
            return yc
        y[~frozen] = yc[~frozen]
    return correct_stationarity(form, y, g, set(bounds), frozen)


def _hold_inside(form: CanonicalForm, yc: np.ndarray, held, bounds, floor: float) -> bool:
    """Did a block without an a-priori bound leave the cone shifted inside by ``floor``?
    Each such block's (or ℝ₊ entry's) y is set to its projection of yc and frozen
    (``held`` = (y, frozen), changed in place); small PSD blocks of one layout by stacked
    eigensolves, the same bits as :meth:`Block.project` alone (each block reads and writes
    its own rows only, so the order does not matter)."""
    y, frozen = held
    moved = False
    done = np.zeros(len(form.blocks), dtype=bool)
    for blk, idx, at in psd_groups(form):
        done[idx] = True
        free = np.array([j not in bounds for j in idx]) & ~frozen[at[:, 0]]
        if np.any(free):
            M = stacked_matrices(blk, yc[at[free]], dual=True)
            low = np.linalg.eigvalsh(M)[:, 0] < floor
            if np.any(low):
                rows = at[free][low]
                y[rows], frozen[rows], moved = _projected(blk, M[low], floor), True, True
    for j, blk in enumerate(form.blocks):
        if done[j] or blk.kind not in ("nonneg", "soc", "psd") or j in bounds:
            continue
        v = yc[blk.rows]
        if blk.kind == "nonneg":
            low = np.flatnonzero((v < floor) & ~frozen[blk.rows])
            if low.size:
                idx = blk.start + low
                y[idx], frozen[idx], moved = floor, True, True
        elif not frozen[blk.start] and blk.min_eig(v, dual=True) < floor:
            y[blk.rows], frozen[blk.rows], moved = blk.project(v, floor), True, True
    return moved


def _projected(blk, M: np.ndarray, floor: float) -> np.ndarray:
    """:meth:`Block.project` (dual) of each matrix of the stack M, as rows (k, size)."""
    w, V = np.linalg.eigh(M)
    return stacked_vectors(blk, (V * np.maximum(w, floor)[:, None, :]) @ V.transpose(0, 2, 1), True)


def zero_rows(form: CanonicalForm) -> np.ndarray:
    """Indices of the equality (zero-cone) rows."""
    idx = [np.arange(blk.start, blk.stop) for blk in form.blocks if blk.kind == "zero"]
    return np.concatenate(idx) if idx else np.zeros(0, dtype=int)


def project_equalities(
    A_Z: sp.csr_matrix, b_Z: np.ndarray, x: np.ndarray, rounds: int = 3
) -> np.ndarray:
    """x + Δ, Δ the least-norm solution of A_Z Δ = −(A_Z x + b_Z), refined ``rounds``
    times; x itself when A_Z A_Zᵀ cannot be factored."""
    if A_Z.shape[0] == 0:
        return x
    A_Z = dense_or_sparse(A_Z)
    solve = ridged_solver(weighted_gram(A_Z.T), 1e-15)
    if solve is None:
        return x
    out = x.copy()
    for _ in range(rounds):
        r = A_Z @ out + b_Z
        with np.errstate(all="ignore"):
            step = A_Z.T @ solve(-r)
        if not np.all(np.isfinite(step)):
            break
        out = out + step
    return out


#: the scaled correction's dense Aᵀ H⁻¹ A is formed up to this many entries (8 bytes each)
SCALED_MAX_ENTRIES = 20_000_000
#: ... and A is read as one dense array up to this many entries
DENSE_ROWS_MAX_ENTRIES = 2_000_000


def _scaled_columns(form: CanonicalForm, y: np.ndarray) -> np.ndarray | None:
    """H⁻¹A as a dense array (rows × columns), H⁻¹ the interior-point metric of y: for a PSD
    block v ↦ vec(Y mat(v) Y) — a Nesterov–Todd-like scaling that moves each eigen-direction
    of Y in proportion to its eigenvalue — y_i² on ℝ₊, y₀² on a second-order cone, a large
    weight on the free rows.  None when it would not fit or the cones are not all symmetric.
    Small PSD blocks of one layout are done as one stack (:func:`_psd_scaled_stack`)."""
    A = working_matrix(form)
    if A.shape[0] * A.shape[1] > SCALED_MAX_ENTRIES:
        return None
    if any(blk.kind == "psd" and blk.triangle is None for blk in form.blocks):
        return None
    if any(blk.kind not in ("zero", "nonneg", "soc", "psd") for blk in form.blocks):
        return None
    out = np.zeros(A.shape, dtype=float)
    # H⁻¹ is needed up to a constant factor only (Δ = H⁻¹A(AᵀH⁻¹A)⁻¹r does not change): y is
    # divided by the power of two nearest its largest entry — exact, the same bits as
    # before wherever nothing overflowed — so that no square overflows (y at 2⁹⁰⁰ did)
    exponent = math.frexp(max(float(np.max(np.abs(y), initial=0.0)), 1e-300))[1]
    y = np.ldexp(y, -exponent)
    scale = max(float(np.max(np.abs(y), initial=0.0)), 1e-300)
    rows = _BlockRows(A)
    done = np.zeros(len(form.blocks), dtype=bool)
    for blk, idx, at in psd_groups(form):
        if _small_block(blk, A.shape[1]):
            Ys = stacked_matrices(blk, y[at], dual=True)
            out[at] = _psd_scaled_stack(blk, Ys, rows.dense(at))
            done[idx] = True
    for j, blk in enumerate(form.blocks):
        if done[j]:
            continue
        if blk.kind == "psd":
            Y = blk.matrix(y[blk.rows], dual=True)
            big = not _small_block(blk, A.shape[1])
            out[blk.rows] = _psd_scaled(
                blk, Y, rows.sparse(blk.rows) if big else rows.dense(blk.rows)
            )
            continue
        sub = rows.dense(blk.rows)
        if blk.kind == "zero":
            out[blk.rows] = sub * (1e4 * scale) ** 2
        elif blk.kind == "nonneg":
            out[blk.rows] = sub * (y[blk.rows] ** 2)[:, None]
        else:
            out[blk.rows] = sub * float(y[blk.start]) ** 2
    return out


class _BlockRows:
    """Rows of A for the metric: dense slices of A made dense once (up to
    DENSE_ROWS_MAX_ENTRIES: one conversion, not one sparse slice per block — truss has 151),
    and, for a PSD block taken column by column, its sparse rows without any conversion
    (mcp124-1's 7,750 × 124 A has 124 entries)."""

    def __init__(self, A):
        self.A, self._dense = A, A if isinstance(A, np.ndarray) else None

    def dense(self, rows) -> np.ndarray:
        if self._dense is None and self.A.shape[0] * self.A.shape[1] <= DENSE_ROWS_MAX_ENTRIES:
            self._dense = self.A.toarray()
        if self._dense is not None:
            return self._dense[rows]
        if isinstance(rows, slice):
            return self.A[rows].toarray()
        return self.A[rows.ravel()].toarray().reshape(*rows.shape, self.A.shape[1])

    def sparse(self, rows):
        if isinstance(self.A, np.ndarray):
            return self.A[rows]
        sub = sp.csc_matrix(self.A[rows])
        sub.eliminate_zeros()  # a stored zero is no entry of mat(m) (as a dense slice reads)
        return sub


#: entries of the dense work array of :func:`_psd_scaled_small` (columns × side²)
_SMALL_ENTRIES = 4_000_000
#: a PSD block up to this side takes the dense path of :func:`_psd_scaled`
SMALL_SIDE = 24


def _psd_scaled(blk, Y: np.ndarray, sub: np.ndarray) -> np.ndarray:
    """For each column m of ``sub`` (rows of one PSD block), the block rows of the dual
    vector of Y·mat(m)·Y, packed with the dual layout's weights (1 on the diagonal; the
    layout's √2, else 2, off it).  mat(m) is sparse: with S its support,
    Y·mat(m)·Y = Y[:, S]·mat(m)[S, S]·Y[S, :], one dense product per column
    (:func:`_psd_scaled_columns`); a small block forms every mat(m) at once
    (:func:`_psd_scaled_small`)."""
    if _small_block(blk, sub.shape[1]):
        sub = sub.toarray() if sp.issparse(sub) else sub
        return _psd_scaled_small(blk, Y, sub)
    return _psd_scaled_columns(blk, Y, sub, _dual_weights(blk))


def _dual_weights(blk) -> np.ndarray:
    """The dual layout's weights of a PSD block's rows: 1 on the diagonal, the layout's √2
    (else 2) off it."""
    a, b, w = blk.entry_map()
    return np.where(a == b, 1.0, w if blk.sqrt2 else 2.0)


def _small_block(blk, columns: int) -> bool:
    """Does a PSD block take the path that forms every mat(m) at once?"""
    return blk.side <= SMALL_SIDE and blk.side**2 * columns <= _SMALL_ENTRIES


def _scaled_map(blk, Ys: np.ndarray) -> np.ndarray:
    """K (k, size, size) for a stack Ys (k, side, side) of one triangle layout: the packed
    dual rows of Y·mat(m)·Y are K @ m — the symmetric Kronecker product of Y with itself in
    the layout's weights, entry by entry

        K[p, q] = w̃_p / w_q · (Y[a_p, a_q]·Y[b_q, b_p] + [a_q ≠ b_q]·Y[a_p, b_q]·Y[a_q, b_p]),

    row p holding the matrix entry (a_p, b_p) with weight w_p (w̃: the dual weights)."""
    a, b, w = blk.entry_map()
    ap, bp = a[:, None], b[:, None]
    same = Ys[:, ap, a[None, :]] * Ys[:, b[None, :], bp]
    cross = Ys[:, ap, b[None, :]] * Ys[:, a[None, :], bp]
    return (same + cross * (a != b)[None, None, :]) * (_dual_weights(blk)[:, None] / w[None, :])


def _psd_scaled_stack(blk, Ys: np.ndarray, subs: np.ndarray) -> np.ndarray:
    """:func:`_psd_scaled_small` of k blocks of one layout at once — Ys (k, side, side),
    subs (k, rows, columns) — as one stacked product K @ subs (:func:`_scaled_map`), in
    stacks of at most _SMALL_ENTRIES entries of K.  One product per block and column before
    (Y·mat(m)·Y on the columns each block touches): truss5's 33 blocks of side 10, 11 ms →
    3.4 ms; truss8's 33 of side 19, 258 → 33 ms."""
    out = np.empty(subs.shape)
    step = max(1, _SMALL_ENTRIES // max(subs.shape[1] ** 2, 1))
    for i in range(0, Ys.shape[0], step):
        out[i : i + step] = _scaled_map(blk, Ys[i : i + step]) @ subs[i : i + step]
    return out


def _psd_scaled_columns(blk, Y: np.ndarray, sub: np.ndarray, w_dual: np.ndarray) -> np.ndarray:
    """:func:`_psd_scaled` on each mat(m)'s support S: Y[:, S]·mat(m)[S, S]·Y[S, :], the
    columns whose supports have the same size as one stack of products (arch's 161-side
    block: 0.77 s by entry-wise gathers before, measured in docs/measurements.md; qap6's
    229 columns one at a time 6.6 ms) — each product the one a column alone would take."""
    a, b, w = blk.entry_map()
    S = sp.csc_matrix(sub)
    out = np.zeros(sub.shape)
    col = np.repeat(np.arange(S.shape[1]), np.diff(S.indptr))
    touched = np.zeros((S.shape[1], blk.side), dtype=bool)
    touched[col, a[S.indices]] = True
    touched[col, b[S.indices]] = True
    size = touched.sum(axis=1)
    rank = np.cumsum(touched, axis=1) - 1  # an entry's place in its column's support
    ia, ib = rank[col, a[S.indices]], rank[col, b[S.indices]]
    vals = S.data / w[S.indices]
    flat = a * blk.side + b  # (a, b)'s place in a flattened side × side product
    for k in np.unique(size[size > 0]):
        cols = np.flatnonzero(size == k)
        step = max(1, _SMALL_ENTRIES // (blk.side * blk.side))
        for part in (cols[i : i + step] for i in range(0, cols.size, step)):
            where = np.full(S.shape[1], -1)
            where[part] = np.arange(part.size)
            mine = where[col] >= 0
            M = np.zeros((part.size, k, k))
            M[where[col[mine]], ia[mine], ib[mine]] = vals[mine]
            M[where[col[mine]], ib[mine], ia[mine]] = vals[mine]
            support = np.nonzero(touched[part])[1].reshape(part.size, k)
            Ys = Y[:, support].transpose(1, 0, 2)  # each (side × k) slice laid out as Y[:, S]
            R = (Ys @ M @ Ys.transpose(0, 2, 1)).reshape(part.size, -1)
            out[:, part] = (R[:, flat] * w_dual).T
    return out


def _psd_scaled_small(blk, Y: np.ndarray, sub: np.ndarray) -> np.ndarray:
    """:func:`_psd_scaled` for a small block: K @ sub (:func:`_scaled_map`, which carries
    the block's dual weights)."""
    return _psd_scaled_stack(blk, Y[None], sub[None])[0]


def _raised_to_floor(form: CanonicalForm, y: np.ndarray, floor: float) -> np.ndarray:
    """A copy of y with every cone block whose λ_min (in K*) is below ``floor`` projected
    onto the cone shifted inside by ``floor``; small PSD blocks of one layout by stacked
    eigensolves (each matrix's the same as alone: truss6's 147 blocks 4 ms one at a time)."""
    y = y.copy()
    done = np.zeros(len(form.blocks), dtype=bool)
    for blk, idx, at in psd_groups(form):
        M = stacked_matrices(blk, y[at], dual=True)
        low = np.linalg.eigvalsh(M)[:, 0] < floor
        if np.any(low):
            y[at[low]] = _projected(blk, M[low], floor)
        done[idx] = True
    for j, blk in enumerate(form.blocks):
        if done[j] or blk.kind not in ("nonneg", "soc", "psd"):
            continue
        if blk.min_eig(y[blk.rows], dual=True) < floor:
            y[blk.rows] = blk.project(y[blk.rows], floor)
    return y


def scaled_correction(
    form: CanonicalForm, y: np.ndarray, g: np.ndarray, floor: float, rounds: int = 2
) -> np.ndarray | None:
    """y + Δ with Aᵀ(y + Δ) = g, Δ = H⁻¹A u least in the interior-point metric of y (so the
    correction keeps y's small eigenvalues small but positive: an interior-point dual stays
    inside K*), refined ``rounds`` times, from y with every cone block first raised to λ_min ≥
    ``floor`` (an interior-point dual ends just outside by rounding); None when the metric
    cannot be formed."""
    y = _raised_to_floor(form, y, floor)
    HA = _scaled_columns(form, y)
    if HA is None:
        return None
    N = working_matrix(form).T @ HA
    N = (N + N.T) / 2
    ridge = 1e-14 * max(float(np.max(np.abs(np.diag(N)), initial=0.0)), 1e-300)
    M = N + ridge * np.eye(N.shape[0])
    if not np.all(np.isfinite(M)):
        return None
    # LAPACK's potrf / potrs themselves (what cho_factor / cho_solve call: the same bits)
    factor, info = lapack.dpotrf(M, lower=0, clean=0)
    if info != 0:  # not positive definite: the metric does not help here
        return None
    out = y.copy()
    for _ in range(rounds):
        r = g - working_matrix(form).T @ out
        with np.errstate(invalid="ignore", over="ignore"):  # a non-finite step is refused below
            step = HA @ lapack.dpotrs(factor, r, lower=0)[0]
        if not np.all(np.isfinite(step)):
            return None
        out = out + step
    return out
