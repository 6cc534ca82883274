"""The one certificate type, for every family and every solver.

A :class:`Certificate` is computed from a returned point and its duals (never from the
solver's status or its own residuals) and says one of:

- ``optimality``: an objective interval [lower, upper] that contains the optimum, with the
  residuals that make it so (primal feasibility, dual feasibility, stationarity,
  complementarity);
- ``infeasibility``: a Farkas certificate (a dual ray) was checked — ``lower_label`` labels
  the certificate itself (proof, or an estimate with ``lower_why``);
- ``unboundedness``: a primal ray and a feasible point were checked (labelled likewise);
- ``feasibility only``: the point was checked, but there were no duals to bound the
  optimum — this never passes;
- ``no point``: the solver returned nothing to check — this never passes.

**Each end of the interval carries its own label** (``lower_label``, ``upper_label``):

- ``proof`` (:data:`PROOF`): the end holds for the exact optimum, floating-point rounding
  accounted for (a verified λ_min, an enclosed stationarity or equality correction);
- ``probable`` (:data:`PROBABLE`): it holds except with a stated failure probability (a
  randomised Lanczos bound): never a proof;
- ``estimate`` (:data:`ESTIMATE`): a number, not a bound; ``lower_why`` / ``upper_why``
  say why it is not a proof.

An optimality certificate *passes* ("certified optimality") only when both ends are
proofs, lower ≤ upper, and the width is within ``tol``.  Two proofs that cross (lower >
upper) are a failure named ``inconsistent``: one of the two computations is wrong.  The
width is relative to the magnitude of what it measures: (upper − lower) / max(|lower|,
|upper|, ``scale``), where ``scale`` is the data's own size (e.g. Σ|cᵢxᵢ| + |d|), so
that a problem multiplied by 10⁻⁶ or 10⁶ gets the same verdict.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ..intervals import relative_width

OPTIMALITY = "optimality"
INFEASIBILITY = "infeasibility"
UNBOUNDEDNESS = "unboundedness"
FEASIBILITY_ONLY = "feasibility only"
NO_POINT = "no point"
PASSING_KINDS = (OPTIMALITY, INFEASIBILITY, UNBOUNDEDNESS)

#: labels of an interval's end
PROOF = "proof"
PROBABLE = "probable"
ESTIMATE = "estimate"
LABELS = (PROOF, PROBABLE, ESTIMATE)
#: the failed term when two proven ends cross
INCONSISTENT = "inconsistent"


@dataclass
class Certificate:
    """What verify, `kernelsdp certify` and the estimators report about one answer.

    ``measures`` are named, relative residuals, each checked at ``tol`` unless named in
    ``reported`` (shown, not judged); ``dimacs`` holds err1–err6 where the certificate is
    the generic conic one.  ``lower``/``upper`` are in the problem's own objective terms,
    each with its label (:data:`PROOF`, :data:`PROBABLE`, :data:`ESTIMATE`) and, for
    anything but a proof, the reason in ``lower_why`` / ``upper_why``.
    """

    kind: str
    tol: float
    lower: float | None = None
    upper: float | None = None
    lower_label: str = ESTIMATE
    measures: dict[str, float | None] = field(default_factory=dict)
    reported: tuple[str, ...] = ()
    dimacs: dict[str, float] | None = None
    note: str = ""
    #: per-constraint primal violations (the user's constraints, where known): shown only
    per_constraint: dict[str, float] = field(default_factory=dict)
    upper_label: str = ESTIMATE
    lower_why: str = ""
    upper_why: str = ""
    #: the data's own magnitude, the floor of the width's denominator (0: |ends| only)
    scale: float = 0.0

    def __post_init__(self):
        for lab in (self.lower_label, self.upper_label):
            if lab not in LABELS:
                raise ValueError(f"an interval end is labelled one of {LABELS}, not {lab!r}")
        # a NaN is no bound: whatever computed it, its end is not a proof
        for side in ("lower", "upper"):
            value = getattr(self, side)
            if value is not None and math.isnan(value) and getattr(self, side + "_label") == PROOF:
                object.__setattr__(self, side + "_label", ESTIMATE)
                why = getattr(self, side + "_why")
                object.__setattr__(self, side + "_why", (why + "; " if why else "") + "NaN")

    @property
    def rigorous(self) -> bool:
        """Both ends are proofs."""
        return self.lower_label == PROOF and self.upper_label == PROOF

    @property
    def width(self) -> float:
        return relative_width(self.lower, self.upper, self.scale)

    def proven_bound(self, maximize: bool = False) -> float | None:
        """The end that bounds the optimum from the dual side — the lower end of a
        minimisation, the upper end of a maximisation — when it is a proof, else None."""
        if maximize:
            return self.upper if self.upper_label == PROOF else None
        return self.lower if self.lower_label == PROOF else None

    def label_failures(self) -> list[str]:
        """``lower_estimate``, ``upper_probable``, … : the ends that are not proofs."""
        return [
            f"{side}_{lab}"
            for side, lab in (("lower", self.lower_label), ("upper", self.upper_label))
            if lab != PROOF
        ]

    @property
    def failed(self) -> list[str]:
        """Names of what fails, in a stable order ([] when the certificate passes)."""
        if self.kind not in PASSING_KINDS:
            return [self.kind]
        bad = [
            k
            for k, v in self.measures.items()
            if k not in self.reported and (v is None or not abs(v) <= self.tol)
        ]
        if self.kind == OPTIMALITY:
            bad += self._interval_failures()
        elif self.lower_label != PROOF:  # infeasibility, unboundedness: the certificate's label
            bad.append(f"{self.kind}_{self.lower_label}")
        return bad

    def _interval_failures(self) -> list[str]:
        bad = self.label_failures()
        w = self.width
        if self.rigorous and w < 0:
            bad.append(INCONSISTENT)  # two proofs cross: one of them is wrong
        elif w < -self.tol:
            bad.append("interval_inverted")
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
        failed = self.failed
        if INCONSISTENT in failed:
            return "INCONSISTENT: " + ", ".join(failed)
        if self.kind == OPTIMALITY and set(failed) <= set(self.label_failures()):
            return "not proven: " + ", ".join(failed)
        return "FAIL: " + ", ".join(failed)

    def mapped(self, scale: float, shift: float = 0.0) -> Certificate:
        """The same certificate for the objective scale·v + shift (a negative scale swaps
        the interval's sides, with their labels: a maximisation stated as a minimisation)."""
        f = lambda v: None if v is None else scale * v + shift
        lo, up = f(self.lower), f(self.upper)
        new = {"lower": lo, "upper": up, "scale": abs(scale) * self.scale}
        if scale < 0:
            new.update(
                lower=up,
                upper=lo,
                lower_label=self.upper_label,
                upper_label=self.lower_label,
                lower_why=_sides_swapped(self.upper_why),
                upper_why=_sides_swapped(self.lower_why),
                note=_sides_swapped(self.note),
            )
        return replace(self, **new)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.update(
            passed=self.passed,
            failed=self.failed,
            verdict=self.verdict,
            width=self.width,
            reported=list(self.reported),
            rigorous=self.rigorous,
        )
        return d


def _sides_swapped(text: str) -> str:
    """A reason written for the minimisation, read for the maximisation it states: its
    "upper bound" is the user's lower one (a Maximize's lower end read "no proven upper
    bound")."""
    if not text:
        return text
    marks = {"upper bound": "\0", "lower bound": "upper bound"}
    for old, new in marks.items():
        text = text.replace(old, new)
    return text.replace("\0", "lower bound")


def feasibility_only(
    tol: float,
    measures: dict[str, float | None],
    value: float | None,
    note: str = "the solver returned no duals: the optimum is not bounded",
    maximize: bool = False,
    label: str = ESTIMATE,
    why: str = "",
) -> Certificate:
    """A checked point without duals: its value bounds one side only (the upper side of a
    minimisation), with ``label`` when that side is proven; its residuals are shown; it
    never passes."""
    why = why or ("" if label == PROOF else "the point's value; its feasibility is not proven")
    if maximize:
        return Certificate(
            FEASIBILITY_ONLY,
            tol,
            value,
            None,
            label,
            measures,
            tuple(measures),
            note=note,
            lower_why=why,
            upper_why="no duals: no bound from this side",
        )
    return Certificate(
        FEASIBILITY_ONLY,
        tol,
        None,
        value,
        ESTIMATE,
        measures,
        tuple(measures),
        note=note,
        upper_label=label,
        upper_why=why,
        lower_why="no duals: no bound from this side",
    )


def no_point(tol: float, note: str) -> Certificate:
    return Certificate(NO_POINT, tol, note=note)
