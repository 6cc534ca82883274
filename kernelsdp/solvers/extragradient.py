"""LMTL (seed 004 eq. 2) by extragradient on its saddle point — the method the paper
names for LMTL at scale (§5.3, after Howard & Jebara's JMLR paper).

Eq. 2 is Lanckriet et al.'s SDP for min_K ω_C(K) over the kernels K_M = Σ M_ij φ_iφ_jᵀ,
with ω_C the SVM dual value.  m never enters the objective and m = 0 is always feasible,
so M ranges over the spectraplex 𝓜 = {M ⪰ 0, tr M ≤ 1} and

    t* = min_{M ∈ 𝓜} max_{α ∈ 𝒜} f(M, α),   f(M, α) = 2·1ᵀα − ⟨M, G(α)ᵀG(α)⟩,
    𝒜 = {0 ≤ α ≤ C, yᵀα = 0},  G(α) = [φ_jᵀ(y∘α)]_j  (D × J),

linear in M, concave in α.  Korpelevich's extragradient: a predictor step
(M̂, α̂) = Π(z − η F(z)) and a corrector z⁺ = Π(z − η F(ẑ)) with the monotone operator
F = (∇_M f, −∇_α f) = (−GᵀG, −2·1 + 2·y∘(K_M(y∘α))); η by backtracking until
η‖F(ẑ) − F(z)‖ ≤ ν‖ẑ − z‖ (ν < 1), then grown again.  Projections: onto 𝓜 by an
eigen-decomposition of a J × J matrix and a capped simplex projection of its spectrum;
onto 𝒜 by the exact root of a piecewise linear function (yᵀα = 0's multiplier).  Each
iteration is O(nJD) — no n × n matrix, no n-sized semidefinite block.

Stopping: the relative width of the certified interval
[svm_dual_bound(α), svm_primal_bound(M, α)] (LMTL.certificate), at the iterates and at
their step-weighted averages, best of each side kept.  The returned M is the one with the
best upper bound (with ``alpha_M``, the α that built its SVM primal point w = Bᵀ(y∘α)),
the dual ``alpha`` the one with the best lower bound; m = 0.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import tolerances as tol
from ..certificate.verdict import relative_width
from ..declarations import option
from ..formulations.tla import LMTL, weights_report
from ..result import PointStatus, Result, Termination
from .base import Solver

#: backtracking: accept η when η‖F(ẑ) − F(z)‖ ≤ NU·‖ẑ − z‖ (NU < 1 for convergence)
NU = 0.9
GROW = 1.2
CHECK_EVERY = 10


@dataclass(frozen=True)
class ExtragradientOptions:
    tol: float = option(
        tol.EXTRAGRADIENT_GAP_TOL,
        low=0.0,
        open_low=True,
        help="relative width of the certified interval to stop at",
    )
    max_iter: int = option(20_000, low=1, help="iteration limit")
    time_limit: float | None = option(
        None, low=0.0, open_low=True, help="wall-clock limit, seconds"
    )
    progress: Callable[[dict], None] | None = option(None, help="called with each check's record")


def project_spectraplex(M: np.ndarray) -> np.ndarray:
    """Euclidean projection onto {M ⪰ 0, tr M ≤ 1}: eigenvalues projected onto
    {w ≥ 0, Σw ≤ 1}."""
    w, V = np.linalg.eigh((M + M.T) / 2)
    p = np.maximum(w, 0.0)
    if p.sum() > 1.0:
        u = np.sort(w)[::-1]
        c = np.cumsum(u)
        k = np.nonzero(u - (c - 1.0) / np.arange(1, len(u) + 1) > 0)[0][-1]
        p = np.maximum(w - (c[k] - 1.0) / (k + 1), 0.0)
    return (V * p) @ V.T


def project_svm_box(a: np.ndarray, y: np.ndarray, C: float) -> np.ndarray:
    """Euclidean projection onto {0 ≤ α ≤ C, yᵀα = 0}: α = clip(a − τy, 0, C) with τ the
    root of h(τ) = yᵀclip(a − τy, 0, C), nonincreasing and piecewise linear with
    breakpoints τ = y_i a_i and y_i(a_i − C): bisection over the sorted breakpoints
    (O(log n) evaluations), then the exact root on the linear piece that holds it."""
    h = lambda t: float(y @ np.clip(a - t * y, 0.0, C))
    bp = np.unique(np.concatenate([y * a, y * (a - C)]))
    lo, hi = 0, len(bp) - 1
    if h(bp[lo]) <= 0:  # h is constant left of the first breakpoint
        return np.clip(a - bp[lo] * y, 0.0, C)
    if h(bp[hi]) >= 0:  # and right of the last
        return np.clip(a - bp[hi] * y, 0.0, C)
    while hi - lo > 1:  # h(bp[lo]) > 0 ≥ h(bp[hi])
        mid = (lo + hi) // 2
        if h(bp[mid]) > 0:
            lo = mid
        else:
            hi = mid
    t0, t1 = bp[lo], bp[hi]
    h0, h1 = h(t0), h(t1)
    return np.clip(a - (t0 + h0 * (t1 - t0) / (h0 - h1)) * y, 0.0, C)


class Extragradient(Solver):
    """Extragradient on LMTL's saddle point, certified by the SVM dual/primal bounds."""

    name = "extragradient"
    kind = "iterative"
    ACCEPTS = {LMTL: {}}
    Options = ExtragradientOptions
    objective_tol = tol.EXTRAGRADIENT_GAP_TOL
    certificate_tol = tol.EXTRAGRADIENT_GAP_TOL

    def memory_bytes(self, f: LMTL, options: ExtragradientOptions) -> int:
        """The operator's O(nJD) temporaries (three arrays of φ's size), about ten n-vectors
        (α, its averages and steps) and a few J × J matrices."""
        n, J, D = f.F.shape
        return 8 * (3 * n * J * D + 10 * n + 8 * J * J)

    def run(self, f: LMTL, options: ExtragradientOptions) -> Result:
        t0 = time.perf_counter()
        y, C, F = f.y, f.C, f.F
        J = f.n

        def operator(M, a):
            G = f.mixed_gradient(a)
            Ky = y * np.einsum("njd,dj->n", F, G @ M)  # Y K_M Y α, O(nJD)
            return -(G.T @ G), 2.0 - 2.0 * Ky  # (∇_M f, ∇_α f)

        M = np.eye(J) / J
        a = project_svm_box(np.full(len(y), C / 2), y, C)
        Msum, asum, wsum = np.zeros_like(M), np.zeros_like(a), 0.0
        eta = 1.0 / max(1.0, float(np.linalg.norm(F.reshape(len(y), -1), 2)) ** 2)
        best_up, best_lo = (np.inf, M, a), (-np.inf, a)
        history: list[dict] = []
        termination = Termination.ITERATION_LIMIT
        it = 0
        for it in range(1, options.max_iter + 1):
            gM, ga = operator(M, a)
            while True:
                Mh, ah = project_spectraplex(M - eta * gM), project_svm_box(a + eta * ga, y, C)
                gMh, gah = operator(Mh, ah)
                step = np.sqrt(np.sum((Mh - M) ** 2) + np.sum((ah - a) ** 2))
                change = np.sqrt(np.sum((gMh - gM) ** 2) + np.sum((gah - ga) ** 2))
                if step == 0.0 or eta * change <= NU * step:
                    break
                eta *= 0.5
            M, a = project_spectraplex(M - eta * gMh), project_svm_box(a + eta * gah, y, C)
            Msum, asum, wsum = Msum + eta * Mh, asum + eta * ah, wsum + eta
            out_of_time = (
                options.time_limit is not None and time.perf_counter() - t0 > options.time_limit
            )
            if it % CHECK_EVERY == 0 or it == options.max_iter or step == 0.0 or out_of_time:
                for Mc, ac in ((Mh, ah), (Msum / wsum, project_svm_box(asum / wsum, y, C))):
                    up, lo = f.svm_primal_bound(Mc, ac), f.svm_dual_bound(ac)
                    if up < best_up[0]:
                        best_up = (up, Mc, ac)
                    if lo > best_lo[0]:
                        best_lo = (lo, ac)
                width = relative_width(best_lo[0], best_up[0])
                rec = _record(it, best_lo[0], best_up[0], width, eta, time.perf_counter() - t0)
                history.append(rec)
                if options.progress is not None:
                    options.progress(rec)
                if width <= options.tol:
                    termination = Termination.OPTIMAL
                    break
                if step == 0.0:
                    termination = Termination.SLOW_PROGRESS
                    break
                if out_of_time:  # the iterates stay feasible: a usable point, not an optimum
                    termination = Termination.TIME_LIMIT
                    break
            eta *= GROW
        Mbest, abest = best_up[1], best_lo[1]
        info = weights_report(np.zeros(J), Mbest)
        info.update(alignment=f.objective(Mbest), relative_gap=history[-1]["relative_gap"])
        return Result(
            formulation=f.name,
            solver=self.name,
            termination=termination,
            point=PointStatus.FEASIBLE_POINT,
            objective=best_up[0],
            primal={"m": np.zeros(J), "M": Mbest, "alpha_M": best_up[2]},
            duals={"alpha": abest},
            lower_bound=best_lo[0],
            upper_bound=best_up[0],
            solve_time_s=time.perf_counter() - t0,
            iterations=it,
            history=history,
            info=info,
        )


def _record(it: int, lower: float, upper: float, width: float, eta: float, t: float) -> dict:
    """One row of the history: the best bounds so far and their relative gap."""
    return {
        "iteration": it,
        "primal": upper,
        "dual": lower,
        "lower": lower,
        "upper": upper,
        "relative_gap": width,
        "step": eta,
        "time_s": t,
    }
