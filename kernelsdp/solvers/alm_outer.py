"""The outer loop of the low-rank augmented Lagrangian (:mod:`.low_rank_alm`: the method,
its constants and its options are documented there)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from ..errors import InvalidParameterError
from ..formulations.npkl import NPKL
from ..result import KernelFactor, PointStatus, Result, Termination
from .alm_anderson import AndersonMultipliers
from .alm_blocks import take_blocks
from .alm_certificate import certificate, interval
from .alm_inner import apg, below_level, evaluate, fw_check, fw_step, participation, shrink
from .alm_lmp import StepPairs
from .alm_newton import DELTA_MAX, newton
from .alm_pockets import take_pockets
from .alm_problem import ScaledNPKL
from .alm_rows import PairIndex, pocket_rows, sweep_rows
from .alm_start import retire, spectral_start, start_width
from .alm_tail import TAIL_CG, in_tail, stop_rule
from .low_rank_alm import (
    CERTIFY_AT,
    FW_SHARE,
    FY_PROGRESS,
    LOCALISED,
    NEWTON_STEPS,
    POLISH_SETTLED,
    POLISH_SETTLED_MOVES,
    POLISH_STEPS,
    RETRY_AT,
    RHO_MAX,
    SLOW_UPDATES,
    STALLED_BELOW,
    pairs_fit,
    scratch_fits,
)

#: the solver's own Newton round (the prototypes replace ``newton`` in this module)
_OWN_NEWTON = newton


@dataclass
class Start:
    """A warm start of the outer loop: the factor U (n×r, the caller's order, K = UUᵀ,
    scaled onto tr K ≤ B if beyond), the pair multipliers β (m, the pairs' order: the β of
    :mod:`.alm_problem`, hinge β = −α·T), and ρ (K's units) and the step's ℓ if known.
    The multilevel start (:mod:`.alm_coarse`) prolongs a coarse solution into one."""

    U: np.ndarray
    beta: np.ndarray
    rho: float | None = None
    ell: float | None = None

    def checked(self, n: int, m: int) -> Start:
        U, beta = np.asarray(self.U, dtype=np.float64), np.asarray(self.beta, dtype=np.float64)
        if U.ndim != 2 or U.shape[0] != n or not np.all(np.isfinite(U)):
            raise InvalidParameterError(
                f"The warm start's factor must be a finite {n}×r array. Got shape {U.shape}."
            )
        if beta.shape != (m,) or not np.all(np.isfinite(beta)):
            raise InvalidParameterError(
                f"The warm start's multipliers must be {m} finite values. Got shape {beta.shape}."
            )
        for name, v in (("rho", self.rho), ("ell", self.ell)):
            if v is not None and not (math.isfinite(v) and v > 0):
                raise InvalidParameterError(
                    f"The warm start's {name} must be a positive float. Got {v!r} instead."
                )
        return Start(U, beta, self.rho, self.ell)


@dataclass
class Kept:
    """The point with the lowest estimated gap so far, with its check's multipliers β̃ and
    Ritz value: at a limit the last point may be a hub's pocket (its estimated gap 0.9
    where a check before read 1.7e-2, n = 10⁶), and this one is certified too."""

    X: np.ndarray
    beta: np.ndarray
    lam: float
    estimate: float
    check: int


class _Run:
    """One solve's state: the point, the multipliers, the counters, the history.  ``prob``
    replaces the scaled problem (a coarse level's, :mod:`.alm_coarse`); ``estimate_only``
    stops at the estimated gap without the labelled interval (a coarse level has none)."""

    def __init__(
        self,
        f: NPKL,
        o,
        rank_cap: int,
        start: Start | None = None,
        prob: ScaledNPKL | None = None,
        estimate_only: bool = False,
    ):
        self.t0 = time.perf_counter()
        self.f, self.o, self.cap = f, o, rank_cap
        dtype = np.float32 if o.precision == "single" else np.float64
        self.prob = ScaledNPKL(f, dtype, o.reorder) if prob is None else prob
        self.estimate_only, self.last_check = estimate_only, None
        self.beta = np.zeros(f.pairs.m)
        self.rho = o.rho * f.C
        self.X0 = np.zeros((self.prob.n, 0), dtype=self.prob.dtype)
        self.ell = 1.0
        self.delta = DELTA_MAX / 8  # the Newton inner's trust radius
        self.iterations, self.checks, self.eig_products = 0, 0, 0
        self.retire_budget = 0  # the spectral start's directions left to retire (alm_start)
        if start is not None:
            self._warm(start.checked(self.prob.n, f.pairs.m))
        elif o.spectral_start and not estimate_only:
            self._spectral(start_width(self.prob.n, o.spectral_start, rank_cap))
        self.deadline = None if o.time_limit is None else self.t0 + o.time_limit
        self.updates = 0  # multiplier updates so far
        self.history: list[dict] = []
        self.warm = None
        self.next_certify = math.inf  # the estimated gap below which to certify again
        self.best = None  # the last labelled interval
        self.kept: Kept | None = None
        self.answer_check: int | None = None  # the check whose point answers (None: a polish)
        self.polished, self.newton_steps, self.krylov = False, 0, 0
        self.localised = False  # the last check's vertex: a hub's pocket (``inner="hybrid"``)
        # the rows that carried the pockets so far, swept before each Newton round
        # (:mod:`.alm_rows`), and the pairs at each row (built at the first pocket)
        self.hub_rows = np.empty(0, dtype=np.int64)
        self.pair_index: PairIndex | None = None
        self.pockets = 0  # hubs' pockets line-searched in after the Frank–Wolfe steps
        self.pockets_s = 0.0  # and the time their search and steps took
        self.blocks = 0  # hubs' pockets solved as PSD blocks before the checks, and kept
        self.blocks_s = 0.0  # and the time their search and solves took
        # the Newton steps' conjugate gradients preconditioned by the step before (alm_lmp)
        self.pairs = StepPairs(o.lmp_pairs) if o.lmp_pairs and o.inner != "fista" else None
        self.tail: dict = {}  # the tail's rounds (alm_tail): rounds, stopped, products with M
        self.estimate = math.inf  # the last check's estimated gap

    def _warm(self, start: Start) -> None:
        """The start in the scaled problem's terms (the factor onto ‖V‖_F ≤ 1)."""
        X = self.prob.from_original(start.U).astype(np.float64)
        X *= 1.0 / max(1.0, math.sqrt(float(np.sum(X * X))))
        self.X0 = X.astype(self.prob.dtype)
        self.beta = start.beta.copy()
        self.rho = self.rho if start.rho is None else min(start.rho, RHO_MAX * self.f.C)
        self.ell = self.ell if start.ell is None else start.ell

    def _spectral(self, k: int) -> None:
        """The factor from the bottom of M(β̃₀) (:mod:`.alm_start`), its products with M
        counted with the eigensolver's."""
        if k > 0:
            self.X0, products = spectral_start(self.prob, self.beta, self.rho, k, self.o.seed)
            self.eig_products += products
            self.retire_budget = self.X0.shape[1]

    def retired(self, X: np.ndarray) -> np.ndarray:
        """X with the spectral start's directions that have died dropped
        (:func:`.alm_start.retire`; X itself without a spectral start)."""
        X, self.retire_budget = retire(X, self.retire_budget)
        return X

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def out_of_budget(self) -> Termination | None:
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            return Termination.TIME_LIMIT
        if self.iterations >= self.o.max_iter:
            return Termination.ITERATION_LIMIT
        return None

    def check(self, pt):
        chk = fw_check(self.prob, pt, self.beta, self.rho, self.warm, self.o.seed + self.checks)
        self.checks += 1
        self.eig_products += chk.eig_products
        self.warm = chk.block
        gap = (chk.primal - chk.dual_estimate) / max(abs(chk.primal), 1e-300)
        rec = {
            "check": self.checks,
            "iteration": self.iterations,
            "time_s": self.elapsed(),
            "products": self.prob.products,
            "eig_products": self.eig_products,
            "rank": pt.X.shape[1],
            "rho": self.rho,
            "lambda": chk.lam,
            "multiplier_updates": self.updates,
            "vertex_participation": participation(chk.vertex),
            "seeds": int(np.count_nonzero(below_level(chk))),
            "block": int(chk.block.shape[1]),
            "primal": chk.primal * self.prob.scale,
            "dual": chk.dual_estimate * self.prob.scale,
            "estimated_gap": gap,
            "fw_gap": chk.fw_gap / max(abs(chk.primal), 1e-300),
            "fy_gap": chk.fy_gap / max(abs(chk.primal), 1e-300),
            "trust_radius": self.delta,  # the Newton steps' Δ, as the round before left it
        }
        self.localised = rec["vertex_participation"] < LOCALISED and chk.lam < min(chk.level, 0.0)
        self.estimate = gap  # the last check's estimated gap (the tail's rounds, alm_tail)
        if self.localised:
            self.hub_rows = np.union1d(self.hub_rows, pocket_rows(chk.vertex))
        self.history.append(rec)
        # a coarse level (estimate_only) is never certified: nothing to keep there
        if not self.estimate_only and (self.kept is None or gap < self.kept.estimate):
            beta = np.array(chk.beta_tilde, dtype=np.float64)
            self.kept = Kept(pt.X.copy(), beta, chk.lam, gap, self.checks)
        if self.o.progress is not None:
            self.o.progress(dict(rec))
        return chk, rec

    def certify(self, pt, chk, target: float, max_steps: int | None = None, final: bool = False):
        """The labelled interval at the point (records its width in the history); before
        a next check (not ``final``) it may bring back a direction the check missed."""
        beta = np.asarray(chk.beta_tilde, dtype=np.float64)
        iv = self.interval_at(pt.X, beta, chk.lam, target, max_steps, find_missed=not final)
        self.best, self.answer_check = (iv, beta), self.checks
        self.history[-1].update(
            certified_gap=iv.width,
            lower=iv.lower,
            upper=iv.upper,
            lower_label=iv.lower_label,
            lanczos_steps=iv.steps,
        )
        return iv

    def certify_kept(self) -> Termination | None:
        """At a limit, after the last point's interval: the kept point's too, when its
        estimated gap is below that interval's width; the narrower becomes the answer
        (its own history record, ``kept_check``).  OPTIMAL if it is within gap_tol."""
        k, tol = self.kept, self.o.gap_tol
        if self.best is None or k is None or k.check == self.checks:
            return None  # nothing certified yet (a coarse level), or the last is the kept
        if k.estimate >= self.best[0].width:
            return None  # its interval could not be the narrower
        # the width cannot fall below the estimate: size the randomised bound's slack by it
        iv = self.interval_at(k.X, k.beta, k.lam, max(tol, k.estimate), None, salt=1)
        self.history.append(
            {
                "kept_check": k.check,
                "time_s": self.elapsed(),
                "products": self.prob.products,
                "estimated_gap": k.estimate,
                "certified_gap": iv.width,
                "lower": iv.lower,
                "upper": iv.upper,
                "lower_label": iv.lower_label,
                "lanczos_steps": iv.steps,
            }
        )
        if iv.width < self.best[0].width:
            self.best, self.answer_check = (iv, k.beta), k.check
        return Termination.OPTIMAL if self.best[0].width <= tol else None

    def interval_at(
        self,
        X,
        beta,
        lam: float,
        target: float,
        max_steps: int | None,
        salt: int = 0,
        find_missed: bool = False,
    ):
        """:func:`.alm_certificate.interval` at the scaled factor X and the multipliers β
        (``salt`` draws another start for the randomised bound)."""
        return interval(
            self.f,
            self.prob.to_original(X),
            beta,
            lam,
            target,
            self.o.verify_max_n,
            self.o.failure_probability,
            self.o.seed + 7919 * self.checks + salt,
            max_steps,
            find_missed,
        )


def solve_alm(name: str, f: NPKL, o, rank_cap: int, start: Start | None = None) -> Result:
    """The solve (see :mod:`.low_rank_alm`), from ``start`` when given (else K = 0, β = 0)."""
    # the dense work is O(n·s) and O(s²n); one BLAS thread leaves the other core to the
    # threaded sparse products and gathers
    with threadpool_limits(limits=1, user_api="blas"):
        run = _Run(f, o, rank_cap, start)
        pt, status = iterate(run)
        return _result(name, run, pt, status)


class Schedule:
    """The outer loop's multiplier update and penalty schedule (docs/npkl.md §7): ρ doubles
    (at most ``RHO_MAX``·C) after ``SLOW_UPDATES`` updates in a row that each left FY above
    ``FY_PROGRESS`` of its value at the update before, and β moves to the prox β̃ mixed by
    Anderson (:mod:`.alm_anderson`); the inner loop ends at FW ≤ ``fw_share``·FY.  A
    prototype passes its own to :func:`iterate`."""

    fw_share = FW_SHARE

    def __init__(self, run: _Run):
        prob = run.prob
        project = lambda b: prob.loss.project(b, prob.t, prob.C)
        self.mix = AndersonMultipliers(run.o.anderson, project)
        self.slow = 0  # updates in a row that left FY above FY_PROGRESS of the last

    def seen(self, rec: dict) -> None:
        """Each check's record (the default keeps nothing)."""

    def update(self, run: _Run, chk, rec: dict, fy_last: float) -> None:
        rho = run.rho
        run.updates += 1
        self.slow = self.slow + 1 if chk.fy_gap > FY_PROGRESS * fy_last else 0
        if self.slow >= SLOW_UPDATES:
            run.rho, self.slow = min(2.0 * run.rho, RHO_MAX * run.f.C), 0
        run.beta = self.mix.next(run.beta, chk.beta_tilde, chk.fy_gap, run.rho != rho)


def iterate(run: _Run, schedule: Schedule | None = None):
    """The outer loop from the run's start to its stop: (the last point, the status)."""
    prob = run.prob
    sched = Schedule(run) if schedule is None else schedule
    pt = evaluate(prob, run.X0, run.beta, run.rho)
    fy_last, status, stalled = math.inf, None, False
    while status is None:
        chk, rec = run.check(pt)
        sched.seen(rec)
        if _polish_due(run, pt, rec) and _polish(run, chk, pt):
            status = Termination.OPTIMAL
            break
        status = _stop(run, pt, chk, rec)
        if status is not None:
            break
        # the subproblem is solved well enough, or as well as the inner solver can: its last
        # gradient steps stopped as stationary (in float32 the FW gap can rest above fw_share·FY)
        if chk.fw_gap <= sched.fw_share * chk.fy_gap or stalled:
            sched.update(run, chk, rec, fy_last)
            fy_last = chk.fy_gap
            X = run.retired(pt.X)
            pt = evaluate(prob, X, run.beta, run.rho, pt.LX if X is pt.X else None)
        else:
            pt = evaluate(prob, frank_wolfe(run, pt, chk), run.beta, run.rho)
        pt, stalled = _inner_round(run, pt, 0.1 * sched.fw_share * chk.fy_gap)
        status = run.out_of_budget()
        if status is not None:  # the last point, certified: OPTIMAL if that suffices
            chk, rec = run.check(pt)
            status = _stop(run, pt, chk, rec, final=True) or run.certify_kept() or status
    return pt, status


def frank_wolfe(run: _Run, pt, chk) -> np.ndarray:
    """The factor after the check's Frank–Wolfe step (:func:`.alm_inner.fw_step`), then,
    with ``o.pockets``, the hubs' pockets below V's level taken in bulk
    (:func:`.alm_pockets.take_pockets`), then shrunk to the width cap."""
    X = fw_step(run.prob, pt, chk, run.beta, run.rho)
    if run.o.pockets:
        t = time.perf_counter()
        X, found = take_pockets(run.prob, X, chk.level, run.beta, run.rho)
        run.pockets, run.pockets_s = run.pockets + found, run.pockets_s + time.perf_counter() - t
    return shrink(X, run.cap)


def _inner_round(run: _Run, pt, tol: float):
    """The round's steps (:func:`_inner_steps`), then, with ``o.pocket_blocks``, the hubs'
    pockets below V's level solved as PSD blocks (:func:`.alm_blocks.take_blocks`): the
    point the next check sees.  Returns (the point, whether the steps stalled)."""
    pt, stalled = _inner_steps(run, pt, tol)
    if run.o.pocket_blocks:
        t = time.perf_counter()
        pt, found = take_blocks(run.prob, pt, run.beta, run.rho, run.cap)
        run.blocks, run.blocks_s = run.blocks + found, run.blocks_s + time.perf_counter() - t
    return pt, stalled


def _inner_steps(run: _Run, pt, tol: float):
    """The subproblem's steps between two checks, by ``o.inner``: FISTA (``inner_iterations``
    of :func:`.alm_inner.apg`), trust-region Newton (``NEWTON_STEPS`` of
    :func:`.alm_newton.newton`), or ``hybrid``: FISTA's after a check whose vertex was a
    hub's pocket (``LOCALISED``), Newton's otherwise; within ``max_iter``.  Returns (the
    point, whether the steps stalled)."""
    o = run.o
    if o.inner == "newton" or (o.inner == "hybrid" and not run.localised):
        if run.hub_rows.size:
            if run.pair_index is None:
                run.pair_index = PairIndex(run.prob)
            pt = sweep_rows(run.prob, pt, run.beta, run.rho, run.hub_rows, run.pair_index)
        width = pt.X.shape[1]
        preconditioned = {}
        # the pairs precondition the solver's own round only: the #30 prototypes put their
        # rounds here (benchmarks/npkl_*_proto.py) with their own steps
        if run.pairs is not None and newton is _OWN_NEWTON:
            if pairs_fit(run.f, o, width):
                run.pairs.reset()
                preconditioned["step"] = run.pairs.step
            else:
                run.pairs.release()
        pt, run.delta, info = newton(
            run.prob,
            pt,
            run.beta,
            run.rho,
            run.delta,
            NEWTON_STEPS,
            tol,
            run.deadline,
            o.max_iter - run.iterations,
            keep_scratch=scratch_fits(run.f, o, width),
            **preconditioned,
            **_tail_round(run),
        )
        run.iterations += info["iterations"]
        run.eig_products += run.tail.pop("products", 0)
        return pt, pt.X.shape[1] > 0 and info["steps"] == 0
    budget = min(o.inner_iterations, o.max_iter - run.iterations)
    pt, run.ell, info = apg(
        run.prob,
        pt,
        run.beta,
        run.rho,
        run.ell,
        budget,
        tol=tol,
        deadline=run.deadline,
        keep_scratch=True,
    )
    run.iterations += info["iterations"]
    # at width 0 there is nothing for the gradient steps to do: not a stall, or the
    # multipliers would be updated until FY = 0 without a Frank–Wolfe step (ρ ≤ C/4
    # never left K = 0 and ran to the iteration limit)
    return pt, pt.X.shape[1] > 0 and info["iterations"] < min(budget, STALLED_BELOW)


def _tail_round(run: _Run) -> dict:
    """The Newton round's ``cg_max`` and ``stop`` in the tail with ``o.tail_rounds``
    (:mod:`.alm_tail`), else nothing (the solver's own round)."""
    chk = run.last_check
    if not run.o.tail_rounds or chk is None or run.estimate_only:
        return {}
    if not in_tail(run.localised, run.estimate):
        return {}
    run.tail["rounds"] = run.tail.get("rounds", 0) + 1
    return {"cg_max": TAIL_CG, "stop": stop_rule(run.prob, chk.vertex, run.tail)}


def _stop(run: _Run, pt, chk, rec, final: bool = False) -> Termination | None:
    """OPTIMAL once the labelled interval is within gap_tol (it is computed when the
    estimated gap says it may be); at a limit (``final``) the point is certified anyway
    (None: not within gap_tol)."""
    tol = run.o.gap_tol
    run.last_check = chk
    if pt.X.shape[1] == 0 and not final:
        return None
    est = rec["estimated_gap"]
    if run.estimate_only:
        return Termination.OPTIMAL if est <= tol else None
    if final or (est <= CERTIFY_AT * tol and est <= run.next_certify):
        # the width is at least the estimate (P and D are bounded on their safe sides): at
        # a limit far from gap_tol the randomised bound's slack is sized by the estimate
        iv = run.certify(pt, chk, max(tol, est), final=final)
        if iv.width <= tol:
            return Termination.OPTIMAL
        run.next_certify = RETRY_AT * est
        if iv.missed is not None:
            run.warm = with_direction(run.warm, iv.missed[run.prob.order])
            # the direction's Ritz value, and the products that rebuilt it (a proof's: 0)
            run.history[-1].update(missed_lambda=iv.lam_ritz, missed_products=iv.missed_products)
    return None


def with_direction(block: np.ndarray | None, v: np.ndarray) -> np.ndarray:
    """The next check's warm block with v (a direction the check missed, the scaled
    problem's order) as its first column and the block after it (the check starts from
    the first ``BLOCK`` columns): LOBPCG then starts from it (thirty-third pass: at
    n = 100,000 a path's checks read λ −0.4403 from check 50 to 75 while the bound's
    Lanczos found −0.4417 to −0.4418; with the direction, check 51 read −0.442)."""
    v = np.asarray(v, dtype=np.float64)[:, None]
    return v if block is None else np.hstack([v, block])


def _polish_due(run: _Run, pt, rec) -> bool:
    o = run.o
    return (
        o.polish_at > 0
        and not run.polished
        and pt.X.shape[1] > 0
        and rec["estimated_gap"] <= o.polish_at
    )


def _polish(run: _Run, chk, pt) -> bool:
    """Newton steps from the point (:mod:`.alm_polish`); once a step's active sets have
    settled it gets the labelled interval of :func:`.alm_certificate.interval`.  True at
    the first within gap_tol, which becomes the answer (``run.best``); else the ALM goes
    on from its own point (and at a limit certifies that)."""
    from .alm_polish import newton_steps

    run.polished = True
    o = run.o
    U = run.prob.to_original(pt.X)
    for st in newton_steps(run.f, U, np.asarray(chk.beta_tilde, np.float64), POLISH_STEPS):
        run.prob.products += st.products
        run.newton_steps += 1
        run.krylov += st.krylov
        rec = {
            "newton_step": run.newton_steps,
            "time_s": run.elapsed(),
            "products": run.prob.products,
            "krylov": st.krylov,
            "moves": st.moves,
            "kink": st.kink,
            "rank": st.U.shape[1],
        }
        run.history.append(rec)
        if run.out_of_budget() is not None:
            return False
        last = run.newton_steps % POLISH_STEPS == 0
        if st.moves > max(POLISH_SETTLED_MOVES, POLISH_SETTLED * st.kink) and not last:
            continue  # the sets still move: no interval yet (it costs a λ_min)
        iv = interval(
            run.f,
            st.U,
            st.beta,
            math.inf,
            o.gap_tol,
            o.verify_max_n,
            o.failure_probability,
            o.seed + 104_729 * run.newton_steps,
        )
        if not math.isfinite(iv.lam_ritz):  # verified: no Ritz value; λ's bound stands in
            iv.lam_ritz = iv.lam_lower
        rec.update(
            estimated_gap=iv.width,
            certified_gap=iv.width,
            lower=iv.lower,
            upper=iv.upper,
            lower_label=iv.lower_label,
            time_s=run.elapsed(),
        )
        if iv.width <= o.gap_tol:
            run.best, run.answer_check = (iv, st.beta), None
            return True
    return False


def _result(name: str, run: _Run, pt, status: Termination) -> Result:
    f, prob = run.f, run.prob
    iv, beta = run.best
    last = next(h for h in reversed(run.history) if "fw_gap" in h)
    cert = certificate(
        iv,
        run.o.gap_tol,
        {"fw_gap": last["fw_gap"], "fy_gap": last["fy_gap"]},
    )
    U = iv.U
    return Result(
        formulation=f.name,
        solver=name,
        termination=status,
        point=PointStatus.FEASIBLE_POINT,
        objective=f.objective(KernelFactor(U)),
        kernel=KernelFactor(U),
        duals={"beta": beta, "lam": max(0.0, -iv.lam_ritz)},
        message=""
        if status == Termination.OPTIMAL
        else f"stopped at a limit; labelled interval [{iv.lower:.8g}, {iv.upper:.8g}] "
        f"(width {iv.width:.1e}, lower end {iv.lower_label}) at the point of check "
        f"{run.answer_check} of {run.checks}",
        solve_time_s=run.elapsed(),
        iterations=run.iterations,
        history=run.history,
        lower_bound=iv.lower,
        upper_bound=iv.upper,
        info={
            "rank": U.shape[1],
            "rank_cap": run.cap,
            "relative_gap": iv.width,
            "certificate": cert,
            "lower_label": iv.lower_label,
            "lambda_method": iv.method,
            "lanczos_steps": iv.steps,
            "products": prob.products,
            "eig_products": run.eig_products,
            "checks": run.checks,
            "answer_check": run.answer_check,
            "final_rho": run.rho,
            "newton_steps": run.newton_steps,
            "krylov_iterations": run.krylov,
            "pockets": run.pockets,
            "pockets_s": run.pockets_s,
            "blocks": run.blocks,
            "blocks_s": run.blocks_s,
            # Newton steps whose CG the step before preconditioned (alm_lmp), of all
            "preconditioned_steps": run.pairs.stats["preconditioned"] if run.pairs else 0,
            "lmp_steps": run.pairs.stats["steps"] if run.pairs else 0,
            # the tail's rounds (alm_tail) and those its stop rule ended
            "tail_rounds": run.tail.get("rounds", 0),
            "tail_stopped": run.tail.get("stopped", 0),
        },
    )
