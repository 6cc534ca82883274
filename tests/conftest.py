"""Shared fixtures: small NPKL instances with known answers, used by every solver test."""

from __future__ import annotations

import importlib.util
import pathlib
import sys
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from kernelsdp.data import PairwiseConstraints, knn_laplacian, load
from kernelsdp.formulations import NPKL

N_FIXTURE = 24
BENCH = pathlib.Path(__file__).resolve().parents[1] / "benchmarks"


def load_benchmark(name: str):
    """benchmarks/<name>.py as a module (its sibling imports resolved from benchmarks/)."""
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.remove(str(BENCH))


@pytest.fixture(autouse=True, scope="session")
def _private_results_store(tmp_path_factory):
    """No test reads or writes the user's out/results.sqlite: a test that forgets to pass
    its own store gets a fresh one for the session."""
    mp = pytest.MonkeyPatch()
    mp.setenv("KERNELSDP_STORE", str(tmp_path_factory.mktemp("store") / "results.sqlite"))
    yield
    mp.undo()


@pytest.fixture(scope="session")
def iris_small():
    """24 Iris points (fixed seed), mutual 5-NN Laplacian, pairs by the paper protocol."""
    X, y = load("iris")
    idx = np.sort(np.random.default_rng(0).choice(len(y), N_FIXTURE, replace=False))
    X, y = X[idx], y[idx]
    pairs = PairwiseConstraints.from_labels(y, ratio=0.5, seed=1)
    return knn_laplacian(X, 5), pairs, y


def make_npkl(fixture, loss, capacity, C=1.0, B=float(N_FIXTURE)):
    L, pairs, _ = fixture
    return NPKL(L=L, pairs=pairs, loss=loss, capacity=capacity, C=C, B=B)


@pytest.fixture
def two_points():
    """Golden: no graph, one must-link (0,1), C = B = 1.  K* = [[.5,.5],[.5,.5]], value −0.5."""
    L = sp.csr_matrix((2, 2))
    return NPKL(
        L=L,
        pairs=PairwiseConstraints.from_arrays([[0, 1]], [1], 2),
        loss="linear",
        capacity="frobenius",
        C=1.0,
        B=1.0,
    )


def two_class_npkl(n: int, pairs_per_point: float, loss: str, capacity: str, **params) -> NPKL:
    """n Gaussian points in 3-D with random two-class labels (seed 0): the mutual 5-NN
    Laplacian and pairs_per_point·n sampled pairs — the memory tests' instance."""
    rng = np.random.default_rng(0)
    pairs = PairwiseConstraints.sample(rng.integers(0, 2, n), int(pairs_per_point * n), seed=0)
    return NPKL(
        L=knn_laplacian(rng.standard_normal((n, 3)), 5),
        pairs=pairs,
        loss=loss,
        capacity=capacity,
        **params,
    )


def uci_trace_npkl(name: str, n: int, loss: str) -> NPKL:
    """n points of a bundled UCI set (seed 0), half its label pairs (seed 1), the mutual 5-NN
    Laplacian, tr K ≤ n, C = 1 — the low-rank augmented Lagrangian's fixtures."""
    X, y = load(name)
    idx = np.sort(np.random.default_rng(0).choice(len(y), n, replace=False))
    pairs = PairwiseConstraints.from_labels(y[idx], ratio=0.5, seed=1)
    return NPKL(
        L=knn_laplacian(X[idx], 5), pairs=pairs, loss=loss, capacity="trace", C=1.0, B=float(n)
    )


def scaled_hinge_state(r: int, scale: float):
    """The #30 row prototypes' fixture: the scaled hinge problem on 30 wine points (double),
    multipliers drawn in the box, a random n×r factor of entries about ``scale``, ρ = 2."""
    from kernelsdp.solvers.alm_problem import ScaledNPKL

    prob = ScaledNPKL(uci_trace_npkl("wine", 30, "hinge"), np.float64)
    beta = np.random.default_rng(3).uniform(0.0, 1.0, prob.m) * prob.t
    V = np.random.default_rng(4).standard_normal((prob.n, r)) * scale
    return prob, beta, 2.0, V


def traced_peak(run):
    """(run(), the peak bytes tracemalloc saw while it ran)."""
    tracemalloc.start()
    try:
        value = run()
        return value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def scale_row(n: int, seed: int, products: int, status: str = "optimal") -> dict:
    """A row of benchmarks/npkl_scale.py's side-by-side run (its child's JSON), for the tests
    that drive the parent with stubbed children."""
    return {
        "solver": "low-rank-alm",
        "n": n,
        "seed": seed,
        "status": status,
        "iterations": products,
        "products": products,
        "eigensolves": 10,
        "graph_s": 0.1,
        "solve_s": 1.0,
        "total_s": 1.1,
        "own_gap": 5e-4,
        "own_lower": "proof",
        "scratch_width": 5e-4,
        "rank": 10,
        "peak_rss_gib": 0.1,
        "certificate_rss_gib": 0.1,
        "curve": [(0.5, 1e-2, 500), (1.0, 5e-4, products)],  # (time, gap, products)
    }
