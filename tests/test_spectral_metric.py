"""Spectral metric learning (seed 002): QP vs closed form, landmarks, out of sample, sklearn."""

import numpy as np
import pytest
from sklearn.cluster import SpectralClustering
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from kernelsdp import tolerances as tol
from kernelsdp.data import PairwiseConstraints, load, xor
from kernelsdp.data.spectral_basis import full_basis
from kernelsdp.errors import InvalidDataError, InvalidParameterError, TooLargeError
from kernelsdp.evaluation import pairwise_cluster_accuracy
from kernelsdp.formulations import SpectralMetric
from kernelsdp.metric import RCA, SpectralMetricLearning, class_separation
from kernelsdp.solvers import solve
from kernelsdp.verify import verify


def similar(y, m, seed=0):
    return PairwiseConstraints.sample(y, m, seed, must_link_only=True).as_array()


@pytest.mark.parametrize("nonneg", [False, True])
def test_closed_form_matches_clarabel(nonneg):
    X, y = load("wine")
    f = SpectralMetricLearning(nonneg=nonneg).formulation(X, y=y)
    rep = verify(f, ["clarabel", "spectral-metric-closed-form"])
    assert rep.passed, [(c.solver, c.failed, c.residuals) for c in rep.checks]
    assert rep.comparisons[0].relative_difference <= tol.SPECTRAL_QP_RTOL


def test_qp_golden():
    f = SpectralMetric(d=np.array([1.0, 2.0, 4.0]), c=7.0)
    r = solve(f, "spectral-metric-closed-form")
    assert np.allclose(r.primal["beta"], [4.0, 2.0, 1.0]) and np.isclose(r.objective, 28.0)
    assert np.isclose(r.duals["rho"], 8.0)


def test_landmarks_with_m_equal_n_reproduce_the_full_kernel():
    X, y = xor(150)
    P = similar(y, 30)
    full = SpectralMetricLearning().fit(X, pairs=P)
    land = SpectralMetricLearning(n_landmarks=len(X)).fit(X, pairs=P)
    assert np.abs(full.learned_kernel(X) - land.learned_kernel(X)).max() < 1e-6


def test_out_of_sample_is_consistent_on_training_points():
    X, y = xor(120)
    P = similar(y, 25)
    for m in (None, 60):
        est = SpectralMetricLearning(n_landmarks=m).fit(X, pairs=P)
        assert np.allclose(est.transform(X), est.embedding_, atol=1e-6)


def test_learning_separates_xor_and_rca_cannot():
    X, y = xor(300)
    P = similar(y, 60)
    Xn, yn = xor(300, seed=1)
    est = SpectralMetricLearning(n_landmarks=150).fit(X, pairs=P)
    J_learned = class_separation(est.transform(Xn), yn)
    J_input = class_separation(Xn, yn)
    J_rca = class_separation(RCA().fit(X, P).transform(Xn), yn)
    # measured: learned ≈ 1.16, input ≈ 1.00, RCA ≈ 1.02 (a linear map cannot untangle XOR)
    assert J_learned > 1.08 * J_input and J_learned > 1.08 * J_rca


def test_pipeline_and_spectral_clustering():
    X, y = load("iris", standardized=False)
    pipe = make_pipeline(StandardScaler(), SpectralMetricLearning()).fit(X, y)
    Y = pipe.transform(X)
    assert Y.shape[0] == len(y)
    est = pipe[-1]
    A = est.similarity(pipe[0].transform(X))
    assert A.min() >= 0 and np.allclose(A, A.T)
    pred = SpectralClustering(3, affinity="precomputed", random_state=0).fit_predict(A)
    assert pairwise_cluster_accuracy(y, pred) > 0.8


def test_bad_inputs():
    X, y = xor(30)
    with pytest.raises(InvalidDataError):
        SpectralMetricLearning().fit(X, pairs=[[0, 0]])
    with pytest.raises(InvalidDataError):
        SpectralMetricLearning().fit(X, pairs=[[0, 99]])
    with pytest.raises(InvalidDataError, match="similar"):
        SpectralMetricLearning().fit(X, pairs=[[0, 1]], labels=[-1])
    with pytest.raises(InvalidParameterError, match="n_landmarks"):
        SpectralMetricLearning(n_landmarks=1).fit(X, pairs=[[0, 1], [2, 3]])
    with pytest.raises(TooLargeError, match="GiB"):
        full_basis(np.zeros((7000, 2)), 1.0)
