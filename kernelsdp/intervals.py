"""The relative width of an objective interval: one formula for the certificates'
verdicts (:mod:`kernelsdp.certificate.verdict`) and the solvers' own claims
(:class:`kernelsdp.result.Result`), at the bottom of the house so both can read it."""

from __future__ import annotations

import math


def relative_width(lower: float | None, upper: float | None, scale: float = 0.0) -> float:
    """(upper − lower) / max(|lower|, |upper|, scale); inf when a side is missing or
    infinite, 0 when both ends and the scale are 0.  Scale-invariant: multiplying the
    objective (and ``scale``) by any t > 0 leaves it unchanged."""
    if lower is None or upper is None or not (math.isfinite(lower) and math.isfinite(upper)):
        return math.inf
    den = max(abs(lower), abs(upper), abs(scale or 0.0))
    diff = upper - lower
    if den == 0.0:
        return 0.0 if diff == 0.0 else math.copysign(math.inf, diff)
    return diff / den
