"""Issue #30's thirty-sixth pass, a timeboxed prototype: V's own directions solved exactly
before each Newton round, measured beside the plain ``low-rank-alm`` on ``npkl_scale.py``'s
instance (two Gaussians, mutual 5-NN graph, m = 1.2n, hinge, C = 1, tr K ≤ B = n).

The thirty-fifth pass found the Newton model's least curvature at tail states inside span V
(``npkl_tail_hessian.py``): steps that re-weigh the kernel's own directions.  So before each
round, with V = Q·S·Rᵀ (thin, in double) and (β, ρ) fixed, the round's subproblem φ_ρ is
minimised over the kernels K = B·Q·W·Qᵀ (the core), and the round starts from the core's
optimum V' = Q·W^½ when that lowers φ_ρ:

- ``diagcore``: W = diag(c), c ≥ 0, Σc ≤ 1 (the spectrum re-weighted): a smooth convex
  problem in r variables, a·ℓᵀc + Σ_p e_p(B·(Gc)_p)/(C·m) with ℓ_k = q_kᵀLq_k and
  G = Q_I ⊙ Q_J (the pairs' rows, m×r), solved by SciPy's ``trust-constr`` with its
  Hessian (B²/(C·m))·Gᵀ·diag(e'')·G, e'' by central differences of β̃ (exact for the hinge
  away from its kinks);
- ``fullcore``: W ⪰ 0, tr W ≤ 1 (every direction of span V, rotations included), the same
  objective with the envelope written as its minimisation over the pair values z, solved
  by CVXPY and Clarabel (hinge only): a measurement of what an exact core buys, not a method
  (2.4–4.5 s a core on average at n = 3,000, load 4–5; its dense m×r² pair matrix grows
  with n, so it was run at 3,000 only; the cores Clarabel reports inaccurate are used as
  returned and counted in the log);
- ``apgcore``: the same core by accelerated projected gradient (FISTA with backtracking and
  restarts; the projection onto {W ⪰ 0, tr W ≤ 1} is the extragradient solver's
  ``project_spectraplex``), O(m·r²) dense work a step, which runs at 20,000;
- ``aftercore`` (thirty-eighth pass): the core *after* each round, just before the check,
  where ``npkl_fw_split.py`` found the tail's whole FW gap (inside span V): ``apgcore``'s
  steps until the core's own FW gap is at most ``AFTER_SHARE`` of FY, in float32 on both
  BLAS threads, its eigenvalues floored at ``AFTER_FLOOR``, rounds of ``AFTER_STEPS``
  Newton steps; ``steps2``: the same rounds without a core (the control).

The core's own work (its gathers, the O(m·r) values and O(m·r²) Hessians) is not counted in
the products: the rows compare what the count would be if the core were free.  Every row is
certified from scratch as ``low-rank-alm`` is (the variant only moves the iterate).

    python benchmarks/npkl_core_proto.py --quick --seeds 0 1 2 3 4
    python benchmarks/npkl_core_proto.py --sizes 20000 --methods low-rank-alm,diagcore
    python benchmarks/npkl_core_proto.py --quick --methods apgcore --time-limit 400
    python benchmarks/npkl_core_proto.py --sizes 20000 --methods low-rank-alm,aftercore,steps2

Measured (docs/measurements.md, "Thirty-sixth pass"): products to the certified 1e-3,
seeds 0–4, against the plain 3,000 1,591 / 1,570 / 1,574 / 1,573 / 1,617 and 20,000 2,177 /
2,203 / 2,090 / 2,001 / 1,953.  ``diagcore`` 3,000 1,495 / 1,455 / 1,555 / 1,620 / 1,568
(−2.9 % in sum), 20,000 2,293 / 2,207 / 2,288 / 2,201 / 2,488 (+10.1 %).  ``fullcore``
3,000 1,678 / 2,582 / 1,756 / 1,612 / 1,745 (+18.3 %), the factor 17–18 wide.  ``apgcore``
reaches Clarabel's φ_ρ to 1e-9 at three round starts of the plain path, and took 3,173 /
2,510 / 2,306 / 2,859 at 3,000 seeds 0–3 (seed 4 stalled: the iteration limit, certified
1.7e-2), and 18,362 and 36,120 at 20,000 seeds 0 and 1.  In the plain path's tail at 3,000
(seed 0) every check updated the multipliers, and the FW gap after a round that began at the
core's optimum was no smaller than the plain round's.  Not adopted.

Measured (docs/measurements.md, "Thirty-eighth pass"): ``aftercore`` 3,000 945 / 1,045 /
923 / 982 / 855 (−40.1 %), 20,000 1,470 / 1,309 / 1,251 / 1,306 / 1,354 (−35.8 %) but 99.3 s
of solves against 79.7 s (+24.6 %); ``steps2`` 3,000 −29.4 %, 20,000 −23.8 % (102.3 s).
100,000 seed 3: 2,099 products (plain 3,324), 2.14× its 3,000 count, 482.7 s (plain 205.2 s,
the cores 167 s).  Not adopted.
"""

from __future__ import annotations

import sys
import time

import numpy as np
from npkl_polish_proto import checked_methods, installed_row, run_over_seeds, seeds_arguments
from scipy.optimize import Bounds, LinearConstraint, minimize
from threadpoolctl import threadpool_limits

import kernelsdp.solvers.alm_outer as alm_outer
from kernelsdp.solvers.alm_inner import Point, evaluate
from kernelsdp.solvers.alm_newton import SLOPE_STEP
from kernelsdp.solvers.extragradient import project_spectraplex

METHODS = ("low-rank-alm", "diagcore", "fullcore", "apgcore", "aftercore", "steps2")
#: a core column is kept where its singular value is at least this share of the largest
#: (the Frank–Wolfe seeds' columns spread over orders; below this they carry no mass)
KEEP_ABOVE = 1e-7
#: ``diagcore``: trust-constr's iterations at most (3,000, seed 0: 52 on average)
CORE_ITERATIONS = 60
#: ``apgcore``: at most this many steps a core, ended sooner where the gradient mapping's
#: norm is at most ``APG_TOL``, or where a step from the iterate itself does not lower φ_ρ.
#: At backtracked Lipschitz estimates in the hundreds a norm of 1e-7 is a change in φ_ρ ≈ 0.28
#: below one unit in its last place, so a core may end at that rounding-level rejection
#: instead: solved as exactly as double precision allows
APG_STEPS, APG_TOL = 2000, 1e-7
#: ``aftercore`` (thirty-eighth pass): the core after each round, by ``apgcore``'s steps
#: until the core's own FW gap is at most ``AFTER_SHARE`` of FY at its point; its
#: eigenvalues floored at ``AFTER_FLOOR`` of the largest, so that no direction of span V
#: leaves the factor (an exact core zeroes some, the factor drops them, and the check, which
#: looks outside span V, missed them for checks on end); rounds of ``AFTER_STEPS`` Newton steps
AFTER_SHARE, AFTER_FLOOR, AFTER_STEPS = 0.25, 1e-5, 2


def core_basis(X: np.ndarray, LX: np.ndarray):
    """(Q, L·Q, S²) with X = Q·S·Rᵀ in double: Q's columns orthonormal, S² the kernel's
    spectrum in V's units (Σ S² = ‖X‖²_F); columns below ``KEEP_ABOVE`` of the largest
    singular value are dropped."""
    X64, LX64 = np.asarray(X, np.float64), np.asarray(LX, np.float64)
    Qx, Rx = np.linalg.qr(X64)
    U, s, Wt = np.linalg.svd(Rx)
    keep = s > KEEP_ABOVE * s[0]
    U, s, Wt = U[:, keep], s[keep], Wt[keep]
    return Qx @ U, LX64 @ (Wt.T / s), s * s


def gram_basis(X: np.ndarray, LX: np.ndarray, keep_above: float = KEEP_ABOVE):
    """:func:`core_basis` from the eigenvectors of XᵀX (O(n·r²) in BLAS, where NumPy's
    Householder QR of an n×r array took 95 ms of a 20,000 core's 115 ms): ``aftercore``'s;
    LX may be any product A·X (``npkl_fw_split.py`` passes M·X and its own ``keep_above``)."""
    X64, LX64 = np.asarray(X, np.float64), np.asarray(LX, np.float64)
    ev, R = np.linalg.eigh(X64.T @ X64)
    keep = ev > keep_above**2 * ev[-1]
    ev, R = ev[keep][::-1], R[:, keep][:, ::-1]
    s = np.sqrt(ev)
    return (X64 @ R) / s, (LX64 @ R) / s, ev


def diagonal_core(prob, Q: np.ndarray, LQ: np.ndarray, c0: np.ndarray, beta, rho) -> tuple:
    """``diagcore``'s c (module docstring) from c0, and trust-constr's iterations."""
    ell = np.einsum("ik,ik->k", Q, LQ)
    G = Q[prob.i] * Q[prob.j]
    a, B, sc = prob.a, prob.B, prob.scale

    def value(c):
        w = B * (G @ c)
        env, bt = prob.envelope(w, beta, rho)
        return a * (ell @ c) + env / sc, a * ell + (B / sc) * (G.T @ bt)

    def hessian(c):
        w = B * (G @ c)
        h = SLOPE_STEP * (1.0 + np.abs(w))  # the solver's step for the envelope's slope
        _, up = prob.envelope(w + h, beta, rho)
        _, down = prob.envelope(w - h, beta, rho)
        return (B * B / sc) * (G.T @ (G * ((up - down) / (2.0 * h))[:, None]))

    found = minimize(
        value,
        c0,
        jac=True,
        hess=hessian,
        method="trust-constr",
        constraints=[LinearConstraint(np.ones((1, c0.size)), -np.inf, 1.0)],
        bounds=Bounds(0.0, np.inf),
        options={"gtol": 1e-12, "xtol": 1e-14, "maxiter": CORE_ITERATIONS},
    )
    c = np.maximum(found.x, 0.0)
    return c / max(1.0, c.sum()), found.nit


def full_core(prob, Q: np.ndarray, LQ: np.ndarray, beta, rho, log: dict) -> np.ndarray | None:
    """``fullcore``'s W (module docstring), None where Clarabel returns no point; ``log``
    counts the cores it reports inaccurate.  The objective is multiplied by C·m (its terms
    O(1)); w_p = B·q_iᵀWq_j.  The hinge only (its envelope written over z)."""
    import cvxpy as cp

    if prob.f.loss != "hinge":
        raise ValueError(f"fullcore writes the hinge's envelope, not {prob.f.loss!r}'s")

    k = Q.shape[1]
    Lam = Q.T @ LQ
    Qi, Qj = Q[prob.i], Q[prob.j]
    A = (Qj[:, :, None] * Qi[:, None, :]).reshape(prob.m, k * k)  # vec in Fortran order
    W = cp.Variable((k, k), PSD=True)
    z = cp.Variable(prob.m)
    w = prob.B * (A @ cp.vec(W, order="F"))
    objective = prob.B * cp.trace(((Lam + Lam.T) / 2) @ W) + (
        prob.C * cp.sum(cp.pos(1 - cp.multiply(prob.t, z)))
        + beta @ (w - z)
        + (rho / 2) * cp.sum_squares(w - z)
    )
    problem = cp.Problem(cp.Minimize(objective), [cp.trace(W) <= 1])
    try:
        problem.solve(solver="CLARABEL")
    except cp.error.SolverError:
        return None
    if problem.status == cp.OPTIMAL_INACCURATE:
        log["inaccurate"] = log.get("inaccurate", 0) + 1
    return None if W.value is None else (W.value + W.value.T) / 2


def apg_core(
    prob, Q, LQ, c0, beta, rho, log: dict, share: float | None = None, dtype=np.float64
) -> np.ndarray | None:
    """``apgcore``'s W: accelerated projected gradient (FISTA with backtracking and
    function restarts) on the exact core of ``fullcore``, from diag(c0), in O(m·r²) dense
    products a step (the pairs' rows of Q gathered once), until the gradient mapping's
    norm lip·‖W⁺ − Y‖_F is at most ``APG_TOL``, at a step from W itself that does not lower
    φ_ρ (a restart there would repeat it: the first form of this loop did, to the cap), or
    after ``APG_STEPS`` steps.  With ``share`` (``aftercore``): also once the core's FW gap
    ⟨G, W⟩ − min(λ_min(G), 0) at W is at most ``share`` of FY there (None if it is at the
    start: no step is taken), its O(m·r²) products in ``dtype`` (``aftercore``: float32,
    on both BLAS threads; their sums over the pairs in float32 too, then cast: the pair
    values, the envelope, φ_ρ and the projection in double)."""
    Lam = Q.T @ LQ
    Lam = (Lam + Lam.T) / 2
    Qd = Q.astype(dtype, copy=False)
    Qi, Qj = Qd[prob.i], Qd[prob.j]
    a, B, sc = prob.a, prob.B, prob.scale

    def value(W):
        w = B * np.einsum("ij,ij->i", Qi @ W.astype(dtype), Qj).astype(np.float64)
        env, bt = prob.envelope(w, beta, rho)
        return a * float(np.sum(Lam * W)) + env / sc, bt

    def gradient(bt):
        P = (Qi.T @ (bt.astype(dtype)[:, None] * Qj)).astype(np.float64)
        return a * Lam + (B / sc) * (P + P.T) / 2

    def inexact_enough(W, bt) -> bool:
        if share is None:
            return False
        G = gradient(bt)
        fw = float(np.sum(G * W)) - min(float(np.linalg.eigvalsh(G)[0]), 0.0)
        w = B * np.einsum("ij,ij->i", Qi @ W.astype(dtype), Qj).astype(np.float64)
        return fw <= share * prob.fenchel_young(w, bt) / sc

    W = np.diag(c0)
    f, bt = value(W)
    if inexact_enough(W, bt):
        return None  # the round left the core solved well enough: the point stays
    Y, fy, bty, Wold, t, lip = W, f, bt, W, 1.0, 1.0
    for _ in range(APG_STEPS):
        if inexact_enough(W, bt):
            break
        G = gradient(bty)
        while True:  # backtracking on the quadratic upper model at Y
            Wn = project_spectraplex(Y - G / lip)
            fn, btn = value(Wn)
            D = Wn - Y
            if fn <= fy + float(np.sum(G * D)) + 0.5 * lip * float(np.sum(D * D)) + 1e-15:
                break
            lip *= 2.0
        log["apg_steps"] = log.get("apg_steps", 0) + 1
        if fn > f:  # function restart: momentum dropped, the step retried from W
            if Y is W:  # the step from W itself: rejected by rounding, the core ends
                break
            Y, fy, bty, t = W, f, bt, 1.0
            continue
        done = lip * np.linalg.norm(D) <= APG_TOL
        Wold, W, f, bt = W, Wn, fn, btn
        if done:
            break
        t, told = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0, t
        Y = W + ((told - 1.0) / t) * (W - Wold)
        fy, bty = value(Y)
        lip *= 0.9
    return W


def core_point(prob, Q, LQ, F: np.ndarray, beta, rho) -> Point:
    """The point V' = Q·F (F = W^½ or diag(√c)), L·V' = (L·Q)·F, in the iterate's precision,
    with φ_ρ there as the solver evaluates it."""
    X = (Q @ F).astype(prob.dtype)
    return evaluate(prob, X, beta, rho, LX=(LQ @ F).astype(prob.dtype))


def core_step(kind: str, log: dict, prob, pt: Point, beta, rho) -> Point:
    """The core's optimum where it lowers φ_ρ, else ``pt``; ``log`` counts the cores, those
    taken, their φ decrease, time and (``diagcore``) iterations."""
    if pt.X.shape[1] < 2:
        return pt
    t = time.perf_counter()
    after = kind == "aftercore"
    Q, LQ, c0 = (gram_basis if after else core_basis)(pt.X, pt.LX)
    if kind == "diagcore":
        c, iterations = diagonal_core(prob, Q, LQ, c0, beta, rho)
        log["iterations"] = log.get("iterations", 0) + iterations
        F = np.diag(np.sqrt(c))
    elif kind == "fullcore":
        W = full_core(prob, Q, LQ, beta, rho, log)
    elif after:
        with threadpool_limits(limits=2, user_api="blas"):
            W = apg_core(prob, Q, LQ, c0, beta, rho, log, AFTER_SHARE, np.float32)
    else:
        W = apg_core(prob, Q, LQ, c0, beta, rho, log)
    if kind != "diagcore":
        if W is None:
            return pt
        d, E = np.linalg.eigh(W)
        if after:  # floored, then back onto tr W ≤ 1
            d = np.maximum(d, AFTER_FLOOR * max(d[-1], 1e-300))
            d /= max(1.0, float(d.sum()))
        F = E * np.sqrt(np.maximum(d, 0.0))
    new = core_point(prob, Q, LQ, F, beta, rho)
    log["cores"] = log.get("cores", 0) + 1
    log["core_s"] = log.get("core_s", 0.0) + time.perf_counter() - t
    if not new.value < pt.value:
        return pt
    log["taken"] = log.get("taken", 0) + 1
    log["decrease"] = log.get("decrease", 0.0) + pt.value - new.value
    return new


def install(method: str, log: dict) -> None:
    """The variant's core before the solver's own Newton round, in this process (installing
    again replaces the core, it does not add a second one)."""
    if method == "low-rank-alm":
        return
    own = getattr(alm_outer.newton, "without_core", alm_outer.newton)

    def newton_after_core(prob, pt, beta, rho, *args, **kwargs):
        return own(prob, core_step(method, log, prob, pt, beta, rho), beta, rho, *args, **kwargs)

    def core_after_newton(prob, pt, beta, rho, delta, _steps, *args, **kwargs):
        pt, delta, info = own(prob, pt, beta, rho, delta, AFTER_STEPS, *args, **kwargs)
        if method == "aftercore":
            pt = core_step(method, log, prob, pt, beta, rho)
        return pt, delta, info

    round_ = core_after_newton if method in ("aftercore", "steps2") else newton_after_core
    round_.without_core = own
    alm_outer.newton = round_


def main() -> int:
    ap = seeds_arguments(__doc__, METHODS)
    args = ap.parse_args()
    chosen = checked_methods(ap, args, METHODS)
    run_over_seeds(__file__, args, chosen, lambda m, n, a: installed_row(install, m, n, a))
    return 0


if __name__ == "__main__":
    sys.exit(main())
