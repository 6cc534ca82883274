"""N-cut kernel learning (seed 003): SDP₁ time for d base kernels, as n grows.

The StQP/SDP₁ has size d×d whatever n is; the only n-dependent work is building û and v̂,
which touches each example's points only (kernels are functions evaluated in row blocks
on those points, never an n×n copy).  This prints, for n = 1,000 … 100,000 points and
d = 50 base kernels: the time to build (û, v̂, Q), the SDP₁ time (Clarabel), the exact /
local StQP values and the rounded SDP₁ value.

    python benchmarks/ncut_sdp1_speed.py [--quick]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from kernelsdp.formulations import NCutMKL
from kernelsdp.solvers import solve


def rbf(width: float, feature: int | None = None):
    def k(A, B):
        if feature is not None:
            A, B = A[:, [feature]], B[:, [feature]]
        d2 = (A * A).sum(1)[:, None] + (B * B).sum(1)[None] - 2 * A @ B.T
        return np.exp(-np.maximum(d2, 0) / (2 * width**2))

    return k


def instance(n: int, d_kernels: int, examples: int, size: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    D = 10
    y = rng.integers(0, 2, n)
    X = rng.standard_normal((n, D)) + 1.0 * y[:, None] * (np.arange(D) < 3)
    kernels = [rbf(w) for w in np.geomspace(0.5, 8, 10)]
    kernels += [rbf(1.0, f) for f in range(D)]
    while len(kernels) < d_kernels:  # noise kernels: RBF on random projections of noise
        kernels.append(rbf(float(rng.uniform(0.5, 4)), int(rng.integers(3, D))))
    ex = [(idx, y[idx]) for idx in (rng.choice(n, size, replace=False) for _ in range(examples))]
    return X, kernels[:d_kernels], ex


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    d = 50
    sizes = [1_000, 10_000] if a.quick else [1_000, 10_000, 100_000]
    print(f"d = {d} base kernels, 20 examples of 200 points each")
    print(
        f"{'n':>8} {'build s':>9} {'SDP1 s':>8} {'bound':>12} {'rounded':>12} {'local':>12} "
        f"{'rank':>5}"
    )
    for n in sizes:
        X, kernels, ex = instance(n, d, 20, 200)
        t = time.perf_counter()
        f = NCutMKL.from_kernels(kernels, ex, X=X)
        build = time.perf_counter() - t
        r = solve(f, "clarabel")
        loc = solve(f, "local")
        print(
            f"{n:>8} {build:>9.2f} {r.solve_time_s:>8.2f} {r.lower_bound:>12.6g} "
            f"{r.objective:>12.6g} {loc.objective:>12.6g} {r.info['rank']:>5}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
