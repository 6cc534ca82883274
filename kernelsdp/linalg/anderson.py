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

**The history's precision** (``history_dtype``, default the state's) may be lower than the
state's: each difference is formed in the state's precision and only then rounded, so a
float32 history keeps every ΔF and ΔG to seven digits *of its own size* (not of the state's)
and perturbs the correction ΔG γ by about 1e-7 of itself, far below any fixed-point
tolerance.  It halves the 2p·N words of a double-precision history.  Mixed-precision
products run over blocks of ``BLOCK`` entries, so no temporary of N numbers is made.
"""

from __future__ import annotations

import numpy as np

#: entries per block of the mixed-precision products (0.5 MiB per float64 temporary row)
BLOCK = 1 << 16


class Anderson:
    """Type-II Anderson mixing with ``memory`` pairs over states of ``size`` numbers."""

    def __init__(self, memory: int, size: int, dtype=np.float64, history_dtype=None):
        self.memory = memory
        hdt = np.dtype(dtype if history_dtype is None else history_dtype)
        self.mixed = hdt != np.dtype(dtype)
        self.dF = np.zeros((memory, size), dtype=hdt)
        self.dG = np.zeros((memory, size), dtype=hdt)
        # Tikhonov weight of the normal equations: the Gram matrix is accurate to about
        # the history's rounding (single precision: 1e-7), so the weight sits above it
        self.tikhonov = max(1e-10, 10 * float(np.finfo(hdt).eps))
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
            np.subtract(f, self.f_prev, out=dF, casting="same_kind")
            np.subtract(g, self.g_prev, out=dG, casting="same_kind")
            self.filled = min(self.filled + 1, self.memory)
            row = (
                _rows_dot(self.dF[: self.filled], dF) if self.mixed else self.dF[: self.filled] @ dF
            )
            self.gram[self.head, : self.filled] = row
            self.gram[: self.filled, self.head] = row
            self.cross[: self.filled] += row  # ΔF_iᵀ f = ΔF_iᵀ f_prev + ΔF_iᵀ ΔF_new
            self.cross[self.head] = float(_rows_dot(dF, f)) if self.mixed else float(dF @ f)
            self.head = (self.head + 1) % self.memory
        self.f, self.f_prev = self.f_prev, f  # f becomes the previous residual, no copy
        np.copyto(self.g_prev, g)
        self.has_prev = True
        if not self.filled:
            np.copyto(v, g)
            return v
        k = self.filled
        ridge = self.tikhonov * float(np.trace(self.gram[:k, :k])) + 1e-300
        G = self.gram[:k, :k] + ridge * np.eye(k)
        gamma = np.linalg.solve(G, self.cross[:k]).astype(self.dG.dtype)
        if self.mixed:
            for s in range(0, v.size, BLOCK):
                e = min(s + BLOCK, v.size)
                np.subtract(g[s:e], gamma @ self.dG[:k, s:e], out=v[s:e])
            return v
        np.matmul(gamma, self.dG[:k], out=v)
        np.subtract(g, v, out=v)
        return v


def _rows_dot(a: np.ndarray, b: np.ndarray):
    """a·b accumulated in float64 (a: rows or one vector, b: a vector) a block of columns
    at a time: a float32 BLAS dot over tens of millions of entries would lose digits the
    normal equations need."""
    return sum(
        a[..., s : s + BLOCK].astype(np.float64) @ b[s : s + BLOCK].astype(np.float64, copy=False)
        for s in range(0, b.size, BLOCK)
    )
