"""Issue #30's seventeenth pass, a timeboxed prototype: the shape of one round of inner steps
and of the Frank–Wolfe step, measured beside the plain ``low-rank-alm`` on
``npkl_scale.py``'s instance (two Gaussians, mutual 5-NN graph, m = 1.2n, hinge, C = 1,
tr K ≤ B = n).  Every variant is the solver's own loop with one piece replaced in the
child process, so every row is certified from scratch as ``low-rank-alm`` is.

- ``cg24``: two trust-region Newton steps of at most 24 conjugate-gradient iterations a
  round instead of four of at most 12 (``NEWTON_STEPS``, ``CG_MAX``): about the same
  products a round, a Krylov space twice as deep;
- ``phase``: four of 12 after a localised check (a hub's pocket), two of 24 otherwise;
- ``line-search``: Newton–CG without a trust region: CG on the Newton system until its
  stopping rule, negative curvature or ``CG_MAX``, then Armijo backtracking along the
  retracted step (each trial one product with L, as a trust-region trial);
- ``multi-fw``: the Frank–Wolfe step over the check's vertex and every block vector below
  V's level at once, K ← (1 − Σt)K + B·Σ t_k v_k v_kᵀ with t minimised over the capped
  simplex (:func:`multi_fw_step`; O(m·k) a value, no n×s product), where the solver gives
  the vertex a line search and the others a seed weight of 1e-3;
- ``fws1.5``, ``fws2``: the multipliers updated once FW ≤ 1.5·FY (2·FY), not FW ≤ FY;
- ``pocket1``, ``pocket2``, ``pocket3`` (nineteenth pass): one (two, three) Newton steps
  after a localised check, four otherwise: the hubs' pockets at a lower price (3,000 has
  them too: 10–16 of its 19–27 rounds follow one);
- ``budget12``, ``budget24`` (eighteenth pass): Newton steps of at most 12 (24) CG
  iterations until the round has spent ``ROUND_ITERATIONS``, not four steps: fewer checks,
  longer rounds.  Dearer at 3,000 (2,088–2,258 products against 1,591–1,710); ``budget24``
  at seed 2 and ``budget12`` at 20,000, seed 0 did not finish (386 checks at the iteration
  limit; over 4 minutes against 21 s).

``--rounds N CHECK`` measures one thing only: from the solver's state at its check CHECK
at size N (seed 0), two rounds of each shape (steps × CG iterations) at a fixed (β, ρ),
and the FW and FY gaps after each (fresh checks, relative to the primal).

    python benchmarks/npkl_round_proto.py --quick
    python benchmarks/npkl_round_proto.py --sizes 3000 20000 100000 --seeds 0 1 2
    python benchmarks/npkl_round_proto.py --rounds 20000 25

Measured (docs/measurements.md, "Seventeenth pass"): from a tail check's state a round of
two 24-iteration steps leaves the FW gap 3× (3,000) and 1.5× (20,000) lower than four
12-iteration steps at the same products.  ``cg24`` took 7 %, 22 % and 27 % fewer products
at 3,000, 20,000 and 100,000 at seed 0 (1,483 / 1,711 / 2,547); across n 1.72× / 1.61× /
2.33× at seeds 0 / 1 / 2, against 2.18× / 1.93× / 1.94×.  But it took 25–135 % more checks
and a wider factor, so more time (100,000: up to 1,134 s *shared*): not adopted.
``phase``, ``multi-fw``, ``fws1.5`` and ``fws2`` did not move n = 100,000 or made it dearer
(3,461–4,362 against 3,467 at seed 0); ``line-search`` was dearer already at 3,000 and
20,000.  ``pocket2`` (nineteenth pass) took 1,442 / 1,516 / 1,392, 1,691 / 1,883 / 1,755
and 2,737 / 2,720 / 3,520 products at 3,000 / 20,000 / 100,000 (seeds 0–2): 1.90× /
1.79× / 2.53× across n, with 97 checks at 100,000, seed 2, and rank 196 at seed 1;
``pocket3`` 1,547 / 1,595 / 1,726 and 3,307 / 3,149 / 3,271 (2.14× / 1.97× / 1.90×); not
adopted.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np
from npkl_polish_proto import (
    installed_row,
    main_with_rounds,
)
from npkl_scale import FROM_ZERO, instance
from scipy.optimize import minimize

import kernelsdp.solvers.alm_newton as alm_newton
import kernelsdp.solvers.alm_outer as alm_outer
from kernelsdp.solvers import solve
from kernelsdp.solvers.alm_inner import (
    SEED_WEIGHT,
    Point,
    _dot,
    _project,
    below_level,
    evaluate,
    fw_check,
)
from kernelsdp.solvers.alm_problem import ScaledNPKL

METHODS = (
    "low-rank-alm",
    "cg24",
    "phase",
    "line-search",
    "multi-fw",
    "fws1.5",
    "fws2",
    "budget12",
    "budget24",
    "pocket1",
    "pocket2",
    "pocket3",
)
#: a ``budget`` round's iterations (steps and Hessian products, as ``max_iter`` counts
#: them): four steps of at most 12 CG iterations, when none stops early
ROUND_ITERATIONS = 52
#: the most Newton steps of one ``budget`` round
ROUND_STEPS = 16
#: the round shapes (Newton steps, CG iterations at most) that ``--rounds`` compares
SHAPES = ((4, 12), (2, 24), (3, 16), (1, 48))
#: a block vector this aligned with the vertex is the vertex (``multi-fw``)
ALIGNED = 0.9
#: Armijo's constant and the most halvings of one line search (``line-search``)
ARMIJO, HALVINGS = 1e-4, 12


def multi_fw_step(prob, pt, chk, beta, rho, log: dict):
    """``multi-fw``: the vertex and the block vectors below V's level (those not aligned
    with the vertex), each weighted by t_k ≥ 0, Σt ≤ 1, at the minimum of the convex φ(t)
    (SLSQP with φ's gradient); vectors left at 0 stay as seed columns."""
    if chk.lam >= 0:
        return PLAIN_STEP(prob, pt, chk, beta, rho)
    W = chk.block[:, below_level(chk)]
    W = W[:, np.abs(W.T @ chk.vertex) < ALIGNED]
    vs = np.hstack([chk.vertex[:, None], W])
    k, a, s = vs.shape[1], prob.a, prob.scale
    lap_x = _dot(pt.X, pt.LX) if pt.X.shape[1] else 0.0
    lap = np.einsum("ik,ik->k", vs, prob.L.astype(np.float64) @ vs)
    Q = prob.B * (vs[prob.i] * vs[prob.j])  # the pair entries of each B·v_k v_kᵀ
    w0 = np.asarray(pt.w, dtype=np.float64)

    def value_and_gradient(t):
        w = (1.0 - t.sum()) * w0 + Q @ t
        env, bt = prob.envelope(w, beta, rho)
        value = a * ((1.0 - t.sum()) * lap_x + lap @ t) + env / s
        return value, a * (lap - lap_x) + (Q - w0[:, None]).T @ bt / s

    capped = {"type": "ineq", "fun": lambda t: 1.0 - t.sum(), "jac": lambda t: -np.ones(k)}
    t = minimize(
        value_and_gradient,
        np.zeros(k),
        jac=True,
        method="SLSQP",
        bounds=[(0.0, 1.0)] * k,
        constraints=[capped],
        options={"ftol": 1e-12, "maxiter": 100},
    ).x.clip(0.0, 1.0)
    t /= max(1.0, t.sum())
    if value_and_gradient(t)[0] > value_and_gradient(np.zeros(k))[0]:
        t[:] = 0.0
    on = t > 1e-12
    log["steps"] = log.get("steps", 0) + 1
    log["vertices"] = log.get("vertices", 0) + int(on.sum())
    cols = [
        math.sqrt(1.0 - t.sum()) * np.asarray(pt.X, dtype=np.float64),
        vs[:, on] * np.sqrt(t[on]),
    ]
    seeds = vs[:, ~on][:, 1:] if not on[0] else vs[:, ~on]  # the vertex is never a seed
    if seeds.shape[1]:
        weight = SEED_WEIGHT * max(_dot(pt.X, pt.X), 1e-12) / seeds.shape[1]
        cols.append(seeds * math.sqrt(weight))
    return _project(np.hstack(cols)).astype(prob.dtype)


def _cg_direction(nt, x, grad, max_iter: int):
    """CG on H·η = −g until its stopping rule, negative curvature or ``max_iter``."""
    eta, r = np.zeros_like(grad), grad.copy()
    rr, d = _dot(grad, grad), -grad
    r0 = math.sqrt(rr)
    for k in range(max_iter):
        Hd = nt.hessian(x, d)
        dHd = _dot(d, Hd)
        if dHd <= 0:
            return -grad if k == 0 else eta
        alpha = rr / dHd
        alm_newton._axpy(alpha, d, eta)
        rr = cg_next(x, alpha, d, Hd, r, rr, r0)
        if rr is None:
            break
    return eta


def cg_next(x, alpha: float, d, Hd, r, rr: float, r0: float) -> float | None:
    """One CG recurrence after η += α·d, in place: r ← P_x(r + α·Hd) (re-projected against
    drift), then None if the residual rule ‖r‖ ≤ ‖r₀‖·min(‖r₀‖^θ, κ) stops CG, else
    d ← −r + (‖r‖²/rr)·d and the new ‖r‖²."""
    alm_newton._tangent(x, alm_newton._axpy(alpha, Hd, r))
    rr_new = _dot(r, r)
    if math.sqrt(rr_new) <= r0 * min(r0**alm_newton.CG_THETA, alm_newton.CG_KAPPA):
        return None
    d *= rr_new / rr
    d -= r
    return rr_new


def newton_start(prob, pt, beta, rho):
    """(φ's Newton operator at (β, ρ), the point [V; σ] on the sphere with its gradient):
    the start of a prototype's round with :func:`kernelsdp.solvers.alm_newton.newton`'s
    signature."""
    nt = alm_newton._Newton(prob, beta, rho)
    Z = np.zeros((pt.X.shape[0] + 1, pt.X.shape[1]), dtype=prob.dtype)
    Z[:-1] = pt.X
    Z[-1, 0] = math.sqrt(max(0.0, 1.0 - _dot(pt.X, pt.X)))
    return nt, nt.at(Z)


def tangent_gradient(x) -> np.ndarray:
    """The Riemannian gradient at x (V's part the Euclidean one, projected)."""
    grad = np.zeros_like(x.Z)
    grad[:-1] = x.G
    return alm_newton._tangent(x, grad)


def newton_answer(delta, nt, steps: int, rest: int, accepted: int, x):
    """A round's answer with the solver's counts (``iterations``: steps, Hessian products
    and a round that stopped at once)."""
    counts = {"iterations": nt.hessians + steps + rest, "steps": steps, "hessians": nt.hessians}
    return Point(x.X, x.LX, x.w, x.value), delta, {**counts, "accepted": accepted}


def trust_region_round(prob, pt, beta, rho, delta, max_steps, tol, deadline, budget, cg):
    """:func:`kernelsdp.solvers.alm_newton.newton`'s round — its counts, ratio test and
    radius rules — with the step from ``cg(nt, x, grad, Δ, max_iter)``, which returns (η,
    the model's decrease, whether η reached the boundary, η's length in the region's
    norm): the prototypes' regions (a preconditioner's norm, a row cap)."""
    return alm_newton.newton(prob, pt, beta, rho, delta, max_steps, tol, deadline, budget, cg)


def counting(step, log: dict):
    """``step`` (a Newton round) with its accepted steps added to ``log["accepted"]``; the
    solver's ``keep_scratch`` (twenty-first pass) is not passed on: the prototypes' rounds
    make their arrays afresh, as when they were measured."""

    def counted(*args, keep_scratch=False, **kwargs):
        out = step(*args, **kwargs)
        log["accepted"] = log.get("accepted", 0) + out[2]["accepted"]
        return out

    return counted


def newton_line_search(prob, pt, beta, rho, delta, max_steps, tol, deadline=None, budget=None):
    """``line-search``: :func:`kernelsdp.solvers.alm_newton.newton`'s signature and counts,
    Armijo backtracking along the retraction instead of the trust region (Δ passes
    through unused)."""
    if pt.X.shape[1] == 0:
        return pt, delta, {"iterations": 0, "steps": 0, "hessians": 0, "accepted": 0}
    nt, x = newton_start(prob, pt, beta, rho)
    steps = accepted = trials = rest = 0
    budget = math.inf if budget is None else budget
    while steps < max_steps and (deadline is None or time.perf_counter() < deadline):
        cg_max = int(min(alm_newton.CG_MAX, budget - steps - nt.hessians - trials - 1))
        grad = tangent_gradient(x)
        if cg_max < 1 or math.sqrt(_dot(grad, grad)) <= tol:
            rest = 1 if steps == 0 else 0  # counted, as the solver's round counts it
            break
        steps += 1
        eta = _cg_direction(nt, x, grad, cg_max)
        slope = _dot(grad, eta)
        t = min(1.0, alm_newton.DELTA_MAX / max(math.sqrt(_dot(eta, eta)), 1e-300))
        reg = 1e3 * np.finfo(float).eps * max(1.0, abs(x.value))
        reg += alm_newton._rounding(x, prob.dtype)
        for _ in range(HALVINGS):
            y = x.Z + t * eta
            y *= 1.0 / math.sqrt(_dot(y, y))
            known = nt.value(y[:-1])
            trials += 1
            if known[0] <= min(x.value, x.value + ARMIJO * t * slope + reg):
                x, accepted = nt.at(y, known), accepted + 1
                break
            t *= 0.5
        else:
            break
    return newton_answer(delta, nt, steps, rest, accepted, x)


def install_budget(cg_max: int, log: dict) -> None:
    """``budget12``, ``budget24``: Newton steps of at most ``cg_max`` CG iterations until
    the round has spent ``ROUND_ITERATIONS`` (or meets its tolerance), not four steps."""
    plain_newton = alm_newton.newton
    alm_newton.CG_MAX = cg_max

    def budgeted(
        prob, pt, beta, rho, delta, steps, tol, deadline=None, budget=None, keep_scratch=False
    ):
        budget = ROUND_ITERATIONS if budget is None else min(budget, ROUND_ITERATIONS)
        out = plain_newton(
            prob,
            pt,
            beta,
            rho,
            delta,
            ROUND_STEPS,
            tol,
            deadline,
            budget,
            keep_scratch=keep_scratch,
        )
        log["rounds"] = log.get("rounds", 0) + 1
        log["steps"] = log.get("steps", 0) + out[2]["steps"]
        return out

    alm_outer.newton = budgeted


def install(method: str, log: dict) -> None:
    """The variant's piece in this process."""
    plain_round = alm_outer._inner_round

    def shaped_round(run, pt, tol):
        if method.startswith("pocket"):
            steps, cg = (int(method[6:]), 12) if run.localised else (4, 12)
        else:
            steps, cg = (4, 12) if method == "phase" and run.localised else (2, 24)
        alm_outer.NEWTON_STEPS, alm_newton.CG_MAX = steps, cg
        log[f"{steps}x{cg}"] = log.get(f"{steps}x{cg}", 0) + 1
        return plain_round(run, pt, tol)

    if method in ("cg24", "phase") or method.startswith("pocket"):
        alm_outer._inner_round = shaped_round
    elif method.startswith("budget"):
        install_budget(int(method[6:]), log)
    elif method == "line-search":
        alm_outer.newton = counting(newton_line_search, log)
    elif method == "multi-fw":
        alm_outer.fw_step = lambda *a: multi_fw_step(*a, log)
    elif method.startswith("fws"):
        alm_outer.Schedule.fw_share = float(method[3:])


def variant_row(method: str, n: int, args) -> dict:
    return installed_row(install, method, n, args)


PLAIN_STEP = alm_outer.fw_step


class _Captured(Exception):
    """Stops the solve once the state is taken (``--rounds``)."""


def state_at(f, check: int) -> dict:
    """The solver's (factor, β, ρ, Δ, inner tolerance) as its round after check ``check``
    starts (seed 0)."""
    plain_round, taken = alm_outer._inner_round, {}

    def take(run, pt, tol):
        if run.checks == check:
            taken.update(X=np.array(pt.X), beta=run.beta.copy(), rho=run.rho, delta=run.delta)
            taken.update(tol=tol, record=dict(run.history[-1]))
            raise _Captured
        return plain_round(run, pt, tol)

    alm_outer._inner_round = take
    try:
        solve(f, "low-rank-alm", seed=0, **FROM_ZERO)
    except _Captured:
        pass
    finally:
        alm_outer._inner_round = plain_round
    if not taken:
        raise SystemExit(f"the solve ended before check {check}")
    return taken


def captured(n: int, check: int) -> tuple:
    """(the instance, the solver's state at check ``check``), with the state's line printed."""
    f = instance(n)
    st = state_at(f, check)
    rec = st["record"]
    print(
        f"n = {n:,}, the round after check {check}: estimated gap {rec['estimated_gap']:.2e}, "
        f"FW {rec['fw_gap']:.2e}, FY {rec['fy_gap']:.2e}, trust radius {st['delta']:.3g}"
    )
    return f, st


def round_cells(f, st: dict, step, steps: int, rounds: int) -> str:
    """``rounds`` rounds of ``step`` (:func:`kernelsdp.solvers.alm_newton.newton`'s
    signature) from the state at its (β, ρ): products, then FW and FY after each."""
    prob = ScaledNPKL(f, np.float32)
    pt = evaluate(prob, st["X"].astype(np.float32), st["beta"], st["rho"])
    delta, first, cells = st["delta"], prob.products, []
    for _ in range(rounds):
        pt, delta, _ = step(prob, pt, st["beta"], st["rho"], delta, steps, st["tol"])
        chk = fw_check(prob, pt, st["beta"], st["rho"], None, 1)
        primal = abs(chk.primal)
        cells.append(
            f"{prob.products - first:>4} products: FW {chk.fw_gap / primal:.2e} "
            f"FY {chk.fy_gap / primal:.2e}"
        )
    return " | ".join(cells)


def compare_rounds(n: int, check: int, rounds: int = 2) -> None:
    """``--rounds``: each shape's rounds from the same state (module docstring)."""
    f, st = captured(n, check)
    for steps, cg in SHAPES:
        alm_newton.CG_MAX = cg
        cells = round_cells(f, st, alm_newton.newton, steps, rounds)
        print(f"  {steps} steps of at most {cg:>2} CG iterations: " + cells)


def main() -> int:
    return main_with_rounds(__doc__, __file__, METHODS, variant_row, compare_rounds)


if __name__ == "__main__":
    sys.exit(main())
