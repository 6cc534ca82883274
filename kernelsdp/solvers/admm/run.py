"""One run of ADMM for low-rank NPKL (seed 001, Algorithm 1; the method, its corrections and
its measurements are in :mod:`kernelsdp.solvers.admm.solver`'s docstring).

:class:`ADMMRun` holds the state of a run — the flat iterate (X, Y, H as n×r, then A and E on
the q = 2m ordered pairs), its image under one step, the penalties, Anderson's history, the
certificates taken so far — and its methods are the steps of the loop: :meth:`~ADMMRun.step`
(eqs. 6–8 with the trace ball), :meth:`~ADMMRun.record` (eq. 14's residuals),
:meth:`~ADMMRun.check_gap` (the certified duality gap, the escapes and the stall of problem
(1)), :meth:`~ADMMRun.try_widening` (the rank), :meth:`~ADMMRun.adapt_penalties`
(eqs. 15–16) and :meth:`~ADMMRun.result`.
"""

from __future__ import annotations

import time

import numpy as np

from ...formulations.losses import LOSSES
from ...formulations.npkl import NPKL
from ...formulations.npkl_trace_bound import certified_lower_bound, null_structure, trace_bound
from ...linalg.anderson import Anderson
from ...linalg.extreme import LowestEigenpair
from ...linalg.positive_part import EigenBudget
from ...result import KernelFactor, PointStatus, Result, Termination
from .certificate_spacing import check_spacing
from .factor_steps import ball_step, free_columns, warm_start, widen
from .pattern import PairPattern

#: saturation is judged once the residuals are below this (early iterates fill every column)
GROW_GATE = 1e-3
#: ... or when this many iterations passed without (a factor too narrow may never get there)
GROW_PATIENCE = 500
#: iterations after a widening before the next: the new columns must first grow or decay
#: (measured at n = 20,000: without it 32 → 48 → 72 columns 50 iterations apart, 119-128 s;
#: with it 48 columns, 97 s)
GROW_COOLDOWN = 300
#: the starting penalties (and floors): β₀ = BETA_SCALE·g, α₀ = ALPHA_SCALE·β₀/‖X⁰‖₂²
#: (see the solver's *Penalties*)
BETA_SCALE = 3.0
ALPHA_SCALE = 1.0
#: without a capacity: a stalled solve first adds the free null directions of L as columns,
#: with norm² FREE_SCALE·10^k·tr K at the k-th of MAX_ESCAPES escapes
#: (factor_steps.free_columns)
FREE_SCALE = 1.0
MAX_ESCAPES = 2
#: without a capacity, ADMM stops on eq. 14 alone once the certified gap has fallen by less
#: than STALL_FACTOR over the last STALL_CHECKS certificates (residuals already below tol)
STALL_CHECKS = 4
STALL_FACTOR = 0.9

#: :meth:`ADMMRun.check_gap`'s answer when the run goes on from a wider state
RESTARTED = "restarted"


class ADMMRun:
    """The state of one ADMM run on ``f`` with validated options ``o`` (an ``ADMMOptions``),
    factor width ``r_start`` growing up to ``r_cap``, iterating in ``dtype`` with Anderson's
    differences kept in ``history_dtype``."""

    def __init__(
        self, f: NPKL, o, r_cap: int, r_start: int, dtype=np.float64, history_dtype=np.float64
    ):
        self.t0 = time.perf_counter()
        self.f, self.o, self.r_cap = f, o, r_cap
        self.dtype, self.history_dtype = dtype, history_dtype
        self.P, self.m = f.pairs, f.pairs.m
        self.lam = f.C / 2.0  # per ordered entry
        self.loss = LOSSES[f.loss]
        # seed 001's problem (1) has no capacity: no ball in the factor steps, and the
        # certificate's bound on tr ΠKΠ comes from the data (formulations/npkl_trace_bound)
        self.capped = f.capacity == "trace"
        self.ball = f.B if self.capped else np.inf
        self.structure = None if self.capped else null_structure(f.L)
        # the free null directions of L: the same at every level
        self.free = [] if self.capped else trace_bound(f, 0.0, self.structure).free
        self.p_zero = f.value_at_zero()  # P(0): an a-priori level
        self.bound_info: dict = {}
        # the pattern: Q = Ω ∪ Ωᵀ inside W's sparsity supp(L) ∪ Q (pattern.py)
        self.pat = PairPattern(f.L, self.P.i, self.P.j, self.P.t, dtype)
        self.q = self.pat.q
        self.work: dict = {}
        self.lowest = LowestEigenpair()
        self._start(r_start)
        self.history: list[dict] = []
        self.termination = Termination.ITERATION_LIMIT
        self.gap, self.dual_bound, self.lo = np.nan, np.nan, 0.0
        self.next_check, self.cert_s = 0, 0.0
        self.checks: list[tuple[int, float]] = []
        self.grown_at, self.escapes = 0, 0
        self.residual = (np.nan, np.nan, np.nan)
        self.nu, self.z_pairs = 0.0, None

    def _start(self, r: int) -> None:
        """The warm start X = Y (``factor_steps.warm_start``), H = 0, A = −L on Q, E = 0,
        and the starting penalties, which are also their floors."""
        f = self.f
        self.v = np.zeros(3 * f.n * r + 2 * self.q, dtype=self.dtype)
        X0, Y0, _, A0, _ = self.views(self.v)
        X0[:] = warm_start(f, r, self.o.seed)
        Y0[:] = X0
        A0[:] = -self.pat.Lq_it
        self.beta = BETA_SCALE * max(float(abs(f.L).max()), self.lam)
        self.alpha = ALPHA_SCALE * self.beta / float(np.linalg.norm(X0, 2)) ** 2
        self.floors = (self.alpha, self.beta)
        self.g = np.empty_like(self.v)
        self.accel = self.mixing(self.v.size)

    # ----- the state: one flat vector (X, Y, H as n×r, then A, E on Q); r may grow --------
    def views(self, v: np.ndarray):
        """(X, Y, H, A, E) as views of the flat state ``v``."""
        q, n = self.q, self.f.n
        nr = (v.size - 2 * q) // 3
        shape = (n, nr // n)
        return (
            v[:nr].reshape(shape),
            v[nr : 2 * nr].reshape(shape),
            v[2 * nr : 3 * nr].reshape(shape),
            v[3 * nr : 3 * nr + q],
            v[3 * nr + q :],
        )

    def buffers(self, r_now: int) -> dict:
        """Work arrays of the step at this width, allocated once per width (at n = 100,000
        each n×r array is over glibc's mmap threshold, so a fresh one is page-faulted anew
        every time it is made)."""
        work, n, dtype = self.work, self.f.n, self.dtype
        if work.get("r") != r_now:
            work.clear()
            work.update(
                r=r_now,
                T=np.empty((n, r_now), dtype=dtype),
                R=np.empty((n, r_now), dtype=dtype),
                gather=np.empty((4, self.m, r_now), dtype=dtype),
            )
        return work

    def mixing(self, size: int) -> Anderson:
        return Anderson(self.o.anderson, size, self.dtype, self.history_dtype)

    def restart(self, grown: np.ndarray) -> None:
        """Go on from a wider state (new columns): a fresh image and Anderson history."""
        self.v = grown.astype(self.dtype, copy=False)
        self.g, self.accel = np.empty_like(self.v), self.mixing(self.v.size)

    # ----- the map: one ADMM step, eqs. 6–8 (module docstring of .solver) -----------------
    def step(self, v_in: np.ndarray, v_out: np.ndarray) -> None:
        """The X-step and Y-step inside the trace ball, the Z-step (each loss's prox) on the
        pairs, and the multiplier updates, from ``v_in`` into ``v_out``."""
        X, Y, H, A, E = self.views(v_in)
        Xn, Yn, Hn, An, En = self.views(v_out)
        ws = self.buffers(X.shape[1])
        T, R = ws["T"], ws["R"]
        pat, alpha, beta, P = self.pat, self.alpha, self.beta, self.P
        pat.update(A, E, alpha)
        # the right-hand sides are accumulated in place (measured at n = 20,000, r = 54:
        # 88 → 75 ms per iteration against summing fresh n×r temporaries)
        GY = Y.T @ Y
        pat.times(Y, out=R)
        R += np.matmul(X, alpha * GY, out=T)
        R += np.multiply(Y, beta, out=T)
        R -= H
        ball_step(R, GY, alpha, beta, self.ball, out=Xn)
        pat.transpose_times(Xn, out=R)
        R += np.matmul(Y, alpha * (X.T @ Xn), out=T)
        R += np.multiply(Xn, beta, out=T)
        R += H
        self.nu = ball_step(R, Xn.T @ Xn, alpha, beta, self.ball, out=Yn)
        # S = XᵀY on Q from four gathers of m rows; the pairs of K = XᵀX come for free
        Xi, Xj, Yi, Yj = ws["gather"]
        # mode="clip" (the indices are valid): "raise" with out= buffers the whole
        # output (measured at n = 100,000, r = 48: 37 → 24 ms per gather)
        np.take(Xn, P.i, axis=0, out=Xi, mode="clip")
        np.take(Xn, P.j, axis=0, out=Xj, mode="clip")
        np.take(Yn, P.i, axis=0, out=Yi, mode="clip")
        np.take(Yn, P.j, axis=0, out=Yj, mode="clip")
        S = np.concatenate([_dot_rows(Xi, Yj), _dot_rows(Xj, Yi)])
        self.z_pairs = _dot_rows(Xi, Xj)
        np.subtract(
            self.loss.prox(S - (A + pat.Lq_it) / alpha, pat.Tq, self.lam, alpha),
            S,
            out=En,
            casting="same_kind",
        )
        np.add(A, alpha * En, out=An)
        np.subtract(Xn, Yn, out=Hn)
        Hn *= beta
        Hn += H

    # ----- what is measured at a point --------------------------------------------------------
    def objective(self, Xt, zp=None) -> float:
        """P(K) at K = XᵀX, in double (``zp``: K on the pairs, when already known)."""
        f, P = self.f, self.P
        Xt = np.asarray(Xt, dtype=np.float64)
        zp = _rowdot(Xt, Xt, P.i, P.j) if zp is None else np.asarray(zp, dtype=np.float64)
        laplacian = float(np.sum(Xt * (self.pat.L @ Xt)))
        return laplacian + float(np.sum(self.loss.value(zp, P.t, f.C)))

    def pair_multipliers(self, A) -> np.ndarray:
        """β_ij = −(A_ij + A_ji + 2L_ij), the Z-step's stationarity (solver docstring)."""
        A = np.asarray(A, dtype=np.float64)
        m = self.m
        return -(A[:m] + A[m:] + 2 * self.pat.Lq[:m])

    def relative_gap(self, Xt, A) -> tuple[float, float, float]:
        """(P(K) − g(β)) / max(1, |P(K)|) at K = XᵀX (tr K ≤ B by the X-step), g(β), and
        λ_min(M(β)).  Without a capacity g is the bound of the a-priori trace bound's
        theorem at the level u = min(P(0), P(K)) (docs/npkl.md §6)."""
        f = self.f
        b = self.pair_multipliers(A)
        primal = self.objective(Xt)
        if self.capped:
            lo = self.lowest(f.dual_matrix(b))
            dual = f.dual_value(b, spectrum=lo)
        else:
            cb = certified_lower_bound(f, b, min(self.p_zero, primal), self.structure, self.lowest)
            dual, lo = cb["lower"], cb["lambda_min"]
            self.bound_info.update(cb["bound"].describe(), repair_residual=cb["repair_residual"])
        return (primal - dual) / max(1.0, abs(primal)), dual, lo

    # ----- the loop ---------------------------------------------------------------------------
    def solve(self, solver: str) -> Result:
        """Iterate to a stop and return the answer (``solver``: the name it reports)."""
        self.termination = self.iterate()
        return self.result(solver)

    def iterate(self) -> Termination:
        """Iterate until a stop; the termination."""
        for it in range(1, self.o.max_iter + 1):
            stop = self.iteration(it)
            if stop is not None:
                return stop
        return Termination.ITERATION_LIMIT

    def iteration(self, it: int) -> Termination | None:
        """One iteration: the step, its residuals, the certificate when due, the limits, the
        widening, the penalties and Anderson's next point; the termination when it stops."""
        self.step(self.v, self.g)
        X, _, _, A, _ = self.views(self.g)
        rec = self.record(it)
        if max(self.residual) <= self.o.tol and it >= self.next_check:
            outcome = self.check_gap(it, X, A, rec)
            if outcome is RESTARTED:
                return None
            if outcome is not None:
                return outcome
        self.history.append(rec)
        time_limit = self.o.time_limit
        if time_limit is not None and rec["time_s"] > time_limit:
            return Termination.TIME_LIMIT
        self.report_progress(it, rec)
        if self.widening_due(it, X) and self.try_widening(it, A):
            return None
        self.adapt_penalties()
        self.v = self.accel.next_point(self.v, self.g)
        return None

    def record(self, it: int) -> dict:
        """Eq. 14's residuals of the new point (relative to ‖X‖, ‖X‖² for Z), kept in
        ``residual``, and the iteration's history row (P(K) every ``check_every``)."""
        X, Y, _, _, E = self.views(self.g)
        Xin = self.views(self.v)[0]
        T = self.work["T"]  # free between steps
        xn = max(1.0, float(np.linalg.norm(X)))
        p1 = float(np.linalg.norm(E)) / xn**2
        p2 = float(np.linalg.norm(np.subtract(X, Y, out=T))) / xn
        dd = float(np.linalg.norm(np.subtract(X, Xin, out=T))) / xn
        self.residual = (p1, p2, dd)
        rec = {
            "iteration": it,
            "primal_1": p1,
            "primal_2": p2,
            "dual": dd,
            "alpha": self.alpha,
            "beta": self.beta,
            "rank": X.shape[1],
            "time_s": time.perf_counter() - self.t0,
        }
        o = self.o
        if it == 1 or it % o.check_every == 0 or (o.progress is not None and it % 50 == 0):
            # P(K) costs an L·X product: recorded every check_every iterations, not each
            rec["objective"] = self.objective(X, self.z_pairs)
        return rec

    def check_gap(self, it: int, X, A, rec: dict) -> Termination | str | None:
        """The certified gap once the residuals pass: OPTIMAL at ``gap_tol``; without a
        capacity, a stalled gap first adds L's free directions (``RESTARTED``), then stops
        as LOCALLY_SOLVED; else None, with the next check spaced by its cost and rate."""
        tc = time.perf_counter()
        self.gap, self.dual_bound, self.lo = self.relative_gap(X, A)
        rec["relative_gap"] = self.gap
        if self.gap <= self.o.gap_tol:
            self.history.append(rec)
            return Termination.OPTIMAL
        stalled = not self.capped and _stalled(self.checks + [(it, self.gap)])
        if stalled and self.escapes < MAX_ESCAPES:
            grown = free_columns(self.views(self.g), self.free, FREE_SCALE * 10**self.escapes)
            if grown is not None:
                self.escapes += 1
                self.checks.clear()
                self.restart(grown)
                self.history.append(rec)
                return RESTARTED
        if stalled:
            # eq. 14 met and the certified gap no longer falls: a stationary point of the
            # factorised problem (seed 001 Proposition 1), not certified optimal
            self.history.append(rec)
            return Termination.LOCALLY_SOLVED
        t_cert = time.perf_counter() - tc
        self.cert_s += t_cert
        self.checks.append((it, self.gap))
        cost = t_cert * it / max(rec["time_s"] - self.cert_s, 1e-9)
        self.next_check = it + check_spacing(self.checks, self.o.gap_tol, self.o.check_every, cost)
        return None

    def report_progress(self, it: int, rec: dict) -> None:
        progress = self.o.progress
        if progress is not None and (it == 1 or it % 50 == 0):
            progress(
                {
                    **rec,
                    "primal": rec["objective"],
                    "dual": self.dual_bound,
                    "relative_gap": self.gap,
                }
            )

    def widening_due(self, it: int, X) -> bool:
        """Whether saturation is judged now: below the cap, every ``check_every``, once the
        residuals pass ``GROW_GATE`` (or after ``GROW_PATIENCE``), not within
        ``GROW_COOLDOWN`` of the last widening."""
        o, grown_at = self.o, self.grown_at
        return (
            X.shape[1] < self.r_cap
            and it % o.check_every == 0
            and it < o.max_iter
            and (max(self.residual) <= GROW_GATE or it >= grown_at + GROW_PATIENCE)
            and (grown_at == 0 or it >= grown_at + GROW_COOLDOWN)
        )

    def try_widening(self, it: int, A) -> bool:
        """Widen a saturated factor (``factor_steps.widen``) and go on from there; False when
        the rank is not saturated or the time limit stopped the eigensolver."""
        f = self.f
        grown = widen(
            self.views(self.g),
            self.r_cap,
            self.o.seed + it,
            lambda: f.dual_matrix(self.pair_multipliers(A)),
            EigenBudget(self.o.time_limit, start=self.t0),
        )
        if grown is None:
            return False
        self.grown_at = it
        self.restart(grown)
        return True

    def adapt_penalties(self) -> None:
        """Eqs. 15–16 with the scale-aware floors; Anderson restarts when the map changes."""
        p1, p2, dd = self.residual
        old = (self.alpha, self.beta)
        if p1 > 10 * dd:
            self.alpha *= 2
        elif dd > 10 * p1:
            self.alpha = max(self.alpha / 2, self.floors[0])
        if p2 > 10 * dd:
            self.beta *= 2
        elif dd > 10 * p2:
            self.beta = max(self.beta / 2, self.floors[1])
        if (self.alpha, self.beta) != old:
            self.accel.reset()  # the map changed with the penalties

    # ----- the answer -------------------------------------------------------------------------
    def result(self, solver: str) -> Result:
        """The returned point K = XᵀX with its certificate: the last one when the run
        stopped on it, else one taken now to say how far the point is."""
        f, termination = self.f, self.termination
        X, _, _, A, _ = self.views(self.g)
        if termination not in (Termination.OPTIMAL, Termination.LOCALLY_SOLVED):
            self.gap, self.dual_bound, self.lo = self.relative_gap(X, A)
        Xt = np.ascontiguousarray(X, dtype=np.float64)
        value = self.objective(Xt)
        message = (
            ""
            if self.capped
            else _certified_by(
                termination,
                self.dual_bound,
                value,
                self.gap,
                self.o.gap_tol,
                self.o.tol,
                self.bound_info,
            )
        )
        # the trace multiplier that makes M(β) + λI ⪰ 0 (the dual function's own choice);
        # λ_min(M(β)) comes from the last certificate, taken at this very point
        lam = max(0.0, -self.lo) if self.capped else 0.0
        return Result(
            formulation=f.name,
            solver=solver,
            termination=termination,
            point=PointStatus.FEASIBLE_POINT,
            objective=value,
            kernel=KernelFactor(Xt),
            duals={"beta": self.pair_multipliers(A), "lam": lam},
            message=message,
            solve_time_s=time.perf_counter() - self.t0,
            iterations=len(self.history),
            history=self.history,
            lower_bound=self.dual_bound,
            upper_bound=value,
            info=self.info(Xt.shape[1]),
        )

    def info(self, rank: int) -> dict:
        """The result's ``info``: rank, gap, residual, final penalties, sizes, timings and,
        without a capacity, what certifies the answer and the a-priori bound's figures."""
        info = {
            "rank": rank,
            "rank_cap": self.r_cap,
            "relative_gap": self.gap,
            "residual": max(self.residual),
            "final_alpha": self.alpha,
            "final_beta": self.beta,
            "pattern_entries": self.pat.nnz,
            "anderson": self.o.anderson,
            "certificate_s": self.cert_s,
            "last_step_trace_multiplier": self.nu,
        }
        if not self.capped:
            info["certified_by"] = {
                Termination.OPTIMAL: "duality gap (a-priori trace bound)",
                Termination.LOCALLY_SOLVED: "eq. 14 residuals only",
            }.get(self.termination, "nothing (stopped at a limit)")
        info.update({f"bound_{k}": v for k, v in self.bound_info.items()})
        return info


def _stalled(checks: list[tuple[int, float]]) -> bool:
    """The gap at the last of ``STALL_CHECKS`` certificates is above ``STALL_FACTOR`` times
    the gap at the first of them."""
    if len(checks) < STALL_CHECKS:
        return False
    first, last = checks[-STALL_CHECKS][1], checks[-1][1]
    return last > STALL_FACTOR * first


def _certified_by(termination, lower, upper, gap, gap_tol, tol, bound) -> str:
    """What the answer to problem (1) (no capacity) is certified by, in one sentence."""
    where = (
        f"[{lower:.8g}, {upper:.8g}] from the a-priori bound tr ΠKΠ ≤ "
        f"{bound.get('B_bar', float('nan')):.4g} ({bound.get('free_directions', 0)} free "
        f"null directions of L; docs/npkl.md §6)"
    )
    if termination == Termination.OPTIMAL:
        return f"certified by the duality gap {gap:.1e} ≤ {gap_tol:g}: optimum in {where}"
    if termination == Termination.LOCALLY_SOLVED:
        return (
            f"certified by eq. 14's residuals only (≤ {tol:g}): a stationary point of the "
            f"factorised problem (seed 001 Proposition 1); its certified interval {where} "
            f"has relative gap {gap:.1e} > {gap_tol:g}, so optimality is not certified"
        )
    return f"not certified: stopped at a limit with relative gap {gap:.1e}; optimum in {where}"


def _dot_rows(U: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Row-wise inner products ⟨U_k, V_k⟩ (no m×r temporary)."""
    return np.einsum("ij,ij->i", U, V)


def _rowdot(U: np.ndarray, V: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """(UVᵀ)_ij for index vectors i, j: the kernel entries on a pattern, never UVᵀ itself."""
    return _dot_rows(U[i], V[j])
