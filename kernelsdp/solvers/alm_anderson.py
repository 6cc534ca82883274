"""Anderson acceleration of the low-rank augmented Lagrangian's multiplier update
(:mod:`.low_rank_alm`, issue #30, seventh pass; docs/npkl.md §7).

The method of multipliers is the fixed-point iteration β ← g(β) = β̃ (the proximal point
map of the dual, evaluated inexactly by the inner solve).  Anderson acceleration, type II
(Walker & Ni 2011), mixes the last ``memory`` + 1 evaluations: with the residuals
f_k = g(β_k) − β_k and the differences ΔF, ΔG of the residuals and the values,

    γ = argmin ‖f_k − ΔF·γ‖  (Tikhonov-regularised by ``REG``·tr(ΔFᵀΔF)),
    β_{k+1} = Π(g(β_k) − ΔG·γ),

Π the projection onto the loss's dual domain (hinge: β = −α·T, α ∈ [0, C]).  Safeguards:
the memory is cleared when ρ changed (another map) or when the Fenchel–Young gap at the
update rose over the last update's; the plain β̃ is taken when the mixed step is longer than
``CAP`` times the residual.  The multipliers only steer the inner problems: every check's
β̃ is recomputed by the prox, and the certificate reads that β̃, never the mixed β.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

#: the mixed step is dropped for the plain β̃ when it is this many residuals long
CAP = 10.0
#: the least-squares problem's Tikhonov weight, relative to tr(ΔFᵀΔF)
REG = 1e-10


def vectors(memory: int) -> tuple[int, int]:
    """m-vectors (doubles) the accelerator holds between updates, and the most it holds
    during one (the stacked residuals and values, their differences, the step)."""
    if memory <= 0:
        return 0, 0
    kept = 2 * (memory + 1)
    return kept, kept + 2 * (memory + 1) + 2 * memory + 3


class AndersonMultipliers:
    """The multiplier update (module docstring); ``memory`` 0: the plain β ← β̃."""

    def __init__(self, memory: int, project: Callable[[np.ndarray], np.ndarray]):
        self.memory, self.project = memory, project
        self.values: list[np.ndarray] = []  # g(β_k) = β̃_k
        self.residuals: list[np.ndarray] = []  # β̃_k − β_k
        self.last_fy = math.inf
        self.resets, self.capped = 0, 0

    def next(self, beta: np.ndarray, beta_tilde: np.ndarray, fy: float, reset: bool):
        """The multipliers after an inner solve at ``beta`` that gave ``beta_tilde`` (its
        FY gap ``fy``); ``reset``: ρ changed."""
        rose, self.last_fy = fy > self.last_fy, fy
        if self.memory <= 0:
            return beta_tilde
        if reset or rose:
            self.resets += bool(self.values)
            self.values, self.residuals = [], []
        bt = np.asarray(beta_tilde, dtype=np.float64)
        self.values.append(bt)
        self.residuals.append(bt - beta)
        del self.values[: -(self.memory + 1)], self.residuals[: -(self.memory + 1)]
        if len(self.values) < 2:
            return beta_tilde
        dF = np.diff(np.stack(self.residuals, axis=1), axis=1)
        dG = np.diff(np.stack(self.values, axis=1), axis=1)
        f = self.residuals[-1]
        H = dF.T @ dF
        H += REG * max(float(np.trace(H)), 1e-300) * np.eye(H.shape[0])
        step = dG @ np.linalg.solve(H, dF.T @ f)
        if np.linalg.norm(step) > CAP * max(float(np.linalg.norm(f)), 1e-300):
            self.capped += 1
            return beta_tilde
        return self.project(bt - step)
