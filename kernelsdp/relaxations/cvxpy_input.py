"""A QCQP written in CVXPY: ``x @ P @ x``, ``cp.quad_form(x, P)``, ``x[0] * x[1]``, sums of
squares, in one vector variable x.

CVXPY builds these expressions but refuses them in a problem (a nonconvex quadratic is not
DCP).  Their coefficients are read from CVXPY's own derivatives (``Expression.grad``, which
every quadratic atom implements): for f(x) = xᵀPx + qᵀx + r, ∇f(0) = q and
∇f(e_i) − ∇f(0) = 2Pe_i, so d + 1 gradients give P and q, and f(0) gives r.  The result is
then checked against f at random points: an expression that is not a quadratic polynomial
(``cp.abs``, a Huber function) is refused with a clear error, never misread.

Constraints are CVXPY comparisons (``<=``, ``>=``, ``==``), scalar or vector, in the same
variable; a linear one with a single variable becomes a bound (``x >= 0`` → lb = 0), any
other linear one a row of ``A x = b`` or ``G x <= h``, a quadratic one a quadratic
constraint.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from ..errors import InvalidDataError

#: agreement (relative to the expression's magnitude) of the extracted quadratic with the
#: expression at random points; rounding in CVXPY's evaluation is ~1e-15
EXTRACTION_RTOL = 1e-8


def bound_vector(v, d: int, default: float, what: str) -> np.ndarray:
    """A bound given as a number or d numbers, as d numbers (missing: ``default``)."""
    if v is None:
        return np.full(d, default)
    out = (
        np.broadcast_to(np.asarray(v, dtype=float), (d,)).copy()
        if np.ndim(v) == 0
        else np.asarray(v, dtype=float).ravel()
    )
    if out.shape != (d,) or np.any(np.isnan(out)):
        raise InvalidDataError(f"{what} must be a number or {d} numbers (±inf allowed).")
    return out


def _the_variable(exprs) -> cp.Variable:
    vs = {v.id: v for e in exprs for v in e.variables()}
    if len(vs) != 1:
        raise InvalidDataError(
            f"the objective and constraints must be in one CVXPY vector variable; found {len(vs)}."
        )
    x = next(iter(vs.values()))
    if x.ndim > 2 or (x.ndim == 2 and min(x.shape) != 1):
        raise InvalidDataError(f"the CVXPY variable must be a vector; got shape {x.shape}.")
    return x


def _grad(expr, x, point: np.ndarray, k: int) -> np.ndarray:
    """∇ of the k scalar entries of expr at point, as a (d, k) array."""
    x.value = point.reshape(x.shape)
    g = expr.grad.get(x) if expr.grad else None
    if g is None:
        return np.zeros((point.size, k))
    g = g.toarray() if hasattr(g, "toarray") else np.asarray(g, dtype=float)
    return np.asarray(g, dtype=float).reshape(point.size, k)


def quadratics_of(expr, x) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(P, q, r) of each scalar entry of expr: shapes (k, d, d), (k, d), (k,)."""
    if not (expr.is_quadratic() or expr.is_affine()):
        raise InvalidDataError(
            f"{expr} is not a quadratic in {x.name()} (CVXPY reads its "
            "curvature as neither affine nor quadratic)."
        )
    d, k = int(x.size), int(expr.size)
    saved = x.value
    try:
        zero = np.zeros(d)
        x.value = zero.reshape(x.shape)
        r = np.asarray(expr.value, dtype=float).ravel()
        q = _grad(expr, x, zero, k).T
        P = np.empty((k, d, d))
        for i in range(d):
            e = np.zeros(d)
            e[i] = 1.0
            P[:, :, i] = (_grad(expr, x, e, k).T - q) / 2
        P = (P + P.transpose(0, 2, 1)) / 2
        _check(expr, x, P, q, r)
    finally:
        x.value = saved
    return P, q, r


def _check(expr, x, P, q, r) -> None:
    rng = np.random.default_rng(0)
    for _ in range(3):
        z = rng.standard_normal(x.size)
        x.value = z.reshape(x.shape)
        got = np.asarray(expr.value, dtype=float).ravel()
        want = np.einsum("i,kij,j->k", z, P, z) + q @ z + r
        scale = (
            1.0
            + np.abs(np.einsum("i,kij,j->k", np.abs(z), np.abs(P), np.abs(z)))
            + np.abs(q) @ np.abs(z)
            + np.abs(r)
        )
        if not np.all(np.abs(got - want) <= EXTRACTION_RTOL * scale):
            raise InvalidDataError(
                f"{expr} is not a quadratic polynomial in {x.name()}: its "
                "value differs from its second-order expansion."
            )


def _constraint_parts(con, x):
    """(sense, P, q, r) with the constraint read as g(x) ≤ 0 (sense 'ineq') or = 0 ('eq')."""
    if isinstance(con, cp.constraints.Inequality):  # lhs <= rhs: expr = lhs − rhs ≤ 0
        sense = "ineq"
    elif isinstance(con, cp.constraints.Equality):
        sense = "eq"
    else:
        raise InvalidDataError(
            f"constraint {con} is not a comparison (<=, >=, ==) of "
            "quadratics; the QCQP takes only those."
        )
    return (sense, *quadratics_of(con.expr, x))


def _sorted_constraints(constraints, x, d):
    """Split into bounds, linear rows and quadratic triples."""
    lb, ub = np.full(d, -np.inf), np.full(d, np.inf)
    rows = {"eq": ([], []), "ineq": ([], [])}
    quads = {"eq": [], "ineq": []}
    for con in constraints:
        sense, P, q, r = _constraint_parts(con, x)
        for Pk, qk, rk in zip(P, q, r):
            if np.any(Pk):
                quads[sense].append((Pk, qk, rk))
                continue
            nz = np.flatnonzero(qk)
            if nz.size == 0:
                if (sense == "eq" and rk != 0) or (sense == "ineq" and rk > 0):
                    raise InvalidDataError(f"constraint {con} has no variable and does not hold.")
                continue
            if sense == "ineq" and nz.size == 1:  # a·x_i + r ≤ 0: a bound
                i, a = int(nz[0]), float(qk[nz[0]])
                if a > 0:
                    ub[i] = min(ub[i], -rk / a)
                else:
                    lb[i] = max(lb[i], -rk / a)
                continue
            rows[sense][0].append(qk)
            rows[sense][1].append(-rk)
    return lb, ub, rows, quads


def build_arguments(objective, constraints=(), *, maximize: bool = False, **keywords) -> dict:
    """The arguments of :meth:`~.qcqp.QCQP.build` for a CVXPY objective (a scalar quadratic
    expression in one vector variable) and CVXPY constraints; ``keywords`` are those of
    ``QCQP.build`` (bounds, declarations, matrices), merged with what the constraints say.
    (Data only: this module does not import the QCQP it describes.)"""
    if isinstance(objective, (cp.Minimize, cp.Maximize)):
        maximize = maximize or isinstance(objective, cp.Maximize)
        objective = objective.args[0]
    if not isinstance(objective, cp.Expression) or objective.size != 1:
        raise InvalidDataError("the objective must be a scalar CVXPY expression.")
    constraints = list(constraints)
    x = _the_variable([objective, *(c for con in constraints for c in con.args)])
    d = int(x.size)
    P, q, r = quadratics_of(objective, x)
    lb, ub, rows, quads = _sorted_constraints(constraints, x, d)
    kw = dict(keywords)
    lb = np.maximum(lb, bound_vector(kw.pop("lb", None), d, -np.inf, "lb"))
    ub = np.minimum(ub, bound_vector(kw.pop("ub", None), d, np.inf, "ub"))
    for sense, M, v in (("eq", "A", "b"), ("ineq", "G", "h")):
        given = kw.pop(M, None), kw.pop(v, None)
        mats, rhs = rows[sense]
        if given[0] is not None:
            mats = [*np.atleast_2d(np.asarray(given[0], dtype=float)), *mats]
            rhs = [*np.asarray(given[1], dtype=float).ravel(), *rhs]
        kw[M], kw[v] = (np.array(mats), np.array(rhs)) if mats else (None, None)
    kw["inequalities"] = [*kw.get("inequalities", ()), *quads["ineq"]]
    kw["equalities"] = [*kw.get("equalities", ()), *quads["eq"]]
    return dict(P=P[0], q=q[0], r=float(r[0]), lb=lb, ub=ub, maximize=maximize, **kw)
