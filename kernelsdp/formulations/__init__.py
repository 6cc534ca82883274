"""Formulations, each declared once as a CVXPY model builder.

``FORMULATIONS`` is the ordered registry of CLI names.  A name maps to a formulation
class plus the parameters that the name fixes: ``simple-npkl`` is NPKL with the
Frobenius capacity, the same declaration under its paper's name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import UnknownNameError
from .base import CvxpyModel, Formulation
from .losses import LOSSES, Loss
from .ncut_mkl import NCutMKL
from .npkl import CAPACITIES, NPKL, simple_npkl
from .spectral_metric import SpectralMetric
from .stqp import StQP
from .tla import KA, LMTL, MWCTLA, NCTLA


@dataclass(frozen=True)
class FormulationEntry:
    cls: type[Formulation]
    fixed: dict[str, Any] = field(default_factory=dict)
    summary: str = ""


FORMULATIONS: dict[str, FormulationEntry] = {
    "npkl": FormulationEntry(NPKL, {}, "NPKL SDP, seed 000 eq. 4 (losses × capacities)"),
    "simple-npkl": FormulationEntry(
        NPKL, {"capacity": "frobenius"}, "SimpleNPKL: NPKL with tr(KK) <= B, seed 000 eqs. 5-6, 9"
    ),
    "stqp": FormulationEntry(StQP, {}, "standard quadratic program, SDP1 relaxation (seed 003)"),
    "ncut-mkl": FormulationEntry(NCutMKL, {}, "kernel weights for normalized cuts (seed 003)"),
    "spectral-metric": FormulationEntry(
        SpectralMetric, {}, "spectral kernel re-weighting QP for metric learning (seed 002)"
    ),
    "ka": FormulationEntry(KA, {}, "kernel alignment QCQP over ramp kernels, eq. 8 (seed 004)"),
    "nc-tla": FormulationEntry(
        NCTLA, {}, "norm-constrained transformation learning SDP, eq. 11 (seed 004)"
    ),
    "mwc-tla": FormulationEntry(MWCTLA, {}, "mixing-weight-constrained TLA SDP, eq. 13 (seed 004)"),
    "lmtl": FormulationEntry(
        LMTL, {}, "large-margin transformation learning SDP, eq. 2 (seed 004)"
    ),
}


def get_formulation(name: str) -> FormulationEntry:
    try:
        return FORMULATIONS[name]
    except KeyError:
        raise UnknownNameError(
            f"unknown formulation {name!r}; choose one of {', '.join(FORMULATIONS)}."
        ) from None


__all__ = [
    "CAPACITIES",
    "CvxpyModel",
    "FORMULATIONS",
    "Formulation",
    "FormulationEntry",
    "KA",
    "LMTL",
    "LOSSES",
    "Loss",
    "MWCTLA",
    "NCTLA",
    "NCutMKL",
    "NPKL",
    "SpectralMetric",
    "StQP",
    "get_formulation",
    "simple_npkl",
]
