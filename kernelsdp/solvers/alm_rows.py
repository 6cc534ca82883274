"""The rows of the hubs' pockets, each minimised exactly before a round of Newton steps
(:mod:`.low_rank_alm`; issue #30, twenty-eighth pass; docs/npkl.md §7).

**Why.**  A check whose vertex is a hub's pocket (carried by fewer than ``LOCALISED`` nodes
and below V's level) is followed by a Frank–Wolfe step that fills the hub; the Newton
steps then drain it again, its pairs go back to the box's end and the pocket reopens
(eleventh pass): at n = 100,000 (seed 4) 38 of 59 checks were pockets, 12 of them on one
node and 7 on another, and the pocket phase, which grows with n, ended at check 49.  The
Newton model sees no curvature in a pair at the box's end, and its trust region is global,
so a step good for the bulk carries a hub's few rows across the hinge's band (twenty-third
pass).  Freezing the rows instead (``hubrows-k``, ``rowmask-k``) left the hubs where the
checks could not see them, or, with a fixed number of rows, cost 13,608 products at 3,000.

**What.**  The run keeps the rows that carried its pockets: at each such check those whose
squares make ``POCKET_SHARE`` of the vertex's, if at most ``POCKET_ROWS`` do
(:func:`pocket_rows`).  Before each round of Newton steps, each kept row i is set in turn
(one Gauss–Seidel sweep) to the minimiser, over that row with the others fixed, of

    ψ_i(v) = (a·L_ii + ν)·‖v‖² + 2a·v·c_i + (1/s)·Σ_{p∋i} e_p(B·v·v_{j(p)}),

c_i = Σ_{k≠i} L_ik·v_k and ν = max(0, −⟨V, ∇φ⟩/2) the ball's multiplier when ‖V‖_F = 1
(0 inside it): φ_ρ's restriction to row i with the ball's constraint priced by its
multiplier.  ψ_i is convex, so a semismooth Newton method with Armijo's backtracking finds
its minimum; its Hessian 2(a·L_ii + ν)·I + (B²/s)·Σ_p β̃'_p·v_j·v_jᵀ is a multiple of I plus
the row's few pairs, solved by the Woodbury identity in O(s·d²) for d pairs.  Afterwards V
is scaled back into the ball.  The rows are not frozen: the Newton steps move them as
before, from where the hub is filled.  No product with L or the pairs is counted or made:
⟨V, ∇φ⟩ comes from L·V and the pair values the point carries, and L·V is updated on the
kept rows' columns of L only.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .alm_inner import Point, _dot, evaluate
from .alm_newton import SLOPE_STEP
from .alm_problem import ScaledNPKL

#: a pocket's rows: those whose squares make this share of the vertex's, at most POCKET_ROWS
POCKET_SHARE, POCKET_ROWS = 0.9, 32
#: each row's semismooth Newton: iterations at most, the gradient's tolerance relative to
#: its first, Armijo's constant, and step halvings at most
ROW_ITERATIONS, ROW_TOL, ARMIJO, HALVINGS = 20, 1e-8, 1e-4, 30


def pocket_rows(vertex: np.ndarray) -> np.ndarray:
    """The rows that carry a pocket's vertex: by decreasing square, the fewest that make
    ``POCKET_SHARE`` of its squared norm; none when that takes more than ``POCKET_ROWS``
    (a spread vertex, or one on too many rows to be a hub's: at n ≤ 200 every vertex
    counts as localised)."""
    sq = np.asarray(vertex, dtype=np.float64) ** 2
    k = min(POCKET_ROWS, sq.size)
    top = np.argpartition(sq, -k)[-k:]
    top = top[np.argsort(-sq[top], kind="stable")]
    share = np.cumsum(sq[top]) / max(float(sq.sum()), 1e-300)
    if share[-1] < POCKET_SHARE:
        return np.empty(0, dtype=np.int64)
    return top[: int(np.searchsorted(share, POCKET_SHARE)) + 1]


class PairIndex:
    """The pairs at each row: row i's are ``pair[pointer[i]:pointer[i + 1]]`` and their
    other ends ``partner[...]`` (built once for a problem)."""

    def __init__(self, prob: ScaledNPKL):
        ends = np.concatenate([prob.i, prob.j])
        order = np.argsort(ends, kind="stable")
        self.pair = np.concatenate([np.arange(prob.m), np.arange(prob.m)])[order]
        self.partner = np.concatenate([prob.j, prob.i])[order]
        self.pointer = np.searchsorted(ends[order], np.arange(prob.n + 1))

    def at(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        sl = slice(self.pointer[i], self.pointer[i + 1])
        return self.pair[sl], self.partner[sl]


def ball_multiplier(prob: ScaledNPKL, pt: Point, beta: np.ndarray, rho: float) -> float:
    """ν = max(0, −⟨V, ∇φ⟩/2) at a point on the sphere (0 inside the ball), where
    ⟨V, ∇φ⟩ = 2a·(⟨V, LV⟩ + Σ_p β̃_p·w_p/B) from what the point carries."""
    X = pt.X
    if _dot(X, X) < 1.0 - 1e-6:
        return 0.0
    _, bt = prob.envelope(pt.w, beta, rho)
    vg = 2.0 * prob.a * (_dot(X, pt.LX) + float(np.dot(bt, pt.w)) / prob.B)
    return max(0.0, -vg / 2.0)


def sweep_rows(
    prob: ScaledNPKL, pt: Point, beta: np.ndarray, rho: float, rows: np.ndarray, index: PairIndex
) -> Point:
    """One Gauss–Seidel sweep over ``rows`` (module docstring), in the point's own arrays:
    V's rows set, V scaled back into the ball, L·V updated on the rows' neighbours only (L
    is symmetric); the returned point holds them with their pair values and φ.  In place,
    so that no second n×s point lives through the round that follows (the caller still
    holds this one)."""
    if rows.size == 0 or pt.X.shape[1] == 0:
        return pt
    nu = ball_multiplier(prob, pt, beta, rho)
    X, LX = pt.X, pt.LX
    old = X[rows].astype(np.float64)
    for i in rows:
        X[i] = row_minimiser(prob, X, int(i), beta, rho, nu, index)
    L_rows = prob.L[rows]
    near = np.unique(L_rows.indices)
    Lt = sp.csr_matrix(L_rows, dtype=np.float64).T.tocsr()
    LX[near] += (Lt[near] @ (X[rows].astype(np.float64) - old)).astype(LX.dtype)
    norm2 = _dot(X, X)
    if norm2 > 1.0:
        X *= 1.0 / np.sqrt(norm2)
        LX *= 1.0 / np.sqrt(norm2)
    return evaluate(prob, X, beta, rho, LX)


def row_minimiser(
    prob: ScaledNPKL, X: np.ndarray, i: int, beta, rho: float, nu: float, index: PairIndex
) -> np.ndarray:
    """Row i's minimiser of ψ_i from its current value (semismooth Newton, Armijo)."""
    pairs, partners = index.at(i)
    U = X[partners].astype(np.float64)
    lo, hi = prob.L.indptr[i], prob.L.indptr[i + 1]
    cols, vals = prob.L.indices[lo:hi], prob.L.data[lo:hi].astype(np.float64)
    off = cols != i
    c = vals[off] @ X[cols[off]].astype(np.float64)
    a, B, S = prob.a, prob.B, prob.scale
    q = a * float(vals[~off].sum()) + nu
    t3, b3 = np.tile(prob.t[pairs], 3), np.tile(beta[pairs], 3)
    k = pairs.size

    def psi(v):
        # e_p and β̃_p at w, and at w ± h for β̃'s slope, in one call
        w = B * (U @ v)
        h = SLOPE_STEP * (1.0 + np.abs(w))
        val, bt = prob.envelope_terms(np.concatenate([w, w + h, w - h]), b3, rho, t3)
        slope = (bt[k : 2 * k] - bt[2 * k :]) / (2 * h)
        return q * (v @ v) + 2 * a * (v @ c) + float(val[:k].sum()) / S, bt[:k], slope

    v = X[i].astype(np.float64)
    f, bt, slope = psi(v)
    g0 = None
    for _ in range(ROW_ITERATIONS):
        g = 2 * q * v + 2 * a * c + (B / S) * (U.T @ bt)
        gn = float(np.linalg.norm(g))
        g0 = gn if g0 is None else g0
        if gn <= ROW_TOL * max(g0, 1e-300):
            break
        d = -_solve_row_hessian(2 * q, (B * B / S) * np.maximum(slope, 0.0), U, g)
        step, gd = 1.0, float(g @ d)
        for _ in range(HALVINGS):
            f_new, bt_new, slope_new = psi(v + step * d)
            if f_new <= f + ARMIJO * step * gd:
                break
            step /= 2
        else:
            break  # no decrease along d within the halvings: v is as good as it gets
        v = v + step * d
        f, bt, slope = f_new, bt_new, slope_new
    return v


def _solve_row_hessian(c: float, D: np.ndarray, U: np.ndarray, g: np.ndarray) -> np.ndarray:
    """(c·I + Uᵀ·diag(D)·U)⁻¹·g by the Woodbury identity (D ≥ 0, U: d×s); c = 0 (a row off
    the graph inside the ball, its pairs at the box's ends) gives g itself, a gradient step
    whose length the line search sets."""
    if c <= 0.0:
        return g
    R = np.sqrt(D)[:, None] * U
    small = c * np.eye(R.shape[0]) + R @ R.T
    return (g - R.T @ np.linalg.solve(small, R @ g)) / c
