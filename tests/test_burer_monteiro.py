"""The Burer–Monteiro peer (pymanopt): the same trace-bounded NPKL, certified by the same
NPKL certificate as ADMM, agreeing with an interior-point solver."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import make_npkl, traced_peak, two_class_npkl

from kernelsdp.errors import UnsupportedProblemError
from kernelsdp.formulations import LOSSES
from kernelsdp.result import Termination
from kernelsdp.solvers import solve
from kernelsdp.solvers.burer_monteiro import loss_derivative
from kernelsdp.tolerances import ADMM_GAP_TOL
from kernelsdp.verify import certify, verify

pytest.importorskip("pymanopt")


@pytest.mark.parametrize("loss", ["l2", "squared-hinge"])
def test_certified_by_the_npkl_certificate_and_agrees_with_clarabel(iris_small, loss):
    f = make_npkl(iris_small, loss, "trace", C=1.0, B=24.0)
    rep = verify(f, ["burer-monteiro", "clarabel"], tol=ADMM_GAP_TOL)
    bm = rep.checks[0]
    assert bm.status == "optimal" and bm.passed, bm.failed
    assert bm.rigorous and bm.lower <= bm.upper
    assert all(c.passed for c in rep.comparisons)  # the two certified intervals overlap


def test_the_multipliers_are_the_loss_derivatives():
    z, T, C = np.linspace(-2, 2, 9), np.array([1.0, -1.0] * 4 + [1.0]), 0.7
    for loss in ("l2", "squared-hinge"):
        h = LOSSES[loss].value
        fd = (h(z + 1e-6, T, C) - h(z - 1e-6, T, C)) / 2e-6
        assert np.allclose(loss_derivative(loss, z, T, C), fd, atol=1e-6)


def test_a_too_narrow_factor_says_so_and_is_not_certified(iris_small):
    f = make_npkl(iris_small, "l2", "trace", C=1.0, B=24.0)
    r = solve(f, "burer-monteiro", rank=1, max_iter=200)
    cert = certify(f, r, ADMM_GAP_TOL)
    assert r.termination is not Termination.OPTIMAL and not cert.passed
    assert r.kernel.trace() <= f.B * (1 + 1e-12)  # every iterate is feasible (the sphere)


@pytest.mark.parametrize("loss", ["hinge", "l1", "linear"])
def test_nonsmooth_losses_are_refused_with_the_reason(iris_small, loss):
    f = make_npkl(iris_small, loss, "trace", C=1.0, B=24.0)
    with pytest.raises(UnsupportedProblemError, match="burer-monteiro"):
        solve(f, "burer-monteiro")


def test_the_hessian_is_the_derivative_of_the_gradient():
    z, T, C = np.linspace(-2, 2, 9), np.array([1.0, -1.0] * 4 + [1.0]), 0.7
    from kernelsdp.solvers.burer_monteiro import loss_curvature

    for loss in ("l2", "squared-hinge"):
        fd = (loss_derivative(loss, z + 1e-7, T, C) - loss_derivative(loss, z - 1e-7, T, C)) / 2e-7
        keep = np.abs(1 - T * z) > 1e-3  # away from the squared hinge's kink
        assert np.allclose(loss_curvature(loss, z, T, C)[keep], fd[keep], atol=1e-5)


def test_the_solvers_euclidean_hessian_is_the_derivative_of_its_gradient(iris_small, monkeypatch):
    """The Hessian closure handed to pymanopt, finite-differenced through its own gradient."""
    pymanopt = pytest.importorskip("pymanopt")
    seen = []
    real = pymanopt.Problem
    monkeypatch.setattr(pymanopt, "Problem", lambda *a, **k: seen.append(real(*a, **k)) or seen[-1])
    for loss in ("l2", "squared-hinge"):
        f = make_npkl(iris_small, loss, "trace", C=1.0, B=24.0)
        solve(f, "burer-monteiro", max_iter=1)
        problem = seen[-1]
        rng = np.random.default_rng(0)
        V = rng.standard_normal(problem.manifold.random_point().shape)
        D = rng.standard_normal(V.shape)
        h = 1e-6
        fd = (problem.euclidean_gradient(V + h * D) - problem.euclidean_gradient(V - h * D)) / (
            2 * h
        )
        H = problem.euclidean_hessian(V, D)
        assert np.linalg.norm(H - fd) <= 1e-4 * max(1.0, np.linalg.norm(fd)), loss


def test_memory_estimate_holds_the_measured_peak():
    """memory_bytes (what the memory check refuses sizes by) is at least tracemalloc's peak
    over the first 15 trust-region iterations at n = 2,000, and not far above it.  An
    iteration limit, not a time limit: the peak grows with the inner conjugate-gradient
    iterations reached (0.57 of the estimate after 1, 0.78 after 3-5, 0.86 from 15 on), so a
    time limit made the ratio depend on the machine's load."""
    from kernelsdp.formulations import NPKL
    from kernelsdp.solvers import get_solver

    f = two_class_npkl(2000, 1.2, "squared-hinge", "trace", B=2000.0)
    s = get_solver(NPKL, "burer-monteiro")
    r, peak = traced_peak(lambda: solve(f, "burer-monteiro", max_iter=15))
    assert r.iterations == 15
    estimate = s.memory_bytes(f, s.options(max_iter=15))
    assert 0.8 * estimate <= peak <= estimate  # measured 0.86
