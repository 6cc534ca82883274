"""The relative width of an objective interval: one formula for the certificates'
verdicts (:mod:`kernelsdp.certificate.verdict`) and the solvers' own claims
(:class:`kernelsdp.result.Result`), at the bottom of the house so both can read it."""

from __future__ import annotations

import math


def relative_width(lower: float | None, upper: float | None, scale: float = 0.0) -> float:
    """(upper − lower) / max(|lower|, |upper|, scale, FLOOR); inf when a side is missing or
    infinite.  Scale-invariant: multiplying the objective (and ``scale``) by any t > 0 leaves
    it unchanged, down to magnitudes of FLOOR — below it an interval's ends are the
    absolute slack a proof adds for underflow (an optimum of exactly 0 proven as
    ±``UNDERFLOW``), which carries no relative meaning."""
    if lower is None or upper is None or not (math.isfinite(lower) and math.isfinite(upper)):
        return math.inf
    den = max(abs(lower), abs(upper), abs(scale or 0.0), FLOOR)
    return (upper - lower) / den


#: the smallest magnitude a width is relative to: 10⁸ × the underflow slack that every
#: proven end carries (``kernelsdp.linalg.rounding.UNDERFLOW``, 2⁻¹⁰⁰⁰), so that an exact 0
#: proven as [−UNDERFLOW, UNDERFLOW] reads a width of 2e-8
FLOOR = 2.0**-1000 * 1e8
