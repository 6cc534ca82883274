"""The ninth cost pass's shortcuts (issue #26) give what the long ways give: a-priori
bounds found only when a proof reads them, the rows' scales per segment, the DIMACS cone
measures from one stacked eigensolve, and a central search that stops refining once the
combination's cost is negligible.  None may change a label."""

import cvxpy as cp
import networkx as nx
import numpy as np
import pytest

from kernelsdp import tolerances as tol
from kernelsdp.certificate import conic_certificate, interior, solve_canonical
from kernelsdp.certificate.bounds import APrioriBounds, box_bounds, trace_bounds
from kernelsdp.certificate.canonical import CanonicalForm
from kernelsdp.certificate.cones import blocks_min_eig
from kernelsdp.certificate.conic import _cone_mins
from kernelsdp.certificate.equilibrate import _per_block, data_row_scales, power_of_two_inverse
from kernelsdp.data.sdp_instances import lovasz_theta


def _mixed_problem():
    """Zero, ℝ₊, second-order and PSD rows in one form, with a trace-bounded X."""
    X = cp.Variable((3, 3), symmetric=True)
    z = cp.Variable(3)
    C = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])
    cons = [
        X >> 0,
        cp.trace(X) <= 5,
        z >= -1,
        cp.SOC(z[0] + 4, z[1:]),
        X[0, 1] == z[2],
        4 * z[0] + 1e-3 * z[1] <= 7,
    ]
    return cp.Problem(cp.Minimize(cp.trace(C @ X) + cp.sum(z)), cons)


def _form() -> CanonicalForm:
    return solve_canonical(_mixed_problem(), "CLARABEL").form


def _theta_c7() -> cp.Problem:
    return lovasz_theta(nx.cycle_graph(7))


def test_a_priori_bounds_read_lazily_are_the_eager_ones():
    form = _form()
    traces = trace_bounds(form)
    eager = {**box_bounds(form, traces), **traces}
    lazy = APrioriBounds(form)
    assert "a-priori bounds" not in form.__dict__.get("_derived", {})
    assert set(lazy) == set(eager) and len(lazy) == len(eager)
    for j, v in eager.items():
        assert j in lazy
        assert np.array_equal(np.asarray(lazy[j]), np.asarray(v))
    assert len(eager) > 0  # the fixture has bounds to find


def test_row_scales_per_segment_are_the_block_by_block_ones():
    form = _form()
    size = np.abs(np.random.default_rng(0).standard_normal(form.A.shape[0])) * 10.0 ** (
        np.arange(form.A.shape[0]) % 7 - 3
    )
    expected = size.copy()
    for blk in form.blocks:  # the loop the segments replaced
        if blk.kind not in ("zero", "nonneg"):
            expected[blk.rows] = np.max(size[blk.rows], initial=0.0)
    assert np.array_equal(_per_block(form, size), power_of_two_inverse(expected))
    assert data_row_scales(form).shape == (form.A.shape[0],)


def test_the_cone_measures_of_one_stack_are_each_side_alone():
    problem = _mixed_problem()
    sol = solve_canonical(problem, "CLARABEL")
    form = sol.form
    s = form.A @ sol.x + form.b
    got = _cone_mins(form, s, sol.y)
    assert got == (blocks_min_eig(form, s, dual=False), blocks_min_eig(form, sol.y, dual=True))


def test_the_central_search_stops_refining_only_once_the_cost_is_negligible():
    calls = []

    def curve(ts):
        calls.append(ts.size)
        return 1.0 - (ts - 0.3) ** 2  # concave, best near t = 0.3

    def loss(ts):
        return 0.5 + ts

    full = interior._best_t(curve, loss, 1.0)
    assert len(calls) == 1 + interior.REFINE_ROUNDS
    calls.clear()
    quick = interior._best_t(curve, loss, 1.0, enough=np.inf)
    assert len(calls) == 1 and quick[1] > 0
    calls.clear()
    assert interior._best_t(curve, loss, 1.0, enough=1e-12) == full
    assert len(calls) == 1 + interior.REFINE_ROUNDS
    # the threshold itself: a cost of at most `negligible` at the first θ tried
    assert interior.enough_ratio(1e-9, 1e-8) == pytest.approx(1e-8 / (2.0 * 1e-9))
    assert interior.enough_ratio(0.0, 1e-8) == 0.0


@pytest.mark.parametrize("make", [_mixed_problem, _theta_c7])
def test_the_lean_paths_keep_every_label(make, monkeypatch):
    """The certificate with the refinement forced everywhere proves the same ends, up to
    the negligible part of the width the tolerance allows (at the first θ; a larger θ
    multiplies it by at most THETA_GROWTH's spread)."""
    from kernelsdp.certificate import combination

    negligible = combination.NEGLIGIBLE
    lean = conic_certificate(solve_canonical(make(), "CLARABEL"), tol.CERTIFY_TOL)
    monkeypatch.setattr(combination, "NEGLIGIBLE", 0.0)
    full = conic_certificate(solve_canonical(make(), "CLARABEL"), tol.CERTIFY_TOL)
    assert (lean.lower_label, lean.upper_label, lean.kind) == (
        full.lower_label,
        full.upper_label,
        full.kind,
    )
    spread = interior.THETA_GROWTH[-1] / interior.THETA_GROWTH[0]
    allowed = negligible * tol.CERTIFY_TOL * full.scale * spread
    assert abs(lean.upper - full.upper) <= allowed
    assert abs(lean.lower - full.lower) <= allowed


def test_a_small_a_is_bounded_dense_by_its_full_row_length():
    """A small A's rounding bounds read a dense copy, γ_k with k every term of a row (never
    fewer than the nonzeros a sparse product sums); Aᵀ is a view of the same array."""
    form = _form()
    A, AT = form.magnitude(), form.magnitude(transposed=True)
    assert isinstance(A.M, np.ndarray) and np.array_equal(A.M, form.A.toarray())
    assert (A.k, AT.k) == (form.A.shape[1], form.A.shape[0])
    assert np.shares_memory(AT.M, A.M) and np.array_equal(AT.abs, np.abs(A.M).T)
