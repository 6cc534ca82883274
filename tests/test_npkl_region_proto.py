"""benchmarks/npkl_region_proto.py (issue #30, nineteenth pass): the region's boundary along
a line is where N(η + τd) = Δ, its CG is the plain Steihaug–Toint when the row cap never
binds, it stops on the boundary when the cap binds, and each variant's run takes its own
steps and certifies from scratch an interval that meets the plain solver's."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import load_benchmark
from test_npkl_step_proto import _near_minimiser, assert_variant_certifies

import kernelsdp.solvers.alm_outer as alm_outer
from kernelsdp.solvers.alm_newton import truncated_cg


@pytest.fixture(scope="module")
def proto():
    return load_benchmark("npkl_region_proto")


@pytest.fixture()
def restored(monkeypatch):
    monkeypatch.setattr(alm_outer, "newton", alm_outer.newton)


def _gradient(x) -> np.ndarray:
    grad = np.zeros_like(x.Z)
    grad[:-1] = x.G
    return grad - (grad * x.Z).sum() * x.Z


@pytest.mark.parametrize("kappa", [1.0, 4.0, 1e6])
def test_the_boundary_along_a_line_is_where_the_region_norm_reaches_the_radius(proto, kappa):
    rng = np.random.default_rng(3)
    eta = rng.standard_normal((201, 4)) * 1e-3
    eta[7] *= 40  # one heavy row: the cap binds for small κ
    d = rng.standard_normal((201, 4))
    delta = 2 * proto.region_norm(eta, kappa)
    tau = proto.to_region_boundary(eta, d, delta, kappa)
    assert proto.region_norm(eta + tau * d, kappa) == pytest.approx(delta, rel=1e-10)
    assert proto.region_norm(eta + 0.999 * tau * d, kappa) < delta
    if kappa == 1e6:  # the cap never binds: the Frobenius ball's root
        assert math.sqrt(np.sum((eta + tau * d) ** 2)) == pytest.approx(delta, rel=1e-10)


def test_region_cg_is_steihaug_toint_when_the_cap_does_not_bind(proto):
    nt, x, _, _ = _near_minimiser()
    grad = _gradient(x)
    for delta in (1e3, 1e-3 * np.linalg.norm(grad)):
        plain, dec, edge = truncated_cg(nt, x, grad, delta, 50)
        eta, decrease, boundary, length = proto.region_cg(nt, x, grad, delta, 50, 1e9)
        np.testing.assert_allclose(eta, plain, rtol=1e-9, atol=1e-14)
        assert (decrease, boundary) == pytest.approx((dec, edge))


def test_region_cg_stops_on_the_boundary_when_the_row_cap_binds(proto):
    """κ = 1: no row may move by more than Δ/√n; the step is longer than that in
    Frobenius length but its region norm is Δ, and the model still decreases."""
    nt, x, _, _ = _near_minimiser()
    grad = _gradient(x)
    delta = 0.05 * np.linalg.norm(grad)
    eta, decrease, boundary, length = proto.region_cg(nt, x, grad, delta, 50, 1.0)
    n = x.Z.shape[0] - 1
    rows = np.sqrt((eta[:-1] ** 2).sum(axis=1))
    assert boundary and length == delta and decrease > 0
    assert rows.max() == pytest.approx(delta / math.sqrt(n), rel=1e-9)
    assert proto.region_norm(eta, 1.0) == pytest.approx(delta, rel=1e-9)


@pytest.mark.parametrize("method", ["rows-4", "rows-16"])
def test_a_variant_run_certifies_and_meets_the_plain_interval(proto, restored, method):
    assert_variant_certifies(proto, method)
