"""TLA's own interval ends as proofs in floating point (seed 004; issue #26).

- **MWC-TLA's closed form** (max ⟨M, Q⟩ over M ⪰ 0, tr M ≤ 1, m = 0): the lower end is the
  value at M′ = UUᵀ, U from M's positive eigenpairs (PSD exactly) scaled to a trace proven
  ≤ 1, rounded down; the upper end is λ_max(Q)₊ from a verified λ_min(−Q), rounded up.
- **LMTL's saddle point** (eq. 2, t* = min_M ω_C(K_M)): the lower end is Lanckriet's
  2·1ᵀα − σ_max(G(α))² at an exactly feasible α″ — α clipped to [0, C] (exact) and moved
  on one interior entry by the exact residual r = yᵀα (``math.fsum``, correctly rounded),
  never formed: 1ᵀα″ ≥ 1ᵀα − |r| and σ_max(G(α″)) ≤ σ_max(G(α)) + |r|·‖F_k‖_F — with
  σ_max(G)² ≤ λ_max(GᵀG) verified and G's rounding counted.  The upper end is the SVM
  primal ‖w‖² + 2C Σ(1 − yᵢ(Bᵢw + b))₊ at (w, b) for the features B of a PSD M′ with a trace
  proven ≤ 1: any (w, b) bounds ω_C(K_M′) ≥ t* from above; each hinge is maximised over
  its argument's rounding interval.
"""

from __future__ import annotations

import math

import numpy as np

from ..certificate.verdict import ESTIMATE, PROOF
from ..linalg.rounding import UNIT_ROUNDOFF, down, gamma, sum_up, up
from ..linalg.verified import verified_min_eig


def psd_factor_in_spectraplex(M: np.ndarray) -> np.ndarray:
    """R with RRᵀ ⪰ 0 exactly and tr(RRᵀ) ≤ 1 proven: M's positive eigenpairs, shrunk."""
    M = np.asarray(M, dtype=float)
    w, V = np.linalg.eigh((M + M.T) / 2)
    keep = w > 0
    R = V[:, keep] * np.sqrt(w[keep])
    t = sum_up(R * R)
    if t > 1.0:
        R = R * (math.sqrt(1.0 / t) * (1 - 8 * UNIT_ROUNDOFF))
    return R


def lambda_max_up(Q: np.ndarray) -> tuple[float, bool, str]:
    """(an upper bound on λ_max(Q), proof, why not)."""
    r = verified_min_eig(-np.asarray(Q, dtype=float))
    return up(-r.lower), r.proof, r.note


def mwc_ends(Q: np.ndarray, M: np.ndarray, m: np.ndarray) -> tuple:
    """((lower, label, why), (upper, label, why)) for the closed form's (m, M)."""
    R = psd_factor_in_spectraplex(M)
    QR = Q @ R
    value = float(np.sum(R * QR))
    err = gamma(Q.shape[0] * max(R.shape[1], 1) + Q.shape[0]) * float(
        np.sum(np.abs(R) * (np.abs(Q) @ np.abs(R)))
    )
    lo = (
        (down(value - up(err)), PROOF, "")
        if not np.any(np.asarray(m))
        else (value, ESTIMATE, "m ≠ 0: the lifted point is not proven feasible")
    )
    top, proof, why = lambda_max_up(Q)
    return lo, (max(top, 0.0), PROOF if proof else ESTIMATE, why)


def _feasible_alpha(y: np.ndarray, alpha: np.ndarray, C: float, F: np.ndarray):
    """(α clipped, |r| bound, ‖F_k‖_F of the moved entry) or None when no interior entry
    can take the residual."""
    a = np.clip(np.asarray(alpha, dtype=float), 0.0, C)
    r = math.fsum((y * a).tolist())
    r = 0.0 if r == 0 else up(abs(r) * (1 + 2 * UNIT_ROUNDOFF))
    if r == 0:
        return a, 0.0, 0.0
    room = np.minimum(a, C - a)
    k = int(np.argmax(room))
    if room[k] < r:
        return None
    return a, r, float(np.linalg.norm(F[k]))


def lmtl_lower(f, alpha: np.ndarray) -> tuple[float, str, str]:
    """(lower, label, why): Lanckriet's bound at an exactly feasible α″ near α."""
    got = _feasible_alpha(f.y, alpha, f.C, f.F)
    if got is None:
        return f.svm_dual_bound(alpha), ESTIMATE, "yᵀα = 0 cannot be met on an interior entry"
    a, r, fk = got
    ya = f.y * a
    G = f.mixed_gradient(a)  # D × J, sums over n
    G_err = gamma(f.n_points) * np.einsum("njd,n->dj", np.abs(f.F), np.abs(ya))
    GtG = G.T @ G
    E = np.abs(G_err).T @ (np.abs(G) + np.abs(G_err)) * 2 + gamma(G.shape[0]) * (
        np.abs(G).T @ np.abs(G)
    )
    v = verified_min_eig(-GtG, E)
    if not v.proof:
        return f.svm_dual_bound(alpha), ESTIMATE, v.note
    sigma = up(math.sqrt(max(up(-v.lower), 0.0)) + r * fk * (1 + 4 * UNIT_ROUNDOFF))
    ones_low = down(float(np.sum(a)) * (1 - gamma(a.size))) - r  # 1ᵀα″ ≥ this
    return down(2 * ones_low - up(sigma * sigma)), PROOF, ""


def lmtl_upper(f, M: np.ndarray, alpha_M: np.ndarray) -> tuple[float, str, str]:
    """(upper, label, why): the SVM primal at (w, b) for a PSD M′ in the spectraplex."""
    R = psd_factor_in_spectraplex(M)
    B = np.einsum("njd,jk->nkd", f.F, R).reshape(f.n_points, -1)
    B_abs = np.einsum("njd,jk->nkd", np.abs(f.F), np.abs(R)).reshape(f.n_points, -1)
    w = B.T @ (f.y * np.asarray(alpha_M, dtype=float))
    s = B @ w
    s_err = gamma(R.shape[0]) * B_abs @ np.abs(w) + gamma(w.size) * np.abs(B) @ np.abs(w)
    b = _best_bias(s, f.y)
    worst = np.maximum(
        0.0, 1 - f.y * (s + b) + s_err + 4 * UNIT_ROUNDOFF * (np.abs(s) + abs(b) + 1)
    )
    return up(sum_up(w * w) + up(2 * f.C * sum_up(worst))), PROOF, ""


def _best_bias(s: np.ndarray, y: np.ndarray) -> float:
    """The b at which :func:`tla._best_bias_hinge` attains its minimum."""
    bps = y - s
    order = np.argsort(bps)
    slope = -np.sum(y > 0) + np.cumsum(np.ones(len(y)))
    k = min(int(np.searchsorted(slope, 0.0)), len(y) - 1)
    return float(bps[order][k])
