"""Floating-point error bounds for the proofs in kernelsdp's certificates.

Every proof here assumes IEEE 754 double precision with rounding to nearest (unit roundoff
u = 2⁻⁵³) and uses the standard a-priori bounds of Higham, *Accuracy and Stability of
Numerical Algorithms* (2nd ed., 2002), §3.1–3.5:

- γ_k = k·u / (1 − k·u)  (Lemma 3.1);
- a sum or dot product of k terms, in any order (blocked, pairwise, with or without FMA):
  |fl(Σ aᵢbᵢ) − Σ aᵢbᵢ| ≤ γ_k Σ |aᵢ||bᵢ|  (eq. 3.5), so a matrix–vector product satisfies
  |fl(Ax) − Ax| ≤ γ_k |A||x| with k the most nonzeros in a row of A (eq. 3.11).

Computing the bound itself rounds, too: a sum of k nonnegative numbers is at most
fl(Σ)·(1 + γ_k) above, which :func:`sum_up` and :func:`norm_up` add.  An extra relative
factor of a few u on the final bound covers the handful of operations that assemble it
(:func:`up`).

**Underflow.**  The bounds above are relative; under gradual underflow a product also loses
up to half the smallest subnormal, an absolute error (Higham eq. 2.8: fl(xy) = xy(1 + δ) +
η, |η| ≤ 2⁻¹⁰⁷⁵), which no relative bound covers — with subnormal data a "proven" end could
sit below the optimum.  :func:`up` and :func:`down` therefore also add ``UNDERFLOW`` =
2⁻¹⁰⁰⁰ to every bound they finish: 2⁷⁵ products' worth, more than any proof here computes,
and nothing at the scale of data above ~1e-290 (an interval's width is relative to at least
``kernelsdp.intervals.FLOOR``, 10⁸·UNDERFLOW).

Nothing here uses interval arithmetic or directed rounding: the bounds are a priori, which
is what lets a certificate run at the speed of one more product.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

#: unit roundoff of IEEE double precision (rounding to nearest)
UNIT_ROUNDOFF = 2.0**-53
#: relative slack for the last few operations that assemble a bound
_SLACK = 16 * UNIT_ROUNDOFF
#: absolute slack of up() and down(): the underflow of up to 2⁷⁵ products (module docstring)
UNDERFLOW = 2.0**-1000


def gamma(k: int) -> float:
    """γ_k = k·u / (1 − k·u) (Higham, Lemma 3.1)."""
    ku = (k + 1) * UNIT_ROUNDOFF  # one more than needed: the bound's own rounding
    if ku >= 0.5:
        return math.inf
    return ku / (1.0 - ku)


def up(x: float) -> float:
    """A float ≥ x that also absorbs the rounding of the few operations that made x."""
    if not math.isfinite(x):
        return x
    return float(
        np.nextafter((x * (1.0 + _SLACK) if x > 0 else x * (1.0 - _SLACK)) + UNDERFLOW, math.inf)
    )


def down(x: float) -> float:
    """A float ≤ x (the mirror of :func:`up`)."""
    return -up(-x)


def up_each(x: np.ndarray) -> np.ndarray:
    """:func:`up` of each entry (the same operations, elementwise: the same bits)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        raised = np.where(x > 0, x * (1.0 + _SLACK), x * (1.0 - _SLACK)) + UNDERFLOW
        return np.where(np.isfinite(x), np.nextafter(raised, math.inf), x)


def down_each(x: np.ndarray) -> np.ndarray:
    """:func:`down` of each entry."""
    return -up_each(-np.asarray(x, dtype=float))


def sum_up(v: np.ndarray) -> float:
    """An upper bound on the exact sum of the nonnegative entries v."""
    v = np.asarray(v, dtype=float)
    if not np.any(v):
        return 0.0  # a sum of exact zeros is exactly zero
    return up(float(np.sum(v)) * (1.0 + gamma(max(v.size, 1))))


def norm_up(v: np.ndarray) -> float:
    """An upper bound on the exact Euclidean norm of v."""
    v = np.asarray(v, dtype=float).ravel()
    if not np.any(v):
        return 0.0
    big = float(np.max(np.abs(v)))  # scaled, so that no square underflows or overflows
    return up(big * math.sqrt(sum_up((v / big) ** 2)) * (1.0 + 4 * UNIT_ROUNDOFF))


def segment_norms_up(v: np.ndarray, segment: np.ndarray, count: int) -> np.ndarray:
    """:func:`norm_up` of each segment of v (``segment[i]``: the segment of entry i, in
    0 … count − 1) — the same bound per segment, every segment at once (its sum in another
    order, which γ_k covers: Higham eq. 3.5 holds for any order)."""
    v = np.abs(np.asarray(v, dtype=float).ravel())
    big = np.zeros(count)
    np.maximum.at(big, segment, v)
    live = big > 0
    scaled = v / np.where(live, big, 1.0)[segment]
    sums = np.bincount(segment, weights=scaled**2, minlength=count)
    sizes = np.bincount(segment, minlength=count)
    ku = (sizes + 1) * UNIT_ROUNDOFF  # gamma() of each size
    with np.errstate(over="ignore", invalid="ignore"):
        bound = up_each(sums * (1.0 + ku / (1.0 - ku)))
        out = up_each(big * np.sqrt(bound) * (1.0 + 4 * UNIT_ROUNDOFF))
    return np.where(live, out, 0.0)


@dataclass(frozen=True)
class Magnitude:
    """A matrix with what its products' rounding bounds read: |M| and the most nonzeros in a
    row (:func:`magnitude`) — built once where the same matrix is multiplied many times."""

    M: Any
    abs: Any
    k: int


def as_csr(M) -> sp.csr_matrix:
    """M as a CSR matrix: M itself when it is one (``sp.csr_matrix(M)`` builds and checks a
    new object, some 6 µs, seven times in a small certificate)."""
    return M if isinstance(M, sp.csr_matrix) else sp.csr_matrix(M)


def magnitude(M) -> Magnitude:
    """M (sparse, as CSR, or dense) with |M| and its longest row."""
    if sp.issparse(M):
        M = as_csr(M)
        return Magnitude(M, abs(M), row_nnz_max(M))
    M = np.atleast_2d(np.asarray(M, dtype=float))
    return Magnitude(M, np.abs(M), int(M.shape[1]))


def _magnitude(A) -> Magnitude:
    return A if isinstance(A, Magnitude) else magnitude(A)


def row_nnz_max(A) -> int:
    """The most nonzeros in a row of A (the length of its longest dot product)."""
    if sp.issparse(A):
        A = as_csr(A)
        return int(np.max(np.diff(A.indptr), initial=0))
    A = np.atleast_2d(A)
    return int(A.shape[1])


def matvec_error(A, x: np.ndarray) -> np.ndarray:
    """Entrywise bound on |fl(A @ x) − A @ x|: γ_k·(|A||x|) (Higham eq. 3.11); A a matrix
    or its :class:`Magnitude`."""
    mag = _magnitude(A)
    k = mag.k
    e = np.asarray(mag.abs @ np.abs(x), dtype=float).ravel()
    return e * (gamma(k) * (1.0 + gamma(k)))


def affine_error(A, x: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Entrywise bound on |fl(A @ x + b) − (A x + b)| (one more addition per entry); A a
    matrix or its :class:`Magnitude`."""
    mag = _magnitude(A)
    k = mag.k + 1
    e = np.asarray(mag.abs @ np.abs(x), dtype=float).ravel() + np.abs(b)
    return e * (gamma(k) * (1.0 + gamma(k)))


def dot_error(a: np.ndarray, b: np.ndarray) -> float:
    """A bound on |fl(a·b) − a·b|."""
    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    return up(gamma(a.size) * sum_up(np.abs(a) * np.abs(b)))


def gram_abs_row_sum_max(absM) -> float:
    """An upper bound on max_i Σ_j (|M|ᵀ|M|)_ij = ‖|M|ᵀ(|M|·1)‖_∞ for the entrywise
    magnitudes ``absM`` = |M|, by two products with a vector instead of forming |M|ᵀ|M|:
    each is a sum of nonnegative terms, fl(s) = s(1 + θ) with |θ| ≤ γ_k, so the exact value
    is at most the computed one / ((1 − γ_rows)(1 − γ_columns))."""
    if absM.shape[0] == 0 or absM.shape[1] == 0:
        return 0.0
    if sp.issparse(absM):
        absM = sp.csr_matrix(absM)
        k_row, k_col = row_nnz_max(absM), row_nnz_max(absM.T.tocsr())
    else:
        absM = np.asarray(absM, dtype=float)
        k_row, k_col = absM.shape[1], absM.shape[0]
    v = np.asarray(absM.T @ np.asarray(absM @ np.ones(absM.shape[1])).ravel()).ravel()
    top = float(np.max(v))
    if top == 0:
        return 0.0  # exactly: |M| has no nonzero entry
    return up(top / ((1.0 - gamma(max(k_row, 1))) * (1.0 - gamma(max(k_col, 1)))))


def abs_row_sum_max(M) -> float:
    """An upper bound on max_i Σ_j |M_ij|, the ∞-norm of M, which bounds ‖M‖₂ for a
    symmetric M."""
    if M.shape[0] == 0 or (M.nnz == 0 if sp.issparse(M) else not np.any(M)):
        return 0.0  # exactly
    if sp.issparse(M):
        rows = np.asarray(abs(M).sum(axis=1)).ravel()
        k = row_nnz_max(M)
    else:
        rows = np.abs(M).sum(axis=1)
        k = M.shape[1]
    return up(float(np.max(rows)) * (1.0 + gamma(max(k, 1))))
