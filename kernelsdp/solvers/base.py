"""The contract of a solver: it declares itself, the base class enforces it, and everything
else is derived.

A solver class states

- ``name``: unique, saying the method (``aliases``: older names still accepted);
- ``kind``: ``exact`` (a closed form or an enumeration), ``iterative`` (a fast method run
  to a tolerance), ``interior-point`` or ``first-order`` (generic conic solvers) — the
  registry's preference order, in that order;
- ``ACCEPTS``: formulation class → {attribute: allowed values}, e.g.
  ``{NPKL: {"loss": ("linear",), "capacity": ("frobenius",)}}``, matched by the exact class
  (a subclass is another formulation: it is listed itself, never inherited);
  ``accepts_every_formulation`` instead for a solver of any CVXPY model (the generic conic
  solvers).  ``supports``, the registry (:func:`kernelsdp.solvers.solvers_for`) and the
  table of ``kernelsdp solvers`` are derived from it, and ``REFUSALS`` may add why a value
  is refused;
- ``Options``: a dataclass of its options with types, defaults and ranges (``option(...)``
  metadata); ``solve(f, **options)`` validates them — an unknown or out-of-range option is
  an :class:`InvalidParameterError` in one message shape, never ignored;
- ``objective_tol`` and ``certificate_tol``: its named tolerances (from
  :mod:`kernelsdp.tolerances`), read by verify;
- ``memory_bytes(f, options)``: the peak bytes of one solve, from the sizes alone; every
  ``run`` starts by refusing a size that would not fit, with the GiB it would need
  (:func:`refuse_if_too_large`, under :func:`kernelsdp.limits.memory_limit`), before
  allocating anything.

The base class enforces the contract when a solver class is defined (:func:`check_class`:
a known kind, a declared memory formula, tolerances in (0, 1), and the ``time_limit`` and
``max_iter`` options for every kind but ``exact``) and when an instance is registered
(:func:`check_instance`); ``solve`` refuses, with :class:`UnsupportedProblemError`, a
problem its declaration does not accept.

Solver trouble is a status in the result; only user mistakes (an unsupported problem asked
for by name, a bad option, a size that would not fit in memory) raise.
"""

from __future__ import annotations

import dataclasses
import functools
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from .. import tolerances as tol
from ..declarations import Input, dataclass_inputs
from ..errors import InvalidParameterError, TooLargeError, UnsupportedProblemError
from ..formulations.base import Formulation
from ..limits import GIB, MEMORY_ENV, memory_limit
from ..result import Result

KINDS = ("exact", "iterative", "interior-point", "first-order")
#: the options every solver of a kind other than ``exact`` takes (issue #13: a solver
#: without a time limit could run for minutes)
LIMIT_OPTIONS = ("time_limit", "max_iter")


@dataclass(frozen=True)
class NoOptions:
    """A solver without options."""


@functools.cache
def option_inputs(cls: type) -> dict[str, Input]:
    """The declared options of an ``Options`` dataclass: name → :class:`Input`."""
    return {i.name: i for i in dataclass_inputs(cls, kind="option", declared_only=False)}


def validate_options(owner: str, cls: type, given: dict[str, Any]):
    """``cls(**given)`` after checking every name, type and range (the one message shape)."""
    inputs = option_inputs(cls)
    for name, value in given.items():
        if name not in inputs:
            known = ", ".join(inputs) or "none"
            raise InvalidParameterError(
                f"The {name!r} option is not an option of {owner}; its options are: {known}."
            )
        inputs[name].check(value, owner)
    return cls(**given)


def _bad_tolerance(value) -> bool:
    return not isinstance(value, float) or not 0.0 < value < 1.0


def check_class(cls: type) -> None:
    """The declarations every concrete solver class must make (a TypeError names the
    missing one when the class is defined)."""
    where = f"solver class {cls.__qualname__}"
    if cls.kind not in KINDS:
        raise TypeError(f"{where}: kind {cls.kind!r} is not one of {', '.join(KINDS)}.")
    if not dataclasses.is_dataclass(cls.Options):
        raise TypeError(f"{where}: Options must be a dataclass of option(...) fields.")
    if cls.kind != "exact":
        missing = [o for o in LIMIT_OPTIONS if o not in option_inputs(cls.Options)]
        if missing:
            raise TypeError(
                f"{where}: a solver of kind {cls.kind!r} takes the options "
                f"{', '.join(LIMIT_OPTIONS)}; {', '.join(missing)} missing."
            )
    if cls.memory_bytes is Solver.memory_bytes:
        raise TypeError(
            f"{where} must declare memory_bytes(formulation, options): the peak "
            "bytes of one solve from the sizes alone (kernelsdp.limits)."
        )
    for name in ("objective_tol", "certificate_tol"):
        if _bad_tolerance(getattr(cls, name)):
            raise TypeError(f"{where}: {name} must be a float in (0, 1) (kernelsdp.tolerances).")


def check_instance(s: Solver) -> Solver:
    """What only an instance can say (a generic solver's name and kind are its backend's):
    checked when it is registered."""
    if not isinstance(s, Solver):
        raise TypeError(f"{s!r} is not a Solver instance.")
    if not s.name or s.kind not in KINDS:
        raise TypeError(f"{s!r}: a registered solver needs a name and a kind in {KINDS}.")
    for name in ("objective_tol", "certificate_tol"):
        if _bad_tolerance(getattr(s, name)):
            raise TypeError(f"{s!r}: {name} must be a float in (0, 1) (kernelsdp.tolerances).")
    return s


def peak_bytes(solver: Solver, f: Formulation, options) -> int | None:
    """What ``solver`` declares for one solve of ``f`` (None: nothing declared)."""
    return solver.memory_bytes(f, options)


def refuse_if_too_large(solver: Solver, f: Formulation, options) -> None:
    """Raise :class:`TooLargeError` (one line, with the GiB) when the solve would not fit,
    naming the registered solvers that would take the problem within memory
    (:func:`kernelsdp.solvers.within_memory`)."""
    need = peak_bytes(solver, f, options)
    if need is None:
        return
    limit = memory_limit(getattr(solver, "memory_cap", None))
    if need > limit:
        from . import memory_alternatives  # the registry: it imports this module

        size = f"n = {f.n}" + (f", m = {f.pairs.m}" if hasattr(f, "pairs") else "")
        raise TooLargeError(
            f"{solver.name} would need about {need / GIB:.1f} GiB for this {f.name} problem "
            f"({size}); the limit is {limit / GIB:.1f} GiB (this machine's memory, "
            f"${MEMORY_ENV}, the process's address-space limit or the solver's own cap); "
            f"{memory_alternatives(f, solver)}"
        )


class Solver(ABC):
    name: ClassVar[str] = ""
    #: older names that still select this solver, formulation by formulation (``closed-form``
    #: is the NPKL, spectral-metric and MWC-TLA closed forms' old common name)
    aliases: ClassVar[tuple[str, ...]] = ()
    kind: ClassVar[str] = "iterative"
    #: formulation class → {attribute: allowed values} (an empty dict: every instance of
    #: that exact class)
    ACCEPTS: ClassVar[dict[type, dict[str, tuple]]] = {}
    #: a solver of any formulation's CVXPY model (the generic conic solvers)
    accepts_every_formulation: ClassVar[bool] = False
    #: (attribute, value) → why that value is refused (shown with the refusal)
    REFUSALS: ClassVar[dict[tuple[str, Any], str]] = {}
    Options: ClassVar[type] = NoOptions
    objective_tol: ClassVar[float] = tol.OBJECTIVE_RTOL_ITERATIVE
    certificate_tol: ClassVar[float] = tol.KKT_TOL_INTERIOR_POINT
    #: bytes this solver never goes beyond, below the machine's memory (None: no cap of its own)
    memory_cap: ClassVar[int | None] = None

    def __init_subclass__(cls, **kwargs):
        """Check the class's declarations (:func:`check_class`), and make every ``run`` start
        with the memory check (:func:`refuse_if_too_large`), so that no path — solve,
        verify, a sweep — allocates a size that cannot fit."""
        super().__init_subclass__(**kwargs)
        if not getattr(cls.run, "__isabstractmethod__", False):
            check_class(cls)
        run = cls.__dict__.get("run")
        if run is not None and not getattr(run, "checks_memory", False):

            @functools.wraps(run)
            def checked(self, formulation, options):
                refuse_if_too_large(self, formulation, options)
                return run(self, formulation, options)

            checked.checks_memory = True
            cls.run = checked

    def memory_bytes(self, formulation: Formulation, options) -> int | None:
        """Peak bytes one solve holds beyond the problem's own data, from its sizes alone
        (nothing is allocated).  Every solver class must override it (:func:`check_class`)."""
        raise NotImplementedError

    def availability(self) -> tuple[bool, str]:
        """(True, "") when the solver can run on this machine, else (False, reason)."""
        return True, ""

    def accepts(self) -> dict[type, dict[str, tuple]]:
        return self.ACCEPTS

    def accepted(self, cls: type) -> dict[str, tuple] | None:
        """What this solver accepts of formulation class ``cls`` (None: nothing of it): its
        ``ACCEPTS`` entry for exactly that class — never a base class's."""
        if self.accepts_every_formulation:
            return {}
        return self.accepts().get(cls)

    def supports(self, f: Formulation) -> str | None:
        """None when this solver handles the problem, else a sentence saying why not —
        derived from ``ACCEPTS``, with the ``REFUSALS`` reason where one is given."""
        spec = self.accepted(type(f))
        if spec is None:
            names = ", ".join(getattr(c, "name", c.__name__) for c in self.accepts()) or "nothing"
            return f"{self.name} solves {names} only"
        bad = [
            (attr, getattr(f, attr))
            for attr, allowed in spec.items()
            if getattr(f, attr) not in allowed
        ]
        if not bad:
            return None
        wants = " and ".join(f"{a} {', '.join(map(repr, v))}" for a, v in spec.items())
        got = ", ".join(
            f"{a} {v!r}" + (f" ({self.REFUSALS[a, v]})" if (a, v) in self.REFUSALS else "")
            for a, v in bad
        )
        return f"{self.name} accepts {wants}; got {got}"

    def options(self, **given) -> Any:
        """The validated Options of this solver."""
        return validate_options(self.name, self.Options, given)

    def solve(self, formulation: Formulation, **options) -> Result:
        """Refuse a problem the declaration does not accept (:class:`UnsupportedProblemError`),
        validate the options, then run."""
        reason = self.supports(formulation)
        if reason is not None:
            raise UnsupportedProblemError(
                f"solver {self.name!r} cannot solve this {formulation.name} problem: {reason}."
            )
        return self.run(formulation, self.options(**options))

    @abstractmethod
    def run(self, formulation: Formulation, options) -> Result:
        """Solve with validated options (the caller has checked ``supports``)."""

    def stopped(self, formulation: Formulation, stop, since: float, **info) -> Result:
        """The result of a run whose eigensolver hit a limit before any point
        (:class:`kernelsdp.linalg.positive_part.EigenStop`): its termination and message, the
        time since ``since`` (a ``time.perf_counter()`` reading) and ``info``."""
        import time

        return Result.failure(
            formulation.name,
            self.name,
            stop.termination,
            str(stop),
            solve_time_s=time.perf_counter() - since,
            **({"info": info} if info else {}),
        )

    def describe(self) -> dict[str, Any]:
        """What `kernelsdp solvers` shows: kind, capabilities, options, tolerances."""
        return {
            "kind": self.kind,
            "aliases": list(self.aliases),
            "accepts": (
                "every formulation"
                if self.accepts_every_formulation
                else {
                    getattr(c, "name", c.__name__): {k: list(v) for k, v in spec.items()}
                    for c, spec in self.accepts().items()
                }
            ),
            "options": {
                i.name: {"default": i.default, "type": i.describe(), "help": i.help, "unit": i.unit}
                for i in option_inputs(self.Options).values()
            },
            "objective_tol": self.objective_tol,
            "certificate_tol": self.certificate_tol,
        }

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"
