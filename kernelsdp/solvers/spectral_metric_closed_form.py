"""The closed form of the spectral metric QP (seed 002; docs/spectral_metric.md).

Stationarity of βᵀDβ − ρ(1ᵀβ − c): 2 d_r β_r = ρ for every r, so β_r ∝ 1/d_r and the
equality fixes β* = c D⁻¹1 / 1ᵀD⁻¹1, ρ* = 2c / 1ᵀD⁻¹1, value c² / 1ᵀD⁻¹1.  Every β*_r > 0,
so the β ≥ 0 variant has the same solution (its multipliers are zero).  O(p).
"""

from __future__ import annotations

import time

import numpy as np

from .. import tolerances as tol
from ..formulations.spectral_metric import SpectralMetric
from ..result import PointStatus, Result, Termination
from .base import Solver


class SpectralClosedForm(Solver):
    name = "spectral-metric-closed-form"
    aliases = ("closed-form",)
    kind = "exact"
    ACCEPTS = {SpectralMetric: {}}
    # issue #6's bar: the closed form and an interior-point solver agree to 1e-8
    objective_tol = certificate_tol = tol.SPECTRAL_QP_RTOL

    def memory_bytes(self, f: SpectralMetric, options) -> int:
        """β (p values) and the kernel factor basis·diag(β) (n × p)."""
        return 8 * (f.n + (0 if f.basis is None else f.basis.size))

    def run(self, f: SpectralMetric, options) -> Result:
        t0 = time.perf_counter()
        beta = f.closed_form()
        rho = 2 * f.c / float(np.sum(1.0 / f.d))
        return Result(
            formulation=f.name,
            solver=self.name,
            termination=Termination.OPTIMAL,
            point=PointStatus.FEASIBLE_POINT,
            objective=f.objective(beta),
            primal={"beta": beta},
            kernel=f.kernel(beta),
            duals={"rho": rho},
            lower_bound=f.dual_value(rho),
            upper_bound=f.objective(beta),
            solve_time_s=time.perf_counter() - t0,
            iterations=1,
        )
