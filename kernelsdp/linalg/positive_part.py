"""All positive eigenpairs of a sparse symmetric matrix (what Proposition 1 needs).

docs/npkl.md §4: a truncated positive part gives a wrong kernel, so the block of
eigenpairs grows until a non-positive eigenvalue is found.  Which method runs is chosen
by the *size of the positive part*.  For large n one ARPACK block of ``PROBE_BLOCK``
eigenpairs is computed first: if it already contains a non-positive eigenvalue it is the
exact answer.  Otherwise the size of the positive part is extrapolated from the decay of
those eigenvalues (stochastic Lanczos quadrature was tried and dropped: graph Laplacians
put a band of eigenvalues just below 0 that it counts as positive, 1,000 instead of 3 at
n = 20,000), and the method is chosen:

- ``dense``: LAPACK ``eigh`` on the densified matrix — for small n, or when the positive
  part is a sizeable fraction of n (ARPACK with thousands of vectors is far slower than
  one dense decomposition; measured: 2,800 pairs took 416 s vs 25 s at n = 6,414);
- ``arpack``: ``scipy.sparse.linalg.eigsh`` (implicitly restarted Lanczos) for the k
  largest-algebraic eigenpairs, k growing ×2 until the smallest computed one is ≤ 0
  (and switching to dense when k passes n/8 and the dense matrix fits).

The dense method refuses an n whose n×n matrix would exceed ``DENSE_MEMORY_LIMIT`` and
falls back on ARPACK, saying so in the returned ``info``.

An :class:`EigenBudget` bounds the ARPACK work by wall-clock time and by the number of
products with A (ARPACK's unit of work), and reports progress; when it runs out, or
ARPACK does not converge, :class:`EigenStop` carries the termination to report.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..result import KernelFactor, Termination
from ..tolerances import EIG_ZERO_RTOL

#: Below this n the dense decomposition is always used (it is faster than ARPACK there).
DENSE_ALWAYS_N = 2500
#: First ARPACK block tried for large n: exact and cheap when the positive part is small.
PROBE_BLOCK = 48
#: ARPACK is preferred while the estimated positive count is below n / this.
SPARSE_FRACTION = 20
#: Dense LAPACK needs about 3 n×n float64 arrays (matrix, eigenvectors, workspace).
DENSE_MEMORY_LIMIT = 6 * 2**30
#: the ``method`` values of :func:`positive_eigenpairs`
EIG_METHODS = ("auto", "dense", "probe", "arpack")


@dataclass
class PositivePart:
    """Positive eigenvalues ``w`` (descending) and eigenvectors ``V`` (n × p) of A."""

    w: np.ndarray
    V: np.ndarray
    method: str
    info: dict = field(default_factory=dict)

    @property
    def count(self) -> int:
        return int(self.w.size)

    @property
    def frobenius(self) -> float:
        """‖A₊‖_F."""
        return float(np.linalg.norm(self.w))


def dense_bytes(n: int) -> int:
    return 3 * 8 * n * n


def sparse_bytes(nnz: int) -> int:
    """A CSR matrix: 8-byte values and 4-byte column indices (the row pointers are O(n))."""
    return 12 * nnz


def positive_part_bytes(n: int, nnz: int, method: str) -> int:
    """The peak bytes of :func:`positive_eigenpairs` on a sparse n×n matrix with nnz
    entries: the sparse matrix, then the dense decomposition (3 n×n arrays) wherever it fits
    ``DENSE_MEMORY_LIMIT`` — every method switches to it there once the positive part is
    large (measured: the saddle-point at n = 6,000 peaked at 628 MB, where the first ARPACK
    block alone reads 10 MB) — else the first ARPACK block (Lanczos basis and eigenvectors,
    2·(2k+1) vectors of n; the block grows with the positive part, so beyond the dense limit
    this is a floor)."""
    dense = method == "dense" or dense_bytes(n) <= DENSE_MEMORY_LIMIT
    work = dense_bytes(n) if dense else 8 * n * 2 * (2 * PROBE_BLOCK + 1)
    return sparse_bytes(nnz) + work


def extrapolate_positive_count(w: np.ndarray) -> float:
    """Where the largest eigenvalues ``w`` (all > 0) would reach 0 if their decay went on.

    Linear extrapolation over the second half of the block: cheap, and only a guide (a
    low guess costs one more ×2 block, a high one prefers the dense method).
    """
    w = np.sort(w)[::-1]
    k = w.size
    h = k // 2
    slope = (w[h] - w[-1]) / max(k - 1 - h, 1)
    return float("inf") if slope <= 0 else k + w[-1] / slope


def _positive(w: np.ndarray, V: np.ndarray, scale: float) -> tuple[np.ndarray, np.ndarray]:
    keep = w > EIG_ZERO_RTOL * max(scale, 1e-300)
    order = np.argsort(w[keep])[::-1]
    return w[keep][order], V[:, keep][:, order]


def _dense(A) -> tuple[np.ndarray, np.ndarray]:
    M = A.toarray() if sp.issparse(A) else np.asarray(A, dtype=float)
    return np.linalg.eigh(M)


class EigenStop(Exception):
    """The eigen-solve stopped short (limit reached, or ARPACK did not converge)."""

    def __init__(self, termination: Termination, message: str):
        super().__init__(message)
        self.termination = termination


@dataclass
class EigenBudget:
    """Limits on ARPACK's work — seconds and products with A — and a progress callback fed
    ``{"iteration": products, "time_s": ...}`` at most every ``every`` seconds."""

    time_limit: float | None = None
    max_products: int | None = None
    progress: Callable[[dict], None] | None = None
    every: float = 0.5
    start: float = field(default_factory=time.perf_counter)
    products: int = 0
    _shown: float = 0.0

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def check(self) -> None:
        t = self.elapsed()
        if self.time_limit is not None and t > self.time_limit:
            raise EigenStop(
                Termination.TIME_LIMIT,
                f"the eigen-solve passed its time limit of "
                f"{self.time_limit:g} s after {self.products} products with A",
            )
        if self.max_products is not None and self.products >= self.max_products:
            raise EigenStop(
                Termination.ITERATION_LIMIT,
                f"the eigen-solve used its {self.max_products} products with A without converging",
            )
        if self.progress is not None and t - self._shown >= self.every:
            self._shown = t
            self.progress(
                {
                    "iteration": self.products,
                    "primal": None,
                    "dual": None,
                    "relative_gap": None,
                    "time_s": t,
                }
            )

    def operator(self, A) -> spla.LinearOperator:
        """A as an operator that counts its products and stops at the limits."""

        def matmat(X):
            self.products += 1 if X.ndim == 1 else X.shape[1]
            self.check()
            return A @ X

        return spla.LinearOperator(A.shape, matvec=matmat, matmat=matmat, dtype=float)


def positive_eigenpairs(
    A,
    method: str = "auto",
    k0: int | None = None,
    v0: np.ndarray | None = None,
    budget: EigenBudget | None = None,
) -> PositivePart:
    """All eigenpairs of the symmetric matrix A with positive eigenvalue.

    ``method``: ``auto`` (dense for n ≤ DENSE_ALWAYS_N, else ``probe``), ``probe`` (one
    ARPACK block, then the method chosen by the extrapolated size), ``dense`` or
    ``arpack`` (growing blocks).  ``k0`` is the first ARPACK block (default PROBE_BLOCK);
    the saddle-point solver passes the previous iteration's count.  ``budget`` bounds the
    ARPACK work (:class:`EigenBudget`; :class:`EigenStop` when it runs out).
    """
    n = A.shape[0]
    info: dict = {"n": n}
    if budget is not None:
        budget.check()
        op = budget.operator(A)
    else:
        op = A
    if method == "auto":
        method = "dense" if n <= DENSE_ALWAYS_N else "probe"
    if method == "dense":
        return _dense_part(A, info)
    if method == "probe":
        # an exact, cheap answer when the positive part is small: one ARPACK block
        k = int(min(k0 or PROBE_BLOCK, n - 2))
        w, V = _eigsh(op, k, v0)
        info["arpack_blocks"] = [k]
        scale = float(np.max(np.abs(w)))
        if w.min() <= EIG_ZERO_RTOL * scale:
            w, V = _positive(w, V, scale)
            return PositivePart(w, V, "arpack", info)
        # the positive part exceeds the probe: extrapolate its size to pick the method
        est = extrapolate_positive_count(w)
        info["estimated_positive"] = round(est, 1)
        if est > n / SPARSE_FRACTION:
            if dense_bytes(n) <= DENSE_MEMORY_LIMIT:
                return _dense_part(A, info)
            info["note"] = (
                f"dense eigh would need {dense_bytes(n) / 2**30:.1f} GiB; "
                "using ARPACK although the positive part is large"
            )
        return _arpack(A, op, max(2 * k, int(min(1.3 * est, n / 4)) + 16), v0, info)
    return _arpack(A, op, k0 or PROBE_BLOCK, v0, info)


def _dense_part(A, info: dict) -> PositivePart:
    w, V = _dense(A)
    scale = float(np.max(np.abs(w))) if w.size else 1.0
    w, V = _positive(w, V, scale)
    return PositivePart(w, V, "dense", info)


def _eigsh(A, k: int, v0):
    n = A.shape[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return spla.eigsh(A, k=k, which="LA", v0=v0, ncv=min(n - 1, max(2 * k + 1, 20)))
        except spla.ArpackNoConvergence as exc:
            raise EigenStop(
                Termination.NUMERICAL_ERROR,
                f"ARPACK did not converge on {k} eigenpairs ({len(exc.eigenvalues)} converged)",
            ) from None


def _arpack(A, op, k: int, v0, info: dict) -> PositivePart:
    """Grow the ARPACK block ×2 until its smallest eigenvalue is ≤ 0 (or go dense)."""
    n = A.shape[0]
    blocks = info.setdefault("arpack_blocks", [])
    while True:
        k = int(min(k, n - 2))
        w, V = _eigsh(op, k, v0)
        blocks.append(k)
        scale = float(np.max(np.abs(w)))
        if w.min() <= EIG_ZERO_RTOL * scale or k >= n - 2:
            break
        if dense_bytes(n) <= DENSE_MEMORY_LIMIT and 2 * k > n / 4:
            info["note"] = (
                f"ARPACK block reached {k} with all eigenvalues positive; switched to dense eigh"
            )
            return _dense_part(A, info)
        k *= 2
    w, V = _positive(w, V, scale)
    return PositivePart(w, V, "arpack", info)


def closed_form_kernel(part: PositivePart, B: float) -> KernelFactor:
    """K* = √B A₊/‖A₊‖_F as a factor (the zero kernel when A has no positive part)."""
    norm = part.frobenius
    if norm == 0.0:
        return KernelFactor(np.zeros((part.V.shape[0], 0)))
    return KernelFactor(part.V * np.sqrt(np.sqrt(B) * part.w / norm))
