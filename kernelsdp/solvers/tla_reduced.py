"""NC-TLA (seed 004 eq. 11) reduced to a J-sized problem by the Schur complement.

Eq. 11: max ⟨M, Q⟩ s.t. tr A ≤ 1, [[A, K_M], [K_M, I_n]] ⪰ 0, [[1, mᵀ], [m, M]] ⪰ 0, m ≥ 0.

- [[A, K], [K, I]] ⪰ 0 ⟺ A ⪰ K² (Schur complement, I ≻ 0), so the least tr A is
  tr K² = ‖K_M‖²_F and the n-sized block says exactly ‖K_M‖_F ≤ 1;
- m never enters the objective, and m = 0 is feasible for any M ⪰ 0, so the lifted block
  says exactly M ⪰ 0;
- ‖K_M‖²_F = tr((M⊗I_D) P (M⊗I_D) P) = vec(M)ᵀ H vec(M), P = ΨᵀΨ (JD × JD), H (J² × J²,
  positive semidefinite on symmetric M), computed once in O(n (JD)²).

So eq. 11 = max ⟨Q, M⟩ s.t. M ⪰ 0, ‖R vec M‖ ≤ 1 (H = RᵀR): a J × J semidefinite block
and a second-order cone of size J², whatever n is; H's least eigenvalue on symmetric M,
w_sym, gives tr M ≤ √(J/w_sym), stated as a redundant row so that the bound is rigorous.
It is solved by Clarabel and certified by the generic conic certificate of that model (its
objective is ⟨Q, M⟩ itself); the point
is then checked in eq. 11 (M ⪰ 0, ‖K_M‖_F ≤ 1 from P: NCTLA.certificate).  The reduction
is exact — tests compare it with Clarabel and SCS on the full eq. 11.  The returned m is 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np

from ..formulations.base import CvxpyModel, Formulation
from ..formulations.tla import NCTLA, weights_report
from ..result import Result
from .base import Solver
from .conic import ConicOptions, ConicSolver


def norm_operator(P: np.ndarray, J: int) -> np.ndarray:
    """H (J² × J², row-major vec) with vec(M)ᵀ H vec(M) = tr((M⊗I)P(M⊗I)P) for symmetric M,
    restricted to symmetric matrices (so it is PSD)."""
    D = P.shape[0] // J
    P4 = P.reshape(J, D, J, D)
    H = np.einsum("jdke,leid->ijkl", P4, P4).reshape(J * J, J * J)
    swap = np.eye(J * J).reshape(J, J, J, J).transpose(1, 0, 2, 3).reshape(J * J, J * J)
    sym = (np.eye(J * J) + swap) / 2
    return sym @ ((H + H.T) / 2) @ sym


@dataclass
class ReducedNCTLA(Formulation):
    """max ⟨Q, M⟩ s.t. M ⪰ 0, ‖R vec M‖ ≤ 1 — eq. 11 after the Schur reduction."""

    Q: np.ndarray
    R: np.ndarray  # rows: √w_k v_kᵀ for the positive eigenpairs of H
    scale: float = 1.0  # solved in M' = scale·M, so that ‖R/scale‖₂ = 1
    #: an a-priori bound on tr M implied by the cone (None when H is singular on symmetric
    #: M); stated as a redundant row so that the conic certificate's bound is rigorous
    trace_bound: float | None = None
    original: Any = field(default=None, repr=False)
    name: ClassVar[str] = "nc-tla"
    maximize: ClassVar[bool] = True

    @classmethod
    def from_nctla(cls, f: NCTLA) -> ReducedNCTLA:
        H = norm_operator(f.kernel_gram(), f.n)
        w, V = np.linalg.eigh(H)
        keep = w > 1e-12 * max(float(w[-1]), 1e-300)
        R = (V[:, keep] * np.sqrt(w[keep])).T
        # H vanishes on the J(J−1)/2 antisymmetric directions; its least eigenvalue on the
        # symmetric ones bounds ‖M‖_F² ≤ 1/w_sym, so tr M ≤ √(J/w_sym) a priori
        J = f.n
        w_sym = float(np.sort(w)[J * (J - 1) // 2])
        bound = float(np.sqrt(J / w_sym)) if w_sym > 1e-12 * max(float(w[-1]), 1e-300) else None
        return cls(
            Q=f.Q, R=R, scale=float(np.sqrt(max(w[-1], 1e-300))), original=f, trace_bound=bound
        )

    @property
    def n(self) -> int:
        return int(self.Q.shape[0])

    @property
    def psd_dim(self) -> int:
        return self.n

    def build(self) -> CvxpyModel:
        J = self.n
        M = cp.Variable((J, J), PSD=True)  # M' = scale·M
        c = self.scale
        cons = [cp.norm(self.R / c @ cp.vec(M, order="C")) <= 1]
        if self.trace_bound is not None:
            cons.append(cp.trace(M) <= c * self.trace_bound * (1 + 1e-9))  # redundant
        prob = cp.Problem(cp.Maximize(cp.sum(cp.multiply(self.Q / c, M))), cons)
        return CvxpyModel(prob, {"M": M})

    def from_cvxpy(self, model: CvxpyModel) -> dict[str, Any]:
        M = np.asarray(model.variables["M"].value, dtype=float) / self.scale
        M = (M + M.T) / 2
        m = np.zeros(self.n)
        rep = weights_report(m, M)
        rep["original_alignment"] = self.original.original_alignment(
            np.maximum(rep["weights"], 0.0)
        )
        return {"objective": float(np.sum(self.Q * M)), "primal": {"m": m, "M": M}, "info": rep}


class SchurReduced(Solver):
    """Eq. 11 through its exact J-sized reduction, by Clarabel (options as Clarabel's)."""

    name = "schur-reduced"
    kind = "interior-point"
    ACCEPTS = {NCTLA: {}}  # exactly NC-TLA: LMTL subclasses it but is another problem
    Options = ConicOptions

    def __init__(self):
        self._inner = ConicSolver("CLARABEL")
        self.objective_tol, self.certificate_tol = (
            self._inner.objective_tol,
            self._inner.certificate_tol,
        )

    def availability(self) -> tuple[bool, str]:
        return self._inner.availability()

    def memory_bytes(self, f: NCTLA, options) -> int:
        """P = ΨᵀΨ ((JD)²), H, its symmetriser and eigenvectors (about six J² × J² arrays), and
        Clarabel on the J × J model (its own formula)."""
        from .conic import INTERIOR_POINT_BYTES_PER_ENTRY

        _, J, D = f.F.shape
        t = J * (J + 1) // 2 + J * J + 1  # the J × J PSD block and the SOC of size J² + 1
        return 8 * (6 * J**4 + (J * D) ** 2) + INTERIOR_POINT_BYTES_PER_ENTRY * t * t

    def run(self, f: NCTLA, options: ConicOptions) -> Result:
        import time

        t0 = time.perf_counter()
        reduced = ReducedNCTLA.from_nctla(f)
        t1 = time.perf_counter()
        r = self._inner.run(reduced, options)
        r.solver = self.name
        r.setup_time_s += t1 - t0
        r.info.update(
            reduction="schur", reduced_cone=f"PSD {f.n}x{f.n} + SOC {reduced.R.shape[0] + 1}"
        )
        return r
