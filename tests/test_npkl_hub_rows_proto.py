"""benchmarks/npkl_hub_rows_proto.py (issue #30, twenty-third pass): the row pass minimises
φ over each hub's row exactly (no perturbation of the row lowers φ), its pair index lists
every pair at a row, and the round after it lowers φ with the hubs' rows nearly frozen."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import load_benchmark, scaled_hinge_state

from kernelsdp.solvers.alm_inner import evaluate


@pytest.fixture(scope="module")
def proto():
    return load_benchmark("npkl_hub_rows_proto")


def _state(r: int = 3, scale: float = 0.1):
    return scaled_hinge_state(r, scale)


def test_the_pair_index_lists_every_pair_at_each_row(proto):
    prob, _, _, _ = _state()
    pointer, pair, partner = proto.pair_index(prob)
    for i in range(prob.n):
        at = pair[pointer[i] : pointer[i + 1]]
        expected = np.flatnonzero((prob.i == i) | (prob.j == i))
        assert sorted(at) == sorted(expected)
        other = np.where(prob.i[at] == i, prob.j[at], prob.i[at])
        np.testing.assert_array_equal(partner[pointer[i] : pointer[i + 1]], other)


def test_a_row_solve_leaves_no_perturbation_of_the_row_that_lowers_phi(proto):
    """Inside the ball (μ = 0) ψ_i is φ along row i up to a constant: after the solve φ is
    lower and no perturbation of that row, small or large, lowers it further."""
    prob, beta, rho, V = _state()
    deg = np.bincount(np.concatenate([prob.i, prob.j]), minlength=prob.n)
    i = int(np.argmax(deg))
    before = evaluate(prob, V, beta, rho).value
    X = V.copy()
    proto.solve_row(prob, X, i, beta, rho, 0.0)
    after = evaluate(prob, X, beta, rho).value
    assert after < before
    rng = np.random.default_rng(9)
    for size in (1e-6, 1e-3, 1e-1):
        for _ in range(20):
            Y = X.copy()
            Y[i] += size * rng.standard_normal(X.shape[1])
            assert evaluate(prob, Y, beta, rho).value >= after - 1e-12


def test_the_round_lowers_phi_and_moves_the_frozen_rows_only_with_the_scaling(proto):
    prob, beta, rho, V = _state(scale=0.05)
    pt = evaluate(prob, V, beta, rho)
    out, _, info = proto.newton_without_hubs(prob, pt, beta, rho, 0.1, 4, 1e-12, k=3)
    assert out.value < pt.value and info["steps"] > 0
    rows, _ = proto.hub_rows(prob, pt, beta, rho, 3)
    X = V.copy()
    for i in rows:
        proto.solve_row(prob, X, int(i), beta, rho, 0.0)  # inside the ball: μ = 0
    # the steps move a frozen row only along x itself (the tangent projection's and the
    # retraction's common scaling of every row): out = c·X there, for one c
    c = np.sum(out.X[rows] * X[rows]) / np.sum(X[rows] * X[rows])
    off = np.linalg.norm(out.X[rows] - c * X[rows], axis=1)
    moved = np.linalg.norm(out.X - c * X, axis=1)
    assert off.max() < 1e-3 * moved.max()
