"""Residuals of the spectral metric QP (seed 002), from β and the multiplier ρ.

KKT of min βᵀDβ s.t. 1ᵀβ = c [β ≥ 0]: ν = 2Dβ − ρ1 must vanish (free β) or be ≥ 0 with
ν_r β_r = 0 (β ≥ 0).  Residuals are relative to ρ's scale.
"""

from __future__ import annotations

import numpy as np

from ..formulations.spectral_metric import SpectralMetric
from ..result import Result


def qp_residuals(f: SpectralMetric, r: Result) -> dict[str, float | None]:
    beta = np.asarray(r.primal["beta"], dtype=float)
    rho = r.duals.get("rho")
    g = 2 * f.d * beta
    if rho is None:  # best multiplier for the reported β
        rho = float(np.median(g[beta > 0])) if np.any(beta > 0) else 0.0
    nu = g - rho
    scale = max(abs(rho), 1e-300)
    if f.nonneg:
        stat = max(float(np.max(np.maximum(-nu, 0.0))), float(np.max(np.abs(nu * beta))) / max(f.c, 1e-300))
        neg = float(np.max(np.maximum(-beta, 0.0)))
    else:
        stat, neg = float(np.max(np.abs(nu))), 0.0
    return {"objective": f.objective(beta), "equality_violation": abs(beta.sum() - f.c) / max(1.0, f.c),
            "negativity": neg, "stationarity": stat / scale}


CHECKED = ("equality_violation", "negativity", "stationarity")
