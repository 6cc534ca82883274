"""Cross-check solvers on one problem and return a report (``print(report)`` shows it as
the CLI does).

For each solver: the certificate of its answer — :meth:`Formulation.certificate`, the
family's own where it has one, the generic conic certificate otherwise — judged at **one
named tolerance**, ``tolerances.CERTIFY_TOL`` unless the caller names another, the same in
Python and the CLI.  A solver's own accuracy (its declared tolerances) never loosens the
verdict: it is reported beside it.  When the certificate fails, the row's status says so
("almost optimal" where the solver said optimal) and its message names the failing terms.

Between solvers: two *proven* intervals must intersect — proofs that are disjoint are
"inconsistent", one of the two computations is wrong, whatever the tolerance; intervals
with an estimated end must overlap within the tolerance, relative to their scale.  The
objectives' relative difference is reported beside it.

``verify`` takes a formulation or a plain ``cvxpy.Problem`` (wrapped as
:class:`~kernelsdp.formulations.cvxpy_problem.CvxpyProblem`): a model the package has never
seen is certified with no code of its own.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from .. import tolerances as _tol
from .. import tolerances as tol
from ..certificate import OPTIMALITY, PROOF, Certificate, conic_certificate, no_point
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
    lower_label: str = ""
    upper_label: str = ""
    lower_why: str = ""
    upper_why: str = ""
    width: float | None = None
    #: the solver's own declared accuracy (objective, certificate): reported, never judged
    solver_tol: tuple[float, float] | None = None

    @classmethod
    def of(
        cls,
        result: Result,
        cert: Certificate,
        certify_time_s: float = 0.0,
        solver_tol: tuple[float, float] | None = None,
    ) -> SolverCheck:
        status, message = result.termination.value, result.message
        if not cert.passed and status == "optimal":  # the verdict's tolerance, not the solver's
            status = "almost_optimal" if cert.kind == OPTIMALITY else "uncertified"
            message = (
                f"{result.solver} reported optimal, but its certificate does not pass "
                f"at tol {cert.tol:g}: {', '.join(cert.failed)}"
            )
        return cls(
            result.solver,
            status,
            result.point.value,
            result.objective,
            result.solve_time_s,
            result.iterations,
            cert.measures,
            cert.tol,
            cert.failed,
            cert.passed,
            message,
            cert.kind,
            cert.lower,
            cert.upper,
            cert.rigorous,
            cert.verdict,
            cert.note,
            cert.dimacs,
            certify_time_s,
            cert.per_constraint,
            str(result.info.get("cvxpy_status", result.termination.value)),
            cert.lower_label,
            cert.upper_label,
            cert.lower_why,
            cert.upper_why,
            cert.width,
            solver_tol,
        )


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
        return (
            bool(self.checks)
            and all(c.passed for c in self.checks)
            and all(c.passed for c in self.comparisons)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "problem": self.problem,
            "passed": self.passed,
            "solvers": [asdict(c) for c in self.checks],
            "comparisons": [asdict(c) for c in self.comparisons],
        }

    def __str__(self) -> str:
        from .printing import report_text

        return report_text(self)


def certify(f, result: Result | None = None, tol_: float | None = None) -> Certificate:
    """The certificate of one result, judged at ``tol_`` (default: ``CERTIFY_TOL``, the one
    named tolerance; the solver's own is never used to judge).

    ``certify(problem)`` — a ``cvxpy.Problem`` the user has already solved with any solver,
    no result: its variables' values and constraints' duals are certified as they are
    (:mod:`kernelsdp.certificate.solved_problem`), never re-solved; without duals the answer
    is "feasibility only", its upper end still proven.  Solved as infeasible, the Farkas ray
    CVXPY keeps in the duals is checked; solved as unbounded (CVXPY keeps no ray) or left
    without values, the answer is "no point", its note naming what can certify it instead.
    Never solved, or integer variables: a typed error."""
    t = tol.CERTIFY_TOL if tol_ is None else tol_
    if result is None:
        from ..certificate.solved_problem import solved_canonical

        sol = solved_canonical(f)
        cert = conic_certificate(sol, t, resolve=False)
        if sol.stats.get("advice"):  # no point to certify: what the user can do instead
            cert = replace(cert, note="; ".join(n for n in (cert.note, sol.stats["advice"]) if n))
        return cert
    f = as_formulation(f)
    if (
        result.canonical is not None
        and result.termination
        in (Termination.INFEASIBLE, Termination.UNBOUNDED, Termination.UNCERTIFIED)
        and result.point is PointStatus.NO_POINT
    ):
        return conic_certificate(result.canonical, t)  # a Farkas certificate or a ray
    if result.point is PointStatus.NO_POINT:
        return no_point(
            t, result.message or f"{result.solver} returned no point ({result.termination.value})"
        )
    cert = f.certificate(result, t)
    if cert.kind == OPTIMALITY and result.objective is not None:
        # the objective the result reports must be the certified point's: inside the interval
        lo = cert.lower if cert.lower is not None else -math.inf
        up = cert.upper if cert.upper is not None else math.inf
        v = float(result.objective)
        size = max(abs(v), cert.scale, *(abs(b) for b in (lo, up) if math.isfinite(b)), 1e-300)
        cert.measures["reported_objective"] = max(0.0, lo - v, v - up) / size
    return cert


def _side(v: float | None, default: float) -> float:
    return default if v is None or (isinstance(v, float) and math.isnan(v)) else v


def compare(a: SolverCheck, b: SolverCheck, t: float) -> Comparison:
    """Do the two intervals meet?  Two proofs must intersect (else "inconsistent", at any
    tolerance); otherwise they must overlap within t, relative to their scale."""
    lo = max(_side(a.lower, -math.inf), _side(b.lower, -math.inf))
    up = min(_side(a.upper, math.inf), _side(b.upper, math.inf))
    scale = max(
        (
            abs(v)
            for v in (a.lower, a.upper, b.lower, b.upper)
            if v is not None and math.isfinite(v)
        ),
        default=0.0,
    )
    gap = lo - up
    sep = (
        (max(0.0, gap) / scale if scale > 0 else (0.0 if gap <= 0 else math.inf))
        if math.isfinite(gap)
        else 0.0
    )
    diff = (
        abs(a.objective - b.objective) / max(1.0, abs(a.objective), abs(b.objective))
        if a.objective is not None and b.objective is not None
        else math.nan
    )
    proven = _proven_side(a, b, lo) and _proven_side(a, b, up, upper=True)
    if proven and gap > 0:
        return Comparison(
            a.solver,
            b.solver,
            diff,
            0.0,
            False,
            "inconsistent: two proven intervals are disjoint",
            sep,
        )
    return Comparison(a.solver, b.solver, diff, t, sep <= t, separation=sep)


def _proven_side(a: SolverCheck, b: SolverCheck, value: float, upper: bool = False) -> bool:
    """Is the binding end ``value`` (the larger lower end, or the smaller upper end) a proof?"""
    for c in (a, b):
        end, label = (c.upper, c.upper_label) if upper else (c.lower, c.lower_label)
        if end is not None and end == value:
            return label == PROOF
    return False


def verify(
    problem, solvers: list[str], tol_: float | None = None, *, tol: float | None = None, **options
) -> VerifyReport:
    """Solve ``problem`` (a formulation or a ``cvxpy.Problem``) with each named solver,
    certify every answer at one tolerance (``tol``, default ``CERTIFY_TOL``; ``tol_`` is
    its older name) and compare their intervals; ``options[name]`` are the options of
    solver ``name``."""
    t = tol if tol is not None else (tol_ if tol_ is not None else _tol.CERTIFY_TOL)
    f = as_formulation(problem)
    report = VerifyReport(problem=f.describe())
    chosen = [prepare(f, name) for name in solvers]
    # all, before any solve; a solver's options under the name it was asked by (an alias too)
    validated = [
        s.options(**options.get(name, options.get(s.name, {}))) for name, s in zip(solvers, chosen)
    ]
    from ..solvers.base import refuse_if_too_large

    for s, opts in zip(chosen, validated):  # every size refusal, too, before the first solve
        refuse_if_too_large(s, f, opts)
    for s, opts in zip(chosen, validated):
        r = s.run(f, opts)
        t0 = time.perf_counter()
        cert = certify(f, r, t)
        report.checks.append(
            SolverCheck.of(r, cert, time.perf_counter() - t0, tolerances_for(s, f))
        )
    checks = report.checks
    for x in range(len(checks)):
        for y in range(x + 1, len(checks)):
            a, b = checks[x], checks[y]
            if a.passed and b.passed and a.kind != b.kind:  # e.g. optimal vs infeasible
                report.comparisons.append(
                    Comparison(
                        a.solver, b.solver, math.nan, 0.0, False, f"certified {a.kind} vs {b.kind}"
                    )
                )
            elif a.kind == b.kind == "optimality":
                report.comparisons.append(compare(a, b, t))
    return report
