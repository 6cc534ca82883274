"""The multilevel warm start of the low-rank augmented Lagrangian (issue #30, sixth pass;
:mod:`kernelsdp.solvers.alm_coarse`, the ``Start`` of :mod:`kernelsdp.solvers.alm_outer`):
the restricted problem keeps the fine pair values and its dual matrix is PᵀM(β)P, the
warm-started solve reaches the cold one's certified interval and holds Clarabel's optimum,
and a start of the wrong shape is refused with a typed error."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import two_class_npkl

from kernelsdp.certificate import PROOF
from kernelsdp.data import PairwiseConstraints, knn_laplacian, load
from kernelsdp.errors import InvalidParameterError
from kernelsdp.formulations import NPKL
from kernelsdp.result import Termination
from kernelsdp.solvers import solve
from kernelsdp.solvers.alm_coarse import CoarseNPKL, aggregation, coarse_start
from kernelsdp.solvers.alm_outer import Start, solve_alm
from kernelsdp.solvers.alm_problem import ScaledNPKL
from kernelsdp.solvers.low_rank_alm import LowRankALMOptions, _rank_cap
from kernelsdp.tolerances import LOW_RANK_ALM_GAP_TOL


def _fixture(name: str, n: int) -> NPKL:
    X, y = load(name)
    idx = np.sort(np.random.default_rng(0).choice(len(y), n, replace=False))
    pairs = PairwiseConstraints.from_labels(y[idx], ratio=0.5, seed=1)
    return NPKL(
        L=knn_laplacian(X[idx], 5), pairs=pairs, loss="hinge", capacity="trace", C=1.0, B=float(n)
    )


@pytest.mark.parametrize("kind", ["standard", "matching"])
def test_every_point_is_in_one_aggregate(kind):
    f = _fixture("wine", 120)
    label = aggregation(f.L, 1, kind)
    counts = np.bincount(label)
    assert label.shape == (120,) and counts.min() >= 1 and len(counts) < 120


@pytest.mark.parametrize("kind", ["standard", "matching"])
def test_restriction_keeps_pair_values_trace_and_laplacian_term(kind):
    """K = P K_c Pᵀ: PᵀP = I, each fine pair's value is w_p·(K_c)_ab, tr K = tr K_c,
    tr(LK) = tr(L_c K_c), and the coarse dual matrix is PᵀM(β)P (pairs inside one
    aggregate on the diagonal)."""
    f = _fixture("wine", 120)
    label = aggregation(f.L, 1, kind)
    c, fine = CoarseNPKL(f, label, np.float64), ScaledNPKL(f, np.float64)
    P = sp.csr_matrix((c.p, (np.arange(f.n), label)))
    assert np.allclose((P.T @ P).toarray(), np.eye(c.n), atol=1e-12)
    rng = np.random.default_rng(3)
    Vc = rng.standard_normal((c.n, 4))
    U = c.prolong(c.to_original(Vc))
    assert np.allclose(c.pair_entries(Vc), fine.pair_entries(fine.from_original(U)), atol=1e-12)
    Uc = c.to_original(Vc)
    assert np.isclose(np.sum(U * U), np.sum(Uc * Uc))
    Lc = (P.T @ f.L @ P).toarray()
    assert np.isclose(np.sum(U * (f.L @ U)), np.sum(Uc * (Lc @ Uc)))
    beta = rng.standard_normal(f.pairs.m)
    Mf = fine.dual_matrix(beta).toarray()[np.ix_(fine.rank_of, fine.rank_of)]
    Mc = c.dual_matrix(beta).toarray()[np.ix_(c.rank_of, c.rank_of)]
    assert np.allclose(P.T @ Mf @ P, Mc, atol=1e-12)
    if kind == "standard":  # the diagonal case (a pair inside one aggregate) was met
        assert np.any(label[f.pairs.i] == label[f.pairs.j])


@pytest.mark.parametrize("kind", ["standard", "matching"])
def test_warm_start_reaches_the_cold_interval_and_holds_clarabel_s_optimum(kind):
    """Wine, 60 points: from the prolonged coarse solution the fine ALM certifies the gap
    from scratch (both ends proofs), its interval meets the cold solve's, and Clarabel's
    optimum lies in both."""
    f = _fixture("wine", 60)
    o = LowRankALMOptions()
    cap = _rank_cap(f, o)
    start, info = coarse_start(f, o, cap, 1, 1e-2, kind)
    assert start.U.shape[0] == f.n and info["n_coarse"] < f.n
    assert np.sum(start.U**2) <= f.B * (1 + 1e-9)
    warm = solve_alm("low-rank-alm", f, o, cap, start)
    cold = solve(f, "low-rank-alm")
    w, c = warm.info["certificate"], cold.info["certificate"]
    assert warm.termination == Termination.OPTIMAL and w.width <= LOW_RANK_ALM_GAP_TOL
    assert w.lower_label == PROOF and w.upper_label == PROOF
    assert max(w.lower, c.lower) <= min(w.upper, c.upper) + 1e-9 * abs(c.upper)
    ref = solve(f, "clarabel")
    slack = 1e-6 * max(1.0, abs(ref.objective))
    assert w.lower - slack <= ref.objective <= w.upper + slack


def test_a_start_of_the_wrong_shape_is_refused():
    f = _fixture("iris", 40)
    o = LowRankALMOptions()
    cap = _rank_cap(f, o)
    m = f.pairs.m
    bad = [
        Start(np.zeros((f.n + 1, 2)), np.zeros(m)),
        Start(np.zeros(f.n), np.zeros(m)),
        Start(np.zeros((f.n, 2)), np.zeros(m - 1)),
        Start(np.full((f.n, 2), np.nan), np.zeros(m)),
        Start(np.zeros((f.n, 2)), np.zeros(m), rho=-1.0),
    ]
    for start in bad:
        with pytest.raises(InvalidParameterError):
            solve_alm("low-rank-alm", f, o, cap, start)


def test_a_coarse_level_reads_its_own_l_in_double():
    """The Newton steps' values on a coarse level use Pᵀ·L·P in double, not the fine L
    (whose rows in the coarse order would have the coarse size and the wrong entries)."""
    f = two_class_npkl(400, 1.2, "hinge", "trace", B=400.0)
    label = np.arange(400) // 4  # aggregates of four
    prob = CoarseNPKL(f, label, np.float32)
    V = np.random.default_rng(0).standard_normal((prob.n, 3)).astype(np.float32)
    np.testing.assert_allclose(
        prob.times_L_double(V), prob.L.astype(np.float64) @ V, rtol=1e-5, atol=1e-6
    )
