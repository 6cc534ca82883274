"""ADMM (trace capacity) against SimpleNPKL (Frobenius capacity) where the problems coincide.

A rank-one K = uuᵀ has tr K = ‖u‖² = ‖K‖_F.  So for the NPKL "twins"

    P_tr:  capacity tr K ≤ B      and      P_F:  capacity tr KK ≤ B²   (same L, pairs, loss, C)

a rank-one optimum of P_tr is feasible for P_F (so opt_F ≤ opt_tr) and a rank-one optimum
of P_F is feasible for P_tr (so opt_tr ≤ opt_F).  When both solvers return rank-one
kernels the optima are equal, and the objectives are compared at the looser of the two
solvers' tolerances; when only one is rank one the implied inequality is checked; when
neither is, the problems differ and nothing is compared (said so in the report).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .. import tolerances as tol
from ..errors import UnsupportedProblemError
from ..formulations.npkl import NPKL
from ..result import KernelFactor
from ..solvers import prepare
from .report import Comparison, SolverCheck, VerifyReport, certify, tolerances_for


def is_rank_one(kernel: KernelFactor) -> bool:
    """λ₂(K) ≤ RANK_ONE_RTOL · λ₁(K), from the factor's r×r Gram matrix."""
    w = np.linalg.eigvalsh(kernel.U.T @ kernel.U)[::-1]
    return w.size == 1 or bool(w[1] <= tol.RANK_ONE_RTOL * max(w[0], 0.0))


def verify_twins(
    f: NPKL,
    trace_solver: str = "admm",
    frobenius_solver: str = "saddle-point",
    tol: float | None = None,
) -> VerifyReport:
    """Solve f (trace capacity) and its Frobenius twin; certify both at ``tol`` (default
    ``CERTIFY_TOL``, the one named tolerance); compare where they coincide."""
    if not isinstance(f, NPKL) or f.capacity != "trace":
        raise UnsupportedProblemError("verify_twins needs an NPKL problem with the trace capacity.")
    twin = replace(f, capacity="frobenius", B=f.B**2)
    report = VerifyReport(problem={**f.describe(), "twin": "capacity frobenius, B²"})
    results = []
    for problem, name in ((f, trace_solver), (twin, frobenius_solver)):
        r = prepare(problem, name).solve(problem)
        report.checks.append(SolverCheck.of(r, certify(problem, r, tol)))
        results.append(r)
    a, b = results
    if a.kernel is None or b.kernel is None:
        return report
    one_a, one_b = is_rank_one(a.kernel), is_rank_one(b.kernel)
    t = (
        tol
        if tol is not None
        else max(tolerances_for(a.solver, f)[0], tolerances_for(b.solver, twin)[0])
    )
    scale = max(1.0, abs(a.objective), abs(b.objective))
    diff = (a.objective - b.objective) / scale  # opt_tr − opt_F
    if one_a and one_b:
        report.comparisons.append(
            Comparison(
                a.solver, b.solver, abs(diff), t, abs(diff) <= t, "equal optima (both rank one)"
            )
        )
    elif one_a:
        report.comparisons.append(
            Comparison(
                a.solver,
                b.solver,
                max(0.0, -diff),
                t,
                -diff <= t,
                "trace ≥ Frobenius (trace optimum rank one)",
            )
        )
    elif one_b:
        report.comparisons.append(
            Comparison(
                a.solver,
                b.solver,
                max(0.0, diff),
                t,
                diff <= t,
                "trace ≤ Frobenius (Frobenius optimum rank one)",
            )
        )
    else:
        report.problem["twins"] = "neither optimum is rank one: the problems differ, not compared"
    return report
