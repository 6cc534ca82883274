"""A scikit-learn estimator for the spectral metric of seed 002.

``SpectralMetricLearning().fit(X, pairs=P)`` learns β from similar pairs (or
``fit(X, y)`` draws them from class labels by the paper protocol, so it works inside a
``Pipeline``); ``transform(X_new)`` embeds points (training or new) with the learned
metric; ``pairwise_distance`` gives learned squared distances; ``similarity`` is an RBF of
the learned distances — nonnegative, for ``SpectralClustering(affinity="precomputed")``
(the learned kernel itself is centred and has negative entries).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..data.pairs import PairwiseConstraints
from ..errors import InvalidDataError
from ..formulations.spectral_metric import SpectralMetric
from ..data.spectral_basis import EIG_RTOL


class SpectralMetricLearning(TransformerMixin, BaseEstimator):
    """Parameters: ``gamma`` (RBF width; None = 1/median squared distance),
    ``n_landmarks`` (None = the full version), ``n_neighbors`` (landmarks per point),
    ``reg`` (local Gram regulariser), ``nonneg`` (β ≥ 0), ``solver`` (``closed-form`` or a
    conic solver name), ``eig_rtol`` (eigenvalues kept above eig_rtol·λ₁), ``random_state``."""

    def __init__(self, gamma=None, n_landmarks=None, n_neighbors=10, reg=1e-3, nonneg=False,
                 solver="closed-form", eig_rtol=EIG_RTOL, random_state=0):
        self.gamma = gamma
        self.eig_rtol = eig_rtol
        self.n_landmarks = n_landmarks
        self.n_neighbors = n_neighbors
        self.reg = reg
        self.nonneg = nonneg
        self.solver = solver
        self.random_state = random_state

    def formulation(self, X, pairs=None, labels=None, y=None) -> SpectralMetric:
        """Build the basis and the QP; pairs come from ``pairs``/``labels`` or, failing
        that, are drawn from class labels ``y`` by the paper protocol (must-links)."""
        if pairs is None:
            if y is None:
                raise InvalidDataError("fit needs similar pairs (pairs=...) or class labels y.")
            P = PairwiseConstraints.from_labels(np.asarray(y), seed=self.random_state)
            pairs, labels = P.as_array(), P.t
        f = SpectralMetric.from_points(
            X, pairs, labels, gamma=self.gamma, n_landmarks=self.n_landmarks,
            n_neighbors=self.n_neighbors, reg=self.reg, eig_rtol=self.eig_rtol,
            nonneg=self.nonneg, seed=self.random_state or 0)
        self.basis_ = f.spectral
        return f

    def fit(self, X, y=None, pairs=None, labels=None):
        from ..solvers import solve
        f = self.formulation(X, pairs, labels, y)
        r = solve(f, self.solver)
        if not r.ok:
            raise InvalidDataError(f"solver {self.solver!r} returned no solution: {r.message}")
        self.result_ = r
        self.beta_ = np.asarray(r.primal["beta"], dtype=float)
        self.objective_ = r.objective
        self.embedding_ = f.basis * self.beta_[None]
        return self

    def transform(self, X):
        check_is_fitted(self, "beta_")
        return self.basis_.coordinates(np.asarray(X, dtype=float)) * self.beta_[None]

    def learned_kernel(self, X, Y=None):
        """K_β between the rows of X and Y (centred; may be negative)."""
        A = self.transform(X)
        return A @ (A if Y is None else self.transform(Y)).T

    def pairwise_distance(self, X, Y=None):
        A = self.transform(X)
        B = A if Y is None else self.transform(Y)
        sa, sb = (A * A).sum(1), (B * B).sum(1)
        return np.maximum(sa[:, None] + sb[None] - 2 * A @ B.T, 0.0)

    def similarity(self, X):
        """exp(−d²/median d²) of learned distances: a nonnegative affinity matrix."""
        D2 = self.pairwise_distance(X)
        med = np.median(D2[np.triu_indices(len(D2), 1)]) if len(D2) > 1 else 1.0
        return np.exp(-D2 / (med if med > 0 else 1.0))
