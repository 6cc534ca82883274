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
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import tolerances as tol
from ..declarations import option
from ..formulations.npkl import NPKL
from ..linalg.positive_part import (
    EIG_METHODS,
    EigenBudget,
    EigenStop,
    closed_form_kernel,
    positive_eigenpairs,
    positive_part_bytes,
)
from ..result import KernelFactor, PointStatus, Result, Termination
from ..tolerances import SADDLE_GAP_TOL
from .base import Solver

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
    tol: float = option(
        SADDLE_GAP_TOL, low=0.0, open_low=True, help="relative duality gap to stop at"
    )
    max_iter: int = option(500, low=1, help="iteration limit")
    time_limit: float | None = option(
        None, low=0.0, open_low=True, help="wall-clock limit, seconds"
    )
    eig_method: str = option("auto", choices=EIG_METHODS, help="positive-part method")
    progress: Callable[[dict], None] | None = option(
        None, help="called with each iteration's record"
    )


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
        pairs = 80 * f.pairs.m
        return positive_part_bytes(f.n, f.L.nnz + 2 * f.pairs.m, options.eig_method) + pairs

    def run(self, f: NPKL, options: SaddlePointOptions) -> Result:
        t0 = time.perf_counter()
        dual = _DualFunction(f, options.eig_method, EigenBudget(options.time_limit, start=t0))
        try:
            cur = dual(dual.project(np.ones(f.pairs.m)))
        except EigenStop as stop:
            return self.stopped(f, stop, t0)
        best_p, best_d = cur, cur
        t1 = time.perf_counter()
        history: list[dict] = []
        duals_seen = [cur.dual]
        eta = f.C
        termination = Termination.ITERATION_LIMIT
        for it in range(1, options.max_iter + 1):
            rec = _record(it, best_p, best_d, cur, eta, t0)
            history.append(rec)
            if options.progress is not None:
                options.progress(rec)
            stop = _stop(rec, it, options)
            if stop is not None:
                termination = stop
                break
            # step 5: projected gradient ascent on g, nonmonotone Armijo along d
            d = dual.project(cur.alpha + eta * cur.grad) - cur.alpha
            slope = float(cur.grad @ d)
            if slope <= 0 or not np.any(d):
                termination = (
                    Termination.OPTIMAL
                    if rec["relative_gap"] <= 10 * options.tol
                    else Termination.ALMOST_OPTIMAL
                )
                break
            try:
                new = dual.line_search(cur, d, slope, max(duals_seen[-NONMONOTONE_MEMORY:]))
            except EigenStop as stop:  # the best points so far stand, with their own bounds
                termination = stop.termination
                break
            eta = _barzilai_borwein(cur, new)
            cur = new
            duals_seen.append(cur.dual)
            if cur.primal < best_p.primal:
                best_p = cur
            if cur.dual > best_d.dual:
                best_d = cur
        return Result(
            formulation=f.name,
            solver=self.name,
            termination=termination,
            point=PointStatus.FEASIBLE_POINT,
            objective=best_p.primal,
            kernel=best_p.kernel,
            duals={"beta": -best_d.alpha * f.pairs.t, "alpha": best_d.alpha, "lam": best_d.lam},
            lower_bound=best_d.dual,
            upper_bound=best_p.primal,
            setup_time_s=0.0,
            solve_time_s=time.perf_counter() - t0,
            iterations=len(history),
            history=history,
            info={
                "relative_gap": history[-1]["relative_gap"],
                "eigen_decompositions": dual.evaluations,
                "eigen_method": best_p.eigen_method,
                "positive_eigenvalues": best_p.kernel.rank,
                "first_iteration_s": t1 - t0,
            },
        )


class _DualFunction:
    """g(α) of eq. 12 (hinge: α ≤ C, eq. 14) with its gradient and the K-step's kernel, one
    positive part per point; ARPACK's block starts from the last positive count."""

    def __init__(self, f: NPKL, eig_method: str, budget: EigenBudget):
        self.f, self.eig_method, self.budget = f, eig_method, budget  # bounds each ARPACK run
        self.hinge = f.loss == "hinge"
        self.hi = f.C if self.hinge else np.inf
        self.k_hint: int | None = None
        self.evaluations = 0

    def project(self, a: np.ndarray) -> np.ndarray:
        return np.clip(a, 0.0, self.hi)

    def __call__(self, alpha: np.ndarray) -> _Point:
        f, P, C, B = self.f, self.f.pairs, self.f.C, self.f.B
        A = (P.weighted_matrix(alpha * P.t) - f.L).tocsr()
        part = positive_eigenpairs(A, method=self.eig_method, k0=self.k_hint, budget=self.budget)
        if part.method == "arpack":
            self.k_hint = int(1.2 * part.count) + 16
        K = closed_form_kernel(part, B)
        s = P.t * K.entries(P.i, P.j)
        # M(β) = −A(α) at β = −αT, so ‖M₋‖_F = ‖A₊‖_F: the K-step's spectrum serves g
        dual = f.dual_value(-alpha * P.t, spectrum=part.frobenius)
        grad = 1.0 - s
        if not self.hinge:
            grad = grad - alpha / C
        self.evaluations += 1
        return _Point(
            alpha,
            K,
            f.objective(K),
            float(dual),
            grad,
            part.frobenius / (2 * np.sqrt(B)),
            part.count,
            part.method,
        )

    def line_search(self, cur: _Point, d: np.ndarray, slope: float, ref: float) -> _Point:
        """The first of cur + τd, τ = 1, ½, ... (30 tries) that passes the nonmonotone Armijo
        test against ``ref``, the best of the last ``NONMONOTONE_MEMORY`` values."""
        tau = 1.0
        for _ in range(30):
            new = self(cur.alpha + tau * d)
            if new.dual >= ref + ARMIJO * tau * slope:
                break
            tau *= 0.5
        return new


def _record(it: int, best_p: _Point, best_d: _Point, cur: _Point, eta: float, t0: float) -> dict:
    """The iteration's history row: the best primal and dual so far and their gap."""
    gap = best_p.primal - best_d.dual
    return {
        "iteration": it,
        "primal": best_p.primal,
        "dual": best_d.dual,
        "gap": gap,
        "relative_gap": gap / max(1.0, abs(best_p.primal)),
        "step": eta,
        "rank": cur.eigen_count,
        "time_s": time.perf_counter() - t0,
    }


def _stop(rec: dict, it: int, options: SaddlePointOptions) -> Termination | None:
    """Optimal at the gap's tolerance; the iteration and time limits; else None."""
    if rec["relative_gap"] <= options.tol:
        return Termination.OPTIMAL
    if it == options.max_iter:
        return Termination.ITERATION_LIMIT
    if options.time_limit is not None and rec["time_s"] > options.time_limit:
        return Termination.TIME_LIMIT
    return None


def _barzilai_borwein(cur: _Point, new: _Point) -> float:
    """The next step η = sᵀs / sᵀy, y the gradient change of the convex −g (1e12 when
    sᵀy ≤ 0), kept in [1e-12, 1e12]."""
    s = new.alpha - cur.alpha
    y = cur.grad - new.grad  # gradient change of the convex function −g
    sy = float(s @ y)
    return float(np.clip(s @ s / sy, 1e-12, 1e12)) if sy > 0 else 1e12
