"""Issue #30's nineteenth pass, a timeboxed prototype: the trust region's norm, measured
beside the plain ``low-rank-alm`` on ``npkl_scale.py``'s instance (two Gaussians, mutual
5-NN graph, m = 1.2n, hinge, C = 1, tr K ≤ B = n).  Every variant is the solver's own loop
with its trust-region Newton round replaced in the child process, so every row is certified
from scratch as ``low-rank-alm`` is.

*Why.*  The solver's region is a Frobenius ball on the sphere of [V; σ], one radius carried
from round to round.  The per-step logs of the eighteenth pass's runs (seed 0) show two
kinds of step: spread steps (η's weight on 10³–10⁵ rows) and a hub's steps (on 2–50 rows).
A step of Frobenius length Δ on k rows moves each of their pair values B·⟨v_i, v_j⟩ by
about Δ·√(n/k) in the average row's units, so the radius at which a hub's steps pass the
ratio test shrinks as √(k/n): at 100,000 the rounds of the localised phase ran at radii
0.003–0.02, and the spread rounds after them began there and doubled once a step (checks
43, 47, 50), where at 3,000 the same phase ran at 0.05–0.2.

- ``rows-κ``: the region ‖η‖ ≤ Δ in N(η) = max(‖η‖_F, (√n/κ)·max_i ‖η_i‖) — the largest
  row's move in the average row's units (‖V‖_F ≤ 1, so the average row norm is about
  1/√n), at most κ·Δ.  A spread step is measured by its Frobenius length as before; a hub's
  by its largest row, so one radius serves both kinds at every n.  Truncated CG as
  Steihaug–Toint, the boundary along d the least root of the Frobenius and the n row
  quadratics (:func:`to_region_boundary`, O(n·r) a CG iteration).

    python benchmarks/npkl_region_proto.py --quick
    python benchmarks/npkl_region_proto.py --sizes 3000 20000 100000 --seeds 0 1 2

Measured (docs/measurements.md, "Nineteenth pass", before the solver's round ended at a
step rejected within the rounding allowance): ``rows-4`` at 3,000 / 20,000 took 1,502 /
1,669 / 1,635 and 2,461 / 2,175 / 2,258 products (seeds 0–2; plain 1,591 / 1,607 / 1,710
and 2,546 / 2,451 / 1,967); ``rows-16`` 1,652 / 1,642 / 1,570 and 1,956 / 2,231 / 1,924,
but 4,052 at 100,000, seed 0 (plain 3,467): not adopted.
"""

from __future__ import annotations

import functools
import math
import sys

import numpy as np
from npkl_polish_proto import installed_row, main_with_rounds
from npkl_round_proto import captured, cg_next, counting, round_cells, trust_region_round

import kernelsdp.solvers.alm_newton as alm_newton
import kernelsdp.solvers.alm_outer as alm_outer
from kernelsdp.solvers.alm_inner import _dot

METHODS = ("low-rank-alm", "rows-4", "rows-16")


def _row_dots(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """⟨A_i, B_i⟩ for V's rows (the slack row excluded), in double."""
    return np.einsum("ij,ij->i", A[:-1], B[:-1], dtype=np.float64)


def region_norm(eta: np.ndarray, kappa: float) -> float:
    """N(η) = max(‖η‖_F, (√n/κ)·max_i ‖η_i‖) (module docstring)."""
    n = eta.shape[0] - 1
    rows = math.sqrt(float(_row_dots(eta, eta).max(initial=0.0)))
    return max(math.sqrt(_dot(eta, eta)), math.sqrt(n) / kappa * rows)


def to_region_boundary(eta: np.ndarray, d: np.ndarray, delta: float, kappa: float) -> float:
    """The least τ ≥ 0 with N(η + τd) = Δ, for η inside: the Frobenius ball's root and each
    row's ‖η_i + τ d_i‖ = κΔ/√n (N is convex along the line, so the least root is it)."""
    n = eta.shape[0] - 1
    tau = alm_newton._to_boundary(_dot(eta, eta), _dot(eta, d), _dot(d, d), delta)
    ee, ed, dd = _row_dots(eta, eta), _row_dots(eta, d), _row_dots(d, d)
    cap = (kappa * delta) ** 2 / n
    moving = dd > 0
    if moving.any():
        e, b, a = ee[moving], ed[moving], dd[moving]
        roots = (-b + np.sqrt(np.maximum(b * b + a * (cap - e), 0.0))) / a
        tau = min(tau, float(roots.min()))
    return max(tau, 0.0)


def region_cg(nt, x, grad, delta: float, max_iter: int, kappa: float):
    """Steihaug–Toint in the region N(η) ≤ Δ.  Returns (η, the model's decrease, whether
    η reached the boundary, N(η))."""
    # the round's buffers, as the solver's truncated CG takes them (fresh without keep)
    eta = nt.work(f"z{1 - x.slot}", grad.shape, grad.dtype)
    Heta, r, d = (nt.work(k, grad.shape, grad.dtype) for k in ("cg_Heta", "cg_r", "cg_d"))
    eta.fill(0)
    Heta.fill(0)
    np.copyto(r, grad)
    np.negative(r, out=d)
    rr = _dot(grad, grad)
    r0 = math.sqrt(rr)
    for _ in range(max_iter):
        Hd = nt.hessian(x, d)
        dHd = _dot(d, Hd)
        alpha = rr / dHd if dHd > 0 else math.inf
        tau = to_region_boundary(eta, d, delta, kappa)
        if dHd <= 0 or alpha >= tau:
            alm_newton._axpy(tau, d, eta)
            alm_newton._axpy(tau, Hd, Heta)
            return eta, -(_dot(grad, eta) + 0.5 * _dot(eta, Heta)), True, delta
        alm_newton._axpy(alpha, d, eta)
        alm_newton._axpy(alpha, Hd, Heta)
        rr = cg_next(x, alpha, d, Hd, r, rr, r0)
        if rr is None:
            break
    model = -(_dot(grad, eta) + 0.5 * _dot(eta, Heta))
    return eta, model, False, region_norm(eta, kappa)


def newton_in_region(
    prob, pt, beta, rho, delta, max_steps, tol, deadline=None, budget=None, kappa=4.0
):
    """``rows-κ``: :func:`kernelsdp.solvers.alm_newton.newton`'s round with
    :func:`region_cg` (Δ in N's units)."""
    cg = functools.partial(region_cg, kappa=kappa)
    return trust_region_round(prob, pt, beta, rho, delta, max_steps, tol, deadline, budget, cg)


def region_step(method: str):
    """``rows-κ``'s round (:func:`newton_in_region` with κ from the name)."""
    return functools.partial(newton_in_region, kappa=float(method.split("-")[1]))


def install(method: str, log: dict) -> None:
    """The variant's Newton round in this process (``log``: the accepted steps)."""
    if method == "low-rank-alm":
        return
    alm_outer.newton = counting(region_step(method), log)


def compare_rounds(n: int, check: int, rounds: int = 2) -> None:
    """``--rounds``: each region's rounds from the same state."""
    f, st = captured(n, check)
    for method in METHODS:
        step = alm_newton.newton if method == "low-rank-alm" else region_step(method)
        print(f"  {method:<13}: " + round_cells(f, st, step, alm_outer.NEWTON_STEPS, rounds))


def main() -> int:
    return main_with_rounds(
        __doc__, __file__, METHODS, lambda m, n, a: installed_row(install, m, n, a), compare_rounds
    )


if __name__ == "__main__":
    sys.exit(main())
