"""``shor+rlt``: Shor's relaxation with the RLT products ("SDP+RLT": K. M. Anstreicher,
"Semidefinite programming versus the reformulation-linearization technique for nonconvex
quadratically constrained quadratic programming", J. Global Optim. 43, 2009).

    Y = [[1, xᵀ], [x, X]] ⪰ 0  and  cᵢᵀ Y cⱼ ≥ 0 for all pairs of linear constraints

Strictly stronger than both; exact for box QPs in two variables (Anstreicher & Burer,
Math. Program. 124, 2010), and within a few per cent on the Vandenbussche–Nemhauser box QPs
(benchmarks/relaxations_boxqp.py).  On a box with lb = 0 it contains Y ≥ 0, so it is also
the DNN+RLT relaxation (Burer's DNN of the completely positive form of a box QP projects
onto it: the products x_i(u_j − x_j) ≥ 0 are McCormick's).
"""

from __future__ import annotations

import numpy as np

from . import boundedness as bd
from .base import Lifting
from .lifting import Relaxation
from .qcqp import QCQP
from .shor_family import shor_family


def _diagonal(qcqp: QCQP) -> np.ndarray:
    return np.minimum(bd.shor_diagonal(qcqp), bd.rlt_diagonal(qcqp))


class ShorRLT(Lifting):
    name = "shor+rlt"
    label = "Shor+RLT"

    def bounded(self, qcqp: QCQP) -> str | None:
        return bd.unbounded_reason(qcqp, _diagonal(qcqp), self.label, "add bounds (lb=, ub=)")

    def apply(self, qcqp: QCQP) -> Relaxation:
        return shor_family(qcqp, self.name, psd=True, rlt=True, diagonal=_diagonal(qcqp))
