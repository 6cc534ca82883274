"""``dnn``: the doubly nonnegative relaxation, Shor's with Y ≥ 0 elementwise (x ≥ 0 needed;
S. Burer, "On the copositive representation of binary and continuous nonconvex quadratic
programs", Math. Program. 120, 2009: the completely positive cone relaxed to PSD ∩ ≥ 0).

    Y = [[1, xᵀ], [x, X]] ⪰ 0,  Y ≥ 0,  A X = b xᵀ,  constraints lifted

Exact (the DNN cone is the completely positive one) for d + 1 ≤ 4 (Maxfield & Minc 1962);
on the standard QP its value equals SDP₁'s.  Bounded when Shor's is, or on the support of
an equality aᵀx = β with a ≥ 0 (the simplex).
"""

from __future__ import annotations

from . import boundedness as bd
from .base import Lifting
from .lifting import Relaxation
from .qcqp import QCQP
from .shor_family import shor_family


class DNN(Lifting):
    name = "dnn"
    label = "DNN"

    def accepts(self, qcqp: QCQP) -> str | None:
        return None if qcqp.nonneg else "needs x >= 0 (lb >= 0 on every variable)"

    def bounded(self, qcqp: QCQP) -> str | None:
        return bd.unbounded_reason(
            qcqp, bd.dnn_diagonal(qcqp), self.label, "add bounds (lb=, ub=) or use shor+rlt"
        )

    def apply(self, qcqp: QCQP) -> Relaxation:
        return shor_family(qcqp, self.name, psd=True, dnn=True, diagonal=bd.dnn_diagonal(qcqp))
