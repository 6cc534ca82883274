"""``kernelsdp certify FILE|FOLDER``: solve SDPA files and ``.py`` problems with each solver and
print every answer's certificate (DIMACS err1–err6, interval, verdict), with a summary of
how many "optimal" answers failed."""

from __future__ import annotations

import json
import sys

from ..errors import KernelSDPError, SolverUnavailableError, UnknownNameError, check_positive
from ..solvers import generic_solvers
from ..verify import verify
from ..verify.files import load_problem, problem_paths
from .output import clean


def _certify_row(c) -> dict:
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
    if args.solvers is None:  # the most preferred generic solver that can run here
        names = [next(s.name for s in generic_solvers() if s.availability()[0])]
    else:
        names = [x.strip() for x in args.solvers.split(",") if x.strip()]
    if not names:
        raise KernelSDPError("--solvers needs at least one solver name.")
    check_positive(args.tol, "tol", "certify")
    if args.time_limit is not None:
        check_positive(args.time_limit, "time_limit", "certify")
    generic = {s.name: s for s in generic_solvers()}
    for name in names:
        if name not in generic:
            raise UnknownNameError(f"unknown solver {name!r} for certify; choose one of "
                                   f"{', '.join(generic)}.")
        ok, reason = generic[name].availability()
        if not ok:
            raise SolverUnavailableError(f"solver {name!r} is unavailable: {reason}")
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
            "solvers": [_certify_row(c) for c in r.checks]} for r in reports]
    if args.json:
        print(json.dumps(clean(out[0] if len(paths) == 1 else out), indent=2))
    else:
        _print_certify_summary(reports, names, args.tol)
    if unreadable:
        return 2
    return 0 if passed else 1


def _print_certify_summary(reports, names, tol: float) -> None:
    print(f"summary at tol {tol:g}: {len(reports)} problem(s)")
    for name in names:
        rows = [c for r in reports for c in r.checks if c.solver == name]
        claimed = [c for c in rows if c.claimed in ("optimal", "optimal_inaccurate")]
        wrong = [c for c in claimed if not c.passed]
        print(f"  {name:<9} {len(rows)} answers, {sum(c.passed for c in rows)} certified; "
              f"{len(claimed)} called optimal, {len(wrong)} of them failed the certificate"
              + (": " + ", ".join(sorted({r.problem["name"] for r in reports for c in r.checks
                                          if c in wrong})) if wrong else ""))


