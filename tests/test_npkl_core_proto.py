"""benchmarks/npkl_core_proto.py (issue #30, thirty-sixth pass): the core's basis keeps the
kernel, the diagonal core meets its optimality conditions, the exact core is no worse than
the diagonal one, the accelerated core reaches the exact one's value, a core that does not
lower φ_ρ is not taken, and each variant's run certifies from scratch an interval that
meets the plain solver's."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import load_benchmark, scaled_hinge_state

import kernelsdp.solvers.alm_outer as alm_outer
from kernelsdp.solvers import solve
from kernelsdp.solvers.alm_inner import evaluate


@pytest.fixture(scope="module")
def proto():
    return load_benchmark("npkl_core_proto")


@pytest.fixture()
def restored(monkeypatch):
    monkeypatch.setattr(alm_outer, "newton", alm_outer.newton)


def _state(r: int = 4):
    """30 wine points, hinge, multipliers α ∈ [0, C] (β = −α·T), and V on the r lowest
    eigenvectors of M(β) with spread weights: a state whose core optimum is not at K = 0
    (at a random V every column's Laplacian energy outweighs its pairs)."""
    prob, _, rho, _ = scaled_hinge_state(r, 0.1)
    beta = -np.random.default_rng(5).uniform(0.0, prob.C, prob.m) * prob.t
    _, E = np.linalg.eigh(prob.dual_matrix(beta).toarray())
    V = E[:, :r] * np.array([0.6, 0.4, 0.3, 0.2, 0.1, 0.05])[:r]
    return prob, beta, rho, evaluate(prob, V, beta, rho)


def _phi(prob, Q, LQ, c, beta, rho) -> float:
    """φ_ρ at K = B·Q·diag(c)·Qᵀ, from the pair entries computed directly."""
    X = Q * np.sqrt(c)
    w = prob.B * np.einsum("ij,ij->i", X[prob.i], X[prob.j])
    env, _ = prob.envelope(w, beta, rho)
    return prob.a * float(np.sum(X * (prob.L @ X))) + env / prob.scale


def test_the_core_basis_keeps_the_kernel_and_its_product_with_l(proto):
    prob, _, _, pt = _state()
    Q, LQ, c = proto.core_basis(pt.X, pt.LX)
    assert np.allclose(Q.T @ Q, np.eye(Q.shape[1]), atol=1e-12)
    assert np.allclose((Q * c) @ Q.T, pt.X @ pt.X.T, atol=1e-12)
    assert np.allclose(LQ, prob.L @ Q, atol=1e-10)
    assert np.isclose(c.sum(), np.sum(pt.X * pt.X))


def test_the_diagonal_core_meets_its_optimality_conditions(proto):
    prob, beta, rho, pt = _state(6)
    Q, LQ, c0 = proto.core_basis(pt.X, pt.LX)
    c, _ = proto.diagonal_core(prob, Q, LQ, c0, beta, rho)
    assert np.all(c >= 0) and c.sum() <= 1 + 1e-12
    assert 0 < np.sum(c > 1e-4) < c.size  # some columns live, some dropped
    assert _phi(prob, Q, LQ, c, beta, rho) < _phi(prob, Q, LQ, c0, beta, rho)
    # KKT of min f(c) over c ≥ 0, Σc ≤ 1: g + ν ≥ 0, = 0 where c > 0, ν(1 − Σc) = 0
    eps = 1e-7
    g = np.array(
        [
            (_phi(prob, Q, LQ, c + eps * e, beta, rho) - _phi(prob, Q, LQ, c, beta, rho)) / eps
            for e in np.eye(c.size)
        ]
    )
    live = c > 1e-4  # Σc ≤ 1; the interior-point solver leaves the dead ones near 1e-7
    nu = -np.mean(g[live])
    scale = np.max(np.abs(g))
    assert nu >= -1e-5 * scale
    assert np.allclose(g[live] + nu, 0.0, atol=1e-4 * scale)
    assert np.all(g[~live] + nu >= -1e-4 * scale)
    assert nu <= 1e-5 * scale or abs(1 - c.sum()) < 1e-6


def test_the_exact_core_is_no_worse_than_the_diagonal_one(proto):
    prob, beta, rho, pt = _state()
    Q, LQ, c0 = proto.core_basis(pt.X, pt.LX)
    c, _ = proto.diagonal_core(prob, Q, LQ, c0, beta, rho)
    W = proto.full_core(prob, Q, LQ, beta, rho, {})
    assert W is not None and np.linalg.eigvalsh(W).min() > -1e-8 and np.trace(W) <= 1 + 1e-7
    d, E = np.linalg.eigh(W)
    full = proto.core_point(prob, Q, LQ, E * np.sqrt(np.maximum(d, 0)), beta, rho)
    diag = proto.core_point(prob, Q, LQ, np.diag(np.sqrt(c)), beta, rho)
    assert full.value <= diag.value + 1e-7
    assert np.isclose(full.value, evaluate(prob, full.X, beta, rho).value, rtol=1e-12)


@pytest.mark.parametrize("method", ["diagcore", "fullcore", "apgcore"])
def test_a_core_variant_run_certifies_and_meets_the_plain_interval(proto, restored, method):
    small = load_benchmark("npkl_scale").instance(600)
    plain = solve(small, "low-rank-alm")
    log: dict = {}
    proto.install(method, log)
    r = solve(small, "low-rank-alm")
    assert log["taken"] > 0  # the variant's cores moved the iterate
    assert r.info["certificate"].lower_label == "proof"
    assert r.info["relative_gap"] <= 1e-3
    assert r.lower_bound <= plain.upper_bound and plain.lower_bound <= r.upper_bound


def test_the_accelerated_core_reaches_the_exact_core_s_value(proto):
    prob, beta, rho, pt = _state()
    Q, LQ, c0 = proto.core_basis(pt.X, pt.LX)
    exact = proto.full_core(prob, Q, LQ, beta, rho, {})
    log: dict = {}
    W = proto.apg_core(prob, Q, LQ, c0, beta, rho, log)
    assert np.linalg.eigvalsh(W).min() >= -1e-12 and np.trace(W) <= 1 + 1e-12
    values = []
    for M in (exact, W):
        d, E = np.linalg.eigh(M)
        values.append(proto.core_point(prob, Q, LQ, E * np.sqrt(np.maximum(d, 0)), beta, rho))
    assert abs(values[1].value - values[0].value) <= 1e-6 * abs(values[0].value)
    assert 0 < log["apg_steps"] < proto.APG_STEPS


def test_a_core_that_does_not_lower_phi_is_not_taken(proto, monkeypatch):
    prob, beta, rho, pt = _state()
    monkeypatch.setattr(proto, "diagonal_core", lambda p, Q, LQ, c0, b, r: (c0 * 0.5, 1))
    Q, LQ, c0 = proto.core_basis(pt.X, pt.LX)
    worse = proto.core_point(prob, Q, LQ, np.diag(np.sqrt(c0 * 0.5)), beta, rho)
    assert worse.value > pt.value  # the patched core's point is worse
    log: dict = {}
    assert proto.core_step("diagcore", log, prob, pt, beta, rho) is pt
    assert log["cores"] == 1 and "taken" not in log


def test_installing_twice_runs_one_core_a_round(proto, restored, monkeypatch):
    cores, rounds = [], []
    monkeypatch.setattr(proto, "core_step", lambda kind, log, p, pt, b, r: cores.append(1) or pt)
    monkeypatch.setattr(alm_outer, "newton", lambda p, pt, b, r, *a, **k: rounds.append(1))
    proto.install("diagcore", {})
    proto.install("diagcore", {})
    alm_outer.newton(None, None, None, None)
    assert rounds == [1] and cores == [1]


def test_the_accelerated_core_ends_where_a_step_from_its_iterate_is_rejected(proto, monkeypatch):
    """With no tolerance, the core can end only at a rejected step from the iterate itself
    or at the cap: a restart there would repeat that step up to the cap."""
    prob, beta, rho, pt = _state()
    Q, LQ, c0 = proto.core_basis(pt.X, pt.LX)
    monkeypatch.setattr(proto, "APG_TOL", 0.0)
    log: dict = {}
    proto.apg_core(prob, Q, LQ, c0, beta, rho, log)
    assert log["apg_steps"] < proto.APG_STEPS
