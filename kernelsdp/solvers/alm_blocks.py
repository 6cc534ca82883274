"""Hubs' pockets solved as PSD blocks of their own just before each check (issue #30; the
option ``pocket_blocks``; prototyped in the forty-third pass,
``benchmarks/npkl_pocket_block_proto.py``, built in in the forty-fourth; docs/npkl.md §7).

**Why.**  In the first half of a run at n = 10⁶ the check's vertex is, one check in two, a
hub's pocket: a direction of negative curvature of M(β̃) on 5–30 nodes around a node with
many pairs (:mod:`.alm_pockets`).  Line-searched in along one vector (the option
``pockets``) a pocket does not close: the packed column's Rayleigh quotient ends at V's
level but each piece's own local eigenvalue stays below it (−0.77 against −0.28 at
n = 20,000), because the hub's pair multipliers move with the pocket's weight.

**The block problem.**  For a pocket's support N (found as :func:`.alm_pockets.local_pockets`
finds it, below λ_V = min(V's level, 0)) the subproblem restricted to a PSD block D on N×N,
with the trace priced at λ_V:

    min_{D ⪰ 0}  a·⟨L_NN − λ_V·I, D⟩ + (1/S)·Σ_{p ⊂ N} [e_p(w_p + B·D_p) − e_p(w_p)]   (B.1)

(e_p the pair's envelope at (β, ρ), S the scale, a = B/S, D_p the pair's entry of D).  Its
gradient a·(M_NN(β̃(D)) − λ_V·I) is the check's matrix on N less the level, so at its
optimum λ_min(M_NN) ≥ λ_V: the pocket is closed.  (B.1) is solved by projected gradient
with FISTA's momentum, backtracking and restarts, each step one eigendecomposition of
|N|×|N| (|N| is 5–100).  λ_V ≤ 0: a positive price would leave (B.1) unbounded below.

**The step.**  The blocks' factors are packed into at most ``alm_pockets.COLUMNS`` new
columns (supports one step apart share one, as in :class:`.alm_pockets.Packing`), V widened
by them is scaled back into the ball (and shrunk to the width cap where it exceeds it), and
the new point is kept only if φ fell.  Any point in the ball is feasible, so nothing
changes for the certificate.  One search costs M(β̃) at the point, its star quotients and
the local eigenproblems (1.2–1.5 s a round at n = 100,000), plus one product where pockets
were found.

**Measured** (docs/measurements.md, "Forty-third pass" and "Forty-fourth pass"; products
to the certified 1e-3 over five seeds, without the blocks in brackets): 6,758 (6,969) at
n = 3,000, 7,683 (7,766) at 20,000, 11,787 (12,557) at 100,000; the largest count over
the smallest across the sizes is 1.51–2.05 by seed (1.68–1.94).  At 10⁶ two hours certified
3.27e-3 and 4.80e-3 (the two before them without: 5.68e-3 and 7.90e-3), with 10 and 13
pocket checks of 26 and 31 (13 of 27 without).

Its arrays (M at the point, the star quotients, an n × COLUMNS array, V widened and its
L·V) are those of :mod:`.alm_pockets`' step, which peaks at a fifth of the check's phase of
:func:`.low_rank_alm.memory_bytes_for`; the formula has no term for them.
"""

from __future__ import annotations

import numpy as np

from .alm_inner import Point, _dot, _project, evaluate, shrink
from .alm_pockets import Packing, local_pockets

#: projected-gradient iterations of one block at most, and their relative stop in value
BLOCK_ITERATIONS, BLOCK_RTOL = 300, 1e-10
#: step halvings of one iteration at most (a non-finite value never passes the test)
MAX_BACKTRACKS = 60
#: the block's eigenvalues below this share of its largest are dropped from its factor
FACTOR_RTOL = 1e-3


def pairs_inside(prob, N: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(p, a, b): the pairs with both ends in N, in the pairs' order, and their ends'
    positions in N (a ≤ b; a < b for pairs of two distinct nodes)."""
    pos = np.full(prob.n, -1, dtype=np.int64)
    pos[N] = np.arange(len(N))
    p = np.flatnonzero((pos[prob.i] >= 0) & (pos[prob.j] >= 0))
    a, b = pos[prob.i[p]], pos[prob.j[p]]
    return p, np.minimum(a, b), np.maximum(a, b)


def psd_part(D: np.ndarray) -> np.ndarray:
    """The projection of D's symmetric part onto the PSD cone."""
    ev, Q = np.linalg.eigh(0.5 * (D + D.T))
    return (Q * np.maximum(ev, 0.0)) @ Q.T


def block_problem(prob, w, beta, rho: float, N: np.ndarray, level: float):
    """(f, Lipschitz guess): f(D) → (value, gradient) of (B.1) on the support N."""
    a, B, scale = prob.a, prob.B, prob.scale
    A0 = a * (prob.L[N][:, N].toarray().astype(np.float64) - level * np.eye(len(N)))
    p, i, j = pairs_inside(prob, N)
    w0, b0, t0 = w[p], beta[p], prob.t[p]
    base = float(prob.envelope_terms(w0, b0, rho, t0)[0].sum())

    def f(D: np.ndarray) -> tuple[float, np.ndarray]:
        vals, bt = prob.envelope_terms(w0 + B * D[i, j], b0, rho, t0)
        G = A0.copy()
        np.add.at(G, (i, j), 0.5 * a * bt)
        np.add.at(G, (j, i), 0.5 * a * bt)
        return float(np.sum(A0 * D)) + (float(vals.sum()) - base) / scale, G

    degree = np.bincount(np.concatenate([i, j]), minlength=len(N)).max() if len(p) else 1
    return f, a * rho * B * max(int(degree), 1) + np.abs(A0).sum(axis=1).max()


def solve_block(prob, w, beta, rho: float, N: np.ndarray, level: float):
    """(value, factor F, iterations): (B.1) by projected gradient with momentum,
    backtracking and restarts, from D = 0; FFᵀ is the solution D without its eigenvalues
    below ``FACTOR_RTOL`` of the largest, and the value is D's."""
    f, lipschitz = block_problem(prob, w, beta, rho, N, level)
    eta = 1.0 / lipschitz
    D = np.zeros((len(N), len(N)))
    Y, tk, fD, it = D, 1.0, 0.0, 0
    for it in range(1, BLOCK_ITERATIONS + 1):
        fy, G = f(Y)
        for _ in range(MAX_BACKTRACKS):
            Dn = psd_part(Y - eta * G)
            fn, _ = f(Dn)
            step = Dn - Y
            if fn <= fy + np.sum(G * step) + 0.5 / eta * np.sum(step * step) + 1e-18:
                break
            eta *= 0.5
        if not fn <= fD:  # momentum overshot: restart from the best point
            if tk == 1.0:  # already a plain step from it: nothing more to gain
                break
            Y, tk = D, 1.0
            continue
        tn = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * tk * tk))
        Y = Dn + (tk - 1.0) / tn * (Dn - D)
        settled = it > 5 and abs(fD - fn) <= BLOCK_RTOL * max(abs(fn), 1e-300)
        D, fD, tk, eta = Dn, fn, tn, 1.5 * eta
        if settled:
            break
    ev, Q = np.linalg.eigh(D)
    keep = ev > FACTOR_RTOL * max(ev[-1], 1e-300)
    return fD, Q[:, keep] * np.sqrt(ev[keep]), it


def pocket_blocks(
    prob, pt, beta, rho: float, level: float, bt: np.ndarray | None = None
) -> tuple[np.ndarray, list]:
    """(the new columns n × k, one record per block solved): the pockets below
    min(``level``, 0) of M(β̃) at ``pt``, each solved by :func:`solve_block` on its
    support and packed; ``bt``: β̃ at ``pt`` where the caller has it."""
    if bt is None:
        _, bt = prob.envelope(pt.w, beta, rho)
    M = prob.dual_matrix(bt)
    below = min(level, 0.0)
    packing, records = Packing(M), []
    for N, _, lam in local_pockets(M, below):
        free = packing.free(N)
        if len(free) == 0:
            continue
        value, F, its = solve_block(prob, pt.w, beta, rho, N, below)
        if F.shape[1] == 0 or value >= 0 or len(free) < F.shape[1]:
            continue
        packing.place(N, free[: F.shape[1]], F)
        records.append({"nodes": len(N), "lambda": lam, "rank": F.shape[1], "iterations": its})
    S = packing.S
    return S[:, np.any(S != 0, axis=0)], records


def level_of(prob, pt, beta, rho: float, bt: np.ndarray | None = None) -> float:
    """V's Rayleigh level ⟨V, M(β̃)V⟩/‖V‖² from the point's L·V and pair entries; ``bt``:
    β̃ at ``pt`` where the caller has it."""
    if bt is None:
        _, bt = prob.envelope(pt.w, beta, rho)
    X = pt.X
    return (_dot(X, pt.LX) + float(bt @ pt.w) / prob.B) / max(_dot(X, X), 1e-300)


def take_blocks(prob, pt: Point, beta, rho: float, cap: int) -> tuple[Point, int]:
    """(the point, blocks taken): ``pt`` widened by :func:`pocket_blocks`' columns and
    scaled into the ball, where that lowers φ; else ``pt`` and 0."""
    if pt.X.shape[1] == 0:
        return pt, 0
    _, bt = prob.envelope(pt.w, beta, rho)  # one envelope for the level and the search
    S, records = pocket_blocks(prob, pt, beta, rho, level_of(prob, pt, beta, rho, bt), bt)
    if S.shape[1] == 0:
        return pt, 0
    X = _project(np.hstack([pt.X, S.astype(pt.X.dtype)]))
    new = evaluate(prob, shrink(X, cap) if X.shape[1] > cap else X, beta, rho)
    return (new, len(records)) if new.value < pt.value else (pt, 0)
