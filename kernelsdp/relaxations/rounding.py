"""Rounding: from a relaxed solution (x, X) to candidate points of the QCQP, chosen from its
declarations, each then repaired into the feasible set the same way.

Proposals (``proposals``):

- ``first_moment``: the lifted x itself (√diag Z for the homogeneous simplex lifting);
- ``sqrt_diag``: x_i = √X_ii (seed 003's rounding for SDP₁; x ≥ 0 problems);
- ``leading_eigenvector``: the top eigenvector v of Y = [[1, xᵀ], [x, X]] scaled to v₀ = 1
  (√λ₁v₁ of Z for the homogeneous form): exact when Y has rank one;
- ``gaussian``: ξ ~ N(x, X − xxᵀ), the distribution whose first two moments are the
  relaxation's (Goemans–Williamson style; N(0, Z) for the homogeneous form);
- ``hyperplane`` (±1 and binary variables): Goemans & Williamson's random hyperplane
  (J. ACM 42, 1995) on the homogenised ±1 moments W = TYTᵀ (binary x ↦ 2x − 1):
  ξ ~ N(0, W), s_i = sign(ξ_iξ₀);
- ``threshold`` (binary): x_i ≥ ½, and randomised rounding x_i = 1 with probability x_i
  (Raghavan & Thompson 1987).

All random draws come from one ``numpy.random.Generator`` seeded by ``seed``.  Repair
(``repair``): ±1 variables to their sign, binary ones to {0, 1} at ½, every variable
clipped to its box, projection onto the simplex (Duchi et al. 2008) for a standard QP and
onto A x = b (alternating with the box) where there are linear equalities.  Anything the
repair leaves infeasible (quadratic constraints, G x ≤ h) is left to the local polish.
"""

from __future__ import annotations

import numpy as np

from .qcqp import QCQP
from .sdp1 import simplex_qcqp

#: alternating projections between A x = b and the box
PROJECTION_ROUNDS = 30


def to_simplex(v: np.ndarray) -> np.ndarray:
    """|v| / 1ᵀ|v| (the barycentre when v = 0): the simplex map of seed 003's rounding."""
    a = np.abs(np.asarray(v, dtype=float))
    s = a.sum()
    return a / s if s > 0 else np.full(a.size, 1.0 / a.size)


def project_simplex(v: np.ndarray) -> np.ndarray:
    """The Euclidean projection onto {x ≥ 0, 1ᵀx = 1} (Duchi, Shalev-Shwartz, Singer &
    Chandra, ICML 2008, Fig. 1)."""
    v = np.asarray(v, dtype=float)
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    k = np.flatnonzero(u - css / np.arange(1, v.size + 1) > 0)[-1]
    return np.maximum(v - css[k] / (k + 1), 0.0)


def _psd_factor(S: np.ndarray) -> np.ndarray:
    w, V = np.linalg.eigh((S + S.T) / 2)
    return V * np.sqrt(np.maximum(w, 0.0))


def _spin_moments(q: QCQP, x: np.ndarray, X: np.ndarray) -> np.ndarray:
    """W = T Y Tᵀ with T: [1; x] ↦ [1; s], s_i = 2x_i − 1 (binary), x_i otherwise."""
    d = q.d
    Y = np.block([[np.ones((1, 1)), x[None]], [x[:, None], X]])
    T = np.eye(d + 1)
    T[q.binary + 1, q.binary + 1] = 2.0
    T[q.binary + 1, 0] = -1.0
    return T @ Y @ T.T


def _integer_proposals(q: QCQP, x, X, draws: int, rng) -> dict[str, list[np.ndarray]]:
    out: dict[str, list[np.ndarray]] = {}
    F = _psd_factor(_spin_moments(q, x, X))
    pts = []
    for _ in range(draws):
        xi = F @ rng.standard_normal(F.shape[1])
        s = np.sign(xi[1:] * (xi[0] if xi[0] != 0 else 1.0))
        p = x.copy()
        p[q.spin] = s[q.spin]
        p[q.binary] = (s[q.binary] + 1) / 2
        pts.append(p)
    out["hyperplane"] = pts
    if q.binary.size:
        p = x.copy()
        p[q.binary] = (x[q.binary] >= 0.5).astype(float)
        rand = []
        for _ in range(draws):
            r = x.copy()
            r[q.binary] = (rng.random(q.binary.size) < np.clip(x[q.binary], 0, 1)).astype(float)
            rand.append(r)
        out["threshold"] = [p, *rand]
    return out


def proposals(
    q: QCQP, x: np.ndarray, X: np.ndarray, homogeneous: bool, draws: int = 64, seed: int = 0
) -> dict[str, list[np.ndarray]]:
    """Candidate points by scheme (module docstring), before repair."""
    x, X = np.asarray(x, dtype=float), (np.asarray(X, dtype=float) + np.asarray(X).T) / 2
    out: dict[str, list[np.ndarray]] = {"first_moment": [x.copy()]}
    if q.nonneg:
        out["sqrt_diag"] = [np.sqrt(np.maximum(np.diag(X), 0.0))]
    if homogeneous:
        w, V = np.linalg.eigh(X)
        v = V[:, -1] * np.sqrt(max(w[-1], 0.0))
        out["leading_eigenvector"] = [v if v.sum() >= 0 else -v]
    else:
        Y = np.block([[np.ones((1, 1)), x[None]], [x[:, None], X]])
        v = np.linalg.eigh(Y)[1][:, -1]
        if abs(v[0]) > 1e-12:
            out["leading_eigenvector"] = [v[1:] / v[0]]
    rng = np.random.default_rng(seed)
    F = _psd_factor(X if homogeneous else X - np.outer(x, x))
    mean = np.zeros_like(x) if homogeneous else x
    out["gaussian"] = [mean + F @ rng.standard_normal(F.shape[1]) for _ in range(draws)]
    if q.integer.size and not homogeneous:
        out.update(_integer_proposals(q, x, X, draws, rng))
    return out


def repair(q: QCQP, v: np.ndarray) -> np.ndarray:
    """Round the declared variables, clip to the box, project onto the simplex or A x = b."""
    p = np.asarray(v, dtype=float).copy()
    p[q.spin] = np.where(p[q.spin] >= 0, 1.0, -1.0)
    p[q.binary] = (p[q.binary] >= 0.5).astype(float)
    p = np.clip(p, q.lb, q.ub)
    if q.A is None:
        return p
    if simplex_qcqp(q) is None:
        return project_simplex(p)
    free = np.setdiff1d(np.arange(q.d), q.integer)
    if not free.size:
        return p
    A = q.A[:, free]
    pinv = np.linalg.pinv(A)
    for _ in range(PROJECTION_ROUNDS):
        r = q.A @ p - q.b
        if np.max(np.abs(r)) <= 1e-12 * (1 + np.max(np.abs(q.b))):
            break
        p[free] = np.clip(p[free] - pinv @ r, q.lb[free], q.ub[free])
    return p
