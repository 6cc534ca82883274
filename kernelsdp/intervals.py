"""The relative width of an objective interval: one formula for the certificates'
verdicts (:mod:`kernelsdp.certificate.verdict`) and the solvers' own claims
(:class:`kernelsdp.result.Result`), at the bottom of the house so both can read it."""

from __future__ import annotations

import math


def relative_width(lower: float | None, upper: float | None, scale: float = 0.0) -> float:
    """(upper − lower) / max(|lower|, |upper|, scale, FLOOR); inf when a side is missing or
    infinite.  Scale-invariant: multiplying the objective (and ``scale``) by any t > 0 leaves
    it unchanged, down to magnitudes of FLOOR — below it an interval's ends are the
    subnormal steps a proof takes off an exact 0 (an optimum of exactly 0, K* = 0), which
    carry no relative meaning."""
    if lower is None or upper is None or not (math.isfinite(lower) and math.isfinite(upper)):
        return math.inf
    den = max(abs(lower), abs(upper), abs(scale or 0.0), FLOOR)
    return (upper - lower) / den


#: the smallest magnitude a width is relative to (10⁴ × the smallest normal double)
FLOOR = 2.0**-1022 * 1e4
