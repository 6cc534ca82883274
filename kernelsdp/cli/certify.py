"""``kernelsdp certify FILE|FOLDER``: solve SDPA files and ``.py`` problems with each solver and
print every answer's certificate (DIMACS err1–err6, interval, verdict), with a summary of
how many "optimal" answers failed.  A folder runs through the project's runner
(:func:`kernelsdp.runs.run_units`): each file's answers are kept in the results store the
moment they are certified, and a re-run certifies only the files not done yet (``--fresh``:
all of them again).  ``--solution SOL`` certifies a solution file of CSDP (``.sol``) or
SDPA (its output file) for one ``.dat-s`` file instead, without solving."""

from __future__ import annotations

import json
import os
import sys

from ..errors import KernelSDPError, SolverUnavailableError, UnknownNameError
from ..solvers import generic_solvers
from ..solvers.external_sdp import certify_solution_file, external_solvers
from ..validation import check_positive
from ..verify.files import certify_file, certify_unit, check_row, problem_paths
from .output import clean

#: the study under which `kernelsdp certify FOLDER` keeps its answers
STUDY = "certify"


def _print_certify_row(name: str, c: dict) -> None:
    """One answer: DIMACS err1–err6, then the interval's ends to 12 digits with their labels
    (P: proof, E: estimate, ~: probable), the time and the verdict."""
    from ..verify.printing import end_text

    errs = (
        " ".join(f"{c['dimacs'][k]:8.1e}" for k in sorted(c["dimacs"]))
        if c["dimacs"]
        else " ".join(["       -"] * 6)
    )
    obj = f"{c['objective']:.12g}" if c["objective"] is not None else "-"
    lo = end_text(c["lower"], c.get("lower_label", ""))
    up = end_text(c["upper"], c.get("upper_label", ""))
    print(
        f"{name[:22]:<22} {c['solver']:<9} {c['status']:<15} {obj:>20} {errs} "
        f"[{lo}, {up}]  {c['solve_time_s']:7.2f}s  {c['verdict']}",
        flush=True,
    )
    for side in ("lower", "upper"):
        if c.get(f"{side}_why"):
            print(f"{'':<22}   {side} end not a proof: {c[f'{side}_why']}", flush=True)


def cmd_certify(args) -> int:
    if getattr(args, "solution", None) is not None:
        return _certify_solution(args)
    if args.solvers is None:  # the most preferred generic solver that can run here
        names = [next(s.name for s in generic_solvers() if s.availability()[0])]
    else:
        names = [x.strip() for x in args.solvers.split(",") if x.strip()]
    if not names:
        raise KernelSDPError("--solvers needs at least one solver name.")
    check_positive(args.tol, "tol", "certify")
    if args.time_limit is not None:
        check_positive(args.time_limit, "time_limit", "certify")
    generic = {s.name: s for s in [*generic_solvers(), *external_solvers()]}
    for name in names:
        if name not in generic:
            raise UnknownNameError(
                f"unknown solver {name!r} for certify; choose one of {', '.join(generic)}."
            )
        ok, reason = generic[name].availability()
        if not ok:
            raise SolverUnavailableError(f"solver {name!r} is unavailable: {reason}")
    paths = problem_paths(args.path, getattr(args, "allow_python", False))
    units = [certify_unit(p, names, args.tol, args.time_limit) for p in paths]
    if os.path.isdir(args.path):
        from ..runs import ResultsStore, run_units

        fresh = getattr(args, "fresh", False)  # --fresh also sets an invalid store aside
        records = run_units(
            STUDY,
            units,
            certify_file,
            store=ResultsStore(replace_invalid=fresh),
            n_jobs=getattr(args, "jobs", 1) or 1,
            desc=f"certify {args.path}",
            fresh=fresh,
        ).records
    else:
        records = [{**units[0], **certify_file(units[0])}]
        if "error" in records[0]:
            raise KernelSDPError(records[0]["error"])
    if not args.json:
        print(
            f"{'problem':<22} {'solver':<9} {'status':<15} {'objective':>15} "
            + " ".join(f"{'err' + str(k):>8}" for k in range(1, 7))
            + "  interval (~ estimate)  time  verdict",
            flush=True,
        )
    reports, unreadable = [], 0
    for r in records:
        if "error" in r:
            unreadable += 1
            sys.stderr.write(f"kernelsdp: error: {r['error']}\n")
            continue
        reports.append(r)
        if not args.json:
            for c in r["solvers"]:
                _print_certify_row(r["problem"]["name"], c)
            for c in r["comparisons"]:
                if not c["passed"]:
                    print(
                        f"  {c['relation']}: {c['a']} vs {c['b']} FAIL (separation "
                        f"{c['separation']:.1e})"
                    )
    passed = all(r["passed"] for r in reports)
    out = [
        {"problem": r["problem"], "passed": r["passed"], "solvers": r["solvers"]} for r in reports
    ]
    if args.json:
        print(json.dumps(clean(out[0] if len(paths) == 1 and out else out), indent=2))
    else:
        _print_certify_summary(reports, names, args.tol)
    if unreadable:
        return 2
    return 0 if passed else 1


def _certify_solution(args) -> int:
    """``--solution``: one SDPA-format solver's solution file for one ``.dat-s``, certified
    from the file alone (:func:`kernelsdp.solvers.external_sdp.certify_solution_file`)."""
    from ..verify.report import SolverCheck

    if args.solvers is not None:
        raise KernelSDPError("--solution certifies the file without solving: leave out --solvers.")
    if not (os.path.isfile(args.path) and args.path.endswith(".dat-s")):
        raise KernelSDPError(f"{args.path}: --solution takes the .dat-s file the solution is of.")
    check_positive(args.tol, "tol", "certify")
    result, cert, seconds = certify_solution_file(
        args.path, args.solution, args.solution_format, args.tol
    )
    row = check_row(SolverCheck.of(result, cert, seconds))
    name = os.path.basename(args.path)
    if args.json:
        print(
            json.dumps(
                clean(
                    {
                        "problem": {"name": name, "path": args.path, "solution": args.solution},
                        "passed": row["passed"],
                        "solvers": [row],
                    }
                ),
                indent=2,
            )
        )
        return 0 if row["passed"] else 1
    print(
        f"{'problem':<22} {'solver':<9} {'status':<15} {'objective':>15} "
        + " ".join(f"{'err' + str(k):>8}" for k in range(1, 7))
        + "  interval (~ estimate)  time  verdict",
        flush=True,
    )
    _print_certify_row(name, row)
    if cert.note:
        print(f"  {cert.note}")
    return 0 if row["passed"] else 1


def _print_certify_summary(reports: list[dict], names, tol: float) -> None:
    """Per solver: answers, how many certified (both ends proven, width within tol), and the
    answers counted by what the solver claimed — optimal and optimal_inaccurate apart."""
    print(f"summary at tol {tol:g}: {len(reports)} problem(s)")
    for name in names:
        rows = [(r, c) for r in reports for c in r["solvers"] if c["solver"] == name]
        proven = sum(c.get("lower_label") == c.get("upper_label") == "proof" for _, c in rows)
        parts = [
            f"  {name:<9} {len(rows)} answers, {sum(c['passed'] for _, c in rows)} "
            f"certified, both ends proven on {proven}"
        ]
        for claim in ("optimal", "optimal_inaccurate"):
            claimed = [(r, c) for r, c in rows if c["claimed"] == claim]
            wrong = sorted({r["problem"]["name"] for r, c in claimed if not c["passed"]})
            parts.append(
                f"{len(claimed)} called {claim}, {len(wrong)} of them not certified"
                + (": " + ", ".join(wrong) if wrong else "")
            )
        print("; ".join(parts))
