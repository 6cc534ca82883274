"""The plain Lanczos three-term recurrence on P = cI − A, in O(n) memory (no basis kept): the
tridiagonal (α, β) of the Krylov space K_k(P, x₀), its largest Ritz value, and its Ritz
vector by a second pass of the same recurrence (Golub & Van Loan, *Matrix Computations*,
4th ed., §10.1; the two-pass form trades k more products for the n×k basis).

Two users: the randomised λ_min bound of :mod:`.randomized_bound` (a random start, the
Ritz value only) and the Frank–Wolfe check of the low-rank augmented Lagrangian
(:mod:`kernelsdp.solvers.alm_vertex`: a start at the check's vertex, the Ritz vector too).
Without reorthogonalisation the recurrence loses orthogonality; its Ritz values then repeat
(ghost copies) but stay in P's spectral interval up to O(u·‖P‖) (Paige), and the two
passes repeat the same arithmetic, so the second rebuilds the first's vectors bit for bit.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import eigh_tridiagonal


class Lanczos:
    """The recurrence on P = cI − A from ``start`` (any nonzero vector), kept as (α, β);
    A is anything with ``@`` on a vector."""

    def __init__(self, A, c: float, start: np.ndarray):
        self.A, self.c = A, c
        self.start = start
        self.v, self.v_prev = start / np.linalg.norm(start), np.zeros(start.shape[0])
        self.alpha: list[float] = []
        self.beta: list[float] = []
        self.broke = False

    @property
    def steps(self) -> int:
        return len(self.alpha)

    def run(self, steps: int) -> None:
        """``steps`` more steps (fewer where the space becomes invariant: ``broke``)."""
        A, c = self.A, self.c
        for _ in range(steps):
            if self.broke:
                return
            w = c * self.v - A @ self.v
            a = float(self.v @ w)
            w -= a * self.v
            if self.beta:
                w -= self.beta[-1] * self.v_prev
            self.alpha.append(a)
            b = float(np.linalg.norm(w))
            if b <= 1e-14 * max(abs(c), 1.0):  # an invariant subspace: θ is exact on it
                self.broke = True
                return
            self.beta.append(b)
            self.v_prev, self.v = self.v, w / b

    def _tridiagonal(self) -> tuple[np.ndarray, np.ndarray]:
        k = self.steps
        return np.array(self.alpha), np.array(self.beta[: k - 1])

    def theta(self) -> float:
        """The largest Ritz value of P on the space so far."""
        k = self.steps
        d, e = self._tridiagonal()
        top = eigh_tridiagonal(d, e, eigvals_only=True, select="i", select_range=(k - 1, k - 1))
        return float(top[0])

    def ritz_vector(self) -> np.ndarray:
        """The unit Ritz vector of :meth:`theta`, rebuilt by a second pass (``steps`` − 1
        more products with A)."""
        k = self.steps
        d, e = self._tridiagonal()
        _, y = eigh_tridiagonal(d, e, select="i", select_range=(k - 1, k - 1))
        y = y[:, 0]
        A, c = self.A, self.c
        v, v_prev = self.start / np.linalg.norm(self.start), np.zeros(self.start.shape[0])
        x = y[0] * v
        for j in range(k - 1):
            w = c * v - A @ v
            w -= self.alpha[j] * v
            if j:
                w -= self.beta[j - 1] * v_prev
            v_prev, v = v, w / self.beta[j]
            x += y[j + 1] * v
        return x / np.linalg.norm(x)
