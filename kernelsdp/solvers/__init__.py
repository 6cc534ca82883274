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
from .low_rank_alm import LowRankALM
from .mwc_tla_top_eigenvector import TopEigenpair
from .npkl_closed_form import ClosedForm
from .saddle_point import SaddlePoint
from .spectral_metric_closed_form import SpectralClosedForm
from .stqp import ExactStQP, LocalStQP
from .tla_reduced import SchurReduced

#: every registered solver, in registration order (one line each)
SOLVERS: list[Solver] = [
    ClosedForm(),
    SaddlePoint(),
    ADMM(),
    BurerMonteiro(),
    LowRankALM(),
    ExactStQP(),
    LocalStQP(),
    SpectralClosedForm(),
    TopEigenpair(),
    SchurReduced(),
    Extragradient(),
    *generic_solvers(),
    *external_solvers(),  # csdp, sdpa (unavailable, with the apt-get hint, when not installed)
]


def _check_name(solver: Solver, registered: list[Solver]) -> Solver:
    """A solver's name is unique: no registered solver bears it as a name or an alias, and
    its aliases are no solver's name.  An alias may be shared: it selects, formulation by
    formulation, the solver of that formulation that bears it (:func:`get_solver`)."""
    names = {s.name for s in registered}
    aliases = {a for s in registered for a in s.aliases}
    clash = [solver.name] if solver.name in names | aliases else []
    clash += [a for a in solver.aliases if a in names]
    if clash:
        raise TypeError(
            f"{solver!r}: the solver name {clash[0]!r} is taken; names are unique "
            "(an old name is an alias)."
        )
    return solver


for _i, _s in enumerate(SOLVERS):
    _check_name(check_instance(_s), SOLVERS[:_i])


def register(solver: Solver) -> Solver:
    """Add a solver instance to the registry (after checking what only an instance can
    say, and that its name is free); returns it.  The one line that makes a solver of your
    own part of ``solve``, ``verify``, sweeps and the CLI."""
    SOLVERS.append(_check_name(check_instance(solver), SOLVERS))
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
    """The solver of formulation class ``cls`` called ``name``, or bearing it as an alias
    (``closed-form``: the one closed form of that formulation)."""
    table = solvers_for(cls)
    for s in table:
        if s.name == name:
            return s
    for s in table:
        if name in s.aliases:
            return s
    raise UnknownNameError(
        f"unknown solver {name!r} for {cls.name}; choose one of {', '.join(s.name for s in table)}."
    )


def solver_names(cls: type[Formulation]) -> set[str]:
    """Every name that selects a solver of ``cls``: the solvers' names and their aliases."""
    return {x for s in solvers_for(cls) for x in (s.name, *s.aliases)}


def prepare(f: Formulation, name: str) -> Solver:
    """The named solver for this problem, after the ``supports`` check."""
    s = get_solver(type(f), name)
    reason = s.supports(f)
    if reason is not None:
        raise UnsupportedProblemError(
            f"solver {name!r} cannot solve this {f.name} problem: {reason}."
        )
    return s


def default_solver(f: Formulation) -> Solver:
    """The most preferred solver that supports ``f`` and can run here."""
    for s in solvers_for(type(f)):
        if s.supports(f) is None and s.availability()[0]:
            return s
    raise SolverUnavailableError(f"no installed solver supports this {f.name} problem.")


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
    return (
        "within memory: "
        + ", ".join(f"--solver {name} (about {format_size(need)})" for name, need in fits)
        + "."
    )


def solve(problem, solver: str | None = None, **options):
    """Solve a formulation (or a ``cvxpy.Problem``) with a registered solver, by name; by
    default the most preferred one that supports it (``Result.solver`` says which ran)."""
    f = as_formulation(problem)
    s = default_solver(f) if solver is None else prepare(f, solver)
    return s.solve(f, **options)


__all__ = [
    "ADMM",
    "BurerMonteiro",
    "ClosedForm",
    "ConicSolver",
    "ExactStQP",
    "ExternalSDPSolver",
    "Extragradient",
    "LocalStQP",
    "SOLVERS",
    "SaddlePoint",
    "SchurReduced",
    "Solver",
    "SpectralClosedForm",
    "TopEigenpair",
    "default_solver",
    "generic_solvers",
    "get_solver",
    "prepare",
    "register",
    "registry",
    "solve",
    "solver_names",
    "solvers_for",
    "within_memory",
]
