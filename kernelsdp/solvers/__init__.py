"""Solver registry: one ordered table keyed by formulation family.

Order is preference: for each family, the generic conic solvers CVXPY has (Clarabel
first), then the fast solvers registered for it.  ``solvers_for`` lists what applies to
one validated problem; ``get_solver`` finds one by name or raises with the choices.
"""

from __future__ import annotations

from ..errors import UnknownNameError, UnsupportedProblemError
from ..formulations.base import Formulation
from ..formulations.ncut_mkl import NCutMKL
from ..formulations.npkl import NPKL
from ..formulations.spectral_metric import SpectralMetric
from ..formulations.stqp import StQP
from ..formulations.tla import KA, LMTL, MWCTLA, NCTLA
from .admm import ADMM
from .base import Solver
from .conic import ConicSolver, generic_solvers
from .proposition1 import ClosedForm
from .saddle_point import SaddlePoint
from .spectral import SpectralClosedForm
from .stqp import ExactStQP, LocalStQP
from .tla import TopEigenpair

#: fast solvers per formulation family, in preference order
FAST_SOLVERS: dict[type[Formulation], list[Solver]] = {
    NPKL: [ClosedForm(), SaddlePoint(), ADMM()],
    StQP: [ExactStQP(), LocalStQP()],
    NCutMKL: [ExactStQP(), LocalStQP()],
    SpectralMetric: [SpectralClosedForm()],
    MWCTLA: [TopEigenpair()],
    KA: [], NCTLA: [], LMTL: [],
}


def registry() -> dict[type[Formulation], list[Solver]]:
    """The ordered table: formulation class → [generic..., fast...]."""
    generic = generic_solvers()
    return {cls: [*generic, *fast] for cls, fast in FAST_SOLVERS.items()}


def solvers_for(cls: type[Formulation]) -> list[Solver]:
    return registry().get(cls, generic_solvers())


def get_solver(cls: type[Formulation], name: str) -> Solver:
    table = solvers_for(cls)
    for s in table:
        if s.name == name:
            return s
    raise UnknownNameError(f"unknown solver {name!r} for {cls.name}; choose one of "
                           f"{', '.join(s.name for s in table)}.")


def solve(formulation: Formulation, solver: str = "clarabel", **options):
    """Solve a validated formulation with a registered solver, by name."""
    s = get_solver(type(formulation), solver)
    reason = s.supports(formulation)
    if reason is not None:
        raise UnsupportedProblemError(f"solver {solver!r} cannot solve this problem: {reason}.")
    return s.solve(formulation, **options)


__all__ = ["ADMM", "ClosedForm", "ConicSolver", "ExactStQP", "LocalStQP", "SaddlePoint", "Solver", "generic_solvers",
           "get_solver", "registry", "solve", "solvers_for"]
