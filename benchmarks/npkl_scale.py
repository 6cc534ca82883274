"""NPKL hinge loss with the trace capacity at n = 100,000 (``--quick``: 20,000), graph
construction included: where the time goes, and the peak memory.

The instance: two-Gaussian data in 10 dimensions (``simplenpkl_speed.gaussian_mixture``),
mutual 5-NN Laplacian (scikit-learn's NearestNeighbors), m = 1.2 n random pairs, C = 1,
tr K ≤ B = n, solved by low-rank ADMM (seed 001; ``--precision single`` runs its iteration
in float32) to its certified gap, then certified from scratch, in double, by the
NPKL certificate (λ_min by Lanczos on the sparse M(β); no n × n object).
Each stage is timed; the whole run is profiled with cProfile and its top entries printed
(by cumulative and by own time), with the peak RSS from ``resource.getrusage``.  The bars
of issue #16: certified gap ≤ 1e-3 in under 5 minutes and 4 GiB at n = 100,000.

    python benchmarks/npkl_scale.py --quick      # n = 20,000
    python benchmarks/npkl_scale.py              # n = 100,000
    python benchmarks/npkl_scale.py --n 1000000 --no-profile
    python benchmarks/npkl_scale.py --time-limit 1200   # ADMM stopped at 20 minutes
    python benchmarks/npkl_scale.py --loss linear --n 1000000 --no-profile   # the closed form

``--loss linear`` solves by the trace capacity's closed form (K = B·vvᵀ, one λ_min of
L − C·T) instead of ADMM, which does not take the linear loss.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time

from simplenpkl_speed import gaussian_mixture, peak_rss_gib

from kernelsdp.data import PairwiseConstraints, knn_laplacian
from kernelsdp.formulations import NPKL
from kernelsdp.solvers import solve
from kernelsdp.verify import certify


def _progress(rec: dict) -> None:
    """One line on stderr every 50 iterations (the run takes minutes at n = 100,000)."""
    gap = rec.get("relative_gap")
    print(f"  iteration {rec['iteration']:5d}  {rec['time_s']:7.1f} s  rank {rec['rank']:3d}  "
          f"residuals {max(rec['primal_1'], rec['primal_2']):.1e}  objective "
          f"{rec['primal']:.8g}  gap {gap if gap == gap else float('nan'):.1e}",
          file=sys.stderr, flush=True)


def stages(n: int, loss: str, precision: str = "double", time_limit: float | None = None,
           **admm) -> dict:
    times = {}
    t = time.perf_counter()
    X, y = gaussian_mixture(n)
    times["data"] = time.perf_counter() - t
    t = time.perf_counter()
    L = knn_laplacian(X, 5)
    times["graph (mutual 5-NN Laplacian)"] = time.perf_counter() - t
    t = time.perf_counter()
    pairs = PairwiseConstraints.sample(y, int(1.2 * n), seed=0)
    f = NPKL(L=L, pairs=pairs, loss=loss, capacity="trace", C=1.0, B=float(n))
    times["pairs and problem"] = time.perf_counter() - t
    t = time.perf_counter()
    if loss == "linear":
        r = solve(f, "closed-form", time_limit=time_limit)
    else:
        r = solve(f, "admm", precision=precision, progress=_progress, time_limit=time_limit, **admm)
    times[f"{r.solver} solve"] = time.perf_counter() - t
    t = time.perf_counter()
    cert = certify(f, r)
    times["certificate from scratch"] = time.perf_counter() - t
    gap = r.info.get("relative_gap")
    if gap is None and r.upper_bound is not None and r.lower_bound is not None:  # the closed form
        gap = (r.upper_bound - r.lower_bound) / max(1.0, abs(r.upper_bound))
    return {"times": times, "solver": r.solver, "status": r.termination.value,
            "iterations": r.iterations, "rank": r.kernel.rank,
            "gap": float("nan") if gap is None else gap, "verdict": cert.verdict,
            "width": cert.width, "lower": cert.lower, "upper": cert.upper,
            "admm_certificate_s": r.info.get("certificate_s"), "nnz_L": int(L.nnz), "m": pairs.m}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="n = 20,000 instead of 100,000")
    ap.add_argument("--n", type=int, default=None)
    ap.add_argument("--loss", default="hinge", choices=("hinge", "squared-hinge", "l2", "l1", "linear"))
    ap.add_argument("--no-profile", action="store_true", help="time the stages only")
    ap.add_argument("--precision", default="double", choices=("single", "double"),
                    help="ADMM's arithmetic (the certificates are double either way)")
    ap.add_argument("--top", type=int, default=25, help="profile entries to print")
    ap.add_argument("--time-limit", type=float, default=None, metavar="S",
                    help="stop ADMM after S seconds (its point is still certified and reported)")
    ap.add_argument("--rank-start", type=int, default=None, metavar="R",
                    help="ADMM's starting width (default 32; profile at the final width with it)")
    ap.add_argument("--rank", type=int, default=None, metavar="R", help="ADMM's width cap")
    a = ap.parse_args()
    admm = {k: v for k, v in (("rank_start", a.rank_start), ("rank", a.rank)) if v is not None}
    n = a.n or (20_000 if a.quick else 100_000)
    prof = None if a.no_profile else cProfile.Profile()
    t0 = time.perf_counter()
    if prof is not None:
        prof.enable()
    try:
        out = stages(n, a.loss, a.precision, a.time_limit, **admm)
    except KeyboardInterrupt:
        print(f"npkl_scale: interrupted after {time.perf_counter() - t0:.0f} s (peak RSS "
              f"{peak_rss_gib():.2f} GiB); --time-limit stops ADMM with its point certified",
              file=sys.stderr)
        return 130
    if prof is not None:
        prof.disable()
    total = time.perf_counter() - t0
    print(f"NPKL {a.loss}, trace B = n, n = {n:,}, m = {out['m']:,}, nnz(L) = {out['nnz_L']:,}, "
          + ("the closed form" if out["solver"] == "npkl-closed-form"
             else f"ADMM in {a.precision} precision"))
    for name, s in out["times"].items():
        print(f"  {name:<32}{s:9.1f} s  ({100 * s / total:4.1f} %)")
    print(f"  {'total':<32}{total:9.1f} s  (bar at n = 100,000: 300 s)")
    own = ("" if out["admm_certificate_s"] is None else
           f" (its own certificates: {out['admm_certificate_s']:.1f} s)")
    print(f"{out['solver']}: {out['status']}, {out['iterations']} iterations, rank {out['rank']}, "
          f"its gap {out['gap']:.2e}{own}; certified from scratch: {out['verdict']}, interval "
          f"[{out['lower']:.8g}, {out['upper']:.8g}], width {out['width']:.1e}")
    print(f"peak RSS {peak_rss_gib():.2f} GiB (bar at n = 100,000: 4 GiB)")
    if prof is not None:
        for key in ("cumulative", "tottime"):
            buf = io.StringIO()
            pstats.Stats(prof, stream=buf).sort_stats(key).print_stats(a.top)
            text = buf.getvalue()
            print(f"\n== profile, top {a.top} by {key} ==")
            print(text[text.find("   ncalls"):].rstrip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
