"""How solvers and formulations declare what a user may set: dataclass fields with metadata
(help, range, choices) — ``option`` for a solver's options, ``parameter`` for a
formulation's — read by validation, by ``kernelsdp solvers`` and by the CLI's flags."""

from __future__ import annotations

import typing
from dataclasses import field


def option(default, low: float | None = None, high: float | None = None,
           open_low: bool = False, choices: tuple | None = None, help: str = ""):
    """A solver option: its default, its range [low, high] ((low, high] with ``open_low``),
    or its choices, and one line of help."""
    return field(default=default, metadata={"low": low, "high": high, "open_low": open_low,
                                            "choices": choices, "help": help})


def parameter(default, help: str, choices: tuple | None = None):
    """A formulation parameter: a dataclass field that is also a command-line flag
    (``--name``, typed from its annotation, with these choices and this help)."""
    return field(default=default, metadata={"help": help, "choices": choices})


def strip_optional(hint):
    """int for ``int | None`` (or ``Optional[int]``); the hint itself otherwise."""
    args = typing.get_args(hint)
    rest = [a for a in args if a is not type(None)]
    return rest[0] if type(None) in args and len(rest) == 1 else hint
