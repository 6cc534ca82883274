"""The canonical point of a ``cvxpy.Problem`` the user has already solved, with any solver,
read from its variables' values and its constraints' ``dual_value`` — never re-solved
(issue #26 §3).

CVXPY canonicalises the problem for a conic solver (here Clarabel's form, whatever solver
the user ran: only the data are needed) into (P) of :mod:`.canonical`.  The user's values
are mapped forward:

- x: each canonical variable is a user variable (same id, values in column-major order) or
  the packed upper triangle of a symmetric one (``CvxAttr2Constr``: the entries the map
  ``upper_tri_to_full`` reads first).  A model whose canonical form adds variables of its
  own (``sum_squares``, ``quad_form`` of an expression, …) has no user value for them: they
  are filled from the equality rows that define them, and their rows' multipliers from
  stationarity (:mod:`.auxiliary`), a norm's epigraph at its least value; where nothing
  determines them (``max``'s epigraph in ℝ₊ rows) the model is refused with a typed error
  naming what to use instead (``verify`` or ``certify_conic``);
- y: each canonical constraint is a user constraint (same id) or, for a PSD constraint,
  its ``SvecPSD`` form, matched in order: the dual matrix Z packed as the block's rows
  (⟨y, s⟩ = ⟨Z, S⟩).  The user-level duals of a Maximize are the canonical ones of min −f
  as they are (checked on Lovász θ and an LP solved by Clarabel and SCS).  Any dual missing
  → no y: "feasibility only", whose upper end (the primal side) can still be proven.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import scipy.sparse as sp
from cvxpy.atoms.affine.upper_tri import upper_tri_to_full
from cvxpy.constraints import PSD, SOC, Zero
from cvxpy.constraints.psd import SvecPSD

from ..errors import InvalidDataError, UnsupportedProblemError
from .auxiliary import complete_dual, complete_primal
from .canonical import CanonicalForm, CanonicalSolution, constraint_violations

#: the solver whose canonical form is built (data only; nothing is solved)
FORM_SOLVER = "CLARABEL"


def _auxiliary_refusal(var) -> UnsupportedProblemError:
    return UnsupportedProblemError(
        "certify(problem) reads the values CVXPY keeps, but this model's canonical "
        f"form adds a variable of its own ({var.name()}, size {var.size}) that has no "
        "user value and that its equality rows (or a norm's cone) do not determine: use "
        "verify(problem, "
        "[solver]) to solve and certify it, or certify_conic(data, x, y) with the "
        "solver's own vectors."
    )


def _x_of(form: CanonicalForm, prog, problem: cp.Problem) -> tuple[np.ndarray, np.ndarray]:
    """(x, the columns of the canonical form's own variables, filled from its equality rows
    by :func:`.auxiliary.complete_primal`)."""
    users = {v.id: v for v in problem.variables()}
    x = np.zeros(prog.x.size)
    aux, first_aux = [], None
    for var in prog.variables:
        col = prog.var_id_to_col[var.id]
        user = users.get(var.id)
        if user is None:
            user = _symmetric_source(var, users)
        if user is None:
            aux.append(np.arange(col, col + var.size))
            first_aux = first_aux or var
            continue
        if user.value is None:
            raise _auxiliary_refusal(var)
        value = np.asarray(user.value, dtype=float)
        check_finite(value, f"the value of the variable {user.name()}")
        if user.size == var.size:
            x[col : col + var.size] = value.ravel(order="F")
        else:  # the packed upper triangle of a symmetric variable
            M = sp.csc_matrix(upper_tri_to_full(user.shape[0]))
            first = M.indices[M.indptr[:-1]]  # the first full entry each packed one fills
            x[col : col + var.size] = value.ravel(order="F")[first]
    cols = np.concatenate(aux) if aux else np.zeros(0, dtype=int)
    done = complete_primal(form, x, cols)
    if done is None:
        raise _auxiliary_refusal(first_aux)
    return done, cols


def _symmetric_source(var, users: dict):
    """The symmetric user variable whose packed triangle ``var`` is (matched by size)."""
    for u in users.values():
        n = u.shape[0] if u.ndim == 2 else 0
        symmetric = (
            u.attributes.get("symmetric") or u.attributes.get("PSD") or u.attributes.get("NSD")
        )
        if symmetric and n * (n + 1) // 2 == var.size:
            return u
    return None


def _y_of(
    form: CanonicalForm, prog, problem: cp.Problem, x=None, aux_cols=None
) -> np.ndarray | None:
    """y from the user constraints' duals; the rows of the canonical form's own equality
    constraints (which define its own variables) are filled from stationarity
    (:func:`.auxiliary.complete_dual`) when x and those variables' columns are given."""
    by_id = {c.id: c for c in problem.constraints}
    aux_rows, row = [], 0
    spare_psd = [
        c
        for c in problem.constraints
        if isinstance(c, PSD) and c.id not in {k.id for k in prog.constraints}
    ]
    blocks = iter(form.blocks)
    parts = []
    for con in prog.constraints:
        start, row = row, row + con.size
        user = by_id.get(con.id)
        if user is None and isinstance(con, SvecPSD) and spare_psd:
            user = spare_psd.pop(0)
        if user is None and isinstance(con, (Zero, SOC)) and aux_cols is not None and aux_cols.size:
            for _ in range(_block_count(con)):
                next(blocks)
            aux_rows.append(np.arange(start, row))
            parts.append(np.zeros(con.size))
            continue
        if user is None or user.dual_value is None:
            return None
        _check_finite_dual(user, problem)
        if isinstance(con, SvecPSD) or (isinstance(con, PSD) and isinstance(user, PSD)):
            Z = np.asarray(user.dual_value, dtype=float)
            blk = next(blocks)
            parts.append(blk.vector((Z + Z.T) / 2))
            continue
        nblocks = _block_count(con)
        for _ in range(nblocks):
            next(blocks)
        part = _dual_vector(user)
        if part is None or part.size != con.size:
            return None
        parts.append(part)
    y = np.concatenate(parts) if parts else np.zeros(0)
    if y.size != form.A.shape[0]:
        return None
    if aux_rows:
        return complete_dual(form, x, y, np.concatenate(aux_rows))
    return y


def check_finite(value: np.ndarray, what: str, where: str = "certify(problem)") -> None:
    """A typed refusal, naming ``what``, when ``value`` has a NaN or an infinite entry."""
    bad = ~np.isfinite(value)
    if bad.any():
        kinds = " and ".join(
            k for k, m in (("NaN", np.isnan(value)), ("inf", np.isinf(value))) if m.any()
        )
        raise InvalidDataError(
            f"{where}: {what} has {int(bad.sum())} of {value.size} entries not "
            f"finite ({kinds}): no certificate of such a point (did the solve fail?)."
        )


def _check_finite_dual(user, problem: cp.Problem) -> None:
    value = user.dual_value
    parts = value if isinstance(value, (list, tuple)) else [value]
    k = next(i for i, c in enumerate(problem.constraints) if c.id == user.id)
    for part in parts:
        if part is not None:
            what = f"the dual value of constraint #{k} ({type(user).__name__})"
            check_finite(np.asarray(part, dtype=float), what)


def _dual_vector(user) -> np.ndarray | None:
    """A user constraint's ``dual_value`` as the canonical rows of its constraint.

    One dual variable: its entries in column-major order.  Several (CVXPY keeps a list):
    the canonical rows hold one cone after another, each cone its parts' k-th entries — an
    SOC(t, X): [t_k, the k-th cone's X] (X's columns when axis=0, rows when axis=1: CVXPY
    lowers every SOC to axis 0 and keeps the constraint's id), an ExpCone or PowCone3D:
    (x_k, y_k, z_k), each part in column-major order (their ``save_dual_value`` inverted).
    None when a part has no value or the shapes do not fit."""
    from cvxpy.constraints import SOC

    value = user.dual_value
    if not isinstance(value, (list, tuple)):
        return np.asarray(value, dtype=float).ravel(order="F")
    if any(v is None for v in value):
        return None
    if isinstance(user, SOC):
        t = np.asarray(value[0], dtype=float).ravel(order="F")
        X = np.asarray(value[1], dtype=float)
        rows = (X.T if user.axis == 0 else X) if X.ndim == 2 else X.reshape(t.size, -1)
        if rows.shape != (t.size, user._cone_size() - 1):
            return None
        return np.column_stack([t, rows]).ravel()
    parts = [np.asarray(v, dtype=float).ravel(order="F") for v in value]
    if len({p.size for p in parts}) != 1:
        return None
    return np.column_stack(parts).ravel()


def _block_count(con) -> int:
    from cvxpy.constraints import SOC

    return (
        len(con.cone_sizes())
        if isinstance(con, SOC)
        else (con.size // 3 if type(con).__name__ in ("ExpCone", "PowCone3D") else 1)
    )


def refuse_mixed_integer(problem: cp.Problem, where: str) -> None:
    """A typed refusal for a problem with integer or boolean variables: the conic
    certificate bounds its continuous relaxation, whose point need not be integral — an
    upper end proven there would not bound the mixed-integer optimum."""
    names = [v.name() for v in problem.variables() if v.attributes.get("integer")]
    names += [v.name() for v in problem.variables() if v.attributes.get("boolean")]
    if names:
        raise UnsupportedProblemError(
            f"{where}: the problem has integer or boolean variables ({', '.join(names[:5])}"
            f"{', …' if len(names) > 5 else ''}): a mixed-integer problem has no conic "
            "certificate (its duals bound only the continuous relaxation)."
        )


#: what certify(problem) can do with an answer that has no point, by the solver's claim
_NO_POINT_ADVICE = {
    "infeasible": (
        "its constraints keep no dual values (the solver's Farkas ray), so certify(problem) "
        "has nothing to check: verify(problem, [solver]) solves it and checks the ray, "
        "certify_conic(data, None, y, solver=..., status='infeasible') checks the solver's own"
    ),
    "unbounded": (
        "CVXPY keeps no primal ray of an unbounded problem (its variables have no values), so "
        "certify(problem) cannot check the claim: verify(problem, [solver]) solves it and "
        "checks the ray, certify_conic(data, ray, None, solver=..., status='unbounded') checks "
        "the solver's own"
    ),
}


def _no_point_advice(status: str, missing: list[str]) -> str:
    claim = status.replace("_inaccurate", "")
    if claim in _NO_POINT_ADVICE:
        return f"solved as {status}: {_NO_POINT_ADVICE[claim]}."
    return (
        f"the solve ended with status {status!r} and left "
        f"{', '.join(missing[:5])}{', …' if len(missing) > 5 else ''} without a value: no point "
        "to certify; solve it again (another solver, more iterations) or use "
        "verify(problem, [solver])."
    )


def solved_canonical(problem: cp.Problem) -> CanonicalSolution:
    """The canonical (x, y) of an already solved problem (module docstring).  A problem
    solved as infeasible gives its constraints' duals as the Farkas ray to check (CVXPY keeps
    it there); one left without a point (unbounded: CVXPY drops the ray; a failed solve)
    gives no point, with ``stats["advice"]`` saying what can certify it instead."""
    if not isinstance(problem, cp.Problem):
        raise InvalidDataError(
            f"certify expects a solved cvxpy.Problem, got {type(problem).__name__}."
        )
    refuse_mixed_integer(problem, "certify(problem)")
    if problem.status is None:
        raise InvalidDataError(
            "certify(problem): the problem has not been solved — solve it "
            "first (problem.solve(...)), or use verify(problem, [solver])."
        )
    data, chain, _ = problem.get_problem_data(FORM_SOLVER)
    form = CanonicalForm.from_problem_data(data, chain, problem)
    prog = data[cp.settings.PARAM_PROB]
    solver = str(problem.solver_stats.solver_name if problem.solver_stats else "user")
    missing = [v.name() for v in problem.variables() if v.value is None]
    if problem.status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
        y = _y_of(form, prog, problem)
        advice = {} if y is not None else {"advice": _no_point_advice(problem.status, [])}
        return CanonicalSolution(form, problem.status, None, y, solver=solver, stats=advice)
    if missing:
        advice = {"advice": _no_point_advice(problem.status, missing)}
        return CanonicalSolution(form, problem.status, None, None, solver=solver, stats=advice)
    x, aux_cols = _x_of(form, prog, problem)
    y = _y_of(form, prog, problem, x, aux_cols)
    status = (
        problem.status
        if problem.status in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE)
        else cp.OPTIMAL_INACCURATE
    )
    return CanonicalSolution(
        form, status, x, y, solver=solver, violations=constraint_violations(problem)
    )
