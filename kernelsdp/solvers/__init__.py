"""Solver registry: one ordered list of solver instances; everything else is derived from it.

``SOLVERS`` is the list, as CVXPY keeps its own: the fast solvers, then the generic conic
solvers CVXPY has.  Adding a solver is its file plus one line here (or, from outside the
package, :func:`register`).  What a solver solves is its own declaration (``ACCEPTS``, by
exact formulation class, or ``accepts_every_formulation``), so :func:`solvers_for` is
computed, never kept by hand: a formulation that no fast solver accepts still gets every
generic solver.  The order of ``solvers_for`` is the preference order, by each solver's
declared ``kind`` (exact, iterative, interior point, first order; stable within a kind,
i.e. the order of ``SOLVERS``).  :func:`default_solver` is the first of them that supports
a problem and can run here; ``kernelsdp solvers``, ``verify``, sweeps, the estimators and
the tests all read the same list.
"""

from __future__ import annotations

from ..errors import SolverUnavailableError, UnknownNameError, UnsupportedProblemError
from ..formulations.base import Formulation
from ..formulations.cvxpy_problem import as_formulation
from ..limits import format_size, memory_limit
from .admm import ADMM
from .base import KINDS, Solver, check_instance
from .burer_monteiro import BurerMonteiro
from .conic import ConicSolver, generic_solvers
from .external_sdp import ExternalSDPSolver, external_solvers
from .extragradient import Extragradient
from .proposition1 import ClosedForm
from .saddle_point import SaddlePoint
from .spectral import SpectralClosedForm
from .stqp import ExactStQP, LocalStQP
from .tla import TopEigenpair
from .tla_reduced import SchurReduced

#: every registered solver, in registration order (one line each)
SOLVERS: list[Solver] = [
    ClosedForm(),
    SaddlePoint(),
    ADMM(),
    BurerMonteiro(),
    ExactStQP(),
    LocalStQP(),
    SpectralClosedForm(),
    TopEigenpair(),
    SchurReduced(),
    Extragradient(),
    *generic_solvers(),
    *external_solvers(),  # csdp, sdpa (unavailable, with the apt-get hint, when not installed)
]
for _s in SOLVERS:
    check_instance(_s)


def register(solver: Solver) -> Solver:
    """Add a solver instance to the registry (after checking what only an instance can
    say); returns it.  The one line that makes a solver of your own part of ``solve``,
    ``verify``, sweeps and the CLI."""
    SOLVERS.append(check_instance(solver))
    return solver


def _ordered(solvers: list[Solver]) -> list[Solver]:
    return sorted(solvers, key=lambda s: KINDS.index(s.kind))  # stable within a kind


def solvers_for(cls: type[Formulation]) -> list[Solver]:
    """The solvers whose declaration accepts formulation class ``cls`` (exactly that
    class), most preferred first."""
    return _ordered([s for s in SOLVERS if s.accepted(cls) is not None])


def registry() -> dict[type[Formulation], list[Solver]]:
    """Every registered formulation class → its solvers, most preferred first."""
    from ..formulations import FORMULATIONS
    classes = dict.fromkeys(entry.cls for entry in FORMULATIONS.values())
    return {cls: solvers_for(cls) for cls in classes}


def get_solver(cls: type[Formulation], name: str) -> Solver:
    table = solvers_for(cls)
    for s in table:
        if s.name == name:
            return s
    raise UnknownNameError(f"unknown solver {name!r} for {cls.name}; choose one of "
                           f"{', '.join(s.name for s in table)}.")


def prepare(f: Formulation, name: str) -> Solver:
    """The named solver for this problem, after the ``supports`` check."""
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
def within_memory(f: Formulation, exclude: Solver | None = None) -> list[tuple[str, int]]:
    """(name, bytes) of the registered solvers that support ``f``, can run here and would
    solve it, with their default options, within their memory limit."""
    fits = []
    for s in solvers_for(type(f)):
        if s is exclude or s.supports(f) is not None or not s.availability()[0]:
            continue
        need = s.memory_bytes(f, s.options())
        if need is not None and need <= memory_limit(s.memory_cap):
            fits.append((s.name, need))
    return fits


def memory_alternatives(f: Formulation, solver: Solver) -> str:
    """The end of a memory refusal: the other solvers that would take ``f`` within memory."""
    fits = within_memory(f, exclude=solver)
    if not fits:
        return "no registered solver takes it within memory: use a smaller n."
    return ("within memory: " + ", ".join(f"--solver {name} (about {format_size(need)})"
                                          for name, need in fits) + ".")


    default the most preferred one that supports it (``Result.solver`` says which ran)."""
    f = as_formulation(problem)
    s = default_solver(f) if solver is None else prepare(f, solver)
    return s.solve(f, **options)


__all__ = ["ADMM", "BurerMonteiro", "ClosedForm", "ConicSolver", "ExactStQP", "Extragradient",
           "LocalStQP", "SOLVERS", "SaddlePoint", "SchurReduced", "Solver",
           "SpectralClosedForm", "TopEigenpair", "default_solver", "generic_solvers",
           "get_solver", "prepare", "register", "registry", "solve", "solvers_for",
           "within_memory"]
