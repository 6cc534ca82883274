"""How solvers and formulations declare what a user may set, once; everything else is derived.

- ``option(...)``: a solver's option, a field of its ``Options`` dataclass;
- ``parameter(...)``: a formulation's parameter, a field of the formulation dataclass;
- :class:`Input`: an input that is not a field (where the problem comes from: a file, a
  bundled data set; what shapes it: the k of a k-NN graph, a seed), listed in the
  formulation's ``INPUTS``.

Each carries its type, default, range or choices, unit, the key of a problem file it
overrides, and one line of help.  The command line's flags (``kernelsdp/cli``), a sweep's
unit keys (``kernelsdp/sweep``), the estimators' ``_parameter_constraints`` and every check
of a value (:meth:`Input.check`, one message shape) are derived from these declarations:
nothing below ``kernelsdp/cli`` parses an argument list.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import math
import typing
from dataclasses import dataclass, field
from typing import Any


class File(str):
    """The type of an input that names a file (a path; read when the problem is built)."""


def option(
    default,
    low: float | None = None,
    high: float | None = None,
    open_low: bool = False,
    choices: tuple | None = None,
    help: str = "",
    unit: str = "",
):
    """A solver option: its default, its range [low, high] ((low, high] with ``open_low``),
    or its choices, its unit, and one line of help."""
    return field(
        default=default,
        metadata={
            "low": low,
            "high": high,
            "open_low": open_low,
            "choices": choices,
            "help": help,
            "unit": unit,
        },
    )


def parameter(
    default,
    help: str,
    choices: tuple | None = None,
    low: float | None = None,
    high: float | None = None,
    open_low: bool = False,
    unit: str = "",
    file_key: str | None = None,
):
    """A formulation parameter: a dataclass field that is also a flag (``--name``) and a
    sweep key, typed from its annotation, with these choices or this range, its unit, the
    key of a ``--problem`` file it overrides (``file_key``), and this help."""
    return field(
        default=default,
        metadata={
            "help": help,
            "choices": choices,
            "low": low,
            "high": high,
            "open_low": open_low,
            "unit": unit,
            "file_key": file_key,
            "parameter": True,
        },
    )


def strip_optional(hint):
    """int for ``int | None`` (or ``Optional[int]``); the hint itself otherwise."""
    args = typing.get_args(hint)
    rest = [a for a in args if a is not type(None)]
    return rest[0] if type(None) in args and len(rest) == 1 else hint


_NAMES = {int: "an int", float: "a float", bool: "a bool", str: "a str", File: "a file name"}


@dataclass(frozen=True)
class Input:
    """One declared input: of a formulation (a parameter or an ``INPUTS`` entry) or of a
    solver (an option).

    ``source``: the way of giving the problem this input opens (``problem``, ``dataset``…;
    exactly one source is given); ``needs``: inputs it cannot go without; ``only_with``: the
    source it applies to (``k`` of the k-NN graph: ``dataset``); ``group``: its heading in
    ``--help``; ``kind``: ``parameter`` or ``option``, the word of its error message."""

    name: str
    type: type = str
    default: Any = None
    help: str = ""
    choices: tuple | None = None
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    unit: str = ""
    file_key: str | None = None
    source: str | None = None
    needs: tuple[str, ...] = ()
    only_with: str | None = None
    metavar: str | None = None
    group: str = "parameters"
    nullable: bool = True
    kind: str = "parameter"

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def describe(self) -> str:
        """What a valid value is, in words: "a float in the range (0, inf)"."""
        if self.choices:
            return "one of " + ", ".join(map(repr, self.choices))
        text = _NAMES.get(self.type, "a value")
        if self.low is not None or self.high is not None:
            lo = "-inf" if self.low is None else f"{self.low:g}"
            hi = "inf" if self.high is None else f"{self.high:g}"
            text += (
                f" in the range {'(' if self.open_low or self.low is None else '['}{lo}, "
                f"{hi}{']' if self.high is not None else ')'}"
            )
        return text

    def help_line(self) -> str:
        """The help of its flag: the help, the unit and the default."""
        unit = f"; {self.unit}" if self.unit and self.unit not in self.help else ""
        default = "" if self.default is None or self.type is bool else f" (default {self.default})"
        return f"{self.help}{unit}{default}"

    def valid(self, value) -> bool:
        """Whether ``value`` has this input's type and lies in its range or choices."""
        if value is None:
            return self.nullable
        t = self.type
        if t is bool:
            ok = isinstance(value, bool)
        elif t is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif t is float:
            ok = (
                isinstance(value, (int, float))
                and not isinstance(value, bool)
                and math.isfinite(value)
            )
        elif t in (str, File):
            ok = isinstance(value, str)
        elif typing.get_origin(t) is collections.abc.Callable:
            ok = callable(value)
        elif t is dict:
            ok = isinstance(value, dict)
        else:
            ok = True
        if ok and self.choices is not None:
            ok = value in self.choices
        if ok and self.low is not None:
            ok = value > self.low if self.open_low else value >= self.low
        if ok and self.high is not None:
            ok = value <= self.high
        return ok

    def check(self, value, owner: str):
        """``value`` (an int given for a float input becomes a float), or the one error
        shape: "The 'C' parameter of npkl must be a float in the range (0, inf). Got -1
        instead." (:class:`~kernelsdp.errors.InvalidParameterError`)."""
        if not self.valid(value):
            from .errors import InvalidParameterError

            raise InvalidParameterError(
                f"The {self.name!r} {self.kind} of {owner} must be "
                f"{self.describe()}. Got {value!r} instead."
            )
        return float(value) if self.type is float and value is not None else value

    def sklearn_constraint(self) -> list:
        """The same declaration as an entry of scikit-learn's ``_parameter_constraints``."""
        from numbers import Integral, Real

        from sklearn.utils._param_validation import Interval, StrOptions

        if self.choices:
            out: list = [StrOptions(set(self.choices))]
        elif self.type is bool:
            out = ["boolean"]
        elif self.type in (int, float):
            closed = {
                (True, True): "both",
                (True, False): "left",
                (False, True): "right",
                (False, False): "neither",
            }[(self.low is not None and not self.open_low, self.high is not None)]
            out = [
                Interval(Integral if self.type is int else Real, self.low, self.high, closed=closed)
            ]
        else:
            out = [self.type]
        return out + ([None] if self.nullable and self.default is None else [])


def field_input(
    f: dataclasses.Field, hint, kind: str = "parameter", group: str = "parameters"
) -> Input:
    """The :class:`Input` that a dataclass field declared with ``parameter`` or ``option``
    stands for."""
    m = f.metadata
    default = (
        f.default_factory()
        if f.default is dataclasses.MISSING and f.default_factory is not dataclasses.MISSING
        else None
        if f.default is dataclasses.MISSING
        else f.default
    )
    nullable = type(None) in typing.get_args(hint)
    return Input(
        f.name,
        strip_optional(hint),
        None if callable(default) else default,
        m.get("help", ""),
        m.get("choices"),
        m.get("low"),
        m.get("high"),
        m.get("open_low", False),
        m.get("unit", ""),
        m.get("file_key"),
        nullable=nullable,
        kind=kind,
        group=group,
    )


def dataclass_inputs(
    cls, kind: str = "parameter", declared_only: bool = True, group: str = "parameters"
) -> list[Input]:
    """The inputs a dataclass declares, in field order (``declared_only``: the fields made
    by ``parameter``/``option``, i.e. with help)."""
    if not dataclasses.is_dataclass(cls):
        return []
    hints = typing.get_type_hints(cls)
    return [
        field_input(f, hints.get(f.name, Any), kind, group)
        for f in dataclasses.fields(cls)
        if not declared_only or "help" in f.metadata
    ]
