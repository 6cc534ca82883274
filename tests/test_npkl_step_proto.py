"""benchmarks/npkl_step_proto.py (issue #30, eighteenth pass): the preconditioned truncated
CG returns its step's length in the preconditioner's norm (computed densely here), its
preconditioner is symmetric and positive definite on the tangent space, and each variant's
run takes its own steps and certifies from scratch an interval that meets the plain
solver's."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from conftest import load_benchmark, uci_trace_npkl

import kernelsdp.solvers.alm_newton as alm_newton
import kernelsdp.solvers.alm_outer as alm_outer
from kernelsdp.solvers import solve
from kernelsdp.solvers.alm_inner import evaluate
from kernelsdp.solvers.alm_newton import _Newton, newton
from kernelsdp.solvers.alm_problem import ScaledNPKL


@pytest.fixture(scope="module")
def proto():
    return load_benchmark("npkl_step_proto")


@pytest.fixture()
def restored(monkeypatch):
    """Whatever a variant replaces comes back after the test."""
    for name in ("newton", "NEWTON_STEPS", "_inner_round"):
        monkeypatch.setattr(alm_outer, name, getattr(alm_outer, name))
    monkeypatch.setattr(alm_newton, "CG_MAX", alm_newton.CG_MAX)


def _tangent_basis(Z: np.ndarray) -> np.ndarray:
    """An orthonormal basis (columns) of the tangent space {ξ : ⟨ξ, Z⟩ = 0}."""
    z = Z.ravel() / np.linalg.norm(Z)
    Q, _ = np.linalg.qr(np.column_stack([z, np.eye(z.size)[:, : z.size - 1]]))
    return Q[:, 1:]


def _near_minimiser(r: int = 3):
    """A point near a minimiser of φ at fixed (β, ρ) (wine, 30 points, ℓ2), its Newton
    operator and its tangent basis, with the Hessian in that basis."""
    prob = ScaledNPKL(uci_trace_npkl("wine", 30, "l2"), np.float64)
    beta = np.random.default_rng(7).uniform(-0.5, 0.0, prob.m)
    V = np.random.default_rng(8).standard_normal((prob.n, r))
    V *= 0.9 / np.linalg.norm(V)
    near, _, _ = newton(prob, evaluate(prob, V, beta, 2.0), beta, 2.0, 0.5, 100, 1e-7)
    nt = _Newton(prob, beta, rho=2.0)
    Z = np.vstack([near.X, np.zeros((1, r))])
    Z[-1, 0] = np.sqrt(max(0.0, 1 - np.sum(near.X * near.X)))
    x = nt.at(Z)
    T = _tangent_basis(Z)
    H = np.column_stack([T.T @ nt.hessian(x, t.reshape(Z.shape).copy()).ravel() for t in T.T])
    return nt, x, T, H


#: the preconditioners under test: (preconditioned_cg's keywords, the weights they use)
KINDS = {
    "full": {"diagonal": False},
    "diagonal": {"diagonal": True},
    "rows": {"rows": True},
    "mask": {"mask": 5},
}


def _weights(proto, nt, x, grad, kind: str) -> np.ndarray:
    if kind == "rows":
        return proto.row_weights(nt, x)
    if kind == "mask":
        return proto.mask_weights(grad, KINDS[kind]["mask"])
    return proto.preconditioner(x.Z, KINDS[kind]["diagonal"])


def _tangent_gradient(x) -> np.ndarray:
    grad = np.zeros_like(x.Z)
    grad[:-1] = x.G
    grad -= (grad * x.Z).sum() * x.Z
    return grad


def _preconditioner_matrix(proto, nt, x, T, kind: str) -> np.ndarray:
    Ainv = _weights(proto, nt, x, _tangent_gradient(x), kind)
    cols = [
        proto.precondition(x, Ainv, t.reshape(x.Z.shape), np.empty_like(x.Z)).ravel() for t in T.T
    ]
    return T.T @ np.column_stack(cols)


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_preconditioner_is_symmetric_positive_definite_on_the_tangent_space(
    proto, restored, kind
):
    nt, x, T, _ = _near_minimiser()
    P = _preconditioner_matrix(proto, nt, x, T, kind)
    np.testing.assert_allclose(P, P.T, atol=1e-12)
    assert np.linalg.eigvalsh(P).min() > 0
    weights = proto.preconditioner(x.Z, True)
    assert np.mean(1 / weights) == pytest.approx(1.0)  # A's diagonal averages 1


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("radius", [1e6, 1e-3])
def test_preconditioned_cg_returns_its_length_in_the_preconditioners_norm(
    proto, restored, kind, radius
):
    """The length the radius update reads is ‖η‖_M = (ηᵀP⁻¹η)^½ (P the preconditioner on
    the tangent space), against CG's recurrences.  Near a minimiser (the Hessian positive
    semidefinite, its r(r − 1)/2 zeros V's rotations) a large region (Δ = ``radius``·‖g‖)
    leaves the step inside and meeting CG's residual rule; a small one puts it on the
    boundary, at length Δ."""
    nt, x, T, H = _near_minimiser()
    ev = np.linalg.eigvalsh((H + H.T) / 2)
    assert ev.min() > -1e-5 * ev.max() and np.sum(np.abs(ev) < 1e-5 * ev.max()) == 3
    grad = _tangent_gradient(x)
    delta = radius * np.linalg.norm(grad)
    P = _preconditioner_matrix(proto, nt, x, T, kind)
    eta, decrease, boundary, length = proto.preconditioned_cg(
        nt, x, grad, delta, 200, **KINDS[kind]
    )
    e = T.T @ eta.ravel()
    assert length == pytest.approx(np.sqrt(e @ np.linalg.solve(P, e)), rel=1e-8)
    assert boundary == (radius < 1.0) and decrease > 0
    if boundary:
        assert length == pytest.approx(delta)
    else:
        r0 = np.linalg.norm(grad)
        residual = nt.hessian(x, eta.copy()) + grad
        assert np.linalg.norm(residual) <= r0 * min(r0, 0.1) * (1 + 1e-6)


def test_row_weights_are_the_ratio_of_the_rows_largest_curvature_to_the_models():
    """``rowprec``: D_i = (L_ii + ½Σ_{p∋i} Bρ‖v_j‖²) / (L_ii + ½Σ_{p∋i} β̃'_p·B‖v_j‖²), pair
    by pair here; at the hinge a row whose pairs all sit at the box's ends has the
    largest D, and one whose pairs all sit inside the band has D = 1."""
    proto = load_benchmark("npkl_step_proto")
    prob = ScaledNPKL(uci_trace_npkl("wine", 30, "hinge"), np.float64)
    rho = 2.0
    beta = np.random.default_rng(3).uniform(0.0, 1.0, prob.m) * prob.t
    V = np.random.default_rng(4).standard_normal((prob.n, 3)) * 0.1
    nt = _Newton(prob, beta, rho)
    Z = np.vstack([V, np.zeros((1, 3))])
    Z[-1, 0] = np.sqrt(max(0.0, 1 - np.sum(V * V)))
    x = nt.at(Z)
    full, model = np.zeros(prob.n), np.zeros(prob.n)
    for p in range(prob.m):
        i, j = prob.i[p], prob.j[p]
        for a, b in ((i, j), (j, i)):
            full[a] += 0.5 * prob.B * rho * V[b] @ V[b]
            model[a] += 0.5 * x.slope[p] * V[b] @ V[b]
    lii = prob.L.diagonal()
    D = (lii + full) / (lii + model)
    w = proto.row_weights(nt, x)
    np.testing.assert_allclose(w[:-1, 0], 1 / np.maximum(D, 1.0), rtol=1e-10)
    assert w[-1, 0] == 1.0
    inside = np.isclose(x.slope, prob.B * rho)
    assert 0 < inside.sum() < prob.m  # both kinds of pair at this point
    rows_inside = np.setdiff1d(
        np.arange(prob.n), np.concatenate([prob.i[~inside], prob.j[~inside]])
    )
    np.testing.assert_allclose(w[rows_inside, 0], 1.0)


def test_mask_weights_freeze_the_rows_of_largest_gradient():
    proto = load_benchmark("npkl_step_proto")
    grad = np.random.default_rng(5).standard_normal((41, 3))
    w = proto.mask_weights(grad, 4)
    top = np.argsort(np.sum(grad[:-1] ** 2, axis=1))[-4:]
    assert set(np.flatnonzero(w[:, 0] < 1)) == set(top)
    assert np.all(w[top, 0] == proto.MASKED) and w[-1, 0] == 1.0


def test_the_block_preconditioner_lifts_the_block_s_rotations_to_the_highest(proto, restored):
    """``blockpc``: P is symmetric positive definite on the tangent space, multiplies a
    rotation toward the block vector w_i, Ξ = w_i·aᵀ, by (θ_k − μ)/(θ_i − μ), and leaves
    the block vectors below V's level alone."""
    nt, x, T, _ = _near_minimiser()
    n = x.Z.shape[0] - 1
    rng = np.random.default_rng(11)
    W = rng.standard_normal((n, 4))
    Q = np.linalg.qr(x.X)[0]
    for _ in range(2):  # off span V, as the check's block (twice: to rounding)
        W -= Q @ (Q.T @ W)
    W = np.linalg.qr(W)[0]
    level = -0.4
    chk = SimpleNamespace(block=W, block_values=np.array([-0.5, -0.39, -0.37, -0.3]), level=level)
    apply = proto.block_preconditioner(chk)
    P = T.T @ np.column_stack(
        [apply(x, t.reshape(x.Z.shape), np.empty_like(x.Z)).ravel() for t in T.T]
    )
    np.testing.assert_allclose(P, P.T, atol=1e-12)
    assert np.linalg.eigvalsh(P).min() > 0
    a = rng.standard_normal(x.Z.shape[1])
    for i, gain in ((0, 1.0), (1, 10.0), (2, 10.0 / 3.0), (3, 1.0)):
        xi = np.zeros_like(x.Z)
        xi[:-1] = np.outer(W[:, i], a)
        np.testing.assert_allclose(apply(x, xi, np.empty_like(xi)), gain * xi, atol=1e-12)
    assert proto.block_preconditioner(SimpleNamespace(**{**vars(chk), "level": 0.0})) is None
    # a block from an older point (not off the current V): P·ξ is still a tangent vector
    older = np.linalg.qr(rng.standard_normal((n, 4)))[0]
    apply = proto.block_preconditioner(SimpleNamespace(**{**vars(chk), "block": older}))
    xi = T[:, 0].reshape(x.Z.shape)
    assert abs(np.sum(apply(x, xi, np.empty_like(xi)) * x.Z)) < 1e-12


def test_the_span_preconditioner_lengthens_the_steps_inside_span_v(proto, restored):
    """``spanpc``: P is symmetric positive definite on the tangent space, multiplies a
    tangent direction inside span Z by γ and one off it by 1."""
    nt, x, T, _ = _near_minimiser()
    apply = proto.span_preconditioner()
    P = T.T @ np.column_stack(
        [apply(x, t.reshape(x.Z.shape), np.empty_like(x.Z)).ravel() for t in T.T]
    )
    np.testing.assert_allclose(P, P.T, atol=1e-12)
    assert np.linalg.eigvalsh(P).min() > 0
    Z = x.Z
    S = np.random.default_rng(3).standard_normal((Z.shape[1],) * 2)
    inside = alm_newton._tangent(x, Z @ (S + S.T))  # a re-weighing of V's own directions
    off = np.random.default_rng(2).standard_normal(Z.shape)
    Q = np.linalg.qr(Z)[0]
    for _ in range(2):
        off -= Q @ (Q.T @ off)
    for xi, gain in ((inside, proto.SPAN_GAIN), (off, 1.0)):
        np.testing.assert_allclose(apply(x, xi, np.empty_like(xi)), gain * xi, atol=1e-12)


def test_blockpc_installed_twice_wraps_the_inner_round_once(proto, restored):
    plain = alm_outer._inner_round
    proto.install("blockpc", {})
    once = alm_outer._inner_round
    proto.install("blockpc", {})
    assert once is not plain and alm_outer._inner_round is once


@pytest.mark.parametrize("method", ["pcg", "pcg-diag", "pcg24", "kink-search", "blockpc", "spanpc"])
def test_a_variant_run_certifies_and_meets_the_plain_interval(proto, restored, method):
    assert_variant_certifies(proto, method)


def assert_variant_certifies(proto, method: str) -> None:
    """``method``'s run (``proto.install``) takes its own steps and certifies a proof within
    1e-3 that meets the plain solver's interval (npkl_scale's instance, n = 600)."""
    small = load_benchmark("npkl_scale").instance(600)
    plain = solve(small, "low-rank-alm")
    log: dict = {}
    proto.install(method, log)
    r = solve(small, "low-rank-alm")
    assert log["accepted"] > 0  # the variant's own steps ran
    assert r.info["certificate"].lower_label == "proof"
    assert r.info["relative_gap"] <= 1e-3
    assert r.lower_bound <= plain.upper_bound and plain.lower_bound <= r.upper_bound
