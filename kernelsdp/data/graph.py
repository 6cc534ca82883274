"""The graph Laplacian regulariser (seed 000 eqs. 2–3).

S_ij = 1 iff i and j are *mutual* k-nearest neighbours; L = I − D^{-1/2} S D^{-1/2},
with an isolated point (d_i = 0) getting a zero row in D^{-1/2} S D^{-1/2}.  L stays
sparse (CSR) throughout; scikit-learn's NearestNeighbors replaces the paper's cover tree.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors

from ..errors import InvalidDataError, check_int

#: Relative asymmetry above which a user-supplied Laplacian is rejected.
SYMMETRY_RTOL = 1e-10


def mutual_knn_graph(X: np.ndarray, k: int = 5) -> sp.csr_matrix:
    """Sparse 0/1 adjacency S of the mutual k-NN graph of the rows of X (eq. 3)."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or not np.all(np.isfinite(X)):
        raise InvalidDataError("points must be a finite (n, d) array.")
    n = X.shape[0]
    k = min(check_int(k, "k", "the graph (n-1 at most is used)"), n - 1)
    nn = NearestNeighbors(n_neighbors=k).fit(X)
    A = nn.kneighbors_graph(X, n_neighbors=k, mode="connectivity")  # excludes self
    S = A.multiply(A.T).tocsr()
    S.setdiag(0)
    S.eliminate_zeros()
    return S


def normalized_laplacian(S: sp.spmatrix) -> sp.csr_matrix:
    """L = I − D^{-1/2} S D^{-1/2}; isolated points have zero off-diagonal rows."""
    S = sp.csr_matrix(S, dtype=float)
    d = np.asarray(S.sum(axis=1)).ravel()
    inv_sqrt = np.zeros_like(d)
    nz = d > 0
    inv_sqrt[nz] = 1.0 / np.sqrt(d[nz])
    Dm = sp.diags(inv_sqrt)
    return (sp.identity(S.shape[0], format="csr") - Dm @ S @ Dm).tocsr()


def knn_laplacian(X: np.ndarray, k: int = 5) -> sp.csr_matrix:
    """The paper's L from points: mutual k-NN graph, normalised Laplacian (sparse)."""
    return normalized_laplacian(mutual_knn_graph(X, k))


def validate_laplacian(L) -> sp.csr_matrix:
    """Accept a user's Laplacian (dense or sparse): square, finite, symmetric; return CSR."""
    try:
        L = sp.csr_matrix(L, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidDataError(f"the Laplacian must be a numeric matrix ({exc}).") from None
    if L.ndim != 2 or L.shape[0] != L.shape[1]:
        raise InvalidDataError(f"the Laplacian must be square; got shape {L.shape}.")
    if L.nnz and not np.all(np.isfinite(L.data)):
        raise InvalidDataError("the Laplacian contains NaN or infinite entries.")
    asym = abs(L - L.T)
    scale = max(float(abs(L).max()) if L.nnz else 0.0, 1.0)
    if asym.nnz and float(asym.max()) > SYMMETRY_RTOL * scale:
        raise InvalidDataError(
            f"the Laplacian must be symmetric; max |L - Lᵀ| = {float(asym.max()):.3g}.")
    return ((L + L.T) / 2).tocsr()
