"""The graph Laplacian regulariser (seed 000 eqs. 2–3).

S_ij = 1 iff i and j are *mutual* k-nearest neighbours; L = I − D^{-1/2} S D^{-1/2},
with an isolated point (d_i = 0) getting a zero row in D^{-1/2} S D^{-1/2}.  L stays
sparse (CSR) throughout; scikit-learn's NearestNeighbors replaces the paper's cover tree.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors, kneighbors_graph

from ..errors import InvalidDataError
from ..validation import check_int

#: Relative asymmetry above which a user-supplied Laplacian is rejected.
SYMMETRY_RTOL = 1e-10
#: A Laplacian is refused as not positive semidefinite when a direction x with
#: xᵀLx < −LAPLACIAN_PSD_RTOL · ‖L‖·‖x‖² is found (‖L‖: Gershgorin's bound).
LAPLACIAN_PSD_RTOL = 1e-8
#: LOBPCG iterations spent looking for such a direction above the dense size (each costs
#: a few sparse products with L, so the test stays O(nnz(L)) per iteration).
LAPLACIAN_PSD_ITERATIONS = 60
#: what (X, k) ↦ graph this module builds, for stored studies to key by: 2 since the
#: mutual graph links each point to k others (revision 1 counted the point itself: k − 1)
GRAPH_REVISION = 2
#: the k-NN search is brute force (not scikit-learn's "auto" k-d tree) from this many points
#: when the points have more than BRUTE_FORCE_ABOVE_DIM dimensions (see mutual_knn_graph)
BRUTE_FORCE_FROM_N = 10_000
BRUTE_FORCE_ABOVE_DIM = 5
#: ... and back to scikit-learn's "auto" (a k-d tree below 16 dimensions), queried on every
#: core, from this many points: brute force is O(n²) distances, the tree's queries grew as
#: about n^1.4 on 10-D Gaussians (n = 100,000: 9.6 s brute, 20.2 s tree on two cores;
#: 300,000: 84.9 s against 93.5 s; 1,000,000: 1,145 s against 546.9 s)
TREE_AGAIN_FROM_N = 500_000


def mutual_knn_graph(X: np.ndarray, k: int = 5) -> sp.csr_matrix:
    """Sparse 0/1 adjacency S of the mutual k-NN graph of the rows of X (eq. 3)."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or not np.all(np.isfinite(X)):
        raise InvalidDataError("points must be a finite (n, d) array.")
    n = X.shape[0]
    k = min(check_int(k, "k", "the graph (n-1 at most is used)"), n - 1)
    # scikit-learn's "auto" picks a k-d tree below 16 dimensions, which degrades towards a
    # scan with many points in 6-15 dimensions: measured on 10-D Gaussian data, n = 40,000,
    # 21 s (k-d tree) against 6.4 s (brute force, BLAS distances in chunks); n = 100,000,
    # 83 s against 37 s.  Small n keeps "auto" (its neighbours among exact ties stay as
    # the reproductions measured them).
    brute = BRUTE_FORCE_FROM_N <= n < TREE_AGAIN_FROM_N and X.shape[1] > BRUTE_FORCE_ABOVE_DIM
    nn = NearestNeighbors(
        n_neighbors=k,
        algorithm="brute" if brute else "auto",
        n_jobs=-1 if n >= TREE_AGAIN_FROM_N else None,
    ).fit(X)
    # no X passed: scikit-learn then leaves each point out of its own neighbours, so every
    # point has k others, the paper's k (passing X counted the point itself, leaving k − 1)
    A = nn.kneighbors_graph(n_neighbors=k, mode="connectivity")
    S = A.multiply(A.T).tocsr()
    S.setdiag(0)
    S.eliminate_zeros()
    return S


#: the k-NN graphs of L: seed 000's mutual one (``mutual_knn_graph``), or the symmetric one
#: (either point among the other's k nearest, self excluded), which links every point to k others
KNN_GRAPHS = ("mutual", "symmetric")


def knn_graph(X: np.ndarray, k: int, kind: str = "mutual") -> sp.csr_matrix:
    """Sparse 0/1 adjacency of the ``kind`` k-NN graph of the rows of X (see ``KNN_GRAPHS``)."""
    if kind == "mutual":
        return mutual_knn_graph(X, k)
    A = kneighbors_graph(X, min(k, len(X) - 1), include_self=False)
    return A.maximum(A.T).tocsr()


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
            f"the Laplacian must be symmetric; max |L - Lᵀ| = {float(asym.max()):.3g}."
        )
    L = ((L + L.T) / 2).tocsr()
    check_psd(L)
    return L


def check_psd(L: sp.csr_matrix) -> None:
    """Refuse a Laplacian with a direction of negative curvature (L must be PSD, eq. 2).

    Three tests, cheapest first.  Gershgorin's discs (O(nnz)) certify L ⪰ 0 outright when
    every disc lies in [0, ∞).  Otherwise, up to ``DENSE_MAX_N`` points, LAPACK gives λ_min.
    Above, LOBPCG runs ``LAPLACIAN_PSD_ITERATIONS`` iterations from a seeded random block:
    its Ritz values are Rayleigh quotients, so a negative one *proves* L is not PSD (the
    refusal is certain); a Laplacian it accepts had no such direction within that search,
    which is the stated tolerance of the test, not a proof.
    """
    from ..linalg.extreme import DENSE_MAX_N, gershgorin

    n = L.shape[0]
    if n == 0 or L.nnz == 0:
        return
    lower = gershgorin(L, "SA")
    scale = max(abs(lower), gershgorin(L, "LA"), 1e-300)
    bar = -LAPLACIAN_PSD_RTOL * scale
    if lower >= bar:
        return
    if n <= DENSE_MAX_N:
        lowest = float(np.linalg.eigvalsh(L.toarray())[0])
    else:
        import scipy.sparse.linalg as spla

        X0 = np.random.default_rng(0).standard_normal((n, min(3, n - 1)))
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # LOBPCG warns when it stops at maxiter: expected
            w, _ = spla.lobpcg(L, X0, largest=False, maxiter=LAPLACIAN_PSD_ITERATIONS, tol=1e-12)
        lowest = float(np.min(w))
    if lowest < bar:
        raise InvalidDataError(
            f"the Laplacian must be positive semidefinite; it has xᵀLx/xᵀx = {lowest:.4g} for "
            f"some x (below -{LAPLACIAN_PSD_RTOL:g}·‖L‖). A graph Laplacian D − S or "
            "I − D^-1/2 S D^-1/2 with S ≥ 0 is PSD; check how L was built."
        )
