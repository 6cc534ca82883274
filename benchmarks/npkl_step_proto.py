"""Issue #30's eighteenth pass, a timeboxed prototype: the Newton step itself, measured
beside the plain ``low-rank-alm`` on ``npkl_scale.py``'s instance (two Gaussians, mutual
5-NN graph, m = 1.2n, hinge, C = 1, tr K ≤ B = n).  Every variant is the solver's own
loop with its trust-region Newton round replaced in the child process, so every row is
certified from scratch as ``low-rank-alm`` is.

- ``pcg``: the truncated CG preconditioned on the right by A⁻¹, A = (ZᵀZ + δI)·r/(1 + rδ),
  δ = ``PRECONDITIONER_SHIFT``/r (A's eigenvalues average 1), with the trust region in the
  preconditioner's norm (:func:`preconditioned_cg`): ScaledGD(λ)'s damped (VᵀV + λI)⁻¹
  (Xu, Shen, Chi & Ma, ICML 2023) as a Riemannian preconditioner (Mishra & Sepulchre,
  SIAM J. Optim. 2016).  The Gauss–Newton part of the Hessian, P(δβ̃)V, scales with V's
  columns, which the Frank–Wolfe seeds spread over seven orders;
- ``pcg-diag``: A's diagonal only (O(n·s) a CG iteration; the full A costs n·s², about ten
  sparse products at n = 100,000, s = 80);
- ``pcg24``: ``pcg`` with two steps of at most 24 CG iterations a round;
- ``kink-search``: Newton–CG directions without a trust region and φ minimised along the
  retraction's curve by Brent's method, each value O(m) (:func:`curve_values`), so that
  the hinge's kinks, which end a trust region's quadratic model, are crossed exactly.

``--rounds N CHECK`` is ``npkl_round_proto.py``'s: from the solver's state at its check
CHECK at size N (seed 0), two rounds of each step at a fixed (β, ρ), the FW gap after each.

    python benchmarks/npkl_step_proto.py --quick
    python benchmarks/npkl_step_proto.py --sizes 3000 20000 100000 --seeds 0 1 2
    python benchmarks/npkl_step_proto.py --rounds 3000 14

Measured (docs/measurements.md, "Eighteenth pass"): from a tail state a preconditioned
round leaves the FW gap 1.5–3.0× lower at 3,000 (less at 20,000) at the same products.
Whole runs: the diagonal preconditioner took 10 % and 13 % fewer products at 3,000 and
20,000 (sums over seeds 0–2) and 1 % fewer at 100,000 (3,505 / 2,835 / 3,467), so the
ratio across n rose to 2.42× / 1.92× / 2.33×: not adopted.  ``pcg24`` did not certify
100,000 in 600 s (rank 137–162, the full A⁻¹'s n·s² a CG iteration; *shared*).
``kink-search`` was dearer from 20,000 on (5,037 at seed 0; seed 1 at the iteration
limit).

- ``rowprec`` (twenty-third pass): the truncated CG preconditioned by the rows' weights
  1/D_i, D_i = (L_ii + ½Σ_{p∋i} B·ρ·‖v_j‖²) / (L_ii + ½Σ_{p∋i} B·β̃'_p·‖v_j‖²) ≥ 1, the
  trust region in that norm.  The ratio of the row's curvature under the envelope's
  largest slope Bρ (its quadratic upper bound) to the model's: a pair at either end of
  the box has no curvature in the model, so a row whose pairs sit there (a hub's) looks
  cheap to move, and the steps of the n = 10⁶ tail that failed the ratio test put 31–83 %
  of their squared length on 100 rows and moved a pair value across the hinge's whole
  band (|Δw| up to 20 against C/ρ = 0.5).  The weights shorten such rows' moves by √D_i and
  leave rows whose pairs sit inside the band as they are.
- ``blockpc`` (thirty-fifth pass): the truncated CG preconditioned by the last check's
  block W (the lowest eigenvectors of M(β̃) off span V, Ritz values θ_i; V's level μ).
  Along a rotation of V toward w_i, Ξ = w_i·aᵀ, the Hessian's M part is 2a(θ_i − μ)‖a‖²
  (the sphere's multiplier is one scalar), so P = I + W·diag(c)·Wᵀ on the left, with
  c_i = (θ_k − μ)/(θ_i − μ) − 1 for the block vectors above V's level (θ_k the highest),
  maps those k·s directions' curvature onto the highest one's; W is the check's own
  (n×k), so P costs two thin products and keeps one orthonormal n×k copy for the round.
- ``spanpc`` (thirty-fifth pass): P = I + (γ − 1)·QQᵀ on the left, Q an orthonormal basis
  of span Z, γ = ``SPAN_GAIN``: the least curvature found at tail states lies inside span
  V (``npkl_tail_hessian.py``, Ritz values), so steps that re-weigh V's own directions are
  lengthened γ times.  O(n·s²) an application.

Measured (docs/measurements.md, "Thirty-fifth pass"; sums over seeds 0–4 against the plain
steps): ``blockpc`` −2.3 % at 3,000, +7.4 % at 20,000, and at 100,000 seeds 3 / 0 2,989 /
3,226 against 3,324 / 2,841: the softest block rotation is 12–21× above the least
curvature ``npkl_tail_hessian.py`` found inside span V, so it lifts stiffer directions.
``spanpc`` (γ = 2) −11.9 % at 3,000 and −3.7 % at 20,000 (γ = 4: −12.3 % and +12.3 %),
and at 100,000 seeds 0 / 2 / 3 / 4 −4.8 %: the worst seed's ratio across n rises from
2.11× to 2.32×.  Not adopted.
"""

from __future__ import annotations

import functools
import math
import sys
import time

import numpy as np
from npkl_polish_proto import installed_row, main_with_rounds
from npkl_round_proto import (
    _cg_direction,
    captured,
    counting,
    newton_answer,
    newton_start,
    round_cells,
    tangent_gradient,
    trust_region_round,
)
from scipy.optimize import minimize_scalar

import kernelsdp.solvers.alm_lmp as alm_lmp
import kernelsdp.solvers.alm_newton as alm_newton
import kernelsdp.solvers.alm_outer as alm_outer
from kernelsdp.solvers.alm_inner import _dot

METHODS = (
    "low-rank-alm", "pcg", "pcg-diag", "pcg24", "kink-search", "rowprec", "blockpc", "spanpc"
)  # fmt: skip
#: the preconditioner's shift δ·r (3,000 and 20,000 tail states: 2–5 best, 0.2 and 50 worse)
PRECONDITIONER_SHIFT = 3.0
#: ``kink-search``: τ·‖η‖ at most TAN_MAX (the retraction's angle at most 45°), τ at most
#: TAU_MAX, Brent's evaluations of φ along the curve at most CURVE_EVALUATIONS
TAN_MAX, TAU_MAX, CURVE_EVALUATIONS = 1.0, 4.0, 40
#: ``rowmask-k``: the weight of the masked rows (small, not 0: the preconditioner stays
#: positive definite on the tangent space)
MASKED = 1e-4
#: ``spanpc``'s gain γ on span Z (3,000, sums over seeds 0–4: γ = 2, 3, 4 took 12 %, 11 %
#: and 12 % fewer products than the plain steps, γ = 6 2.5 % fewer; 20,000: γ = 2 4 % fewer,
#: γ = 4 12 % more)
SPAN_GAIN = 2.0


def preconditioner(Z: np.ndarray, diagonal: bool) -> np.ndarray:
    """A⁻¹ (module docstring; ``diagonal``: the column weights of diag(A)⁻¹)."""
    r = Z.shape[1]
    shift = PRECONDITIONER_SHIFT / r
    if diagonal:
        norms = np.einsum("ij,ij->j", Z, Z).astype(np.float64)
        return ((1.0 + r * shift) / (r * (norms + shift))).astype(Z.dtype)
    Z64 = np.asarray(Z, dtype=np.float64)
    ev, Q = np.linalg.eigh((Z64.T @ Z64 + shift * np.eye(r)) * (r / (1.0 + r * shift)))
    return ((Q / ev) @ Q.T).astype(Z.dtype)


def precondition(x, Ainv: np.ndarray, r: np.ndarray, out: np.ndarray) -> np.ndarray:
    """z = P_x(r·A⁻¹) into ``out`` (symmetric, positive definite on the tangent space); an
    (n+1)×1 ``Ainv`` weighs the rows (``rowprec``)."""
    if Ainv.ndim == 1 or Ainv.shape[1] == 1:
        np.multiply(r, Ainv, out=out)
    else:
        np.matmul(r, Ainv, out=out)
    return alm_newton._tangent(x, out)


def row_weights(nt, x) -> np.ndarray:
    """``rowprec``'s (n+1)×1 weights 1/D_i (module docstring), the slack row's 1."""
    p = nt.prob
    X = x.X
    norms = np.einsum("ij,ij->i", X, X, dtype=np.float64)
    full = 0.5 * p.B * nt.rho * np.ones(p.m)  # the envelope's largest slope, B·ρ
    model = 0.5 * np.asarray(x.slope, dtype=np.float64)
    lii = p.L.diagonal().astype(np.float64)
    D = (lii + _row_sums(p, full, norms)) / np.maximum(lii + _row_sums(p, model, norms), 1e-300)
    w = np.ones((X.shape[0] + 1, 1), dtype=X.dtype)
    w[:-1, 0] = 1.0 / np.maximum(D, 1.0)
    return w


def mask_weights(grad: np.ndarray, k: int) -> np.ndarray:
    """``rowmask-k``'s (n+1)×1 weights: ``MASKED`` on the k rows of V with the largest
    gradient (the hubs' rows, where the steps that failed the ratio test put their length),
    1 elsewhere and on the slack row."""
    g = np.einsum("ij,ij->i", grad[:-1], grad[:-1], dtype=np.float64)
    w = np.ones((grad.shape[0], 1), dtype=grad.dtype)
    w[np.argpartition(g, -k)[-k:], 0] = MASKED
    return w


def _row_sums(p, c: np.ndarray, norms: np.ndarray) -> np.ndarray:
    """Σ_{p ∋ i} c_p·‖v_j‖² over the pairs at each row i (j the pair's other row)."""
    return np.bincount(p.i, c * norms[p.j], p.n) + np.bincount(p.j, c * norms[p.i], p.n)


def preconditioned_cg(
    nt, x, grad, delta: float, max_iter: int, diagonal: bool = False, rows: bool = False,
    mask: int = 0, weights: np.ndarray | None = None,
):  # fmt: skip
    """Steihaug–Toint preconditioned, the region ‖η‖_M ≤ Δ in the preconditioner's norm
    (M⁻¹ the preconditioner on the tangent space; Conn, Gould & Toint 2000, Alg. 7.5.1,
    the norms by its recurrences).  Returns (η, the model's decrease, whether η reached the
    boundary, ‖η‖_M).  ``rows``: the row weights of :func:`row_weights` (``rowprec``);
    ``mask``: :func:`mask_weights`'s; ``weights``: the caller's (n+1)×1 row weights."""
    if weights is not None:  # the caller's row weights (npkl_hub_rows_proto)
        Ainv = weights
    elif mask:
        Ainv = mask_weights(grad, mask)
    elif rows:
        Ainv = row_weights(nt, x)
    else:  # (the twenty-third pass's runs also formed this, unused, at every step)
        Ainv = preconditioner(x.Z, diagonal)
    return alm_lmp.preconditioned_cg(
        nt, x, grad, delta, max_iter, lambda x, r, out: precondition(x, Ainv, r, out)
    )


def newton_preconditioned(
    prob, pt, beta, rho, delta, max_steps, tol, deadline=None, budget=None, diagonal=False,
    rows=False,
):  # fmt: skip
    """``pcg``: :func:`kernelsdp.solvers.alm_newton.newton`'s round with
    :func:`preconditioned_cg` (the radius in its norm; ``diagonal``: A's diagonal,
    ``pcg-diag``; ``rows``: the row weights, ``rowprec``)."""
    cg = functools.partial(preconditioned_cg, diagonal=diagonal, rows=rows)
    return trust_region_round(prob, pt, beta, rho, delta, max_steps, tol, deadline, budget, cg)


_LAST_CHECK: dict = {}


def block_preconditioner(chk):
    """``blockpc``'s P·r (module docstring) from the check ``chk``, or None where no block
    vector lies above V's level."""
    room = np.asarray(chk.block_values, dtype=np.float64) - chk.level
    up = room > 0
    if chk.block is None or not up.any():
        return None
    W = np.linalg.qr(np.asarray(chk.block)[:, up])[0]
    c = room[up].max() / room[up] - 1.0
    cast: dict = {}

    def apply(x, r, out):
        Wt = cast.get(r.dtype)
        if Wt is None:
            Wt = cast[r.dtype] = np.ascontiguousarray(W, dtype=r.dtype)
        np.copyto(out, r)
        A = Wt.T @ r[:-1]
        A *= c[:, None].astype(r.dtype)
        out[:-1] += Wt @ A
        return alm_newton._tangent(x, out)

    return apply


def span_preconditioner():
    """``spanpc``'s P·r (module docstring); Q is formed once for each point x."""
    basis: dict = {}

    def apply(x, r, out):
        if basis.get("x") is not x:
            Q = np.linalg.qr(np.asarray(x.Z, dtype=np.float64))[0]
            basis.update(x=x, Q=Q.astype(x.Z.dtype))
        Q = basis["Q"]
        np.copyto(out, r)
        out += (SPAN_GAIN - 1.0) * (Q @ (Q.T @ r))
        return alm_newton._tangent(x, out)

    return apply


def newton_with_preconditioner(
    prob, pt, beta, rho, delta, max_steps, tol, deadline=None, budget=None, apply=None
):  # fmt: skip
    """:func:`kernelsdp.solvers.alm_newton.newton`'s round, its CG preconditioned by
    ``apply(x, r, out)`` (``spanpc``, ``blockpc``), the radius in P⁻¹'s norm; the plain
    round where ``apply`` is None."""
    if apply is None:
        return alm_newton.newton(prob, pt, beta, rho, delta, max_steps, tol, deadline, budget)

    def cg(nt, x, grad, delta, max_iter):
        if max_iter == 0:  # the budget's last iteration: truncated_cg's gradient step
            eta, decrease, boundary = alm_newton.truncated_cg(nt, x, grad, delta, 0)
            return eta, decrease, boundary, delta
        return alm_lmp.preconditioned_cg(nt, x, grad, delta, max_iter, apply)

    return trust_region_round(prob, pt, beta, rho, delta, max_steps, tol, deadline, budget, cg)


def newton_span_preconditioned(*args, **kwargs):
    """``spanpc``: the round with :func:`span_preconditioner`."""
    return newton_with_preconditioner(*args, **kwargs, apply=span_preconditioner())


def newton_block_preconditioned(*args, **kwargs):
    """``blockpc``: the round with the last check's :func:`block_preconditioner` (the plain
    round where the block has no vector above V's level)."""
    chk = _LAST_CHECK.get("check")
    apply = block_preconditioner(chk) if chk is not None else None
    return newton_with_preconditioner(*args, **kwargs, apply=apply)


def _remember_check(inner_round):
    """The solver's inner round, the run's last check kept for ``blockpc``'s round (an
    inner round that already keeps it is returned as it is: installing twice wraps once)."""
    if getattr(inner_round, "keeps_check", False):
        return inner_round

    def remembered(run, pt, tol):
        _LAST_CHECK["check"] = run.last_check
        return inner_round(run, pt, tol)

    remembered.keeps_check = True
    return remembered


def curve_values(nt, x, eta):
    """φ(R(τη)) as a function of τ (R the sphere's retraction), O(m) a value: K_p along the
    curve is B·(z_p + τ·δz_p + τ²·ζ_p)/(1 + τ²‖η‖²), ⟨V, LV⟩ likewise, from one product
    with L (L·Ξ) and the pair gathers of Ξ.  Returns (the function, L·Ξ)."""
    p = nt.prob
    D = np.asarray(eta[:-1])
    LD = p.times_L_double(D)
    V64, D64 = np.asarray(x.X, np.float64), np.asarray(D, np.float64)
    lap = (_dot(V64, np.asarray(x.LX, np.float64)), 2 * _dot(V64, LD), _dot(D64, LD))
    w0 = np.asarray(x.w, np.float64)
    w1, w2 = p.B * nt.pair_derivative(x, D), p.B * p.pair_entries(D)
    ee = _dot(eta, eta)

    def value(tau: float) -> tuple[float, np.ndarray]:
        norm2 = 1.0 + tau * tau * ee
        w = (w0 + tau * w1 + tau * tau * w2) / norm2
        env, _ = p.envelope(w, nt.beta, nt.rho)
        return p.a * (lap[0] + tau * lap[1] + tau * tau * lap[2]) / norm2 + env / p.scale, w

    return value, LD


def newton_kink_search(prob, pt, beta, rho, delta, max_steps, tol, deadline=None, budget=None):
    """``kink-search`` (module docstring): :func:`kernelsdp.solvers.alm_newton.newton`'s
    signature and counts (Δ passes through unused); a round ends at a step that φ's curve
    does not lower."""
    if pt.X.shape[1] == 0:
        return pt, delta, {"iterations": 0, "steps": 0, "hessians": 0, "accepted": 0}
    nt, x = newton_start(prob, pt, beta, rho)
    steps = accepted = rest = 0
    budget = math.inf if budget is None else budget
    while steps < max_steps and (deadline is None or time.perf_counter() < deadline):
        cg_max = int(min(alm_newton.CG_MAX, budget - steps - nt.hessians - 1))
        grad = tangent_gradient(x)
        if cg_max < 1 or math.sqrt(_dot(grad, grad)) <= tol:
            rest = 1 if steps == 0 else 0
            break
        steps += 1
        eta = _cg_direction(nt, x, grad, cg_max)
        value, LD = curve_values(nt, x, eta)
        hi = min(TAU_MAX, TAN_MAX / max(math.sqrt(_dot(eta, eta)), 1e-300))
        found = minimize_scalar(
            lambda t, v=value: v(t)[0],
            bounds=(0.0, hi),
            method="bounded",
            options={"xatol": 1e-4 * hi, "maxiter": CURVE_EVALUATIONS},
        )
        tau = min((found.x, min(1.0, hi)), key=lambda t, v=value: v(t)[0])
        phi, w = value(tau)
        if not phi < x.value:
            break
        scale = 1.0 / math.sqrt(1.0 + tau * tau * _dot(eta, eta))
        Z = ((x.Z + tau * eta) * scale).astype(prob.dtype)
        LX = ((np.asarray(x.LX, np.float64) + tau * LD) * scale).astype(prob.dtype)
        x, accepted = nt.at(Z, (phi, LX, w)), accepted + 1
    return newton_answer(delta, nt, steps, rest, accepted, x)


def install(method: str, log: dict) -> None:
    """The variant's Newton round in this process (``log``: the accepted steps)."""
    if method == "low-rank-alm":
        return
    step = newton_kink_search if method == "kink-search" else newton_preconditioned
    if method == "pcg-diag":
        step = functools.partial(newton_preconditioned, diagonal=True)
    if method == "rowprec":
        step = functools.partial(newton_preconditioned, rows=True)
    if method == "pcg24":
        alm_outer.NEWTON_STEPS, alm_newton.CG_MAX = 2, 24
    if method == "spanpc":
        step = newton_span_preconditioned
    if method == "blockpc":
        step = newton_block_preconditioned
        alm_outer._inner_round = _remember_check(alm_outer._inner_round)
    alm_outer.newton = counting(step, log)


def compare_rounds(n: int, check: int, rounds: int = 2) -> None:
    """``--rounds``: each step's rounds (4 × 12, 2 × 24) from the same state."""
    f, st = captured(n, check)
    for method in ("low-rank-alm", "pcg", "pcg-diag"):
        for steps, cg in ((4, 12), (2, 24)):
            alm_newton.CG_MAX = cg
            step = alm_newton.newton
            if method != "low-rank-alm":
                step = functools.partial(newton_preconditioned, diagonal=method == "pcg-diag")
            print(f"  {method:<13} {steps} × {cg:>2}: " + round_cells(f, st, step, steps, rounds))


def main() -> int:
    return main_with_rounds(
        __doc__, __file__, METHODS, lambda m, n, a: installed_row(install, m, n, a), compare_rounds
    )


if __name__ == "__main__":
    sys.exit(main())
