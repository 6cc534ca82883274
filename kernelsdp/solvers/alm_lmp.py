"""The Newton round's conjugate gradients preconditioned by the step before
(:mod:`.alm_newton`, option ``lmp_pairs`` of :mod:`.low_rank_alm`; issue #30, thirty-fourth
pass).

**Why.**  In the tail every truncated CG of a round stops at ``CG_MAX`` inside its region,
and a deeper Krylov space buys 1.5–3× less Frank–Wolfe gap for the same products
(seventeenth pass): each step starts its Krylov space afresh on a Hessian that has barely
changed, and resolves the same slow directions again.  Automatic preconditioning (Morales
& Nocedal, "Automatic preconditioning by limited memory quasi-Newton updating", SIAM J.
Optim. 10(4), 2000) carries them over: the pairs (d_j, H·d_j) that one step's CG computes
anyway precondition the next step's CG.

**The preconditioner** (Gratton, Sartenaer & Tshimanga, "On a class of limited memory
preconditioners for large scale linear systems with multiple right-hand sides", SIAM J.
Optim. 21(3), 2011, eq. (2.4)), with S = [d_1 … d_k], Y = [H·d_1 … H·d_k] and G = SᵀY
(symmetrised):

    P = (I − S G⁻¹ Yᵀ)(I − Y G⁻¹ Sᵀ) + S G⁻¹ Sᵀ                                   (1)

It is symmetric, positive definite where G is (a Cholesky factor of G decides; a G that has
none leaves the step unpreconditioned), and P·Y = S: the curvature along the kept
directions is undone, and P is the identity on what Y does not reach.  Applied to a tangent
vector r it costs two passes over the 2k kept arrays, [S; Y]ᵀr and then
r + S(t₁ − t₂) − Y·t₁ with t₁ = G⁻¹Sᵀr and t₂ = G⁻¹(Yᵀr − YᵀY·t₁); the result is projected
on the tangent space.  The kept pairs are the last ``pairs`` of the step before (its
directions of positive curvature); a round's first step has none, since the factor changes
between rounds (Frank–Wolfe step, thin SVD).

**The region** is P⁻¹'s norm (Conn, Gould & Toint, "Trust-Region Methods", 2000, Alg.
7.5.1, the norms by its recurrences), the Frobenius ball off span S: along a slow kept
direction the step may go further, by the inverse of its curvature.

**Memory**: the kept pairs and the pairs being collected, 2·2k arrays of (n + 1)×s in the
iterate's precision, in one buffer that the run keeps (:func:`pairs_bytes`).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg as sla

from .alm_inner import _dot
from .alm_newton import CG_KAPPA, CG_THETA, _axpy, _tangent, _to_boundary, truncated_cg


def pairs_bytes(n: int, rank: int, pairs: int, word: int = 4) -> int:
    """The buffer of :class:`StepPairs`: 2·2·``pairs`` arrays of (n + 1)×``rank``."""
    return word * 4 * pairs * (n + 1) * rank


class StepPairs:
    """The pairs (d, H·d) of the last truncated CG, and the preconditioner (1) they define
    (module docstring).  One per solve: :meth:`reset` at each round, :meth:`step` as the
    round's step (:func:`.alm_newton.newton`'s ``step``)."""

    def __init__(self, pairs: int):
        self.k_max = pairs
        self._flat = np.empty(0, dtype=np.float32)
        self._sets: list[np.ndarray] = []
        self.k = 0  # pairs kept in self._sets[0]
        self.collected = 0  # pairs collected into self._sets[1] by the current CG
        self.stats = {"steps": 0, "preconditioned": 0, "declined": 0}

    def reset(self) -> None:
        """A new round: no pairs kept (the factor changed since)."""
        self.k = 0

    def release(self) -> None:
        """Drop the buffer (a round whose pairs do not fit in memory)."""
        self._flat, self._sets, self.k = np.empty(0, dtype=np.float32), [], 0

    def _begin(self, shape: tuple[int, int], dtype) -> None:
        """The two sets' views of the run's buffer at this width: made or grown as needed
        (the kept pairs dropped then), never shrunk, so it stays at the widest width met,
        where the memory formula with it fitted."""
        size = 2 * self.k_max * shape[0] * shape[1]
        if self._flat.dtype != dtype or self._flat.size < 2 * size:
            self.release()  # before the new buffer: never two at once
            self._flat = np.empty(2 * size, dtype=dtype)
        if not self._sets or self._sets[0].shape[1] != shape[0] * shape[1]:
            self.k = 0
            self._sets = [
                self._flat[i * size : (i + 1) * size].reshape(2 * self.k_max, -1) for i in (0, 1)
            ]
        self.collected = 0

    def _collect(self, d: np.ndarray, Hd: np.ndarray) -> None:
        """Keep (d, H·d) in the set being collected (a ring of the last ``k_max``)."""
        j = self.collected % self.k_max
        new = self._sets[1]
        new[j] = d.reshape(-1)
        new[self.k_max + j] = Hd.reshape(-1)
        self.collected += 1

    def _finish(self) -> None:
        """The collected set becomes the kept one, with G's Cholesky factor and YᵀY."""
        k = min(self.collected, self.k_max)
        self._sets.reverse()
        self.k = 0
        if k == 0:
            return
        S, Y = self._sets[0][:k], self._sets[0][self.k_max : self.k_max + k]
        G = np.asarray(S @ Y.T, dtype=np.float64)
        try:
            self._chol = sla.cho_factor(0.5 * (G + G.T))
        except np.linalg.LinAlgError:
            self.stats["declined"] += 1
            return
        self._yy = np.asarray(Y @ Y.T, dtype=np.float64)
        self.k = k

    def precondition(self, x, r: np.ndarray, out: np.ndarray) -> np.ndarray:
        """P·r by (1) into ``out``, projected on x's tangent space (r itself without pairs)."""
        if self.k == 0:
            np.copyto(out, r)
            return _tangent(x, out)
        k, K = self.k, self.k_max
        S, Y = self._sets[0][:k], self._sets[0][K : K + k]
        flat = r.reshape(-1)
        t1 = sla.cho_solve(self._chol, np.asarray(S @ flat, dtype=np.float64))
        t2 = sla.cho_solve(self._chol, np.asarray(Y @ flat, dtype=np.float64) - self._yy @ t1)
        o = out.reshape(-1)
        np.copyto(o, flat)
        o += (t1 - t2).astype(r.dtype) @ S
        o -= t1.astype(r.dtype) @ Y
        return _tangent(x, out)

    def step(self, nt, x, grad: np.ndarray, delta: float, max_iter: int):
        """:func:`preconditioned_cg` by (1); the pairs of positive curvature it meets are
        kept for the next step.  As :func:`.alm_newton.newton`'s ``step``."""
        if max_iter == 0:  # the budget's last iteration: truncated_cg's gradient step
            eta, decrease, boundary = truncated_cg(nt, x, grad, delta, 0)
            return eta, decrease, boundary, delta
        self._begin(grad.shape, grad.dtype)  # a new width drops the kept pairs, before P is used
        self.stats["steps"] += 1
        self.stats["preconditioned"] += self.k > 0
        out = preconditioned_cg(nt, x, grad, delta, max_iter, self.precondition, self._collect)
        self._finish()
        return out


def preconditioned_cg(nt, x, grad, delta: float, max_iter: int, precondition, on_pair=None):
    """Steihaug–Toint's truncated CG preconditioned by ``precondition(x, r, out)`` (P·r into
    ``out``, symmetric positive definite on x's tangent space), the region ‖η‖_{P⁻¹} ≤ Δ
    (Conn, Gould & Toint, Alg. 7.5.1, the norms by its recurrences), at most ``max_iter``
    Hessian products; ``on_pair(d, H·d)`` hears each direction of positive curvature.
    Returns (η, the model's decrease, whether η reached the boundary, ‖η‖_{P⁻¹}), as
    :func:`.alm_newton.newton`'s ``step``; the #30 prototypes' preconditioners
    (benchmarks/npkl_step_proto.py) use it too."""
    eta = nt.work(f"z{1 - x.slot}", grad.shape, grad.dtype)
    Heta, r, z = (nt.work(k, grad.shape, grad.dtype) for k in ("cg_Heta", "cg_r", "cg_z"))
    eta.fill(0)
    Heta.fill(0)
    np.copyto(r, grad)
    r0 = math.sqrt(_dot(r, r))
    rz = _dot(r, precondition(x, r, z))
    d = np.negative(z, out=nt.work("cg_d", grad.shape, grad.dtype))
    ee, ed, dd = 0.0, 0.0, rz  # ‖η‖², ⟨η, d⟩ and ‖d‖² in P⁻¹'s norm
    for _ in range(max_iter):
        Hd = nt.hessian(x, d)
        dHd = _dot(d, Hd)
        if dHd > 0 and on_pair is not None:
            on_pair(d, Hd)
        alpha = rz / dHd if dHd > 0 else math.inf
        if dHd <= 0 or ee + 2 * alpha * ed + alpha * alpha * dd >= delta * delta:
            tau = _to_boundary(ee, ed, dd, delta)
            _axpy(tau, d, eta)
            _axpy(tau, Hd, Heta)
            return eta, -(_dot(grad, eta) + 0.5 * _dot(eta, Heta)), True, delta
        _axpy(alpha, d, eta)
        _axpy(alpha, Hd, Heta)
        ee += 2 * alpha * ed + alpha * alpha * dd
        _tangent(x, _axpy(alpha, Hd, r))  # re-projected against drift
        if math.sqrt(_dot(r, r)) <= r0 * min(r0**CG_THETA, CG_KAPPA):
            break
        rz_new = _dot(r, precondition(x, r, z))
        beta = rz_new / rz
        ed, dd = beta * (ed + alpha * dd), rz_new + beta * beta * dd
        d *= beta
        d -= z
        rz = rz_new
    return eta, -(_dot(grad, eta) + 0.5 * _dot(eta, Heta)), False, math.sqrt(max(ee, 0.0))
