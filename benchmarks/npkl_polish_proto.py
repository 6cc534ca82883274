"""Issue #30's next method, measured side by side: the low-rank augmented Lagrangian
polished by primal–dual active-set Newton steps from its first check at an estimated gap
``--switch`` (1e-2) on (:mod:`kernelsdp.solvers.alm_polish`; ``low-rank-alm`` with
``polish_at``), beside ADMM and the plain ``low-rank-alm``, on ``npkl_scale.py``'s
instance (two Gaussians, mutual 5-NN graph, m = 1.2n, hinge, C = 1, tr K ≤ n).

Each (n, method) runs in its own child process, one after the other; each solve ends at the
certified gap ``--gap`` (1e-3).  The polished points are certified exactly as the solver
certifies its own (:func:`kernelsdp.solvers.alm_certificate.interval`: the upper end a
proof, the lower end ``proof`` by the verified λ_min up to n = 4,000, else the randomised
Lanczos bound, ``probable``), after each Newton step whose active sets have settled, and
that time is counted.
Printed per row: status, iterations (ALM gradient steps; ADMM iterations; for the polish
the ALM's steps + Newton steps/MINRES iterations), sparse n×s products (the ALM's units:
one with L, one with the pairs; a MINRES iteration counts three), time, the certified gap
and its lower end's label, rank; then the polish's gap after each Newton step.  The machine
is shared: compare ratios within one run.

    python benchmarks/npkl_polish_proto.py                     # n = 3,000 and 20,000
    python benchmarks/npkl_polish_proto.py --sizes 3000 --gap 1e-4
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from npkl_scale import FROM_ZERO, instance

from kernelsdp.solvers import solve

METHODS = ("admm", "low-rank-alm", "alm+newton")


def plain_row(method: str, n: int, gap: float, limit: float, **options) -> dict:
    """One plain solver's row (``options``: more of its options, e.g. low-rank-alm's seed)."""
    f = instance(n)
    t = time.perf_counter()
    r = solve(f, method, gap_tol=gap, time_limit=limit, **options)
    dt = time.perf_counter() - t
    own = r.info.get("certificate")
    alm = method == "low-rank-alm"
    return {
        "status": r.termination.value,
        "iterations": str(r.iterations),
        "products": r.info["products"] if alm else 2 * r.iterations,
        "eigsolves": r.info["checks"] if alm else r.info.get("eigensolves", "-"),
        "solve_s": dt,
        "gap": float(r.info.get("relative_gap", float("nan"))),
        "label": "-" if own is None else own.lower_label,  # ADMM keeps no labelled interval
        "rank": r.kernel.rank,
        "steps": [],
    }


def alm_row(r, dt: float) -> dict:
    """The columns every ``low-rank-alm`` row shares (its Result and solve time), for the
    #30 prototypes that run the solver with a part replaced."""
    return {
        "status": r.termination.value,
        "iterations": str(r.iterations),
        "products": r.info["products"],
        "eigsolves": r.info["checks"],
        "solve_s": dt,
        "gap": float(r.info["relative_gap"]),
        "label": r.info["certificate"].lower_label,
        "rank": r.kernel.rank,
    }


def installed_row(install, method: str, n: int, args) -> dict:
    """One ``low-rank-alm`` row with ``install(method, log)``'s piece in place (the #30
    prototypes' variants, in a child process): the row of :func:`alm_row` and the log."""
    log: dict = {}
    install(method, log)
    f = instance(n)
    t = time.perf_counter()
    r = solve(
        f, "low-rank-alm", gap_tol=args.gap, time_limit=args.time_limit, seed=args.seed, **FROM_ZERO
    )
    return {**alm_row(r, time.perf_counter() - t), "log": log}


def _polished(n: int, gap: float, switch: float, limit: float) -> dict:
    """``low-rank-alm`` with ``polish_at=switch``: the Newton steps from the first check at
    an estimated gap ≤ switch, certified once their active sets settle."""
    f = instance(n)
    t = time.perf_counter()
    r = solve(f, "low-rank-alm", gap_tol=gap, time_limit=limit, polish_at=switch, **FROM_ZERO)
    dt = time.perf_counter() - t
    newton = [h for h in r.history if "newton_step" in h]
    first = newton[0]["time_s"] if newton else float("nan")
    checks = [h for h in r.history if "check" in h and h["time_s"] <= first]
    return {
        "status": r.termination.value,
        "iterations": f"{r.iterations}+{r.info['newton_steps']}/{r.info['krylov_iterations']}",
        "products": r.info["products"],
        "solve_s": dt,
        "alm_s": checks[-1]["time_s"] if checks else float("nan"),
        "gap": float(r.info["relative_gap"]),
        "label": r.info["certificate"].lower_label,
        "rank": r.kernel.rank,
        "steps": [
            (
                h["time_s"],
                h.get("certified_gap", float("nan")),
                h.get("lower_label", "-"),
                h["krylov"],
                h["moves"],
            )
            for h in newton
        ],
    }


def run_child(script: str, method: str, n: int, options: list[str]) -> dict:
    """One row, measured in a fresh process (``script --child METHOD N`` + ``options``):
    each method starts from the same cold state; {"failed": ...} when the child fails."""
    cmd = [sys.executable, os.path.abspath(script), "--child", method, str(n), *options]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=False)
    if out.returncode != 0 or not out.stdout.strip():
        return {"failed": f"exit code {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def _child(method: str, n: int, args) -> dict:
    options = ["--gap", str(args.gap), "--switch", str(args.switch)]
    return run_child(__file__, method, n, options + ["--time-limit", str(args.time_limit)])


def seeds_arguments(doc: str, methods: tuple) -> argparse.ArgumentParser:
    """:func:`side_by_side_arguments` with ``--quick`` (n = 3,000 only), ``--seeds`` and
    the child's hidden ``--seed``: the options of the prototypes run over seeds."""
    ap = side_by_side_arguments(doc, methods, [3000, 20000])
    ap.add_argument("--quick", action="store_true", help="n = 3,000 only")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0], help="the solver's seeds")
    ap.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    return ap


def checked_methods(ap: argparse.ArgumentParser, args, methods: tuple) -> list[str]:
    """``--methods`` as a list, each one of ``methods`` (else argparse's one-line error)."""
    chosen = args.methods.split(",")
    for m in chosen:
        if m not in methods:
            ap.error(f"unknown method {m!r}: one of {', '.join(methods)}")
    return chosen


def answer_child(args, variant_row) -> None:
    """The child's row on stdout: ``low-rank-alm`` as it ships, else ``variant_row``."""
    method, n = args.child[0], int(args.child[1])
    if method == "low-rank-alm":
        row = plain_row(method, n, args.gap, args.time_limit, seed=args.seed)
    else:
        row = variant_row(method, n, args)
    print(json.dumps(row))


def run_over_seeds(script: str, args, methods: list[str], variant_row) -> None:
    """A seed prototype's run: the child's row (``--child``), else the parent's loop over
    sizes (``--quick``: 3,000 only), seeds and methods."""
    if args.child:
        answer_child(args, variant_row)
    else:
        sizes = [3000] if args.quick else args.sizes
        side_by_side_over_seeds(script, methods, sizes, args)


def main_with_rounds(doc: str, script: str, methods: tuple, variant_row, rounds) -> int:
    """A seed prototype's ``main`` with ``--rounds N CHECK`` (``rounds(N, CHECK)``: one
    measurement from a captured state) beside :func:`run_over_seeds`."""
    ap = seeds_arguments(doc, methods)
    ap.add_argument("--rounds", type=int, nargs=2, metavar=("N", "CHECK"), help="(see above)")
    args = ap.parse_args()
    chosen = checked_methods(ap, args, methods)
    if args.rounds:
        rounds(*args.rounds)
    else:
        run_over_seeds(script, args, chosen, variant_row)
    return 0


def side_by_side_over_seeds(script: str, methods: list[str], sizes: list[int], args) -> None:
    """The #30 prototypes' parent loop: each (n, seed, method) in its own child
    (:func:`run_child`), one row each, with the variant's log."""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    print(f"{stamp}; gap {args.gap:g}; load {os.getloadavg()}", flush=True)
    print(
        f"{'n':>7} {'seed':>4} {'method':<14} {'status':<8} {'products':>8} {'checks':>6} "
        f"{'solve s':>7} {'gap':>8} {'lower':>9} {'rank':>4}  log",
        flush=True,
    )
    for n in sizes:
        for seed in args.seeds:
            for method in methods:
                opts = ["--gap", str(args.gap), "--time-limit", str(args.time_limit)]
                row = run_child(script, method, n, opts + ["--seed", str(seed)])
                _print_seed_row(n, seed, method, row)


def _print_seed_row(n: int, seed: int, method: str, row: dict) -> None:
    if "failed" in row:
        print(f"{n:>7,} {seed:>4} {method:<14} failed: {row['failed']}", flush=True)
        return
    log = row.get("log", {})
    shown = " ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}" for k, v in log.items())
    print(
        f"{n:>7,} {seed:>4} {method:<14} {row['status']:<8} {row['products']:>8} "
        f"{row['eigsolves']!s:>6} {row['solve_s']:>7.1f} {row['gap']:>8.1e} "
        f"{str(row['label']):>9} {row['rank']:>4}  {shown}",
        flush=True,
    )


def side_by_side_arguments(doc: str, methods: tuple, sizes: list[int]) -> argparse.ArgumentParser:
    """The options both #30 prototypes take (sizes, methods, gap, switch, time limit, and the
    hidden --child METHOD N of :func:`run_child`)."""
    ap = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", type=int, nargs="+", default=sizes)
    ap.add_argument("--methods", default=",".join(methods))
    ap.add_argument("--gap", type=float, default=1e-3, help="certified gap to reach")
    ap.add_argument("--switch", type=float, default=1e-2, help="the ALM's gap at the switch")
    ap.add_argument("--time-limit", type=float, default=600.0)
    ap.add_argument("--child", nargs=2, metavar=("METHOD", "N"), help=argparse.SUPPRESS)
    return ap


def print_speedups(rows: dict, sizes: list[int], methods: list[str]) -> None:
    """Per size, ADMM's time over each method's, from rows of the same run."""
    for n in sizes:
        if "solve_s" not in rows.get((n, "admm"), {}):
            continue
        ratios = [
            f"{m}: {rows[n, 'admm']['solve_s'] / rows[n, m]['solve_s']:.2f}x"
            for m in methods
            if m != "admm" and "solve_s" in rows.get((n, m), {})
        ]
        if ratios:
            print(f"n = {n:,}, faster than ADMM (its time / the method's): " + ", ".join(ratios))


def print_table_header(args, eigs: bool = False) -> None:
    """The prototypes' table head (``eigs``: a column of eigensolves)."""
    print(f"gap {args.gap:g}, switch {args.switch:g}; load {os.getloadavg()}", flush=True)
    print(
        f"{'n':>7} {'method':<13} {'status':<12} {'iterations':>16} {'products':>9} "
        + (f"{'eigs':>5} " if eigs else "")
        + f"{'solve s':>8} {'gap':>8} {'lower':>9} {'rank':>5}",
        flush=True,
    )


def print_table_row(n: int, method: str, row: dict, eigs: bool = False) -> bool:
    """One child's row; False (and a line saying why) when the child failed."""
    if "failed" in row:
        print(f"{n:>7,} {method:<13} failed: {row['failed']}", flush=True)
        return False
    print(
        f"{n:>7,} {method:<13} {row['status']:<12} {row['iterations']:>16} "
        f"{row['products']:>9} "
        + (f"{row['eigsolves']!s:>5} " if eigs else "")
        + f"{row['solve_s']:>8.1f} {row['gap']:>8.1e} {str(row['label']):>9} {row['rank']:>5}",
        flush=True,
    )
    return True


def main() -> int:
    ap = side_by_side_arguments(__doc__, METHODS, [3000, 20000])
    args = ap.parse_args()
    if args.child:
        method, n = args.child[0], int(args.child[1])
        if method == "alm+newton":
            row = _polished(n, args.gap, args.switch, args.time_limit)
        else:
            row = plain_row(method, n, args.gap, args.time_limit)
        print(json.dumps(row))
        return 0
    print_table_header(args)
    rows = {}
    for n in args.sizes:
        for method in args.methods.split(","):
            row = _child(method, n, args)
            rows[n, method] = row
            if not print_table_row(n, method, row):
                continue
            if row["steps"]:
                print(
                    f"        ALM to {args.switch:g}: {row['alm_s']:.1f} s; Newton steps "
                    "(time, gap, label, MINRES, moves): "
                    + "  ".join(
                        f"{s[0]:.1f}s {s[1]:.1e} {s[2]} {s[3]} {s[4]}" for s in row["steps"]
                    ),
                    flush=True,
                )
    print_speedups(rows, args.sizes, args.methods.split(","))
    print(f"load {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
