"""A-priori trace bounds of PSD blocks, read off the canonical form's own rows.

The lower bound of a conic certificate is rigorous when every cone block whose corrected
dual y_j is not in K* has a known bound s̄_j ≥ tr(s_j) over the feasible set
(⟨y_j, s_j⟩ ≥ λ_min(y_j)·tr(s_j) for s_j in the cone).  Such bounds are found here for
*variable blocks*: PSD blocks whose rows pick distinct entries of x with positive weights
and no offset (the block is a matrix variable X, as CVXPY makes of ``X >> 0`` for a
symmetric variable).  Each other row of the zero or nonnegative cone that touches only
diagonal entries of X, all with the same sign, says Σ_a w_a X_aa ≤ β with w > 0:

- ``trace(X) <= B`` (NPKL's capacity), ``trace(X) == 1`` (Lovász theta) → tr X ≤ β / min w;
- ``diag(X) == 1`` (MaxCut) → X_aa ≤ 1 for each a.

Rows are chosen greedily with disjoint supports (best β/min w per entry first); diagonal
entries no chosen row covers fall back on their best single-entry bound; without one, the
block has no bound.  Bounds a model states otherwise (e.g. 1ᵀZ1 = 1 with Z ≥ 0) can be made
visible by adding the implied, redundant ``trace(Z) <= 1``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .canonical import CanonicalForm


def _variable_columns(A: sp.csr_matrix, b: np.ndarray, rows: slice) -> tuple[np.ndarray, np.ndarray] | None:
    """(columns, weights) when the rows pick distinct entries of x with positive weights."""
    sub = A[rows]
    if sub.nnz != sub.shape[0] or np.any(np.diff(sub.indptr) != 1) or np.any(b[rows] != 0):
        return None
    cols, w = sub.indices, sub.data
    if np.any(w <= 0) or np.unique(cols).size != cols.size:
        return None
    return cols, w


def trace_bounds(form: CanonicalForm) -> dict[int, float]:
    """Block index → a bound on tr(s_j) valid on the whole feasible set (variable PSD blocks)."""
    A, b = form.A, form.b
    linear = np.zeros(A.shape[0], dtype=bool)
    sign_rows = np.zeros(A.shape[0])  # +1 equality, −1 "≥ 0" row
    for blk in form.blocks:
        if blk.kind in ("zero", "nonneg"):
            linear[blk.rows] = True
            sign_rows[blk.rows] = 1.0 if blk.kind == "zero" else -1.0
    out: dict[int, float] = {}
    absA = None
    for j, blk in enumerate(form.blocks):
        if blk.kind != "psd":
            continue
        picked = _variable_columns(A, b, blk.rows)
        if picked is None:
            continue
        cols, w = picked
        diag = blk.diagonal_rows()
        dcols, dscale = cols[diag], w[diag]  # X_aa = dscale_a · x[dcols_a]
        where = np.full(A.shape[1], -1)
        where[dcols] = np.arange(blk.side)
        if absA is None:
            absA = abs(A).astype(bool).astype(float).tocsr()
        inside = absA @ (where >= 0).astype(float)
        nnz = np.diff(A.indptr)
        candidates = np.flatnonzero(linear & (nnz > 0) & (inside == nnz))
        rows_info = []
        for r in candidates:
            lo, hi = A.indptr[r], A.indptr[r + 1]
            a = where[A.indices[lo:hi]]
            coef = A.data[lo:hi] / dscale[a]          # the row in terms of X_aa
            if sign_rows[r] > 0:                      # Σ coef X_aa + b_r = 0
                s = np.sign(coef[0])
                if np.any(np.sign(coef) != s):
                    continue
                weights, beta = np.abs(coef), -s * b[r]
            else:                                     # Σ coef X_aa + b_r ≥ 0
                if np.any(coef >= 0):
                    continue
                weights, beta = -coef, b[r]
            if beta < 0:  # infeasible row: no bound from it
                continue
            rows_info.append((a, weights, float(beta)))
        if not rows_info:
            continue
        single = np.full(blk.side, np.inf)
        for a, weights, beta in rows_info:
            np.minimum.at(single, a, beta / weights)
        covered = np.zeros(blk.side, dtype=bool)
        total = 0.0
        for a, weights, beta in sorted(rows_info, key=lambda t: t[2] / t[1].min() / t[0].size):
            if not covered[a].any():
                covered[a] = True
                total += beta / weights.min()
        total += float(np.sum(single[~covered]))
        if np.isfinite(total):
            out[j] = total
    return out
