"""How the CLI turns arguments into a problem and a solver: each formulation reads its own
flags (``Formulation.add_cli_arguments`` / ``from_cli``), each solver's options become flags
(from its ``Options`` dataclass), and a solver name is resolved for a problem."""

from __future__ import annotations

import argparse
import dataclasses
import typing

from ..declarations import strip_optional
from ..errors import SolverUnavailableError
from ..formulations import get_formulation
from ..solvers import prepare, solvers_for

#: options the CLI sets itself (--verbose) or that only Python callers pass
NOT_FLAGS = ("progress", "verbose", "solver_options")


def build_problem(args):
    entry = get_formulation(args.formulation)
    return entry.cls.from_cli(args, entry.fixed)


def checked_solver(f, name: str):
    """The named solver, after the supports check (solvers.prepare) and its availability."""
    s = prepare(f, name)
    ok, reason = s.availability()
    if not ok:
        raise SolverUnavailableError(f"solver {name!r} is unavailable: {reason}")
    return s


def add_solver_option_flags(p: argparse.ArgumentParser, cls) -> dict[str, str]:
    """One flag per option of the solvers of this formulation (their union), typed and
    helped from the declarations; returns flag dest → option name.  A flag that a problem
    flag already takes (``--seed``) becomes ``--solver-seed``."""
    taken = {o for a in p._actions for o in a.option_strings}
    seen: dict[str, list[str]] = {}
    fields: dict[str, tuple] = {}
    for s in solvers_for(cls):
        hints = typing.get_type_hints(s.Options)
        for f in dataclasses.fields(s.Options):
            if f.name in NOT_FLAGS:
                continue
            seen.setdefault(f.name, []).append(s.name)
            fields.setdefault(f.name, (f, hints.get(f.name)))
    g = p.add_argument_group("solver options (each solver takes its own; any other is an error)")
    dests = {}
    for name, (f, hint) in fields.items():
        flag = "--" + name.replace("_", "-")
        if flag in taken:
            flag = "--solver-" + name.replace("_", "-")
        dest = "opt_" + name
        core = strip_optional(hint)
        kw: dict = {"dest": dest, "default": None,
                    "help": f"{f.metadata.get('help', name)} [{', '.join(seen[name])}]"}
        if core is bool:
            kw.update(action="store_const", const=True)
        else:
            kw["type"] = core if core in (int, float, str) else str
            if f.metadata.get("choices"):
                kw["choices"] = f.metadata["choices"]
            else:
                kw["metavar"] = kw["type"].__name__.upper()
        g.add_argument(flag, **kw)
        dests[dest] = name
    return dests


def solver_options(args) -> dict:
    """The solver options the user gave (only those)."""
    return {name: getattr(args, dest) for dest, name in getattr(args, "option_dests", {}).items()
            if getattr(args, dest) is not None}
