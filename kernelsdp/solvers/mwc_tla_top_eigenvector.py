"""Closed form of the untightened MWC-TLA relaxation (seed 004 eq. 13).

For M ⪰ 0 with tr M ≤ 1, ⟨M, Q⟩ ≤ λ_max(Q)·tr M ≤ λ_max(Q); the point m = 0, M = vvᵀ
(v the unit top eigenvector of Q) is feasible ([[1, 0], [0, vvᵀ]] ⪰ 0, m ≥ 0, 1ᵀm = 0,
tr M = 1) and attains it.  So the relaxation's optimum is λ_max(Q), reached with m = 0:
the relaxation does not determine m, and v may have entries of both signs (then the
transformation it stands for is not monotone).  O(J³).
"""

from __future__ import annotations

import time

import numpy as np

from .. import tolerances as tol
from ..formulations.tla import MWCTLA, weights_report
from ..result import PointStatus, Result, Termination
from .base import Solver


class TopEigenpair(Solver):
    name = "mwc-tla-top-eigenvector"
    aliases = ("closed-form",)
    kind = "exact"
    ACCEPTS = {MWCTLA: {"tightened": (False,)}}
    REFUSALS = {
        ("tightened", True): "the closed form holds for the untightened relaxation "
        "only: M >= 0 changes the optimum"
    }
    objective_tol = tol.OBJECTIVE_RTOL_EXACT
    certificate_tol = tol.KKT_TOL

    def memory_bytes(self, f: MWCTLA, options) -> int:
        """LAPACK's eigh of the J×J matrix Q (3 arrays) and M = vvᵀ."""
        J = f.Q.shape[0]
        return 8 * 4 * J * J

    def run(self, f: MWCTLA, options) -> Result:
        t0 = time.perf_counter()
        w, V = np.linalg.eigh(f.Q)
        v = V[:, -1] if V[:, -1].sum() >= 0 else -V[:, -1]
        M, m = np.outer(v, v), np.zeros(f.n)
        return Result(
            formulation=f.name,
            solver=self.name,
            termination=Termination.OPTIMAL,
            point=PointStatus.FEASIBLE_POINT,
            objective=float(w[-1]),
            lower_bound=float(w[-1]),
            upper_bound=max(float(w[-1]), 0.0),
            primal={"m": m, "M": M},
            solve_time_s=time.perf_counter() - t0,
            iterations=1,
            info=weights_report(m, M),
        )
