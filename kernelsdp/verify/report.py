"""Cross-check solvers on one problem and return a report (printing is the CLI's).

For each solver: the certificate of its answer — :meth:`Formulation.certificate`, the
family's own where it has one, the generic conic certificate otherwise — judged at the
solver's named tolerance, never on its status.  Between solvers: their certified intervals
must overlap.  Two answers can each look accurate and still disagree; two valid intervals
cannot be disjoint, so a gap between them, relative to 1 + |bounds| and beyond the looser
of the two objective tolerances, fails the comparison.  The objectives' relative difference
is reported beside it.

``verify`` takes a formulation or a plain ``cvxpy.Problem`` (wrapped as
:class:`~kernelsdp.formulations.cvxpy_problem.CvxpyProblem`): a model the package has never
seen is certified with no code of its own.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from .. import tolerances as tol
from ..certificate import OPTIMALITY, Certificate, conic_certificate, no_point
from ..errors import UnknownNameError
from ..formulations.base import Formulation
from ..formulations.cvxpy_problem import as_formulation
from ..result import PointStatus, Result, Termination
from ..solvers import get_solver, prepare

DEFAULT_TOLERANCES = (tol.OBJECTIVE_RTOL_ITERATIVE, tol.KKT_TOL_INTERIOR_POINT)

def tolerances_for(solver, f: Formulation | None = None) -> tuple[float, float]:
    """(interval overlap, certificate) tolerances: the solver's declared ones, or the
    formulation's own bar for that kind of solver (``Formulation.TOLERANCES``); a name that
    is not registered (a relabelled result) gets the defaults."""
    if isinstance(solver, str):
        try:
            solver = get_solver(type(f) if f is not None else Formulation, solver)
        except UnknownNameError:
            return DEFAULT_TOLERANCES
    family = getattr(f, "TOLERANCES", {}) if f is not None else {}
    return family.get(solver.kind, (solver.objective_tol, solver.certificate_tol))


@dataclass
class SolverCheck:
    """One solver's answer and its certificate, as a report row."""

    solver: str
    status: str
    point: str
    objective: float | None
    solve_time_s: float
    iterations: int | None
    residuals: dict[str, float | None]
    kkt_tol: float
    failed: list[str]
    passed: bool
    message: str = ""
    kind: str = ""
    lower: float | None = None
    upper: float | None = None
    rigorous: bool = False
    verdict: str = ""
    note: str = ""
    dimacs: dict[str, float] | None = None
    certify_time_s: float = 0.0
    per_constraint: dict[str, float] = field(default_factory=dict)
    #: what the solver itself said (CVXPY's status for a generic solver), before any check
    claimed: str = ""

    @classmethod
    def of(cls, result: Result, cert: Certificate, certify_time_s: float = 0.0) -> "SolverCheck":
        return cls(result.solver, result.termination.value, result.point.value,
                   result.objective, result.solve_time_s, result.iterations, cert.measures,
                   cert.tol, cert.failed, cert.passed, result.message, cert.kind, cert.lower,
                   cert.upper, cert.rigorous, cert.verdict, cert.note, cert.dimacs,
                   certify_time_s, cert.per_constraint,
                   str(result.info.get("cvxpy_status", result.termination.value)))


@dataclass
class Comparison:
    a: str
    b: str
    relative_difference: float
    tol: float
    passed: bool
    relation: str = "intervals overlap"
    separation: float = 0.0


@dataclass
class VerifyReport:
    problem: dict[str, Any]
    checks: list[SolverCheck] = field(default_factory=list)
    comparisons: list[Comparison] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(c.passed for c in self.checks) and all(
            c.passed for c in self.comparisons)

    def to_dict(self) -> dict[str, Any]:
        return {"problem": self.problem, "passed": self.passed,
                "solvers": [asdict(c) for c in self.checks],
                "comparisons": [asdict(c) for c in self.comparisons]}


def certify(f, result: Result, tol_: float | None = None) -> Certificate:
    """The certificate of one result, at its solver's named tolerance unless ``tol_``."""
    f = as_formulation(f)
    t = tolerances_for(result.solver, f)[1] if tol_ is None else tol_
    if result.canonical is not None and result.termination in (Termination.INFEASIBLE,
                                                                Termination.UNBOUNDED):
        return conic_certificate(result.canonical, t)  # a Farkas certificate or a ray
    if result.point is PointStatus.NO_POINT:
        return no_point(t, result.message or f"{result.solver} returned no point "
                        f"({result.termination.value})")
    cert = f.certificate(result, t)
    if cert.kind == OPTIMALITY and result.objective is not None:
        # the objective the result reports must be the certified point's: inside the interval
        lo = cert.lower if cert.lower is not None else -math.inf
        up = cert.upper if cert.upper is not None else math.inf
        v = float(result.objective)
        cert.measures["reported_objective"] = max(0.0, lo - v, v - up) / (1.0 + abs(v))
    return cert


def _side(v: float | None, default: float) -> float:
    return default if v is None or (isinstance(v, float) and math.isnan(v)) else v


def compare(a: SolverCheck, b: SolverCheck, t: float) -> Comparison:
    """Do the two certified intervals overlap (within t, relative to 1 + |bounds|)?"""
    lo = max(_side(a.lower, -math.inf), _side(b.lower, -math.inf))
    up = min(_side(a.upper, math.inf), _side(b.upper, math.inf))
    scale = 1.0 + max((abs(v) for v in (a.lower, a.upper, b.lower, b.upper)
                       if v is not None and math.isfinite(v)), default=0.0)
    sep = max(0.0, lo - up) / scale if math.isfinite(lo - up) else 0.0
    diff = (abs(a.objective - b.objective) / max(1.0, abs(a.objective), abs(b.objective))
            if a.objective is not None and b.objective is not None else math.nan)
    return Comparison(a.solver, b.solver, diff, t, sep <= t, separation=sep)


def verify(problem, solvers: list[str], tol_: float | None = None, **options) -> VerifyReport:
    """Solve ``problem`` (a formulation or a ``cvxpy.Problem``) with each named solver,
    certify every answer and compare their intervals; ``options[name]`` are the options of
    solver ``name``; ``tol_`` holds every solver to one tolerance instead of its own."""
    f = as_formulation(problem)
    report = VerifyReport(problem=f.describe())
    chosen = [prepare(f, name) for name in solvers]
    validated = [s.options(**options.get(s.name, {})) for s in chosen]  # all, before any solve
    from ..solvers.memory import refuse_if_too_large
    for s, opts in zip(chosen, validated):  # every size refusal, too, before the first solve
        refuse_if_too_large(s, f, opts)
    for s, opts in zip(chosen, validated):
        r = s.run(f, opts)
        t0 = time.perf_counter()
        cert = certify(f, r, tol_)
        report.checks.append(SolverCheck.of(r, cert, time.perf_counter() - t0))
    checks = report.checks
    for x in range(len(checks)):
        for y in range(x + 1, len(checks)):
            a, b = checks[x], checks[y]
            if a.passed and b.passed and a.kind != b.kind:  # e.g. optimal vs infeasible
                report.comparisons.append(Comparison(a.solver, b.solver, math.nan, 0.0, False,
                                                     f"certified {a.kind} vs {b.kind}"))
            elif a.kind == b.kind == "optimality":
                t = tol_ if tol_ is not None else max(tolerances_for(a.solver, f)[0],
                                                      tolerances_for(b.solver, f)[0])
                report.comparisons.append(compare(a, b, t))
    return report
