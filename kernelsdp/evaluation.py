"""Clustering with a learned kernel, and the papers' pairwise cluster accuracy.

Kernel k-means on K = UUᵀ is k-means on the rows of U (K is their Gram matrix), so the
learned factor is clustered directly, never forming K.  The accuracy of seed 000 §6.2,

    Σ_{i>j} 1{ 1{c_i = c_j} = 1{ĉ_i = ĉ_j} } / (n(n−1)/2),

is the Rand index (scikit-learn's ``rand_score``).
"""

from __future__ import annotations

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import rand_score

from .result import KernelFactor


def kernel_kmeans(kernel: KernelFactor, n_clusters: int, seed: int = 0,
                  n_init: int = 10) -> np.ndarray:
    """Cluster labels of kernel k-means on K = UUᵀ (k-means on the rows of U)."""
    U = kernel.U
    if U.shape[1] == 0:
        return np.zeros(kernel.n, dtype=int)
    return KMeans(n_clusters=n_clusters, n_init=n_init, random_state=seed).fit_predict(U)


def pairwise_cluster_accuracy(y_true, y_pred) -> float:
    """Fraction of point pairs on which the two partitions agree (seed 000 §6.2)."""
    return float(rand_score(np.asarray(y_true), np.asarray(y_pred)))
