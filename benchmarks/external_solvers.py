"""CSDP's and SDPA's own solution files, certified from the files alone (issue #26 §3).

For every ``.dat-s`` in a folder (SDPLIB 1.2: https://github.com/vsdp/SDPLIB, ``data/``, not
bundled), each program is run on the file as it is — ``csdp FILE OUT.sol``, ``sdpa -ds FILE
-o OUT -p PARAMS`` (SDPA's default parameters, printing ``%+.17e`` instead of its four-digit
default) — and its solution file is then read, mapped onto the canonical form of the file's
CVXPY model and certified, without a re-solve
(:func:`kernelsdp.solvers.external_sdp.certify_solution_file`, what ``kernelsdp certify
FILE --solution OUT`` does).  The claim checked is the program's own: CSDP's exit code,
SDPA's ``phase.value``.

One row per file and program: the claim, the verdict, both ends of the interval with their
labels (proof / estimate), the relative width, the program's time and the certificate's.
The summary counts, per program, the files whose point and multipliers fit the problem
(feasibility, stationarity, dual cones and gap within tol: a wrong sign in the mapping
shows there), the certified ones, and those with both ends proven.  The certificate never
re-solves (``resolve=False``): an end stopped by the point's cone boundary stays unproven.

    python benchmarks/external_solvers.py ~/SDPLIB/data            # sides up to 250
    python benchmarks/external_solvers.py DIR --max-side 500 --time-limit 600
    python benchmarks/external_solvers.py --quick                   # two small files, seconds
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import cvxpy as cp
import networkx as nx
import numpy as np

from kernelsdp.data import sdp_instances as S
from kernelsdp.data.sdpa import parse_sdpa, read_sdpa, write_sdpa
from kernelsdp.data.sdpa_solution import CSDP_STATUS
from kernelsdp.errors import KernelSDPError
from kernelsdp.solvers.external_sdp import SDPA_PARAMS, certify_solution_file
from kernelsdp.tolerances import CERTIFY_TOL

#: the measures that say the point and multipliers fit the file's problem (a wrong mapping
#: fails stationarity, the dual cones or the gap; the interval's proofs are the certificate's)
FIT = ("primal_equalities", "primal_cones", "stationarity", "dual_cones", "duality_gap")


def run_program(
    program: str, path: str, folder: str, limit: float
) -> tuple[str, int | None, float]:
    """(solution file, CSDP's exit code, seconds) of one run on the file as it is; the
    solution file is absent when the run was killed at ``limit``."""
    base = os.path.join(folder, os.path.basename(path))
    if program == "csdp":
        out, argv = base + ".sol", ["csdp", path, base + ".sol"]
    else:
        params = os.path.join(folder, "param.sdpa")
        with open(params, "w") as fh:
            fh.write(SDPA_PARAMS.format(max_iter=100, tol=1e-7))
        out, argv = base + ".out", ["sdpa", "-ds", path, "-o", base + ".out", "-p", params]
    t0 = time.perf_counter()
    try:
        done = subprocess.run(
            argv, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=limit
        )
        code = done.returncode
    except subprocess.TimeoutExpired:
        code = None
        if os.path.exists(out):
            os.remove(out)
    return out, code, time.perf_counter() - t0


def certify_row(
    program: str, path: str, out: str, code: int | None, seconds: float, tol: float
) -> dict:
    row = {"file": os.path.basename(path), "solver": program, "run_s": seconds}
    if code is None or not os.path.exists(out):
        return {
            **row,
            "claim": "killed" if code is None else f"exit {code}, no file",
            "verdict": "no solution file",
        }
    claim = CSDP_STATUS.get(code, cp.SOLVER_ERROR) if program == "csdp" else None
    try:
        result, cert, cert_s = certify_solution_file(path, out, program, tol, claim)
    except KernelSDPError as exc:
        return {**row, "claim": "?", "verdict": f"unreadable: {exc}"}
    m = cert.measures
    fits = (
        cert.passed if cert.kind != "optimality" else all(abs(m.get(k, np.inf)) <= tol for k in FIT)
    )
    return {
        **row,
        "claim": result.info["cvxpy_status"] if program == "sdpa" else f"{code}:{claim}",
        "verdict": cert.verdict,
        "kind": cert.kind,
        "lower": cert.lower,
        "upper": cert.upper,
        "lower_label": cert.lower_label,
        "upper_label": cert.upper_label,
        "width": cert.width,
        "cert_s": cert_s,
        "passed": cert.passed,
        "rigorous": cert.rigorous,
        "measures_ok": fits,
        "failed": cert.failed,
    }


def _end(v, label) -> str:
    return "-" if v is None else f"{v:.12g} ({label})"


def print_row(r: dict) -> None:
    if "kind" not in r:
        print(f"{r['file']:<16} {r['solver']:<5} {r['claim']:<22} {r['verdict']}", flush=True)
        return
    ends = (
        f"{_end(r['lower'], r['lower_label']):>32} {_end(r['upper'], r['upper_label']):>32}"
        if r["kind"] == "optimality"
        else f"{'':>32} {'':>32}"
    )
    print(
        f"{r['file']:<16} {r['solver']:<5} {r['claim']:<22} {ends} {r['width']:9.1e} "
        f"{r['run_s']:7.2f}s {r['cert_s']:6.2f}s  {r['verdict']}",
        flush=True,
    )


def summary(rows: list[dict], programs: list[str]) -> None:
    print("summary")
    for p in programs:
        mine = [r for r in rows if r["solver"] == p]
        read = [r for r in mine if "kind" in r]
        ok = [r for r in read if r["measures_ok"]]
        print(
            f"  {p:<5} {len(mine)} files, {len(read)} solution files read; point and "
            f"multipliers fit the problem on {len(ok)}; certified "
            f"{sum(r['passed'] for r in read)}; both ends proven on "
            f"{sum(r['rigorous'] for r in read)} of {len(read)}"
        )
        bad = [r["file"] for r in read if not r["measures_ok"]]
        if bad:
            print("        not fitting: " + "; ".join(bad))
    read = [r for r in rows if "kind" in r]
    print(
        f"certified from the files alone: {sum(r['passed'] for r in read)} of {len(read)} "
        f"solution files; point and multipliers fit the problem on "
        f"{sum(r['measures_ok'] for r in read)}"
    )


def largest_side(path: str) -> int:
    """The largest block side of a file (0 when kernelsdp cannot read it: said, skipped)."""
    try:
        return max(abs(n) for n in read_sdpa(path).blocks)
    except KernelSDPError as exc:
        print(f"skipped: {exc}")
        return 0


def quick_folder(folder: str) -> str:
    with open(os.path.join(folder, "lp-block.dat-s"), "w") as fh:
        fh.write(write_sdpa(parse_sdpa(S.LP_BLOCK_SDPA, "lp-block")))
    with open(os.path.join(folder, "theta-C9.dat-s"), "w") as fh:
        fh.write(write_sdpa(S.theta_sdpa(nx.cycle_graph(9))))
    return folder


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("folder", nargs="?", help="a folder of .dat-s files (SDPLIB's data/)")
    ap.add_argument("--solvers", default="csdp,sdpa")
    ap.add_argument("--max-side", type=int, default=250, help="skip files with a larger block")
    ap.add_argument("--time-limit", type=float, default=300.0, help="seconds per run")
    ap.add_argument("--tol", type=float, default=CERTIFY_TOL)
    ap.add_argument("--quick", action="store_true", help="two small generated files")
    args = ap.parse_args(argv)
    programs = [p for p in args.solvers.split(",") if p]
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        print(f"not installed: {', '.join(missing)} (apt-get install coinor-csdp sdpa)")
        programs = [p for p in programs if p not in missing]
    with tempfile.TemporaryDirectory() as work:
        folder = quick_folder(work) if args.quick else args.folder
        if folder is None:
            ap.error("give a folder of .dat-s files, or --quick")
        files = sorted(
            (os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".dat-s")),
            key=os.path.getsize,
        )
        sides = {f: largest_side(f) for f in files}
        chosen = [f for f in files if 0 < sides[f] <= args.max_side]
        print(
            f"{len(chosen)} of {len(files)} files have blocks up to side {args.max_side}; "
            f"tol {args.tol:g}; {', '.join(programs)}"
        )
        print(
            f"{'file':<16} {'prog':<5} {'claim':<22} {'lower (label)':>32} "
            f"{'upper (label)':>32} {'width':>9} {'run':>8} {'cert':>7}  verdict"
        )
        rows = []
        for path in chosen:
            for p in programs:
                with tempfile.TemporaryDirectory(dir=work) as d:
                    out, code, secs = run_program(p, os.path.abspath(path), d, args.time_limit)
                    rows.append(certify_row(p, path, out, code, secs, args.tol))
                print_row(rows[-1])
        summary(rows, programs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
