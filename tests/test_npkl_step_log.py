"""benchmarks/npkl_step_log.py (issue #30, twenty-third pass): the step log's kink error is
the envelope's change beyond the model's quadratic (zero for a step within each pair's
piece, the exact excess for one across a kink), and its row shares are those of η."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import load_benchmark, uci_trace_npkl

from kernelsdp.solvers.alm_newton import _Newton
from kernelsdp.solvers.alm_problem import ScaledNPKL


@pytest.fixture(scope="module")
def log():
    return load_benchmark("npkl_step_log")


def _at():
    prob = ScaledNPKL(uci_trace_npkl("wine", 30, "hinge"), np.float64)
    beta = np.random.default_rng(3).uniform(0.0, 1.0, prob.m) * prob.t
    V = np.random.default_rng(4).standard_normal((prob.n, 3)) * 0.1
    nt = _Newton(prob, beta, 2.0)
    Z = np.vstack([V, np.zeros((1, 3))])
    Z[-1, 0] = np.sqrt(max(0.0, 1 - np.sum(V * V)))
    return nt, nt.at(Z)


def test_the_kink_error_vanishes_within_each_piece_and_is_the_excess_across_one(log):
    nt, x = _at()
    p = nt.prob
    assert log.kink_error(nt, x, x.w + 1e-9)["kink_error"] == pytest.approx(0.0, abs=1e-15)
    # one pair moved far across the band (C/ρ = 0.5), the others not at all
    q = int(np.argmax(x.slope))  # a pair inside the band
    w = x.w.copy()
    w[q] += 50.0
    out = log.kink_error(nt, x, w)
    e = p.envelope_terms(w, nt.beta, nt.rho)[0] - p.envelope_terms(x.w, nt.beta, nt.rho)[0]
    model = x.bt[q] * 50.0 + 0.5 * x.slope[q] / p.B * 50.0**2
    assert out["kink_error"] == pytest.approx((e[q] - model) / p.scale, rel=1e-12)
    assert out["kink_error"] < 0  # the envelope grows linearly past the band, not quadratically
    assert out["max_dw"] == pytest.approx(50.0) and out["nodes_share"] == pytest.approx(1.0)


def test_the_step_shape_counts_the_rows_that_carry_eta(log):
    eta = np.zeros((301, 2))
    eta[:4] = 1.0  # four equal rows, the slack row last
    eta[-1] = 7.0
    shape = log.step_shape(eta)
    assert shape["length"] == pytest.approx(np.sqrt(8.0))
    assert shape["rows"] == pytest.approx(4.0) and shape["head"] == pytest.approx(1.0)
