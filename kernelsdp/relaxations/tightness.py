"""How tight a relaxation was on one instance: its proven bound, the best recovered point,
the gap between them, and the numerical rank of the lifted matrix.

The gap is measured from the proven bound towards the feasible side: recovered − bound for
a minimisation, bound − recovered for a maximisation, ≥ 0 whenever both are right.  The
bound is *attained* when that gap is within :data:`kernelsdp.tolerances.CERTIFY_TOL`
relative to max(|bound|, |value|): the recovered point is then optimal for the QCQP, and
the relaxation exact on this instance.  A rank-one lifted matrix says the same from the
relaxation's side (x itself is optimal).  Without a proven bound there is no gap.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..tolerances import CERTIFY_TOL

#: an eigenvalue counts towards the rank above this times the largest
RANK_RTOL = 1e-6


@dataclass
class TightnessReport:
    relaxation: str
    solver: str | None
    bound: float | None
    relaxed_value: float | None
    recovered_value: float | None
    violation: float | None
    gap: float | None
    relative_gap: float | None
    attained: bool | None
    rank: int | None
    eigenvalues: list[float] = field(default_factory=list)
    rounding: str = ""
    rounding_values: dict[str, float] = field(default_factory=dict)
    x: list[float] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def numerical_rank(X: np.ndarray, rtol: float = RANK_RTOL) -> tuple[int, np.ndarray]:
    """(rank, eigenvalues in decreasing order) of a symmetric matrix."""
    w = np.linalg.eigvalsh((X + X.T) / 2)[::-1]
    scale = max(abs(w[0]), 1e-300) if w.size else 1.0
    return int(np.sum(w > rtol * scale)), w


def gap_to(bound: float | None, value: float | None, maximize: bool) -> float | None:
    """Bound to value, towards the feasible side (≥ 0 when both are right)."""
    if bound is None or value is None:
        return None
    return float(bound - value) if maximize else float(value - bound)


def tightness(
    name: str,
    solver: str | None,
    bound: float | None,
    relaxed: float | None,
    lifted_matrix: np.ndarray | None,
    x: np.ndarray | None,
    value: float | None,
    violation: float | None,
    maximize: bool,
    rounding: str = "",
    rounding_values: dict[str, float] | None = None,
) -> TightnessReport:
    gap = gap_to(bound, value, maximize)
    rel = None
    if gap is not None:
        den = max(abs(bound), abs(value))
        rel = gap / den if den > 0 else (0.0 if gap == 0 else float("inf"))
    rank, w = (None, np.zeros(0)) if lifted_matrix is None else numerical_rank(lifted_matrix)
    return TightnessReport(
        relaxation=name,
        solver=solver,
        bound=bound,
        relaxed_value=relaxed,
        recovered_value=value,
        violation=violation,
        gap=gap,
        relative_gap=rel,
        attained=None if rel is None else bool(abs(rel) <= CERTIFY_TOL),
        rank=rank,
        eigenvalues=[float(v) for v in w[:5]],
        rounding=rounding,
        rounding_values={k: float(v) for k, v in (rounding_values or {}).items()},
        x=[] if x is None else [float(v) for v in x],
    )
