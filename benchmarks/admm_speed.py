"""Low-rank NPKL by ADMM (seed 001): accuracy against Clarabel, time on digits, and growth
with n.

Every figure is measured side by side in one run on this machine (shared and noisy: no
test asserts a wall-clock time).  Each part runs in its own subprocess, so its peak memory
(max RSS) is its own.

    python benchmarks/admm_speed.py              # all parts (about 7 minutes)
    python benchmarks/admm_speed.py --quick      # small sizes, about a minute
    python benchmarks/admm_speed.py --part digits

Parts
  fixtures  ADMM vs Clarabel on UCI subsets n = 40…100 (trace capacity B = n, C = 1), all
            four losses: relative objective difference (bar 1e-3) and time ratio
  digits    the odd-even stand-in (scikit-learn digits, n = 1,797, m = 2,156, rank at most
            65): seconds to the stopping tolerance per loss (bar 10 s), beside the seed's
            fixed-rank algorithm (rank_start = rank = 65) in the same run
  scaling   hinge loss, two-Gaussian data, m = 1.2 n, default rank cap, n = 1,000 … 20,000:
            iterations, seconds per iteration and seconds to the tolerance (bar at
            n = 20,000: 120 s, 4 GB), the width the factor reached, peak memory, and
            growth exponents fitted by least squares on log t = a + b log n
  history   the same problem at n = 20,000 (quick: 5,000) with the Anderson differences
            kept in double and in single precision (the default): iterations, seconds and
            peak memory to the certified gap, and their ratios
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np
import parts
from simplenpkl_speed import gaussian_mixture, peak_rss_gib

from kernelsdp.data import PairwiseConstraints, knn_laplacian, load
from kernelsdp.data.graph import GRAPH_REVISION
from kernelsdp.formulations import NPKL
from kernelsdp.reproductions.flexible_npkl_admm import load_task
from kernelsdp.solvers import solve
from kernelsdp.solvers.admm import iteration_memory_bytes

LOSSES = ("l2", "hinge", "squared-hinge", "l1")


def _subset(name: str, n: int):
    X, y = load(name)
    idx = np.sort(np.random.default_rng(0).choice(len(y), n, replace=False))
    pairs = PairwiseConstraints.from_labels(y[idx], ratio=0.5, seed=1)
    return knn_laplacian(X[idx], 5), pairs


def part_fixtures(quick: bool) -> dict:
    sizes = (
        [("iris", 40), ("wine", 60)]
        if quick
        else [("iris", 40), ("wine", 60), ("glass", 80), ("heart", 100)]
    )
    rows = []
    for name, n in sizes:
        L, pairs = _subset(name, n)
        for loss in LOSSES:
            f = NPKL(L=L, pairs=pairs, loss=loss, capacity="trace", C=1.0, B=float(n))
            a, c = solve(f, "admm"), solve(f, "clarabel")
            rows.append(
                {
                    "data": name,
                    "n": n,
                    "m": pairs.m,
                    "loss": loss,
                    "admm_s": a.solve_time_s,
                    "iterations": a.iterations,
                    "status": a.termination.value,
                    "gap": a.info["relative_gap"],
                    "clarabel_s": c.solve_time_s,
                    "rel_diff": abs(a.objective - c.objective) / max(1.0, abs(c.objective)),
                }
            )
    return {"rows": rows}


def part_digits(quick: bool) -> dict:
    X, y = load_task("odd-even")
    pairs = PairwiseConstraints.sample(y, int(round(1.2 * len(y))), seed=0)
    L = knn_laplacian(X, 5)
    rows = []
    for loss in ("hinge",) if quick else LOSSES:
        f = NPKL(L=L, pairs=pairs, loss=loss, capacity="trace", C=1.0, B=float(len(y)))
        for mode in ("adaptive",) if quick else ("adaptive", "fixed"):
            opts = {"rank_start": 10**9} if mode == "fixed" else {}  # capped at the rank
            t = time.perf_counter()
            r = solve(f, "admm", **opts)
            residual_met = next((h["time_s"] for h in r.history if "relative_gap" in h), None)
            rows.append(
                {
                    "loss": loss,
                    "mode": mode,
                    "seconds": time.perf_counter() - t,
                    "iterations": r.iterations,
                    "status": r.termination.value,
                    "gap": r.info["relative_gap"],
                    "residuals_met_s": residual_met,
                    "rank": r.info["rank"],
                    "objective": r.objective,
                }
            )
    return {"n": len(y), "m": pairs.m, "rows": rows, "peak_rss_gib": peak_rss_gib()}


def _scaling_one(n: int, cap: int, history: str = "single") -> dict:
    X, y = gaussian_mixture(n)
    pairs = PairwiseConstraints.sample(y, int(1.2 * n), seed=0)
    L = knn_laplacian(X, 5)
    f = NPKL(L=L, pairs=pairs, loss="hinge", capacity="trace", C=1.0, B=float(n))
    t = time.perf_counter()
    r = solve(f, "admm", max_iter=cap, history_precision=history)
    total = time.perf_counter() - t
    h = r.history
    per_it = (h[-1]["time_s"] - h[0]["time_s"]) / max(1, len(h) - 1)
    return {
        "n": n,
        "m": pairs.m,
        "rank": r.info["rank"],
        "rank_cap": r.info["rank_cap"],
        "certificate_s": r.info["certificate_s"],
        "iterations": r.iterations,
        "status": r.termination.value,
        "gap": r.info["relative_gap"],
        "seconds": total,
        "setup_s": h[0]["time_s"],
        "per_iteration_s": per_it,
        "formula_gib": iteration_memory_bytes(
            n, r.info["rank"], pairs.m, L.nnz, history_word=4 if history == "single" else 8
        )
        / 2**30,
        "peak_rss_gib": peak_rss_gib(),
    }


def _child(n: int, cap: int, history: str = "single") -> dict:
    """One solve in its own process (its peak RSS is its own)."""
    out = subprocess.run(
        [sys.executable, __file__, "--scaling-one", str(n), str(cap), history],
        stdout=subprocess.PIPE,
        text=True,
    )
    return (
        json.loads(out.stdout.strip().splitlines()[-1])
        if out.returncode == 0
        else {"n": n, "failed": out.returncode}
    )


def part_scaling(quick: bool) -> dict:
    plan = (
        [(1000, 3000), (2000, 3000)]
        if quick
        else [(1000, 5000), (2000, 5000), (5000, 5000), (10000, 5000), (20000, 5000)]
    )
    rows = [_child(n, cap) for n, cap in plan]
    ok = [r for r in rows if "per_iteration_s" in r]
    fit = {}
    if len(ok) >= 2:
        ln = np.log([r["n"] for r in ok])
        fit["per_iteration_exponent"] = float(
            np.polyfit(ln, np.log([r["per_iteration_s"] for r in ok]), 1)[0]
        )
    done = [r for r in ok if r["status"] == "optimal"]
    if len(done) >= 2:
        ln = np.log([r["n"] for r in done])
        fit["solve_exponent"] = float(np.polyfit(ln, np.log([r["seconds"] for r in done]), 1)[0])
        fit["solve_exponent_sizes"] = [r["n"] for r in done]
    return {"rows": rows, "fit": fit}


def part_history(quick: bool) -> dict:
    n = 5000 if quick else 20000
    return {"rows": [{**_child(n, 5000, h), "history": h} for h in ("double", "single")]}


PARTS = {
    "fixtures": part_fixtures,
    "digits": part_digits,
    "scaling": part_scaling,
    "history": part_history,
}


def report(name: str, res: dict) -> None:
    print(f"\n== {name}")
    if name == "fixtures":
        print(
            f"{'data':<6}{'n':>4}{'m':>5} {'loss':<14}{'admm s':>8}{'its':>6}{'gap':>9}"
            f"{'clarabel s':>11}{'speedup':>9}{'rel diff':>10}"
        )
        for r in res["rows"]:
            print(
                f"{r['data']:<6}{r['n']:>4}{r['m']:>5} {r['loss']:<14}{r['admm_s']:>8.3f}"
                f"{r['iterations']:>6}{r['gap']:>9.1e}{r['clarabel_s']:>11.2f}"
                f"{r['clarabel_s'] / r['admm_s']:>8.0f}x{r['rel_diff']:>10.1e}"
            )
        print(f"worst relative difference {max(r['rel_diff'] for r in res['rows']):.1e} (bar 1e-3)")
    elif name == "digits":
        print(f"n = {res['n']}, m = {res['m']}, peak RSS {res['peak_rss_gib']:.2f} GiB")
        for r in res["rows"]:
            met = f"{r['residuals_met_s']:.1f}" if r["residuals_met_s"] is not None else "-"
            print(
                f"  {r['loss']:<14} {r['mode']:<9} {r['seconds']:7.1f} s  "
                f"{r['iterations']:5d} its  {r['status']:<16} gap {r['gap']:.1e}  "
                f"objective {r['objective']:.4f}  "
                f"(eq. 14 residuals first met at {met} s; rank {r['rank']})"
            )
        fixed = {r["loss"]: r["seconds"] for r in res["rows"] if r["mode"] == "fixed"}
        for r in res["rows"]:
            if r["mode"] == "adaptive" and r["loss"] in fixed:
                print(
                    f"  {r['loss']:<14} fixed-rank / adaptive time: "
                    f"{fixed[r['loss']] / r['seconds']:.1f}x"
                )
    elif name == "history":
        rows = {r["history"]: r for r in res["rows"] if "failed" not in r}
        for h, r in rows.items():
            print(
                f"  n = {r['n']:,}, Anderson history in {h}: {r['status']}, {r['iterations']} "
                f"iterations, {r['seconds']:.1f} s ({r['per_iteration_s'] * 1e3:.0f} ms each), "
                f"gap {r['gap']:.1e}, rank {r['rank']}, peak RSS {r['peak_rss_gib']:.2f} GiB "
                f"(formula {r['formula_gib']:.2f})"
            )
        if len(rows) == 2:
            d, s = rows["double"], rows["single"]
            print(
                f"  single / double: iterations {s['iterations'] / d['iterations']:.2f}, time "
                f"{s['seconds'] / d['seconds']:.2f}, per iteration "
                f"{s['per_iteration_s'] / d['per_iteration_s']:.2f}, peak RSS "
                f"{s['peak_rss_gib'] / d['peak_rss_gib']:.2f}"
            )
    else:
        print(
            f"{'n':>6}{'m':>6}{'r/cap':>8}{'setup s':>9}{'s/iter':>8}{'its':>6}{'status':>17}"
            f"{'gap':>9}{'cert s':>8}{'total s':>9}{'RSS GiB':>9}{'formula':>9}"
        )
        for r in res["rows"]:
            if "failed" in r:
                print(f"{r['n']:>6}  failed (exit {r['failed']})")
                continue
            width = f"{r['rank']}/{r['rank_cap']}"
            print(
                f"{r['n']:>6}{r['m']:>6}{width:>8}{r['setup_s']:>9.2f}{r['per_iteration_s']:>8.3f}"
                f"{r['iterations']:>6}{r['status']:>17}{r['gap']:>9.1e}{r['certificate_s']:>8.1f}"
                f"{r['seconds']:>9.1f}{r['peak_rss_gib']:>9.2f}{r['formula_gib']:>9.2f}"
            )
        for k, v in res["fit"].items():
            print(f"  {k}: {v:.2f}" if isinstance(v, float) else f"  {k}: {v}")


def _scaling_child(a) -> int | None:
    if a.scaling_one:
        n, cap, *history = a.scaling_one
        print(json.dumps(_scaling_one(int(n), int(cap), *history)))
        return 0
    return None


def main() -> int:
    return parts.run(
        __file__,
        __doc__,
        PARTS,
        report,
        extra=_scaling_child,
        unit_extra={"graph_revision": GRAPH_REVISION},
        extra_args=lambda ap: ap.add_argument("--scaling-one", nargs="+", help=argparse.SUPPRESS),
    )


if __name__ == "__main__":
    sys.exit(main())
