"""A nonconvex quadratically constrained quadratic program (QCQP), the input of a lifting.

    min  xᵀP₀x + 2q₀ᵀx + r₀
    s.t. xᵀPᵢx + 2qᵢᵀx + rᵢ ≤ 0        (quadratic inequalities)
         xᵀPⱼx + 2qⱼᵀx + rⱼ = 0        (quadratic equalities)
         A x = b,  G x ≤ h,  x ≥ 0 (optional)

All matrices symmetric (they are symmetrised on construction).  ``value(x)`` and
``violation(x)`` evaluate a point of the original problem — what rounding produces and
what the tightness report measures.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InvalidDataError


@dataclass(frozen=True)
class Quadratic:
    """xᵀPx + 2qᵀx + r."""

    P: np.ndarray
    q: np.ndarray
    r: float = 0.0

    def __call__(self, x: np.ndarray) -> float:
        return float(x @ self.P @ x + 2 * self.q @ x + self.r)


def _sym(P, d, what):
    P = np.asarray(P, dtype=float)
    if P.shape != (d, d) or not np.all(np.isfinite(P)):
        raise InvalidDataError(f"{what} must be a finite {d}×{d} matrix; got shape {P.shape}.")
    return (P + P.T) / 2


@dataclass
class QCQP:
    objective: Quadratic
    inequalities: list[Quadratic] = field(default_factory=list)
    equalities: list[Quadratic] = field(default_factory=list)
    A: np.ndarray | None = None
    b: np.ndarray | None = None
    G: np.ndarray | None = None
    h: np.ndarray | None = None
    nonneg: bool = False

    @property
    def d(self) -> int:
        return int(self.objective.P.shape[0])

    @classmethod
    def build(cls, P0, q0=None, r0=0.0, inequalities=(), equalities=(), A=None, b=None,
              G=None, h=None, nonneg=False) -> "QCQP":
        """Validate and symmetrise; quadratic constraints are (P, q, r) triples."""
        P0 = np.asarray(P0, dtype=float)
        d = P0.shape[0] if P0.ndim == 2 else -1
        if d < 1:
            raise InvalidDataError(f"the objective matrix must be square; got shape {P0.shape}.")

        def quad(P, q, r, what):
            q = np.zeros(d) if q is None else np.asarray(q, dtype=float).ravel()
            if q.shape != (d,):
                raise InvalidDataError(f"{what}: the linear term must have {d} entries.")
            return Quadratic(_sym(P, d, what), q, float(r))

        def lin(M, v, what):
            if M is None:
                return None, None
            M = np.atleast_2d(np.asarray(M, dtype=float))
            v = np.asarray(v, dtype=float).ravel()
            if M.shape[1] != d or v.shape != (M.shape[0],):
                raise InvalidDataError(f"{what}: expected a (k, {d}) matrix and k right-hand sides.")
            return M, v

        A, b = lin(A, b, "A x = b")
        G, h = lin(G, h, "G x <= h")
        return cls(quad(P0, q0, r0, "objective"),
                   [quad(*c, f"inequality {k}") for k, c in enumerate(inequalities)],
                   [quad(*c, f"equality {k}") for k, c in enumerate(equalities)],
                   A, b, G, h, bool(nonneg))

    def value(self, x: np.ndarray) -> float:
        return self.objective(np.asarray(x, dtype=float))

    def violation(self, x: np.ndarray) -> float:
        """Largest constraint violation of x (0 when feasible)."""
        x = np.asarray(x, dtype=float)
        v = [0.0]
        v += [max(0.0, c(x)) for c in self.inequalities]
        v += [abs(c(x)) for c in self.equalities]
        if self.A is not None:
            v.append(float(np.max(np.abs(self.A @ x - self.b))))
        if self.G is not None:
            v.append(float(np.max(np.maximum(self.G @ x - self.h, 0.0))))
        if self.nonneg:
            v.append(float(np.max(np.maximum(-x, 0.0))))
        return max(v)
