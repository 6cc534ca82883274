"""Primal recovery: points of the QCQP from a solved relaxation, each reported with its value,
its violation and its gap to the proven bound.

Every proposal of :mod:`.rounding` is repaired (or mapped by the caller's ``feasible``),
the ``keep`` best distinct ones — feasible first, by value — are polished
(:mod:`.polish`, on by default; the caller's ``refine``, e.g. the StQP face polish, too),
and the best of all is :attr:`Recovery.best`.  The tightness report
(:mod:`.tightness`) compares it with the relaxation's proven bound.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..errors import InvalidParameterError
from .polish import polish as local_polish
from .rounding import proposals, repair
from .tightness import TightnessReport, gap_to, tightness

#: a recovered point counts as feasible when no constraint is violated by more than this
#: (absolute; SLSQP meets equalities to ~1e-12, the repair maps are exact)
FEASIBILITY_TOL = 1e-7


@dataclass
class RecoveredPoint:
    scheme: str
    x: np.ndarray
    value: float
    violation: float
    gap: float | None = None

    @property
    def feasible(self) -> bool:
        return self.violation <= FEASIBILITY_TOL


@dataclass
class Recovery:
    """The recovered points, best first, and the tightness report of the best."""

    points: list[RecoveredPoint] = field(default_factory=list)
    report: TightnessReport | None = None

    @property
    def best(self) -> RecoveredPoint | None:
        return self.points[0] if self.points else None


def _key(q, p: RecoveredPoint):
    """Feasible before infeasible; then by value in the problem's sense, then violation."""
    return (not p.feasible, q.sense * p.value if p.feasible else p.violation)


def _candidates(rel, x, X, draws, seed, feasible) -> tuple[list[RecoveredPoint], dict]:
    q = rel.qcqp
    out, best_by_scheme = [], {}
    for scheme, pts in proposals(q, x, X, rel.homogeneous, draws, seed).items():
        for p in pts:
            p = feasible(p) if feasible is not None else repair(q, p)
            if not np.all(np.isfinite(p)):
                continue
            rp = RecoveredPoint(scheme, p, q.value(p), q.violation(p))
            out.append(rp)
            if rp.feasible and (
                scheme not in best_by_scheme or q.better(rp.value, best_by_scheme[scheme])
            ):
                best_by_scheme[scheme] = rp.value
    return sorted(out, key=lambda p: _key(q, p)), best_by_scheme


def _distinct(points: list[RecoveredPoint], keep: int) -> list[RecoveredPoint]:
    chosen: list[RecoveredPoint] = []
    for p in points:
        if len(chosen) >= keep:
            break
        if all(np.max(np.abs(p.x - c.x)) > 1e-9 for c in chosen):
            chosen.append(p)
    return chosen


def _polished(q, p: RecoveredPoint, polish: bool, refine: Callable | None) -> RecoveredPoint:
    best = p
    for name, step in (
        ("polish", polish and (lambda x: local_polish(q, x, FEASIBILITY_TOL))),
        ("refine", refine),
    ):
        if not step:
            continue
        x = np.asarray(step(best.x), dtype=float)
        cand = RecoveredPoint(f"{best.scheme}+{name}", x, q.value(x), q.violation(x))
        if _key(q, cand) < _key(q, best):
            best = cand
    return best


def recover(
    rel,
    *,
    draws: int = 64,
    seed: int = 0,
    polish: bool = True,
    keep: int = 8,
    feasible: Callable | None = None,
    refine: Callable | None = None,
    current: bool = False,
) -> Recovery:
    """Round, repair, polish; report.  ``current``: the values ``rel.Y`` holds now (see
    :meth:`.lifting.Relaxation.recover`); a relaxation without a lifted point gives an empty
    :class:`Recovery` whose report says so (no exception: solver trouble is a status)."""
    q = rel.qcqp
    # the values Y holds now may come from any solve: no bound belongs to them
    bound, solver, relaxed = (None, None, None) if current else (rel.bound, rel.solver, rel.value)
    try:
        x, X = rel.solution(current)
    except InvalidParameterError:
        rep = tightness(
            rel.name,
            solver,
            bound,
            relaxed,
            None,
            None,
            None,
            None,
            q.maximize,
            rounding="no lifted point",
        )
        return Recovery([], rep)
    pts, by_scheme = _candidates(rel, x, X, draws, seed, feasible)
    final = [_polished(q, p, polish, refine) for p in _distinct(pts, keep)]
    final = sorted(final, key=lambda p: _key(q, p))
    for p in final:
        p.gap = gap_to(bound, p.value, q.maximize)
    best = final[0] if final else None
    if best is not None and best.feasible:
        by_scheme[best.scheme] = best.value
    rep = tightness(
        rel.name,
        solver,
        bound,
        relaxed,
        rel.lifted_matrix(current),
        None if best is None else best.x,
        None if best is None else best.value,
        None if best is None else best.violation,
        q.maximize,
        "" if best is None else best.scheme,
        by_scheme,
    )
    return Recovery(final, rep)
