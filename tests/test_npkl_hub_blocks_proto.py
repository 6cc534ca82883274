"""benchmarks/npkl_hub_blocks_proto.py (issue #30, sixteenth pass): the blocks' projection
is the metric projection onto the capped set, the check reads the folded kernel K, and a
run with hub blocks certifies from scratch an interval that meets the plain solver's."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import load_benchmark

import kernelsdp.solvers.alm_outer as alm_outer
from kernelsdp.result import KernelFactor
from kernelsdp.solvers import solve
from kernelsdp.solvers.alm_inner import evaluate, fw_check
from kernelsdp.solvers.alm_problem import ScaledNPKL


@pytest.fixture(scope="module")
def proto():
    return load_benchmark("npkl_hub_blocks_proto")


@pytest.fixture(scope="module")
def small():
    return load_benchmark("npkl_scale").instance(600)


def _psd(rng, k: int, trace: float) -> np.ndarray:
    A = rng.standard_normal((k, 2))
    W = A @ A.T
    return W * (trace / np.trace(W))


def test_projection_is_the_metric_projection(proto):
    """Feasible, and no feasible point is nearer in the metric lu·du² + lw·‖dW‖²."""
    rng = np.random.default_rng(0)
    u0, lu, lw, c0 = 1.3, 2.0, 50.0, 0.8
    W0 = [rng.standard_normal((4, 4)) for _ in range(2)]
    W0 = [(W + W.T) / 2 + 0.5 * np.eye(4) for W in W0]
    u, Ws = proto.project_blocks(u0, W0, c0, lu, lw)
    assert u >= 0 and all(np.linalg.eigvalsh(W).min() >= -1e-12 for W in Ws)
    assert c0 * u + sum(np.trace(W) for W in Ws) == pytest.approx(1.0, abs=1e-9)

    def dist(u1, W1):
        return lu * (u1 - u0) ** 2 + lw * sum(np.sum((a - b) ** 2) for a, b in zip(W1, W0))

    best = dist(u, Ws)
    for _ in range(200):  # random feasible points: none nearer
        u1 = rng.uniform(0, 1 / c0)
        W1 = [_psd(rng, 4, t) for t in rng.dirichlet([1, 1]) * (1 - c0 * u1)]
        assert dist(u1, W1) >= best - 1e-9
    # a feasible point is its own projection
    u2, W2 = proto.project_blocks(0.5, [_psd(rng, 4, 0.1)], c0, lu, lw)
    assert u2 == pytest.approx(0.5) and np.trace(W2[0]) == pytest.approx(0.1)


def test_the_check_reads_the_folded_kernel(proto, small):
    """With blocks held beside the factor, the check's primal and FW gap are the full
    kernel's (dense at n = 600), and the folded factor is that kernel."""
    rng = np.random.default_rng(1)
    prob = ScaledNPKL(small, np.float64)
    blocks = proto.HubBlocks(prob)
    degree = np.bincount(np.concatenate([prob.i, prob.j]), minlength=prob.n)
    for h in np.argsort(degree)[-2:]:
        blocks.open(int(h))
    blocks.set([_psd(rng, len(N), 0.05) for N in blocks.N])
    X = rng.standard_normal((prob.n, 3))
    X /= np.linalg.norm(X)
    beta = -0.5 * prob.t  # α = C/2 at every pair
    pt = evaluate(prob, X, beta, 1.0)
    chk = proto.with_blocks(fw_check(prob, pt, beta, 1.0, None, 0), blocks)
    U = proto.folded_factor(blocks, X)
    K = U @ U.T
    assert np.trace(K) == pytest.approx(small.B)
    s = prob.scale
    assert chk.primal * s == pytest.approx(small.objective(KernelFactor(U)), rel=1e-10)
    M = prob.M.toarray()[np.ix_(prob.rank_of, prob.rank_of)]  # the caller's order
    fw = (np.sum(M * K) - small.B * min(chk.lam, 0.0)) / s
    assert chk.fw_gap == pytest.approx(fw, rel=1e-8)


def test_a_run_with_blocks_certifies_and_meets_the_plain_interval(proto, small, monkeypatch):
    plain = solve(small, "low-rank-alm")
    for name in ("fw_check", "fw_step", "_inner_round"):
        monkeypatch.setattr(alm_outer, name, getattr(alm_outer, name))
    for name in ("__init__", "interval_at", "certify_kept"):
        monkeypatch.setattr(alm_outer._Run, name, getattr(alm_outer._Run, name))
    log: dict = {}
    proto.install_blocks(False, log)
    r = solve(small, "low-rank-alm")
    assert log["blocks"] > 0 and log["max_tau"] > 0  # the blocks were used
    assert r.info["certificate"].lower_label == "proof"
    assert r.info["relative_gap"] <= 1e-3
    assert r.lower_bound <= plain.upper_bound and plain.lower_bound <= r.upper_bound


def test_a_run_with_local_updates_certifies_and_meets_the_plain_interval(proto, small, monkeypatch):
    """``local-update`` moves only multipliers, so its answer is certified as ever."""
    plain = solve(small, "low-rank-alm")
    for name in ("fw_step", "_inner_round"):
        monkeypatch.setattr(alm_outer, name, getattr(alm_outer, name))
    log: dict = {}
    proto.install_local_update(log)
    r = solve(small, "low-rank-alm")
    assert log["updates"] > 0 and log["pairs"] > 0  # the local step was taken
    assert r.info["certificate"].lower_label == "proof"
    assert r.info["relative_gap"] <= 1e-3
    assert r.lower_bound <= plain.upper_bound and plain.lower_bound <= r.upper_bound
