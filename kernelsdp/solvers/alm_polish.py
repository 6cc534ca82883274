"""A primal–dual active-set Newton polish for the hinge loss of the low-rank augmented
Lagrangian (:mod:`.low_rank_alm`, issue #30).

At NPKL's optimum with K = UUᵀ, tr K = B (docs/npkl.md §3, hinge, β = −α·T) the pairs split
into three sets: above the margin (T·K_p > 1, α_p = 0), below it (T·K_p < 1, α_p = C) and
at the kink (T·K_p = 1, α_p ∈ [0, C]).  With the sets fixed, the optimum solves the smooth
system

    F(U, α_k, ν) = [2(S(α) + νI)·U,  1 − T_k·z_k(U),  ‖U‖²_F − B] = 0,
    S(α) = L − Σ_p α_p·T_p·E_p = M(−α·T),   z_p(U) = u_iᵀu_j,

the first-order conditions of min tr(UᵀLU) − C·Σ_below T_p·z_p(U) subject to the kink
pairs' equalities and the trace (ν ≥ 0 its multiplier, −ν = λ_min(S) at the optimum).
About three quarters of the pairs sit at the kink on the benchmark family (docs/npkl.md
§7's pre-check): the first-order methods settle their free multipliers slowly, this system
fixes them all at once.

**A step** (:func:`newton_steps`): Newton's step on F, whose Jacobian is symmetric and
indefinite, solved inexactly by MINRES (Paige & Saunders 1975) with one product by S and
one by the kink pairs' pattern per iteration (the gauge directions U·Ω, Ω skew, are in its
kernel; MINRES takes the least-norm step).  Then the primal–dual active-set update
(Hintermüller, Ito & Kunisch, SIAM J. Optim. 13, 2003): a kink multiplier that left
[0, C] sends its pair to the side it points to, a side pair whose T·K_p crossed 1 joins
the kink; the multipliers of the sides are reset to 0 and C.

**Nothing here is a certificate.**  Every step yields a factor and multipliers α ∈ [0, C]^m
(β = −α·T ∈ dom h*), and the caller certifies them as it certifies its own iterates
(:func:`.alm_certificate.interval`: the upper end P(U) a proof, the lower end D(β) with
λ_min verified or randomised, labelled so).  A step that does not help is simply not used.

**Measured** (docs/measurements.md, issue #30's fourth pass; from the ALM's point at an
estimated 1e-2): n = 3,000, 5 steps to 2.3e-4 and 6 to 2.3e-5 (proofs), where the float32
ALM stalls at 2.4e-4; n = 20,000, 9 steps to 6.9e-4 — the active sets settle after 4–5
steps, then the lower end closes only linearly (×0.7 a step, even with MINRES run to its
tolerance): the Jacobian is near-singular there (the pre-check's shrinking eigengap, the
factor's surplus columns), so it is not faster than the ALM to 1e-3.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..linalg.row_blocks import RowBlocks

#: a pair is put at the kink when |1 − T·K_p| is below this at the polish's start
KINK_BAND = 1e-2
#: MINRES iterations per Newton step and its relative tolerance (n = 3,000: 100 a step
#: stalled the lower end at 2.4e-3, 300 reached 1.9e-4 in five steps)
KRYLOV_ITERATIONS = 300
KRYLOV_RTOL = 1e-6
#: sparse n×r products per MINRES iteration, in the ALM's units (one with L and one with
#: the pairs a gradient step): S = L + pairs counts two, the kink pairs' pattern one
PRODUCTS_PER_KRYLOV = 3
#: the factor's columns whose squared singular value is below this share of the largest
#: are dropped at the start (fewer gauge directions for MINRES).  Dropping those below
#: 1e-5 or 1e-4 after every step as well changed nothing at n = 20,000 (2.7e-4 and 2.8e-4
#: after 12 steps, against 2.8e-4): the columns that shrink there are larger
RANK_RTOL = 1e-12


@dataclass
class PolishStep:
    """What one Newton step produced: the factor (caller's order, ‖U‖²_F about B) and the
    multipliers as β = −α·T with α ∈ [0, C]^m."""

    U: np.ndarray
    beta: np.ndarray
    residual: float  # ‖F‖ before the step, relative to ‖2·L·U‖ + ‖T‖
    krylov: int  # MINRES iterations of the step
    moves: int  # pairs that changed set after it
    kink: int  # pairs at the kink after it
    products: int  # sparse n×r products of the step, counted as the ALM counts them


class _Sets:
    """The three pair sets and α (module docstring)."""

    def __init__(self, z: np.ndarray, alpha: np.ndarray, C: float, band: float):
        self.below, self.above = z < 1 - band, z > 1 + band
        self.C = C
        self.alpha = alpha
        self.reset()

    @property
    def kink(self) -> np.ndarray:
        return ~(self.below | self.above)

    def reset(self) -> None:
        a = np.clip(self.alpha, 0.0, self.C)
        self.alpha = np.where(self.below, self.C, np.where(self.above, 0.0, a))

    def update(self, z: np.ndarray) -> int:
        """The active-set update after a step (z = T·K_p at the new point); the moves."""
        k = self.kink
        low, high = k & (self.alpha < 0), k & (self.alpha > self.C)
        join = (self.below & (z > 1)) | (self.above & (z < 1))
        self.below = (self.below & ~join) | high
        self.above = (self.above & ~join) | low
        self.reset()
        return int(low.sum() + high.sum() + join.sum())


def newton_steps(
    f,
    U: np.ndarray,
    beta: np.ndarray,
    max_steps: int = 10,
    krylov: int = KRYLOV_ITERATIONS,
    band: float = KINK_BAND,
) -> Iterator[PolishStep]:
    """Newton steps with active-set updates from (U, β) (module docstring), hinge only;
    yields after each step."""
    P, C, B = f.pairs, float(f.C), float(f.B)
    t, I, J = P.t.astype(np.float64), P.i, P.j
    U = _trim(np.asarray(U, dtype=np.float64))
    sets = _Sets(t * _rowdot(U[I], U[J]), -np.asarray(beta, dtype=np.float64) * t, C, band)
    scale = None
    nu = None
    for _ in range(max_steps):
        S = f.dual_matrix(-sets.alpha * t).tocsr()
        S_rows = RowBlocks(S)
        SU = S_rows.matmul(U, np.empty_like(U))
        if nu is None:  # the trace multiplier from U's own Rayleigh quotient
            nu = -float(np.sum(U * SU)) / float(np.sum(U * U))
        k = np.flatnonzero(sets.kink)
        ik, jk, tk = I[k], J[k], t[k]
        Ui, Uj = U[ik], U[jk]
        rhs = -np.concatenate(
            [(2.0 * (SU + nu * U)).ravel(), 1.0 - tk * _rowdot(Ui, Uj), [np.sum(U * U) - B]]
        )
        if scale is None:
            scale = float(np.linalg.norm(2.0 * (f.L @ U))) + math.sqrt(P.m)
        op = _jacobian(S_rows, U, nu, ik, jk, tk, Ui, Uj)
        count = [0]
        x, _ = spla.minres(
            op,
            rhs,
            maxiter=krylov,
            rtol=KRYLOV_RTOL,
            callback=lambda _x, c=count: c.__setitem__(0, c[0] + 1),
        )
        n, r = U.shape
        U = U + x[: n * r].reshape(n, r)
        sets.alpha[k] += x[n * r : n * r + k.size]
        nu += float(x[-1])
        moves = sets.update(t * _rowdot(U[I], U[J]))
        yield PolishStep(
            U,
            -sets.alpha * t,
            float(np.linalg.norm(rhs)) / scale,
            count[0],
            moves,
            int(sets.kink.sum()),
            PRODUCTS_PER_KRYLOV * count[0] + 2,
        )


def _jacobian(S_rows, U, nu, ik, jk, tk, Ui, Uj) -> spla.LinearOperator:
    """F's Jacobian at (U, α, ν) with the sets fixed (symmetric):

        [2(S + νI)      −2·A_k*(·)·U    2U]
        [−T_k·(δu_iᵀu_j + u_iᵀδu_j)    0     0]
        [2⟨U, ·⟩                       0     0]

    A_k*(a) = Σ_kink a_p·T_p·E_p, applied through one CSR pattern whose data are rewritten."""
    n, r = U.shape
    nk = ik.size
    N = n * r
    slots = sp.csr_matrix(
        (np.arange(1, 2 * nk + 1, dtype=np.float64), (np.r_[ik, jk], np.r_[jk, ik])),
        shape=(n, n),
    )
    slots.sum_duplicates()
    order = (slots.data - 1).astype(np.int64)  # which of [a·t, a·t]/2 each stored entry is
    A = sp.csr_matrix((np.zeros(slots.nnz), slots.indices, slots.indptr), shape=(n, n))
    A_rows = RowBlocks(A)
    out_U = np.empty((n, r))
    out_A = np.empty((n, r))

    def mv(x: np.ndarray) -> np.ndarray:
        dU = x[:N].reshape(n, r)
        da = x[N : N + nk]
        at = 0.5 * np.concatenate([da * tk, da * tk])
        A.data[...] = at[order]
        S_rows.matmul(dU, out_U)
        A_rows.matmul(U, out_A)
        top = 2.0 * (out_U + nu * dU - out_A + x[-1] * U)
        mid = -tk * (_rowdot(dU[ik], Uj) + _rowdot(Ui, dU[jk]))
        return np.concatenate([top.ravel(), mid, [2.0 * float(np.sum(U * dU))]])

    return spla.LinearOperator((N + nk + 1, N + nk + 1), matvec=mv, dtype=np.float64)


def _trim(U: np.ndarray, rtol: float = RANK_RTOL) -> np.ndarray:
    """U's thin SVD, the columns whose squared singular value is below ``rtol`` of the
    largest dropped."""
    ev, Q = np.linalg.eigh(U.T @ U)
    keep = ev > rtol * max(ev[-1], 1e-300)
    return U @ Q[:, keep]


def _rowdot(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", A, B)
