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
from ..errors import InvalidDataError, InvalidParameterError
from ..formulations.spectral_metric import SpectralMetric
from .spectral import (EIG_RTOL, choose_landmarks, full_basis, landmark_basis, median_gamma,
                       validate_points_pairs)


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

    def _similar(self, X, y, pairs, labels):
        if pairs is None:
            if y is None:
                raise InvalidDataError("fit needs similar pairs (pairs=...) or class labels y.")
            P = PairwiseConstraints.from_labels(np.asarray(y), seed=self.random_state)
            return np.column_stack([P.i[P.t > 0], P.j[P.t > 0]])
        X, P = validate_points_pairs(X, pairs)
        if labels is not None:
            lab = np.asarray(labels, dtype=float).ravel()
            if lab.shape != (len(P),) or not np.all(np.isin(lab, (-1.0, 1.0))):
                raise InvalidDataError("labels must be one ±1 per pair.")
            P = P[lab > 0]
        if len(P) == 0:
            raise InvalidDataError("no similar (+1) pair: J_S is built from similar pairs only.")
        return P

    def formulation(self, X, pairs=None, labels=None, y=None) -> SpectralMetric:
        """Build the basis and the QP (also used by ``kernelsdp solve spectral-metric``)."""
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or not np.all(np.isfinite(X)):
            raise InvalidDataError("X must be a finite (n, D) array.")
        S = self._similar(X, y, pairs, labels)
        if self.n_neighbors < 1:
            raise InvalidParameterError(f"The 'n_neighbors' parameter of SpectralMetricLearning "
                                        f"must be an int >= 1. Got {self.n_neighbors!r} instead.")
        gamma = self.gamma if self.gamma is not None else median_gamma(X, seed=self.random_state or 0)
        if self.n_landmarks is None:
            self.basis_ = full_basis(X, gamma, self.eig_rtol)
        else:
            marks = choose_landmarks(len(X), S, int(self.n_landmarks), seed=self.random_state or 0)
            self.basis_ = landmark_basis(X, gamma, marks, self.n_neighbors, self.reg, self.eig_rtol)
        return SpectralMetric.from_basis(self.basis_.train_coordinates(), self.basis_.lam, S,
                                         nonneg=self.nonneg)

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
