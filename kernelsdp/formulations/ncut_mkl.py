"""Kernel weights for normalized cuts (seed 003; docs/ncut_stqp.md).

Base kernels K¹..K^d, weights α on the simplex.  Each training example j is a set of
points with a known 2-class partition (V₁, V₂):

    û_j(l) = Σ_{p∈V₁, q∈V₂} K^l_pq = 1_{V₁}ᵀ K^l 1_{V₂}          (inter-class mass)
    v̂_j(l) = Σ_t Σ_{p,q∈V_t} K^l_pq = Σ_t 1_{V_t}ᵀ K^l 1_{V_t}  (intra-class mass)

and the goal is min_α Σ_j û_jᵀα / v̂_jᵀα (the poster's "max" is a typo).  Over unordered
pairs (g, h), g ≠ h: A_gh = û_g v̂_hᵀ + û_h v̂_gᵀ, B_gh = v̂_g v̂_hᵀ, J = Σ (A_gh − B_gh),
Q = (J + Jᵀ)/2, and the "minimise the gap" surrogate is the StQP min αᵀQα on the simplex.
The sums over pairs are computed in O(N d²) from the totals Σû and Σv̂.

*Our extension* to k-class partitions: one ratio per class, u(t)ᵀα / v(t)ᵀα with
u(t, l) = 1_{V_t}ᵀ K^l 1_{V̄_t}, v(t, l) = 1_{V_t}ᵀ K^l 1_{V_t}; each (example, class) ratio
then enters the pair construction as one "example".  For two classes we keep the
paper's single ratio.

*Our normalisation* (the surrogate is not scale-invariant and the poster is silent): each
kernel l is first rescaled by c_l = the mean of v̂(l) over the examples (its intra-class
mass), so that no kernel wins the gap surrogate by sheer size; α then weighs the rescaled
kernels, and ``raw_weights(α)`` = (α_l / c_l) weighs the kernels as given.  Then each
example's (û, v̂) is divided by the mean of v̂, which leaves its ratio unchanged.  Measured
on five bundled tasks (reproductions/ncut_kernels_cvpr2010.py): without the kernel rescaling the
surrogate picked a large single-feature kernel that lost to the uniform average.

Cost: for each example and kernel only the products K^l 1_{V_t} restricted to the
example's points are needed — O(d · nnz) per example, never a copy of an n×n kernel;
kernels given as functions of points are evaluated in row blocks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from ..errors import InvalidDataError
from .base import dataset_points, require_keys
from .stqp import StQP

#: rows per block when a kernel is a function of points
BLOCK_ROWS = 2048


def _class_masses(K, idx: np.ndarray, labels: np.ndarray, classes) -> tuple[np.ndarray, np.ndarray]:
    """For one kernel: (inter mass u_t, intra mass v_t) for every class t of one example."""
    ind = np.stack([(labels == c).astype(float) for c in classes], axis=1)  # (|idx|, k)
    if sp.issparse(K):
        sub = K[idx][:, idx]
        KI = np.asarray(sub @ ind)
    else:
        KI = np.asarray(K)[np.ix_(idx, idx)] @ ind
    M = ind.T @ KI  # M[s, t] = 1_sᵀ K 1_t
    total = M.sum(axis=1)
    intra = np.diag(M)
    return total - intra, intra


def _class_masses_fn(fn: Callable, X: np.ndarray, idx, labels, classes):
    ind = np.stack([(labels == c).astype(float) for c in classes], axis=1)
    Xi = X[idx]
    KI = np.zeros_like(ind)
    for s in range(0, len(idx), BLOCK_ROWS):
        KI[s : s + BLOCK_ROWS] = fn(Xi[s : s + BLOCK_ROWS], Xi) @ ind
    M = ind.T @ KI
    intra = np.diag(M)
    return M.sum(axis=1) - intra, intra


def ratios_to_Q(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Q of the StQP from per-ratio rows u_j, v_j (N × d), over unordered pairs g ≠ h."""
    su, sv = u.sum(axis=0), v.sum(axis=0)
    A = np.outer(su, sv) - u.T @ v  # Σ_{g≠h} û_g v̂_hᵀ
    B = 0.5 * (np.outer(sv, sv) - v.T @ v)  # Σ_{g<h} v̂_g v̂_hᵀ
    J = A - B
    return (J + J.T) / 2


#: widths of the RBF base kernels built from a data set, × 1/median squared distance (the
#: default of NCutKernelLearning's gamma_scales)
GAMMA_SCALES = (0.1, 1.0, 10.0)


@dataclass
class NCutMKL(StQP):
    """StQP of N-cut kernel learning, with the ratio data it came from."""

    u: np.ndarray = field(default=None)  # type: ignore[assignment]
    v: np.ndarray = field(default=None)  # type: ignore[assignment]
    kernel_scale: np.ndarray = field(default=None)  # type: ignore[assignment]

    name: ClassVar[str] = "ncut-mkl"
    NPZ_KEYS: ClassVar[dict[str, str]] = {
        "kernels": "(d, n, n) base kernels",
        "examples": "(N, n) integer matrix: entry = class of the point in example j, -1 = not in j",
    }

    @classmethod
    def from_ratios(cls, u, v, normalize_kernels: bool = True, relaxation: str = "sdp1") -> NCutMKL:
        u, v = np.atleast_2d(np.asarray(u, float)), np.atleast_2d(np.asarray(v, float))
        if u.shape != v.shape or u.shape[0] < 2:
            raise InvalidDataError("need at least two ratios (examples) with matching û, v̂.")
        if np.any(v.sum(axis=1) <= 0) or np.any(v.mean(axis=0) <= 0):
            raise InvalidDataError("an example or a kernel has no intra-class mass (v̂ = 0).")
        c = v.mean(axis=0) if normalize_kernels else np.ones(v.shape[1])
        u, v = u / c, v / c
        scale = v.mean(axis=1, keepdims=True)
        u, v = u / scale, v / scale
        return cls(Q=ratios_to_Q(u, v), relaxation=relaxation, u=u, v=v, kernel_scale=c)

    def raw_weights(self, alpha) -> np.ndarray:
        """Weights of the kernels as given: Σ_l (α_l / c_l) K^l is the learned kernel."""
        return np.asarray(alpha, dtype=float) / self.kernel_scale

    @classmethod
    def from_kernels(
        cls,
        kernels: Sequence,
        examples: Sequence[tuple[np.ndarray, np.ndarray]],
        X: np.ndarray | None = None,
        relaxation: str = "sdp1",
    ) -> NCutMKL:
        """Base kernels (n×n arrays, sparse matrices or functions k(A, B) of points X) and
        examples (point indices, their class labels)."""
        if len(kernels) < 1 or len(examples) < 1:
            raise InvalidDataError("need at least one kernel and one example.")
        rows_u, rows_v = [], []
        for idx, labels in examples:
            idx, labels = np.asarray(idx, dtype=int), np.asarray(labels)
            classes = np.unique(labels)
            if classes.size < 2 or idx.size != labels.size:
                raise InvalidDataError(
                    "every example needs at least two classes and one label per point."
                )
            per_kernel = []
            for K in kernels:
                if callable(K):
                    if X is None:
                        raise InvalidDataError("kernel functions need the points X.")
                    per_kernel.append(_class_masses_fn(K, X, idx, labels, classes))
                else:
                    per_kernel.append(_class_masses(K, idx, labels, classes))
            inter = np.array([pk[0] for pk in per_kernel]).T  # (k, d)
            intra = np.array([pk[1] for pk in per_kernel]).T
            if classes.size == 2:  # the paper's single ratio: û = u(1) = u(2), v̂ = Σ_t v(t)
                rows_u.append(inter[0])
                rows_v.append(intra.sum(axis=0))
            else:  # our extension: one ratio per class
                rows_u.extend(inter)
                rows_v.extend(intra)
        return cls.from_ratios(np.array(rows_u), np.array(rows_v), relaxation=relaxation)

    @classmethod
    def from_npz(cls, arrays, **params) -> NCutMKL:
        require_keys(arrays, ("kernels", "examples"), cls.name)
        K, E = np.asarray(arrays["kernels"], float), np.asarray(arrays["examples"])
        if K.ndim != 3 or K.shape[1] != K.shape[2] or E.ndim != 2 or E.shape[1] != K.shape[1]:
            raise InvalidDataError(
                f"kernels must be (d, n, n) and examples (N, n); got {K.shape} and {E.shape}."
            )
        examples = [(np.flatnonzero(row >= 0), row[row >= 0]) for row in E]
        return cls.from_kernels(
            list(K), examples, **{k: v for k, v in params.items() if v is not None}
        )

    @classmethod
    def from_dataset(cls, values) -> NCutMKL:
        """A bundled data set (``values``: checked inputs): RBF base kernels of widths
        GAMMA_SCALES × 1/median squared distance, and ``n_examples`` random subsets of
        ``example_size`` points with their classes (examples of one class are skipped)."""
        from scipy.spatial.distance import pdist
        from sklearn.metrics.pairwise import rbf_kernel

        X, y = dataset_points(values)
        rng = np.random.default_rng(values.get("seed", 0))
        median = float(np.median(pdist(X[:2000], "sqeuclidean"))) or 1.0
        Ks = [rbf_kernel(X, gamma=g / median) for g in GAMMA_SCALES]
        size = min(values.get("example_size", 40), len(y))
        examples = [
            (s, y[s])
            for s in (
                rng.choice(len(y), size, replace=False) for _ in range(values.get("n_examples", 10))
            )
        ]
        examples = [e for e in examples if np.unique(e[1]).size > 1]
        if len(examples) < 2:
            raise InvalidDataError(
                "fewer than two examples with two classes were drawn; raise "
                "--example-size or --n-examples."
            )
        return cls.from_kernels(Ks, examples, **cls.given_parameters(values))

    def ratio_objective(self, alpha) -> float:
        """Σ_j û_jᵀα / v̂_jᵀα — the N-cut quantity the surrogate stands for."""
        a = np.asarray(alpha, dtype=float)
        return float(np.sum((self.u @ a) / (self.v @ a)))

    def describe(self) -> dict[str, Any]:
        return {"formulation": self.name, "d": self.d, "ratios": int(self.u.shape[0])}
