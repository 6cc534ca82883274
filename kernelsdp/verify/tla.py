"""Feasibility of a transformation-learning solution (seed 004), from (m, M) alone.

Lifted formulations: λ_min([[1, mᵀ], [m, M]]) ≥ 0, m ≥ 0, 1ᵀm ≤ 1 (MWC-TLA, LMTL),
tr M ≤ 1, and M ≥ 0 elementwise for the tightened MWC-TLA.  KA: m ≥ 0 and mᵀSm ≤ 1.
"""

from __future__ import annotations

import numpy as np

from ..formulations.tla import KA, MWCTLA
from ..result import Result


def tla_residuals(f, r: Result) -> dict[str, float]:
    m = np.asarray(r.primal["m"], dtype=float)
    out = {"objective": r.objective, "negativity_m": float(max(0.0, -m.min()))}
    if isinstance(f, KA):
        out["quadratic_violation"] = float(max(0.0, m @ f.S @ m - 1.0))
        return out
    M = np.asarray(r.primal["M"], dtype=float)
    Y = np.block([[np.ones((1, 1)), m[None]], [m[:, None], M]])
    out["min_eig_lifted"] = float(np.linalg.eigvalsh((Y + Y.T) / 2)[0])
    if f.BOUNDED_MIXING:
        out["trace_violation"] = float(max(0.0, np.trace(M) - 1.0))
        out["sum_violation"] = float(max(0.0, m.sum() - 1.0))
    if isinstance(f, MWCTLA) and f.tightened:
        out["negativity_M"] = float(max(0.0, -M.min()))
    return out


def tla_failures(res: dict[str, float], tol: float) -> list[str]:
    bad = [k for k, v in res.items() if k not in ("objective", "min_eig_lifted") and v > tol]
    if res.get("min_eig_lifted", 0.0) < -tol:
        bad.append("min_eig_lifted")
    return bad
