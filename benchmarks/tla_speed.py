"""Seed 004 at scale.

``--part mwc`` (default with ``all``): MWC-TLA at n = 1,000,000 points, D = 10, J = 10 ramps.

The n-dependent work is the ramp knots (quantiles on a sample) and Q = GᵀG with
G = [φ_j(X)ᵀy] accumulated in row chunks — O(n J D) time, O(J D) memory; the SDP is
(J+1)×(J+1) whatever n is.  Prints each stage's time and the peak memory.

``--part blocks``: NC-TLA (eq. 11) and LMTL (eq. 2), whose conic models hold n-sized
semidefinite blocks, by their structured solvers (``schur-reduced``, ``extragradient``)
against Clarabel and SCS on the full SDPs at n = 30 and 60 (time, objective, certified
interval, relative difference), then the structured solvers alone at n = 200…1600.
Clarabel on NC-TLA's full model at n = 60 took 514 s once; it runs without ``--quick`` only.

    python benchmarks/tla_speed.py [--quick] [--part all|mwc|blocks]
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from kernelsdp.data.datasets import hyperplane_transformed
from kernelsdp.data.ramps import RampBasis, label_alignment
from kernelsdp.formulations import LMTL, MWCTLA, NCTLA
from kernelsdp.solvers import get_solver, solve


def _row(f, solver: str) -> dict:
    t = time.perf_counter()
    r = solve(f, solver)
    s = time.perf_counter() - t
    cert = f.certificate(r, get_solver(type(f), solver).certificate_tol)
    return {
        "solver": solver,
        "s": s,
        "objective": r.objective,
        "lower": cert.lower,
        "upper": cert.upper,
        "verdict": cert.verdict,
    }


def blocks(quick: bool) -> None:
    X, y = hyperplane_transformed(2000, "quadratic", seed=0)
    print("NC-TLA / LMTL: structured solver vs the full SDP (square-root task, J = 10)")
    print(
        f"  {'problem':<8}{'n':>5}  {'solver':<14}{'seconds':>9}{'objective':>14}"
        f"{'certified interval':>32}  verdict"
    )
    for n in (30, 60):
        for cls, fast in ((NCTLA, "schur-reduced"), (LMTL, "extragradient")):
            f = cls.from_data(X[:n], y[:n], J=10)
            generic = ["scs"] if (quick and n == 60 and cls is NCTLA) else ["clarabel", "scs"]
            rows = [_row(f, s) for s in [fast, *generic]]
            for r in rows:
                diff = abs(r["objective"] - rows[0]["objective"]) / max(
                    1.0, abs(rows[0]["objective"])
                )
                print(
                    f"  {cls.name:<8}{n:>5}  {r['solver']:<14}{r['s']:9.2f}{r['objective']:14.8g}"
                    f"   [{r['lower']:.8g}, {r['upper']:.8g}]  {r['verdict']}"
                    + ("" if r is rows[0] else f"  (rel. diff. to {fast}: {diff:.1e})"),
                    flush=True,
                )
    for n in (200, 400) if quick else (200, 400, 800, 1600):
        for cls, fast in ((NCTLA, "schur-reduced"), (LMTL, "extragradient")):
            r = _row(cls.from_data(X[:n], y[:n], J=10), fast)
            print(
                f"  {cls.name:<8}{n:>5}  {fast:<14}{r['s']:9.2f}{r['objective']:14.8g}"
                f"   [{r['lower']:.8g}, {r['upper']:.8g}]  {r['verdict']}",
                flush=True,
            )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--part", choices=("all", "mwc", "blocks"), default="all")
    a = ap.parse_args()
    if a.part in ("all", "blocks"):
        blocks(a.quick)
    if a.part == "blocks":
        return 0
    n, D, J = (100_000 if a.quick else 1_000_000), 10, 10
    rng = np.random.default_rng(0)
    X = rng.uniform(0.05, 1, (n, D)) ** 2
    y = np.where(np.sqrt(X).sum(axis=1) > 0.525 * D, 1.0, -1.0)
    t0 = time.perf_counter()
    basis = RampBasis.fit(X, J)
    t1 = time.perf_counter()
    Q = label_alignment(basis, X, y)
    t2 = time.perf_counter()
    f = MWCTLA(Q=Q, basis=basis, n_points=n, tightened=True)
    r = solve(f, "clarabel")
    t3 = time.perf_counter()
    print(
        f"MWC-TLA, n = {n:,}, D = {D}, J = {J}: ramps {t1 - t0:.2f} s, Q {t2 - t1:.2f} s, "
        f"SDP (tightened, Clarabel) {t3 - t2:.2f} s, total {t3 - t0:.2f} s   (bar: < 20 s)"
    )
    print(
        f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB "
        f"(the data X alone is {X.nbytes / 2**30:.2f} GiB; bar: < 2 GB)"
    )
    print(
        f"status {r.termination.value}, alignment {r.objective:.6g}, "
        f"monotone {r.info['monotone']}, rank M {r.info['rank_M']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
