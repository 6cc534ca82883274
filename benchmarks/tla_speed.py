"""MWC-TLA (seed 004) at scale: n = 1,000,000 points, D = 10 features, J = 10 ramps.

The n-dependent work is the ramp knots (quantiles on a sample) and Q = GᵀG with
G = [φ_j(X)ᵀy] accumulated in row chunks — O(n J D) time, O(J D) memory; the SDP is
(J+1)×(J+1) whatever n is.  Prints each stage's time and the peak memory.

    python benchmarks/tla_speed.py [--quick]
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from kernelsdp.data.ramps import RampBasis, label_alignment
from kernelsdp.formulations import MWCTLA
from kernelsdp.solvers import solve


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
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
    print(f"MWC-TLA, n = {n:,}, D = {D}, J = {J}: ramps {t1 - t0:.2f} s, Q {t2 - t1:.2f} s, "
          f"SDP (tightened, Clarabel) {t3 - t2:.2f} s, total {t3 - t0:.2f} s   (bar: < 20 s)")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB "
          f"(the data X alone is {X.nbytes / 2**30:.2f} GiB; bar: < 2 GB)")
    print(f"status {r.termination.value}, alignment {r.objective:.6g}, monotone {r.info['monotone']}, "
          f"rank M {r.info['rank_M']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
