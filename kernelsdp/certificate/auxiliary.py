"""Values for the variables and multipliers that CVXPY's canonical form adds of its own.

``sum_squares(A @ x − b)``, ``quad_form(expr, P)`` and their kind are canonicalised with an
auxiliary variable t and an equality row block t = expr that belongs to no user
constraint: an already solved problem (:mod:`.solved_problem`) has neither a value for t
nor a dual for its rows.  Both are determined by the rest where the form allows:

- t from the equality rows, with the user's x fixed: A_Z[:, J]·t = −(A_Z[:, ¬J]·x + b_Z),
  solved by least squares when A_Z[:, J] has full column rank;
- the multipliers of t's own rows R from stationarity in t's columns J:
  A[R, J]ᵀ·y_R = (Px + c)_J − A[¬R, J]ᵀ·y_¬R, when A[R, J] has full row rank.

Nothing here is trusted: the completed (x, y) goes through the certificate's proofs like any
point, which correct and enclose whatever residual the least squares leave.  Where t is not
determined (an epigraph variable that only a cone row bounds), the model is refused with
the typed error it had before.
"""

from __future__ import annotations

import numpy as np

from .canonical import CanonicalForm
from .correction import zero_rows


def complete_primal(form: CanonicalForm, x: np.ndarray, cols: np.ndarray) -> np.ndarray | None:
    """x with its auxiliary columns ``cols`` filled from the equality rows; None when they
    do not determine them."""
    if cols.size == 0:
        return x
    Z = zero_rows(form)
    if Z.size == 0:
        return None
    A_Z = form.A[Z]
    known = np.setdiff1d(np.arange(form.A.shape[1]), cols)
    rhs = -(A_Z[:, known] @ x[known] + form.b[Z])
    t = _solve(A_Z[:, cols].toarray(), rhs)
    if t is None:
        return None
    out = x.copy()
    out[cols] = t
    return out


def complete_dual(
    form: CanonicalForm, x: np.ndarray, y: np.ndarray, rows: np.ndarray, cols: np.ndarray
) -> np.ndarray | None:
    """y with the auxiliary rows ``rows`` filled from stationarity in the auxiliary columns
    ``cols``; None when they do not determine them."""
    if rows.size == 0:
        return y
    A = form.A.tocsc()
    g = form.c if form.P is None else form.c + form.P @ x
    known = np.setdiff1d(np.arange(A.shape[0]), rows)
    A_J = A[:, cols]
    rhs = g[cols] - A_J[known].T @ y[known]
    yr = _solve(A_J[rows].T.toarray(), rhs)
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
