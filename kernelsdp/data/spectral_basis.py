"""The spectral basis of seed 002 (problem data for kernelsdp.metric and the spectral-metric
formulation) (Yeung, Chang & Dai; docs/spectral_metric.md).

**Full version.**  Base kernel K̂ (RBF), centred K = H K̂ H, H = I − 11ᵀ/n, and its
positive eigenpairs K = Σ_{r≤p} λ_r v_r v_rᵀ (λ_r > EIG_RTOL·λ₁, see below).  The family is
K_β = Σ β_r² v_r v_rᵀ, i.e. the factor U = V diag(β).  Out of sample, kernel PCA: the
centred kernel vector k_c(x) gives y(x) = diag(β/λ) Vᵀ k_c(x) (for a training point
K_c e_i = Σ λ_r v_r v_r[i], so this is diag(β) V[i], the row of K_β's factor).
Cost: O(n² D) for K̂, O(n³) for the eigen-decomposition, O(n²) memory — refused above
``FULL_MAX_N`` with the memory it would need.

**Scalable version.**  m landmarks (every point in S, plus random ones); L = centred
landmark kernel = V_α D_μ V_αᵀ (q positive μ_r).  Every point x is written as locally
linear weights w(x) over its K nearest landmarks in feature space (for the RBF kernel,
feature distance is a decreasing function of input distance, so the input-space
neighbours are the same): w = G⁻¹1 / 1ᵀG⁻¹1 with the local Gram matrix
G_jk = k(x,x) + k(x_j,x_k) − k(x,x_j) − k(x,x_k) regularised by ε·tr(G)/K·I; a landmark has
w = e_i.  K ≈ W L Wᵀ, the family K̃_β = Σ β_r² (W v_αr)(W v_αr)ᵀ, and the embedding of
any point, training or new, is y(x) = diag(β) V_αᵀ w(x).  With m = n, W = I and K̃_β = K_β.
Cost: O(m² D + m³) for L, O(n (log m + K D + K³)) for the weights, O(n K q) to embed;
memory O(m² + n K + m q).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.neighbors import NearestNeighbors

from ..errors import InvalidDataError, InvalidParameterError, TooLargeError

FULL_MAX_N = 6000
#: (choice) eigenvalues below this fraction of λ₁ are dropped.  The RBF spectrum has a long
#: numerical tail; the closed form β ∝ 1/d_r ignores λ, so tail directions that happen to
#: be flat on the few points of S would take most of the weight (measured on XOR, n = 300:
#: J = 0.97 keeping λ > 1e-10·λ₁, 1.16 at 1e-3, 1.26 at 1e-2).
EIG_RTOL = 1e-3


def median_gamma(X: np.ndarray, sample: int = 2000, seed: int = 0) -> float:
    """γ = 1 / median squared distance (on a sample): the default RBF width."""
    rng = np.random.default_rng(seed)
    Z = X[rng.choice(len(X), min(sample, len(X)), replace=False)]
    d2 = ((Z[:, None] - Z[None]) ** 2).sum(-1)
    med = np.median(d2[np.triu_indices(len(Z), 1)]) if len(Z) > 1 else 1.0
    return 1.0 / med if med > 0 else 1.0


def _centre(Kh: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    row = Kh.mean(axis=0)
    grand = float(row.mean())
    return Kh - row[None] - row[:, None] + grand, row, grand


def _positive_eig(K: np.ndarray, rtol: float = EIG_RTOL) -> tuple[np.ndarray, np.ndarray]:
    w, V = np.linalg.eigh(K)
    keep = w > rtol * max(w.max(), 1e-300)
    return w[keep][::-1], V[:, keep][:, ::-1]


@dataclass
class SpectralBasis:
    """Eigenpairs (lam, V) of the centred (landmark) kernel plus what embedding needs."""

    X_ref: np.ndarray  # the n points (full) or the m landmarks
    gamma: float
    lam: np.ndarray  # λ_r (full) or μ_r (landmarks), descending, > 0
    V: np.ndarray  # (n_ref, p) eigenvectors
    row_means: np.ndarray  # column means of the uncentred reference kernel
    grand_mean: float
    landmark: bool
    n_neighbors: int = 10
    reg: float = 1e-3
    train_weights: sp.csr_matrix | None = None  # W for the training points (landmark)

    @property
    def p(self) -> int:
        return int(self.lam.size)

    def kernel(self, A, B) -> np.ndarray:
        return rbf_kernel(A, B, gamma=self.gamma)

    # ----- weights and embeddings --------------------------------------------------------
    def weights(self, X: np.ndarray) -> sp.csr_matrix:
        """Locally linear weights of the rows of X over their nearest landmarks."""
        K = min(self.n_neighbors, len(self.X_ref))
        nn = NearestNeighbors(n_neighbors=K).fit(self.X_ref)
        dist, idx = nn.kneighbors(X)
        n = len(X)
        kxx = np.ones(n)  # RBF: k(x, x) = 1
        kxj = np.exp(-self.gamma * dist**2)  # (n, K)
        Lref = self.X_ref[idx]  # (n, K, D)
        sq = (Lref * Lref).sum(-1)
        d2 = sq[:, :, None] + sq[:, None, :] - 2 * np.einsum("nkd,nld->nkl", Lref, Lref)
        kjk = np.exp(-self.gamma * np.maximum(d2, 0))
        G = kxx[:, None, None] + kjk - kxj[:, :, None] - kxj[:, None, :]
        tr = np.trace(G, axis1=1, axis2=2)
        G = G + (self.reg * np.maximum(tr, 1e-12) / K)[:, None, None] * np.eye(K)
        w = np.linalg.solve(G, np.ones((n, K, 1)))[:, :, 0]
        w /= w.sum(axis=1, keepdims=True)
        exact = dist[:, 0] == 0.0  # a point that *is* a landmark gets e_i
        w[exact] = 0.0
        w[exact, 0] = 1.0
        return sp.csr_matrix(
            (w.ravel(), idx.ravel(), np.arange(0, n * K + 1, K)), shape=(n, len(self.X_ref))
        )

    def coordinates(self, X: np.ndarray) -> np.ndarray:
        """(n, p) coordinates c(x) with y(x) = diag(β) c(x): Vᵀ w(x), or KPCA projections."""
        if self.landmark:
            return np.asarray(self.weights(X) @ self.V)
        kc = self.kernel(X, self.X_ref)
        kc = kc - self.row_means[None] - kc.mean(axis=1, keepdims=True) + self.grand_mean
        return kc @ self.V / self.lam

    def train_coordinates(self) -> np.ndarray:
        if self.landmark:
            return np.asarray(self.train_weights @ self.V)
        return self.V.copy()


def full_basis(X: np.ndarray, gamma: float, eig_rtol: float = EIG_RTOL) -> SpectralBasis:
    n = len(X)
    if n > FULL_MAX_N:
        raise TooLargeError(
            f"the full spectral method needs the {n}×{n} kernel and its "
            f"eigen-decomposition (about {3 * 8 * n * n / 2**30:.1f} GiB); "
            "use landmarks (n_landmarks=m) for this size."
        )
    Kc, row, grand = _centre(rbf_kernel(X, gamma=gamma))
    lam, V = _positive_eig(Kc, eig_rtol)
    return SpectralBasis(X, gamma, lam, V, row, grand, landmark=False)


def landmark_basis(
    X: np.ndarray,
    gamma: float,
    landmarks: np.ndarray,
    n_neighbors: int,
    reg: float,
    eig_rtol: float = EIG_RTOL,
) -> SpectralBasis:
    Xl = X[landmarks]
    Lc, row, grand = _centre(rbf_kernel(Xl, gamma=gamma))
    mu, Va = _positive_eig(Lc, eig_rtol)
    basis = SpectralBasis(
        Xl, gamma, mu, Va, row, grand, landmark=True, n_neighbors=n_neighbors, reg=reg
    )
    basis.train_weights = basis.weights(X)
    return basis


def choose_landmarks(n: int, pairs: np.ndarray, m: int, seed: int = 0) -> np.ndarray:
    """Every point that occurs in S, plus random others up to m (seed 002 §3)."""
    in_s = np.unique(pairs.ravel())
    if m < in_s.size:
        raise InvalidParameterError(
            f"n_landmarks = {m} is smaller than the {in_s.size} points "
            "that occur in the similar pairs; all of them must be landmarks."
        )
    if m > n:
        raise InvalidParameterError(f"n_landmarks = {m} exceeds the number of points n = {n}.")
    rest = np.setdiff1d(np.arange(n), in_s)
    extra = np.random.default_rng(seed).choice(rest, m - in_s.size, replace=False)
    return np.sort(np.concatenate([in_s, extra])).astype(int)


def validate_points_pairs(X, pairs) -> tuple[np.ndarray, np.ndarray]:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or not np.all(np.isfinite(X)):
        raise InvalidDataError("X must be a finite (n, D) array.")
    P = np.asarray(pairs)
    if P.ndim != 2 or P.shape[1] != 2 or P.shape[0] == 0:
        raise InvalidDataError("pairs must be a non-empty (m, 2) array of point indices.")
    if not np.all(np.isfinite(P.astype(float))) or np.any(
        P.astype(float) != np.round(P.astype(float))
    ):
        raise InvalidDataError("pair indices must be integers.")
    P = P.astype(int)
    if P.min() < 0 or P.max() >= len(X):
        raise InvalidDataError(f"pair index out of range for n = {len(X)} points.")
    if np.any(P[:, 0] == P[:, 1]):
        raise InvalidDataError("a pair links a point to itself.")
    return X, P
