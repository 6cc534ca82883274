"""Ridged normal equations — (AᵀWA + ridge·I)u = r and (A Aᵀ + ridge·I)u = r — for the
*corrections* of a certificate (:mod:`.correction`, :mod:`.interior`): the steps that move a
returned point onto its linear rows before the proofs.  Nothing here is part of a proof:
every point these solves produce is proven afterwards from scratch (:mod:`.ends`), with its
own residual enclosed, so the choice of factorisation changes speed, never a label.

A small A is factored dense (LAPACK's LU of the n×n normal matrix): on SDPLIB's hinf,
truss and control files (A up to a few thousand entries) one sparse ``splu`` with its
``AᵀWA`` product costs about 0.4 ms in SciPy's per-call overhead, the dense path 0.05 ms,
and a certificate makes several (measured in ``benchmarks/certificate_cost.py``'s
history, docs/measurements.md).  Above :data:`DENSE_MAX_ENTRIES` entries of A the sparse
path is kept (qap5's 351 × 136 already runs even; arch0's 13,215 × 174 is 20× slower
dense).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.linalg import lapack

#: A (rows × columns) is handled as a dense array up to this many entries
DENSE_MAX_ENTRIES = 20_000

Solve = Callable[[np.ndarray], np.ndarray]


def is_small(A) -> bool:
    """Is A small enough for the dense path?"""
    return A.shape[0] * A.shape[1] <= DENSE_MAX_ENTRIES


def dense_or_sparse(A):
    """A as a dense array when small, else as CSR (products then cost what they should)."""
    if is_small(A):
        return A.toarray() if sp.issparse(A) else np.asarray(A, dtype=float)
    return sp.csr_matrix(A)


def weighted_gram(A, w: np.ndarray | None = None):
    """AᵀWA (W = diag(w), the identity when None): dense for a dense A, CSC otherwise."""
    if isinstance(A, np.ndarray):
        return A.T @ (A if w is None else w[:, None] * A)
    return (A.T @ (A if w is None else sp.diags(w) @ A)).tocsc()


def ridged_solver(N, ridge_rel: float) -> Solve | None:
    """A solver for (N + ridge·I)u = r, ridge = ridge_rel × N's largest diagonal entry, N
    symmetric positive semidefinite (dense or sparse); None when the ridged matrix is
    exactly singular (an empty column: the caller falls back)."""
    diag = N.diagonal() if sp.issparse(N) else np.diag(N)
    ridge = ridge_rel * max(float(np.max(diag, initial=0.0)), 1e-300)
    if not sp.issparse(N):
        # LAPACK's getrf / getrs themselves: what lu_factor / lu_solve call, the same bits,
        # without the wrappers' per-call checks (on a 6 × 6 system: cho_factor 6.1 µs
        # against potrf's 0.8, cho_solve 8.8 against potrs's 1.0)
        lu, piv, _ = lapack.dgetrf(N + ridge * np.eye(N.shape[0]))
        if not np.all(np.isfinite(lu)) or np.any(np.diag(lu) == 0):
            return None
        return lambda r: lapack.dgetrs(lu, piv, np.asarray(r, dtype=float))[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return spla.splu((N + ridge * sp.identity(N.shape[0], format="csc")).tocsc()).solve
        except RuntimeError:
            return None


def least_squares_solver(N) -> Solve:
    """The least-squares fallback for a singular N."""
    if sp.issparse(N):
        return lambda r: spla.lsqr(N, r, atol=1e-15, btol=1e-15)[0]
    return lambda r: np.linalg.lstsq(N, r, rcond=None)[0]


def working_matrix(form):
    """``form.A`` in the format of :func:`dense_or_sparse`, made once per form (a form's A
    is never changed in place: :mod:`.perturbed` builds new forms)."""
    return form.derived("working A", lambda: dense_or_sparse(form.A))
