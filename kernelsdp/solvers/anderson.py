"""Anderson acceleration (type II; Walker & Ni 2011) of a fixed-point iteration v ↦ g(v).

With the last p differences of residuals f = g(v) − v and of values g, the next point is
g_k − ΔG γ with γ = argmin ‖f_k − ΔF γ‖ (normal equations, Tikhonov 1e-10·trace).  The
Gram matrix ΔFᵀΔF is updated one row per step, and ΔFᵀf_k = ΔFᵀf_{k-1} + (that row) for
the older columns, so a step reads the history twice (O(2p·N) for a state of N numbers)
and holds 2p·N.  Safeguard: the history is dropped whenever the
residual norm grows (and by the caller whenever the map itself changes), after which the
plain step g is taken.

Every array of N numbers is allocated once: the next point is written over the v it was
given (the caller's iterate is consumed), and f and the previous g live in fixed buffers.
"""

from __future__ import annotations

import numpy as np


class Anderson:
    """Type-II Anderson mixing with ``memory`` pairs over states of ``size`` numbers."""

    def __init__(self, memory: int, size: int, dtype=np.float64):
        self.memory = memory
        self.dF = np.zeros((memory, size), dtype=dtype)
        self.dG = np.zeros((memory, size), dtype=dtype)
        # Tikhonov weight of the normal equations: the Gram matrix is accurate to about
        # the state's rounding (single precision: 1e-7), so the weight sits above it
        self.tikhonov = max(1e-10, 10 * float(np.finfo(dtype).eps))
        self.gram = np.zeros((memory, memory))
        self.cross = np.zeros(memory)  # ΔFᵀ f at the last point
        self.f = np.empty(size, dtype=dtype)
        self.f_prev = np.empty(size, dtype=dtype) if memory else None
        self.g_prev = np.empty(size, dtype=dtype) if memory else None
        self.reset()
        self.last_norm = np.inf

    def reset(self) -> None:
        self.filled = self.head = 0
        self.has_prev = False

    def next_point(self, v: np.ndarray, g: np.ndarray) -> np.ndarray:
        """The point to apply the map to next, given the current v and its image g; it is
        written into ``v`` (and returned), g is left as it was."""
        f = self.f
        np.subtract(g, v, out=f)
        norm = float(np.linalg.norm(f))
        if norm > self.last_norm:
            self.reset()
        self.last_norm = norm
        if not self.memory:
            np.copyto(v, g)
            return v
        if self.has_prev:
            dF, dG = self.dF[self.head], self.dG[self.head]
            np.subtract(f, self.f_prev, out=dF)
            np.subtract(g, self.g_prev, out=dG)
            self.filled = min(self.filled + 1, self.memory)
            row = self.dF[:self.filled] @ dF
            self.gram[self.head, :self.filled] = row
            self.gram[:self.filled, self.head] = row
            self.cross[:self.filled] += row  # ΔF_iᵀ f = ΔF_iᵀ f_prev + ΔF_iᵀ ΔF_new
            self.cross[self.head] = float(dF @ f)
            self.head = (self.head + 1) % self.memory
        self.f, self.f_prev = self.f_prev, f  # f becomes the previous residual, no copy
        np.copyto(self.g_prev, g)
        self.has_prev = True
        if not self.filled:
            np.copyto(v, g)
            return v
        k = self.filled
        G = self.gram[:k, :k] + (self.tikhonov * float(np.trace(self.gram[:k, :k])) + 1e-300) * np.eye(k)
        gamma = np.linalg.solve(G, self.cross[:k]).astype(v.dtype)
        np.matmul(gamma, self.dG[:k], out=v)
        np.subtract(g, v, out=v)
        return v
