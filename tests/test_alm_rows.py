"""The hubs' rows minimised exactly before a Newton round (issue #30, twenty-eighth pass,
:mod:`kernelsdp.solvers.alm_rows`): which rows carry a pocket, the ball's multiplier
without a product, one row's minimiser (its gradient vanishes, ψ falls), a sweep's point
(the L·V it updates is L·V, φ falls inside the ball), and the solver recording the rows
of its pockets."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import load_benchmark, scaled_hinge_state, uci_trace_npkl

from kernelsdp.solvers import solve
from kernelsdp.solvers.alm_inner import evaluate
from kernelsdp.solvers.alm_problem import ScaledNPKL
from kernelsdp.solvers.alm_rows import (
    POCKET_ROWS,
    POCKET_SHARE,
    PairIndex,
    ball_multiplier,
    pocket_rows,
    row_minimiser,
    sweep_rows,
)

LOSSES = ("hinge", "squared-hinge", "l2", "l1")


def test_pocket_rows_are_the_fewest_that_carry_the_share():
    v = np.zeros(100)
    v[[7, 3, 50, 9]] = [4.0, 3.0, 1.0, 0.1]
    rows = pocket_rows(v)
    # 16 / 26.01 = 0.62, (16 + 9) / 26.01 = 0.96 >= 0.9: rows 7 and 3, the larger first
    assert rows.tolist() == [7, 3]
    share = (v[rows] ** 2).sum() / (v**2).sum()
    assert share >= POCKET_SHARE


def test_a_spread_vertex_names_no_rows():
    assert pocket_rows(np.ones(1000)).size == 0
    v = np.zeros(1000)
    v[:POCKET_ROWS] = 1.0  # on the cap's rows: the fewest of them that make the share
    k = int(np.ceil(POCKET_SHARE * POCKET_ROWS))
    assert pocket_rows(v).size == k and set(pocket_rows(v).tolist()) <= set(range(POCKET_ROWS))


def test_pair_index_lists_each_rows_pairs_and_partners():
    prob = ScaledNPKL(uci_trace_npkl("wine", 30, "hinge"), np.float64)
    index = PairIndex(prob)
    for i in range(prob.n):
        pairs, partners = index.at(i)
        mine = np.flatnonzero((prob.i == i) | (prob.j == i))
        assert sorted(pairs.tolist()) == mine.tolist()
        other = np.where(prob.i[pairs] == i, prob.j[pairs], prob.i[pairs])
        assert partners.tolist() == other.tolist()


def test_ball_multiplier_is_minus_half_the_gradients_inner_product_on_the_sphere():
    prob, beta, rho, V = scaled_hinge_state(4, 1.0)
    V /= np.linalg.norm(V)
    pt = evaluate(prob, V, beta, rho)
    _, bt = prob.envelope(pt.w, beta, rho)
    prob.set_multipliers(bt)
    G = 2.0 * prob.a * (pt.LX + prob.times_pairs(V, np.empty_like(V)))
    vg = float(np.sum(V * G))
    assert ball_multiplier(prob, pt, beta, rho) == pytest.approx(max(0.0, -vg / 2), rel=1e-10)
    inside = evaluate(prob, 0.5 * V, beta, rho)
    assert ball_multiplier(prob, inside, beta, rho) == 0.0


@pytest.mark.parametrize("loss", LOSSES)
def test_a_rows_minimiser_zeroes_its_gradient_and_lowers_phi(loss):
    """Inside the ball (ν = 0) ψ_i is φ's restriction to row i: φ falls, and φ's gradient
    at that row (a central difference) vanishes at the minimiser, except at a kink."""
    prob = ScaledNPKL(uci_trace_npkl("wine", 40, loss), np.float64)
    rng = np.random.default_rng(5)
    beta = prob.loss.project(rng.uniform(-1, 1, prob.m) * prob.t, prob.t, prob.C)
    V = rng.standard_normal((prob.n, 3))
    V *= 0.5 / np.linalg.norm(V)
    rho, index = 2.0, PairIndex(prob)
    i = int(np.argmax(np.bincount(np.concatenate([prob.i, prob.j]), minlength=prob.n)))
    before = evaluate(prob, V, beta, rho).value
    X = V.copy()
    X[i] = row_minimiser(prob, X, i, beta, rho, 0.0, index)
    after = evaluate(prob, X, beta, rho).value
    assert after < before
    h, grad = 1e-6, np.empty(3)
    for k in range(3):
        up, down = X.copy(), X.copy()
        up[i, k] += h
        down[i, k] -= h
        grad[k] = (evaluate(prob, up, beta, rho).value - evaluate(prob, down, beta, rho).value) / (
            2 * h
        )
    if loss in ("l2", "squared-hinge"):  # smooth envelopes: the minimiser is stationary
        assert np.linalg.norm(grad) <= 1e-6 * max(1.0, abs(after))
    # whatever the loss, no coordinate move of the row lowers φ
    for k in range(3):
        for s in (1e-3, -1e-3):
            Y = X.copy()
            Y[i, k] += s
            assert evaluate(prob, Y, beta, rho).value >= after - 1e-12


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_sweep_returns_the_point_it_made_and_lowers_phi_inside_the_ball(dtype):
    prob = ScaledNPKL(uci_trace_npkl("iris", 60, "hinge"), dtype)
    rng = np.random.default_rng(6)
    beta = prob.loss.project(rng.uniform(-1, 1, prob.m) * prob.t, prob.t, prob.C)
    V = rng.standard_normal((prob.n, 4))
    V = (V * 0.3 / np.linalg.norm(V)).astype(dtype)
    start = evaluate(prob, V.copy(), beta, 1.0)
    value = start.value
    rows = np.array([2, 11, 30, 31, 47])
    pt = sweep_rows(prob, start, beta, 1.0, rows, PairIndex(prob))
    assert pt.X.dtype == dtype and pt.value < value
    assert pt.X is start.X and pt.LX is start.LX  # in place: no second n×s point
    unchanged = np.setdiff1d(np.arange(prob.n), rows)
    np.testing.assert_array_equal(pt.X[unchanged], V[unchanged])  # inside: no rescaling
    again = evaluate(prob, np.array(pt.X), beta, 1.0)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(pt.LX, again.LX, rtol=tol, atol=tol * np.abs(again.LX).max())
    assert pt.value == pytest.approx(again.value, rel=tol)


def test_a_sweep_on_the_sphere_stays_in_the_ball():
    prob, beta, rho, V = scaled_hinge_state(3, 1.0)
    V /= np.linalg.norm(V)
    pt = sweep_rows(prob, evaluate(prob, V, beta, rho), beta, rho, np.arange(10), PairIndex(prob))
    assert np.sum(pt.X * pt.X) <= 1 + 1e-12
    np.testing.assert_allclose(pt.LX, prob.L @ pt.X, rtol=1e-10, atol=1e-12)


def test_the_solver_sweeps_the_rows_of_its_pockets(monkeypatch):
    """On the benchmark's problem at n = 600 (two Gaussians, m = 1.2n random pairs: hubs
    with several pairs) the checks find pockets on a few rows; the run keeps those rows,
    sweeps them before its Newton rounds, and certifies the answer."""
    from kernelsdp.solvers import alm_outer

    swept: list[np.ndarray] = []
    original = alm_outer.sweep_rows

    def spy(prob, pt, beta, rho, rows, index):
        swept.append(rows.copy())
        return original(prob, pt, beta, rho, rows, index)

    monkeypatch.setattr(alm_outer, "sweep_rows", spy)
    f = load_benchmark("npkl_scale").instance(600)
    # from K = 0: there the checks find pockets at this size (from the spectral start, the
    # default since the forty-first pass, none is found here, so nothing is swept), and
    # without the pockets solved as blocks before the checks (the default since the
    # forty-fourth pass), which close them before a check can find them
    r = solve(f, "low-rank-alm", gap_tol=1e-3, spectral_start=0, pocket_blocks=False)
    assert r.termination.value == "optimal" and r.info["relative_gap"] <= 1e-3
    assert swept and 1 <= swept[-1].size < 600  # a few rows, never all of them
    assert all(np.all(np.diff(rows) > 0) for rows in swept)  # each row once a sweep
    assert all(set(a.tolist()) <= set(b.tolist()) for a, b in zip(swept, swept[1:]))
