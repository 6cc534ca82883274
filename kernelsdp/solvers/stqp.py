"""Solvers that work on the StQP itself (seed 003): the exact oracle and a local method.

**exact** — the global minimum lies in the relative interior of some face of the simplex,
where it is a stationary point of the restricted problem: Q_SS α_S = μ1, 1ᵀα_S = 1,
α_S > 0.  Enumerating all 2^d − 1 supports and keeping the best interior solution finds
it (a face whose system is singular attains its value on a smaller face too, which is
enumerated; :meth:`StQP.global_minimum`).  Cost O(2^d d³): refused above
``formulations.stqp.EXACT_MAX_D``.

**local** — replicator dynamics on A = c − Q with c = max Q + 1 (A > 0, and
αᵀAα = c − αᵀQα on the simplex): α_i ← α_i (Aα)_i / αᵀAα increases αᵀAα monotonically
(Baum–Eagon), so it decreases αᵀQα to a KKT point.  Multiple starts: the barycentre, the
vertices of the best diagonal entries and seeded random points; every end point is
polished on its face.  For any d.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import tolerances as tol
from ..declarations import option
from ..formulations.ncut_mkl import NCutMKL
from ..formulations.stqp import EXACT_MAX_D, StQP
from ..result import PointStatus, Result, Termination
from .base import Solver

LOCAL_TOL = 1e-12


def _result(
    f: StQP,
    solver: str,
    termination: Termination,
    alpha: np.ndarray,
    t0: float,
    iterations: int,
    info: dict,
    lower_bound: float | None = None,
) -> Result:
    return Result(
        formulation=f.name,
        solver=solver,
        termination=termination,
        point=PointStatus.FEASIBLE_POINT,
        objective=f.objective(alpha),
        primal={"alpha": alpha},
        solve_time_s=time.perf_counter() - t0,
        iterations=iterations,
        info=info,
        lower_bound=lower_bound,
        upper_bound=f.objective(alpha),
    )


class ExactStQP(Solver):
    name = "exact"
    kind = "exact"
    ACCEPTS = {StQP: {}, NCutMKL: {}}  # N-cut MKL is a StQP (seed 003)
    objective_tol = certificate_tol = tol.STQP_TOL

    def supports(self, f) -> str | None:
        reason = super().supports(f)
        if reason is None and f.d > EXACT_MAX_D:
            return (
                f"the exact oracle enumerates 2^d faces; d = {f.d} exceeds d <= "
                f"{EXACT_MAX_D}: use local or a conic solver (SDP1 bound + rounding)"
            )
        return reason

    def memory_bytes(self, f: StQP, options) -> int:
        """One face's d×d system at a time (the 2^d faces are enumerated, not stored)."""
        return 8 * 3 * f.d * f.d

    def run(self, f: StQP, options) -> Result:
        t0 = time.perf_counter()
        best, faces = f.global_minimum()
        return _result(
            f,
            self.name,
            Termination.OPTIMAL,
            best,
            t0,
            faces,
            {"faces": faces, "support": [int(i) for i in np.flatnonzero(best)]},
            lower_bound=f.objective(best),
        )


@dataclass(frozen=True)
class LocalOptions:
    starts: int = option(20, low=1, help="starting points (barycentre, best vertices, random)")
    max_iter: int = option(5000, low=1, help="replicator iterations per start")
    seed: int = option(0, low=0, help="seed of the random starts")
    time_limit: float | None = option(
        None, low=0.0, open_low=True, help="wall-clock limit, seconds"
    )
    progress: Callable[[dict], None] | None = option(None, help="called after each start")


class LocalStQP(Solver):
    name = "local"
    kind = "iterative"
    ACCEPTS = {StQP: {}, NCutMKL: {}}  # N-cut MKL is a StQP (seed 003)
    Options = LocalOptions
    objective_tol = certificate_tol = tol.STQP_TOL

    def memory_bytes(self, f: StQP, options: LocalOptions) -> int:
        """A = c − Q (d×d) and the starting points (starts × d)."""
        return 8 * (f.d * f.d + (options.starts + 4) * f.d)

    def run(self, f: StQP, options: LocalOptions) -> Result:
        starts, max_iter, seed = options.starts, options.max_iter, options.seed
        t0 = time.perf_counter()
        d, Q = f.d, f.Q
        A = Q.max() + 1.0 - Q
        rng = np.random.default_rng(seed)
        inits = [np.full(d, 1.0 / d)]
        for i in np.argsort(np.diag(Q))[: min(d, 3)]:
            e = np.full(d, 1e-3 / d)
            e[i] += 1.0
            inits.append(e / e.sum())
        inits += list(rng.dirichlet(np.ones(d), size=max(0, starts - len(inits))))
        best, best_val, total = None, np.inf, 0
        termination = Termination.LOCALLY_SOLVED
        for k, a in enumerate(inits):
            if options.time_limit is not None and time.perf_counter() - t0 > options.time_limit:
                termination = Termination.TIME_LIMIT  # the best start so far stands, said so
                break
            for _ in range(max_iter):
                g = A @ a
                new = a * g / (a @ g)
                total += 1
                if np.max(np.abs(new - a)) < LOCAL_TOL:
                    a = new
                    break
                a = new
            a = f.polish(a)
            v = f.objective(a)
            if v < best_val:
                best, best_val = a, v
            if options.progress is not None:
                options.progress(
                    {
                        "iteration": k + 1,
                        "primal": best_val,
                        "dual": None,
                        "relative_gap": None,
                        "time_s": time.perf_counter() - t0,
                    }
                )
        if best is None:
            return Result.failure(
                f.name,
                self.name,
                termination,
                "no start finished within the time limit",
                solve_time_s=time.perf_counter() - t0,
            )
        # a local method claims no lower bound: upper_bound only
        return _result(
            f,
            self.name,
            termination,
            best,
            t0,
            total,
            {"starts": len(inits), "kkt_violation": f.kkt_violation(best)},
        )
