"""SimpleNPKL with (squared) hinge loss: the saddle-point Algorithm 1 (seed 000 §3.2).

Squared hinge, eqs. 9–12: with one multiplier α_ij ≥ 0 per pair,

    max_{α ≥ 0} min_{K ⪰ 0, tr KK ≤ B}  J(K, α) = tr((L − Σ α_ij T_ij E_ij) K)
                                                  − (1/2C) Σ α_ij² + Σ α_ij

(E_ij = (e_i e_jᵀ + e_j e_iᵀ)/2).  For fixed α the K-step is Proposition 1 with
A(α) = Σ α_ij T_ij E_ij − L, so the dual function is

    g(α) = −√B ‖A(α)₊‖_F + Σ α − ‖α‖²/(2C),      ∂g/∂α_ij = 1 − T_ij K_ij(α) − α_ij/C

(the gradient of step 5 of Algorithm 1).  Hinge: α ∈ [0, C], g(α) = −√B‖A(α)₊‖_F + Σα,
gradient 1 − T_ij K_ij.

Step 5 is a projected gradient ascent on g.  Our step sizes are Barzilai–Borwein
(spectral projected gradient, Birgin–Martínez–Raydan 2000) with a nonmonotone
safeguard over the last 5 values, starting from η = C (the step that makes step 5 the
best response α = C(1 − TK)₊ of eq. 14); the seed's η_t = O(1/t) converges too but
needs many more eigen-decompositions, each of which is the whole cost of an iteration.
α⁰ = 1 (clipped to [0, C] for hinge), so K₁ is the linear-loss solution.

Stopping: the relative duality gap (P(K_best) − g(α_best)) / max(1, |P(K_best)|) ≤ tol,
with P the NPKL primal objective and g the dual function above, both computed each
iteration from the same eigen-decomposition.  The returned point is (K_best, α_best);
β = −α·T are the per-pair multipliers verify reads.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from .. import tolerances as tol

import numpy as np

from ..formulations.npkl import NPKL
from ..result import KernelFactor, PointStatus, Result, Termination
from ..tolerances import SADDLE_GAP_TOL
from ..declarations import option
from .base import Solver
from ..linalg.positive_part import (EigenBudget, EigenStop, closed_form_kernel,
                                     positive_eigenpairs, positive_part_bytes)
from .proposition1 import EIG_METHODS

NONMONOTONE_MEMORY = 5
ARMIJO = 1e-4


@dataclass
class _Point:
    alpha: np.ndarray
    kernel: KernelFactor
    primal: float
    dual: float
    grad: np.ndarray
    lam: float
    eigen_count: int
    eigen_method: str


@dataclass(frozen=True)
class SaddlePointOptions:
    tol: float = option(SADDLE_GAP_TOL, low=0.0, open_low=True, help="relative duality gap to stop at")
    max_iter: int = option(500, low=1, help="iteration limit")
    time_limit: float | None = option(None, low=0.0, open_low=True, help="wall-clock limit, seconds")
    eig_method: str = option("auto", choices=EIG_METHODS, help="positive-part method")
    progress: Callable[[dict], None] | None = option(None, help="called with each iteration's record")


class SaddlePoint(Solver):
    """Algorithm 1 for SimpleNPKL with squared hinge or hinge loss."""

    name = "saddle-point"
    kind = "iterative"
    ACCEPTS = {NPKL: {"loss": ("squared-hinge", "hinge"), "capacity": ("frobenius",)}}
    Options = SaddlePointOptions
    objective_tol = tol.OBJECTIVE_RTOL_ITERATIVE
    certificate_tol = tol.KKT_TOL

    def memory_bytes(self, f: NPKL, options: SaddlePointOptions) -> int:
        """One K-step (A(α) sparse and its positive part) and about ten m-vectors (α, the
        gradients, the kept best points); the positive part of each point is a floor."""
        return positive_part_bytes(f.n, f.L.nnz + 2 * f.pairs.m, options.eig_method) + 80 * f.pairs.m

    def run(self, f: NPKL, options: SaddlePointOptions) -> Result:
        tol, max_iter, eig_method, progress = (options.tol, options.max_iter,
                                               options.eig_method, options.progress)
        t0 = time.perf_counter()
        P, C, B = f.pairs, f.C, f.B
        hinge = f.loss == "hinge"
        hi = C if hinge else np.inf

        def project(a):
            return np.clip(a, 0.0, hi)

        k_hint = [None]
        budget = EigenBudget(options.time_limit, start=t0)  # bounds each ARPACK run too

        def evaluate(alpha) -> _Point:
            A = (P.weighted_matrix(alpha * P.t) - f.L).tocsr()
            part = positive_eigenpairs(A, method=eig_method, k0=k_hint[0], budget=budget)
            if part.method == "arpack":
                k_hint[0] = int(1.2 * part.count) + 16
            K = closed_form_kernel(part, B)
            s = P.t * K.entries(P.i, P.j)
            # M(β) = −A(α) at β = −αT, so ‖M₋‖_F = ‖A₊‖_F: the K-step's spectrum serves g
            dual = f.dual_value(-alpha * P.t, spectrum=part.frobenius)
            grad = 1.0 - s
            if not hinge:
                grad = grad - alpha / C
            return _Point(alpha, K, f.objective(K), float(dual), grad,
                          part.frobenius / (2 * np.sqrt(B)), part.count, part.method)

        try:
            cur = evaluate(project(np.ones(P.m)))
        except EigenStop as stop:
            return Result.failure(f.name, self.name, stop.termination, str(stop),
                                  solve_time_s=time.perf_counter() - t0)
        best_p, best_d = cur, cur
        t1 = time.perf_counter()
        history: list[dict] = []
        duals_seen = [cur.dual]
        eta = C
        evaluations = 1
        termination = Termination.ITERATION_LIMIT
        for it in range(1, max_iter + 1):
            gap = best_p.primal - best_d.dual
            rel = gap / max(1.0, abs(best_p.primal))
            rec = {"iteration": it, "primal": best_p.primal, "dual": best_d.dual, "gap": gap,
                   "relative_gap": rel, "step": eta, "rank": cur.eigen_count,
                   "time_s": time.perf_counter() - t0}
            history.append(rec)
            if progress is not None:
                progress(rec)
            if rel <= tol:
                termination = Termination.OPTIMAL
                break
            if it == max_iter:
                break
            if options.time_limit is not None and rec["time_s"] > options.time_limit:
                termination = Termination.TIME_LIMIT
                break
            d = project(cur.alpha + eta * cur.grad) - cur.alpha
            slope = float(cur.grad @ d)
            if slope <= 0 or not np.any(d):
                termination = Termination.OPTIMAL if rel <= 10 * tol else Termination.ALMOST_OPTIMAL
                break
            ref = max(duals_seen[-NONMONOTONE_MEMORY:])
            tau = 1.0
            try:
                for _ in range(30):
                    new = evaluate(cur.alpha + tau * d)
                    evaluations += 1
                    if new.dual >= ref + ARMIJO * tau * slope:
                        break
                    tau *= 0.5
            except EigenStop as stop:  # the best points so far stand, with their own bounds
                termination = stop.termination
                break
            s = new.alpha - cur.alpha
            y = cur.grad - new.grad  # gradient change of the convex function −g
            sy = float(s @ y)
            eta = float(np.clip(s @ s / sy, 1e-12, 1e12)) if sy > 0 else 1e12
            cur = new
            duals_seen.append(cur.dual)
            if cur.primal < best_p.primal:
                best_p = cur
            if cur.dual > best_d.dual:
                best_d = cur
        t2 = time.perf_counter()
        return Result(
            formulation=f.name, solver=self.name, termination=termination,
            point=PointStatus.FEASIBLE_POINT, objective=best_p.primal, kernel=best_p.kernel,
            duals={"beta": -best_d.alpha * P.t, "alpha": best_d.alpha, "lam": best_d.lam},
            lower_bound=best_d.dual, upper_bound=best_p.primal,
            setup_time_s=0.0, solve_time_s=t2 - t0, iterations=len(history), history=history,
            info={"relative_gap": history[-1]["relative_gap"], "eigen_decompositions": evaluations,
                  "eigen_method": best_p.eigen_method, "positive_eigenvalues": best_p.kernel.rank,
                  "first_iteration_s": t1 - t0})
