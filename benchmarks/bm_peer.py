"""ADMM against the Burer–Monteiro peer (pymanopt) on the same trace-bounded NPKL, side by
side in one run: seconds to a common certified relative gap.

The problem: two-Gaussian data (``simplenpkl_speed.gaussian_mixture``), mutual 5-NN
Laplacian, m = 1.2 n random pairs, squared-hinge loss (the smooth loss both solvers take:
hinge is not differentiable, so the Riemannian peer refuses it), C = 1, tr K ≤ B = n.
Both run to the same certified gap (default ``tolerances.ADMM_GAP_TOL`` = 1e-3) and both
answers are then certified again, from scratch, by the one NPKL certificate
(``kernelsdp.verify.certify``).  The time to the gap is read from each solver's own
history (the first certificate at or below the target).  The peer gets a time limit
(``--peer-limit``, default 20× ADMM's time, at least 60 s): if it does not get there, the
ratio printed is a lower bound.  The bar (issue #16): ADMM at least 10× faster at n = 20,000.

    python benchmarks/bm_peer.py --quick     # n = 2,000
    python benchmarks/bm_peer.py             # n = 20,000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from simplenpkl_speed import gaussian_mixture, peak_rss_gib

from kernelsdp.data import PairwiseConstraints, knn_laplacian
from kernelsdp.formulations import NPKL
from kernelsdp.solvers import solve
from kernelsdp.tolerances import ADMM_GAP_TOL
from kernelsdp.verify import certify


def problem(n: int) -> NPKL:
    X, y = gaussian_mixture(n)
    pairs = PairwiseConstraints.sample(y, int(1.2 * n), seed=0)
    return NPKL(
        L=knn_laplacian(X, 5),
        pairs=pairs,
        loss="squared-hinge",
        capacity="trace",
        C=1.0,
        B=float(n),
    )


def time_to_gap(r, target: float) -> float | None:
    """Seconds until the solver's first certificate at or below ``target``."""
    hits = [
        h["time_s"]
        for h in r.history
        if h.get("relative_gap") is not None
        and np.isfinite(h["relative_gap"])
        and h["relative_gap"] <= target
    ]
    return min(hits) if hits else None


def run(name: str, f: NPKL, target: float, **options) -> dict:
    t = time.perf_counter()
    r = solve(f, name, gap_tol=target, **options)
    wall = time.perf_counter() - t
    cert = certify(f, r)
    return {
        "solver": name,
        "status": r.termination.value,
        "wall_s": wall,
        "to_gap_s": time_to_gap(r, target),
        "iterations": r.iterations,
        "rank": r.kernel.rank,
        "objective": r.objective,
        "certified_gap": cert.width,
        "verdict": cert.verdict,
        "lower": cert.lower,
        "upper": cert.upper,
    }


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="n = 2,000 instead of 20,000")
    ap.add_argument("--n", type=int, default=None)
    ap.add_argument("--gap", type=float, default=ADMM_GAP_TOL, help="the common certified gap")
    ap.add_argument(
        "--precision",
        default="double",
        choices=("double", "single"),
        help="ADMM's arithmetic (certificates are double either way)",
    )
    ap.add_argument(
        "--peer-limit",
        type=float,
        default=None,
        metavar="S",
        help="the peer's time limit (default 20x ADMM's time, at least 60 s)",
    )
    a = ap.parse_args()
    n = a.n or (2_000 if a.quick else 20_000)
    t = time.perf_counter()
    f = problem(n)
    print(
        f"NPKL squared hinge, trace B = n, n = {n:,}, m = {f.pairs.m:,}, nnz(L) = {f.L.nnz:,} "
        f"(built in {time.perf_counter() - t:.1f} s); common certified gap {a.gap:g}; ADMM in "
        f"{a.precision} precision",
        flush=True,
    )
    rows = [run("admm", f, a.gap, precision=a.precision)]
    limit = a.peer_limit or max(60.0, 20 * rows[0]["wall_s"])
    rows.append(run("burer-monteiro", f, a.gap, time_limit=limit))
    print(
        f"{'solver':<16}{'status':<16}{'to gap (s)':>11}{'wall (s)':>10}{'iters':>7}{'rank':>6}"
        f"{'objective':>16}{'cert. gap':>11}  verdict"
    )
    for r in rows:
        to = "-" if r["to_gap_s"] is None else f"{r['to_gap_s']:.1f}"
        print(
            f"{r['solver']:<16}{r['status']:<16}{to:>11}{r['wall_s']:>10.1f}{r['iterations']:>7}"
            f"{r['rank']:>6}{r['objective']:>16.8g}{r['certified_gap']:>11.2e}  {r['verdict']}"
        )
    admm, peer = rows
    if admm["to_gap_s"] and peer["to_gap_s"]:
        print(
            f"ADMM is {peer['to_gap_s'] / admm['to_gap_s']:.1f}x faster to a certified gap of "
            f"{a.gap:g} (bar at n = 20,000: 10x)"
        )
    elif admm["to_gap_s"] and peer["status"] == "time_limit":
        print(
            f"the peer did not reach {a.gap:g} within {limit:.0f} s: ADMM is more than "
            f"{limit / admm['to_gap_s']:.1f}x faster"
        )
    elif admm["to_gap_s"]:
        print(
            f"the peer stopped ({peer['status']}) after {peer['wall_s']:.0f} s without reaching "
            f"{a.gap:g}: no ratio"
        )
    print(f"peak RSS of this run: {peak_rss_gib():.2f} GiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
