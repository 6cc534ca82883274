"""Values for the variables and multipliers that CVXPY's canonical form adds of its own.

``sum_squares(A @ x − b)``, ``quad_form(expr, P)`` and their kind are canonicalised with an
auxiliary variable t and an equality row block t = expr that belongs to no user
constraint: an already solved problem (:mod:`.solved_problem`) has neither a value for t
nor a dual for its rows.  Both are determined by the rest where the form allows:

- t from the equality rows, with the user's x fixed: A_Z[:, J]·t = −(A_Z[:, ¬J]·x + b_Z),
  solved by least squares when A_Z[:, J] has full column rank; a t in no equality row that
  only heads second-order cones (the epigraph of a norm) at its least feasible value;
- the multipliers of the canonical form's own rows R (t's equality rows, a norm's cone)
  from stationarity: A[R, :]ᵀ·y_R = (Px + c) − A[¬R, :]ᵀ·y_¬R, when A[R, :] has full row
  rank.

Nothing here is trusted: the completed (x, y) goes through the certificate's proofs like any
point, which correct and enclose whatever residual the least squares leave.  Where t is not
determined (an epigraph variable that only a cone row bounds), the model is refused with
the typed error it had before; where the multipliers are not determined, the point is
certified as "feasibility only".
"""

from __future__ import annotations

import numpy as np

from .canonical import CanonicalForm
from .correction import zero_rows


def complete_primal(form: CanonicalForm, x: np.ndarray, cols: np.ndarray) -> np.ndarray | None:
    """x with its auxiliary columns ``cols`` filled: those in equality rows from them, the
    rest as epigraphs (:func:`_epigraphs`); None when that does not determine them."""
    if cols.size == 0:
        return x
    Z = zero_rows(form)
    A_Z = form.A[Z].tocsc()
    in_rows = np.diff(A_Z.indptr)[cols] > 0 if Z.size else np.zeros(cols.size, dtype=bool)
    eq, epi = cols[in_rows], cols[~in_rows]
    out = x.copy()
    if eq.size:
        known = np.setdiff1d(np.arange(form.A.shape[1]), cols)
        rhs = -(A_Z[:, known] @ x[known] + form.b[Z])
        t = _solve(A_Z[:, eq].toarray(), rhs)
        if t is None:
            return None
        out[eq] = t
    return _epigraphs(form, out, epi)


def _epigraphs(form: CanonicalForm, x: np.ndarray, cols: np.ndarray) -> np.ndarray | None:
    """x with each column of ``cols`` set to the least value its second-order cones allow
    (times 1 + 1e-12): a column that only heads SOC blocks, with a positive coefficient, a
    cost c_j ≥ 0 and no quadratic term — the t of ‖·‖ ≤ t that CVXPY adds for a norm.  None
    for any other column."""
    if cols.size == 0:
        return x
    if form.P is not None and form.P.nnz and np.any(abs(form.P)[:, cols].sum(axis=0)):
        return None
    A = form.A.tocsc()
    heads = {blk.start: blk for blk in form.blocks if blk.kind == "soc"}
    out = x.copy()
    for j in cols:
        rows, coef = A.indices[A.indptr[j] : A.indptr[j + 1]], A.data[A.indptr[j] : A.indptr[j + 1]]
        if form.c[j] < 0 or not rows.size or np.any(coef <= 0):
            return None
        if not all(r in heads for r in rows):
            return None
        out[j] = 0.0
        need = 0.0
        for r, a in zip(rows, coef):
            blk = heads[r]
            s = form.A[blk.rows] @ out + form.b[blk.rows]
            need = max(need, (float(np.linalg.norm(s[1:])) - float(s[0])) / float(a))
        out[j] = need * (1.0 + 1e-12)
    return out


def complete_dual(
    form: CanonicalForm, x: np.ndarray, y: np.ndarray, rows: np.ndarray
) -> np.ndarray | None:
    """y with the canonical form's own rows ``rows`` filled from stationarity in every
    column; None when it does not determine them."""
    if rows.size == 0:
        return y
    A = form.A.tocsr()
    g = form.c if form.P is None else form.c + form.P @ x
    known = np.setdiff1d(np.arange(A.shape[0]), rows)
    rhs = g - A[known].T @ y[known]
    yr = _solve(A[rows].T.toarray(), rhs)
    if yr is None:
        return None
    out = y.copy()
    out[rows] = yr
    return out


def _solve(M: np.ndarray, rhs: np.ndarray) -> np.ndarray | None:
    """The least-squares solution when M has full column rank and it is finite, else None."""
    if not (np.all(np.isfinite(M)) and np.all(np.isfinite(rhs))):
        return None
    try:
        z, _, rank, _ = np.linalg.lstsq(M, rhs, rcond=None)
    except np.linalg.LinAlgError:
        return None
    return z if rank == M.shape[1] and np.all(np.isfinite(z)) else None
