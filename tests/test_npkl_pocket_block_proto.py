"""benchmarks/npkl_pocket_block_proto.py (issue #30, forty-third pass): a hub's pocket
solved as a PSD block of its own ends at the block problem's KKT point, where the check's
matrix on the block lies at or above V's level (the pocket closed); the pairs it reads are
those with both ends in the block."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import load_benchmark

from kernelsdp.solvers import alm_outer
from kernelsdp.solvers.alm_inner import evaluate
from kernelsdp.solvers.alm_pockets import HOPS, lowest_pair, neighbourhood, star_quotients
from kernelsdp.solvers.alm_problem import ScaledNPKL

#: the block's KKT residuals, relative to the gradient's scale a (projected gradient stops
#: at a relative change of 1e-10 in value, so its complementarity is not exact)
KKT_RTOL = 1e-4


@pytest.fixture(scope="module")
def proto():
    return load_benchmark("npkl_pocket_block_proto")


@pytest.fixture(scope="module")
def case(proto):
    """A 1,500-node instance of npkl_scale at a random point with β = 0, and the 2-hop
    neighbourhood of its lowest star quotient with V's level priced 0.2 above its bottom."""
    prob = ScaledNPKL(proto.instance(1500), np.float64)
    X = np.random.default_rng(0).standard_normal((prob.n, 4))
    X /= np.linalg.norm(X)
    beta, rho = np.zeros(prob.m), prob.C
    pt = evaluate(prob, X, beta, rho)
    M = prob.dual_matrix(prob.envelope(pt.w, beta, rho)[1])
    N = neighbourhood(M, np.array([int(np.argmin(star_quotients(M)))]), HOPS)
    return prob, pt, beta, rho, N, lowest_pair(M, N)[0] + 0.2


@pytest.fixture
def restored(monkeypatch):
    """The solver's inner round put back after the test (``install`` replaces it)."""
    monkeypatch.setattr(alm_outer, "_inner_round", alm_outer._inner_round)


def test_pairs_inside_are_the_pairs_with_both_ends_in_the_block(proto, case):
    prob, *_, N, _ = case
    p, a, b = proto.pairs_inside(prob, N)
    inside = np.isin(prob.i, N) & np.isin(prob.j, N)
    assert sorted(p) == sorted(np.flatnonzero(inside))
    assert np.all(a < b)
    for q, x, y in zip(p, a, b):  # each pair with its own two ends
        assert {N[x], N[y]} == {prob.i[q], prob.j[q]}


def test_the_block_gradient_at_zero_is_the_checks_matrix_on_the_block(proto, case):
    """At D = 0 the gradient is a·(M(β̃)[N, N] − level·I), M from the solver's own
    :meth:`dual_matrix` (not from the block's code)."""
    prob, pt, beta, rho, N, level = case
    f, _ = proto.block_problem(prob, pt.w, beta, rho, N, level)
    value, G = f(np.zeros((len(N), len(N))))
    M = prob.dual_matrix(prob.envelope(pt.w, beta, rho)[1])
    assert value == 0.0
    expected = prob.a * (M[N][:, N].toarray() - level * np.eye(len(N)))
    assert np.allclose(G, expected, rtol=0, atol=1e-12 * np.abs(expected).max())


def test_the_block_closes_its_pocket(proto, case):
    prob, pt, beta, rho, N, level = case
    value, F, _ = proto.solve_block(prob, pt.w, beta, rho, N, level)
    assert value < 0 and F.shape[1] >= 1
    f, _ = proto.block_problem(prob, pt.w, beta, rho, N, level)
    D = F @ F.T
    _, G = f(D)  # a·(M_NN(β̃(D)) − level·I)
    assert np.linalg.eigvalsh(G)[0] >= -KKT_RTOL * prob.a
    assert abs(np.sum(G * D)) <= KKT_RTOL * prob.a * np.trace(D)


def test_the_search_packs_closed_blocks_into_new_columns(proto, case):
    prob, pt, beta, rho, N, level = case
    S, records = proto.pocket_blocks(prob, pt, beta, rho, level)
    assert records and 1 <= S.shape[1] <= proto.COLUMNS
    assert np.count_nonzero(np.any(S != 0, axis=1)) >= max(r["nodes"] for r in records) - 1
    # the columns lower φ: V widened by them (then scaled into the ball) is a better point
    X = proto._project(np.hstack([pt.X, S]))
    assert evaluate(prob, X, beta, rho).value < pt.value


def test_the_run_prints_its_counts(proto, capsys, restored):
    assert proto.main(["--n", "1500", "--mode", "block"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "optimal" and out["label"] == "proof"
    assert out["pockets_solved"] >= 1 and out["rounds_kept"] >= 1 and out["products"] > 0
