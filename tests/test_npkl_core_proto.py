"""benchmarks/npkl_core_proto.py (issue #30, thirty-sixth pass): the core's basis keeps the
kernel, the diagonal core meets its optimality conditions, the exact core is no worse than
the diagonal one, the accelerated core reaches the exact one's value, a core that does not
lower φ_ρ is not taken, and each variant's run certifies from scratch an interval that
meets the plain solver's.  Thirty-eighth pass: ``aftercore`` (the core after each round of
two Newton steps, stopped at its own FW gap ≤ ``AFTER_SHARE``·FY, floored) and ``steps2``."""

from __future__ import annotations

from types import SimpleNamespace

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


@pytest.mark.parametrize("basis", ["core_basis", "gram_basis"])
def test_the_core_basis_keeps_the_kernel_and_its_product_with_l(proto, basis):
    prob, _, _, pt = _state()
    Q, LQ, c = getattr(proto, basis)(pt.X, pt.LX)
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


@pytest.mark.parametrize("method", ["diagcore", "fullcore", "apgcore", "aftercore", "steps2"])
def test_a_core_variant_run_certifies_and_meets_the_plain_interval(proto, restored, method):
    small = load_benchmark("npkl_scale").instance(600)
    plain = solve(small, "low-rank-alm")
    log: dict = {}
    proto.install(method, log)
    r = solve(small, "low-rank-alm")
    if method != "steps2":
        assert log["taken"] > 0  # the variant's cores moved the iterate
    else:
        assert not log and r.info["products"] != plain.info["products"]
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


def _core_fw_and_fy(proto, prob, Q, LQ, W, beta, rho) -> tuple[float, float]:
    """The core's FW gap ⟨G, W⟩ − min(λ_min(G), 0) and FY at K = B·Q·W·Qᵀ, from scratch."""
    d, E = np.linalg.eigh(W)
    pt = proto.core_point(prob, Q, LQ, E * np.sqrt(np.maximum(d, 0.0)), beta, rho)
    _, bt = prob.envelope(pt.w, beta, rho)
    G = Q.T @ (prob.dual_matrix(bt) @ Q) * prob.a  # the core's gradient: a·QᵀM(β̃)Q
    fw = float(np.sum(G * W)) - min(float(np.linalg.eigvalsh(G)[0]), 0.0)
    return fw, prob.fenchel_young(pt.w, bt) / prob.scale


def test_the_after_core_stops_at_its_fw_share_of_fy(proto):
    """``aftercore``'s steps end once the core's FW gap is at most ``AFTER_SHARE`` of FY
    (checked against the gradient a·QᵀM(β̃)Q computed from scratch); asked for a share no
    step can reach, they run on to the exact core's other ends; at a start that already
    meets the share, none is taken (None)."""
    prob, beta, rho, pt = _state()
    Q, LQ, c0 = proto.gram_basis(pt.X, pt.LX)
    fw0, fy0 = _core_fw_and_fy(proto, prob, Q, LQ, np.diag(c0), beta, rho)
    share = 0.5 * fw0 / fy0  # the start misses it
    log: dict = {}
    W = proto.apg_core(prob, Q, LQ, c0, beta, rho, log, share, np.float32)
    fw, fy = _core_fw_and_fy(proto, prob, Q, LQ, W, beta, rho)
    assert fw <= share * fy * (1 + 1e-4) + 1e-9  # float32 products: the test's own rounding
    steps = log["apg_steps"]
    assert 0 < steps < proto.APG_STEPS
    deeper: dict = {}
    proto.apg_core(prob, Q, LQ, c0, beta, rho, deeper, 1e-3 * share, np.float32)
    assert deeper["apg_steps"] > steps
    assert proto.apg_core(prob, Q, LQ, c0, beta, rho, {}, 2.0 * fw0 / fy0, np.float32) is None


def test_the_after_core_keeps_every_direction_of_span_v(proto, monkeypatch):
    """The floor: where the core would zero a direction, the point keeps it at
    ``AFTER_FLOOR`` of the largest weight (an exact core zeroed some, the factor dropped
    them and the checks missed them), and tr W stays ≤ 1."""
    prob, beta, rho, pt = _state()
    Q, LQ, c0 = proto.gram_basis(pt.X, pt.LX)
    W = np.zeros((c0.size, c0.size))
    W[0, 0] = 1.0  # all the weight on one direction: the others would die
    monkeypatch.setattr(proto, "apg_core", lambda *a, **k: W)
    monkeypatch.setattr(
        proto, "core_point", lambda p, Q, LQ, F, b, r: SimpleNamespace(value=-np.inf, F=F)
    )
    F = proto.core_step("aftercore", {}, prob, pt, beta, rho).F
    d = np.linalg.eigvalsh(F @ F.T)
    assert d.min() >= proto.AFTER_FLOOR * d.max() * (1 - 1e-9) and d.sum() <= 1 + 1e-12


def test_the_after_round_variants_take_their_own_newton_steps(proto, restored, monkeypatch):
    """``aftercore`` and ``steps2`` ask the round for ``AFTER_STEPS`` steps (not the
    solver's ``NEWTON_STEPS``) and only ``aftercore`` runs a core after it."""
    asked, cores = [], []
    monkeypatch.setattr(
        alm_outer,
        "newton",
        lambda p, pt, b, r, delta, steps, *a, **k: asked.append(steps) or (pt, delta, {}),
    )
    monkeypatch.setattr(proto, "core_step", lambda kind, log, p, pt, b, r: cores.append(kind) or pt)
    for method in ("steps2", "aftercore"):
        proto.install(method, {})
        alm_outer.newton(None, "pt", None, None, 0.1, 4, 1e-3)
    assert asked == [proto.AFTER_STEPS] * 2 and cores == ["aftercore"]
