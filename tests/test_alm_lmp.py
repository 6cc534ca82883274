"""The Newton round's conjugate gradients preconditioned by the step before (issue #30,
thirty-fourth pass, :mod:`kernelsdp.solvers.alm_lmp`): the preconditioner undoes the kept
curvature and is symmetric positive definite on the tangent space, the next step's CG
carries the last one's Krylov space on, and the solve keeps the pairs only where the memory
formula with them fits."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from conftest import two_class_npkl

from kernelsdp.solvers import alm_outer, solve
from kernelsdp.solvers.alm_lmp import StepPairs, pairs_bytes, preconditioned_cg
from kernelsdp.solvers.alm_newton import _tangent, truncated_cg
from kernelsdp.solvers.low_rank_alm import memory_bytes_for


class _Quadratic:
    """A Newton operator for the CG alone: H = P_x A P_x on x's tangent space, A diagonal
    on the flattened (n + 1)×r arrays with a spread of ``decades``."""

    def __init__(self, x, decades: float, seed: int = 0):
        rng = np.random.default_rng(seed)
        self.a = np.logspace(-decades, 0, x.Z.size)[rng.permutation(x.Z.size)].reshape(x.Z.shape)
        self.x, self.hessians = x, 0

    def hessian(self, x, d):
        self.hessians += 1
        return _tangent(x, self.a * _tangent(x, d.copy()))

    def work(self, name, shape, dtype):
        return np.empty(shape, dtype=dtype)


def _point(n: int = 400, r: int = 3, seed: int = 1):
    Z = np.random.default_rng(seed).standard_normal((n + 1, r))
    return SimpleNamespace(Z=Z / np.linalg.norm(Z), slot=0)


def _tangent_vector(x, seed: int) -> np.ndarray:
    return _tangent(x, np.random.default_rng(seed).standard_normal(x.Z.shape))


def test_the_preconditioner_undoes_the_kept_curvature_and_is_symmetric_positive_definite():
    x = _point()
    nt = _Quadratic(x, decades=3)
    pairs = StepPairs(6)
    grad = _tangent_vector(x, 2)
    pairs.step(nt, x, grad, 1e6, 6)  # six CG iterations, all of positive curvature
    assert pairs.k == 6
    S, Y = pairs._sets[0][:6], pairs._sets[0][6:12]
    for s, y in zip(S, Y):
        out = np.empty_like(grad)
        np.testing.assert_allclose(
            pairs.precondition(x, y.reshape(grad.shape), out).ravel(), s, atol=1e-9
        )
    u, v = _tangent_vector(x, 3), _tangent_vector(x, 4)
    Pu, Pv = (pairs.precondition(x, w, np.empty_like(w)) for w in (u, v))
    assert float(np.vdot(u, Pv)) == pytest.approx(float(np.vdot(Pu, v)), rel=1e-9)
    assert float(np.vdot(u, Pu)) > 0 and float(np.vdot(v, Pv)) > 0
    pairs.reset()  # a new round: the identity on the tangent space
    np.testing.assert_allclose(pairs.precondition(x, u, np.empty_like(u)), u, atol=1e-12)


def test_the_next_step_carries_the_last_step_s_krylov_space_on():
    """On one ill-conditioned quadratic (three decades), each CG of 8 iterations
    preconditioned by the last one's pairs goes on where the last one stopped: the second is
    plain CG's 16th iterate and the third its 24th, to 1 % and 2 % of the model's distance to
    its minimum (measured 0.9 % and 1.7 %); without the pairs (a new round) it is the first CG
    again."""
    x = _point()
    grad = _tangent_vector(x, 5)
    nt = _Quadratic(x, decades=3)

    def model(eta):
        return float(np.vdot(grad, eta) + 0.5 * np.vdot(eta, nt.hessian(x, eta)))

    best = model(truncated_cg(nt, x, grad, 1e6, 400)[0])
    plain = {k: model(truncated_cg(nt, x, grad, 1e6, k)[0]) - best for k in (8, 16, 24)}
    assert plain[24] < plain[16] / 2 < plain[8] / 4  # the spread slows plain CG down
    pairs = StepPairs(8)
    runs = [model(pairs.step(nt, x, grad, 1e6, 8)[0]) - best for _ in range(3)]
    assert runs[0] == pytest.approx(plain[8], rel=1e-9)
    assert runs[1] == pytest.approx(plain[16], rel=0.01)
    assert runs[2] == pytest.approx(plain[24], rel=0.02)
    assert pairs.stats == {"steps": 3, "preconditioned": 2, "declined": 0}
    pairs.reset()
    assert model(pairs.step(nt, x, grad, 1e6, 8)[0]) - best == pytest.approx(plain[8], rel=1e-9)


def _inverse_norm(pairs: StepPairs, x):
    """η ↦ ⟨η, P⁻¹η⟩ for the P that ``pairs`` holds now, formed densely on x's tangent space
    from :meth:`precondition`."""
    N = x.Z.size
    z = x.Z.ravel()
    Q = np.linalg.qr(np.eye(N) - np.outer(z, z))[0][:, : N - 1]  # the tangent space's basis
    P = np.column_stack(
        [pairs.precondition(x, q.reshape(x.Z.shape), np.empty(x.Z.shape)).ravel() for q in Q.T]
    )
    Pt = Q.T @ P  # P on the tangent space, in Q's coordinates

    def norm2(eta: np.ndarray) -> float:
        e = Q.T @ eta.ravel()
        return float(e @ np.linalg.solve(Pt, e))

    return norm2


def test_a_step_in_the_region_s_norm_stops_on_its_boundary():
    """With the pairs, the region is P⁻¹'s norm (P formed densely): a step that reaches the
    boundary has ⟨η, P⁻¹η⟩ = Δ², where its Frobenius length is another, and an interior
    step's returned length is its P⁻¹-norm."""
    x = _point(n=60)
    nt = _Quadratic(x, decades=3)
    grad = _tangent_vector(x, 6)
    pairs = StepPairs(4)
    pairs.step(nt, x, grad, 1e6, 4)
    norm2 = _inverse_norm(pairs, x)
    eta, decrease, boundary, length = pairs.step(nt, x, grad, 1e-3, 12)
    assert boundary and length == 1e-3 and decrease > 0
    assert norm2(eta) == pytest.approx(1e-6, rel=1e-8)
    assert abs(float(np.vdot(eta, eta)) - 1e-6) > 1e-8
    norm2 = _inverse_norm(pairs, x)
    eta, _, boundary, length = pairs.step(nt, x, grad, 1e6, 3)
    assert not boundary and length > 0
    assert length**2 == pytest.approx(norm2(eta), rel=1e-8)


def test_the_ring_keeps_the_last_pairs_and_a_new_width_starts_without_them():
    """More CG iterations than kept pairs: the last ``k_max`` stay, and P·y = s holds on
    them; a step at another width (the next round's factor) makes a new buffer, unpreconditioned."""
    x = _point()
    nt = _Quadratic(x, decades=3)
    pairs = StepPairs(3)
    seen = []
    grad = _tangent_vector(x, 7)
    preconditioned_cg(nt, x, grad, 1e6, 7, pairs.precondition, lambda d, Hd: seen.append(d.copy()))
    pairs.step(nt, x, grad, 1e6, 7)
    assert pairs.collected == 7 and pairs.k == 3
    S, Y = pairs._sets[0][:3], pairs._sets[0][3:6]
    assert {tuple(np.round(s, 12)) for s in S} == {
        tuple(np.round(d.ravel(), 12)) for d in seen[-3:]
    }
    for s, y in zip(S, Y):
        out = np.empty(x.Z.shape)
        np.testing.assert_allclose(
            pairs.precondition(x, y.reshape(x.Z.shape), out).ravel(), s, atol=1e-9
        )
    wider = _point(r=4)
    g = _tangent_vector(wider, 8)
    pairs.step(_Quadratic(wider, decades=3), wider, g, 1e6, 2)
    assert pairs.stats["preconditioned"] == 0 and pairs.k == 2


def test_pairs_are_kept_only_where_their_formula_fits(monkeypatch):
    """Under a memory limit between the formula without the pairs and with them, both at the
    rank cap (reached), the solve runs and is certified, and the rounds at the cap run
    unpreconditioned; without the limit most steps are preconditioned.  A round without its
    pairs is the unpreconditioned solver's: declined everywhere, the history is the one of
    ``lmp_pairs=0``, float for float."""
    from kernelsdp.limits import GIB, MEMORY_ENV
    from kernelsdp.solvers.low_rank_alm import pairs_fit

    f, cap = two_class_npkl(1000, 1.2, "hinge", "trace", B=1000.0), 20
    monkeypatch.setattr(alm_outer, "scratch_fits", lambda *a: False)
    lean = memory_bytes_for(f.n, f.pairs.m, f.L.nnz, cap, inner="newton")
    paired = memory_bytes_for(f.n, f.pairs.m, f.L.nnz, cap, inner="newton", pairs=8)
    assert paired - lean == pairs_bytes(f.n, cap, 8)
    decisions = []

    def recorded(f, o, width):
        decisions.append((width, pairs_fit(f, o, width)))
        return decisions[-1][1]

    def run(**kw):
        r = solve(f, "low-rank-alm", gap_tol=1e-3, verify_max_n=0, rank=cap, **kw)
        assert r.info["relative_gap"] <= 1e-3
        return r, [(h["products"], h["estimated_gap"]) for h in r.history if "fw_gap" in h]

    monkeypatch.delenv(MEMORY_ENV, raising=False)
    plain, plain_history = run(lmp_pairs=0)
    assert plain.info["lmp_steps"] == 0
    monkeypatch.setattr(alm_outer, "pairs_fit", recorded)
    with_pairs, _ = run(lmp_pairs=8)
    assert with_pairs.info["preconditioned_steps"] > with_pairs.info["lmp_steps"] / 2
    assert all(k for _, k in decisions) and max(w for w, _ in decisions) == cap
    decisions.clear()
    monkeypatch.setenv(MEMORY_ENV, str((lean + paired) / 2 / GIB))
    run(lmp_pairs=8)
    assert {k for w, k in decisions if w == cap} == {False}
    monkeypatch.setattr(alm_outer, "pairs_fit", lambda *a: False)
    declined, declined_history = run(lmp_pairs=8)
    assert declined_history == plain_history and declined.info["lmp_steps"] == 0
