"""The contract of a solver: it declares itself, and everything else is derived.

A solver class states

- ``kind``: ``exact`` (a closed form or an enumeration), ``iterative`` (a fast method run
  to a tolerance), ``interior-point`` or ``first-order`` (generic conic solvers) — the
  registry's preference order, in that order;
- ``ACCEPTS``: formulation class → {attribute: allowed values}, e.g.
  ``{NPKL: {"loss": ("linear",), "capacity": ("frobenius",)}}``; ``supports`` and the
  capability table of ``kernelsdp solvers`` are derived from it, and ``REFUSALS`` may add
  why a value is refused;
- ``Options``: a dataclass of its options with types, defaults and ranges (``option(...)``
  metadata); ``solve(f, **options)`` validates them — an unknown or out-of-range option is
  an :class:`InvalidParameterError` in one message shape, never ignored;
- ``objective_tol`` and ``certificate_tol``: its named tolerances (from
  :mod:`kernelsdp.tolerances`), read by verify.
- ``memory_bytes(f, options)``: the peak bytes of one solve, from the sizes alone; every
  ``run`` starts by refusing a size that would not fit, with the GiB it would need
  (:mod:`.memory`), before allocating anything.

Solver trouble is a status in the result; only user mistakes (an unsupported problem asked
for by name, a bad option, a size that would not fit in memory) raise.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import functools
import math
import typing
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from .. import tolerances as tol
from ..declarations import strip_optional
from ..errors import InvalidParameterError
from ..formulations.base import Formulation
from ..result import Result

KINDS = ("exact", "iterative", "interior-point", "first-order")


@dataclass(frozen=True)
class NoOptions:
    """A solver without options."""


def _describe(f: dataclasses.Field, hint) -> str:
    m = f.metadata
    if m.get("choices"):
        return "one of " + ", ".join(map(repr, m["choices"]))
    base = {int: "an int", float: "a float", bool: "a bool", str: "a str"}.get(strip_optional(hint), "a value")
    if m.get("low") is not None or m.get("high") is not None:
        lo = "-inf" if m.get("low") is None else f"{m['low']:g}"
        hi = "inf" if m.get("high") is None else f"{m['high']:g}"
        base += f" in the range {'(' if m.get('open_low') else '['}{lo}, {hi}{']' if m.get('high') is not None else ')'}"
    return base


def validate_options(owner: str, cls: type, given: dict[str, Any]):
    """``cls(**given)`` after checking every name, type and range (the one message shape)."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    hints = typing.get_type_hints(cls)
    for name, value in given.items():
        if name not in fields:
            known = ", ".join(fields) or "none"
            raise InvalidParameterError(f"The {name!r} option is not an option of {owner}; its "
                                        f"options are: {known}.")
        f, hint = fields[name], hints.get(name, Any)
        nullable = type(None) in typing.get_args(hint)
        core = strip_optional(hint)
        if value is None and nullable:
            continue
        ok = True
        if core is bool:
            ok = isinstance(value, bool)
        elif core is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif core is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        elif core is str:
            ok = isinstance(value, str)
        elif typing.get_origin(core) is collections.abc.Callable:
            ok = callable(value)
        elif core is dict:
            ok = isinstance(value, dict)
        m = f.metadata
        if ok and m.get("choices") is not None:
            ok = value in m["choices"]
        if ok and m.get("low") is not None:
            ok = value > m["low"] if m.get("open_low") else value >= m["low"]
        if ok and m.get("high") is not None:
            ok = value <= m["high"]
        if not ok:
            raise InvalidParameterError(f"The {name!r} option of {owner} must be "
                                        f"{_describe(f, hint)}. Got {value!r} instead.")
    return cls(**given)


class Solver(ABC):
    name: ClassVar[str] = ""
    kind: ClassVar[str] = "iterative"
    #: formulation class → {attribute: allowed values} (an empty dict: every instance)
    ACCEPTS: ClassVar[dict[type, dict[str, tuple]]] = {}
    #: (attribute, value) → why that value is refused (shown with the refusal)
    REFUSALS: ClassVar[dict[tuple[str, Any], str]] = {}
    Options: ClassVar[type] = NoOptions
    objective_tol: ClassVar[float] = tol.OBJECTIVE_RTOL_ITERATIVE
    certificate_tol: ClassVar[float] = tol.KKT_TOL_INTERIOR_POINT
    #: bytes this solver never goes beyond, below the machine's memory (None: no cap of its own)
    memory_cap: ClassVar[int | None] = None
    #: what the TooLargeError says to do instead
    memory_advice: ClassVar[str] = "use a solver that scales (kernelsdp solvers) or a smaller n."

    def __init_subclass__(cls, **kwargs):
        """Every solver's ``run`` starts with the memory check (:mod:`.memory`), so no path —
        solve, verify, a sweep — allocates a size that cannot fit."""
        super().__init_subclass__(**kwargs)
        run = cls.__dict__.get("run")
        if run is not None and not getattr(run, "checks_memory", False):
            @functools.wraps(run)
            def checked(self, formulation, options):
                from .memory import refuse_if_too_large
                refuse_if_too_large(self, formulation, options)
                return run(self, formulation, options)
            checked.checks_memory = True
            cls.run = checked

    def memory_bytes(self, formulation: Formulation, options) -> int | None:
        """Peak bytes one solve holds beyond the problem's own data, from its sizes alone
        (nothing is allocated); None: not declared (tests/test_scale_limits.py checks that
        every registered solver declares it)."""
        return None

    def availability(self) -> tuple[bool, str]:
        """(True, "") when the solver can run on this machine, else (False, reason)."""
        return True, ""

    def accepts(self) -> dict[type, dict[str, tuple]]:
        return self.ACCEPTS

    def accepted(self, cls: type) -> dict[str, tuple] | None:
        """What this solver accepts of formulation class ``cls`` (None: nothing of it)."""
        return next((v for c, v in self.accepts().items() if issubclass(cls, c)), None)

    def supports(self, f: Formulation) -> str | None:
        """None when this solver handles the problem, else a sentence saying why not —
        derived from ``ACCEPTS``, with the ``REFUSALS`` reason where one is given."""
        spec = self.accepted(type(f))
        if spec is None:
            names = ", ".join(getattr(c, "name", c.__name__) for c in self.accepts()) or "nothing"
            return f"{self.name} solves {names} only"
        bad = [(attr, getattr(f, attr)) for attr, allowed in spec.items()
               if getattr(f, attr) not in allowed]
        if not bad:
            return None
        wants = " and ".join(f"{a} {', '.join(map(repr, v))}" for a, v in spec.items())
        got = ", ".join(f"{a} {v!r}" + (f" ({self.REFUSALS[a, v]})" if (a, v) in self.REFUSALS else "")
                        for a, v in bad)
        return f"{self.name} accepts {wants}; got {got}"

    def options(self, **given) -> Any:
        """The validated Options of this solver."""
        return validate_options(self.name, self.Options, given)

    def solve(self, formulation: Formulation, **options) -> Result:
        """Validate the options, then run."""
        return self.run(formulation, self.options(**options))

    @abstractmethod
    def run(self, formulation: Formulation, options) -> Result:
        """Solve with validated options."""

    def describe(self) -> dict[str, Any]:
        """What `kernelsdp solvers` shows: kind, capabilities, options, tolerances."""
        hints = typing.get_type_hints(self.Options)
        return {
            "kind": self.kind,
            "accepts": {getattr(c, "name", c.__name__): {k: list(v) for k, v in spec.items()}
                        for c, spec in self.accepts().items()},
            "options": {f.name: {"default": (f.default_factory() if f.default is dataclasses.MISSING
                                             else None if callable(f.default) else f.default),
                                 "type": _describe(f, hints.get(f.name)),
                                 "help": f.metadata.get("help", "")}
                        for f in dataclasses.fields(self.Options)},
            "objective_tol": self.objective_tol, "certificate_tol": self.certificate_tol,
        }

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"
