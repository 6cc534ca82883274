"""An end that a cone's boundary stopped, retried from a convex combination of the returned
point with a central point of its side (:mod:`.interior`): the θ tried from the least, the
best proof kept — the first one where the central point's objective is no better (the
value then moves by θ·(f(z_c) − f(z)) ≥ 0, so a larger θ proves no tighter end but by
rounding).

The dual combination's proof may be *deferred* past the shrunk re-solve (:mod:`.perturbed`)
when even its most optimistic value — the dual objective at the combination, before the
proof's corrections and roundings, which only lower it — leaves the interval wider than
the tolerance: the re-solve runs then anyway, and where its strictly feasible dual proves
a lower end at least that value, the combination cannot do better and is never proven
(truss6: the combination proved −2139.6 where the re-solve proved −901.09; 8 ms of 55).
Where the re-solve does not run, fails, or proves less, the combination is proven as it
would have been.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..intervals import relative_width
from .canonical import CanonicalForm
from .ends import End, better, boundary_failure, proven_lower, proven_upper
from .interior import central_dual, central_primal, enough_ratio, thetas
from .verdict import PROOF

#: a combination whose cost θ·(f(z_c) − f(z)) is at most this fraction of the width the
#: tolerance allows is not searched for a cheaper central point (the search's refinement:
#: two of its three eigensolves of every block, 0.1 ms of truss3's 2.6 ms).  On SDPLIB the
#: refinement cuts the cost 1× (truss1, 3) to 2.7× (truss4: 3.4e-7 → 1.3e-7 of a width the
#: tolerance puts at 9e-6): a tenth of the tolerance's width is what a certified interval
#: can spare for it
NEGLIGIBLE = 0.1


def primal_combined(
    form: CanonicalForm, x: np.ndarray, hi: End, notes: list, width: float = 0.0
) -> End:
    """The upper end after the primal combination (``hi`` itself where none is proven);
    ``width``: the interval's width the tolerance allows (its NEGLIGIBLE part is a cost not
    worth a finer search)."""
    s = form.magnitude().M @ x + form.b
    if not (boundary_failure(hi) and math.isfinite(hi.deficit)):
        return hi
    enough = enough_ratio(hi.deficit, NEGLIGIBLE * width)
    found = central_primal(form, x, float(np.max(np.abs(s), initial=1.0)), enough)
    if not found:
        return hi
    xc, eta = found
    costs = form.objective(xc) >= form.objective(x)  # then the least θ proven is best
    for th in thetas(hi.deficit, eta):
        h = better(hi, proven_upper(form, (1 - th) * x + th * xc, False), lower=False)
        if h is not hi:
            hi = h
            notes.append(f"primal point combined with a central one, θ = {th:.1e}")
            if costs:
                break
    return hi


def dual_combination(
    form: CanonicalForm, x: np.ndarray, y: np.ndarray, lo: End, bounds, width: float = 0.0
) -> tuple[Callable[[End, list], End], float] | None:
    """(prove, best): ``prove(lo, notes)`` gives the lower end after the dual combination,
    and ``best`` is the largest dual objective over the θ it would try (what no proof of
    the combination can exceed); None where no central dual point is found."""
    if not boundary_failure(lo):
        return None
    g = form.c if form.P is None else form.c + form.P @ x
    enough = enough_ratio(lo.deficit, NEGLIGIBLE * width)
    found = central_dual(form, x, y, g, float(np.max(np.abs(y), initial=1.0)), enough)
    if not found:
        return None
    yc, eta = found
    costs = form.dual_objective(x, yc) <= form.dual_objective(x, y)
    tried = thetas(lo.deficit, eta)

    def prove(lo: End, notes: list) -> End:
        for th in tried:
            e = better(lo, proven_lower(form, x, (1 - th) * y + th * yc, bounds), lower=True)
            if e is not lo:
                lo = e
                notes.append(f"dual point combined with a central one, θ = {th:.1e}")
                if costs:
                    break
        return lo

    best = max(form.dual_objective(x, (1 - th) * y + th * yc) for th in tried)
    return prove, best


def step_inside(
    form, x, y, lo: End, hi: End, bounds, tol: float, scale: float, defer: Callable[[], bool]
):
    """(lo, hi, notes, later): both ends after their combinations; where ``defer()`` (a
    re-solve of the dual side will run), a dual combination that cannot certify the interval
    is left to ``later(lo, notes)``, to be called after the re-solve (None when nothing was
    left)."""
    notes: list = []
    width = tol * scale  # what relative_width allows
    hi = primal_combined(form, x, hi, notes, width)
    combination = dual_combination(form, x, y, lo, bounds, width)
    if combination is None:
        return lo, hi, notes, None
    prove, best = combination
    if not relative_width(best, hi.value, scale) <= tol and defer():

        def later(lo: End, notes: list) -> End:
            if lo.label == PROOF and lo.value >= best:
                return lo  # the combination cannot prove more
            return prove(lo, notes)

        return lo, hi, notes, later
    return prove(lo, notes), hi, notes, None
