"""Clustering with a learned kernel, and the papers' pairwise cluster accuracy.

Kernel k-means on K = UUᵀ is k-means on the rows of U (K is their Gram matrix), so the
learned factor is clustered directly, never forming K.  With ``normalized=True`` it runs
on the cosine-normalised kernel K_ij / √(K_ii K_jj), whose factor is U with unit rows
(a zero row stays zero): a point's distance to a centre then no longer grows with its
norm √K_ii.  The accuracy of seed 000 §6.2,

    Σ_{i>j} 1{ 1{c_i = c_j} = 1{ĉ_i = ĉ_j} } / (n(n−1)/2),

is the Rand index (scikit-learn's ``rand_score``).
"""

from __future__ import annotations

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import rand_score
from sklearn.preprocessing import normalize

from .result import KernelFactor


def normalized_factor(kernel: KernelFactor) -> np.ndarray:
    """A factor of the cosine-normalised kernel K_ij / √(K_ii K_jj): U with unit rows."""
    return normalize(kernel.U, norm="l2", axis=1)


def kernel_kmeans(
    kernel: KernelFactor, n_clusters: int, seed: int = 0, n_init: int = 10, normalized: bool = False
) -> np.ndarray:
    """Cluster labels of kernel k-means on K = UUᵀ (k-means on the rows of U), or on
    the cosine-normalised kernel when ``normalized``."""
    U = normalized_factor(kernel) if normalized else kernel.U
    if U.shape[1] == 0:
        return np.zeros(kernel.n, dtype=int)
    return KMeans(n_clusters=n_clusters, n_init=n_init, random_state=seed).fit_predict(U)


def pairwise_cluster_accuracy(y_true, y_pred) -> float:
    """Fraction of point pairs on which the two partitions agree (seed 000 §6.2)."""
    return float(rand_score(np.asarray(y_true), np.asarray(y_pred)))
