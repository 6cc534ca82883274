"""Checks for the StQP family (seed 003), computed from the returned weights α alone.

Per solution: feasibility on the simplex (|1ᵀα − 1|, min α) and the first-order KKT
violation max_i (αᵀQα − (Qα)_i)₊ (zero at every local minimiser; checked for the exact
oracle, reported for the others, since a rounded point need not be stationary).
Across solutions: relaxed bound ≤ exact optimum ≤ every feasible value, and Theorem 2:
for d ≤ 3 a rank-one optimum of SDP₁ exists, so the rounded value equals the exact one.
"""

from __future__ import annotations

import numpy as np

from ..formulations.stqp import StQP
from ..result import Result
from ..tolerances import STQP_TOL


def stqp_residuals(f: StQP, r: Result) -> dict[str, float | None]:
    a = np.asarray(r.primal["alpha"], dtype=float)
    return {"objective": f.objective(a),
            "simplex_violation": max(abs(a.sum() - 1.0), max(0.0, -float(a.min()))),
            "kkt_violation": f.kkt_violation(a),
            "relaxed_bound": r.info.get("bound"),
            "rank": r.info.get("rank")}


def stqp_failures(res: dict, solver: str) -> list[str]:
    bad = [] if res["simplex_violation"] <= STQP_TOL else ["simplex_violation"]
    if solver == "exact" and res["kkt_violation"] > STQP_TOL:
        bad.append("kkt_violation")
    b = res.get("relaxed_bound")
    if b is not None and b > res["objective"] + STQP_TOL * max(1.0, abs(b)):
        bad.append("bound_above_rounded_value")
    return bad


def stqp_relations(f: StQP, results: list[Result]) -> list[tuple[str, str, float, bool]]:
    """(relation, between, amount, passed) rows: the ordering and Theorem 2."""
    rows = []
    exact = [r for r in results if r.solver == "exact" and r.ok]
    scale = lambda v: STQP_TOL * max(1.0, abs(v))  # noqa: E731
    for e in exact:
        for r in results:
            if r is e or not r.ok:
                continue
            rows.append(("exact <= value", f"exact, {r.solver}", r.objective - e.objective,
                         r.objective >= e.objective - scale(e.objective)))
            b = r.info.get("bound")
            if b is not None:
                rows.append(("bound <= exact", f"{r.solver} bound, exact", e.objective - b,
                             b <= e.objective + scale(e.objective)))
                if f.d <= 3:
                    rows.append(("theorem 2 (d <= 3): rounded = exact", f"{r.solver}, exact",
                                 abs(r.objective - e.objective),
                                 abs(r.objective - e.objective) <= scale(e.objective)))
    return rows
