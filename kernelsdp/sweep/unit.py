"""One unit of a sweep: a problem, a solver and its options, solved and certified.

A unit is a flat dict of JSON values: ``formulation`` and ``solver`` (registry names), then
any of the formulation's own command-line inputs under their option names (``dataset``,
``n_points``, ``seed``, ``loss``, ``capacity``, ``C``, ``B`` … for NPKL: see ``kernelsdp
solve npkl --help``) and any option of that solver (``rank``, ``max_iter``, ``tol`` …).  The
problem is read by the formulation's own ``add_cli_arguments``/``from_cli``, so a sweep
accepts exactly what ``kernelsdp solve`` accepts.  The record holds the certificate of the
answer (verdict, interval, measures), computed from the returned point and duals — never
the solver's status alone.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import time

from ..errors import (InvalidParameterError, SolverUnavailableError, TooLargeError,
                      UnsupportedProblemError)
from ..formulations import get_formulation
from ..runs.runner import RETRY
from ..solvers import get_solver

#: the keys every unit has; the others are problem inputs or solver options
META = ("formulation", "solver")


class _RaisingParser(argparse.ArgumentParser):
    def error(self, message):
        raise InvalidParameterError(f"a sweep unit's inputs: {message}.")


def _parser(formulation: str) -> _RaisingParser:
    p = _RaisingParser(add_help=False)
    get_formulation(formulation).cls.add_cli_arguments(p)
    return p


def problem_inputs(formulation: str) -> dict[str, argparse.Action]:
    """The formulation's inputs: option name (the argparse dest) → its action."""
    return {a.dest: a for a in _parser(formulation)._actions if a.option_strings}


def solver_option_names(formulation: str, solver: str) -> tuple[str, ...]:
    s = get_solver(get_formulation(formulation).cls, solver)
    return tuple(f.name for f in dataclasses.fields(s.Options))


def _argv(actions: dict[str, argparse.Action], inputs: dict) -> list[str]:
    argv: list[str] = []
    for key, value in inputs.items():
        a = actions[key]
        if a.nargs == 0:  # a switch: true sets it, false leaves it off
            if value is True:
                argv.append(a.option_strings[0])
            elif value is not False:
                raise InvalidParameterError(f"the sweep key {key!r} is a switch: true or false. "
                                            f"Got {value!r} instead.")
        else:
            argv += [a.option_strings[0], str(value)]
    return argv


#: a solver option that shares its name with a problem input (``seed``) is ``solver_seed``
#: in a unit, as ``--solver-seed`` on the command line
SOLVER_PREFIX = "solver_"


def split(unit: dict) -> tuple[dict, dict]:
    """(problem inputs, solver options) of a unit; an unknown key is an error."""
    for key in META:
        if key not in unit:
            raise InvalidParameterError(f"a sweep unit needs {key!r}; got {sorted(unit)}.")
    actions = problem_inputs(unit["formulation"])
    options = solver_option_names(unit["formulation"], unit["solver"])
    inputs, opts = {}, {}
    for key, value in unit.items():
        if key in META:
            continue
        bare = key[len(SOLVER_PREFIX):] if key.startswith(SOLVER_PREFIX) else None
        if key in actions:
            inputs[key] = value
        elif key in options:
            opts[key] = value
        elif bare in options and bare in actions:  # as the CLI's --solver-seed
            opts[bare] = value
        else:
            raise InvalidParameterError(
                f"the sweep key {key!r} is neither an input of {unit['formulation']} nor an "
                f"option of {unit['solver']} (inputs: {', '.join(actions)}; options: "
                f"{', '.join(options) or 'none'}).")
    return inputs, opts


def build_args(unit: dict) -> argparse.Namespace:
    """The unit's problem inputs parsed as the command line would (no data loaded)."""
    inputs, _ = split(unit)
    p = _parser(unit["formulation"])
    args = p.parse_args(_argv({a.dest: a for a in p._actions if a.option_strings}, inputs))
    args.formulation = unit["formulation"]
    return args


def build(unit: dict):
    """(formulation instance, solver, validated options) of a unit."""
    entry = get_formulation(unit["formulation"])
    _, opts = split(unit)
    f = entry.cls.from_cli(build_args(unit), entry.fixed)
    s = get_solver(entry.cls, unit["solver"])
    return f, s, s.options(**opts)


def _number(x):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x


def run_unit(unit: dict) -> dict:
    """Solve one unit and certify the answer; the record the results store keeps.

    A problem the solver does not accept is recorded as ``status: refused`` with the reason
    (the same on every re-run); a size it refuses under this machine's memory limit
    (:class:`TooLargeError`) is reported the same way but not stored, so a re-run with more
    memory tries again; an unavailable solver raises, since another machine may have it."""
    from ..verify import certify

    f, s, opts = build(unit)
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
        return {"status": "refused", "verdict": "refused", "passed": False, "message": str(exc),
                "problem": problem, RETRY: isinstance(exc, TooLargeError)}
    wall = time.perf_counter() - t0
    t1 = time.perf_counter()
    cert = certify(f, r)
    return {
        "status": r.termination.value, "point": r.point.value,
        "objective": _number(r.objective), "lower": _number(cert.lower),
        "upper": _number(cert.upper), "relative_gap": _number(cert.width),
        "rigorous": cert.rigorous, "verdict": cert.verdict, "passed": cert.passed,
        "failed": cert.failed, "measures": {k: _number(v) for k, v in cert.measures.items()},
        "solve_time_s": r.solve_time_s, "wall_time_s": wall,
        "certify_time_s": time.perf_counter() - t1, "iterations": r.iterations,
        "kernel_rank": None if r.kernel is None else r.kernel.rank, "message": r.message,
        "problem": problem,
    }
