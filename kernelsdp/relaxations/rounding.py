"""Rounding: from a relaxed solution (x, X) back to a point of the original problem.

Each scheme proposes a point; ``feasible`` (problem-specific, e.g. the simplex
normalisation) maps it into the feasible set; ``best_rounding`` keeps the proposal with the
lowest objective among those that are feasible to tolerance.

- ``sqrt_diag``: x_i = √X_ii (seed 003's rounding for SDP₁), exact when X = xxᵀ, x ≥ 0;
- ``first_moment``: the lifted x itself (Shor form only);
- ``leading_eigenvector``: √λ₁·v₁ of X, sign chosen so the sum is positive;
- ``randomized``: draws ξ ~ N(x, X − xxᵀ) (Goemans–Williamson style; N(0, X) for the
  homogeneous form), each mapped by ``feasible``, the best kept.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .qcqp import QCQP

FEASIBILITY_TOL = 1e-7
SCHEMES = ("sqrt_diag", "first_moment", "leading_eigenvector", "randomized")


def to_simplex(v: np.ndarray) -> np.ndarray:
    """|v| / 1ᵀ|v| (the barycentre when v = 0): the simplex map used for StQP rounding."""
    a = np.abs(np.asarray(v, dtype=float))
    s = a.sum()
    return a / s if s > 0 else np.full(a.size, 1.0 / a.size)


def _psd_factor(S: np.ndarray) -> np.ndarray:
    w, V = np.linalg.eigh((S + S.T) / 2)
    return V * np.sqrt(np.maximum(w, 0.0))


def proposals(x: np.ndarray, X: np.ndarray, homogeneous: bool, draws: int = 32,
              seed: int = 0) -> dict[str, list[np.ndarray]]:
    out: dict[str, list[np.ndarray]] = {"sqrt_diag": [np.sqrt(np.maximum(np.diag(X), 0.0))]}
    if not homogeneous:
        out["first_moment"] = [np.asarray(x, dtype=float)]
    w, V = np.linalg.eigh((X + X.T) / 2)
    v = V[:, -1] * np.sqrt(max(w[-1], 0.0))
    out["leading_eigenvector"] = [v if v.sum() >= 0 else -v]
    rng = np.random.default_rng(seed)
    F = _psd_factor(X if homogeneous else X - np.outer(x, x))
    mean = np.zeros(len(x)) if homogeneous else np.asarray(x, dtype=float)
    out["randomized"] = [mean + F @ rng.standard_normal(F.shape[1]) for _ in range(draws)]
    return out


def best_rounding(qcqp: QCQP, x: np.ndarray, X: np.ndarray, homogeneous: bool,
                  feasible: Callable[[np.ndarray], np.ndarray] | None = None,
                  schemes=SCHEMES, draws: int = 32, seed: int = 0) -> tuple[np.ndarray, str, dict]:
    """The best feasible proposal: (point, scheme name, {scheme: best value})."""
    feasible = feasible or (lambda v: v)
    best, best_name, values = None, "", {}
    for name, cands in proposals(x, X, homogeneous, draws, seed).items():
        if name not in schemes:
            continue
        for c in cands:
            p = feasible(c)
            if qcqp.violation(p) > FEASIBILITY_TOL:
                continue
            val = qcqp.value(p)
            values[name] = min(values.get(name, np.inf), val)
            if best is None or val < qcqp.value(best):
                best, best_name = p, name
    return best, best_name, values
