"""The ``kernelsdp`` command line: a contract scripts rely on.

    kernelsdp solvers [--json]
    kernelsdp solve FORMULATION --solver NAME [--json] [--out FILE.npz] [input] [params]
    kernelsdp verify FORMULATION --solvers A,B,... [--json] [input] [params]
    kernelsdp certify FILE|FOLDER [--solvers A,B] [--json] [--time-limit S] [--tol T]
    kernelsdp certify FILE.dat-s --solution SOL [--solution-format csdp|sdpa] [--json]
    kernelsdp reproduce PAPER [--quick]
    kernelsdp sweep SPEC.toml [--jobs N] [--backend loky|dask|ray --scheduler ADDRESS] [--fresh]
    kernelsdp relax FILE --relaxation shor+rlt[,moment2] [--maximize] [--solvers A,B] [--json]
    kernelsdp --version

A user mistake prints one line ``kernelsdp: error: ...`` on stderr and exits 2; a failed
verification or certificate exits 1; nothing is written unless the whole result is ready;
output piped into a reader that stops early (``| head``) ends the run silently.

Every flag of ``solve`` and ``verify`` is derived from declarations (:mod:`.inputs`): a
formulation's inputs and parameters, each solver's options.  The heavy modules (CVXPY, the
solvers) are imported only by the command that needs them, so ``kernelsdp --help`` answers
at once (``benchmarks/cli_startup.py`` measures it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings

from ..tolerances import CERTIFY_TOL
from .relax import add_parser as add_relax_parser
from .relax import cmd_relax
from .sweep import add_parser as add_sweep_parser

#: the exit status of a run whose reader closed the pipe (128 + SIGPIPE, as a shell reports it)
BROKEN_PIPE_EXIT = 141


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        sys.stderr.write(f"kernelsdp: error: {message}\n")
        raise SystemExit(2)


def _version() -> str:
    from .. import __version__

    return __version__


def _formulation_subparsers(parent, command: str):
    """One subparser per registered formulation, its flags derived from its declaration."""
    from ..formulations import FORMULATIONS
    from .inputs import add_input_flags, add_solver_option_flags

    sub = parent.add_subparsers(
        dest="formulation", metavar="FORMULATION", required=True, parser_class=_Parser
    )
    for name, entry in FORMULATIONS.items():
        keys = entry.cls.NPZ_KEYS
        p = sub.add_parser(
            name,
            help=entry.summary,
            formatter_class=argparse.RawDescriptionHelpFormatter,
            epilog="keys of --problem FILE.npz:\n"
            + "\n".join(f"  {k}: {v}" for k, v in keys.items()),
        )
        p.add_argument("--json", action="store_true", help="print JSON instead of text")
        p.add_argument(
            "--verbose", action="store_true", help="progress of iterative solvers on stderr"
        )
        add_input_flags(p, entry.cls)
        if command == "solve":
            p.add_argument(
                "--solver",
                default=None,
                help="solver name (kernelsdp solvers); "
                "default: the most preferred that supports the problem",
            )
            p.add_argument(
                "--out",
                metavar="FILE.npz",
                help="write the kernel factor U (K = UUᵀ), primal values and duals",
            )
            p.add_argument("--force", action="store_true", help="replace --out if it exists")
            p.set_defaults(option_dests=add_solver_option_flags(p, entry.cls))
        else:
            p.add_argument("--solvers", required=True, help="comma-separated solver names")


def _add_certify_parser(sub) -> None:
    p = sub.add_parser(
        "certify",
        help="solve any conic problem and certify every answer",
        description="Solve an SDPA file (.dat-s), every .dat-s in a folder, or "
        "(only with --allow-python, since the file is EXECUTED) a .py file "
        "defining problem() that returns a cvxpy.Problem, with each solver; "
        "certify each answer from its point and duals: an objective interval "
        "whose ends are each a proof or labelled an estimate (DIMACS err1-err6 "
        "shown). Exit 0: all certified; 1: some answer not certified; 2: a "
        "file could not be read or run.",
    )
    p.add_argument(
        "path",
        metavar="FILE",
        help="a .dat-s file, a folder of them, or (with "
        "--allow-python) a .py file defining problem()",
    )
    p.add_argument(
        "--allow-python",
        action="store_true",
        help="run .py files (a .py file is EXECUTED: only files you trust)",
    )
    p.add_argument(
        "--solvers",
        default=None,
        help="comma-separated generic solvers (default: "
        "the most preferred installed one; see 'kernelsdp solvers')",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="S",
        help="wall-clock limit per solve, in seconds",
    )
    p.add_argument(
        "--solution",
        metavar="SOL",
        default=None,
        help="certify this solution file of the .dat-s FILE, without solving: "
        "CSDP's .sol or SDPA's output file",
    )
    p.add_argument(
        "--solution-format",
        choices=("csdp", "sdpa"),
        default=None,
        help="the --solution file's format (default: read from its contents)",
    )
    p.add_argument(
        "--tol",
        type=float,
        default=CERTIFY_TOL,
        help=f"bar for every measure and the interval width (default {CERTIFY_TOL:g})",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="files certified in parallel (a folder; joblib, -1: all cores)",
    )
    p.add_argument(
        "--fresh",
        action="store_true",
        help="a folder: certify every file again, not only those not yet in the results store",
    )


def make_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser; the formulation subcommands of ``solve``/``verify`` (which import the
    formulations and solvers) are built only when ``argv`` names that command (all of them
    when ``argv`` is None)."""
    command = None if argv is None else next((a for a in argv if not a.startswith("-")), "")
    ap = _Parser(prog="kernelsdp", description="Kernel-learning SDPs: solve, verify, reproduce.")
    ap.add_argument("--version", action="version", version=f"kernelsdp {_version()}")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser("solvers", help="list formulations and their solvers")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    for name, text in (
        ("solve", "solve one problem with one solver"),
        ("verify", "cross-check solvers on one problem"),
    ):
        p = sub.add_parser(name, help=text)
        if command in (None, name):
            _formulation_subparsers(p, name)
    _add_certify_parser(sub)
    p = sub.add_parser("reproduce", help="run a paper reproduction")
    p.add_argument("paper", metavar="PAPER", help="one of: " + ", ".join(_papers()))
    p.add_argument("--quick", action="store_true", help="small, fast version")
    add_sweep_parser(sub)
    add_relax_parser(sub, keys=command in (None, "relax"))  # the keys import CVXPY
    return ap


# ----- commands ----------------------------------------------------------------------------
def _accepted(spec: dict, fixed: dict) -> str:
    """What a solver accepts of one formulation, as a readable phrase ("all": all of it)."""
    parts = [f"{k} {'|'.join(map(str, v))}" for k, v in spec.items() if k not in fixed]
    return "; ".join(parts) if parts else "all"


def solver_rows() -> list[dict]:
    """Every formulation's solvers in preference order, with what each accepts (derived from
    the solvers' declarations), its options and their flags, its tolerances, and whether it
    can run here."""
    from ..formulations import FORMULATIONS
    from ..solvers import solvers_for
    from .inputs import NOT_FLAGS, input_flags, option_flag

    rows = []
    for name, entry in FORMULATIONS.items():
        taken = input_flags(entry.cls)
        for s in solvers_for(entry.cls):
            spec = s.accepted(entry.cls)
            if any(k in spec and v not in spec[k] for k, v in entry.fixed.items()):
                continue  # a solver refusing what the registry name fixes (a capacity, say)
            ok, reason = s.availability()
            d = s.describe()
            row = {
                "formulation": name,
                "solver": s.name,
                "aliases": d["aliases"],
                "kind": s.kind,
                "available": ok,
                "accepts": _accepted(spec, entry.fixed),
                "options": d["options"],
                "flags": [option_flag(o, taken) for o in d["options"] if o not in NOT_FLAGS],
                "objective_tol": d["objective_tol"],
                "certificate_tol": d["certificate_tol"],
            }
            if not ok:
                row["reason"] = reason
            rows.append(row)
    return rows


def print_solver_table(rows: list[dict]) -> None:
    """The rows as a table: one block per formulation, columns as wide as their widest
    cell, an unavailable solver marked * with its reason said once below."""
    from ..formulations import FORMULATIONS

    cols = ("solver", "kind", "accepts")
    width = {c: max(len(c), *(len(r[c]) + 2 for r in rows)) for c in cols}
    head = "  " + "".join(f"{c:<{width[c] + 2}}" for c in cols) + "flags"
    last = None
    for r in rows:
        if r["formulation"] != last:
            last = r["formulation"]
            print(f"\n{last} — {FORMULATIONS[last].summary}\n{head}")
        name = r["solver"] + ("" if r["available"] else " *")
        print(
            f"  {name:<{width['solver'] + 2}}{r['kind']:<{width['kind'] + 2}}"
            f"{r['accepts']:<{width['accepts'] + 2}}{' '.join(r['flags']) or '-'}"
        )
    off = {r["solver"]: r["reason"] for r in rows if not r["available"]}
    print()
    for name, reason in off.items():
        print(f"* unavailable here: {name}: {reason}")
    aliases: dict[str, dict[str, list[str]]] = {}
    for r in rows:
        for a in r["aliases"]:
            aliases.setdefault(a, {}).setdefault(r["solver"], []).append(r["formulation"])
    for a, targets in aliases.items():
        print(
            f"Old name {a!r} still selects, per formulation: "
            + "; ".join(f"{s} ({', '.join(fs)})" for s, fs in targets.items())
            + "."
        )
    print(
        "Order = preference: the first solver that accepts a problem is its default. "
        "Options: kernelsdp solve FORMULATION --help."
    )


def cmd_solvers(args) -> int:
    rows = solver_rows()
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print_solver_table(rows)
    return 0


def _run_solver(s, f, args, opts: dict):
    """Solve with the options given, plus the progress display the CLI adds."""
    from ..solvers.base import option_inputs
    from .output import ProgressBar, Ticker, progress

    names = option_inputs(s.Options)
    if args.verbose:
        opts.update(
            {"verbose": True}
            if "verbose" in names
            else {"progress": progress}
            if "progress" in names
            else {}
        )
        return s.solve(f, **opts)
    if "progress" not in names:
        with Ticker(f"{s.name} on {args.formulation}"):
            return s.solve(f, **opts)
    # a long iterative solve shows a bar on a terminal
    bar = ProgressBar(opts.get("max_iter", getattr(names.get("max_iter"), "default", None)), s.name)
    try:
        return s.solve(f, **{**opts, "progress": bar})
    finally:
        bar.close()


def _out_arrays(r) -> dict:
    """What --out keeps: the objective, the kernel factor, the primal values and the duals
    that are numbers or vectors (an n×n dual matrix is left out: it can be large)."""
    import numpy as np

    arrays = {"objective": np.float64(r.objective)}
    if r.kernel is not None:
        arrays["U"] = r.kernel.U
    arrays.update({k: np.asarray(v) for k, v in r.primal.items()})
    arrays.update({k: np.asarray(v) for k, v in r.duals.items() if np.ndim(v) <= 1})
    return arrays


def cmd_solve(args) -> int:
    from ..formulations import get_formulation
    from ..result import Termination
    from ..solvers import default_solver
    from .inputs import build_problem, checked_solver, file_inputs, solver_options
    from .output import check_out_path, clean, write_npz_atomically

    check_out_path(args.out, file_inputs(args, get_formulation(args.formulation).cls), args.force)
    f = build_problem(args)
    s = default_solver(f) if args.solver is None else checked_solver(f, args.solver)
    # only what the user gave: an option this solver does not take is an error (exit 2)
    r = _run_solver(s, f, args, solver_options(args))
    if r.ok:  # the answer's certificate travels with it: each end's label, the verdict
        from ..verify import certify

        r.certificate = certify(f, r)
    summary = clean({**r.summary(), "formulation": args.formulation, "problem": f.describe()})
    if args.out and r.ok:
        write_npz_atomically(args.out, _out_arrays(r))
        summary["out"] = args.out
    elif args.out:
        sys.stderr.write(
            f"kernelsdp: --out {args.out} not written: {r.solver} returned no usable "
            f"point ({r.termination.value}).\n"
        )
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        chosen = " (default)" if args.solver is None else ""
        print(
            f"{summary['formulation']} / {summary['solver']}{chosen}: {summary['status']} "
            f"({summary['point']}), objective {summary['objective']}, "
            f"{r.solve_time_s:.3f}s, {r.iterations} iterations"
            + (f"\n  {r.message}" if r.message else "")
        )
        if r.certificate is not None:
            from ..verify.printing import end_text

            c = r.certificate
            print(
                f"  certificate: [{end_text(c.lower, c.lower_label)}, "
                f"{end_text(c.upper, c.upper_label)}] {c.verdict} (tol {c.tol:g})"
            )
    # 0 only for a point its solver could stand behind: a limit or an uncertified claim is 1
    done = (Termination.OPTIMAL, Termination.LOCALLY_SOLVED, Termination.ALMOST_OPTIMAL)
    return 0 if r.ok and r.termination in done else 1


def cmd_verify(args) -> int:
    from ..errors import KernelSDPError
    from ..verify import verify
    from .inputs import build_problem, checked_solver
    from .output import clean

    f = build_problem(args)
    names = [s.strip() for s in args.solvers.split(",") if s.strip()]
    if not names:
        raise KernelSDPError("--solvers needs at least one solver name.")
    for name in names:
        checked_solver(f, name)
    rep = verify(f, names)
    rep.problem["formulation"] = args.formulation
    if args.json:
        print(json.dumps(clean(rep.to_dict()), indent=2))
        return 0 if rep.passed else 1
    print(rep)  # the same table as print(report) in Python (kernelsdp.verify.printing)
    return 0 if rep.passed else 1


def cmd_certify(args) -> int:
    from .certify import cmd_certify as run

    return run(args)


def cmd_sweep(args) -> int:
    from .sweep import cmd_sweep as run

    return run(args)


def cmd_reproduce(args) -> int:
    from ..errors import KernelSDPError
    from ..reproductions import PAPERS

    if args.paper not in PAPERS:
        raise KernelSDPError(f"unknown paper {args.paper!r}; choose one of {', '.join(PAPERS)}.")
    return PAPERS[args.paper](quick=args.quick)


COMMANDS = {
    "solvers": cmd_solvers,
    "solve": cmd_solve,
    "verify": cmd_verify,
    "certify": cmd_certify,
    "reproduce": cmd_reproduce,
    "sweep": cmd_sweep,
    "relax": cmd_relax,
}


def _papers() -> list[str]:
    from ..reproductions import PAPERS  # light: each paper's module is imported when run

    return list(PAPERS)


def _warn_one_line(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning reaches the terminal as one readable line, not with its source line."""
    sys.stderr.write(f"kernelsdp: warning: {message}\n")


def _quiet_broken_pipe() -> int:
    """The reader of stdout has gone (``| head``): point stdout at /dev/null so that the
    interpreter's last flush cannot print a traceback, and stop without a word."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout is not a file (captured)
        pass
    return BROKEN_PIPE_EXIT


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = make_parser(argv).parse_args(argv)
        from ..errors import Interrupted, KernelSDPError
    except BrokenPipeError:
        return _quiet_broken_pipe()
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _warn_one_line
            return COMMANDS[args.command](args)
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except Interrupted as exc:  # a long run stopped by Ctrl-C: what it kept, one line
        sys.stderr.write(f"kernelsdp: {exc}\n")
        return 130
    except KeyboardInterrupt:
        sys.stderr.write("kernelsdp: interrupted; nothing was written.\n")
        return 130
    except KernelSDPError as exc:
        sys.stderr.write(f"kernelsdp: error: {exc}\n")
        return 2
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        sys.stderr.write(f"kernelsdp: error: {exc.strerror}: {exc.filename}\n")
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
