"""Issue #30's thirty-seventh pass, a prototype: in the tail, Newton rounds with a deeper
Krylov space that end once a lower bound on the FW gap is below a share of FY, measured
beside the plain ``low-rank-alm`` on ``npkl_scale.py``'s instance (two Gaussians, mutual
5-NN graph, m = 1.2n, hinge, C = 1, tr K ≤ B = n).

*Why.*  Traced check by check (seed 3), the plain tail updates the multipliers at every
check at n = 3,000 and 20,000, each round leaving FW at 0.3–0.7 of FY; at 100,000 seven of
its sixteen spread checks leave FW above FY, so no update comes and the round is spent
again (checks 38–40: FW 6.4, 6.1, 5.5e-4 against FY 4.9–5.5e-4); at 10⁶ an update comes
every 3.5 checks.  Rounds of four steps of at most 24 CG iterations (twice the solver's
cap) gave a clean tail at 100,000 (an update every check, FW at 0.15–0.3 of FY) but
over-solved: about 300 products a round, and at 20,000 and 3,000 far more than the plain
count.

*What.*  After a spread check (its vertex not a hub's pocket) whose estimated gap is at most
``TAIL_FROM``, the round's steps take at most ``TAIL_CG`` CG iterations, and before each
step but the first the round asks whether

    FW_lb = a·(⟨V, M(β̃)V⟩ − min(vᵀM(β̃)v, 0)) ≤ ``TAIL_SHARE``·FY

at its current point, with v the last check's unit vertex and β̃ the point's own
multipliers: vᵀM(β̃)v ≥ λ_min(M(β̃)), so FW_lb is a lower bound on the FW gap that the next
check will read, and FY (:meth:`~kernelsdp.solvers.alm_problem.ScaledNPKL.fenchel_young`)
is the one it will read.  Once it holds, the round ends.  Its cost is one product of M with
v and an O(m) sum, counted in ``log["stop_products"]``, not in the gradient products.  Rounds
after a hub's pocket, and before the tail, are the solver's own.  The certificate is the
solver's: the variant only moves the iterate.

    python benchmarks/npkl_tail_round_proto.py --quick --seeds 0 1 2 3 4
    python benchmarks/npkl_tail_round_proto.py --sizes 100000 --seeds 3
    python benchmarks/npkl_resume_proto.py --n 1000000 --instance inst.pkl \\
        --variant tailround --time-limit 3300

Measured: docs/measurements.md, "Thirty-seventh pass".
"""

from __future__ import annotations

import sys

import numpy as np
from npkl_polish_proto import checked_methods, installed_row, run_over_seeds, seeds_arguments

import kernelsdp.solvers.alm_newton as alm_newton
import kernelsdp.solvers.alm_outer as alm_outer
from kernelsdp.solvers.alm_inner import participation
from kernelsdp.solvers.low_rank_alm import LOCALISED

METHODS = ("low-rank-alm", "tailround")
#: the estimated gap of the last check from which the rounds are this module's
TAIL_FROM = 1e-2
#: CG iterations of one step in those rounds at most (the solver's ``CG_MAX`` is 12)
TAIL_CG = 24
#: the round ends once the FW gap's lower bound is at most this share of FY
TAIL_SHARE = 0.5


def fw_lower_bound(prob, x, v: np.ndarray) -> tuple[float, float]:
    """(FW_lb, FY) at the round's point ``x`` (:class:`kernelsdp.solvers.alm_newton._At`)
    with its own multipliers x.bt: ⟨V, M V⟩ = ⟨X, G⟩/(2a) from the point's gradient, and
    v's Rayleigh quotient (v a unit n-vector, double) as the upper bound on λ_min."""
    prob.dual_matrix(x.bt)
    top = float(v @ prob.dual_times(v.reshape(-1, 1))[:, 0])
    vgv = x.gx / (2.0 * prob.a)
    fw = prob.a * (vgv - min(top, 0.0))
    return fw, prob.fenchel_young(x.w, x.bt) / prob.scale


def in_tail(chk) -> bool:
    """Whether a check opens a tail round: its vertex spread (not a hub's pocket, as the
    solver tells them) and its estimated gap at most ``TAIL_FROM``."""
    pocket = participation(chk.vertex) < LOCALISED and chk.lam < min(chk.level, 0.0)
    gap = (chk.primal - chk.dual_estimate) / max(abs(chk.primal), 1e-300)
    return not pocket and gap <= TAIL_FROM


def install(method: str, log: dict) -> None:
    """The tail rounds in place of the solver's own where :func:`in_tail`, in this process
    (installing again replaces them, it does not wrap them twice)."""
    if method == "low-rank-alm":
        return
    own_check = getattr(alm_outer.fw_check, "plain", alm_outer.fw_check)
    own_newton = getattr(alm_outer.newton, "plain", alm_outer.newton)
    last: dict = {}

    def check(*args):
        last["chk"] = chk = own_check(*args)
        return chk

    def newton(prob, pt, beta, rho, delta, max_steps, tol, *args, **kwargs):
        chk = last.get("chk")
        if chk is None or not in_tail(chk) or kwargs.get("step") is not None:
            return own_newton(prob, pt, beta, rho, delta, max_steps, tol, *args, **kwargs)
        v = np.ascontiguousarray(chk.vertex, dtype=np.float64)

        def stop(nt, x, steps):
            fw, fy = fw_lower_bound(prob, x, v)
            log["stop_products"] = log.get("stop_products", 0) + 1
            done = fw <= TAIL_SHARE * fy
            log["stopped"] = log.get("stopped", 0) + done
            return done

        log["rounds"] = log.get("rounds", 0) + 1
        cap, alm_newton.CG_MAX = alm_newton.CG_MAX, TAIL_CG
        try:
            return own_newton(
                prob, pt, beta, rho, delta, max_steps, tol, *args, stop=stop, **kwargs
            )
        finally:
            alm_newton.CG_MAX = cap

    check.plain, newton.plain = own_check, own_newton
    alm_outer.fw_check, alm_outer.newton = check, newton


def main() -> int:
    ap = seeds_arguments(__doc__, METHODS)
    args = ap.parse_args()
    chosen = checked_methods(ap, args, METHODS)
    run_over_seeds(__file__, args, chosen, lambda m, n, a: installed_row(install, m, n, a))
    return 0


if __name__ == "__main__":
    sys.exit(main())
