"""How tight a relaxation was on one instance: bound, rounded value, gap, rank."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

RANK_RTOL = 1e-6
#: an entry of Z* counts as positive (Theorem 1 of seed 003) above this times max Z*
POSITIVE_RTOL = 1e-6


@dataclass
class TightnessReport:
    relaxation: str
    bound: float
    rounded_value: float
    gap: float
    relative_gap: float
    rank: int
    eigenvalues: list[float]
    rounding: str
    rounding_values: dict[str, float]
    elementwise_positive: bool
    x: list[float]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def numerical_rank(X: np.ndarray, rtol: float = RANK_RTOL) -> tuple[int, np.ndarray]:
    w = np.linalg.eigvalsh((X + X.T) / 2)[::-1]
    scale = max(abs(w[0]), 1e-300) if w.size else 1.0
    return int(np.sum(w > rtol * scale)), w


def tightness(name: str, bound: float, lifted_matrix: np.ndarray, x: np.ndarray,
              rounded_value: float, rounding: str, rounding_values: dict[str, float]) -> TightnessReport:
    rank, w = numerical_rank(lifted_matrix)
    Z = lifted_matrix
    gap = rounded_value - bound
    return TightnessReport(
        relaxation=name, bound=float(bound), rounded_value=float(rounded_value), gap=float(gap),
        relative_gap=float(gap / max(1.0, abs(bound))), rank=rank,
        eigenvalues=[float(v) for v in w[:5]], rounding=rounding,
        rounding_values={k: float(v) for k, v in rounding_values.items()},
        elementwise_positive=bool(np.min(Z) > POSITIVE_RTOL * max(np.max(np.abs(Z)), 1e-300)),
        x=[float(v) for v in x])
