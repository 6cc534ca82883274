"""Strictly feasible points near the returned one, without a re-solve: the cheap way off a
cone's boundary, tried before :mod:`.perturbed`.

An interior-point solver stops on the boundary of the cones up to its barrier parameter: a
singular PSD block keeps eigenvalues of 1e-12, fewer than the rounding of a proof can
afford (:mod:`.ends`).  Both sides are mended the same way, by a convex combination with a
*central* point of the same linear rows:

- primal: x(t) = x₀ + t·x₁, the least-squares solution of A_K x + b_K = t·e subject to the
  equalities A_Z x + b_Z = 0 (e: the cones' identity, :func:`.perturbed.cone_identity`);
- dual: y(t) = y₀ + t·w, the least-norm solution of Aᵀy = c + Px̂ nearest t·e.

Both are affine in t, so min_j λ_min of their blocks is concave in t and a short search
finds its best value η.  If η > 0 the central point is strictly feasible, and for the
returned point z (x̂ or ŷ) outside its cone by τ, the combination (1 − θ)z + θ·z_c with
θ ≥ τ / (τ + η) lies inside (λ_min is concave) and keeps every linear row (both points keep
it); the objective moves by about θ·(f(z_c) − f(z)).  The combination is then proven by
:func:`.ends.proven_upper` / :func:`.ends.proven_lower` like any other point.  Where η ≤ 0
— the problem has no strictly feasible point on that side (SDPLIB's gpp, hinf, qap) — there
is nothing to combine with, and the end says so.
"""

from __future__ import annotations

import numpy as np

from .canonical import CanonicalForm
from .cones import rows_min_eig
from .normal_equations import ridged_solver, weighted_gram, working_matrix
from .perturbed import cone_identity

#: weight of the equality rows in the primal least-squares problem
EQUALITY_WEIGHT = 1e4
#: t searched over scale·10^k for these k, then REFINE_ROUNDS times over REFINE_POINTS
#: evenly spaced points strictly between the best one's neighbours (each set of points one
#: stacked eigensolve; 8 + 2·5 eigensolves, where the golden section took up to 16)
T_GRID = tuple(range(-6, 7, 2))
REFINE_POINTS = 5
REFINE_ROUNDS = 2
#: the ridge of the least-squares systems, relative to their largest diagonal entry
RIDGE = 1e-13
#: θ tried: THETA_GROWTH × the least θ that the measured shortfall needs
THETA_GROWTH = (2.0, 20.0, 200.0)


def _curve_min(form: CanonicalForm, v0: np.ndarray, v1: np.ndarray, dual: bool):
    """t ↦ min_j λ_min of the blocks of v0 + t·v1, for an array of t at once."""

    def curve(ts: np.ndarray) -> np.ndarray:
        return rows_min_eig(form, v0[None, :] + ts[:, None] * v1[None, :], dual)

    return curve


def _ratios(loss, ts: np.ndarray, etas: np.ndarray) -> np.ndarray:
    losses = np.maximum(loss(ts), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(etas > 0, losses / np.where(etas > 0, etas, 1.0), np.inf)


def _best_t(curve, loss, scale: float, enough: float = 0.0) -> tuple[float, float]:
    """(t, η(t)) for the t ≥ 0 with η(t) = curve(t) > 0 that makes the combination cheapest,
    loss(t)/η(t) (both of an array of t) — quasi-convex where the loss is affine (η is
    concave): a grid of decades, then twice an even grid between the best point's
    neighbours (resolution 1/36 of the first bracket, where four golden-section steps
    reached 0.15), each grid one call of ``curve`` — the refinement skipped once the best
    ratio is at most ``enough`` (the combination's cost would be negligible already)."""
    ts = np.array([0.0] + [scale * 10.0**k for k in T_GRID])
    etas = curve(ts)
    vals = _ratios(loss, ts, etas)
    i = int(np.argmin(vals))
    if not np.isfinite(vals[i]):
        return 0.0, -np.inf
    if vals[i] == 0:  # nothing to lose (a feasibility problem): the most central t
        free = np.flatnonzero(vals == 0)
        j = free[int(np.argmax(etas[free]))]
        return float(ts[j]), float(etas[j])
    for _ in range(REFINE_ROUNDS):  # the best point's neighbours bracket the minimum
        if np.min(vals) <= enough:
            break
        order = np.argsort(ts)
        ts, etas, vals = ts[order], etas[order], vals[order]
        i = int(np.argmin(vals))
        lo, hi = ts[max(i - 1, 0)], ts[min(i + 1, ts.size - 1)]
        fine = np.linspace(lo, hi, REFINE_POINTS + 2)[1:-1]
        fine_etas = curve(fine)
        ts, etas = np.concatenate([ts, fine]), np.concatenate([etas, fine_etas])
        vals = np.concatenate([vals, _ratios(loss, fine, fine_etas)])
    j = int(np.argmin(vals))
    return float(ts[j]), float(etas[j])


def central_primal(
    form: CanonicalForm, x: np.ndarray, scale: float, enough: float = 0.0
) -> tuple[np.ndarray, float] | None:
    """(x_c, η): a point keeping the equalities whose cone blocks have λ_min ≥ η > 0
    (estimated; the proof comes later), or None (``enough``: :func:`_best_t`'s)."""
    A, b = working_matrix(form), form.b
    e = cone_identity(form)
    w = np.ones(A.shape[0])
    for blk in form.blocks:
        if blk.kind == "zero":
            w[blk.rows] = EQUALITY_WEIGHT**2
    solve = ridged_solver(weighted_gram(A, w), RIDGE)
    if solve is None:
        return None
    x0 = solve(A.T @ (w * -b))
    x1 = solve(A.T @ (w * e))
    if not (np.all(np.isfinite(x0)) and np.all(np.isfinite(x1))):
        return None

    curve = _curve_min(form, A @ x0 + b, A @ x1, dual=False)
    # f(x₀ + t·x₁) − f(x) = a₀ + a₁t + a₂t², for every t of a grid at once
    Px1 = np.zeros_like(x1) if form.P is None else form.P @ x1
    a0 = form.objective(x0) - form.objective(x)
    a1, a2 = float(form.c @ x1 + x0 @ Px1), 0.5 * float(x1 @ Px1)
    t, eta = _best_t(curve, lambda ts: a0 + a1 * ts + a2 * ts**2, scale, enough)
    return (x0 + t * x1, eta) if eta > 0 else None


def central_dual(
    form: CanonicalForm,
    x: np.ndarray,
    y: np.ndarray,
    g: np.ndarray,
    scale: float,
    enough: float = 0.0,
) -> tuple[np.ndarray, float] | None:
    """(y_c, η): a stationary dual point (Aᵀy = g) whose blocks have λ_min ≥ η > 0 in K*
    (estimated), or None (``enough``: :func:`_best_t`'s)."""
    A = working_matrix(form)
    e = cone_identity(form, dual=True)
    winv = np.ones(A.shape[0])
    for blk in form.blocks:
        if blk.kind == "zero":
            winv[blk.rows] = EQUALITY_WEIGHT**2
    solve = ridged_solver(weighted_gram(A, winv), RIDGE)
    if solve is None:
        return None
    y0 = winv * (A @ solve(np.asarray(g, dtype=float)))
    w = e - winv * (A @ solve(A.T @ e))
    if not (np.all(np.isfinite(y0)) and np.all(np.isfinite(w))):
        return None

    curve = _curve_min(form, y0, w, dual=True)
    # q(y) − q(y₀ + t·w) = q(y) − q(y₀) + t·bᵀw: affine in t
    drop, slope = form.dual_objective(x, y) - form.dual_objective(x, y0), float(form.b @ w)
    t, eta = _best_t(curve, lambda ts: drop + slope * ts, scale, enough)
    return (y0 + t * w, eta) if eta > 0 else None


def enough_ratio(shortfall: float, negligible: float) -> float:
    """The ratio loss/η at which a combination's cost is at most ``negligible`` at the first
    θ of :func:`thetas` (θ·loss ≤ THETA_GROWTH[0]·shortfall/η·loss); a larger θ, tried only
    where that one fails, costs up to THETA_GROWTH's spread more."""
    if not (shortfall > 0 and negligible > 0):
        return 0.0
    return negligible / (THETA_GROWTH[0] * shortfall)


def thetas(shortfall: float, eta: float) -> list[float]:
    """The weights θ of the central point to try, smallest first (at most 1)."""
    base = shortfall / (shortfall + eta)
    return sorted({min(1.0, base * k) for k in THETA_GROWTH})
