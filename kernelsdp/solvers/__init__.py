"""Solver registry: one ordered table keyed by formulation family, derived from declarations.

The fast solvers are listed per family; every family also gets the generic conic solvers
CVXPY has.  The order of ``solvers_for`` is the preference order, by each solver's declared
``kind``: exact fast solvers, then iterative ones, then interior point, then first order.
:func:`default_solver` is the first of them that supports a problem and can run here;
:func:`prepare` checks ``supports`` — the one place it is checked.
"""

from __future__ import annotations

from ..errors import SolverUnavailableError, UnknownNameError, UnsupportedProblemError
from ..formulations.base import Formulation
from ..formulations.cvxpy_problem import as_formulation
from ..formulations.ncut_mkl import NCutMKL
from ..formulations.npkl import NPKL
from ..formulations.spectral_metric import SpectralMetric
from ..formulations.stqp import StQP
from ..formulations.tla import KA, LMTL, MWCTLA, NCTLA
from .admm import ADMM
from .base import KINDS, Solver
from .burer_monteiro import BurerMonteiro
from .conic import ConicSolver, generic_solvers
from .proposition1 import ClosedForm
from .saddle_point import SaddlePoint
from .spectral import SpectralClosedForm
from .stqp import ExactStQP, LocalStQP
from .tla import TopEigenpair
from .extragradient import Extragradient
from .tla_reduced import SchurReduced

#: fast solvers per formulation family
FAST_SOLVERS: dict[type[Formulation], list[Solver]] = {
    NPKL: [ClosedForm(), SaddlePoint(), ADMM(), BurerMonteiro()],
    StQP: [ExactStQP(), LocalStQP()],
    NCutMKL: [ExactStQP(), LocalStQP()],
    SpectralMetric: [SpectralClosedForm()],
    MWCTLA: [TopEigenpair()],
    KA: [], NCTLA: [SchurReduced()], LMTL: [Extragradient()],
}


def _ordered(solvers: list[Solver]) -> list[Solver]:
    return sorted(solvers, key=lambda s: KINDS.index(s.kind))  # stable within a kind


def registry() -> dict[type[Formulation], list[Solver]]:
    """The ordered table: formulation class → its solvers, most preferred first."""
    generic = generic_solvers()
    return {cls: _ordered([*fast, *generic]) for cls, fast in FAST_SOLVERS.items()}


def solvers_for(cls: type[Formulation]) -> list[Solver]:
    fast = next((v for c, v in FAST_SOLVERS.items() if c is cls), [])
    return _ordered([*fast, *generic_solvers()])


def get_solver(cls: type[Formulation], name: str) -> Solver:
    table = solvers_for(cls)
    for s in table:
        if s.name == name:
            return s
    raise UnknownNameError(f"unknown solver {name!r} for {cls.name}; choose one of "
                           f"{', '.join(s.name for s in table)}.")


def prepare(f: Formulation, name: str) -> Solver:
    """The named solver for this problem, after the one ``supports`` check."""
    s = get_solver(type(f), name)
    reason = s.supports(f)
    if reason is not None:
        raise UnsupportedProblemError(f"solver {name!r} cannot solve this {f.name} problem: "
                                      f"{reason}.")
    return s


def default_solver(f: Formulation) -> Solver:
    """The most preferred solver that supports ``f`` and can run here."""
    for s in solvers_for(type(f)):
        if s.supports(f) is None and s.availability()[0]:
            return s
    raise SolverUnavailableError(f"no installed solver supports this {f.name} problem.")


def solve(problem, solver: str | None = None, **options):
    """Solve a formulation (or a ``cvxpy.Problem``) with a registered solver, by name; by
    default the most preferred one that supports it (``Result.solver`` says which ran)."""
    f = as_formulation(problem)
    s = default_solver(f) if solver is None else prepare(f, solver)
    return s.solve(f, **options)


__all__ = ["ADMM", "BurerMonteiro", "ClosedForm", "ConicSolver", "ExactStQP", "FAST_SOLVERS", "LocalStQP",
           "SaddlePoint", "Solver",
           "default_solver", "generic_solvers", "get_solver", "prepare", "registry", "solve",
           "solvers_for"]
