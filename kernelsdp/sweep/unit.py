"""One unit of a sweep: a problem, a solver and its options, solved and certified.

A unit is a flat dict of JSON values: ``formulation`` and ``solver`` (registry names), then
any of the formulation's declared inputs under their names (``dataset``, ``n_points``,
``seed``, ``loss``, ``capacity``, ``C``, ``B`` … for NPKL: ``Formulation.inputs()``, the same
declaration ``kernelsdp solve npkl --help`` shows) and any option of that solver (``rank``,
``max_iter``, ``tol`` …).  The unit is checked by the formulation's own ``check_inputs`` and
the solver's option declarations — without reading any data, so a whole grid is checked
before its first solve — and built by ``from_inputs``: a sweep accepts exactly what
``kernelsdp solve`` accepts.  The record holds the certificate of the answer (verdict,
interval, measures), computed from the returned point and duals — never the solver's status
alone.
"""

from __future__ import annotations

import math
import time

from ..errors import (
    InvalidParameterError,
    SolverUnavailableError,
    TooLargeError,
    UnsupportedProblemError,
)
from ..formulations import get_formulation
from ..runs.runner import RETRY
from ..solvers import get_solver
from ..solvers.base import option_inputs

#: the keys every unit has; the others are problem inputs or solver options
META = ("formulation", "solver")
#: a solver option that shares its name with a problem input (``seed``) is ``solver_seed``
#: in a unit, as ``--solver-seed`` on the command line
SOLVER_PREFIX = "solver_"


def problem_inputs(formulation: str) -> dict:
    """The formulation's declared inputs: name → :class:`~kernelsdp.declarations.Input`."""
    return get_formulation(formulation).cls.inputs()


def solver_option_names(formulation: str, solver: str) -> tuple[str, ...]:
    s = get_solver(get_formulation(formulation).cls, solver)
    return tuple(option_inputs(s.Options))


def split(unit: dict) -> tuple[dict, dict]:
    """(problem inputs, solver options) of a unit; an unknown key is an error."""
    for key in META:
        if key not in unit:
            raise InvalidParameterError(f"a sweep unit needs {key!r}; got {sorted(unit)}.")
    inputs_ = problem_inputs(unit["formulation"])
    options = solver_option_names(unit["formulation"], unit["solver"])
    inputs, opts = {}, {}
    for key, value in unit.items():
        if key in META:
            continue
        bare = key[len(SOLVER_PREFIX) :] if key.startswith(SOLVER_PREFIX) else None
        if key in inputs_:
            inputs[key] = value
        elif key in options:
            opts[key] = value
        elif bare in options and bare in inputs_:  # as the CLI's --solver-seed
            opts[bare] = value
        else:
            raise InvalidParameterError(
                f"the sweep key {key!r} is neither an input of {unit['formulation']} nor an "
                f"option of {unit['solver']} (inputs: {', '.join(inputs_)}; options: "
                f"{', '.join(options) or 'none'})."
            )
    return inputs, opts


def check_unit(unit: dict):
    """(checked problem inputs, solver, validated options) of a unit: names, types, ranges,
    the one problem source and the solver's options, without reading any data."""
    entry = get_formulation(unit["formulation"])
    inputs, opts = split(unit)
    values = entry.cls.check_inputs(inputs, entry.fixed, unit["formulation"])
    s = get_solver(entry.cls, unit["solver"])
    return values, s, s.options(**opts)


def build(unit: dict):
    """(formulation instance, solver, validated options) of a unit."""
    values, s, opts = check_unit(unit)
    return get_formulation(unit["formulation"]).cls.from_inputs(values), s, opts


def _number(x):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x


def run_unit(unit: dict) -> dict:
    """Solve one unit and certify the answer; the record the results store keeps.

    A problem the solver does not accept is recorded as ``status: refused`` with the reason
    (the same on every re-run); a size it refuses under this machine's memory limit
    (:class:`TooLargeError`) is reported the same way but not stored, so a re-run with more
    memory tries again; an unavailable solver raises, since another machine may have it."""
    from ..verify import certify

    tol = unit.get("tol")
    f, s, opts = build({k: v for k, v in unit.items() if k != "tol"})
    ok, reason = s.availability()
    if not ok:
        raise SolverUnavailableError(f"solver {s.name!r} is unavailable: {reason}")
    problem = {k: v for k, v in f.describe().items() if isinstance(v, (int, float, str, bool))}
    refusal = s.supports(f)
    t0 = time.perf_counter()
    try:
        if refusal is not None:
            raise UnsupportedProblemError(refusal)
        r = s.run(f, opts)
    except (TooLargeError, UnsupportedProblemError) as exc:
        # a size refused under this machine's memory limit is tried again on a re-run
        return {
            "status": "refused",
            "verdict": "refused",
            "passed": False,
            "message": str(exc),
            "problem": problem,
            RETRY: isinstance(exc, TooLargeError),
        }
    wall = time.perf_counter() - t0
    t1 = time.perf_counter()
    cert = certify(f, r, tol)
    return {
        "status": r.termination.value,
        "point": r.point.value,
        "objective": _number(r.objective),
        "lower": _number(cert.lower),
        "upper": _number(cert.upper),
        "relative_gap": _number(cert.width),
        "rigorous": cert.rigorous,
        "lower_label": cert.lower_label,
        "upper_label": cert.upper_label,
        "lower_why": cert.lower_why,
        "upper_why": cert.upper_why,
        "verdict": cert.verdict,
        "passed": cert.passed,
        "failed": cert.failed,
        "measures": {k: _number(v) for k, v in cert.measures.items()},
        "solve_time_s": r.solve_time_s,
        "wall_time_s": wall,
        "certify_time_s": time.perf_counter() - t1,
        "iterations": r.iterations,
        "kernel_rank": None if r.kernel is None else r.kernel.rank,
        "message": r.message,
        "problem": problem,
    }
