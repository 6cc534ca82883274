"""Issue #30: what rank does a point certified to 1e-3 need, per n, and what does that
predict for n = 10⁶ (the bar: certified 1e-3 in ≤ 60 minutes, ≤ 18 GiB)?

On ``npkl_scale.py``'s instance (two Gaussians, mutual 5-NN graph, m = 1.2n, hinge, C = 1,
tr K ≤ B = n), for each n, ``low-rank-alm`` solves to the certified ``--gap``. At its answer
K = UUᵀ (P = P(U), D its certified lower end), it measures:

- the **rank** r: K's eigenvalues above ``RANK_RTOL`` of the largest;
- the **truncation ε-rank**: the smallest k whose top-k part U_k (thin SVD of U) has
  P(U_k) − P ≤ ε·|P|, for ε in ``EPSILONS``. P(U_k) is computed as the certificate's
  upper end is (:func:`kernelsdp.solvers.alm_certificate.primal_upper`). It is an upper
  bound on the ε-rank, since the best rank-k point is at least as good;
- with ``--caps K,K,...`` (the small sizes: each is a full solve), the **capped ε-rank**:
  the ALM with its factor's width capped at k, stopped at ``--cap-products`` products.
  Its best P is an upper bound on the rank-k optimum, re-optimised rather than truncated;
- the **cost of one product** (the inner steps' unit: L·V, the pairs' product and the
  pairs' entries at width s, float32, both cores), timed at the largest n at the rank the
  fit predicts, and the solve's seconds per product there (checks and all).

Then a least-squares fit log r = a + b·log n over the sizes. At ``--predict`` (10⁶) it
prints:
- the rank the fit predicts;
- the solver's own memory formula at that rank
  (:func:`kernelsdp.solvers.low_rank_alm.memory_bytes_for`), against the bar's 18 GiB;
- a solve-time floor: the largest n's product count, as if the count did not grow,
  times its seconds per product, scaled by n·s.

The last two are extrapolations. The script says so and labels them.

    python benchmarks/npkl_rank_need.py --quick                 # 3,000 and 20,000
    python benchmarks/npkl_rank_need.py                         # and 100,000
    python benchmarks/npkl_rank_need.py --n 3000 --caps 12,14,16,17

Measured (docs/measurements.md, "Twentieth pass"; seed 0, certified 7.0e-4 / 6.3e-4 /
8.2e-4): rank 17 / 37 / 68 at 3,000 / 20,000 / 100,000, and the truncation ε-rank at 1e-3
is 17 / 38 / 69, so a point certified to 1e-3 needs the whole rank. Capped at 16 of 3,000's
17, the best point found is 1.9e-3 above the optimum; capped at 14, 9.9e-3. The fit is
r ∝ n^0.40, which gives rank 171 at 10⁶ and a memory formula of 12.6 GiB there. At 100,000 the
solve spent 2.7× one product's time (at its final width, 89) per counted product. If the
count stayed at 100,000's 3,467, the time floor at 10⁶ is 9,146 s, 2.5× the bar. The product
timing varies by about 15 % between runs: 0.083–0.098 s at width 171 and n = 100,000.
After the twenty-first pass (the same solve with less work around each product, and a
product that no longer makes a fresh result), one session's timings put that floor at
7,800 s for the old code and 5,400–5,900 s for the new (docs/measurements.md,
"Twenty-first pass").
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import numpy as np
from npkl_precheck import RANK_RTOL  # K's numerical rank, as the pre-check counts it
from npkl_scale import FROM_ZERO, instance

from kernelsdp.solvers import solve
from kernelsdp.solvers.alm_certificate import primal_upper
from kernelsdp.solvers.alm_problem import ScaledNPKL
from kernelsdp.solvers.low_rank_alm import memory_bytes_for

#: the excesses (P(U_k) − P)/|P| whose ε-ranks are reported
EPSILONS = (1e-2, 1e-3, 1e-4)
#: the issue's 10⁶ bar: memory in GiB, time in seconds
BAR_GIB, BAR_S = 18.0, 3600.0
#: timings of one product: the least of this many
REPEATS = 3


def ordered_factor(U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(U·W, K's eigenvalues): U's columns rotated to K's eigenvectors, largest first (thin
    QR then the SVD of R; K = UUᵀ is unchanged)."""
    Q, R = np.linalg.qr(np.asarray(U, dtype=np.float64))
    W, s, _ = np.linalg.svd(R)
    return Q @ (W * s), s**2


def numerical_rank(eigs: np.ndarray) -> int:
    """K's eigenvalues above ``RANK_RTOL`` of the largest."""
    return int(np.sum(eigs > RANK_RTOL * eigs[0])) if eigs.size else 0


def truncation_curve(f, Us: np.ndarray, upper: float) -> list[tuple[int, float]]:
    """(k, (P(U_k) − P)/|P|) for every k up to U's width (Us ordered, largest first)."""
    return [
        (k, (primal_upper(f, Us[:, :k])[0] - upper) / abs(upper)) for k in range(1, Us.shape[1] + 1)
    ]


def epsilon_ranks(curve: list[tuple[int, float]]) -> dict[str, int | None]:
    """The smallest k whose excess is at most ε, for each ε of ``EPSILONS``."""
    return {f"{eps:g}": next((k for k, x in curve if x <= eps), None) for eps in EPSILONS}


def capped_excess(f, caps: list[int], optimum: float, products: int) -> dict[str, float]:
    """For each cap k: (the best P with the factor's width at most k − ``optimum``)/|optimum|,
    the ALM stopped at ``products`` products (its answer: the last or kept point)."""
    out = {}
    for k in caps:
        r = solve(f, "low-rank-alm", gap_tol=1e-6, rank=k, max_iter=products, **FROM_ZERO)
        out[str(k)] = (r.upper_bound - optimum) / abs(optimum)
    return out


def product_seconds(f, s: int) -> float:
    """The least of ``REPEATS`` timings of one product at width s: L·V, the pairs' product
    and the pairs' entries, float32 (the inner steps' unit of work)."""
    prob = ScaledNPKL(f, np.float32)
    V = np.random.default_rng(0).standard_normal((f.n, s)).astype(np.float32)
    V /= np.linalg.norm(V)
    out = np.empty_like(V)
    prob.set_multipliers(np.zeros(f.pairs.m))
    best = math.inf
    for _ in range(REPEATS):
        t = time.perf_counter()
        prob.times_L(V, out)
        prob.times_pairs(V, out)
        prob.pair_entries(V)
        best = min(best, time.perf_counter() - t)
    return best


def measure(f, gap: float, caps: list[int], cap_products: int) -> dict:
    """One size (``instance(n)``): the solve, the rank, the ε-ranks (truncated and, with
    ``caps``, capped)."""
    n = f.n
    t = time.perf_counter()
    r = solve(f, "low-rank-alm", gap_tol=gap, **FROM_ZERO)
    solve_s = time.perf_counter() - t
    Us, eigs = ordered_factor(r.kernel.U)
    upper = primal_upper(f, Us)[0]
    curve = truncation_curve(f, Us, upper)
    row = {
        "n": n,
        "status": r.termination.value,
        "certified_gap": float(r.info["relative_gap"]),
        "products": int(r.info["products"]),
        "solve_s": solve_s,
        "width": int(Us.shape[1]),
        "rank": numerical_rank(eigs),
        "truncation_eps_rank": epsilon_ranks(curve),
        "excess_at": {str(k): x for k, x in curve[-6:]},
    }
    if caps:
        row["capped_excess"] = capped_excess(f, caps, r.lower_bound, cap_products)
    return row


def power_fit(ns: list[int], ranks: list[int]) -> tuple[float, float]:
    """(a, b) of the least-squares fit log r = a + b·log n."""
    b, a = np.polyfit(np.log(ns), np.log(ranks), 1)
    return float(a), float(b)


def prediction(rows: list[dict], f, target: int) -> dict:
    """The fit's rank at ``target``, the memory formula there, and the solve-time floor
    (module docstring), from the largest n's (``f``) product count and seconds per product."""
    ns, ranks = [r["n"] for r in rows], [r["rank"] for r in rows]
    a, b = power_fit(ns, ranks)
    s = int(math.ceil(math.exp(a) * target**b))
    big = next(r for r in rows if r["n"] == f.n)
    per_product = product_seconds(f, s)
    # the width grows during the solve; its end (the widest) makes the overhead the least,
    # so the floor stays a floor (at the rank, 68 of 89 at 100,000, it read 3.4x, not 2.7x)
    overhead = big["solve_s"] / big["products"] / product_seconds(f, big["width"])
    m, nnz = int(1.2 * target), int(f.L.nnz * target / f.n)
    gib = memory_bytes_for(target, m, nnz, s, inner="newton") / 2**30
    floor = big["products"] * per_product * (target / big["n"]) * overhead
    return {
        "exponent": b,
        "rank": s,
        "memory_gib": gib,
        "product_s_at_largest_n": per_product,
        "overhead": overhead,
        "time_floor_s": floor,
    }


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--n", type=int, nargs="+", default=[3000, 20000, 100000])
    ap.add_argument("--quick", action="store_true", help="n = 3,000 and 20,000")
    ap.add_argument("--gap", type=float, default=1e-3, help="the certified gap solved to")
    ap.add_argument("--caps", default="", help="widths for the capped ε-rank (small n)")
    ap.add_argument("--cap-products", type=int, default=6000, metavar="P")
    ap.add_argument("--predict", type=int, default=1_000_000, metavar="N")
    a = ap.parse_args()
    sizes = [3000, 20000] if a.quick else a.n
    caps = [int(k) for k in a.caps.split(",") if k]
    rows, largest = [], None
    for n in sorted(sizes):
        largest = instance(n)
        rows.append(measure(largest, a.gap, caps, a.cap_products))
        print(json.dumps(rows[-1]), flush=True)
    for r in rows:
        print(
            f"n = {r['n']:>9,}: rank {r['rank']:>4} (width {r['width']}); truncation ε-rank "
            + ", ".join(f"{e}: {k}" for e, k in r["truncation_eps_rank"].items())
            + f"; {r['products']:,} products, certified {r['certified_gap']:.1e}"
        )
    if len(rows) < 2:
        return 0
    p = prediction(rows, largest, a.predict)
    print(
        f"extrapolated to n = {a.predict:,} (fit r ∝ n^{p['exponent']:.2f}): rank {p['rank']}; "
        f"the solver's memory formula {p['memory_gib']:.1f} GiB (bar {BAR_GIB:g}); "
        f"solve time if the products did not grow ≥ {p['time_floor_s']:,.0f} s (bar "
        f"{BAR_S:,.0f} s; one product {p['product_s_at_largest_n']:.3f} s at n = "
        f"{max(r['n'] for r in rows):,} and that width, {p['overhead']:.1f}× that a product "
        "in the solve) — estimates, not measurements"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
