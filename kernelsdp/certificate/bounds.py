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

from collections.abc import Iterator, Mapping

import numpy as np
import scipy.sparse as sp

from .canonical import CanonicalForm


def _variable_columns(
    A: sp.csr_matrix, b: np.ndarray, rows: slice
) -> tuple[np.ndarray, np.ndarray] | None:
    """(columns, weights) when the rows pick distinct entries of x with positive weights
    (read off A's CSR arrays: one sparse slice per block cost truss6 1.5 ms)."""
    indptr = A.indptr[rows.start : rows.stop + 1]
    if np.any(np.diff(indptr) != 1) or np.any(b[rows] != 0):
        return None
    cols, w = A.indices[indptr[0] : indptr[-1]], A.data[indptr[0] : indptr[-1]]
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
            coef = A.data[lo:hi] / dscale[a]  # the row in terms of X_aa
            if sign_rows[r] > 0:  # Σ coef X_aa + b_r = 0
                s = np.sign(coef[0])
                if np.any(np.sign(coef) != s):
                    continue
                weights, beta = np.abs(coef), -s * b[r]
            else:  # Σ coef X_aa + b_r ≥ 0
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


def _single_entry_box(form: CanonicalForm, lo: np.ndarray, hi: np.ndarray) -> None:
    """Tighten [lo, hi] on x from rows with one entry: a·x_k + b = 0 (zero cone) or ≥ 0
    (ℝ₊), each bound moved outwards by a few ulps for the division's rounding."""
    A, b = form.A, form.b
    for blk in form.blocks:
        if blk.kind not in ("zero", "nonneg"):
            continue
        sub = A[blk.rows]
        single = np.flatnonzero(np.diff(sub.indptr) == 1)
        if not single.size:
            continue
        k = sub.indices[sub.indptr[single]]
        a = sub.data[sub.indptr[single]]
        v = -b[blk.start + single] / a
        pad = 4 * np.finfo(float).eps * np.abs(v) + np.finfo(float).tiny
        if blk.kind == "zero":
            np.maximum.at(lo, k, v - pad)
            np.minimum.at(hi, k, v + pad)
        else:
            pos = a > 0
            np.maximum.at(lo, k[pos], (v - pad)[pos])
            np.minimum.at(hi, k[~pos], (v + pad)[~pos])


def box_bounds(form: CanonicalForm, traces: dict[int, float]) -> dict[int, np.ndarray | float]:
    """Upper bounds on the cone rows over the feasible set, from a box on x: rows with one
    entry, and the entries of trace-bounded PSD variable blocks (|X_ab| ≤ tr X).  Per entry
    for ℝ₊ blocks (an array), the trace (Σ of the diagonal rows' bounds; √2·t for a
    second-order cone) for the others; only finite bounds are returned.  Each row's bound
    b_i + Σ_k max(a_ik·lo_k, a_ik·hi_k) is rounded up (Higham's γ_k)."""
    from ..linalg.rounding import gamma

    n = form.A.shape[1]
    lo, hi = np.full(n, -np.inf), np.full(n, np.inf)
    A = form.A.tocsr()
    for j, T in traces.items():  # a variable PSD block: every entry within ±T
        lo_j, hi_j = A.indptr[form.blocks[j].start], A.indptr[form.blocks[j].stop]
        cols, w = A.indices[lo_j:hi_j], np.abs(A.data[lo_j:hi_j])
        np.maximum.at(lo, cols, -T / w * (1 + 1e-15))
        np.minimum.at(hi, cols, T / w * (1 + 1e-15))
    _single_entry_box(form, lo, hi)
    row_up = _row_upper(A, form.b, lo, hi)
    row_up = row_up + gamma(int(np.max(np.diff(A.indptr), initial=1)) + 1) * np.abs(row_up)
    out: dict[int, np.ndarray | float] = {}
    for j, blk in enumerate(form.blocks):
        if j in traces or blk.kind == "zero":
            continue
        r = row_up[blk.rows]
        if blk.kind == "nonneg":
            if np.any(np.isfinite(r)):
                out[j] = np.where(np.isfinite(r), np.maximum(r, 0.0), np.inf)
        elif blk.kind == "psd":
            t = float(np.sum(np.maximum(r[blk.diagonal_rows()], 0.0)))
            if np.isfinite(t):
                out[j] = t * (1 + 1e-15)
        elif blk.kind == "soc" and np.isfinite(r[0]):
            out[j] = np.sqrt(2.0) * max(float(r[0]), 0.0) * (1 + 1e-15)
    return out


def _row_upper(A: sp.csr_matrix, b: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """b_i + Σ_k max(a_ik·lo_k, a_ik·hi_k) per row (+inf where a term is unbounded)."""
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    a, k = A.data, A.indices
    with np.errstate(invalid="ignore"):
        term = np.where(a > 0, a * hi[k], a * lo[k])
    term = np.where(a == 0, 0.0, term)
    out = np.asarray(b, dtype=float).copy()
    np.add.at(out, rows, term)
    return out


class APrioriBounds(Mapping):
    """Every a-priori bound of the form (:func:`box_bounds` with :func:`trace_bounds` over
    it), a mapping from block index to bound, found on first use: a dual inside K*
    needs none (SDPLIB's truss1, 3 and 4: 0.2 ms of their 3.2 ms certificates)."""

    def __init__(self, form: CanonicalForm):
        self._form = form

    @property
    def _found(self) -> dict[int, np.ndarray | float]:
        form = self._form

        def find() -> dict[int, np.ndarray | float]:
            traces = trace_bounds(form)
            return {**box_bounds(form, traces), **traces}

        return form.derived("a-priori bounds", find)

    def __getitem__(self, j: int) -> np.ndarray | float:
        return self._found[j]

    def __iter__(self) -> Iterator[int]:
        return iter(self._found)

    def __len__(self) -> int:
        return len(self._found)

    def __contains__(self, j: object) -> bool:
        return j in self._found
