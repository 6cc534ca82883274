"""Spectral metric learning (seed 002) at scale: the landmark version.

Prints the fit time for n = 100,000 points with m = 1,000 landmarks (K = 10 neighbours),
the time to embed 10,000 new points, and, on a smaller set, how far the landmark kernel
with m = n is from the full K_β (it should be ~0).

    python benchmarks/spectral_metric_speed.py [--quick]
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from kernelsdp.data import PairwiseConstraints, xor
from kernelsdp.metric import SpectralMetricLearning, class_separation


def similar_pairs(y, m, seed=0):
    return PairwiseConstraints.sample(y, m, seed, must_link_only=True).as_array()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    n, m, n_new = (20_000, 500, 2_000) if a.quick else (100_000, 1_000, 10_000)
    X, y = xor(n)
    P = similar_pairs(y, 100)
    est = SpectralMetricLearning(n_landmarks=m, n_neighbors=10)
    t = time.perf_counter()
    est.fit(X, pairs=P)
    fit_s = time.perf_counter() - t
    Xn, yn = xor(n_new, seed=1)
    t = time.perf_counter()
    Y = est.transform(Xn)
    embed_s = time.perf_counter() - t
    print(f"landmark fit: n = {n}, m = {m}: {fit_s:.2f} s   (bar: < 30 s)")
    print(f"embed {n_new} new points: {embed_s:.2f} s   (bar: < 5 s)")
    print(
        f"J on the new points: input {class_separation(Xn, yn):.3f}, "
        f"learned {class_separation(Y, yn):.3f}"
    )
    Xs, ys = xor(400, seed=2)
    Ps = similar_pairs(ys, 40, seed=2)
    full = SpectralMetricLearning().fit(Xs, pairs=Ps).learned_kernel(Xs)
    land = SpectralMetricLearning(n_landmarks=400).fit(Xs, pairs=Ps).learned_kernel(Xs)
    print(
        f"m = n = 400: max |K̃_β − K_β| = {np.abs(full - land).max():.2e} (bar: 1e-6), "
        f"max |K_β| = {np.abs(full).max():.2e}"
    )
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
