"""Local polish of a recovered point: a local optimum of the QCQP near it.

- Continuous variables: SciPy's SLSQP (``scipy.optimize.minimize``, Kraft 1988) with the
  box as bounds and every other constraint (A x = b, G x ≤ h, the quadratic ones) with its
  exact gradient; the declared variables are held fixed.
- ±1 and binary variables: greedy single flips (1-opt), each flip's change of the objective
  read from the gradient, f(x + δe_i) − f(x) = δ(2Px + q)_i + δ²P_ii; a flip is kept only
  when it improves the objective and keeps the point as feasible as it was.

The polished point replaces the start only when it is better and feasible
(:func:`polish`); a failed or infeasible local solve leaves the start as it was.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.optimize import Bounds, minimize

from .qcqp import QCQP

#: SLSQP's iteration limit and stopping tolerance
SLSQP_MAXITER = 300
SLSQP_FTOL = 1e-12


def _slsqp_constraints(q: QCQP, x0: np.ndarray, free: np.ndarray) -> list[dict]:
    def full(z):
        x = x0.copy()
        x[free] = z
        return x

    cons = []
    if q.A is not None:
        cons.append(
            {"type": "eq", "fun": lambda z: q.A @ full(z) - q.b, "jac": lambda z: q.A[:, free]}
        )
    if q.G is not None:
        cons.append(
            {"type": "ineq", "fun": lambda z: q.h - q.G @ full(z), "jac": lambda z: -q.G[:, free]}
        )
    for c in q.inequalities:
        cons.append(
            {
                "type": "ineq",
                "fun": lambda z, c=c: -c(full(z)),
                "jac": lambda z, c=c: -c.gradient(full(z))[free],
            }
        )
    for c in q.equalities:
        cons.append(
            {
                "type": "eq",
                "fun": lambda z, c=c: c(full(z)),
                "jac": lambda z, c=c: c.gradient(full(z))[free],
            }
        )
    return cons


def continuous_polish(q: QCQP, x0: np.ndarray) -> np.ndarray:
    """SLSQP from x0 over the continuous variables (the declared ones fixed)."""
    free = np.setdiff1d(np.arange(q.d), q.integer)
    if not free.size:
        return x0
    s = q.sense

    def full(z):
        x = x0.copy()
        x[free] = z
        return x

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = minimize(
            lambda z: s * q.value(full(z)),
            x0[free],
            jac=lambda z: s * q.objective.gradient(full(z))[free],
            method="SLSQP",
            bounds=Bounds(q.lb[free], q.ub[free]),
            constraints=_slsqp_constraints(q, x0, free),
            options={"maxiter": SLSQP_MAXITER, "ftol": SLSQP_FTOL},
        )
    if not np.all(np.isfinite(res.x)):
        return x0
    return np.clip(full(res.x), q.lb, q.ub)


def flip_polish(q: QCQP, x0: np.ndarray, tol: float, max_rounds: int | None = None) -> np.ndarray:
    """Greedy single flips of the ±1 and binary variables while they improve."""
    x = x0.copy()
    idx = q.integer
    if not idx.size:
        return x
    P, lin = q.objective.P, q.objective.q
    for _ in range(max_rounds or 10 * idx.size):
        target = np.where(np.isin(idx, q.spin), -x[idx], 1.0 - x[idx])
        delta = target - x[idx]
        change = q.sense * (delta * (2 * P[idx] @ x + lin[idx]) + delta**2 * np.diag(P)[idx])
        base = q.violation(x)
        moved = False
        for k in np.argsort(change):
            if change[k] >= -1e-12 * (1 + abs(q.value(x))):
                break
            y = x.copy()
            y[idx[k]] = target[k]
            if q.violation(y) <= max(base, tol):
                x, moved = y, True
                break
        if not moved:
            break
    return x


def polish(q: QCQP, x0: np.ndarray, tol: float) -> np.ndarray:
    """Flip, then SLSQP; the result when it is feasible (≤ tol) and no worse than x0 (or x0
    is infeasible), else x0."""
    x0 = np.asarray(x0, dtype=float)
    x = continuous_polish(q, flip_polish(q, x0, tol))
    if q.violation(x) <= tol and (q.violation(x0) > tol or not q.better(q.value(x0), q.value(x))):
        return x
    return x0
