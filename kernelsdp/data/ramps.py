"""Base transformations for transformation learning (seed 004, eq. 14).

Truncated ramps: for feature d with knots z₀ < z₁ < … < z_J at quantiles of that feature,

    φ_j(x)_d = 0 if x_d ≤ z_{j−1},  (x_d − z_{j−1})/(z_j − z_{j−1}) in between,  1 if x_d ≥ z_j,

so φ_j(X) is n × D and a mixture g(x) = Σ_j m_j φ_j(x) with m ≥ 0 is a piecewise linear,
monotone transformation of every feature.  Any callable X ↦ (n, J, D) array works too.

Everything the alignment formulations need is a small Gram statistic, computed in row
chunks of ``CHUNK`` points (never an n × n matrix, never all of n × J × D at once):

- ``label_alignment``:  G = [φ_1(X)ᵀy, …, φ_J(X)ᵀy] (D × J), Q = GᵀG — O(n J D) time,
  O(J D + J²) memory (MWC-TLA, eq. 13);
- ``kernel_gram``: S_ij = ⟨K_i, K_j⟩ = ‖φ_i(X)ᵀφ_j(X)‖²_F and q_i = ⟨K_i, yyᵀ⟩ with
  K_i = φ_i φ_iᵀ — O(n J² D²) time, O(J² D²) memory (KA, eq. 8).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidDataError
from ..limits import check_memory
from ..validation import check_int

CHUNK = 100_000


@dataclass
class RampBasis:
    """J truncated ramps per feature, knots at the (j/J)-quantiles of the training data."""

    knots: np.ndarray  # (J + 1, D)

    @property
    def J(self) -> int:
        return int(self.knots.shape[0] - 1)

    @classmethod
    def fit(cls, X: np.ndarray, J: int = 10) -> RampBasis:
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or len(X) < 2 or not np.all(np.isfinite(X)):
            raise InvalidDataError("X must be a finite (n, D) array with n >= 2.")
        J = check_int(J, "ramps", "the ramp basis")
        JD = J * X.shape[1]  # the alignment matrix Q is JD × JD, φ(X) is n × J × D
        check_memory(
            8.0 * (JD * JD + len(X) * JD),
            f"{J} ramps on {X.shape[1]} features",
            "use fewer ramps (the papers use 10)",
        )
        sample = (
            X
            if len(X) <= 200_000
            else X[np.random.default_rng(0).choice(len(X), 200_000, replace=False)]
        )
        knots = np.quantile(sample, np.linspace(0, 1, J + 1), axis=0)
        knots = np.maximum.accumulate(knots, axis=0)
        gap = np.diff(knots, axis=0)
        knots[1:] = knots[:1] + np.cumsum(np.maximum(gap, 1e-12), axis=0)  # strictly increasing
        return cls(knots)

    def __call__(self, X: np.ndarray) -> np.ndarray:
        """φ(X) as an (n, J, D) array."""
        X = np.asarray(X, dtype=float)
        lo, hi = self.knots[:-1], self.knots[1:]  # (J, D)
        return np.clip((X[:, None, :] - lo[None]) / (hi - lo)[None], 0.0, 1.0)

    def transform_1d(self, t: np.ndarray, d: int, m: np.ndarray) -> np.ndarray:
        """g_d(t) = Σ_j m_j φ_j(t) for feature d on a grid t (for plots)."""
        lo, hi = self.knots[:-1, d], self.knots[1:, d]
        return np.clip((t[:, None] - lo[None]) / (hi - lo)[None], 0, 1) @ m


def _chunks(n: int):
    for s in range(0, n, CHUNK):
        yield slice(s, min(n, s + CHUNK))


def label_alignment(phi: Callable, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Q_ij = (φ_i(X)ᵀy)ᵀ(φ_j(X)ᵀy), J × J, in O(n J D) without any n × n matrix."""
    G = None
    for sl in _chunks(len(X)):
        part = np.einsum("njd,n->dj", phi(X[sl]), y[sl])
        G = part if G is None else G + part
    return G.T @ G


def kernel_gram(phi: Callable, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(S, q): S_ij = ‖φ_iᵀφ_j‖²_F, q_i = ‖φ_iᵀy‖² for base kernels K_i = φ_i φ_iᵀ."""
    C = None  # C[i, j] = φ_iᵀ φ_j (D × D), accumulated over chunks
    g = None
    for sl in _chunks(len(X)):
        F = phi(X[sl])
        part = np.einsum("nid,nje->ijde", F, F)
        C = part if C is None else C + part
        gp = np.einsum("njd,n->jd", F, y[sl])
        g = gp if g is None else g + gp
    S = np.einsum("ijde,ijde->ij", C, C)
    return S, np.sum(g * g, axis=1)


def validate_labels(y, n: int) -> np.ndarray:
    y = np.asarray(y, dtype=float).ravel()
    if y.shape != (n,) or not np.all(np.isin(y, (-1.0, 1.0))):
        raise InvalidDataError("y must hold one label ±1 per point.")
    if len(np.unique(y)) < 2:
        raise InvalidDataError("y must contain both classes.")
    return y
