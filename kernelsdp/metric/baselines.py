"""Baselines and the quality measure of seed 002's experiments.

``class_separation`` is J = d_B / d_W: the mean squared distance over pairs with
different labels divided by the mean squared distance over pairs with the same label
(larger is better).  ``RCA`` is relevant component analysis (Bar-Hillel et al. 2003):
chunklets are the connected components of the similar pairs (networkx); the within-
chunklet covariance C gives the linear map x ↦ C^{-1/2} x.  (metric-learn 0.7.0 is broken
on current scikit-learn, hence this small implementation.)
"""

from __future__ import annotations

import networkx as nx
import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

RCA_RIDGE = 1e-6


def class_separation(
    Y: np.ndarray, labels: np.ndarray, max_points: int = 3000, seed: int = 0
) -> float:
    """J = d_B / d_W over all pairs of (a sample of) the embedded points Y."""
    labels = np.asarray(labels)
    if len(Y) > max_points:
        keep = np.random.default_rng(seed).choice(len(Y), max_points, replace=False)
        Y, labels = Y[keep], labels[keep]
    sq = (Y * Y).sum(1)
    D2 = np.maximum(sq[:, None] + sq[None] - 2 * Y @ Y.T, 0.0)
    iu = np.triu_indices(len(Y), 1)
    same = (labels[:, None] == labels[None])[iu]
    d = D2[iu]
    return float(d[~same].mean() / d[same].mean())


def feature_space_separation(K: np.ndarray, labels: np.ndarray) -> float:
    """J for the feature space of a kernel matrix K (distances k_ii + k_jj − 2k_ij)."""
    diag = np.diag(K)
    D2 = diag[:, None] + diag[None] - 2 * K
    iu = np.triu_indices(len(K), 1)
    same = (np.asarray(labels)[:, None] == np.asarray(labels)[None])[iu]
    return float(D2[iu][~same].mean() / D2[iu][same].mean())


class RCA(TransformerMixin, BaseEstimator):
    def fit(self, X, pairs):
        X = np.asarray(X, dtype=float)
        G = nx.Graph()
        G.add_edges_from(map(tuple, np.asarray(pairs, dtype=int)))
        D = X.shape[1]
        C, count = np.zeros((D, D)), 0
        for comp in nx.connected_components(G):
            Z = X[list(comp)]
            Z = Z - Z.mean(axis=0)
            C += Z.T @ Z
            count += len(comp)
        C = C / max(count, 1) + RCA_RIDGE * np.eye(D)
        w, V = np.linalg.eigh(C)
        self.components_ = (V / np.sqrt(w)) @ V.T
        return self

    def transform(self, X):
        check_is_fitted(self, "components_")
        return np.asarray(X, dtype=float) @ self.components_
