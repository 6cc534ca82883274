"""NPKL with linear loss in closed form: seed 000's Proposition 1 (eqs. 6–8, Frobenius
capacity) and its trace-capacity twin.

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

**Trace capacity** (docs/npkl.md §2, capacity tr K ≤ B): with M = L − C·T the objective is
tr(MK), and

    min tr(MK)  s.t.  K ⪰ 0, tr K ≤ B     is     B·min(0, λ_min(M)),  at K* = B·vvᵀ

(v a unit eigenvector of λ_min; K* = 0 when M ⪰ 0): the spectraplex's extreme points are
B·vvᵀ and 0.  One λ_min by Lanczos on the sparse M (:mod:`kernelsdp.linalg.extreme`), so
O(nnz(M)) memory per Lanczos vector: this is the linear loss at n = 10⁶ (issue #16).  The
certificate is the dual function of docs/npkl.md §3 at β = −C·T, whose value B·λ_min(M)
is the objective itself: the gap is B·(vᵀMv − λ_min), Lanczos's residual.  λ = −λ_min
(or 0) is the trace multiplier, Z = M + λI ⪰ 0 and Z·v = 0.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import tolerances as tol
from ..declarations import option
from ..formulations.npkl import NPKL
from ..linalg.extreme import DENSE_MAX_N, LANCZOS_WORDS_PER_ROW, extreme_eigenvalue
from ..linalg.positive_part import (
    EIG_METHODS,
    EigenBudget,
    EigenStop,
    closed_form_kernel,
    positive_eigenpairs,
    positive_part_bytes,
)
from ..result import KernelFactor, PointStatus, Result, Termination
from .base import Solver


@dataclass(frozen=True)
class ClosedFormOptions:
    eig_method: str = option(
        "auto",
        choices=EIG_METHODS,
        help="how the positive part is computed (kernelsdp.linalg.positive_part)",
    )
    time_limit: float | None = option(
        None, low=0.0, open_low=True, help="wall-clock limit, seconds"
    )
    max_iter: int | None = option(None, low=1, help="limit on ARPACK's products with the matrix")
    progress: Callable[[dict], None] | None = option(None, help="called with ARPACK's progress")


class ClosedForm(Solver):
    """NPKL with linear loss in closed form: Proposition 1 for the Frobenius capacity
    (SimpleNPKL-LL), one λ_min eigenvector for the trace capacity."""

    name = "npkl-closed-form"
    aliases = ("closed-form",)
    kind = "exact"
    ACCEPTS = {NPKL: {"loss": ("linear",), "capacity": ("frobenius", "trace")}}
    Options = ClosedFormOptions
    objective_tol = tol.OBJECTIVE_RTOL_EXACT
    certificate_tol = tol.KKT_TOL

    def memory_bytes(self, f: NPKL, options: ClosedFormOptions) -> int:
        """A = C·T − L (sparse) and its positive part
        (:func:`~kernelsdp.linalg.positive_part.positive_part_bytes`); for the trace capacity
        M = L − C·T and one Lanczos basis."""
        if f.capacity == "trace":
            # M's assembly from COO (int64 indices, a few copies: 32 bytes an entry), the
            # widest Lanczos basis, and the eigenvector, residual and factor (4 n-vectors)
            return 32 * (f.L.nnz + 2 * f.pairs.m + f.n) + 8 * (LANCZOS_WORDS_PER_ROW + 4) * f.n
        return positive_part_bytes(f.n, f.L.nnz + 2 * f.pairs.m, options.eig_method)

    def run(self, f: NPKL, options: ClosedFormOptions) -> Result:
        if f.capacity == "trace":
            return self._trace(f, options)
        eig_method = options.eig_method
        t0 = time.perf_counter()
        A = (f.C * f.pairs.matrix() - f.L).tocsr()
        t1 = time.perf_counter()
        budget = EigenBudget(options.time_limit, options.max_iter, options.progress, start=t0)
        try:
            part = positive_eigenpairs(A, method=eig_method, budget=budget)
        except EigenStop as stop:
            return self.stopped(f, stop, t1, arpack_products=budget.products)
        kernel = closed_form_kernel(part, f.B)
        t2 = time.perf_counter()
        lam = part.frobenius / (2 * np.sqrt(f.B))
        beta = -f.C * f.pairs.t
        value = -np.sqrt(f.B) * part.frobenius
        return Result(
            formulation=f.name,
            solver=self.name,
            termination=Termination.OPTIMAL,
            point=PointStatus.FEASIBLE_POINT,
            objective=value,
            kernel=kernel,
            duals={"beta": beta, "lam": lam},
            # M(β) = L − C·T = −A, so ‖M₋‖_F = ‖A₊‖_F: the dual value from the same spectrum
            lower_bound=f.dual_value(beta, spectrum=part.frobenius),
            upper_bound=value,
            setup_time_s=t1 - t0,
            solve_time_s=t2 - t1,
            iterations=1,
            info={
                "eigen_method": part.method,
                "positive_eigenvalues": part.count,
                **{
                    f"eigen_{k}": (str(v) if isinstance(v, list) else v)
                    for k, v in part.info.items()
                },
            },
        )

    def _trace(self, f: NPKL, options: ClosedFormOptions) -> Result:
        """K* = B·vvᵀ for the λ_min eigenvector v of M = L − C·T (0 when M ⪰ 0).  The
        limits and the progress callback bound Lanczos's products with M (``eig_method``
        is the Frobenius branch's: λ_min is the one helper's, dense up to DENSE_MAX_N)."""
        t0 = time.perf_counter()
        beta = -f.C * f.pairs.t.astype(float)
        M = f.dual_matrix(beta)
        t1 = time.perf_counter()
        budget = EigenBudget(options.time_limit, options.max_iter, options.progress, start=t0)
        try:
            low = extreme_eigenvalue(M if f.n <= DENSE_MAX_N else budget.operator(M), "SA")
        except EigenStop as stop:
            return self.stopped(f, stop, t1, arpack_products=budget.products)
        t2 = time.perf_counter()
        info = {
            "eigen_method": low.method,
            "lambda_min": low.value,
            "arpack_products": budget.products,
        }
        if low.vector is None:  # Lanczos failed twice; Gershgorin's bound has no eigenvector
            return Result.failure(
                f.name,
                self.name,
                Termination.NUMERICAL_ERROR,
                "Lanczos did not converge on λ_min(L − C·T)",
                solve_time_s=t2 - t1,
                info=info,
            )
        v = low.vector / np.linalg.norm(low.vector)
        # B·vvᵀ when its objective B·vᵀMv is negative (λ_min's value is moved down by the
        # residual, so near 0 its sign alone could pick a point worse than K = 0)
        U = np.sqrt(f.B) * v[:, None] if float(v @ (M @ v)) < 0 else np.zeros((f.n, 1))
        kernel = KernelFactor(U)
        value = f.objective(kernel)
        return Result(
            formulation=f.name,
            solver=self.name,
            termination=Termination.OPTIMAL,
            point=PointStatus.FEASIBLE_POINT,
            objective=value,
            kernel=kernel,
            duals={"beta": beta, "lam": max(0.0, -low.value)},
            lower_bound=f.dual_value(beta, spectrum=low.value),
            upper_bound=value,
            setup_time_s=t1 - t0,
            solve_time_s=t2 - t1,
            iterations=1,
            info=info,
        )
