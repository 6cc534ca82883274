"""SimpleNPKL with linear loss in closed form (seed 000 Proposition 1, eqs. 6–8).

    max tr(AK)  s.t.  K ⪰ 0, tr(KK) ≤ B     has     K* = √B · A₊ / ‖A₊‖_F

with A₊ the positive part of A.  For SimpleNPKL-LL, A = C·T − L (T symmetrised, each
pair once), so the NPKL objective tr(LK) − C Σ T_ij K_ij equals −tr(AK) and its optimum
is −√B ‖A₊‖_F.

Certificate (docs/npkl.md §4): λ* = ‖A₊‖_F / (2√B) for the capacity constraint,
Z* = 2λ*K* − A = −A₋ ⪰ 0 for K ⪰ 0, tr(K*Z*) = 0; the per-pair multipliers of the
linear loss are β_ij = −C·T_ij.  verify recomputes the gap from (K*, β, λ*) alone.

The kernel is returned as a factor U = V diag(√(√B w / ‖w‖)) with (w, V) the positive
eigenpairs, so K* = UUᵀ is never formed.  Cost: one positive-part computation
(:mod:`.eigen`), O(nnz(A)·k·restarts) with ARPACK or O(n³) dense.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import tolerances as tol
from ..formulations.npkl import NPKL
from ..linalg.positive_part import EigenBudget, EigenStop, closed_form_kernel, positive_eigenpairs
from ..result import PointStatus, Result, Termination
from ..declarations import option
from .base import Solver
from .memory import positive_part_bytes


EIG_METHODS = ("auto", "dense", "probe", "arpack")


@dataclass(frozen=True)
class ClosedFormOptions:
    eig_method: str = option("auto", choices=EIG_METHODS,
                             help="how the positive part is computed (kernelsdp.linalg.positive_part)")
    time_limit: float | None = option(None, low=0.0, open_low=True, help="wall-clock limit, seconds")
    max_iter: int | None = option(None, low=1, help="limit on ARPACK's products with the matrix")
    progress: Callable[[dict], None] | None = option(None, help="called with ARPACK's progress")


class ClosedForm(Solver):
    """Proposition 1 for NPKL with linear loss and Frobenius capacity (SimpleNPKL-LL)."""

    name = "closed-form"
    kind = "exact"
    ACCEPTS = {NPKL: {"loss": ("linear",), "capacity": ("frobenius",)}}
    Options = ClosedFormOptions
    objective_tol = tol.OBJECTIVE_RTOL_EXACT
    certificate_tol = tol.KKT_TOL

    def memory_bytes(self, f: NPKL, options: ClosedFormOptions) -> int:
        """A = C·T − L (sparse) and its positive part (:func:`.memory.positive_part_bytes`)."""
        return positive_part_bytes(f.n, f.L.nnz + 2 * f.pairs.m, options.eig_method)

    def run(self, f: NPKL, options: ClosedFormOptions) -> Result:
        eig_method = options.eig_method
        t0 = time.perf_counter()
        A = (f.C * f.pairs.matrix() - f.L).tocsr()
        t1 = time.perf_counter()
        budget = EigenBudget(options.time_limit, options.max_iter, options.progress, start=t0)
        try:
            part = positive_eigenpairs(A, method=eig_method, budget=budget)
        except EigenStop as stop:
            return Result.failure(f.name, self.name, stop.termination, str(stop),
                                  solve_time_s=time.perf_counter() - t1,
                                  info={"arpack_products": budget.products})
        kernel = closed_form_kernel(part, f.B)
        t2 = time.perf_counter()
        lam = part.frobenius / (2 * np.sqrt(f.B))
        beta = -f.C * f.pairs.t
        value = -np.sqrt(f.B) * part.frobenius
        return Result(
            formulation=f.name, solver=self.name, termination=Termination.OPTIMAL,
            point=PointStatus.FEASIBLE_POINT, objective=value,
            kernel=kernel, duals={"beta": beta, "lam": lam},
            # M(β) = L − C·T = −A, so ‖M₋‖_F = ‖A₊‖_F: the dual value from the same spectrum
            lower_bound=f.dual_value(beta, spectrum=part.frobenius), upper_bound=value,
            setup_time_s=t1 - t0, solve_time_s=t2 - t1, iterations=1,
            info={"eigen_method": part.method, "positive_eigenvalues": part.count,
                  **{f"eigen_{k}": (str(v) if isinstance(v, list) else v)
                     for k, v in part.info.items()}})
