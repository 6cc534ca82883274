"""Cross-check several solvers on one problem and return a report (printing is the CLI's).

For each solver: its status, objective, time and the independent KKT residuals of
:mod:`.kkt`, passed at the solver's named tolerance.  Between solvers: the relative
objective difference |f_a − f_b| / max(1, |f_a|, |f_b|), passed at the looser of the two
solvers' named objective tolerances.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ..errors import UnsupportedProblemError
from ..formulations.base import Formulation
from ..formulations.npkl import NPKL
from ..formulations.spectral_metric import SpectralMetric
from ..formulations.stqp import StQP
from ..formulations.tla import KA, NCTLA, MWCTLA
from ..result import Result
from ..solvers import get_solver
from .. import tolerances as tol
from .kkt import failures, npkl_residuals
from .qp import CHECKED as QP_CHECKED, qp_residuals
from .stqp import stqp_failures, stqp_relations, stqp_residuals
from .tla import tla_failures, tla_residuals

#: named tolerances per solver: (objective agreement, KKT residuals)
SOLVER_TOLERANCES: dict[str, tuple[float, float]] = {
    "closed-form": (tol.OBJECTIVE_RTOL_EXACT, tol.KKT_TOL),
    "saddle-point": (tol.OBJECTIVE_RTOL_ITERATIVE, tol.KKT_TOL),
    # the KKT residuals of a feasible point sum to its duality gap, which ADMM stops on
    "admm": (tol.ADMM_GAP_TOL, tol.ADMM_GAP_TOL),
    "clarabel": (tol.OBJECTIVE_RTOL_EXACT, tol.KKT_TOL_INTERIOR_POINT),
    "mosek": (tol.OBJECTIVE_RTOL_EXACT, tol.KKT_TOL_INTERIOR_POINT),
    "scs": (tol.OBJECTIVE_RTOL_FIRST_ORDER, tol.KKT_TOL_FIRST_ORDER),
    "exact": (tol.STQP_TOL, tol.STQP_TOL),
    "local": (tol.STQP_TOL, tol.STQP_TOL),
}
DEFAULT_TOLERANCES = (tol.OBJECTIVE_RTOL_ITERATIVE, tol.KKT_TOL_INTERIOR_POINT)

#: a formulation family whose bars differ from the solver defaults ("*": any other solver).
#: The spectral metric QP is small and well conditioned: its closed form and an
#: interior-point solver must agree to SPECTRAL_QP_RTOL (issue #6's bar).
FAMILY_TOLERANCES: dict[type, dict[str, tuple[float, float]]] = {
    SpectralMetric: {
        "closed-form": (tol.SPECTRAL_QP_RTOL, tol.SPECTRAL_QP_RTOL),
        "scs": (tol.OBJECTIVE_RTOL_FIRST_ORDER, tol.SPECTRAL_QP_KKT_TOL_INTERIOR_POINT),
        "*": (tol.SPECTRAL_QP_RTOL, tol.SPECTRAL_QP_KKT_TOL_INTERIOR_POINT),
    },
}


def tolerances_for(solver: str, f: Formulation | None = None) -> tuple[float, float]:
    """(objective agreement, KKT) tolerances of a solver, on a formulation family."""
    family = FAMILY_TOLERANCES.get(type(f)) if f is not None else None
    if family is not None:
        return family.get(solver, family["*"])
    return SOLVER_TOLERANCES.get(solver, DEFAULT_TOLERANCES)


@dataclass
class SolverCheck:
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


@dataclass
class Comparison:
    a: str
    b: str
    relative_difference: float
    tol: float
    passed: bool
    relation: str = "objectives agree"


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


def certify(f: Formulation, result: Result) -> SolverCheck:
    """Residuals of one result, checked at its solver's tolerance."""
    _, kkt_tol = tolerances_for(result.solver, f)
    if not result.ok:
        return SolverCheck(result.solver, result.termination.value, result.point.value, None,
                           result.solve_time_s, result.iterations, {}, kkt_tol, ["no point"],
                           False, result.message)
    if isinstance(f, NPKL):
        res = npkl_residuals(f, result.kernel, result.duals, result.info.get("raw_min_eig_K"))
        bad = failures(res, kkt_tol)
    elif isinstance(f, StQP):
        res = stqp_residuals(f, result)
        bad = stqp_failures(res, result.solver)
    elif isinstance(f, (KA, NCTLA, MWCTLA)):
        res = tla_residuals(f, result)
        bad = tla_failures(res, kkt_tol)
    elif isinstance(f, SpectralMetric):
        res = qp_residuals(f, result)
        bad = [k for k in QP_CHECKED if not res[k] <= kkt_tol]
    else:  # pragma: no cover - every registered formulation has residuals
        raise UnsupportedProblemError(f"verify has no residuals for {f.name!r}")
    return SolverCheck(result.solver, result.termination.value, result.point.value,
                       result.objective, result.solve_time_s, result.iterations, res, kkt_tol,
                       bad, not bad, result.message)


def verify(f: Formulation, solvers: list[str], **options) -> VerifyReport:
    """Solve ``f`` with each named solver and cross-check the answers."""
    report = VerifyReport(problem=f.describe())
    results = []
    for name in solvers:
        s = get_solver(type(f), name)
        reason = s.supports(f)
        if reason is not None:
            raise UnsupportedProblemError(f"solver {name!r} cannot solve this problem: {reason}.")
        r = s.solve(f, **options.get(name, {}))
        results.append(r)
        report.checks.append(certify(f, r))
    if isinstance(f, StQP):
        # the solvers need not agree (rounded and local values may exceed the optimum):
        # what must hold is the ordering bound <= exact <= value, and Theorem 2
        for relation, between, amount, ok in stqp_relations(f, results):
            a, b = between.split(", ")
            report.comparisons.append(Comparison(a, b, float(amount), tol.STQP_TOL, ok, relation))
        return report
    for x in range(len(results)):
        for y in range(x + 1, len(results)):
            a, b = results[x], results[y]
            if a.objective is None or b.objective is None:
                continue
            rel = abs(a.objective - b.objective) / max(1.0, abs(a.objective), abs(b.objective))
            t = max(tolerances_for(a.solver, f)[0], tolerances_for(b.solver, f)[0])
            report.comparisons.append(Comparison(a.solver, b.solver, rel, t, rel <= t))
    return report
