"""The low-rank augmented Lagrangian's trust-region Newton inner solver (issue #30, eighth
pass, :mod:`kernelsdp.solvers.alm_newton`): its Hessian against differences of its
gradient, its steps (φ falls, the ball holds, the point it returns is the point it read),
and the solver with ``inner="newton"`` meeting the FISTA inner steps' interval (its proofs
around Clarabel's optimum for each loss are in test_low_rank_alm)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import uci_trace_npkl

from kernelsdp.solvers import solve
from kernelsdp.solvers.alm_inner import evaluate
from kernelsdp.solvers.alm_newton import _Newton, newton
from kernelsdp.solvers.alm_problem import ScaledNPKL

LOSSES = ("hinge", "squared-hinge", "l2", "l1")


_fixture = uci_trace_npkl


def _point(prob: ScaledNPKL, r: int, seed: int) -> np.ndarray:
    """A random [V; σ] on the unit sphere, ‖V‖_F = 0.9."""
    V = np.random.default_rng(seed).standard_normal((prob.n, r))
    V *= 0.9 / np.linalg.norm(V)
    Z = np.zeros((prob.n + 1, r))
    Z[:-1], Z[-1, 0] = V, np.sqrt(1 - 0.81)
    return Z


@pytest.mark.parametrize("loss", ["l2", "squared-hinge"])
def test_hessian_is_the_derivative_of_the_gradient(loss):
    """∇²φ[Ξ] against the central difference of ∇φ along Ξ (double precision; the prox of
    ℓ2 is linear, the squared hinge's piecewise linear: a random point sits on one piece and
    a step of 1e-6 stays on it for all but a few pairs)."""
    prob = ScaledNPKL(_fixture("iris", 60, loss), np.float64)
    beta = np.random.default_rng(1).uniform(-0.5, 0.0, prob.m)
    nt = _Newton(prob, beta, rho=2.0)
    x = nt.at(_point(prob, 4, 2))
    xi = np.random.default_rng(3).standard_normal(x.Z.shape)
    xi -= (xi * x.Z).sum() * x.Z  # a tangent at x
    t = 1e-6
    up = nt.at(np.vstack([x.X + t * xi[:-1], x.Z[-1:]])).G
    down = nt.at(np.vstack([x.X - t * xi[:-1], x.Z[-1:]])).G
    H = nt.hessian(x, xi.copy())
    # the Riemannian Hessian of a tangent ξ: P_x([∇²φ[Ξ]; 0]) − ⟨x, g⟩ξ
    E = np.vstack([(up - down) / (2 * t), np.zeros((1, 4))])
    expected = E - (E * x.Z).sum() * x.Z - x.gx * xi
    np.testing.assert_allclose(H, expected, rtol=1e-5, atol=1e-7 * np.abs(expected).max())


@pytest.mark.parametrize("loss", LOSSES)
def test_steps_lower_phi_inside_the_ball_and_return_the_point_they_read(loss):
    """From a random factor: φ falls, ‖V‖_F ≤ 1, and the returned (V, L·V, w, φ) are
    evaluate()'s at that V."""
    prob = ScaledNPKL(_fixture("wine", 60, loss), np.float64)
    beta = prob.loss.project(np.zeros(prob.m), prob.t, prob.C)
    start = evaluate(prob, _point(prob, 5, 4)[:-1].copy(), beta, 1.0)
    pt, delta, info = newton(prob, start, beta, 1.0, 0.2, max_steps=4, tol=0.0)
    assert info["accepted"] >= 1 and info["hessians"] >= 1 and delta > 0
    assert pt.value < start.value
    assert np.sum(pt.X * pt.X) <= 1 + 1e-12
    again = evaluate(prob, np.array(pt.X), beta, 1.0)
    np.testing.assert_allclose(pt.LX, again.LX, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(pt.w, again.w, rtol=1e-12, atol=1e-15)
    assert pt.value == pytest.approx(again.value, rel=1e-12)


def test_width_zero_is_left_to_the_frank_wolfe_step():
    prob = ScaledNPKL(_fixture("iris", 40, "hinge"), np.float64)
    beta = np.zeros(prob.m)
    start = evaluate(prob, np.zeros((40, 0)), beta, 1.0)
    pt, _, info = newton(prob, start, beta, 1.0, 0.2, max_steps=3, tol=0.0)
    assert pt is start and info["iterations"] == 0


def test_newton_and_fista_inner_steps_agree_within_their_intervals():
    f = _fixture("iris", 60, "hinge")
    a = solve(f, "low-rank-alm", inner="newton").info["certificate"]
    b = solve(f, "low-rank-alm", inner="fista").info["certificate"]
    assert max(a.lower, b.lower) <= min(a.upper, b.upper) + 1e-9 * abs(a.upper)


def test_values_for_the_ratio_test_read_l_in_double_in_single_precision():
    """times_L_double: L's double entries in the solver's order times the float32 iterate
    (cast), not the float32 copy of L the products use."""
    f = _fixture("iris", 60, "hinge")
    prob = ScaledNPKL(f, np.float32)
    V = np.random.default_rng(5).standard_normal((60, 3)).astype(np.float32)
    L64 = f.L.tocsr()[prob.order][:, prob.order]
    exact = L64 @ V.astype(np.float64)
    np.testing.assert_allclose(prob.times_L_double(V), exact, rtol=1e-13, atol=1e-15)
    assert np.abs(prob.L @ V - exact).max() > np.abs(prob.times_L_double(V) - exact).max()


def test_a_rejected_interior_step_shrinks_the_radius_below_the_step(monkeypatch):
    """A rejected step that ended inside the trust region cuts the radius to a quarter of
    the step's length, not of the radius: cut from the radius, the next truncated CG
    came back with the same interior step (n = 20,000: one step computed three times, 36
    Hessian products; docs/npkl.md §7, fourteenth pass)."""
    from kernelsdp.solvers import alm_newton

    prob = ScaledNPKL(_fixture("wine", 60, "hinge"), np.float64)
    beta = prob.loss.project(np.zeros(prob.m), prob.t, prob.C)
    start = evaluate(prob, _point(prob, 5, 4)[:-1].copy(), beta, 1.0)
    lengths = []

    def rejected(nt, x, grad, delta, max_iter):
        eta = grad * (-1e-3 / np.sqrt((grad * grad).sum()))  # interior: 1e-3 < Δ
        lengths.append(1e-3)
        return eta, 1.0, False  # a model decrease of 1.0 that φ cannot meet

    monkeypatch.setattr(alm_newton, "truncated_cg", rejected)
    pt, delta, info = newton(prob, start, beta, 1.0, 0.5, max_steps=1, tol=0.0)
    assert info["accepted"] == 0 and pt.value == start.value
    assert delta == pytest.approx(lengths[0] / 4)


def test_a_step_rejected_within_the_rounding_allowance_ends_the_round(monkeypatch):
    """A step whose value rose by less than the ratio test's allowance is rejected with a
    ratio near 1, so the radius stays and the next step would be the same one: the round
    ends there (n = 20,000, seed 0: 11 such repeats, 132 Hessian products; docs/npkl.md
    §7, nineteenth pass)."""
    from kernelsdp.solvers import alm_newton

    prob = ScaledNPKL(_fixture("wine", 60, "hinge"), np.float64)
    beta = prob.loss.project(np.zeros(prob.m), prob.t, prob.C)
    start = evaluate(prob, _point(prob, 5, 4)[:-1].copy(), beta, 1.0)
    calls, plain_value = [], alm_newton._Newton.value

    def standing_still(nt, x, grad, delta, max_iter):
        calls.append(delta)
        return np.zeros_like(grad), 0.0, False  # the trial point is the point itself

    def value_a_little_higher(nt, X, slot=0):  # each trial's, by a tenth of the allowance
        v, LX, w = plain_value(nt, X, slot)
        if calls:  # the start's own value is read before the first step
            v += 1e2 * np.finfo(float).eps * max(1.0, abs(v))
        return v, LX, w

    monkeypatch.setattr(alm_newton, "truncated_cg", standing_still)
    monkeypatch.setattr(alm_newton._Newton, "value", value_a_little_higher)
    pt, delta, info = newton(prob, start, beta, 1.0, 0.5, max_steps=4, tol=0.0)
    assert calls == [0.5] and info["steps"] == 1 and info["accepted"] == 0
    assert delta == 0.5


def test_the_ratio_test_allows_the_rounding_of_a_float32_trial_point():
    """The ratio test's regularisation holds eps·‖G‖·‖X‖ (twice) of the iterate's precision:
    a decrease below it is the float32 rounding of the trial point, not the model's error;
    in double it adds nothing."""
    from kernelsdp.solvers.alm_newton import _rounding

    f = _fixture("wine", 60, "hinge")
    for dtype, expect_zero in ((np.float64, True), (np.float32, False)):
        prob = ScaledNPKL(f, dtype)
        beta = prob.loss.project(np.zeros(prob.m), prob.t, prob.C)
        nt = _Newton(prob, beta, rho=1.0)
        x = nt.at(_point(prob, 4, 2).astype(dtype))
        noise = _rounding(x, dtype)
        if expect_zero:
            assert noise == 0.0
        else:
            G, X = x.G.astype(np.float64), x.X.astype(np.float64)
            bound = 2 * np.finfo(np.float32).eps * np.sqrt((G * G).sum() * (X * X).sum())
            assert noise == pytest.approx(bound, rel=1e-6) and noise > 0
            # it bounds what rounding the trial point to float32 moves φ by
            trial = x.X.astype(np.float64) * (1 + 1e-3)
            moved = abs(nt.value(trial)[0] - nt.value(trial.astype(np.float32))[0])
            assert moved <= noise + 1e3 * np.finfo(float).eps * abs(x.value)


def test_scratch_arrays_kept_across_hessian_products_change_no_digit(monkeypatch):
    """A Newton round whose scratch arrays (:meth:`_Newton.work`) are fresh and filled with
    NaN at every request ends bit for bit where the round that reuses them ends: nothing
    reads what a scratch array held before (single precision, the solver's default)."""
    prob = ScaledNPKL(_fixture("wine", 60, "hinge"), np.float32)
    beta = prob.loss.project(np.zeros(prob.m), prob.t, prob.C)
    start = evaluate(prob, _point(prob, 5, 6)[:-1].astype(np.float32), beta, 1.0)
    kept, _, info = newton(prob, start, beta, 1.0, 0.2, max_steps=4, tol=0.0, keep_scratch=True)
    assert info["hessians"] >= 4

    def fresh_nan(self, name, shape, dtype):
        return np.full(shape, np.nan, dtype=dtype)

    monkeypatch.setattr(_Newton, "work", fresh_nan)
    fresh, _, again = newton(prob, start, beta, 1.0, 0.2, max_steps=4, tol=0.0, keep_scratch=True)
    assert again == info
    np.testing.assert_array_equal(fresh.X, kept.X)
    assert fresh.value == kept.value
