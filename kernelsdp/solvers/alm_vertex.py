"""The Frank–Wolfe check's vertex refined by the Lanczos recurrence from itself (issue #30,
twenty-ninth pass; docs/npkl.md §7).

**Why.**  The check (:func:`.alm_inner.fw_check`) finds the bottom of G = M(β̃) outside the
factor's span by LOBPCG constrained orthogonal to V, then takes the lowest Ritz pair of
G on [V, W].  That pair is exact when span V is invariant under G (the inner problem
solved exactly); while it is not, the coupling (I − Π_V)·G·V mixes V with its complement,
and the bottom of G can lie below anything [V, W] holds.  At n = 10⁶ (the solver's hour,
the point before check 31) the check's Ritz value was −0.442373 where G's bottom, by 3,000
random-start Lanczos steps, is −0.443129: a spread vector (on 217,000 nodes, 26 % of it in
span V), so the estimated gap read 2.4e-3 low and the Frank–Wolfe step went elsewhere.  The
labelled interval was never affected (its λ is the randomised bound's); the estimate and
the step were.  Twelve Davidson expansions of [V, W] by residual blocks of four reached
−0.442585 (48 products); the recurrence started at the check's own vertex reached
−0.442865 in 50 steps, −0.443085 in 150 and −0.443129 in 400.

**What.**  At n ≥ ``REFINE_FROM``, :func:`refined_vertex` runs the recurrence on −G from
the vertex in chunks of ``CHUNK`` steps until a chunk lowers the Ritz value by at most
``tol`` (the check passes ``RTOL`` of the primal value in the gap's units) or
``MAX_STEPS``; if the Ritz value is then below the check's by more than ``tol``, its vector
(a second pass, :meth:`kernelsdp.linalg.lanczos.Lanczos.ritz_vector`) becomes the vertex
and its value the check's λ.  Every Ritz value of G is at least λ_min(G), so λ stays an
upper estimate, as the check's own is.  Its products are counted with the check's
eigensolver products.
"""

from __future__ import annotations

import numpy as np

from ..linalg.lanczos import Lanczos

#: the check refines its vertex at this n and above: at n ≤ 100,000 the labelled interval
#: exceeded the estimate by the randomised bound's own slack alone (1.0e-4 at seeds 0-4),
#: and refining there (100,000, seeds 0-4) cost 13-92 % more eigensolver products and moved
#: the products to the certified 1e-3 by -15 % to +15 % (+4 % summed); at 10⁶ the estimate
#: read 2.4e-3 low
REFINE_FROM = 300_000
#: the refinement's peak in n-vectors of doubles, at most (the recurrence's three, its start,
#: a product's temporaries, the second pass's sum; tracemalloc at n = 6,000 and 20,000,
#: m = 1.2n to 8n: 9.1-9.4, not depending on m), counted in the check's phase of
#: :func:`.low_rank_alm.memory_bytes_for` where the check refines
#: (:func:`.alm_inner.refines_vertex`)
REFINE_VECTORS = 10
#: Lanczos steps between two looks at the Ritz value
CHUNK = 20
#: the recurrence's step cap (n = 10⁶: 150 steps came within 4.4e-5 of the bottom)
MAX_STEPS = 200
#: a chunk that lowers the Ritz value by at most this share of the primal value (in the
#: gap's units, a·Δλ/|P|) ends the recurrence: 1 % of a 1e-3 gap
RTOL = 1e-5


def refined_vertex(op, v: np.ndarray, lam: float, tol: float) -> tuple[float, np.ndarray, int]:
    """(λ, vertex, products): the lowest Ritz pair of the Krylov space of G from ``v`` (unit)
    when its value is below ``lam`` by more than ``tol``, else (``lam``, ``v``); ``op``
    multiplies a vector by G (module docstring)."""
    lan = Lanczos(op, 0.0, np.asarray(v, dtype=np.float64))
    best = lam
    while lan.steps < MAX_STEPS and not lan.broke:
        lan.run(min(CHUNK, MAX_STEPS - lan.steps))
        ritz = -lan.theta()
        moved, best = best - ritz, min(best, ritz)
        if moved <= tol:
            break
    products = lan.steps
    if not best < lam - tol:
        return lam, v, products
    x = lan.ritz_vector()
    return best, x, products + lan.steps - 1
