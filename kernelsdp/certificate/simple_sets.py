"""Proven objective values at points of simple sets, for the families' own certificates
(StQP and N-cut on the simplex, the spectral metric's sum row; issue #26).

A float point x almost never meets 1ᵀx = c exactly.  The exact residual r = 1ᵀx − c is
known to within rounding — ``math.fsum`` returns it correctly rounded (Shewchuk's
algorithm), so |r| ≤ |fsum|·(1 + u) — and the point x″ = x − r·e_k, k its largest entry,
meets the row exactly and stays ≥ 0 when x_k ≥ |r|.  x″ is never formed: the objective's
change is bounded instead, f(x″) ≤ f(x) + |∂_k f(x)|·|r| + ½|∂²_kk f|·r².
"""

from __future__ import annotations

import math

import numpy as np

from ..linalg.rounding import UNIT_ROUNDOFF, gamma, up


def row_residual_up(x: np.ndarray, c: float) -> float:
    """An upper bound on |1ᵀx − c| for the exact sum."""
    r = math.fsum([*np.asarray(x, dtype=float).tolist(), -float(c)])
    return 0.0 if r == 0.0 else up(abs(r) * (1 + 2 * UNIT_ROUNDOFF))


def quadratic_value_up(Q: np.ndarray, x: np.ndarray) -> tuple[float, float]:
    """(fl(xᵀQx), a bound on its rounding error): dense Q, or a vector d for xᵀdiag(d)x."""
    x = np.asarray(x, dtype=float)
    if Q.ndim == 1:
        v = float(x @ (Q * x))
        err = gamma(x.size + 2) * float(np.abs(x) @ (np.abs(Q) * np.abs(x)))
        return v, up(err)
    Qx = Q @ x
    v = float(x @ Qx)
    err = gamma(2 * x.size + 2) * float(np.abs(x) @ (np.abs(Q) @ np.abs(x)))
    return v, up(err)


def corrected_quadratic_up(
    Q: np.ndarray, x: np.ndarray, c: float, nonneg: bool
) -> tuple[float, str]:
    """(an upper bound on x″ᵀQx″ for an exact point x″ of {1ᵀx = c[, x ≥ 0]} near x, or
    +inf, why not)."""
    x = np.asarray(x, dtype=float)
    if nonneg and np.any(x < 0):
        return math.inf, "the point has a negative entry"
    r = row_residual_up(x, c)
    v, err = quadratic_value_up(Q, x)
    if r == 0.0:
        return up(v + err), ""
    k = int(np.argmax(x)) if nonneg else int(np.argmax(np.abs(x)))
    if nonneg and x[k] < r:
        return math.inf, "the row's residual exceeds every entry"
    if Q.ndim == 1:
        grad, curv = 2 * abs(Q[k] * x[k]), abs(Q[k])
    else:
        grad, curv = 2 * float(np.abs(Q[k]) @ np.abs(x)), abs(Q[k, k])
    return up(v + err + up(grad * r * (1 + 4 * UNIT_ROUNDOFF)) + up(curv * r * r)), ""
