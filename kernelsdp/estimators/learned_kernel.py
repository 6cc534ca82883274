"""What a learned kernel gives downstream, from the factor rows ``transform`` returns.

With Φ = ``transform(X)`` (K = ΦΦᵀ): ``learned_kernel`` for ``SVC(kernel="precomputed")``,
``pairwise_distance`` (squared distances in the learned feature space), and ``similarity``,
exp(−d²/s) with s the median squared distance over the *training* points (fixed at fit, so
that new points are scored on the same scale) — nonnegative, for
``SpectralClustering(affinity="precomputed")``; the learned kernel itself may be negative.
k-means on Φ is kernel k-means with K.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import ClassNamePrefixFeaturesOutMixin


def squared_distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    sa, sb = (A * A).sum(1), (B * B).sum(1)
    return np.maximum(sa[:, None] + sb[None] - 2 * A @ B.T, 0.0)


def median_scale(Phi: np.ndarray, max_points: int = 2000) -> float:
    """Median squared distance between (the first ``max_points``) rows; 1 if it is 0."""
    Phi = Phi[:max_points]
    D2 = squared_distances(Phi, Phi)
    med = float(np.median(D2[np.triu_indices(len(Phi), 1)])) if len(Phi) > 1 else 0.0
    return med if med > 0 else 1.0


class LearnedKernelMixin(ClassNamePrefixFeaturesOutMixin):
    """Needs ``transform`` and a fitted ``similarity_scale_``."""

    def learned_kernel(self, X, Y=None) -> np.ndarray:
        """K between the rows of X and Y (Y = X by default): ΦₓΦᵧᵀ."""
        A = self.transform(X)
        return A @ (A if Y is None else self.transform(Y)).T

    def pairwise_distance(self, X, Y=None) -> np.ndarray:
        """Squared distances k(x,x) + k(y,y) − 2k(x,y) in the learned feature space."""
        A = self.transform(X)
        return squared_distances(A, A if Y is None else self.transform(Y))

    def similarity(self, X, Y=None) -> np.ndarray:
        """exp(−d²/s) of learned distances, s fixed at fit: a nonnegative affinity."""
        return np.exp(-self.pairwise_distance(X, Y) / self.similarity_scale_)

    @property
    def _n_features_out(self) -> int:
        return int(self.embedding_.shape[1])
