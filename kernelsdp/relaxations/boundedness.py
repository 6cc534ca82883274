"""Is a lifted model bounded?  Sufficient tests, each with the reason when it fails.

A Shor-type lifting replaces xxᵀ by a matrix X; its model is bounded when every diagonal
entry X_ii is (X ⪰ xxᵀ or products of bounds then bound the rest).  Which X_ii a lifting
bounds is its *coverage*:

- Shor: x_i with a finite lower *and* upper bound ((x_i − l)(u − x_i) ≥ 0 lifts to
  X_ii ≤ (l + u)x_i − lu ≤ max(l², u²)), and ±1 or binary variables (X_ii = 1, X_ii = x_i);
- RLT: x_i bounded by the *linear* constraints, the box they imply (one LP per side,
  :func:`implied_box`): the bound (x_i − l)(u − x_i) ≥ 0 is a nonnegative combination of
  pairwise products of the constraints (Farkas), so RLT holds it;
- DNN: Shor's, plus the support of an equality aᵀx = β with a ≥ 0 (X ≥ 0 and Xa = βx give
  a_i X_ii ≤ βx_i ≤ β²/a_i).

Coordinates U left uncovered are still bounded when some quadratic constraint has
P[U, U] ≻ 0 (an ellipsoid or a sphere in them), and the model's *value* is bounded when the
objective is strictly convex on U (in the problem's sense) or does not involve U.
Otherwise the test says which variables have no bound.  These are sufficient conditions: a
model said "may be unbounded" can still have a finite value.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

from .qcqp import QCQP

#: λ_min(P[U, U]) above this (relative to max|P|) counts as positive definite
PD_RTOL = 1e-9
#: an LP-implied bound is moved outwards by this, relative to 1 + |bound|: HiGHS meets its
#: primal and dual feasibility to 1e-7 (its default tolerances), so its optimum may sit that
#: far inside the true one
IMPLIED_MARGIN = 1e-6


def implied_box(q: QCQP) -> tuple[np.ndarray, np.ndarray]:
    """The box the linear constraints and bounds imply (2d LPs, HiGHS), each LP value moved
    outwards by IMPLIED_MARGIN (an LP optimum is exact only to the solver's tolerance, and
    these bounds become rows of the lifted models: they must hold at every feasible x); the
    stated box where it is tighter, and when there are no linear constraints or they have no
    solution.  Cached on q."""
    if "implied_box" in q.cache:
        return q.cache["implied_box"]
    lo, hi = q.lb.copy(), q.ub.copy()
    if q.A is not None or q.G is not None:
        bounds = [
            (None if not np.isfinite(a) else a, None if not np.isfinite(b) else b)
            for a, b in zip(q.lb, q.ub)
        ]
        for i in range(q.d):
            for sign in (1.0, -1.0):
                c = np.zeros(q.d)
                c[i] = sign
                res = linprog(
                    c, A_ub=q.G, b_ub=q.h, A_eq=q.A, b_eq=q.b, bounds=bounds, method="highs"
                )
                if res.status == 2:  # infeasible: nothing to imply
                    q.cache["implied_box"] = (q.lb.copy(), q.ub.copy())
                    return q.cache["implied_box"]
                if res.status == 0:
                    value = sign * res.fun
                    pad = IMPLIED_MARGIN * (1.0 + abs(value))
                    if sign > 0:
                        lo[i] = max(lo[i], value - pad)
                    else:
                        hi[i] = min(hi[i], value + pad)
    q.cache["implied_box"] = (lo, hi)
    return lo, hi


def square_bound(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """max(lo², hi²): the bound on x_i² over [lo, hi] (inf where a side is infinite)."""
    with np.errstate(invalid="ignore"):
        out = np.maximum(lo**2, hi**2)
    out[~(np.isfinite(lo) & np.isfinite(hi))] = np.inf
    return out


def shor_diagonal(q: QCQP) -> np.ndarray:
    """Bounds on X_ii that Shor's lifting holds (inf where none)."""
    out = square_bound(q.lb, q.ub)
    out[q.spin] = 1.0
    return out


def rlt_diagonal(q: QCQP) -> np.ndarray:
    """Bounds on X_ii that the RLT products hold: those of the implied box."""
    return square_bound(*implied_box(q))


def dnn_diagonal(q: QCQP) -> np.ndarray:
    """Shor's bounds, and β²/a_i² on the support of an equality aᵀx = β with a ≥ 0."""
    out = shor_diagonal(q)
    if q.A is not None and q.nonneg:
        for a, beta in zip(q.A, q.b):
            for s in (1.0, -1.0):
                if np.all(s * a >= 0) and s * beta >= 0:
                    sup = np.flatnonzero(s * a > 0)
                    out[sup] = np.minimum(out[sup], beta**2 / a[sup] ** 2)
    return out


def _definite(P: np.ndarray, U: np.ndarray) -> bool:
    if not U.size:
        return True
    sub = P[np.ix_(U, U)]
    scale = max(float(np.abs(P).max(initial=0.0)), 1e-300)
    return bool(np.linalg.eigvalsh(sub)[0] > PD_RTOL * scale)


def _quadratic_cover(q: QCQP, U: np.ndarray) -> bool:
    """Some quadratic constraint bounds the uncovered coordinates: P[U, U] ≻ 0 (or ≺ 0 for
    an equality)."""
    return any(_definite(c.P, U) for c in q.inequalities) or any(
        _definite(c.P, U) or _definite(-c.P, U) for c in q.equalities
    )


def _names(U: np.ndarray) -> str:
    shown = ", ".join(f"x[{i}]" for i in U[:4])
    return shown + (f" and {U.size - 4} more" if U.size > 4 else "")


def unbounded_reason(
    q: QCQP, diagonal: np.ndarray, label: str, advice: str, psd: bool = True
) -> str | None:
    """None when a model with these X_ii bounds is bounded (the tests above), else
    "<label>: no bound on x[i], …; <advice>".  Without Y ⪰ 0 (``psd=False``, an LP) only
    the X_ii bounds and an objective free of the uncovered variables count."""
    U = np.flatnonzero(~np.isfinite(diagonal))
    if not U.size or (psd and _quadratic_cover(q, U)):
        return None
    P0, q0 = q.objective.P, q.objective.q
    if psd and _definite(q.sense * P0, U):
        return None  # strictly convex on U (in the problem's sense): the value is bounded
    if not np.any(P0[U]) and not np.any(q0[U]):
        return None  # the objective does not involve U
    return f"{label}: no bound on {_names(U)}; {advice}"


def feasible_set_bounded(q: QCQP) -> bool:
    """The QCQP's own feasible set is known to be bounded (implied box, declarations, or a
    quadratic constraint definite on the rest)."""
    lo, hi = implied_box(q)
    diag = np.minimum(square_bound(lo, hi), shor_diagonal(q))
    U = np.flatnonzero(~np.isfinite(diag))
    return not U.size or _quadratic_cover(q, U)
