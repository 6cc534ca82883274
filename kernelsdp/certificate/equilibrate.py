"""The form the proofs run on: each constraint row scaled by a power of two (exact in
floating point), so that a verdict does not change when a user multiplies a row by 10⁶.

Scaling the rows of s = Ax + b ∈ K by a positive D that is constant on each cone block
(every zero and ℝ₊ row by its own, every second-order, PSD, exponential or power block by
one number: each is a cone) leaves the feasible set of x unchanged, and maps a dual y ∈ K*
with Aᵀy = g to y′ = D⁻¹y ∈ K* with (DA)ᵀy′ = g and (Db)ᵀy′ = bᵀy: the same objective
values, so an end proven on the scaled form is an end of the original problem.  With D a
power of two per row or block, DA and Db are the original's numbers with other exponents
(barring overflow and underflow, which :mod:`kernelsdp.linalg.rounding` covers), so the
scaled form adds no rounding of its own.

Without it the corrections that the proofs enclose — the dual's least-squares step, the
equality projection, the central points — were weighted by the rows' own sizes: the
adversarial generator (``benchmarks/certificate_adversary.py``) found θ of C₅ certified as
written and not with its trace row multiplied by 10⁻⁶ (the very same KKT point).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from ..linalg.rounding import as_csr
from .canonical import CanonicalForm


def equilibrated(form: CanonicalForm, x: np.ndarray) -> tuple[CanonicalForm, np.ndarray]:
    """(the row-scaled form, D as a vector over the rows) for certifying the point x.

    A row's size is max|aᵢ|·‖x‖_∞ + |bᵢ| (the largest over a cone block): multiplying a row
    by t multiplies it by t, and rescaling all variables (A → tA, x → x/t) leaves it
    unchanged.  A size from the data alone, max(|aᵢ|, |bᵢ|), mixed A's units with b's and
    made the proofs depend on the variables' scale (an LP certified as written failed with
    x × 10⁻⁶); the size |aᵢ||x| + |bᵢ| at the point itself is near 0 on a row such as
    X_ij = 0, whose scaling then broke the proof that A has full column rank."""
    A = sp.csr_matrix(form.A)
    d = point_row_scales(form, x)
    if np.all(d == 1.0):
        return form, d
    row = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    scaled, b = A.data * d[row], form.b * d
    if not (np.array_equal(scaled / d[row], A.data) and np.array_equal(b / d, form.b)):
        return form, np.ones_like(d)  # an entry under- or overflowed: not exact, not used
    scaled_A = sp.csr_matrix((scaled, A.indices.copy(), A.indptr.copy()), shape=A.shape)
    return replace(form, A=scaled_A, b=b), d


def point_row_scales(form: CanonicalForm, x: np.ndarray) -> np.ndarray:
    """D of :func:`equilibrated` alone (its powers of two for the point x), without the
    scaled form: what the caller reads to decide whether the scaled form is worth making."""
    top = float(np.max(np.abs(x), initial=0.0))
    size = (_data_sizes(form, with_b=False) * top if top > 0 else 0.0) + np.abs(form.b)
    return _per_block(form, np.where(size > 0, size, _data_sizes(form)))


def data_row_scales(form: CanonicalForm) -> np.ndarray:
    """D from the data alone, max(|aᵢ|, |bᵢ|) per row (per cone block): what the returned
    point's own equality residual is measured in (kept on the form)."""
    return form.derived("data row scales", lambda: _per_block(form, _data_sizes(form)))


def _data_sizes(form: CanonicalForm, with_b: bool = True) -> np.ndarray:
    top = row_abs_max(form.A)
    return np.maximum(top, np.abs(form.b)) if with_b else top


def row_abs_max(A) -> np.ndarray:
    """max_j |a_ij| per row (0 for an empty row), read off the CSR arrays: the maximum is
    exact, so this is what ``abs(A).max(axis=1)`` gives, without its sparse matrices."""
    if not sp.issparse(A):
        return np.max(np.abs(np.atleast_2d(A)), axis=1, initial=0.0)
    A = as_csr(A)
    out = np.zeros(A.shape[0])
    filled = np.flatnonzero(np.diff(A.indptr) > 0)
    if filled.size:
        out[filled] = np.maximum.reduceat(np.abs(A.data), A.indptr[filled])
    return out


def _per_block(form: CanonicalForm, size: np.ndarray) -> np.ndarray:
    """The powers of two for these row sizes, one per cone block but for zero and ℝ₊ rows
    (each of those its own): the largest size of each segment (:func:`_row_segments`)."""
    size = np.asarray(size, dtype=float)
    if size.size == 0:
        return power_of_two_inverse(size)
    starts, lengths = _row_segments(form)
    return power_of_two_inverse(np.repeat(np.maximum.reduceat(size, starts), lengths))


def _row_segments(form: CanonicalForm) -> tuple[np.ndarray, np.ndarray]:
    """(starts, lengths) of the rows' segments that share one scale: a whole block, but
    each row of a zero or ℝ₊ block alone (kept on the form)."""

    def find() -> tuple[np.ndarray, np.ndarray]:
        starts = []
        for blk in form.blocks:
            if blk.kind in ("zero", "nonneg"):
                starts.extend(range(blk.start, blk.stop))
            elif blk.size:
                starts.append(blk.start)
        first = np.asarray(starts, dtype=np.intp)
        return first, np.diff(np.append(first, form.A.shape[0]))

    return form.derived("row segments", find)


def power_of_two_inverse(size: np.ndarray) -> np.ndarray:
    """2^(1−e) where size = m·2^e, m ∈ [½, 1): the power of two that brings size into
    [1, 2); 1 where size is 0 or not finite."""
    ok = np.isfinite(size) & (size > 0)
    _, expo = np.frexp(np.where(ok, size, 1.0))
    return np.where(ok, np.ldexp(1.0, 1 - expo), 1.0)
