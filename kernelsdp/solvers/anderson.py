"""Anderson acceleration (type II; Walker & Ni 2011) of a fixed-point iteration v ↦ g(v).

With the last p differences of residuals f = g(v) − v and of values g, the next point is
g_k − ΔG γ with γ = argmin ‖f_k − ΔF γ‖ (normal equations, Tikhonov 1e-10·trace).  The
Gram matrix ΔFᵀΔF is updated one row per step, and ΔFᵀf_k = ΔFᵀf_{k-1} + (that row) for
the older columns, so a step reads the history twice (O(2p·N) for a state of N numbers)
and holds 2p·N.  Safeguard: the history is dropped whenever the
residual norm grows (and by the caller whenever the map itself changes), after which the
plain step g is taken.
"""

from __future__ import annotations

import numpy as np


class Anderson:
    """Type-II Anderson mixing with ``memory`` pairs over states of ``size`` numbers."""

    def __init__(self, memory: int, size: int):
        self.memory = memory
        self.dF = np.zeros((memory, size))
        self.dG = np.zeros((memory, size))
        self.gram = np.zeros((memory, memory))
        self.cross = np.zeros(memory)  # ΔFᵀ f at the last point
        self.reset()
        self.last_norm = np.inf

    def reset(self) -> None:
        self.filled = self.head = 0
        self.f_prev = self.g_prev = None

    def next_point(self, v: np.ndarray, g: np.ndarray) -> np.ndarray:
        """The point to apply the map to next, given the current v and its image g."""
        f = g - v
        norm = float(np.linalg.norm(f))
        if norm > self.last_norm:
            self.reset()
        self.last_norm = norm
        if not self.memory:
            return g.copy()
        if self.f_prev is not None:
            np.subtract(f, self.f_prev, out=self.dF[self.head])
            np.subtract(g, self.g_prev, out=self.dG[self.head])
            self.filled = min(self.filled + 1, self.memory)
            row = self.dF[:self.filled] @ self.dF[self.head]
            self.gram[self.head, :self.filled] = row
            self.gram[:self.filled, self.head] = row
            self.cross[:self.filled] += row  # ΔF_iᵀ f = ΔF_iᵀ f_prev + ΔF_iᵀ ΔF_new
            self.cross[self.head] = float(self.dF[self.head] @ f)
            self.head = (self.head + 1) % self.memory
        self.f_prev, self.g_prev = f, g.copy()
        if not self.filled:
            return g.copy()
        k = self.filled
        G = self.gram[:k, :k] + (1e-10 * float(np.trace(self.gram[:k, :k])) + 1e-300) * np.eye(k)
        gamma = np.linalg.solve(G, self.cross[:k])
        return g - gamma @ self.dG[:k]
