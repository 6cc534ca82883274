"""Sparse × dense products A·Y split into row blocks on threads.

SciPy's sparse kernels (sparsetools) release the GIL, so the blocks of rows of a CSR matrix
multiply Y at the same time on separate cores; each writes its own rows of the output.
The blocks share A's arrays (their data are views of ``A.data``), so values written into
``A.data`` in place are seen by every block without rebuilding them.  Measured on this
2-core machine at n = 100,000 (550,158 non-zeros, 48 columns, single precision), with
other work on one core: 97 ms as one product, 70 ms as two blocks on two threads.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

try:  # the kernel behind ``csr @ dense`` (SciPy's private module): it accumulates Y += A·X
    from scipy.sparse._sparsetools import csr_matvecs as _csr_matvecs
except ImportError:  # pragma: no cover - another SciPy layout: the public product serves
    _csr_matvecs = None

#: below this many non-zeros the product runs as one call (a thread hand-off costs ~0.1 ms)
PARALLEL_FROM_NNZ = 50_000

_POOL: ThreadPoolExecutor | None = None
_POOL_PID = 0


def _pool(workers: int) -> ThreadPoolExecutor:
    """The process's pool, made anew in a forked child (whose copy has no live threads and
    would never run what is submitted to it)."""
    global _POOL, _POOL_PID
    if _POOL is None or os.getpid() != _POOL_PID or _POOL._max_workers < workers:
        _POOL = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kernelsdp-rows")
        _POOL_PID = os.getpid()
    return _POOL


def available_cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def on_threads(tasks, threaded: bool = True) -> list:
    """Each task's result (tasks: callables without arguments), the tasks on the pool's
    threads when ``threaded`` and the process has two cores or more, else one after the
    other.  For work that releases the GIL (NumPy's gathers and einsum, SciPy's sparse
    kernels); a task must not itself wait on the pool."""
    if not threaded or len(tasks) < 2 or available_cores() < 2:
        return [task() for task in tasks]
    return list(_pool(len(tasks)).map(lambda task: task(), tasks))


class RowBlocks:
    """A CSR matrix cut into ``blocks`` row blocks of about equal non-zeros (views of it)."""

    def __init__(self, A: sp.csr_matrix, blocks: int | None = None):
        if not sp.isspmatrix_csr(A) and not isinstance(A, sp.csr_array):
            raise TypeError("RowBlocks needs a CSR matrix")
        self.A = A
        k = available_cores() if blocks is None else blocks
        k = 1 if A.nnz < PARALLEL_FROM_NNZ else max(1, min(k, A.shape[0]))
        # cut where the cumulative non-zeros cross multiples of nnz/k
        cuts = np.searchsorted(A.indptr, np.linspace(0, A.nnz, k + 1)[1:-1])
        self.bounds = np.unique(np.concatenate([[0], cuts, [A.shape[0]]]))
        self.blocks = []
        for lo, hi in zip(self.bounds[:-1], self.bounds[1:]):
            a, b = A.indptr[lo], A.indptr[hi]
            blk = sp.csr_matrix(
                (A.data[a:b], A.indices[a:b], A.indptr[lo : hi + 1] - a),
                shape=(hi - lo, A.shape[1]),
            )
            blk.data = A.data[a:b]  # the constructor copies (SciPy 1.17); the view is the point
            self.blocks.append(blk)

    def matmul(self, Y: np.ndarray, out: np.ndarray) -> np.ndarray:
        """out = A·Y, the row blocks on threads, each written in place (:func:`block_product`)."""
        if len(self.blocks) == 1:
            return block_product(self.A, Y, out)

        bounds = zip(self.bounds[:-1], self.bounds[1:])
        on_threads(
            [
                lambda b=b, r=r: block_product(b, Y, out[r[0] : r[1]])
                for b, r in zip(self.blocks, bounds)
            ]
        )
        return out


def block_product(A: sp.csr_matrix, Y: np.ndarray, out: np.ndarray) -> np.ndarray:
    """out = A·Y by SciPy's own kernel writing into ``out`` (zeroed first), where
    ``A @ Y`` would make a fresh zeroed array and the assignment copy it: bit for bit the
    same numbers (the kernel and its order are the same), without the n×s temporary whose
    first touch cost page faults at every product (n = 100,000, width 89: 16.5 s of zeroed
    fresh arrays in a 298 s solve, docs/npkl.md §7, twenty-first pass).  Falls back to
    ``A @ Y`` when the dtypes or layouts differ."""
    dtype = np.result_type(A.dtype, Y.dtype)
    direct = (
        _csr_matvecs is not None
        and Y.ndim == 2
        and out.dtype == dtype == Y.dtype
        and out.flags.c_contiguous
        and Y.flags.c_contiguous
        and out.shape == (A.shape[0], Y.shape[1])
    )
    if not direct:
        out[...] = A @ Y
        return out
    out.fill(0)
    _csr_matvecs(
        A.shape[0], A.shape[1], Y.shape[1], A.indptr, A.indices, A.data, Y.ravel(), out.ravel()
    )
    return out
