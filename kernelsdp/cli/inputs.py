"""How the CLI turns arguments into a problem and a solver, all derived from declarations: a
formulation's inputs (``Formulation.inputs()``: its ``INPUTS`` and parameters) and each
solver's ``Options`` become flags; the parsed values are checked and the problem built by
the formulation itself (``check_inputs`` / ``from_inputs``); a solver name is resolved for
a problem by the registry."""

from __future__ import annotations

import argparse

from ..declarations import File, Input
from ..errors import SolverUnavailableError
from ..formulations import get_formulation
from ..formulations.base import SOURCES
from ..solvers import prepare, solvers_for
from ..solvers.base import option_inputs

#: options the CLI sets itself (--verbose) or that only Python callers pass
NOT_FLAGS = ("progress", "verbose", "solver_options")
_METAVARS = {int: "INT", float: "FLOAT", str: "TEXT", File: "FILE"}


def _argparse_kwargs(i: Input, dest: str, help: str) -> dict:
    kw: dict = {"dest": dest, "default": None, "help": help}
    if i.type is bool:
        kw.update(action="store_const", const=True)
        return kw
    kw["type"] = i.type if i.type in (int, float) else str
    if i.choices:
        kw["choices"] = i.choices
        if i.metavar:  # a long list: named in the help instead of the usage line
            kw["metavar"] = i.metavar
            kw["help"] = f"{help}: {', '.join(map(str, i.choices))}"
    else:
        kw["metavar"] = i.metavar or _METAVARS.get(i.type, "VALUE")
    return kw


def add_input_flags(p: argparse.ArgumentParser, cls) -> None:
    """One flag per declared input of formulation class ``cls``, grouped as declared (the
    problem sources first); every default is None: what is not given is not passed."""
    inputs = list(cls.inputs().values())
    heads = list(dict.fromkeys([SOURCES] + [i.group for i in inputs]))
    groups = {h: p.add_argument_group(h) for h in heads if any(i.group == h for i in inputs)}
    for i in inputs:
        groups[i.group].add_argument(i.flag, **_argparse_kwargs(i, i.name, i.help_line()))


def input_values(args, cls) -> dict:
    """The inputs the user gave (only those)."""
    return {
        name: getattr(args, name) for name in cls.inputs() if getattr(args, name, None) is not None
    }


def build_problem(args):
    """The problem the parsed arguments describe, checked by its declaration first."""
    entry = get_formulation(args.formulation)
    values = entry.cls.check_inputs(input_values(args, entry.cls), entry.fixed, args.formulation)
    return entry.cls.from_inputs(values)


def file_inputs(args, cls) -> list[str]:
    """The files this run reads (inputs of type File), e.g. to refuse one as --out."""
    return [
        getattr(args, i.name)
        for i in cls.inputs().values()
        if i.type is File and getattr(args, i.name, None)
    ]


def checked_solver(f, name: str):
    """The named solver, after the supports check (solvers.prepare) and its availability."""
    s = prepare(f, name)
    ok, reason = s.availability()
    if not ok:
        raise SolverUnavailableError(f"solver {name!r} is unavailable: {reason}")
    return s


def option_flag(name: str, taken) -> str:
    """The flag of solver option ``name``: ``--max-iter``; ``--solver-seed`` where a problem
    input already takes the plain flag (``--seed``)."""
    flag = "--" + name.replace("_", "-")
    return "--solver-" + name.replace("_", "-") if flag in taken else flag


def input_flags(cls) -> set[str]:
    return {i.flag for i in cls.inputs().values()}


def solver_option_table(cls) -> dict[str, tuple[Input, dict[str, list[str]]]]:
    """The union of the options of the solvers of ``cls`` that are flags: name → (its
    declaration, help text → the solvers that give it that meaning)."""
    table: dict[str, tuple[Input, dict[str, list[str]]]] = {}
    for s in solvers_for(cls):
        for i in option_inputs(s.Options).values():
            if i.name in NOT_FLAGS:
                continue
            _, helps = table.setdefault(i.name, (i, {}))
            helps.setdefault(i.help_line() or i.name, []).append(s.name)
    return table


def add_solver_option_flags(p: argparse.ArgumentParser, cls) -> dict[str, str]:
    """One flag per option of the solvers of this formulation (their union), typed from
    the declarations and helped with each solver's own meaning; returns dest → option."""
    taken = input_flags(cls) | {o for a in p._actions for o in a.option_strings}
    g = p.add_argument_group("solver options (each solver takes its own; any other is an error)")
    dests = {}
    for name, (i, helps) in solver_option_table(cls).items():
        text = "; ".join(f"{h} [{', '.join(names)}]" for h, names in helps.items())
        dest = "opt_" + name
        g.add_argument(option_flag(name, taken), **_argparse_kwargs(i, dest, text))
        dests[dest] = name
    return dests


def solver_options(args) -> dict:
    """The solver options the user gave (only those)."""
    return {
        name: getattr(args, dest)
        for dest, name in getattr(args, "option_dests", {}).items()
        if getattr(args, dest) is not None
    }
