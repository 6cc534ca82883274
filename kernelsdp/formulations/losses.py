"""Pair losses of NPKL (seed 000 eq. 4; seed 001 adds ℓ2 and ℓ1).

Each loss is written per pair as h(z) = C·ℓ(·) of the kernel entry z = K_ij with target
T = T_ij ∈ {−1, +1}:

================  =============================  ==========================================
name              h(z)                           conjugate h*(β) (domain)
================  =============================  ==========================================
linear            −C·T z                         0                 (β = −C·T)
hinge             C·max(0, 1 − T z)              β T               (β T ∈ [−C, 0])
squared-hinge     (C/2)·max(0, 1 − T z)²         −a + a²/(2C), a = −βT  (a ≥ 0)
l2                (C/2)·(z − T)²                 β T + β²/(2C)     (all β)
l1                C·|z − T|                      β T               (|β| ≤ C)
================  =============================  ==========================================

The conjugates give the dual of every NPKL variant in one form (:meth:`NPKL.dual_value`):
g(β) = min_{K feasible} tr((L + Σβ_ij E_ij)K) − Σ h*(β_ij), a lower bound on the optimum
for every β in the domain of h* (``project`` maps any β there, so the certificate's bound
stays valid for slightly infeasible multipliers), and the Fenchel–Young gap
h(z) + h*(β) − βz ≥ 0 is zero iff β ∈ ∂h(z).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cvxpy as cp
import numpy as np


@dataclass(frozen=True)
class Loss:
    """One pair loss: its CVXPY expression, its value, its conjugate and dual domain."""

    name: str
    expr: Callable[[cp.Expression, np.ndarray, float], cp.Expression]
    value: Callable[[np.ndarray, np.ndarray, float], np.ndarray]
    conjugate: Callable[[np.ndarray, np.ndarray, float], np.ndarray]
    #: distance of β from the domain of h* (dual infeasibility, read by verify)
    domain_violation: Callable[[np.ndarray, np.ndarray, float], np.ndarray]
    #: the nearest β in the domain of h*
    project: Callable[[np.ndarray, np.ndarray, float], np.ndarray]
    #: prox(c, T, w, α) = argmin_z w·h(z)/C + (α/2)(z − c)², entrywise: the Z-step of ADMM
    #: (seed 001 eqs. 9–13, corrected in docs/npkl.md §5); w is the weight per entry
    prox: Callable[[np.ndarray, np.ndarray, float, float], np.ndarray]


def _pos(x):
    return np.maximum(x, 0.0)


LINEAR = Loss(
    "linear",
    expr=lambda z, T, C: -C * (T @ z),
    value=lambda z, T, C: -C * T * z,
    conjugate=lambda b, T, C: np.zeros_like(b),
    domain_violation=lambda b, T, C: np.abs(b + C * T),
    project=lambda b, T, C: -C * T,
    prox=lambda c, T, w, a: c + w * T / a,
)

HINGE = Loss(
    "hinge",
    expr=lambda z, T, C: C * cp.sum(cp.pos(1 - cp.multiply(T, z))),
    value=lambda z, T, C: C * _pos(1 - T * z),
    conjugate=lambda b, T, C: b * T,
    domain_violation=lambda b, T, C: _pos(b * T) + _pos(-b * T - C),
    project=lambda b, T, C: T * np.clip(b * T, -C, 0.0),  # T = ±1
    prox=lambda c, T, w, a: c + np.clip(a * (1 - T * c) / (T * T), 0.0, w) * T / a,
)

SQUARED_HINGE = Loss(
    "squared-hinge",
    expr=lambda z, T, C: (C / 2) * cp.sum_squares(cp.pos(1 - cp.multiply(T, z))),
    value=lambda z, T, C: (C / 2) * _pos(1 - T * z) ** 2,
    conjugate=lambda b, T, C: (-b * T) * (-1 + (-b * T) / (2 * C)),
    domain_violation=lambda b, T, C: _pos(b * T),
    project=lambda b, T, C: T * np.minimum(b * T, 0.0),
    # the seed's λ + T² is wrong: the denominator is T² + α/w
    prox=lambda c, T, w, a: c + np.maximum(a * (1 - T * c) / (T * T + a / w), 0.0) * T / a,
)

L2 = Loss(
    "l2",
    expr=lambda z, T, C: (C / 2) * cp.sum_squares(z - T),
    value=lambda z, T, C: (C / 2) * (z - T) ** 2,
    conjugate=lambda b, T, C: b * T + b * b / (2 * C),
    domain_violation=lambda b, T, C: np.zeros_like(b),
    project=lambda b, T, C: b,
    prox=lambda c, T, w, a: (a * c + w * T) / (a + w),
)

L1 = Loss(
    "l1",
    expr=lambda z, T, C: C * cp.norm1(z - T),
    value=lambda z, T, C: C * np.abs(z - T),
    conjugate=lambda b, T, C: b * T,
    domain_violation=lambda b, T, C: _pos(np.abs(b) - C),
    project=lambda b, T, C: np.clip(b, -C, C),
    prox=lambda c, T, w, a: T + np.sign(c - T) * np.maximum(np.abs(c - T) - w / a, 0.0),
)

#: Ordered registry of losses (CLI names).
LOSSES: dict[str, Loss] = {l.name: l for l in (LINEAR, HINGE, SQUARED_HINGE, L2, L1)}
