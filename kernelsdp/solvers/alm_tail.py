"""The tail's Newton rounds of the low-rank augmented Lagrangian (:mod:`.low_rank_alm`,
option ``tail_rounds``; issue #30, thirty-seventh pass, docs/npkl.md §7).

**Why.**  In the tail the multipliers are updated once a round leaves FW ≤ FY (and at
n = 3,000 and 20,000 FY about halves at each update).  Traced check by check (seed 3), the
solver's round of four steps of at most 12 CG iterations reached that at 9 of 10 spread
checks of the tail at n = 3,000 and 8 of 8 at 20,000; at 100,000 at 9 of 16 (checks
38–40: FW 6.4, 6.1, 5.5e-4 against FY 4.9–5.5e-4, the round spent again); at 10⁶ (the
thirty-second pass's log) at 6 of 22 (seed 1 at 100,000 updated at every check of its
tail).  Steps of at most 24 CG iterations gave 100,000 a tail more like the small sizes'
(seeds 0 and 1: an update at every check), but rounds of about 300 products.

**What.**  After a check whose vertex is not a hub's pocket (as the solver tells them) and
whose estimated gap is at most ``TAIL_FROM``, the round's steps take at most ``TAIL_CG`` CG
iterations, and before each step but the first the round asks whether

    FW_lb = a·(⟨V, M(β̃)V⟩ − min(vᵀM(β̃)v, 0)) ≤ ``TAIL_SHARE``·FY            (:func:`fw_lower_bound`)

at its current point, v the last check's unit vertex and β̃ the point's own multipliers:
vᵀM(β̃)v ≥ λ_min(M(β̃)), so FW_lb is a lower bound on the FW gap at that point (the next
check reads the gap with its Ritz value, itself an upper estimate of λ_min, so it may read
less), and FY is the one the next check will read.
Once it holds, the round ends.  A question costs one product of M with v (counted with the
eigensolver's), M's entries written for the point's multipliers (O(nnz(L) + m)) and O(m)
sums.  The certificate is untouched: the rounds only move the
iterate.
"""

from __future__ import annotations

import numpy as np

from .alm_problem import ScaledNPKL

#: the estimated gap of the last check from which the tail's rounds are taken
TAIL_FROM = 1e-2
#: CG iterations of one step in the tail's rounds at most (the solver's ``CG_MAX`` is 12)
TAIL_CG = 24
#: a tail round ends once the FW gap's lower bound is at most this share of FY
TAIL_SHARE = 0.5


def in_tail(localised: bool, estimate: float) -> bool:
    """Whether the last check opens a tail round: its vertex spread (not a hub's pocket,
    as :class:`.alm_outer._Run` tells them) and its estimated gap at most ``TAIL_FROM``."""
    return not localised and estimate <= TAIL_FROM


def fw_lower_bound(prob: ScaledNPKL, x, v: np.ndarray) -> tuple[float, float]:
    """(FW_lb, FY) at a round's point ``x`` (:class:`.alm_newton._At`: its factor's gradient
    G = 2a·M(β̃)X gives ⟨X, MX⟩ = ⟨X, G⟩/2a) with its own multipliers x.bt, v a unit
    n-vector (double) whose Rayleigh quotient bounds λ_min from above.  Scaled units, as
    :func:`.alm_inner.fw_check`'s gaps."""
    prob.dual_matrix(x.bt)
    quotient = float(v @ prob.dual_times(v.reshape(-1, 1))[:, 0])
    fw = prob.a * (x.gx / (2.0 * prob.a) - min(quotient, 0.0))
    return fw, prob.fenchel_young(x.w, x.bt) / prob.scale


def stop_rule(prob: ScaledNPKL, vertex: np.ndarray, counts: dict):
    """The round's ``stop(nt, x, steps)`` (:func:`.alm_newton.newton`): True once
    FW_lb ≤ ``TAIL_SHARE``·FY; ``counts`` gains the products with M (``products``) and the
    rounds it ended (``stopped``)."""
    v = np.ascontiguousarray(vertex, dtype=np.float64)

    def stop(nt, x, steps) -> bool:
        fw, fy = fw_lower_bound(prob, x, v)
        counts["products"] = counts.get("products", 0) + 1
        done = fw <= TAIL_SHARE * fy
        counts["stopped"] = counts.get("stopped", 0) + done
        return done

    return stop
