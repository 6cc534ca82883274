"""A multilevel (coarse-to-fine) warm start for the low-rank augmented Lagrangian
(:mod:`.low_rank_alm`, issue #30, sixth pass): the NPKL problem restricted to the range
of an aggregation, solved by the same ALM, prolonged into a fine start.

**The restriction (Galerkin).**  An aggregation puts each point i in one aggregate a(i);
P (n × n_c) has one entry per row, P_{i,a(i)} = p_i = q_i / ‖q_{a(i)}‖ (q the near-null
vector of L: √deg for the normalised Laplacian, D^{1/2}·1 being its null space), so
PᵀP = I.  With K = P K_c Pᵀ:  tr K = tr K_c,  K ⪰ 0 ⇔ K_c ⪰ 0,  tr(LK) = tr(L_c K_c) with
L_c = PᵀLP, and every fine pair keeps its own value K_p = p_i p_j·(K_c)_{a(i)a(j)}.  So
the coarse problem

    min tr(L_c K_c) + Σ_p h(w_p·(K_c)_{a_p b_p})   s.t.  K_c ⪰ 0, tr K_c ≤ B,  w_p = p_i p_j,

is NPKL restricted to {P K_c Pᵀ}: its points prolong (U = P·U_c) to fine points with the
same objective, each fine pair keeps its multiplier β_p, and its dual matrix is
PᵀM(β)P (the pair part Σ β_p w_p E_{a_p b_p}: pairs that fall in one aggregate land on
the diagonal, pairs that share aggregates add up).  Its optimum is an upper bound of the
fine one; its dual estimate is not a fine lower bound (λ_min(PᵀMP) ≥ λ_min(M)), so the
coarse level stops on its own estimated gap only and the fine solve certifies from
scratch (:mod:`.alm_certificate`).

**The aggregation** (:func:`aggregate`): Vaněk, Mandel & Brezina's standard aggregation
("Algebraic multigrid by smoothed aggregation", Computing 56, 1996, §3, without the
strength threshold: the graph is the mutual k-NN graph itself): a point whose neighbours
are all free seeds an aggregate with them; left points join a neighbour's aggregate; what
is still left forms aggregates with its free neighbours.  ``levels`` repeats it on the
aggregates' graph (ratio about 5 a level on the 5-NN graphs of ``npkl_scale.py``).

**Cost.**  L_c has about n_c rows, but the coarse problem keeps all m pair terms: a
gradient step there still gathers m pair rows, so only the Laplacian's part, the
eigensolves (on n_c) and — the point — the fine iterations shrink.
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

from ..formulations.losses import LOSSES
from ..formulations.npkl import NPKL
from ..linalg.row_blocks import RowBlocks
from .alm_inner import BLOCK
from .alm_outer import Start, _Run, iterate
from .alm_problem import ScaledNPKL


def aggregate(A: sp.spmatrix) -> np.ndarray:
    """Standard aggregation of the graph of A's off-diagonal pattern (module docstring):
    the aggregate of each point, numbered 0..n_c − 1."""
    A = sp.csr_matrix(A)
    n, ptr, idx = A.shape[0], A.indptr, A.indices
    label = np.full(n, -1, dtype=np.int64)
    k = 0
    for i in range(n):  # pass 1: a point with all its neighbours free seeds an aggregate
        nb = idx[ptr[i] : ptr[i + 1]]
        if label[i] < 0 and np.all(label[nb] < 0):
            label[nb], label[i], k = k, k, k + 1
    first = label.copy()
    for i in np.flatnonzero(label < 0):  # pass 2: join a neighbour's pass-1 aggregate
        agg = first[idx[ptr[i] : ptr[i + 1]]]
        agg = agg[agg >= 0]
        if agg.size:
            label[i] = agg[0]
    for i in np.flatnonzero(label < 0):  # pass 3: the rest, with its free neighbours
        if label[i] < 0:
            nb = idx[ptr[i] : ptr[i + 1]]
            label[nb[label[nb] < 0]], label[i], k = k, k, k + 1
    return label


def matching(A: sp.spmatrix) -> np.ndarray:
    """Greedy heaviest-edge matching of the graph of A's off-diagonal entries (|A_ij| as
    weights): pairs of points and singletons (ratio about 1.6 on the mutual 5-NN graphs)."""
    A = sp.csr_matrix(A)
    n, ptr, idx, val = A.shape[0], A.indptr, A.indices, np.abs(A.data)
    label = np.full(n, -1, dtype=np.int64)
    k = 0
    for i in range(n):
        if label[i] >= 0:
            continue
        s = slice(ptr[i], ptr[i + 1])
        free = label[idx[s]] < 0
        label[i] = k
        if free.any():
            label[idx[s][free][np.argmax(val[s][free])]] = k
        k += 1
    return label


def aggregation(L: sp.spmatrix, levels: int = 1, kind: str = "standard") -> np.ndarray:
    """``levels`` rounds of :func:`aggregate` (or :func:`matching`), each on the last one's
    aggregate graph."""
    A = sp.csr_matrix(L)
    A = (A - sp.diags(A.diagonal())).tocsr()
    A.eliminate_zeros()
    label = np.arange(A.shape[0])
    for _ in range(levels):
        lab = matching(A) if kind == "matching" else aggregate(A)
        R = sp.csr_matrix((np.ones(len(lab)), (np.arange(len(lab)), lab)))
        A = (R.T @ abs(A) @ R).tocsr()
        A = (A - sp.diags(A.diagonal())).tocsr()
        A.eliminate_zeros()
        label = lab[label]
    return label


def prolongation_weights(L: sp.spmatrix, label: np.ndarray) -> np.ndarray:
    """p_i = q_i/‖q_{a(i)}‖ with q = √deg (deg: off-diagonal entries of L's row, at least
    1), the near-null vector of the normalised Laplacian; PᵀP = I."""
    A = sp.csr_matrix(L)
    deg = np.diff(A.indptr) - (A.diagonal() != 0)
    q2 = np.maximum(deg, 1).astype(np.float64)
    return np.sqrt(q2 / np.bincount(label, weights=q2)[label])


class CoarseNPKL(ScaledNPKL):
    """The restricted problem of the module docstring in :class:`ScaledNPKL`'s terms: the
    factor is n_c × s (coarse order), the pair values w_p·v_aᵀv_b, the pairs' matrix
    Σ β_p w_p E_{ab} summed by a fixed scatter (pairs → pattern entries)."""

    def __init__(self, f: NPKL, label: np.ndarray, dtype=np.float32, reorder: bool = True):
        P = f.pairs
        self.label, self.p = label, prolongation_weights(f.L, label)
        nc = int(label.max()) + 1
        self.f, self.n, self.m, self.dtype = f, nc, P.m, np.dtype(dtype)
        self.loss, self.C, self.B = LOSSES[f.loss], float(f.C), float(f.B)
        self.scale = self.C * P.m
        self.a = self.B / self.scale
        Pr = sp.csr_matrix((self.p, (np.arange(f.n), label)), shape=(f.n, nc))
        Lc = (Pr.T @ sp.csr_matrix(f.L) @ Pr).tocsr()
        self.order = (
            reverse_cuthill_mckee(Lc, symmetric_mode=True).astype(np.int64)
            if reorder
            else np.arange(nc)
        )
        self.rank_of = np.empty(nc, dtype=np.int64)
        self.rank_of[self.order] = np.arange(nc)
        Lp = Lc[self.order][:, self.order].tocsr()
        Lp.sort_indices()
        self.L, self._Lc = Lp.astype(self.dtype), Lp  # the coarse L in double (n_c: small)
        self._L64_rows = None
        self.i, self.j = self.rank_of[label[P.i]], self.rank_of[label[P.j]]
        self.t, self.w = P.t.astype(float), self.p[P.i] * self.p[P.j]
        self._scatter_pattern()
        self.L_rows, self.pair_rows = RowBlocks(self.L), RowBlocks(self.pairs)
        lo, hi = np.minimum(self.i, self.j), np.maximum(self.i, self.j)
        self.gather = np.lexsort((hi, lo))
        self.gather_lo, self.gather_hi = lo[self.gather], hi[self.gather]
        self._dual_pattern()
        self.products = 0

    def _double_L(self) -> sp.csr_matrix:
        """The coarse L in double (the Newton steps' ratio test): Pᵀ·L·P, not f.L."""
        return self._Lc

    def _scatter_pattern(self) -> None:
        """The pairs' pattern on n_c (each pair at (a, b) and (b, a), duplicates merged)
        and the scatter S with pairs.data = S·β: ½w_p at each of the pair's entries."""
        nc, m = self.n, self.m
        keys = np.concatenate([self.i * nc + self.j, self.j * nc + self.i])
        uniq, inv = np.unique(keys, return_inverse=True)
        pair = np.concatenate([np.arange(m), np.arange(m)])
        self.scatter = sp.csr_matrix(
            (np.concatenate([0.5 * self.w] * 2), (inv, pair)), shape=(len(uniq), m)
        )
        indptr = np.concatenate([[0], np.cumsum(np.bincount(uniq // nc, minlength=nc))])
        self.pairs = sp.csr_matrix(
            (np.zeros(len(uniq), dtype=self.dtype), uniq % nc, indptr), shape=(nc, nc)
        )

    def set_multipliers(self, beta: np.ndarray) -> None:
        self.pairs.data[...] = self.scatter @ beta

    def pair_entries(self, V: np.ndarray, out=None) -> np.ndarray:
        return super().pair_entries(V, out) * self.w

    def outer_entries(self, v: np.ndarray) -> np.ndarray:
        return super().outer_entries(v) * self.w

    def prolong(self, Uc: np.ndarray) -> np.ndarray:
        """U = P·U_c (n × r, the caller's order) from U_c in the coarse caller's order."""
        return self.p[:, None] * np.asarray(Uc, dtype=np.float64)[self.label]


def coarse_start(
    f: NPKL, o, rank_cap: int, levels: int = 1, gap: float = 1e-2, kind: str = "standard"
):
    """Solve the coarse problem of ``levels`` aggregations by the ALM to its own estimated
    gap ``gap`` (no certificate) and prolong it: (the fine :class:`Start`, its counts:
    n_c, time, gradient iterations, products in n_c×s blocks, checks)."""
    t0 = time.perf_counter()
    label = aggregation(f.L, levels, kind)
    dtype = np.float32 if o.precision == "single" else np.float64
    prob = CoarseNPKL(f, label, dtype, o.reorder)
    # the blocks read a pair as B·z (alm_blocks), the coarse problem as B·w_p·z: off there
    oc = dataclasses.replace(o, gap_tol=gap, progress=None, pocket_blocks=False)
    cap = max(1, min(rank_cap, prob.n - BLOCK - 2))  # the check's block fits beside it
    run = _Run(f, oc, cap, prob=prob, estimate_only=True)
    pt, status = iterate(run)
    chk = run.last_check
    U = prob.prolong(prob.to_original(pt.X))
    # onto tr K ≤ B in double: the float32 factor's ‖V‖_F ≤ 1 holds only to its rounding
    # (±4e-8 of B met at n = 60, on either side as the trajectory goes)
    U *= min(1.0, math.sqrt(f.B / max(float(np.sum(U * U)), 1e-300)))
    # the fine level starts at its own ρ₀ and ℓ: the coarse ρ (4·C at n = 3,000, matching)
    # cost the fine level 3,264 products against 1,988 without it (docs/npkl.md §7)
    start = Start(U, np.asarray(chk.beta_tilde, dtype=np.float64))
    last = run.history[-1]
    info = {
        "n_coarse": prob.n,
        "status": status.value,
        "time_s": time.perf_counter() - t0,
        "iterations": run.iterations,
        "products": prob.products,
        "checks": run.checks,
        "estimated_gap": last["estimated_gap"],
        "primal": last["primal"],
        "rank": pt.X.shape[1],
        "rho": run.rho,
    }
    return start, info
