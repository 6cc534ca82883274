"""Issue #30's sixth pass, a timeboxed prototype: a multilevel (coarse-to-fine) warm start
of the low-rank augmented Lagrangian (:mod:`kernelsdp.solvers.alm_coarse`), measured
beside ADMM and the cold ``low-rank-alm`` on ``npkl_scale.py``'s instance (two Gaussians,
mutual 5-NN graph, m = 1.2n, hinge, C = 1, tr K ≤ B = n).

**The method.**  tr(LK) makes the optimum smooth on the graph, so the problem restricted
to K = P K_c Pᵀ (P: ``--levels`` rounds of standard aggregation of the graph, weighted by
√deg, PᵀP = I; n_c about n/3 a level) should have a point and pair multipliers close to
the fine ones.  The coarse problem keeps one hinge term per fine pair (K_p =
p_i p_j·(K_c)_{ab}), is solved by the same ALM to its own estimated gap ``--coarse-gap``
(no certificate: a coarse dual is not a fine bound), and its factor U = P·U_c and its
multipliers β̃ start the fine ALM (``alm_outer.Start``; the fine level keeps its own ρ₀
and ℓ: carrying the coarse ρ = 4·C cost 3,264 fine products against 1,988 at n = 3,000),
which certifies from scratch exactly as the cold one (the labelled interval of
``alm_certificate``).  ``multilevel-matching``: a greedy heaviest-edge matching instead of
the standard aggregation (n_c about n/1.7 instead of n/3.3).

Each (n, method) runs in its own child process, one after the other, to the certified gap
``--gap`` (1e-3).  Printed per row: status, gradient iterations (multilevel: coarse +
fine), sparse products (n×s blocks, one with L, one with the pairs; the coarse level's
n_c×s blocks listed apart and counted in the total weighted by n_c/n — but a coarse
gradient step still gathers all m pair rows, so its time is the honest measure), time
(multilevel: coarse + fine, aggregation included), the certified gap and its lower end's
label, rank, peak RSS.  The machine is shared: compare ratios within one run.

**Measured** (docs/npkl.md §7, sixth pass; docs/measurements.md): it does not pay.  The
fine products drop 1.07–1.31× (n = 20,000: 4,542 standard, 3,926 matching, against the
cold 4,850), 1.02–1.22× counting the coarse level — never the 3× asked.  The prolonged
point starts the fine ALM at an estimated gap of 0.42–0.79, where the cold ALM is after
about 90–200 products; the cold ALM spends its products in the tail (at 20,000, 2,069 to
reach 1e-2, 4,850 to 1e-3).  The coarse range does not hold the fine optimum: projected onto
it (``--projection``) and scaled back onto tr K = B, the cold optimum's objective rises
from 6,381 to 16,664 (standard) and 11,511 (matching) at n = 20,000 — so no restricted
start, however well solved, lands near the optimum.

    python benchmarks/npkl_multilevel_proto.py --sizes 3000 20000 --projection
    python benchmarks/npkl_multilevel_proto.py --sizes 20000 --methods low-rank-alm,multilevel
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np
import scipy.sparse as sp
from npkl_polish_proto import plain_row, print_speedups, run_child, side_by_side_arguments
from npkl_scale import FROM_ZERO, instance
from simplenpkl_speed import peak_rss_gib
from threadpoolctl import threadpool_limits

from kernelsdp.result import KernelFactor
from kernelsdp.solvers.alm_coarse import aggregation, coarse_start, prolongation_weights
from kernelsdp.solvers.alm_outer import solve_alm
from kernelsdp.solvers.low_rank_alm import LowRankALMOptions, _rank_cap

METHODS = ("admm", "low-rank-alm", "multilevel", "multilevel-matching")
KINDS = {"multilevel": "standard", "multilevel-matching": "matching"}


def multilevel_row(n: int, gap: float, limit: float, kind: str, args) -> dict:
    """The coarse solve, its prolongation, the fine ALM from it (one clock for both)."""
    f = instance(n)
    o = LowRankALMOptions(gap_tol=gap, time_limit=limit, **FROM_ZERO)
    cap = _rank_cap(f, o)
    t = time.perf_counter()
    with threadpool_limits(limits=1, user_api="blas"):
        start, c = coarse_start(f, o, cap, args.levels, args.coarse_gap, kind)
    r = solve_alm("low-rank-alm", f, o, cap, start)
    dt = time.perf_counter() - t
    fine = r.info["products"]
    weighted = fine + c["products"] * c["n_coarse"] / n
    return {
        "status": r.termination.value,
        "iterations": f"{c['iterations']}+{r.iterations}",
        "products": f"{weighted:.0f}",
        "fine_products": fine,
        "coarse": c,
        "eigsolves": f"{c['checks']}+{r.info['checks']}",
        "solve_s": dt,
        "gap": float(r.info["relative_gap"]),
        "label": r.info["certificate"].lower_label,
        "rank": r.kernel.rank,
        "objective": r.objective,
        "first_gap": r.history[0]["estimated_gap"],
    }


def projection_row(n: int, args) -> dict:
    """How near the coarse range is the fine optimum: the cold ALM's U projected, PPᵀU,
    and the same scaled back onto tr K = B (the coarse optimum is at most the latter, so
    this bounds what any restricted start can reach), per coarsening, against P(U)."""
    f = instance(n)
    o = LowRankALMOptions(gap_tol=args.gap, **FROM_ZERO)
    r = solve_alm("low-rank-alm", f, o, _rank_cap(f, o))
    U = r.kernel.U
    out = {"optimum": r.objective, "rows": []}
    for kind in ("standard", "matching"):
        label = aggregation(f.L, args.levels, kind)
        p = prolongation_weights(f.L, label)
        P = sp.csr_matrix((p, (np.arange(n), label)))
        UP = P @ (P.T @ U)
        kept = float(np.sum(UP * UP)) / float(np.sum(U * U))
        full = UP * np.sqrt(f.B / float(np.sum(UP * UP)))
        obj = (f.objective(KernelFactor(UP)), f.objective(KernelFactor(full)))
        out["rows"].append((kind, int(label.max()) + 1, kept, *obj))
    return out


def _print_projection(n: int, row: dict) -> None:
    if "failed" in row:
        print(f"        projection failed: {row['failed']}", flush=True)
        return
    print(
        f"        the cold optimum P(U) = {row['optimum']:.1f} projected onto the coarse "
        "ranges (n_c, energy kept, P(PPᵀU), scaled to tr K = B): "
        + "; ".join(f"{k} {c:,} {e:.3f} {a:.1f} {b:.1f}" for k, c, e, a, b in row["rows"]),
        flush=True,
    )


def _row(method: str, n: int, args) -> dict:
    if method in KINDS:
        row = multilevel_row(n, args.gap, args.time_limit, KINDS[method], args)
    elif method == "projection":
        return projection_row(n, args)
    else:
        row = plain_row(method, n, args.gap, args.time_limit)
        row["fine_products"] = row["products"]
    row["rss_gib"] = peak_rss_gib()
    return row


def _print(n: int, method: str, row: dict) -> None:
    if "failed" in row:
        print(f"{n:>7,} {method:<19} failed: {row['failed']}", flush=True)
        return
    print(
        f"{n:>7,} {method:<19} {row['status']:<12} {row['iterations']:>12} "
        f"{row['products']:>9} {row['solve_s']:>8.1f} {row['gap']:>8.1e} "
        f"{str(row['label']):>9} {row['rank']:>5} {row['rss_gib']:>6.2f}",
        flush=True,
    )
    c = row.get("coarse")
    if c:
        print(
            f"        coarse: n_c {c['n_coarse']:,}, {c['time_s']:.1f} s, {c['iterations']} "
            f"iterations, {c['products']} n_c×s products, {c['checks']} checks, rank "
            f"{c['rank']}, its estimated gap {c['estimated_gap']:.1e} ({c['status']}); "
            f"fine: {row['fine_products']} products, first check's gap {row['first_gap']:.1e}",
            flush=True,
        )


def main() -> int:
    ap = side_by_side_arguments(__doc__, METHODS, [3000, 20000])
    ap.add_argument("--levels", type=int, default=1, help="aggregation rounds")
    ap.add_argument("--coarse-gap", type=float, default=1e-2, help="coarse estimated gap")
    ap.add_argument(
        "--projection",
        action="store_true",
        help="per n, the cold optimum projected onto each coarse range (one more cold solve)",
    )
    args = ap.parse_args()
    if args.child:
        print(json.dumps(_row(args.child[0], int(args.child[1]), args)))
        return 0
    print(
        f"gap {args.gap:g}, levels {args.levels}, coarse gap {args.coarse_gap:g}; "
        f"load {os.getloadavg()}",
        flush=True,
    )
    print(
        f"{'n':>7} {'method':<19} {'status':<12} {'iterations':>12} {'products':>9} "
        f"{'solve s':>8} {'gap':>8} {'lower':>9} {'rank':>5} {'GiB':>6}",
        flush=True,
    )
    options = ["--gap", str(args.gap), "--time-limit", str(args.time_limit)]
    options += ["--levels", str(args.levels), "--coarse-gap", str(args.coarse_gap)]
    rows = {}
    methods = args.methods.split(",")
    for n in args.sizes:
        for method in methods:
            rows[n, method] = run_child(__file__, method, n, options)
            _print(n, method, rows[n, method])
        if args.projection:
            _print_projection(n, run_child(__file__, "projection", n, options))
    print_speedups(rows, args.sizes, methods)
    print(f"load {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
