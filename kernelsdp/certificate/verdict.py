"""The one certificate type, for every family and every solver.

A :class:`Certificate` is computed from a returned point and its duals (never from the
solver's status or its own residuals) and says one of:

- ``optimality``: an objective interval [lower, upper] that contains the optimum, with the
  residuals that make it so (primal feasibility, dual feasibility, stationarity,
  complementarity);
- ``infeasibility``: a Farkas certificate (a dual ray) was checked;
- ``unboundedness``: a primal ray was checked;
- ``feasibility only``: the point was checked, but there were no duals to bound the
  optimum — this never passes;
- ``no point``: the solver returned nothing to check — this never passes.

It passes when every checked measure is at most ``tol`` (signed measures by magnitude) and,
for optimality, when the interval is no wider than ``tol`` relative to its scale:
width = (upper − lower) / (1 + |lower| + |upper|), the scaling of DIMACS's err5.  The
interval is *rigorous* when its dual side is a valid bound whatever the accuracy of the
duals (e.g. an a-priori trace bound absorbed the negative part of the dual slack's
λ_min); otherwise it is labelled an estimate.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any

OPTIMALITY = "optimality"
INFEASIBILITY = "infeasibility"
UNBOUNDEDNESS = "unboundedness"
FEASIBILITY_ONLY = "feasibility only"
NO_POINT = "no point"
PASSING_KINDS = (OPTIMALITY, INFEASIBILITY, UNBOUNDEDNESS)


def relative_width(lower: float | None, upper: float | None) -> float:
    """(upper − lower) / (1 + |lower| + |upper|); inf when a side is missing or infinite."""
    if lower is None or upper is None or not (math.isfinite(lower) and math.isfinite(upper)):
        return math.inf
    return (upper - lower) / (1.0 + abs(lower) + abs(upper))


@dataclass
class Certificate:
    """What verify, `kernelsdp certify` and the estimators report about one answer.

    ``measures`` are named, relative residuals, each checked at ``tol`` unless named in
    ``reported`` (shown, not judged); ``dimacs`` holds err1–err6 where the certificate is
    the generic conic one.  ``lower``/``upper`` are in the problem's own objective terms.
    """

    kind: str
    tol: float
    lower: float | None = None
    upper: float | None = None
    rigorous: bool = False
    measures: dict[str, float | None] = field(default_factory=dict)
    reported: tuple[str, ...] = ()
    dimacs: dict[str, float] | None = None
    note: str = ""
    #: per-constraint primal violations (the user's constraints, where known): shown only
    per_constraint: dict[str, float] = field(default_factory=dict)

    @property
    def width(self) -> float:
        return relative_width(self.lower, self.upper)

    @property
    def failed(self) -> list[str]:
        """Names of what fails, in a stable order ([] when the certificate passes)."""
        if self.kind not in PASSING_KINDS:
            return [self.kind]
        bad = [k for k, v in self.measures.items()
               if k not in self.reported and (v is None or not abs(v) <= self.tol)]
        if self.kind == OPTIMALITY:
            w = self.width
            if w < -self.tol:
                bad.append("interval_inverted")  # a point below a valid lower bound
            elif not w <= self.tol:
                bad.append("interval_width")
        return bad

    @property
    def passed(self) -> bool:
        return not self.failed

    @property
    def verdict(self) -> str:
        if self.passed:
            return f"certified {self.kind}"
        if self.kind in (FEASIBILITY_ONLY, NO_POINT):
            return self.kind
        return "FAIL: " + ", ".join(self.failed)

    def mapped(self, scale: float, shift: float = 0.0) -> "Certificate":
        """The same certificate for the objective scale·v + shift (a negative scale swaps
        the interval's sides: a maximisation stated as a minimisation)."""
        f = (lambda v: None if v is None else scale * v + shift)  # noqa: E731
        lo, up = f(self.lower), f(self.upper)
        if scale < 0:
            lo, up = up, lo
        return replace(self, lower=lo, upper=up)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.update(passed=self.passed, failed=self.failed, verdict=self.verdict,
                 width=self.width, reported=list(self.reported))
        return d


def feasibility_only(tol: float, measures: dict[str, float | None], value: float | None,
                     note: str = "the solver returned no duals: the optimum is not bounded",
                     maximize: bool = False) -> Certificate:
    """A checked point without duals: its value bounds one side only (the upper side of a
    minimisation), its residuals are shown, it never passes."""
    lower, upper = (value, None) if maximize else (None, value)
    return Certificate(FEASIBILITY_ONLY, tol, lower, upper, False, measures,
                       tuple(measures), note=note)


def no_point(tol: float, note: str) -> Certificate:
    return Certificate(NO_POINT, tol, note=note)
