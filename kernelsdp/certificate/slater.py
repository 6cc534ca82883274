"""Where a side of the problem has no strictly feasible point, read off the data: the
shrunk re-solve of :mod:`.perturbed` cannot succeed there, and is not run.

For (P) min ½xᵀPx + cᵀx + d s.t. s = Ax + b ∈ K and its dual (Aᵀy = c + Px, y ∈ K*):

- **no strictly feasible dual point** when some x_i moves along a direction of recession
  of (P) that costs nothing: its column a_i has no entry on the equality rows, Pe_i = 0,
  ±a_i ∈ K∖{0} and ±c_i ≤ 0.  For every dual point y ∈ int K*, ±c_i = ±(Aᵀy)_i − (Px)_i =
  ⟨y, ±a_i⟩ > 0, a contradiction (SDPLIB's gpp: the row ⟨J, X⟩ = 0 with J = 11ᵀ ⪰ 0);
- **no strictly feasible primal point** when a cone row can only be 0: a diagonal row of a
  PSD block, an ℝ₊ row or the first row of a second-order cone whose row of A and entry of
  b are exactly 0 (s_aa = 0 for every x).

The first test checks a_i ∈ K with an eigenvalue solver (a singular PSD column such as 11ᵀ
cannot be proven PSD by a shifted Cholesky): it decides only whether a re-solve is worth
its cost, and the end keeps its own label and reason.  The second test is exact.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .canonical import CanonicalForm

#: a column's block counts as inside its cone when λ_min ≥ −this × its largest entry
INSIDE_REL = 1e-12


def _sign_rows(form: CanonicalForm) -> tuple[np.ndarray, np.ndarray]:
    """(rows a nonzero member of K must keep ≥ 0 — ℝ₊ rows, PSD diagonals, SOC heads —,
    equality rows), as masks."""
    m = form.A.shape[0]
    sign, zero = np.zeros(m, dtype=bool), np.zeros(m, dtype=bool)
    for blk in form.blocks:
        if blk.kind == "zero":
            zero[blk.rows] = True
        elif blk.kind == "nonneg":
            sign[blk.rows] = True
        elif blk.kind == "psd":
            sign[blk.start + blk.diagonal_rows()] = True
        elif blk.kind == "soc":
            sign[blk.start] = True
    return sign, zero


def _column_inside(form: CanonicalForm, v: np.ndarray) -> bool:
    for blk in form.blocks:
        part = v[blk.rows]
        if blk.kind == "zero" or not np.any(part):
            continue
        if blk.kind in ("exp", "pow3d"):
            return False
        top = float(np.max(np.abs(part)))
        if blk.min_eig(part) < -INSIDE_REL * top:
            return False
    return True


def dual_recession_column(form: CanonicalForm) -> str:
    """'' or why no dual point is strictly feasible (a free direction of (P), above; kept
    on the form)."""
    return form.derived("dual recession column", lambda: _dual_recession_column(form))


def _dual_recession_column(form: CanonicalForm) -> str:
    if any(b.kind in ("exp", "pow3d") for b in form.blocks):
        return ""
    A = sp.csc_matrix(form.A)
    n = A.shape[1]
    sign, zero = _sign_rows(form)
    col = np.repeat(np.arange(n), np.diff(A.indptr))  # the column of each stored entry
    live = A.data != 0
    free = np.bincount(col[live & zero[A.indices]], minlength=n) == 0
    if form.P is not None and form.P.nnz:
        P = sp.csc_matrix(form.P)
        free &= (
            np.bincount(np.repeat(np.arange(n), np.diff(P.indptr))[P.data != 0], minlength=n) == 0
        )
    on_sign = live & sign[A.indices]
    pos = np.bincount(col[on_sign & (A.data > 0)], minlength=n)
    neg = np.bincount(col[on_sign & (A.data < 0)], minlength=n)
    for s, ok in ((1.0, (pos > 0) & (neg == 0)), (-1.0, (neg > 0) & (pos == 0))):
        for i in np.flatnonzero(ok & free & (s * form.c <= 0))[:50]:
            column = np.zeros(A.shape[0])  # A's column i off its CSC arrays, no sparse slice
            np.add.at(
                column,
                A.indices[A.indptr[i] : A.indptr[i + 1]],
                A.data[A.indptr[i] : A.indptr[i + 1]],
            )
            if _column_inside(form, s * column):
                return (
                    f"no strictly feasible dual point: x_{i} is a free direction of the "
                    f"primal ({'+' if s > 0 else '−'}column {i} of A in K, cost "
                    f"{s * form.c[i]:.3g} ≤ 0)"
                )
    return ""


def primal_fixed_row(form: CanonicalForm) -> str:
    """'' or why no primal point is strictly feasible (a cone row that can only be 0; kept
    on the form)."""
    return form.derived("primal fixed row", lambda: _primal_fixed_row(form))


def _primal_fixed_row(form: CanonicalForm) -> str:
    sign, _ = _sign_rows(form)
    empty = (np.diff(sp.csr_matrix(form.A).indptr) == 0) & (form.b == 0) & sign
    if not empty.any():
        return ""
    r = int(np.flatnonzero(empty)[0])
    j = next(j for j, b in enumerate(form.blocks) if b.start <= r < b.stop)
    return (
        f"no strictly feasible primal point: row {r} of block {j} ({form.blocks[j].kind}) "
        "is 0 for every x"
    )
