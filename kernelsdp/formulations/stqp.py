"""The standard quadratic program (StQP) of seed 003, and its SDP₁ relaxation.

    min αᵀQα   s.t.  1ᵀα = 1, α ≥ 0          (nonconvex unless Q is copositive-PSD)

The nonconvex problem is declared once here; its convex CVXPY model is the doubly
nonnegative relaxation SDP₁ built by :func:`kernelsdp.relaxations.simplex_dnn`
(min tr(QZ) s.t. 1ᵀZ1 = 1, Z ⪰ 0, Z ≥ 0).  A generic conic solver therefore returns the
relaxed bound (``info["bound"]``) and a rounded feasible α whose value is the result's
objective; the exact and local solvers work on Q directly.

``face_point(S)`` solves the KKT system of the problem restricted to the face
{α ≥ 0, α_i = 0 for i ∉ S}: Q_SS α_S = μ1, 1ᵀα_S = 1.  The exact solver enumerates
faces with it; rounding polishes its point with it (formulations.md §6).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..errors import InvalidDataError
from ..relaxations import best_rounding, simplex_dnn, tightness, to_simplex
from .base import CvxpyModel, Formulation, require_keys

#: a face solution counts as interior when all its entries exceed this
FACE_TOL = 1e-12


@dataclass
class StQP(Formulation):
    Q: np.ndarray

    name: ClassVar[str] = "stqp"
    NPZ_KEYS: ClassVar[dict[str, str]] = {"Q": "(d, d) matrix (symmetrised as (Q + Qᵀ)/2)"}

    def __post_init__(self) -> None:
        Q = np.asarray(self.Q, dtype=float)
        if Q.ndim != 2 or Q.shape[0] != Q.shape[1] or Q.shape[0] < 1:
            raise InvalidDataError(f"Q must be a square matrix; got shape {Q.shape}.")
        if not np.all(np.isfinite(Q)):
            raise InvalidDataError("Q contains NaN or infinite entries.")
        self.Q = (Q + Q.T) / 2

    @classmethod
    def from_npz(cls, arrays, **params) -> "StQP":
        require_keys(arrays, ("Q",), cls.name)
        return cls(Q=arrays["Q"])

    @property
    def n(self) -> int:
        return int(self.Q.shape[0])

    @property
    def d(self) -> int:
        return self.n

    def describe(self) -> dict[str, Any]:
        return {"formulation": self.name, "d": self.d}

    def objective(self, alpha) -> float:
        a = np.asarray(alpha, dtype=float)
        return float(a @ self.Q @ a)

    # ----- the relaxation ---------------------------------------------------------------
    def build(self) -> CvxpyModel:
        rel = simplex_dnn(self.Q)
        model = CvxpyModel(rel.problem, {"Z": rel.Y}, {k: v[0] for k, v in rel.constraints.items()})
        model.relaxation = rel  # type: ignore[attr-defined]
        return model

    def from_cvxpy(self, model: CvxpyModel) -> dict[str, Any]:
        rel = model.relaxation  # type: ignore[attr-defined]
        x, Z = rel.solution()
        alpha, scheme, values = best_rounding(rel.qcqp, x, Z, True, feasible=to_simplex)
        polished = self.polish(alpha)
        if self.objective(polished) < self.objective(alpha):
            alpha, scheme = polished, scheme + "+face"
            values[scheme] = self.objective(alpha)
        rep = tightness(rel.name, rel.bound, Z, alpha, self.objective(alpha), scheme, values)
        return {"objective": self.objective(alpha), "primal": {"alpha": alpha},
                "info": {"bound": rel.bound, "tightness": rep.to_dict(), "rank": rep.rank,
                         "rounding": scheme, "theorem1_condition": rep.elementwise_positive}}

    # ----- faces --------------------------------------------------------------------------
    def face_point(self, support) -> np.ndarray | None:
        """The stationary point of the face with this support, if unique and interior."""
        S = np.asarray(support, dtype=int)
        k = S.size
        M = np.zeros((k + 1, k + 1))
        M[:k, :k] = self.Q[np.ix_(S, S)]
        M[:k, k] = -1.0
        M[k, :k] = 1.0
        rhs = np.zeros(k + 1)
        rhs[k] = 1.0
        try:
            sol = np.linalg.solve(M, rhs)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(sol)) or np.min(sol[:k]) <= FACE_TOL:
            return None
        alpha = np.zeros(self.d)
        alpha[S] = sol[:k]
        return alpha

    def polish(self, alpha: np.ndarray, rtol: float = 1e-4) -> np.ndarray:
        """The face point on α's (numerical) support, when it exists and is better."""
        a = np.asarray(alpha, dtype=float)
        support = np.flatnonzero(a > rtol * a.max())
        p = self.face_point(support)
        return p if p is not None and self.objective(p) <= self.objective(a) else a

    def kkt_violation(self, alpha: np.ndarray) -> float:
        """max_i (μ − (Qα)_i)₊ over the simplex, μ = αᵀQα: 0 at a KKT point."""
        g = self.Q @ alpha
        mu = float(alpha @ g)
        return float(max(0.0, np.max(mu - g))) / max(1.0, float(np.abs(self.Q).max()))
