"""The hubs' pockets in bulk (kernelsdp/solvers/alm_pockets.py, issue #30): local
eigenproblems give directions whose Rayleigh quotients are exactly their local λ (so never
below λ_min, Cauchy interlacing), packed without changing K on M's pattern, and line-searched
in without raising the subproblem's value."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import scaled_hinge_state, traced_peak, two_class_npkl, uci_trace_npkl

from kernelsdp.solvers import alm_pockets, solve
from kernelsdp.solvers.alm_inner import BLOCK, _dot, evaluate
from kernelsdp.solvers.alm_problem import ScaledNPKL
from kernelsdp.solvers.low_rank_alm import CHECK_ARRAYS


def _ring_with_hubs(n: int, hubs: dict[int, list[int]], weight: float) -> sp.csr_matrix:
    """A ring's Laplacian plus, for each hub, couplings −weight/2 to its partners (pairs at
    the box's end pull a hub's row down: M = L + Σ β_p E_p with β_p = −weight)."""
    i = np.arange(n)
    ring = sp.coo_matrix((-np.ones(n), (i, (i + 1) % n)), shape=(n, n))
    L = ring + ring.T
    L = L - sp.diags(np.asarray(L.sum(axis=1)).ravel())
    rows, cols = [], []
    for h, partners in hubs.items():
        rows += [h] * len(partners)
        cols += partners
    P = sp.coo_matrix((-weight / 2 * np.ones(len(rows)), (rows, cols)), shape=(n, n))
    return sp.csr_matrix(L + P + P.T)


def test_star_quotients_are_the_diagonal_less_the_off_diagonal_row_norm():
    M = _ring_with_hubs(20, {3: [9, 14]}, 2.0)
    dense = M.toarray()
    off = dense - np.diag(np.diag(dense))
    expected = np.diag(dense) - np.linalg.norm(off, axis=1)
    assert np.allclose(alm_pockets.star_quotients(M), expected)


def test_a_pocket_s_quotient_is_its_local_lambda_and_never_below_the_bottom():
    """One hub: the column found is a unit vector below the level, and its Rayleigh quotient
    under the whole M lies between λ_min(M) and the level (interlacing: a local λ can only
    be above the global one)."""
    M = _ring_with_hubs(60, {10: [25, 33, 41, 50, 55, 3]}, 3.0)
    below = -1.0
    S, found = alm_pockets.pocket_columns(M, below)
    assert found >= 1 and S.shape[1] >= 1
    lam_min = np.linalg.eigvalsh(M.toarray())[0]
    for u in S.T:
        q = float(u @ (M @ u))
        assert np.linalg.norm(u) == pytest.approx(1.0)
        assert lam_min - 1e-10 <= q < below


def test_packed_pockets_leave_k_unchanged_on_m_s_pattern(monkeypatch):
    """Two hubs far apart share one column (COLUMNS = 1): uuᵀ equals the sum of the two
    pockets' outer products wherever M has an entry, so tr(LK), tr K and every pair's entry
    read the same K."""
    monkeypatch.setattr(alm_pockets, "COLUMNS", 1)
    hubs = {10: [12, 14, 8, 6, 16, 18], 50: [52, 54, 48, 46, 56, 58]}
    M = _ring_with_hubs(80, hubs, 3.0)
    S, found = alm_pockets.pocket_columns(M, -1.0)
    assert found == 2 and S.shape[1] == 1
    u = S[:, 0]
    halves = [np.where(np.arange(80) < 30, u, 0.0), np.where(np.arange(80) >= 30, u, 0.0)]
    assert all(np.count_nonzero(h) > 0 for h in halves)
    r, c = M.nonzero()
    packed = u[r] * u[c]
    apart = sum(h[r] * h[c] for h in halves)
    assert np.allclose(packed, apart, atol=1e-14)
    assert not np.allclose(np.outer(u, u), sum(np.outer(h, h) for h in halves))


def test_the_line_search_never_raises_the_subproblem_s_value_and_stays_in_the_ball():
    prob, beta, rho, V = scaled_hinge_state(3, 0.05)
    prob.dual_matrix(
        prob.loss.project(beta, prob.t, prob.C)
    )  # the check's M(β̃), as the solver leaves it
    before = evaluate(prob, V, beta, rho).value
    level = float(np.linalg.eigvalsh(prob.M.toarray())[0]) + 0.3
    W, found = alm_pockets.take_pockets(prob, V.copy(), level, beta, rho)
    after = evaluate(prob, W, beta, rho).value
    assert found >= 1 and W.shape[1] > V.shape[1]
    assert after <= before + 1e-12 * abs(before)
    assert _dot(W, W) <= 1.0 + 1e-12


def test_the_solver_takes_pockets_when_asked_and_not_by_default():
    f = uci_trace_npkl("wine", 60, "hinge")
    on, off = solve(f, "low-rank-alm", pockets=True), solve(f, "low-rank-alm")
    assert on.info["pockets"] > 0 and off.info["pockets"] == 0
    assert on.termination.value == off.termination.value == "optimal"
    tol = on.info["relative_gap"] + off.info["relative_gap"]
    assert abs(on.objective - off.objective) <= tol * max(1.0, abs(off.objective))


def test_the_pocket_step_s_peak_is_below_the_check_phase_the_memory_formula_counts():
    """n = 6,000, s = 24, single precision: the step's arrays (the star quotients, the
    packed columns, V widened, L·V, the pair values) peak below the check's phase of
    memory_bytes_for, so the formula needs no term for them."""
    n, s = 6000, 24
    prob = ScaledNPKL(two_class_npkl(n, 1.2, "hinge", "trace", B=float(n)), np.float32)
    beta = -prob.C * prob.t  # every pair at the box's end, as early in a run: many pockets
    prob.dual_matrix(beta)
    V = (np.random.default_rng(5).standard_normal((n, s)) * 0.01).astype(np.float32)
    (W, found), peak = traced_peak(lambda: alm_pockets.take_pockets(prob, V, 0.0, beta, 1.0))
    assert found > 0 and W.shape[1] > s
    check_phase = 8 * ((CHECK_ARRAYS + 1) * n * s + 14 * n * BLOCK)
    assert peak < check_phase
