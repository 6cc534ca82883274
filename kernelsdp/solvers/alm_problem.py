"""NPKL with the trace capacity, scaled and reordered for the low-rank augmented Lagrangian
(:mod:`.low_rank_alm`, issue #30).

**Scaling.**  With K = B·VVᵀ (so tr K ≤ B is ‖V‖_F ≤ 1) and the objective divided by
s = C·m (the size of the pair losses: P(0) = s for the hinge), NPKL reads

    φ(V) = a·⟨V, LV⟩ + (1/s)·Σ_p h(B·z_p(V)),    a = B/s,  z_p(V) = v_iᵀv_j,

and no constant of the iteration depends on n: L is a normalised Laplacian (eigenvalues in
[0, 2]), a = B/(C·m) is 1/1.2 at B = n, m = 1.2n, and B·z_p = K_ij is O(1) at the margin.

**The augmented Lagrangian with the pair values eliminated.**  With one multiplier β_p per
pair (the β of docs/npkl.md §3: M(β) = L + Σ β_p E_p) and penalty ρ (in K's units),

    Φ_ρ(K; β) = tr(LK) + Σ_p e_p(K_p),   e_p(w) = min_z h(z) + β_p(w − z) + (ρ/2)(w − z)²,

whose minimiser is z* = prox_{h/ρ}(w + β_p/ρ) (each loss's own prox,
:attr:`~kernelsdp.formulations.losses.Loss.prox`) and whose derivative is
β̃_p = β_p + ρ(w − z*) = prox_{ρh*}(β_p + ρw) — always in the domain of h* (hinge:
α̃ = −β̃T = clip(α + ρ(1 − T·w), 0, C): the multipliers never leave the box).  So
∇_K Φ = M(β̃) and ∇_V = 2a·M(β̃)·V: one sparse product with L and one with the pairs.

**Order.**  The points are renumbered by reverse Cuthill–McKee on L's graph (SciPy's
``csgraph``): the rows a product with L reads sit near each other in the row-major V.
``to_original`` maps a factor back.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import reverse_cuthill_mckee

from ..formulations.losses import LOSSES
from ..formulations.npkl import NPKL
from ..linalg.row_blocks import RowBlocks, on_threads

#: pair gathers split over threads from this many pairs (NumPy's take releases the GIL)
THREADED_PAIRS_FROM = 20_000


class ScaledNPKL:
    """The scaled, reordered problem: L and the pair pattern in the iterate's ``dtype``,
    the pair data (targets, multipliers, envelopes) in double."""

    def __init__(self, f: NPKL, dtype=np.float32, reorder: bool = True):
        n, P = f.n, f.pairs
        self.f, self.n, self.m, self.dtype = f, n, P.m, np.dtype(dtype)
        self.loss, self.C, self.B = LOSSES[f.loss], float(f.C), float(f.B)
        self.scale = self.C * P.m
        self.a = self.B / self.scale
        L = sp.csr_matrix(f.L)
        self.order = (
            reverse_cuthill_mckee(L, symmetric_mode=True).astype(np.int64)
            if reorder
            else np.arange(n)
        )
        self.rank_of = np.empty(n, dtype=np.int64)
        self.rank_of[self.order] = np.arange(n)
        Lp = L[self.order][:, self.order].tocsr()
        Lp.sort_indices()
        self.L = Lp.astype(self.dtype)
        self.i, self.j, self.t = self.rank_of[P.i], self.rank_of[P.j], P.t.astype(float)
        rows, cols = np.concatenate([self.i, self.j]), np.concatenate([self.j, self.i])
        slot = sp.csr_matrix(
            (np.arange(1, 2 * P.m + 1, dtype=np.float64), (rows, cols)), shape=(n, n)
        )
        slot.sort_indices()
        self.slot = (slot.data - 1).astype(np.int64) % P.m  # pair of each stored entry
        self.pairs = sp.csr_matrix(
            (np.zeros(2 * P.m, dtype=self.dtype), slot.indices, slot.indptr), shape=(n, n)
        )
        self.L_rows, self.pair_rows = RowBlocks(self.L), RowBlocks(self.pairs)
        self._L64_rows = None  # L in double by row blocks (times_L_double)
        # the gathers' order: by the lower index, then the upper, so that one of the two
        # row gathers walks V forwards (pair_entries writes back in the pairs' own order)
        lo, hi = np.minimum(self.i, self.j), np.maximum(self.i, self.j)
        self.gather = np.lexsort((hi, lo))
        self.gather_lo, self.gather_hi = lo[self.gather], hi[self.gather]
        self._dual_pattern()
        self.products = 0  # sparse products with L or the pairs, counted in n×s blocks

    # ----- products ----------------------------------------------------------------------
    def times_L(self, V: np.ndarray, out: np.ndarray) -> np.ndarray:
        self.products += 1
        return self.L_rows.matmul(V, out)

    def times_L_double(self, V: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """L·V in double from L's double entries (V cast unless already double), for values
        compared to the last digits (the Newton steps' ratio test, :mod:`.alm_newton`): one
        product, into ``out`` (n×s double) when given."""
        if self._L64_rows is None:  # built at the first call (a single-precision run's
            # double copy of L: 12 bytes an entry, in memory_bytes_for)
            L64 = self.L if self.dtype == np.float64 else self._double_L()
            self._L64_rows = RowBlocks(L64)
        self.products += 1
        V = np.asarray(V, dtype=np.float64)
        return self._L64_rows.matmul(V, np.empty_like(V) if out is None else out)

    def _double_L(self) -> sp.csr_matrix:
        """L's double entries in this order (a coarse level overrides it: its L is not
        f.L)."""
        L = sp.csr_matrix(self.f.L, dtype=np.float64)[self.order][:, self.order].tocsr()
        L.sort_indices()
        return L

    def set_multipliers(self, beta: np.ndarray) -> None:
        """The pair part of M(β): Σ β_p E_p, E_p = (e_ie_jᵀ + e_je_iᵀ)/2."""
        np.multiply(beta[self.slot], 0.5, out=self.pairs.data, casting="same_kind")

    def times_pairs(self, V: np.ndarray, out: np.ndarray) -> np.ndarray:
        self.products += 1
        return self.pair_rows.matmul(V, out)

    def _dual_pattern(self) -> None:
        """M(β)'s pattern in double, L's and the pairs' entries together, built once: each
        check writes its data in place and multiplies by row blocks on the cores."""
        n = self.n
        Lc, Pc = self.L.tocoo(), self.pairs.tocoo()  # the CSR orders of L.data, pairs.data
        key_L = Lc.row.astype(np.int64) * n + Lc.col
        key_P = Pc.row.astype(np.int64) * n + Pc.col
        keys = np.union1d(key_L, key_P)
        index = np.int32 if len(keys) < 2**31 else np.int64
        self.M_L = np.searchsorted(keys, key_L).astype(index)
        self.M_pairs = np.searchsorted(keys, key_P).astype(index)
        indptr = np.concatenate([[0], np.cumsum(np.bincount(keys // n, minlength=n))])
        self.M = sp.csr_matrix(
            (np.zeros(len(keys)), (keys % n).astype(index), indptr.astype(index)), shape=(n, n)
        )
        self.M_rows = RowBlocks(self.M)
        self._M_sum = np.zeros(len(keys), dtype=self.dtype)

    def dual_matrix(self, beta: np.ndarray) -> sp.csr_matrix:
        """M(β) in this order, in double (for the Frank–Wolfe eigenvectors): L + the pairs
        summed in the iterate's precision as before, written into the fixed pattern (valid
        until the next call)."""
        self.set_multipliers(beta)
        d = self._M_sum
        d.fill(0)
        d[self.M_L] = self.L.data
        d[self.M_pairs] += self.pairs.data
        self.M.data[...] = d
        return self.M

    def dual_times(self, Y: np.ndarray) -> np.ndarray:
        """M(β)·Y for the last :meth:`dual_matrix`'s β, by row blocks on the cores."""
        Y = np.ascontiguousarray(Y, dtype=np.float64)
        return self.M_rows.matmul(Y, np.empty((self.n, Y.shape[1])))

    def dual_operator(self) -> spla.LinearOperator:
        """M(β) as an operator in double (:meth:`dual_times`); LOBPCG's, in the block's
        dtype and counting its columns, is :func:`.alm_inner.counted_operator` over it."""
        times = self.dual_times
        return spla.LinearOperator(
            (self.n, self.n),
            matvec=lambda x: times(x.reshape(-1, 1)).ravel(),
            matmat=times,
            dtype=np.float64,
        )

    # ----- pairs -------------------------------------------------------------------------
    def pair_entries(self, V: np.ndarray, out=None) -> np.ndarray:
        """z_p = v_iᵀv_j for every pair (float64), gathered in sorted-row order (the
        pairs' own order restored by one scatter), on threads when large; ``out``: two
        m×s arrays of V's dtype that the row gathers are written into (the Newton round's
        scratch, :meth:`.alm_newton._Newton.work`), else fresh ones."""
        m, lo, hi = self.m, self.gather_lo, self.gather_hi
        a, b = (None, None) if out is None else out
        z = np.empty(m)
        if m < THREADED_PAIRS_FROM:
            z[self.gather] = _rowdot(V, lo, hi, a, b)
            return z
        halves = (slice(0, m // 2), slice(m // 2, m))
        bufs = [(None, None) if a is None else (a[h], b[h]) for h in halves]
        parts = on_threads(
            [lambda h=h, o=o: _rowdot(V, lo[h], hi[h], *o) for h, o in zip(halves, bufs)]
        )
        z[self.gather] = np.concatenate(parts)
        return z

    def outer_entries(self, v: np.ndarray) -> np.ndarray:
        """z_p of the rank-one factor v (a vector): v_i·v_j for every pair."""
        return v[self.i] * v[self.j]

    def envelope(self, w: np.ndarray, beta: np.ndarray, rho: float) -> tuple[float, np.ndarray]:
        """Σ_p e_p(w_p) and β̃ = ∇e (module docstring), w = K_p in K's units."""
        val, bt = self.envelope_terms(w, beta, rho)
        return float(np.sum(val)), bt

    def envelope_terms(
        self, w: np.ndarray, beta: np.ndarray, rho: float, t: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each pair's e_p(w_p) and β̃_p; ``t``: the targets of the pairs that w and β hold
        (all of them unless given)."""
        t = self.t if t is None else t
        zs = self.loss.prox(w + beta / rho, t, self.C, rho)
        d = w - zs
        return self.loss.value(zs, t, self.C) + beta * d + 0.5 * rho * d * d, beta + rho * d

    def loss_value(self, w: np.ndarray) -> float:
        return float(np.sum(self.loss.value(w, self.t, self.C)))

    def conjugate_sum(self, beta: np.ndarray) -> float:
        return float(np.sum(self.loss.conjugate(beta, self.t, self.C)))

    def fenchel_young(self, w: np.ndarray, beta: np.ndarray) -> float:
        """Σ h(w) + h*(β) − βw ≥ 0: the part of P − D that the multipliers owe."""
        return float(
            np.sum(
                self.loss.value(w, self.t, self.C)
                + self.loss.conjugate(beta, self.t, self.C)
                - beta * w
            )
        )

    # ----- back to the caller's terms ---------------------------------------------------
    def to_original(self, V: np.ndarray) -> np.ndarray:
        """U (n×r, double, the caller's order) with K = UUᵀ = B·VVᵀ."""
        return np.sqrt(self.B) * np.asarray(V, dtype=np.float64)[self.rank_of]

    def from_original(self, U: np.ndarray) -> np.ndarray:
        return (np.asarray(U, dtype=np.float64)[self.order] / np.sqrt(self.B)).astype(self.dtype)

    def bytes(self) -> int:
        """L's and the pair pattern's copies with their row blocks, the pair indices."""
        w = self.dtype.itemsize
        return (self.L.nnz + 2 * self.m) * (w + 4) + 6 * 8 * self.m + 2 * 8 * self.n


def _rowdot(V: np.ndarray, i: np.ndarray, j: np.ndarray, a=None, b=None) -> np.ndarray:
    """⟨V_i, V_j⟩ row by row, accumulated in double (``take`` gathers the rows: measured
    2.6x faster than fancy indexing at n = 20,000, s = 49), into ``a`` and ``b`` when
    given (:func:`gather_rows`)."""
    return np.einsum("ij,ij->i", gather_rows(V, i, a), gather_rows(V, j, b), dtype=np.float64)


def gather_rows(V: np.ndarray, rows: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """V's rows ``rows`` (valid indices), into ``out`` when given.  ``take`` with ``out``
    buffers its result unless told how out-of-range indices are treated (NumPy's
    ``mode="raise"``, the default, copies through a temporary): ``mode="clip"`` writes in
    place, and changes nothing for indices in range.  n = 10⁶, 1.2·10⁶ rows of 95 floats:
    0.05–0.11 s into a kept array, 0.16–0.31 s with the default mode, 0.12–0.6 s into a
    fresh one (its pages' first touch; twenty-second pass)."""
    if out is None:
        return V.take(rows, axis=0)
    return V.take(rows, axis=0, out=out, mode="clip")
