"""``kernelsdp relax FILE``: bound a QCQP by relaxations, each solved by each named solver;
print every relaxation's proven bound, its time, the best recovered point's value and the
gap between them (``--json``: the same as records).

FILE is a QCQP ``.npz`` (keys in ``--help``) or a box QP in the text format "n, then c,
then Q" (½xᵀQx + cᵀx over [0, 1]ⁿ; the published Vandenbussche–Nemhauser instances are
maximisations: ``--maximize``).  Every relaxation is built before the first solve, so a
relaxation that does not apply (or whose model would be unbounded) is one error line and
exit 2 before any work.  Exit 0 when every solve returned a point, 1 otherwise.

Heavy modules (CVXPY, the solvers) are imported by :func:`cmd_relax` only.
"""

from __future__ import annotations

import argparse
import json
import sys


def _epilog() -> str:
    from ..relaxations.files import NPZ_KEYS

    keys = "\n".join(f"  {k}: {v}" for k, v in NPZ_KEYS.items())
    return (
        "keys of FILE.npz:\n" + keys + "\nany other FILE: the box-QP text format, n, then "
        "the n entries of c, then the n×n entries of Q (½xᵀQx + cᵀx over 0 <= x <= 1)"
    )


def add_parser(sub, keys: bool = True) -> None:
    """The ``relax`` subcommand; ``keys``: list the .npz keys in its help (this imports the
    relaxations package, hence CVXPY: only when the command line names ``relax``)."""
    p = sub.add_parser(
        "relax",
        help="bound a QCQP by relaxations: proven bounds, recovered points",
        description="Relax a QCQP with each named relaxation, solve each with each "
        "solver, certify the bound and recover points of the QCQP.",
        epilog=_epilog() if keys else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", metavar="FILE", help="a QCQP .npz, or a box QP in the text format")
    p.add_argument(
        "--relaxation",
        default="shor+rlt",
        metavar="A,B",
        help="comma-separated: shor, rlt, shor+rlt, dnn, sdp1, moment2 (default shor+rlt)",
    )
    p.add_argument(
        "--maximize",
        action="store_true",
        help="a maximisation (a .npz file may say so itself, key 'maximize')",
    )
    p.add_argument(
        "--solvers",
        default="clarabel",
        metavar="A,B",
        help="comma-separated generic solvers (default clarabel)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--draws", type=int, default=64, help="random roundings per relaxation")
    p.add_argument("--seed", type=int, default=0, help="seed of the random roundings")
    p.add_argument("--no-polish", action="store_true", help="skip the local polish (SLSQP)")
    p.add_argument(
        "--allow-unbounded",
        action="store_true",
        help="build a relaxation even if its model may be unbounded",
    )
    p.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="S",
        help="wall-clock limit per solve, in seconds",
    )


def _names(text: str, what: str) -> list[str]:
    from ..errors import KernelSDPError

    names = [s.strip() for s in text.split(",") if s.strip()]
    if not names:
        raise KernelSDPError(f"--{what} needs at least one name.")
    return names


def _check_options(args, solvers: list[str]) -> None:
    from ..errors import SolverUnavailableError, UnknownNameError
    from ..solvers import generic_solvers
    from ..validation import check_int, check_positive

    check_int(args.draws, "draws", "relax", low=0)
    if args.time_limit is not None:
        check_positive(args.time_limit, "time_limit", "relax")
    generic = {s.name: s for s in generic_solvers()}
    for name in solvers:
        if name not in generic:
            raise UnknownNameError(
                f"unknown solver {name!r} for relax; choose one of {', '.join(generic)}."
            )
        ok, reason = generic[name].availability()
        if not ok:
            raise SolverUnavailableError(f"solver {name!r} is unavailable: {reason}")


def _row(rel, rec) -> dict:
    rep = rec.report
    return {
        "relaxation": rel.name,
        "solver": rel.solver,
        "status": rel.solved.status,
        "proven_bound": rel.bound,
        "relaxed_value": rel.value,
        "solve_time_s": rel.solved.solve_time_s,
        "time_s": rel.solved.time_s,
        "recovered_value": rep.recovered_value,
        "violation": rep.violation,
        "gap": rep.gap,
        "relative_gap": rep.relative_gap,
        "attained": rep.attained,
        "rank": rep.rank,
        "rounding": rep.rounding,
        "verdict": rel.certificate.verdict,
        "a_priori": rel.a_priori,
        "x": rep.x,
    }


def _num(v, fmt: str) -> str:
    return "-" if v is None else format(v, fmt)


def _print_table(q, rows: list[dict]) -> None:
    print("QCQP: " + ", ".join(f"{k}={v}" for k, v in q.describe().items()))
    print(
        f"{'relaxation':<11} {'solver':<9} {'status':<15} {'proven bound':>16} {'time s':>8} "
        f"{'recovered':>16} {'gap':>10} {'rel.gap':>9} {'rank':>5}"
    )
    for r in rows:
        print(
            f"{r['relaxation']:<11} {r['solver']:<9} {r['status']:<15} "
            f"{_num(r['proven_bound'], '.10g'):>16} {r['time_s']:>8.2f} "
            f"{_num(r['recovered_value'], '.10g'):>16} {_num(r['gap'], '.3g'):>10} "
            f"{_num(r['relative_gap'], '.2e'):>9} {_num(r['rank'], 'd'):>5}"
        )
    print(
        "proven bound: the certificate's dual-side end ('-': not proven; the relaxed value "
        "is in --json); gap: recovered point to bound"
    )


def cmd_relax(args) -> int:
    from ..relaxations import read_qcqp, relax
    from .output import clean

    names, solvers = _names(args.relaxation, "relaxation"), _names(args.solvers, "solvers")
    _check_options(args, solvers)
    q = read_qcqp(args.path, maximize=True if args.maximize else None)
    models = [
        (n, s, relax(q, n, allow_unbounded=args.allow_unbounded)) for n in names for s in solvers
    ]  # every refusal before the first solve
    opts = {} if args.time_limit is None else {"time_limit": args.time_limit}
    rows = []
    for _, solver, rel in models:
        rel.solve(solver, **opts)
        rec = rel.recover(draws=args.draws, seed=args.seed, polish=not args.no_polish)
        rows.append(_row(rel, rec))
    if args.json:
        print(json.dumps(clean({"problem": q.describe(), "relaxations": rows}), indent=2))
    else:
        _print_table(q, rows)
    sys.stdout.flush()
    return 0 if all(r["recovered_value"] is not None for r in rows) else 1
