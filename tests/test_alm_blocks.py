"""Hubs' pockets solved as PSD blocks (kernelsdp/solvers/alm_blocks.py, issue #30): a block
ends at (B.1)'s KKT point, where the check's matrix on the block lies at or above V's level
(the pocket closed); the pairs it reads are those with both ends in the block; the packed
columns lower φ; the solver's option takes them and certifies the same answer."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import two_class_npkl, uci_trace_npkl

from kernelsdp.solvers import alm_blocks, solve
from kernelsdp.solvers.alm_inner import evaluate
from kernelsdp.solvers.alm_pockets import COLUMNS, HOPS, lowest_pair, neighbourhood, star_quotients
from kernelsdp.solvers.alm_problem import ScaledNPKL

#: the block's KKT residuals, relative to the gradient's scale a (projected gradient stops
#: at a relative change of 1e-10 in value, so its complementarity is not exact)
KKT_RTOL = 1e-4


@pytest.fixture(scope="module")
def case():
    """A 1,500-node two-class instance at a random point with β = 0, and the 2-hop
    neighbourhood of its lowest star quotient with V's level priced 0.2 above its bottom."""
    prob = ScaledNPKL(two_class_npkl(1500, 1.2, "hinge", "trace", B=1500.0), np.float64)
    X = np.random.default_rng(0).standard_normal((prob.n, 4))
    X /= np.linalg.norm(X)
    beta, rho = np.zeros(prob.m), prob.C
    pt = evaluate(prob, X, beta, rho)
    M = prob.dual_matrix(prob.envelope(pt.w, beta, rho)[1])
    N = neighbourhood(M, np.array([int(np.argmin(star_quotients(M)))]), HOPS)
    return prob, pt, beta, rho, N, min(lowest_pair(M, N)[0] + 0.2, 0.0)


def test_pairs_inside_are_the_pairs_with_both_ends_in_the_block(case):
    prob, *_, N, _ = case
    p, a, b = alm_blocks.pairs_inside(prob, N)
    inside = np.isin(prob.i, N) & np.isin(prob.j, N)
    assert len(p) > 0 and sorted(p) == sorted(np.flatnonzero(inside))
    assert np.all(a < b)
    for q, x, y in zip(p, a, b):  # each pair with its own two ends
        assert {N[x], N[y]} == {prob.i[q], prob.j[q]}


def test_the_block_gradient_at_zero_is_the_checks_matrix_on_the_block(case):
    """At D = 0 the gradient is a·(M(β̃)[N, N] − level·I), M from the solver's own
    :meth:`dual_matrix` (not from the block's code)."""
    prob, pt, beta, rho, N, level = case
    f, _ = alm_blocks.block_problem(prob, pt.w, beta, rho, N, level)
    value, G = f(np.zeros((len(N), len(N))))
    M = prob.dual_matrix(prob.envelope(pt.w, beta, rho)[1])
    assert value == 0.0
    expected = prob.a * (M[N][:, N].toarray() - level * np.eye(len(N)))
    assert np.allclose(G, expected, rtol=0, atol=1e-12 * np.abs(expected).max())


def test_the_block_closes_its_pocket(case):
    """At the solution the gradient a·(M_NN(β̃(D)) − level·I) is PSD and complementary to
    D (a solve cut to three iterations fails this)."""
    prob, pt, beta, rho, N, level = case
    value, F, _ = alm_blocks.solve_block(prob, pt.w, beta, rho, N, level)
    assert value < 0 and F.shape[1] >= 1
    f, _ = alm_blocks.block_problem(prob, pt.w, beta, rho, N, level)
    D = F @ F.T
    _, G = f(D)
    assert np.linalg.eigvalsh(G)[0] >= -KKT_RTOL * prob.a
    assert abs(np.sum(G * D)) <= KKT_RTOL * prob.a * np.trace(D)


def test_a_block_cut_short_is_not_at_its_kkt_point(case, monkeypatch):
    """The previous test's mutant: three iterations leave the pocket open."""
    prob, pt, beta, rho, N, level = case
    monkeypatch.setattr(alm_blocks, "BLOCK_ITERATIONS", 3)
    _, F, _ = alm_blocks.solve_block(prob, pt.w, beta, rho, N, level)
    f, _ = alm_blocks.block_problem(prob, pt.w, beta, rho, N, level)
    _, G = f(F @ F.T)
    assert np.linalg.eigvalsh(G)[0] < -KKT_RTOL * prob.a


@pytest.fixture(scope="module")
def own(case):
    """The search at the point's own level, as :func:`take_blocks` runs it (one search, about
    20 s under load: the tests below reuse it)."""
    prob, pt, beta, rho, *_ = case
    return alm_blocks.pocket_blocks(prob, pt, beta, rho, alm_blocks.level_of(prob, pt, beta, rho))


def test_the_search_packs_closed_blocks_into_columns_that_lower_phi(case, own, monkeypatch):
    prob, pt, beta, rho, *_ = case
    S, records = own
    assert records and 1 <= S.shape[1] <= COLUMNS
    assert np.count_nonzero(np.any(S != 0, axis=1)) >= max(r["nodes"] for r in records) - 1
    monkeypatch.setattr(alm_blocks, "pocket_blocks", lambda *a: own)
    new, taken = alm_blocks.take_blocks(prob, pt, beta, rho, cap=64)
    assert taken == len(records) and new.value < pt.value
    assert new.X.shape[1] == pt.X.shape[1] + S.shape[1]
    assert np.linalg.norm(new.X) <= 1.0 + 1e-12  # in the ball: a feasible point


def test_columns_that_raise_phi_are_not_taken(case, own, monkeypatch):
    """A column of random signs on every node (a high Rayleigh quotient under L), large
    beside V: φ rises, and the point comes back unchanged with none taken."""
    prob, pt, beta, rho, *_ = case
    _, records = own
    bad = 10.0 * np.random.default_rng(1).choice([-1.0, 1.0], size=(prob.n, 1))
    monkeypatch.setattr(alm_blocks, "pocket_blocks", lambda *a: (bad, records))
    widened = alm_blocks._project(np.hstack([pt.X, bad]))
    assert evaluate(prob, widened, beta, rho).value > pt.value  # the case the guard is for
    new, taken = alm_blocks.take_blocks(prob, pt, beta, rho, cap=64)
    assert new is pt and taken == 0


def test_at_the_width_cap_the_widened_factor_is_shrunk_to_it(case, own, monkeypatch):
    prob, pt, beta, rho, *_ = case
    monkeypatch.setattr(alm_blocks, "pocket_blocks", lambda *a: own)
    new, taken = alm_blocks.take_blocks(prob, pt, beta, rho, cap=pt.X.shape[1])
    assert taken > 0 and new.X.shape[1] == pt.X.shape[1]
    assert np.linalg.norm(new.X) <= 1.0 + 1e-12


def test_the_solver_takes_blocks_by_default_and_not_when_told():
    """Both runs certify with proofs and agree within their certified gaps."""
    f = uci_trace_npkl("wine", 120, "hinge")
    on, off = solve(f, "low-rank-alm"), solve(f, "low-rank-alm", pocket_blocks=False)
    assert on.info["blocks"] > 0 and off.info["blocks"] == 0
    assert on.termination.value == off.termination.value == "optimal"
    assert on.info["lower_label"] == off.info["lower_label"] == "proof"
    tol = on.info["relative_gap"] + off.info["relative_gap"]
    assert abs(on.objective - off.objective) <= tol * max(1.0, abs(off.objective))


def test_the_level_is_v_s_rayleigh_quotient_under_the_check_s_matrix(case):
    prob, pt, beta, rho, *_ = case
    M = prob.dual_matrix(prob.envelope(pt.w, beta, rho)[1])
    X = pt.X
    expected = float(np.sum(X * (M @ X))) / float(np.sum(X * X))
    assert alm_blocks.level_of(prob, pt, beta, rho) == pytest.approx(expected, rel=1e-10)
