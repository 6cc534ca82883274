"""benchmarks/npkl_fw_split.py (issue #30, thirty-eighth pass): the check's FW gap splits
exactly into its parts in span V, outside it and the trace's slack, λ_V and the vertex's
share agree with a dense computation, the step t is the line search's, and the split reads
the solver's path and never moves it."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla
from conftest import load_benchmark, scaled_hinge_state

import kernelsdp.solvers.alm_inner as alm_inner
import kernelsdp.solvers.alm_outer as alm_outer
from kernelsdp.solvers import solve
from kernelsdp.solvers.alm_inner import evaluate, fw_check


@pytest.fixture(scope="module")
def traced():
    split = load_benchmark("npkl_fw_split")
    rows, r = split.traced(600, 0)
    return split, rows, r


def test_the_split_agrees_with_a_dense_computation():
    """At a state with a random 5-column factor: λ_V is the least eigenvalue of M(β̃) on an
    orthonormal basis of span V (scipy's), the share is the vertex's squared projection on
    it, and the three parts sum to the check's FW gap."""
    split = load_benchmark("npkl_fw_split")
    prob, beta, rho, V = scaled_hinge_state(5, 0.05)
    pt = evaluate(prob, V, beta, rho)
    chk = fw_check(prob, pt, beta, rho, None, 0)
    d = split.split(prob, pt, chk)
    M = prob.dual_matrix(chk.beta_tilde).toarray()
    Q = sla.orth(np.asarray(pt.X, dtype=np.float64))
    assert d["lam_v"] == pytest.approx(np.linalg.eigvalsh(Q.T @ M @ Q)[0], abs=1e-10)
    assert d["share"] == pytest.approx(float(np.sum((Q.T @ chk.vertex) ** 2)), abs=1e-10)
    assert d["in_span"] + d["outside"] + d["slack"] == pytest.approx(chk.fw_gap, rel=1e-9)
    assert d["outside"] > 0  # a random factor lacks the bottom direction


def test_the_parts_sum_to_the_checks_fw_gap(traced):
    _, rows, _ = traced
    parts = [d for d in rows if "in_span" in d]
    assert len(parts) >= 5
    for d in parts:
        total = d["in_span"] + d["outside"] + d["slack"]
        assert total == pytest.approx(d["fw"], rel=1e-7, abs=1e-12)
        assert d["in_span"] >= -1e-12 and -1e-12 <= d["share"] <= 1 + 1e-12
        # the check's Rayleigh–Ritz space holds span V, so its λ is at most λ_V
        assert d["outside"] >= -1e-9


def test_the_step_t_is_the_line_search_s_and_only_where_a_step_was_taken(traced):
    """t is read from the Frank–Wolfe step's own line search: in [0, 1], 0 at every check
    that updated the multipliers (no step there), positive at some that did not."""
    _, rows, r = traced
    checks = [h for h in r.history if "fw_gap" in h]
    updated = [
        b["multiplier_updates"] > a["multiplier_updates"] for a, b in zip(checks, checks[1:])
    ]
    assert all(0.0 <= d["t"] <= 1.0 for d in rows)
    assert all(d["t"] == 0.0 for d, u in zip(rows, updated) if u)
    assert any(d["t"] > 0 for d, u in zip(rows, updated) if not u)
    assert alm_inner.exact_step.__module__ == "kernelsdp.solvers.alm_inner"  # restored


def test_the_split_leaves_the_path_and_the_solver_as_they_were(traced):
    split, rows, r = traced
    # from K = 0 without the blocks, as the benchmark runs (its numbers were measured there)
    f = load_benchmark("npkl_scale").instance(600)
    plain = solve(f, "low-rank-alm", seed=0, spectral_start=0, pocket_blocks=False)
    assert r.info["products"] == plain.info["products"]
    assert r.info["checks"] == plain.info["checks"] == len(rows)
    assert alm_outer.fw_check.__module__ == "kernelsdp.solvers.alm_inner"
    assert alm_outer.fw_step.__module__ == "kernelsdp.solvers.alm_inner"
