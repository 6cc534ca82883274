"""The ``kernelsdp`` command line: a contract scripts rely on.

    kernelsdp solvers [--json]
    kernelsdp solve FORMULATION --solver NAME [--json] [--out FILE.npz] [input] [params]
    kernelsdp verify FORMULATION --solvers A,B,... [--json] [input] [params]
    kernelsdp certify FILE|FOLDER [--solvers A,B] [--json] [--time-limit S] [--tol T]
    kernelsdp reproduce PAPER [--quick]

A user mistake prints one line ``kernelsdp: error: ...`` on stderr and exits 2; a failed
verification or certificate exits 1; nothing is written unless the whole result is ready.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
import tempfile
import zipfile

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from .data import DATASETS, PairwiseConstraints, load
from .errors import InvalidDataError, KernelSDPError, SolverUnavailableError, check_positive
from .formulations import CAPACITIES, FORMULATIONS, LOSSES, get_formulation
from .formulations.cvxpy_problem import CvxpyProblem
from .formulations.npkl import NPKL
from .solvers import get_solver, registry
from .solvers.admm import RANK_START
from .tolerances import CERTIFY_TOL
from .verify import verify


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        sys.stderr.write(f"kernelsdp: error: {message}\n")
        raise SystemExit(2)


def _clean(x):
    """JSON-safe: inf/nan as None, numpy scalars as Python numbers."""
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, (np.floating, float)):
        return float(x) if math.isfinite(x) else None
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


# ----- problem input ---------------------------------------------------------------------
def _read_pairs(path: str, n: int) -> PairwiseConstraints:
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    if not rows or [c.strip().lower() for c in rows[0]] != ["i", "j", "label"]:
        raise InvalidDataError(f"{path}: the first line must be the header 'i,j,label'.")
    try:
        data = np.array([[float(c) for c in r] for r in rows[1:] if r], dtype=float)
    except ValueError as exc:
        raise InvalidDataError(f"{path}: every row must hold three numbers ({exc}).") from None
    if data.size == 0 or data.ndim != 2 or data.shape[1] != 3:
        raise InvalidDataError(f"{path}: expected rows 'i,j,label' with three numbers each.")
    return PairwiseConstraints.from_arrays(data[:, :2], data[:, 2], n)


def _load_npz(path: str) -> dict[str, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as z:
            if not hasattr(z, "files"):
                raise InvalidDataError(f"{path}: expected a .npz archive of named arrays.")
            return {k: z[k] for k in z.files}
    except FileNotFoundError:
        raise
    except (ValueError, OSError, zipfile.BadZipFile) as exc:
        raise InvalidDataError(f"{path}: not a plain .npz of arrays ({exc}).") from None


def build_problem(args):
    entry = get_formulation(args.formulation)
    if not issubclass(entry.cls, NPKL):
        if not args.problem:
            raise InvalidDataError(f"{args.formulation} is read from --problem FILE.npz; see "
                                   f"'kernelsdp solve {args.formulation} --help' for its keys.")
        extra = {k: getattr(args, k, None) for k in getattr(entry.cls, "CLI_OPTIONS", {})}
        return entry.cls.from_npz(_load_npz(args.problem), **extra)
    params = {"loss": args.loss, "capacity": args.capacity, "C": args.C, "B": args.B}
    for key, value in entry.fixed.items():
        if params.get(key) not in (None, value):
            raise InvalidDataError(f"{args.formulation} fixes {key} = {value!r}; "
                                   f"got --{key} {params[key]}.")
        params[key] = value
    params = {k: v for k, v in params.items() if v is not None}
    sources = [s for s in ("problem", "laplacian", "dataset") if getattr(args, s)]
    if len(sources) != 1:
        raise InvalidDataError("give exactly one problem input: --problem FILE.npz, "
                               "--laplacian L.npz with --pairs pairs.csv, or --dataset NAME.")
    if args.problem:
        return _active(entry.cls.from_npz(_load_npz(args.problem), **params), args)
    if args.laplacian:
        if not args.pairs:
            raise InvalidDataError("--laplacian needs --pairs pairs.csv (header i,j,label).")
        try:
            L = sp.load_npz(args.laplacian)
        except FileNotFoundError:
            raise
        except (ValueError, OSError, KeyError, zipfile.BadZipFile) as exc:
            raise InvalidDataError(f"{args.laplacian}: not a scipy.sparse .npz ({exc}).") from None
        if L.ndim != 2 or L.shape[0] != L.shape[1]:
            raise InvalidDataError(f"the Laplacian must be square; got shape {L.shape}.")
        return _active(entry.cls(L=L, pairs=_read_pairs(args.pairs, L.shape[0]), **params), args)
    X, y = load(args.dataset)
    if args.n_points and args.n_points < len(y):
        keep = np.random.default_rng(args.seed).choice(len(y), args.n_points, replace=False)
        X, y = X[np.sort(keep)], y[np.sort(keep)]
    pairs = PairwiseConstraints.from_labels(y, ratio=args.ratio, seed=args.seed)
    return _active(entry.cls.from_points(X, pairs, k=args.k, **params), args)


def _active(f: NPKL, args) -> NPKL:
    """Restrict to the active pairs when --active-points is given (margins from Prop. 1)."""
    if args.active_points is None:
        return f
    from dataclasses import replace

    from .solvers.active import select_active
    from .solvers.proposition1 import ClosedForm
    ll = ClosedForm().solve(replace(f, loss="linear", capacity="frobenius"))
    return select_active(f, ll.kernel, args.active_points)


def _add_problem_args(p: argparse.ArgumentParser, cls) -> None:
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--verbose", action="store_true", help="progress of iterative solvers on stderr")
    if not issubclass(cls, NPKL):
        p.add_argument("--problem", metavar="FILE.npz", required=True,
                       help="arrays under the keys listed below")
        for name, typ in getattr(cls, "CLI_OPTIONS", {}).items():
            flag = "--" + name.replace("_", "-")
            if typ is bool:
                p.add_argument(flag, dest=name, action="store_true", help=name)
            else:
                p.add_argument(flag, dest=name, type=typ, default=None,
                               help=f"{name} ({typ.__name__}; overrides the file)")
        return
    g = p.add_argument_group("problem input (exactly one)")
    g.add_argument("--problem", metavar="FILE.npz", help="arrays under the keys listed below")
    g.add_argument("--laplacian", metavar="L.npz", help="graph Laplacian (scipy.sparse.save_npz)")
    g.add_argument("--pairs", metavar="pairs.csv", help="constraints, header i,j,label (label ±1)")
    g.add_argument("--dataset", choices=DATASETS, help="bundled data set: mutual k-NN Laplacian, "
                   "pairs drawn by the connected-components protocol")
    g.add_argument("--k", type=int, default=5, help="neighbours of the k-NN graph (default 5)")
    g.add_argument("--ratio", type=float, default=0.7, help="components / n when drawing pairs (0.7)")
    g.add_argument("--seed", type=int, default=0, help="seed for drawing pairs (0)")
    g.add_argument("--n-points", type=int, default=None, help="subsample the data set")
    q = p.add_argument_group("parameters")
    q.add_argument("--loss", choices=tuple(LOSSES), default=None, help="default: linear")
    q.add_argument("--capacity", choices=CAPACITIES, default=None, help="default: frobenius")
    q.add_argument("--C", type=float, default=None, help="loss weight C > 0 (default 1)")
    q.add_argument("--B", type=float, default=None, help="capacity bound B > 0 (default 1)")
    q.add_argument("--active-points", type=int, default=None, metavar="K",
                   help="active constraint selection (seed 000 §3.2.4): keep only the pairs "
                        "touching the K points of smallest margin under the linear-loss kernel")


def _epilog(name: str) -> str:
    keys = get_formulation(name).cls.NPZ_KEYS
    return "keys of --problem FILE.npz:\n" + "\n".join(f"  {k}: {v}" for k, v in keys.items())


def _formulation_subparsers(parent, command: str):
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
    for q in _formulation_subparsers(p, "solve").values():
        q.add_argument("--solver", default="clarabel", help="solver name (kernelsdp solvers)")
        q.add_argument("--out", metavar="FILE.npz", help="write the kernel factor U (K = UUᵀ) and duals")
        q.add_argument("--tol", type=float, default=None, help="tolerance of an iterative fast solver")
        q.add_argument("--max-iter", type=int, default=None, help="iteration limit of a fast solver")
        q.add_argument("--rank", type=int, default=None,
                       help="largest rank r of the ADMM factor K = XᵀX (default: largest "
                            "r(r+1)/2 ≤ m)")
        q.add_argument("--rank-start", type=int, default=None,
                       help="rank the ADMM factor starts at, widened while saturated (default: "
                            f"min(r, {RANK_START}); r gives the seed's fixed-rank algorithm)")
    p = sub.add_parser("verify", help="cross-check solvers on one problem")
    for q in _formulation_subparsers(p, "verify").values():
        q.add_argument("--solvers", required=True, help="comma-separated solver names")
    p = sub.add_parser("certify", help="solve any conic problem and certify every answer",
                       description="Solve an SDPA file (.dat-s), a .py file defining problem() "
                       "that returns a cvxpy.Problem, or every such file in a folder, with each "
                       "solver; certify each answer from its point and duals (DIMACS err1-err6, "
                       "objective interval). Exit 0: all certified; 1: some answer failed.")
    p.add_argument("path", metavar="FILE", help="a .dat-s file, a .py file, or a folder of them")
    p.add_argument("--solvers", default="clarabel", help="comma-separated generic solvers "
                   "(default clarabel; see 'kernelsdp solvers')")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--time-limit", type=float, default=None, metavar="S",
                   help="wall-clock limit per solve, in seconds")
    p.add_argument("--tol", type=float, default=CERTIFY_TOL,
                   help=f"bar for every measure and the interval width (default {CERTIFY_TOL:g})")
    p = sub.add_parser("reproduce", help="run a paper reproduction")
    p.add_argument("paper", metavar="PAPER")
    p.add_argument("--quick", action="store_true", help="small, fast version")
    return ap


# ----- commands ----------------------------------------------------------------------------
def cmd_solvers(args) -> int:
    rows = []
    table = registry()
    for name, entry in FORMULATIONS.items():
        for s in table.get(entry.cls, []):
            ok, reason = s.availability()
            row = {"formulation": name, "solver": s.name, "kind": s.kind, "available": ok}
            if not ok:
                row["reason"] = reason
            rows.append(row)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for r in rows:
            tail = "" if r["available"] else f"  unavailable: {r['reason']}"
            print(f"{r['formulation']:<14} {r['solver']:<14} {r['kind']:<8}{tail}")
    return 0


def _checked_solver(f, name: str):
    s = get_solver(type(f), name)
    ok, reason = s.availability()
    if not ok:
        raise SolverUnavailableError(f"solver {name!r} is unavailable: {reason}")
    return s


def _progress(rec: dict) -> None:
    sys.stderr.write(f"  iter {rec['iteration']:4d}  primal {rec['primal']:.8g}  dual "
                     f"{rec['dual']:.8g}  rel.gap {rec['relative_gap']:.2e}  "
                     + (f"rank {rec['rank']}  " if "rank" in rec else "")
                     + f"{rec['time_s']:.1f}s\n")


def _write_npz_atomically(path: str, arrays: dict) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(suffix=".npz", dir=folder)
    os.close(fd)
    try:
        np.savez_compressed(tmp, **arrays)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def cmd_solve(args) -> int:
    f = build_problem(args)
    s = _checked_solver(f, args.solver)
    reason = s.supports(f)
    if reason is not None:
        raise KernelSDPError(f"solver {args.solver!r} cannot solve this problem: {reason}.")
    opts = {k: v for k, v in (("tol", args.tol), ("max_iter", args.max_iter),
                              ("rank", getattr(args, "rank", None)),
                              ("rank_start", getattr(args, "rank_start", None))) if v is not None}
    opts = opts if isinstance(f, NPKL) else {}
    if s.kind == "generic":
        opts = {"verbose": args.verbose}
    elif args.verbose:
        opts["progress"] = _progress
    r = s.solve(f, **opts)
    summary = _clean({**r.summary(), "formulation": args.formulation, "problem": f.describe()})
    if args.out and r.ok:
        arrays = {"objective": np.float64(r.objective)}
        if r.kernel is not None:
            arrays["U"] = r.kernel.U
        arrays.update({k: np.asarray(v) for k, v in r.primal.items()})
        arrays.update({k: np.asarray(v) for k, v in r.duals.items() if k in ("beta", "lam", "alpha")})
        _write_npz_atomically(args.out, arrays)
        summary["out"] = args.out
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"{summary['formulation']} / {summary['solver']}: {summary['status']} "
              f"({summary['point']}), objective {summary['objective']}, "
              f"{r.solve_time_s:.3f}s, {r.iterations} iterations"
              + (f"\n  {r.message}" if r.message else ""))
    return 0 if r.ok else 1


def cmd_verify(args) -> int:
    f = build_problem(args)
    names = [s.strip() for s in args.solvers.split(",") if s.strip()]
    if not names:
        raise KernelSDPError("--solvers needs at least one solver name.")
    for name in names:
        s = _checked_solver(f, name)
        reason = s.supports(f)
        if reason is not None:
            raise KernelSDPError(f"solver {name!r} cannot solve this problem: {reason}.")
    rep = verify(f, names)
    rep.problem["formulation"] = args.formulation
    if args.json:
        print(json.dumps(_clean(rep.to_dict()), indent=2))
        return 0 if rep.passed else 1
    print("problem: " + ", ".join(f"{k}={v}" for k, v in rep.problem.items()))
    for c in rep.checks:
        print_check(c)
    for c in rep.comparisons:
        print(f"  {c.relation}: {c.a} vs {c.b}: separation {c.separation:.2e}, objectives differ "
              f"by {c.relative_difference:.2e} (tol {c.tol:.0e}) {'ok' if c.passed else 'FAIL'}")
    print("verify: " + ("PASSED" if rep.passed else "FAILED"))
    return 0 if rep.passed else 1


def _certify_row(name: str, c) -> dict:
    return {"solver": c.solver, "status": c.status, "objective": c.objective,
            "dimacs": c.dimacs, "lower": c.lower, "upper": c.upper, "rigorous": c.rigorous,
            "passed": c.passed, "failed": c.failed, "solve_time_s": c.solve_time_s,
            "certify_time_s": c.certify_time_s, "kind": c.kind, "note": c.note}


def _print_certify_row(name: str, c) -> None:
    errs = " ".join(f"{c.dimacs[k]:8.1e}" for k in sorted(c.dimacs)) if c.dimacs else \
        " ".join(["       -"] * 6)
    obj = f"{c.objective:.8g}" if c.objective is not None else "-"
    lo = "-" if c.lower is None else f"{c.lower:.8g}"
    up = "-" if c.upper is None else f"{c.upper:.8g}"
    print(f"{name[:22]:<22} {c.solver:<9} {c.status:<15} {obj:>15} {errs} "
          f"[{lo}, {up}]{'' if c.rigorous else '~'}  {c.solve_time_s:7.2f}s  {c.verdict}",
          flush=True)


def cmd_certify(args) -> int:
    from .verify.files import load_problem, problem_paths
    names = [x.strip() for x in args.solvers.split(",") if x.strip()]
    if not names:
        raise KernelSDPError("--solvers needs at least one solver name.")
    check_positive(args.tol, "tol", "certify")
    if args.time_limit is not None:
        check_positive(args.time_limit, "time_limit", "certify")
    for name in names:
        _checked_solver(CvxpyProblem(cp.Problem(cp.Minimize(0))), name)
    options = {n: {"time_limit": args.time_limit} for n in names} if args.time_limit else {}
    paths = problem_paths(args.path)
    reports, unreadable = [], 0
    if not args.json:
        print(f"{'problem':<22} {'solver':<9} {'status':<15} {'objective':>15} "
              + " ".join(f"{'err' + str(k):>8}" for k in range(1, 7))
              + "  interval (~ estimate)  time  verdict", flush=True)
    for path in paths:
        try:
            pf = load_problem(path)
            rep = verify(pf.problem, names, tol_=args.tol, **options)
        except KernelSDPError as exc:
            if len(paths) == 1:
                raise
            unreadable += 1
            sys.stderr.write(f"kernelsdp: error: {exc}\n")
            continue
        rep.problem.update(name=pf.name, path=path)
        reports.append(rep)
        if not args.json:
            for c in rep.checks:
                _print_certify_row(pf.name, c)
            for c in rep.comparisons:
                if not c.passed:
                    print(f"  {c.relation}: {c.a} vs {c.b} FAIL (separation {c.separation:.1e})")
    passed = all(r.passed for r in reports)
    out = [{"problem": r.problem, "passed": r.passed,
            "solvers": [_certify_row(r.problem["name"], c) for c in r.checks]} for r in reports]
    if args.json:
        print(json.dumps(_clean(out[0] if len(paths) == 1 else out), indent=2))
    else:
        _print_certify_summary(reports, names, args.tol)
    if unreadable:
        return 2
    return 0 if passed else 1


def _print_certify_summary(reports, names, tol: float) -> None:
    print(f"summary at tol {tol:g}: {len(reports)} problem(s)")
    for name in names:
        rows = [c for r in reports for c in r.checks if c.solver == name]
        claimed = [c for c in rows if c.status in ("optimal", "almost_optimal")]
        wrong = [c for c in claimed if not c.passed]
        print(f"  {name:<9} {len(rows)} answers, {sum(c.passed for c in rows)} certified; "
              f"{len(claimed)} called optimal, {len(wrong)} of them failed the certificate"
              + (": " + ", ".join(sorted({r.problem["name"] for r in reports for c in r.checks
                                          if c in wrong})) if wrong else ""))


def _interval(lower, upper, rigorous: bool) -> str:
    fmt = lambda v: "-" if v is None else f"{v:.10g}"  # noqa: E731
    return f"[{fmt(lower)}, {fmt(upper)}] {'rigorous' if rigorous else 'estimate'}"


def print_check(c) -> None:
    """One solver's row of a report: status, objective, certified interval, verdict."""
    obj = f"{c.objective:.10g}" if c.objective is not None else "-"
    print(f"{c.solver:<14} {c.status:<16} objective {obj:<18} {c.solve_time_s:9.3f}s  "
          f"{c.verdict}  (tol {c.kkt_tol:.0e})")
    print(f"    interval {_interval(c.lower, c.upper, c.rigorous)}"
          + (f"  ({c.note})" if c.note else ""))
    shown = [f"{k} {v:.2e}" for k, v in c.residuals.items() if isinstance(v, float)]
    if shown:
        print("    " + "  ".join(shown))


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
            "certify": cmd_certify, "reproduce": cmd_reproduce}


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except KernelSDPError as exc:
        sys.stderr.write(f"kernelsdp: error: {exc}\n")
        return 2
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        sys.stderr.write(f"kernelsdp: error: {exc.strerror}: {exc.filename}\n")
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
