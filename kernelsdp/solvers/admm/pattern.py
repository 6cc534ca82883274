"""The sparse matrix W of low-rank NPKL's X/Y steps (seed 001; see *Implicit Z* in
:mod:`kernelsdp.solvers.admm.solver`).

With A⁰ = −L off the pairs, the right-hand sides need only W = −L + (A + L + αE)|_Q on the
pattern supp(L) ∪ Q, Q = Ω ∪ Ωᵀ (q = 2m ordered pair entries).  The X-step multiplies W by
Y and the Y-step Wᵀ by X.  Wᵀ is kept as its own CSR matrix whose values are gathered from
W's at each update (CSR rows read contiguously; SciPy's Wᵀ view is CSC, whose product
scatters), and both are cut into row blocks that multiply on separate cores
(:class:`kernelsdp.linalg.row_blocks.RowBlocks`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ...linalg.row_blocks import RowBlocks


class PairPattern:
    """W on supp(L) ∪ Q in the iteration's ``dtype``, with L's values on the pairs (``Lq``,
    double, for the multipliers) and the targets T on Q (``Tq``)."""

    def __init__(
        self, L: sp.spmatrix, i: np.ndarray, j: np.ndarray, t: np.ndarray, dtype=np.float64
    ):
        n = L.shape[0]
        qi, qj = np.concatenate([i, j]), np.concatenate([j, i])
        self.q = qi.size
        self.L = L.tocsr().copy()
        self.L.eliminate_zeros()
        W = (abs(self.L) + sp.csr_matrix((np.ones(self.q), (qi, qj)), shape=(n, n))).tocsr()
        W.sum_duplicates()
        W.sort_indices()
        self.pos = positions(W, qi, qj)
        Lw = values_on(W, self.L)
        self.Lq = Lw[self.pos]  # double: the pair multipliers and certificates use it
        self.minus_Lw = (-Lw).astype(dtype)
        self.Lq_it = self.Lq.astype(dtype)
        self.Tq = np.concatenate([t, t]).astype(dtype)
        self.W = W.astype(dtype)
        order = W.copy()
        order.data = np.arange(W.nnz, dtype=np.float64)
        WT = order.T.tocsr()
        WT.sort_indices()
        self.from_W = WT.data.astype(np.int64)
        self.WT = sp.csr_matrix((self.W.data[self.from_W], WT.indices, WT.indptr), shape=W.shape)
        self.rows, self.rows_T = RowBlocks(self.W), RowBlocks(self.WT)

    @property
    def nnz(self) -> int:
        return int(self.W.nnz)

    def update(self, A: np.ndarray, E: np.ndarray, alpha: float) -> None:
        """W = −L + (A + L + αE)|_Q, i.e. A + αE on Q and −L elsewhere; Wᵀ follows."""
        self.W.data[:] = self.minus_Lw
        self.W.data[self.pos] = A + alpha * E
        np.take(self.W.data, self.from_W, out=self.WT.data, mode="clip")

    def times(self, Y: np.ndarray, out: np.ndarray) -> np.ndarray:
        """out = W·Y."""
        return self.rows.matmul(Y, out)

    def transpose_times(self, X: np.ndarray, out: np.ndarray) -> np.ndarray:
        """out = Wᵀ·X."""
        return self.rows_T.matmul(X, out)


def positions(W: sp.csr_matrix, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Index into W.data of each (row, col) entry (all in W's pattern; W's indices sorted)."""
    n = W.shape[1]
    keys = np.repeat(np.arange(W.shape[0], dtype=np.int64), np.diff(W.indptr)) * n + W.indices
    return np.searchsorted(keys, rows.astype(np.int64) * n + cols)


def values_on(W: sp.csr_matrix, L: sp.csr_matrix) -> np.ndarray:
    """L's values laid out on W's pattern (L's support is inside it)."""
    Lc = L.tocoo()
    vals = np.zeros(W.nnz)
    np.add.at(vals, positions(W, Lc.row, Lc.col), Lc.data)
    return vals
