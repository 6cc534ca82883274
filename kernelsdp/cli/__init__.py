"""The ``kernelsdp`` command line: a contract scripts rely on.

    kernelsdp solvers [--json]
    kernelsdp solve FORMULATION --solver NAME [--json] [--out FILE.npz] [input] [params]
    kernelsdp verify FORMULATION --solvers A,B,... [--json] [input] [params]
    kernelsdp certify FILE|FOLDER [--solvers A,B] [--json] [--time-limit S] [--tol T]
    kernelsdp reproduce PAPER [--quick]
    kernelsdp sweep SPEC.toml [--jobs N] [--backend loky|dask|ray --scheduler ADDRESS] [--fresh]

A user mistake prints one line ``kernelsdp: error: ...`` on stderr and exits 2; a failed
verification or certificate exits 1; nothing is written unless the whole result is ready.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import warnings

import numpy as np

from ..errors import Interrupted, KernelSDPError
from ..formulations import FORMULATIONS, get_formulation
from ..result import Termination
from ..solvers import default_solver, registry
from ..tolerances import CERTIFY_TOL
from ..verify import verify
from .certify import cmd_certify
from .inputs import add_solver_option_flags, build_problem, checked_solver, solver_options
from .output import (ProgressBar, Ticker, check_out_path, clean, print_check, progress,
                     write_npz_atomically)
from .sweep import add_parser as add_sweep_parser, cmd_sweep


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        sys.stderr.write(f"kernelsdp: error: {message}\n")
        raise SystemExit(2)


def _add_problem_args(p: argparse.ArgumentParser, cls) -> None:
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--verbose", action="store_true", help="progress of iterative solvers on stderr")
    cls.add_cli_arguments(p)


def _epilog(name: str) -> str:
    keys = get_formulation(name).cls.NPZ_KEYS
    return "keys of --problem FILE.npz:\n" + "\n".join(f"  {k}: {v}" for k, v in keys.items())


def _formulation_subparsers(parent):
    sub = parent.add_subparsers(dest="formulation", metavar="FORMULATION", required=True,
                                parser_class=_Parser)
    out = {}
    for name, entry in FORMULATIONS.items():
        p = sub.add_parser(name, help=entry.summary, epilog=_epilog(name),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        _add_problem_args(p, entry.cls)
        out[name] = p
    return out


def make_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="kernelsdp", description="Kernel-learning SDPs: solve, verify, reproduce.")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser("solvers", help="list formulations and their solvers")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("solve", help="solve one problem with one solver")
    for name, q in _formulation_subparsers(p).items():
        q.add_argument("--solver", default=None, help="solver name (kernelsdp solvers); default: "
                       "the most preferred that supports the problem")
        q.add_argument("--out", metavar="FILE.npz", help="write the kernel factor U (K = UUᵀ) and duals")
        q.add_argument("--force", action="store_true", help="replace --out if it exists")
        q.set_defaults(option_dests=add_solver_option_flags(q, FORMULATIONS[name].cls))
    p = sub.add_parser("verify", help="cross-check solvers on one problem")
    for q in _formulation_subparsers(p).values():
        q.add_argument("--solvers", required=True, help="comma-separated solver names")
    p = sub.add_parser("certify", help="solve any conic problem and certify every answer",
                       description="Solve an SDPA file (.dat-s), a .py file defining problem() "
                       "that returns a cvxpy.Problem, or every such file in a folder, with each "
                       "solver; certify each answer from its point and duals (DIMACS err1-err6, "
                       "objective interval). Exit 0: all certified; 1: some answer failed.")
    p.add_argument("path", metavar="FILE", help="a .dat-s file, a .py file, or a folder of them")
    p.add_argument("--solvers", default=None, help="comma-separated generic solvers (default: "
                   "the most preferred installed one; see 'kernelsdp solvers')")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--time-limit", type=float, default=None, metavar="S",
                   help="wall-clock limit per solve, in seconds")
    p.add_argument("--tol", type=float, default=CERTIFY_TOL,
                   help=f"bar for every measure and the interval width (default {CERTIFY_TOL:g})")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="files certified in parallel (a folder; joblib, -1: all cores)")
    p.add_argument("--fresh", action="store_true",
                   help="a folder: certify every file again, not only those not yet in the results store")
    p = sub.add_parser("reproduce", help="run a paper reproduction")
    p.add_argument("paper", metavar="PAPER", help="one of: " + ", ".join(_papers()))
    p.add_argument("--quick", action="store_true", help="small, fast version")
    add_sweep_parser(sub)
    return ap


# ----- commands ----------------------------------------------------------------------------
def _accepted(spec: dict, fixed: dict) -> str:
    """What a solver accepts of one formulation, as a readable phrase ("all": all of it)."""
    parts = [f"{k} {'|'.join(map(str, v))}" for k, v in spec.items() if k not in fixed]
    return "; ".join(parts) if parts else "all"


def cmd_solvers(args) -> int:
    """Every formulation's solvers in preference order, with what each accepts (derived from
    the solvers' declarations), its options and tolerances, and whether it can run here."""
    rows = []
    table = registry()
    for name, entry in FORMULATIONS.items():
        for s in table.get(entry.cls, []):
            spec = s.accepted(entry.cls)
            if spec is None:
                continue
            bad = [k for k, v in entry.fixed.items() if k in spec and v not in spec[k]]
            if bad:  # a solver refusing what the registry name fixes (a capacity, say)
                continue
            ok, reason = s.availability()
            d = s.describe()
            row = {"formulation": name, "solver": s.name, "kind": s.kind, "available": ok,
                   "accepts": _accepted(spec, entry.fixed), "options": d["options"],
                   "objective_tol": d["objective_tol"], "certificate_tol": d["certificate_tol"]}
            if not ok:
                row["reason"] = reason
            rows.append(row)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    w = max(len(r["accepts"]) for r in rows) + 2
    print(f"{'formulation':<16}{'solver':<14}{'kind':<16}{'accepts':<{w}}options")
    last = None
    for r in rows:
        tail = "" if r["available"] else f"  [unavailable: {r['reason']}]"
        head = r["formulation"] if r["formulation"] != last else ""
        last = r["formulation"]
        print(f"{head:<16}{r['solver']:<14}{r['kind']:<16}{r['accepts']:<{w}}"
              f"{', '.join(r['options']) or '-'}{tail}")
    print("(order = preference: the first that accepts a problem is its default solver)")
    return 0


def cmd_solve(args) -> int:
    check_out_path(args.out, [getattr(args, k, None) for k in ("problem", "laplacian", "pairs")],
                   args.force)
    f = build_problem(args)
    s = default_solver(f) if args.solver is None else checked_solver(f, args.solver)
    # only what the user gave: an option this solver does not take is an error (exit 2)
    opts = solver_options(args)
    names = {fl.name: fl for fl in dataclasses.fields(s.Options)}
    bar = None
    if args.verbose:
        opts.update({"verbose": True} if "verbose" in names else
                    {"progress": progress} if "progress" in names else {})
    elif "progress" in names:  # a long iterative solve shows a bar on a terminal
        bar = ProgressBar(opts.get("max_iter", getattr(names.get("max_iter"), "default", None)),
                          f"{s.name}")
        opts["progress"] = bar
    try:
        if bar is None and not args.verbose:
            with Ticker(f"{s.name} on {args.formulation}"):
                r = s.solve(f, **opts)
        else:
            r = s.solve(f, **opts)
    finally:
        if bar is not None:
            bar.close()
    summary = clean({**r.summary(), "formulation": args.formulation, "problem": f.describe()})
    if args.out and r.ok:
        arrays = {"objective": np.float64(r.objective)}
        if r.kernel is not None:
            arrays["U"] = r.kernel.U
        arrays.update({k: np.asarray(v) for k, v in r.primal.items()})
        arrays.update({k: np.asarray(v) for k, v in r.duals.items() if k in ("beta", "lam", "alpha")})
        write_npz_atomically(args.out, arrays)
        summary["out"] = args.out
    elif args.out:
        sys.stderr.write(f"kernelsdp: --out {args.out} not written: {r.solver} returned no usable "
                         f"point ({r.termination.value}).\n")
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        chosen = " (default)" if args.solver is None else ""
        print(f"{summary['formulation']} / {summary['solver']}{chosen}: {summary['status']} "
              f"({summary['point']}), objective {summary['objective']}, "
              f"{r.solve_time_s:.3f}s, {r.iterations} iterations"
              + (f"\n  {r.message}" if r.message else ""))
    # 0 only for a point its solver could stand behind: a limit or an uncertified claim is 1
    done = (Termination.OPTIMAL, Termination.LOCALLY_SOLVED, Termination.ALMOST_OPTIMAL)
    return 0 if r.ok and r.termination in done else 1


def cmd_verify(args) -> int:
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
    print("problem: " + ", ".join(f"{k}={v}" for k, v in rep.problem.items()))
    for c in rep.checks:
        print_check(c)
    for c in rep.comparisons:
        print(f"  {c.relation}: {c.a} vs {c.b}: separation {c.separation:.2e}, objectives differ "
              f"by {c.relative_difference:.2e} (tol {c.tol:.0e}) {'ok' if c.passed else 'FAIL'}")
    print("verify: " + ("PASSED" if rep.passed else "FAILED"))
    return 0 if rep.passed else 1


def cmd_reproduce(args) -> int:
    try:
        from papers import PAPERS
    except ImportError:
        raise KernelSDPError("the papers/ package is not installed; install the repository "
                             "with 'pip install -e .'.") from None
    if args.paper not in PAPERS:
        raise KernelSDPError(f"unknown paper {args.paper!r}; choose one of {', '.join(PAPERS)}.")
    return PAPERS[args.paper](quick=args.quick)


COMMANDS = {"solvers": cmd_solvers, "solve": cmd_solve, "verify": cmd_verify,
            "certify": cmd_certify, "reproduce": cmd_reproduce, "sweep": cmd_sweep}


def _papers() -> list[str]:
    try:
        from papers import PAPERS
    except ImportError:  # the papers/ package is installed with the repository only
        return ["(install the repository with 'pip install -e .')"]
    return list(PAPERS)


def _warn_one_line(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning reaches the terminal as one readable line, not with its source line."""
    sys.stderr.write(f"kernelsdp: warning: {message}\n")


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _warn_one_line
            return COMMANDS[args.command](args)
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
