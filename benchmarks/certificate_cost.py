"""The certificate layer (issue #11): what a certificate costs beside the solve, and whether
it flags exactly the wrong answers.

Every figure is measured side by side in one run (this machine is shared and noisy: no test
asserts a time).  Each part runs in its own subprocess.

    python benchmarks/certificate_cost.py                  # every part (about 8 minutes)
    python benchmarks/certificate_cost.py --quick          # small sizes, under a minute
    python benchmarks/certificate_cost.py --part generic --sdpa ~/SDPLIB/data

Parts
  sdplib       every .dat-s in --sdpa DIR (SDPLIB 1.2: https://github.com/vsdp/SDPLIB, data/;
               not bundled) with Clarabel under a time limit of SDPLIB_TIME_LIMIT s (quick:
               the files up to SDPLIB_QUICK_SIDE): one row per file — each end of the
               interval with its label (proof / estimate), the width, solve and certify
               times, and whether the interval holds SDPLIB's published optimum (table
               below); summary: "both ends proven on K of N", the median certify / solve
               ratio (bar 0.2; VSDP: about 1.0 lower + 1.3 upper), and the published optima
               outside a proven interval (must be 0).  "solve" is solve_canonical end to
               end, as a user's problem.solve() would run (the least of 3 fresh runs,
               and the least of their certificates, for files solved under 1 s): CVXPY's
               canonicalisation, Clarabel through CVXPY's interface, the unpacking and
               the constraint violations; the median of certify / Clarabel's run alone
               is printed beside it, with each family's medians
  generic      Clarabel and SCS on instances whose PSD side is at least 30 (Lovász theta of
               odd cycles as CVXPY models and as SDPA files, MaxCut on odd cycles and random
               graphs, theta of random graphs, NPKL with hinge loss and trace capacity), plus
               the conformance suite, plus every .dat-s in --sdpa DIR (SDPLIB 1.2 there, not
               bundled), with SCS also at its own default accuracy (eps 1e-4): certificate
               time / Clarabel's solve time (bar 0.2 where the PSD side is >= 30), and, where
               the optimum is known, whether the certificate's verdict matches the truth
               (wrong: |objective − optimum| / (1 + |objective| + |optimum|), the scaling of
               DIMACS's err5 and of the interval's width, above the tolerance)
  npkl-factor  NPKL's factor-form certificate at n = 20,000 (quick: 2,000): an ADMM answer
               (hinge, trace capacity) and a closed-form one (linear loss, Frobenius; the
               instance of simplenpkl_speed.py's huge-ll part), the
               certificate's time beside the one spectral solve it cannot avoid (λ_min of
               M(β) by Lanczos; the positive part of −M(β))
  lambda-min   λ_min near an optimal dual, where it is a cluster of K's rank: ADMM (hinge,
               trace capacity, n = 3,000; quick: 1,000) to a certified gap of 1e-5 with
               λ_min on kernelsdp's Lanczos bases (linalg.extreme.LANCZOS_BASES) and on
               ARPACK's default basis of 20 without retry (what kernelsdp used before):
               iterations and time; then, on the first run's multipliers, each basis from
               seeded random starts: how often ARPACK does not converge (the certificate
               then falls to Gershgorin's bound) and its time per call
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import time
from fractions import Fraction

import networkx as nx
import numpy as np
import parts
from simplenpkl_speed import HUGE_CLUSTERS, gaussian_mixture, large_instance

from kernelsdp import tolerances as tol
from kernelsdp.certificate import conic_certificate, solve_canonical
from kernelsdp.data import PairwiseConstraints, knn_laplacian, load
from kernelsdp.data.graph import GRAPH_REVISION
from kernelsdp.data.sdp_instances import (
    conformance_instances,
    lovasz_theta,
    maxcut_sdp,
    theta_sdpa,
    theta_value,
)
from kernelsdp.errors import KernelSDPError
from kernelsdp.formulations import NPKL
from kernelsdp.formulations.cvxpy_problem import CvxpyProblem
from kernelsdp.linalg.extreme import lowest_eigenvalue
from kernelsdp.linalg.positive_part import positive_eigenpairs
from kernelsdp.solvers import solve
from kernelsdp.verify import certify
from kernelsdp.verify.files import load_problem

SDPA_DIR = None
#: Clarabel and SCS as kernelsdp runs them, and SCS at its own default accuracy (what a user
#: calling problem.solve(solver="SCS") gets): the source of wrong "optimal" answers
SOLVER_RUNS = (("clarabel", {}), ("scs", {}), ("scs", {"tol": 1e-4}))


def _npkl(n: int):
    X, y = load("iris") if n <= 150 else load("wine")
    idx = np.sort(np.random.default_rng(0).choice(len(y), n, replace=False))
    pairs = PairwiseConstraints.from_labels(y[idx], ratio=0.5, seed=1)
    return NPKL(
        L=knn_laplacian(X[idx], 5), pairs=pairs, loss="hinge", capacity="trace", C=1.0, B=float(n)
    )


def _instances(quick: bool):
    cycles = (31, 61) if quick else (31, 61, 101)
    for n in cycles:
        yield f"theta-C{n}", CvxpyProblem(lovasz_theta(nx.cycle_graph(n))), theta_value(n), n
        yield (
            f"theta-C{n}-sdpa",
            CvxpyProblem(theta_sdpa(nx.cycle_graph(n)).to_cvxpy()),
            theta_value(n),
            n,
        )
        yield (
            f"maxcut-C{n}",
            CvxpyProblem(maxcut_sdp(nx.cycle_graph(n))),
            n * (1 + np.cos(np.pi / n)) / 2,
            n,
        )
    for n in (40,) if quick else (40, 80):
        g = nx.gnp_random_graph(n, 0.2, seed=n)
        yield f"maxcut-G({n},0.2)", CvxpyProblem(maxcut_sdp(g)), None, n
        yield f"theta-G({n},0.2)", CvxpyProblem(lovasz_theta(g)), None, n
    for n in (30,) if quick else (30, 50):
        yield f"npkl-hinge-trace-{n}", _npkl(n), None, n
    for inst in conformance_instances():
        yield inst.name, CvxpyProblem(inst.problem), inst.optimum, inst.psd_side
    if SDPA_DIR:
        for f in sorted(os.listdir(SDPA_DIR)):
            if f.endswith(".dat-s"):
                pf = load_problem(os.path.join(SDPA_DIR, f))
                yield f, CvxpyProblem(pf.problem), None, CvxpyProblem(pf.problem).psd_dim


def part_generic(quick: bool) -> dict:
    rows = []
    for name, f, optimum, side in _instances(quick):
        for solver, opts in SOLVER_RUNS:
            r = solve(f, solver, **opts)
            r.solver = solver + ("@1e-4" if opts else "")
            t = time.perf_counter()
            c = certify(f, r, tol.CERTIFY_TOL)
            cert_s = time.perf_counter() - t
            wrong = None
            if optimum is not None and r.objective is not None:  # err5's scaling
                err = abs(r.objective - optimum) / (1 + abs(r.objective) + abs(optimum))
                wrong = bool(err > tol.CERTIFY_TOL)
            rows.append(
                {
                    "name": name,
                    "solver": r.solver,
                    "side": side,
                    "status": r.termination.value,
                    "solve_s": r.solve_time_s,
                    "certify_s": cert_s,
                    "passed": bool(c.passed),
                    "rigorous": bool(c.rigorous),
                    "failed": c.failed,
                    "wrong": wrong,
                }
            )
    return {"rows": rows}


def part_npkl_factor(quick: bool) -> dict:
    n = 2000 if quick else 20000
    X, y = gaussian_mixture(n)
    pairs = PairwiseConstraints.sample(y, int(1.2 * n), seed=0)
    L = knn_laplacian(X, 5)
    out = {"n": n}
    f = NPKL(L=L, pairs=pairs, loss="hinge", capacity="trace", C=1.0, B=float(n))
    r = solve(f, "admm")
    t = time.perf_counter()
    c = certify(f, r)
    out["admm"] = {
        "solve_s": r.solve_time_s,
        "certify_s": time.perf_counter() - t,
        "passed": c.passed,
        "rigorous": c.rigorous,
        "width": c.width,
        "solver_gap": r.info["relative_gap"],
    }
    t = time.perf_counter()
    lowest_eigenvalue(f.dual_matrix(r.duals["beta"]))
    out["admm"]["one_lambda_min_s"] = time.perf_counter() - t
    # the closed form on simplenpkl_speed's huge-ll instance (a 50-NN graph, C = 0.1: a
    # small positive part, as on real data; the 5-NN hinge instance's has thousands)
    g, _ = large_instance(
        n, int(round(16161 * n / 6414)), 50, 0.1, float(n), clusters=HUGE_CLUSTERS
    )
    r = solve(g, "closed-form")
    t = time.perf_counter()
    c = certify(g, r)
    out["closed_form"] = {
        "solve_s": r.solve_time_s,
        "certify_s": time.perf_counter() - t,
        "passed": c.passed,
        "rigorous": c.rigorous,
        "width": c.width,
    }
    t = time.perf_counter()
    positive_eigenpairs((-g.dual_matrix(r.duals["beta"])).tocsr())
    out["closed_form"]["one_positive_part_s"] = time.perf_counter() - t
    return out


#: ARPACK's own default basis, no retry: kernelsdp's λ_min before the wider basis
ARPACK_DEFAULT_BASES = (20,)


def part_lambda_min(quick: bool) -> dict:
    import scipy.sparse.linalg as spla

    from kernelsdp.linalg import extreme

    n, starts = (1000, 5) if quick else (3000, 5)
    X, y = gaussian_mixture(n)
    pairs = PairwiseConstraints.sample(y, int(1.2 * n), seed=0)
    f = NPKL(L=knn_laplacian(X, 5), pairs=pairs, loss="hinge", capacity="trace", C=1.0, B=float(n))
    out, beta = {"n": n, "runs": {}, "calls": {}}, None
    ours = extreme.LANCZOS_BASES
    for label, bases in (("kernelsdp", ours), ("arpack-default", ARPACK_DEFAULT_BASES)):
        extreme.LANCZOS_BASES = bases
        try:
            r = solve(f, "admm", gap_tol=1e-5, tol=1e-6, max_iter=20000)
        finally:
            extreme.LANCZOS_BASES = ours
        c = certify(f, r)  # from scratch, on kernelsdp's bases
        out["runs"][label] = {
            "bases": list(bases),
            "iterations": r.iterations,
            "solve_s": r.solve_time_s,
            "status": r.termination.value,
            "passed": bool(c.passed),
            "width": c.width,
        }
        beta = r.duals["beta"] if beta is None else beta
    M = f.dual_matrix(beta)
    for label, ncv in (("kernelsdp", ours[0]), ("arpack-default", ARPACK_DEFAULT_BASES[0])):
        fails, t = 0, time.perf_counter()
        for s in range(starts):
            v0 = np.random.default_rng(s).standard_normal(n)
            try:
                spla.eigsh(M, k=1, which="SA", tol=extreme.ARPACK_TOL, ncv=ncv, v0=v0)
            except spla.ArpackNoConvergence:
                fails += 1
        out["calls"][label] = {
            "ncv": ncv,
            "starts": starts,
            "failures": fails,
            "per_call_s": (time.perf_counter() - t) / starts,
        }
    return out


#: SDPLIB 1.2's published optimal values as printed in its README (github.com/vsdp/SDPLIB,
#: SDPA's sign convention: SDPA's primal min cᵀx; its "eqaulG11" read as equalG11), kept as
#: strings: a value is known to half a unit in its last printed digit (hinf10's "1.09e+02"
#: is 109 ± 0.5); files whose optimum is "infeasible" are omitted
SDPLIB_OPTIMA = {
    "arch0": "5.66517e-01",
    "arch2": "6.71515e-01",
    "arch4": "9.726274e-01",
    "arch8": "7.05698e+00",
    "control1": "1.778463e+01",
    "control2": "8.300000e+00",
    "control3": "1.363327e+01",
    "control4": "1.979423e+01",
    "control5": "1.68836e+01",
    "control6": "3.73044e+01",
    "control7": "2.06251e+01",
    "control8": "2.0286e+01",
    "control9": "1.46754e+01",
    "control10": "3.8533e+01",
    "control11": "3.1959e+01",
    "equalG51": "4.005601e+03",
    "gpp100": "-4.49435e+01",
    "gpp124-1": "-7.3431e+00",
    "gpp124-2": "-4.68623e+01",
    "gpp124-3": "-1.53014e+02",
    "gpp124-4": "-4.1899e+02",
    "gpp250-1": "-1.5445e+01",
    "gpp250-2": "-8.1869e+01",
    "gpp250-3": "-3.035e+02",
    "gpp250-4": "-7.473e+02",
    "gpp500-1": "-2.53e+01",
    "gpp500-2": "-1.5606e+02",
    "gpp500-3": "-5.1302e+02",
    "gpp500-4": "-1.56702e+03",
    "hinf1": "2.0326e+00",
    "hinf2": "1.0967e+01",
    "hinf3": "5.69e+01",
    "hinf4": "2.74764e+02",
    "hinf5": "3.63e+02",
    "hinf6": "4.490e+02",
    "hinf7": "3.91e+02",
    "hinf8": "1.16e+02",
    "hinf9": "2.3625e+02",
    "hinf10": "1.09e+02",
    "hinf11": "6.59e+01",
    "hinf12": "2e-1",
    "hinf13": "4.6e+01",
    "hinf14": "1.30e+01",
    "hinf15": "2.5e+01",
    "maxG11": "6.291648e+02",
    "maxG32": "1.567640e+03",
    "maxG51": "4.003809e+03",
    "maxG55": "9.999210e+03",
    "maxG60": "1.522227e+04",
    "mcp100": "2.261574e+02",
    "mcp124-1": "1.419905e+02",
    "mcp124-2": "2.698802e+02",
    "mcp124-3": "4.677501e+02",
    "mcp124-4": "8.644119e+02",
    "mcp250-1": "3.172643e+02",
    "mcp250-2": "5.319301e+02",
    "mcp250-3": "9.811726e+02",
    "mcp250-4": "1.681960e+03",
    "mcp500-1": "5.981485e+02",
    "mcp500-2": "1.070057e+03",
    "mcp500-3": "1.847970e+03",
    "mcp500-4": "3.566738e+03",
    "qap5": "-4.360e+02",
    "qap6": "-3.8144e+02",
    "qap7": "-4.25e+02",
    "qap8": "-7.57e+02",
    "qap9": "-1.410e+03",
    "qap10": "-1.093e+01",
    "qpG11": "2.448659e+03",
    "qpG51": "1.181000e+03",
    "ss30": "2.02395e+01",
    "theta1": "2.300000e+01",
    "theta2": "3.287917e+01",
    "theta3": "4.216698e+01",
    "theta4": "5.032122e+01",
    "theta5": "5.723231e+01",
    "theta6": "6.347709e+01",
    "thetaG11": "4.000000e+02",
    "thetaG51": "3.49000e+02",
    "truss1": "-8.999996e+00",
    "truss2": "-1.233804e+02",
    "truss3": "-9.109996e+00",
    "truss4": "-9.009996e+00",
    "truss5": "-1.326357e+02",
    "truss6": "-9.01001e+02",
    "truss7": "-9.00001e+02",
    "truss8": "-1.331146e+02",
    "equalG11": "6.291553e+02",
}
#: Clarabel's time limit per SDPLIB file (s), and the largest PSD side in quick mode
SDPLIB_TIME_LIMIT = 600.0
SDPLIB_QUICK_SIDE = 60


def published_optimum(name: str) -> tuple[float | None, float]:
    """(SDPLIB's published optimum, half a unit in its last printed digit)."""
    text = SDPLIB_OPTIMA.get(name)
    if text is None:
        return None, 0.0
    mantissa, _, exponent = text.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return float(text), 0.5 * 10.0 ** (int(exponent or 0) - decimals)


def exact_psd(M: list[list[Fraction]]) -> bool:
    """Is a rational symmetric matrix PSD, exactly?  LDLᵀ with the largest diagonal as pivot
    (a zero pivot needs a zero row)."""
    A, idx = [row[:] for row in M], list(range(len(M)))
    while idx:
        piv = max(idx, key=lambda i: A[i][i])
        d = A[piv][piv]
        idx.remove(piv)
        if d < 0 or (d == 0 and any(A[piv][j] != 0 for j in idx)):
            return False
        if d > 0:
            for i in idx:
                for j in idx:
                    A[i][j] -= A[i][piv] * A[piv][j] / d
    return True


def exact_sdpa_point(path: str, x: np.ndarray) -> tuple[bool, float] | None:
    """(is F(x) = Σ F_i x_i − F_0 ⪰ 0 exactly, the exact cᵀx) in rational arithmetic — an
    independent check of a proven upper end against a published value; None above a
    block side of 12 or 40 variables (the arithmetic is exact, and slow)."""
    from kernelsdp.data.sdpa import read_sdpa

    sd = read_sdpa(path)
    if sd.m > 40 or max(abs(b) for b in sd.blocks) > 12:
        return None
    ext = [Fraction(-1)] + [Fraction(float(v)) for v in x]
    for F, side in zip(sd.F, sd.blocks):
        F = F.tocsr()
        vec = [
            sum(
                (
                    Fraction(float(v)) * ext[k]
                    for k, v in zip(
                        F.indices[F.indptr[r] : F.indptr[r + 1]],
                        F.data[F.indptr[r] : F.indptr[r + 1]],
                    )
                ),
                Fraction(0),
            )
            for r in range(F.shape[0])
        ]
        if side < 0:
            if any(v < 0 for v in vec):
                return False, float("nan")
            continue
        M = [
            [(vec[i + j * side] + vec[j + i * side]) / 2 for j in range(side)] for i in range(side)
        ]
        if not exact_psd(M):
            return False, float("nan")
    return True, float(sum(Fraction(float(c)) * xi for c, xi in zip(sd.c, ext[1:])))


#: files solved in under this many seconds are timed SDPLIB_REPEATS times, each from a
#: fresh load (no canonicalisation kept), and the least solve and least certificate kept:
#: a 10 ms solve on this shared two-core machine reads 5–15 ms from one run to the next
#: (mcp124-1's ratio read 0.43 and 0.83 in two runs of the same code)
SDPLIB_REPEAT_BELOW_S = 1.0
SDPLIB_REPEATS = 3


def _timed_sdplib(path: str, problem) -> tuple:
    """(solution, certificate, solve s, certify s) of one SDPLIB file: the least of
    SDPLIB_REPEATS fresh runs where the first solve is shorter than SDPLIB_REPEAT_BELOW_S."""
    best_solve = best_cert = float("inf")
    for k in range(SDPLIB_REPEATS):
        if k:
            if best_solve >= SDPLIB_REPEAT_BELOW_S:
                break
            problem = load_problem(path).problem  # fresh: nothing kept from the last run
        t = time.perf_counter()
        run = solve_canonical(problem, "CLARABEL", time_limit=SDPLIB_TIME_LIMIT)
        solve_s = time.perf_counter() - t
        t = time.perf_counter()
        cert = conic_certificate(run, tol.CERTIFY_TOL)
        best_cert = min(best_cert, time.perf_counter() - t)
        if solve_s < best_solve:  # the row reads the fastest run's split (canon., Clarabel)
            best_solve, sol, c = solve_s, run, cert
    return sol, c, best_solve, best_cert


def part_sdplib(quick: bool) -> dict:
    """Clarabel through the canonical path itself (solve_canonical: no memory pre-check,
    whose interior-point estimate is far above what SDPA-form models need), then the
    generic certificate at CERTIFY_TOL, timed apart."""
    rows = []
    if not SDPA_DIR:
        return {"rows": rows}
    for fname in sorted(os.listdir(SDPA_DIR)):
        if not fname.endswith(".dat-s"):
            continue
        try:
            problem = load_problem(os.path.join(SDPA_DIR, fname)).problem
        except KernelSDPError as exc:  # an unreadable file is a row, not the end of the run
            print(f"{fname}: {exc}", file=sys.stderr)
            continue
        side = CvxpyProblem(problem).psd_dim
        if quick and side > SDPLIB_QUICK_SIDE:
            continue
        sol, c, solve_s, certify_s = _timed_sdplib(os.path.join(SDPA_DIR, fname), problem)
        opt, half = published_optimum(fname[: -len(".dat-s")])
        outside = bool(
            opt is not None
            and (
                (c.lower_label == "proof" and c.lower is not None and c.lower > opt + half)
                or (c.upper_label == "proof" and c.upper is not None and c.upper < opt - half)
            )
        )
        exact = None
        if (
            outside
            and c.upper_label == "proof"
            and c.upper < opt - half
            and "combined" not in c.note
            and "re-solved" not in c.note
        ):
            exact = exact_sdpa_point(os.path.join(SDPA_DIR, fname), sol.x)
        print(
            f"{fname}: {sol.status}, {c.verdict}, solve {solve_s:.3f} s, certify {certify_s:.3f} s",
            file=sys.stderr,
            flush=True,
        )
        rows.append(
            {
                "name": fname,
                "side": side,
                "status": sol.status,
                "lower": c.lower,
                "upper": c.upper,
                "lower_label": c.lower_label,
                "upper_label": c.upper_label,
                "width": c.width,
                "passed": bool(c.passed),
                "solve_s": solve_s,
                "canon_s": sol.setup_time_s,
                "clarabel_s": sol.solve_time_s,
                "certify_s": certify_s,
                "kind": c.kind,
                "optimum": opt,
                "outside": outside,
                "exact": exact,
                "why": (c.lower_why + " | " + c.upper_why)[:160],
            }
        )
    return {"rows": rows}


PARTS = {
    "sdplib": part_sdplib,
    "generic": part_generic,
    "npkl-factor": part_npkl_factor,
    "lambda-min": part_lambda_min,
}


def _report_sdplib(res: dict) -> None:
    rows = res["rows"]
    if not rows:
        print("no --sdpa DIR given (or no .dat-s file there)")
        return
    fmt = lambda v: "-" if v is None else f"{v:.12g}"
    print(_csdp_blas())
    print(
        f"{'file':<14}{'side':>5} {'status':<15}{'lower':>22} {'':<6}{'upper':>22} {'':<6}"
        f"{'width':>9}{'solve s':>9}{'cert s':>8}{'ratio':>7}  optimum"
    )
    for r in rows:
        held = "" if r["optimum"] is None else ("  OUTSIDE" if r["outside"] else "  inside")
        if r.get("exact"):  # the published value, not the proof, is the one that is off
            held += (
                f" (the point is exactly feasible in rational arithmetic, value "
                f"{r['exact'][1]:.12g}: the published value is above a feasible point)"
                if r["exact"][0]
                else " (exact check: NOT feasible)"
            )
        print(
            f"{r['name'][:13]:<14}{r['side']:>5} {r['status']:<15}{fmt(r['lower']):>22} "
            f"{r['lower_label'][:6]:<6}{fmt(r['upper']):>22} {r['upper_label'][:6]:<6}"
            f"{(r['width'] if r['width'] is not None else float('inf')):>9.1e}"
            f"{r['solve_s']:>9.2f}{r['certify_s']:>8.2f}"
            f"{r['certify_s'] / max(r['solve_s'], 1e-9):>7.2f}{held}"
        )
    both = [
        r
        for r in rows
        if r["lower_label"] == r["upper_label"] == "proof"
        and r["upper"] is not None
        and np.isfinite(r["upper"])
    ]
    ratios = sorted(r["certify_s"] / max(r["solve_s"], 1e-9) for r in rows)
    print(
        f"both ends proven on {len(both)} of {len(rows)}; certified (width <= "
        f"{tol.CERTIFY_TOL:g}) on {sum(r['passed'] for r in rows)}; median certify / solve "
        f"{ratios[len(ratios) // 2]:.2f} (bar 0.2); published optima outside a proven "
        f"interval: {sum(r['outside'] for r in rows)} (must be 0)"
    )
    _solve_split(rows)


def _csdp_blas() -> str:
    """Which BLAS the re-solve's CSDP runs on (ldd's reading; the re-solve's time depends
    on it: Debian's reference libblas3 against OpenBLAS, docs/measurements.md)."""
    import shutil
    import subprocess

    path = shutil.which("csdp")
    if path is None:
        return "CSDP: not installed (the shrunk re-solve runs Clarabel)"
    try:
        ldd = subprocess.run(["ldd", path], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return f"CSDP: {path} (its BLAS could not be read)"
    blas = [ln.split("=>")[1].split("(")[0].strip() for ln in ldd.splitlines() if "libblas" in ln]
    real = os.path.realpath(blas[0]) if blas else "?"
    return f"CSDP: {path}, BLAS {real}"


def _median(v: list[float]) -> float:
    v = sorted(v)
    return v[len(v) // 2] if v else float("nan")


def _solve_split(rows: list[dict]) -> None:
    """What 'solve' holds, the ratio against Clarabel's own run, and each family's median."""
    if not all("clarabel_s" in r for r in rows):
        return
    print(
        f"'solve' is solve_canonical end to end: CVXPY's canonicalisation (median "
        f"{_median([r['canon_s'] for r in rows]) * 1e3:.1f} ms), Clarabel through CVXPY's "
        f"interface (median {_median([r['clarabel_s'] for r in rows]) * 1e3:.1f} ms), the "
        f"unpacking and the constraint violations; certify / Clarabel alone: median "
        f"{_median([r['certify_s'] / max(r['clarabel_s'], 1e-9) for r in rows]):.2f}"
    )
    fams: dict[str, list[dict]] = {}
    for r in rows:
        fams.setdefault(re.match(r"[a-z]+", r["name"]).group(0), []).append(r)
    print("per family (files; median certify / solve, certify / Clarabel; both ends proven):")
    for fam, rs in sorted(fams.items()):
        proven = sum(r["lower_label"] == r["upper_label"] == "proof" for r in rs)
        whole = _median([r["certify_s"] / max(r["solve_s"], 1e-9) for r in rs])
        alone = _median([r["certify_s"] / max(r["clarabel_s"], 1e-9) for r in rs])
        print(f"  {fam:<8}{len(rs):>3}  {whole:>6.2f}  {alone:>6.2f}  {proven}")
    slow = [r for r in rows if r["solve_s"] >= 1.0]
    print(
        f"files solved in 1 s or more: {len(slow)}, median certify / solve "
        f"{_median([r['certify_s'] / r['solve_s'] for r in slow]):.2f}"
    )


def report(name: str, res: dict) -> None:
    print(f"\n== {name}")
    if name == "sdplib":
        _report_sdplib(res)
    elif name == "generic":
        print(
            f"{'instance':<24}{'solver':<12}{'side':>5} {'status':<15}{'solve s':>9}{'cert s':>8}"
            f"{'ratio':>7}  verdict"
        )
        for r in res["rows"]:
            truth = (
                ""
                if r["wrong"] is None
                else ("  (answer wrong)" if r["wrong"] else "  (answer right)")
            )
            verdict = "certified" if r["passed"] else "FAIL " + ",".join(r["failed"])
            print(
                f"{r['name'][:23]:<24}{r['solver']:<12}{r['side']:>5} {r['status']:<15}"
                f"{r['solve_s']:>9.3f}{r['certify_s']:>8.3f}"
                f"{r['certify_s'] / max(r['solve_s'], 1e-9):>7.2f}"
                f"  {verdict}{'' if r['rigorous'] else ' ~'}{truth}"
            )
        big = [r for r in res["rows"] if r["solver"] == "clarabel" and r["side"] >= 30]
        worst = max(big, key=lambda r: r["certify_s"] / r["solve_s"])
        print(
            f"worst certificate / Clarabel solve time, PSD side >= 30: "
            f"{worst['certify_s'] / worst['solve_s']:.3f} ({worst['name']}; bar 0.2)"
        )
        known = [r for r in res["rows"] if r["wrong"] is not None]
        missed = [r for r in known if r["wrong"] and r["passed"]]
        false_alarm = [
            r
            for r in known
            if not r["wrong"]
            and not r["passed"]
            and r["status"] == "optimal"
            and r["solver"] == "clarabel"
        ]
        print(
            f"known optima: {len(known)} answers, {sum(r['wrong'] for r in known)} wrong "
            f"({', '.join(sorted({r['name'] + '/' + r['solver'] for r in known if r['wrong']}))}), "
            f"{len(missed)} wrong answers certified, "
            f"{len(false_alarm)} right Clarabel answers failed"
        )
        claimed = [r for r in res["rows"] if r["status"] == "optimal"]
        print(
            f"answers called optimal: {len(claimed)}, of which the certificate failed "
            f"{sum(not r['passed'] for r in claimed)} at tol {tol.CERTIFY_TOL:g}"
        )
    elif name == "lambda-min":
        print(
            f"n = {res['n']}, ADMM hinge/trace to a certified gap of 1e-5 "
            "(certified again from scratch)"
        )
        for label, r in res["runs"].items():
            print(
                f"  λ_min bases {r['bases']!s:<9} ({label}): {r['status']}, "
                f"{r['iterations']:,} iterations, "
                f"{r['solve_s']:.1f} s; from scratch {'certified' if r['passed'] else 'FAIL'}, "
                f"width {r['width']:.1e}"
            )
        for label, c in res["calls"].items():
            print(
                f"  one λ_min at the answer, basis {c['ncv']} ({label}): "
                f"{c['failures']} of {c['starts']} "
                f"starts did not converge, {c['per_call_s']:.2f} s a call"
            )
        a, b = res["runs"]["arpack-default"], res["runs"]["kernelsdp"]
        print(
            f"  ratio: {a['solve_s'] / b['solve_s']:.1f}x the time, "
            f"{a['iterations'] / b['iterations']:.1f}x the iterations on ARPACK's default basis"
        )
    else:
        print(f"n = {res['n']}")
        a, c = res["admm"], res["closed_form"]
        print(
            f"  ADMM hinge/trace: solve {a['solve_s']:.1f} s (own gap {a['solver_gap']:.1e}); "
            f"certificate {a['certify_s']:.2f} s = "
            f"{a['certify_s'] / a['one_lambda_min_s']:.2f}x one "
            f"Lanczos λ_min ({a['one_lambda_min_s']:.2f} s); "
            f"{'certified' if a['passed'] else 'FAIL'}, width {a['width']:.1e}, "
            f"{'rigorous' if a['rigorous'] else 'estimate'}"
        )
        print(
            f"  closed form linear/Frobenius: solve {c['solve_s']:.1f} s; certificate "
            f"{c['certify_s']:.2f} s = "
            f"{c['certify_s'] / c['one_positive_part_s']:.2f}x one positive "
            f"part ({c['one_positive_part_s']:.2f} s); {'certified' if c['passed'] else 'FAIL'}, "
            f"width {c['width']:.1e}"
        )


def _sdpa(a) -> int | None:
    global SDPA_DIR
    SDPA_DIR = a.sdpa
    if a.sdpa and not a.child:  # hand the folder to the children
        os.environ["KERNELSDP_BENCH_SDPA"] = a.sdpa
    SDPA_DIR = SDPA_DIR or os.environ.get("KERNELSDP_BENCH_SDPA")
    return None


def _sdpa_key(a) -> dict:
    """The results store's key: the graph revision and the --sdpa folder's .dat-s files (name
    and size), so a run on another folder measures its files instead of reporting the last
    folder's."""
    folder = a.sdpa or os.environ.get("KERNELSDP_BENCH_SDPA")
    files = []
    if folder and os.path.isdir(folder):
        files = sorted(
            f"{f}:{os.path.getsize(os.path.join(folder, f))}"
            for f in os.listdir(folder)
            if f.endswith(".dat-s")
        )
    digest = hashlib.sha256("\n".join(files).encode()).hexdigest()[:16]
    return {"graph_revision": GRAPH_REVISION, "sdpa_files": digest}


def main() -> int:
    return parts.run(
        __file__,
        __doc__,
        PARTS,
        report,
        extra=_sdpa,
        unit_extra=_sdpa_key,
        extra_args=lambda ap: ap.add_argument(
            "--sdpa", metavar="DIR", default=None, help="also every .dat-s file in DIR"
        ),
    )


if __name__ == "__main__":
    sys.exit(main())
