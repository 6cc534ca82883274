"""The low-rank ALM's spectral start (issue #30, fortieth pass,
:mod:`kernelsdp.solvers.alm_start`, option ``spectral_start``): the start spans the bottom
of M(β̃₀) on the whole trace, its width follows the cap and n, a run from it certifies an
interval that meets the plain solver's with the start's products counted as the
eigensolver's, it is the default (0: K = 0, the plain path), the option is checked and the
benchmark names the plain path, and the start's peak is within the memory formula's term."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from conftest import load_benchmark, uci_trace_npkl

from kernelsdp.errors import InvalidParameterError
from kernelsdp.solvers import solve
from kernelsdp.solvers.alm_outer import Start, _Run, iterate
from kernelsdp.solvers.alm_problem import ScaledNPKL
from kernelsdp.solvers.alm_start import (
    RETIRE_RTOL,
    SPECTRAL_START,
    START_ARRAYS,
    START_DOUBLE,
    START_ITERATIONS,
    retire,
    spectral_start,
    start_width,
)
from kernelsdp.solvers.low_rank_alm import (
    LowRankALM,
    LowRankALMOptions,
    _rank_cap,
    memory_bytes_for,
)


@pytest.fixture(scope="module")
def instance():
    return load_benchmark("npkl_scale").instance(1500)


def test_the_start_spans_the_bottom_of_m_at_zero_on_the_whole_trace(instance):
    prob = ScaledNPKL(instance, np.float32)
    asked, own = [], prob.dual_times
    prob.dual_times = lambda Y: asked.append(Y.reshape(prob.n, -1).shape[1]) or own(Y)
    X, products = spectral_start(prob, np.zeros(prob.m), prob.C, 16, 0)
    assert X.dtype == np.float32 and 0 < X.shape[1] <= 16
    # every column multiplied by M is counted: LOBPCG's start, its iterations and its last
    # Rayleigh–Ritz step (8 blocks of 16 with five iterations, SciPy 1.17)
    assert products == sum(asked) >= 16 * (START_ITERATIONS + 1)
    assert np.isclose(np.linalg.norm(X.astype(np.float64)), 1.0, rtol=1e-6)  # tr K = B
    M = prob.M.toarray()  # M(β̃₀), as the start left it: every hinge pair active
    spectrum = np.linalg.eigvalsh(M)
    Q = np.linalg.qr(X.astype(np.float64))[0]
    ritz = np.linalg.eigvalsh(Q.T @ M @ Q)
    # not converged (five iterations) but within the bottom 4k of 1,500 (measured: 46th)
    assert ritz[-1] < 0 and ritz[-1] < spectrum[4 * 16]
    R = np.linalg.qr(np.random.default_rng(0).standard_normal(X.shape))[0]
    assert np.linalg.eigvalsh(R.T @ M @ R)[0] > 0  # a random block of the width does not


def test_the_width_follows_the_cap_and_n():
    assert start_width(100_000, 64, 256) == 64
    assert start_width(100_000, 64, 40) == 40
    assert start_width(100, 64, 256) == 20  # LOBPCG's dense fallback below n = 5k
    assert start_width(4, 64, 256) == 0


def test_a_run_from_the_start_certifies_and_meets_the_plain_interval(instance):
    plain = solve(instance, "low-rank-alm", spectral_start=0)
    r = solve(instance, "low-rank-alm", spectral_start=16)
    first, plain_first = (next(h for h in x.history if "fw_gap" in h) for x in (r, plain))
    assert plain_first["rank"] == 0 and 0 < first["rank"] <= 16
    assert r.info["products"] != plain.info["products"]
    assert r.info["certificate"].lower_label == "proof"
    assert r.info["relative_gap"] <= 1e-3
    assert r.lower_bound <= plain.upper_bound and plain.lower_bound <= r.upper_bound


def test_the_start_s_products_are_the_eigensolver_s_and_zero_is_k_zero(instance):
    o = LowRankALMOptions(spectral_start=16)
    run = _Run(instance, o, _rank_cap(instance, o))
    prob = ScaledNPKL(instance, np.float32)
    X, products = spectral_start(prob, np.zeros(prob.m), prob.C, 16, 0)
    assert run.eig_products == products and run.prob.products == 0
    np.testing.assert_array_equal(run.X0, X)
    plain = _Run(instance, LowRankALMOptions(spectral_start=0), run.cap)
    assert plain.eig_products == 0 and plain.X0.shape[1] == 0  # K = 0, as before
    default = _Run(instance, LowRankALMOptions(), run.cap)  # the start, at its width
    assert default.X0.shape[1] > 16 and default.retire_budget == default.X0.shape[1]
    # a warm start is the caller's: the spectral start is not drawn over it
    given = _Run(instance, o, run.cap, Start(np.ones((instance.n, 1)), np.zeros(prob.m)))
    assert given.eig_products == 0 and given.X0.shape[1] == 1


def test_the_option_is_checked_and_the_benchmark_names_it():
    f = uci_trace_npkl("wine", 30, "hinge")
    for bad in (-1, 10_000, "64"):
        with pytest.raises(InvalidParameterError):
            solve(f, "low-rank-alm", spectral_start=bad)
    assert LowRankALMOptions().spectral_start == SPECTRAL_START  # the default
    options = load_benchmark("npkl_scale")._variant_options("zero")
    assert options == {"spectral_start": 0}


def test_the_start_s_peak_is_within_the_memory_formula_s_term():
    f = load_benchmark("npkl_scale").instance(6000)
    prob = ScaledNPKL(f, np.float32)
    k = 24
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    spectral_start(prob, np.zeros(prob.m), prob.C, k, 0)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    term = (4 * START_ARRAYS + 8 * START_DOUBLE) * f.n * k
    # measured 16.4 float32 words of the formula's 18 (the lower bound at 0.85, not 0.9:
    # the product's double block is transient and is not always live at LOBPCG's peak)
    assert 0.85 * term < peak <= term
    args = (f.n, f.pairs.m, f.L.nnz, 8)
    assert memory_bytes_for(*args, start=200) > memory_bytes_for(*args)  # the phase counts
    # and the solver's formula passes the option's width on (at most n/5 and the cap)
    o = LowRankALMOptions(spectral_start=200, precision="double")
    cap = _rank_cap(f, o)
    assert LowRankALM().memory_bytes(f, o) == memory_bytes_for(
        f.n,
        f.pairs.m,
        f.L.nnz,
        cap,
        8,
        o.verify_max_n,
        False,
        o.anderson,
        o.inner,
        start=start_width(f.n, 200, cap),
    )
    assert LowRankALM().memory_bytes(f, o) > LowRankALM().memory_bytes(
        f, LowRankALMOptions(spectral_start=0, precision="double")
    )


def test_retire_drops_the_smallest_directions_below_the_share_within_the_budget():
    rng = np.random.default_rng(3)
    Q = np.linalg.qr(rng.standard_normal((200, 6)))[0]
    weights = np.array([1.0, 0.5, 0.1, 3e-5, 1e-6, 0.0])  # VᵀV's eigenvalues
    assert weights[3] < RETIRE_RTOL * weights[0] < weights[2]
    mix = np.linalg.qr(rng.standard_normal((6, 6)))[0]
    X = (Q * np.sqrt(weights)) @ mix  # the directions spread over all six columns

    def top(j):  # K's part on the j largest directions
        return (Q[:, :j] * weights[:j]) @ Q[:, :j].T

    Y, left = retire(X, 10)
    assert Y.shape[1] == 3 and left == 7  # the three below the share
    np.testing.assert_allclose(Y @ Y.T, top(3), atol=1e-12)
    Y, left = retire(X, 2)  # the budget: the two smallest only
    assert Y.shape[1] == 4 and left == 0
    np.testing.assert_allclose(Y @ Y.T, top(4), atol=1e-12)
    for budget in (0, -1):
        Y, left = retire(X, budget)
        assert Y is X and left == budget
    Z = Q[:, :3] * np.sqrt(weights[:3])
    assert retire(Z, 5)[0] is Z  # nothing below the share: X itself
    assert retire(X[:, :0], 5)[0].shape == (200, 0)


def test_a_run_from_the_start_retires_its_dead_directions_within_its_budget(instance):
    o = LowRankALMOptions(spectral_start=64, precision="double")
    run = _Run(instance, o, _rank_cap(instance, o))
    width = run.X0.shape[1]
    assert run.retire_budget == width > 32
    pt, status = iterate(run)
    # measured: 59 directions at the start, 14 at the end (32 from K = 0)
    assert 0 <= run.retire_budget < width and pt.X.shape[1] < width / 2
    plain = _Run(instance, LowRankALMOptions(spectral_start=0, precision="double"), run.cap)
    assert plain.retire_budget == 0  # from K = 0 nothing is retired
