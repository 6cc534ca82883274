"""``rlt``: the reformulation-linearization technique at level 1, an LP (H. D. Sherali &
W. P. Adams, SIAM J. Discrete Math. 3, 1990; Sherali & Tuncbilek, J. Global Optim. 2, 1992).

    min ⟨P₀, X⟩ + q₀ᵀx + r₀   s.t.  cᵢᵀ Y cⱼ ≥ 0 for every pair of linear inequalities and
                                    bounds cᵢᵀ[1; x] ≥ 0,  A X = b xᵀ,  constraints lifted

On a box the products of the bounds are McCormick's envelopes (G. P. McCormick, Math.
Program. 10, 1976), the convex and concave envelopes of one product x_ix_j on a rectangle
(Al-Khayyal & Falk, Math. Oper. Res. 8, 1983): exact for a single bilinear term, in general
weaker than Shor+RLT (50-140 % above the optimum on the seven committed box QPs of
benchmarks/relaxations_boxqp.py).  An LP: no PSD block, so its certificate reads the box
rows it states.  Bounded when the linear constraints bound x (a polytope).
"""

from __future__ import annotations

from . import boundedness as bd
from .base import Lifting
from .lifting import Relaxation
from .qcqp import QCQP
from .shor_family import shor_family


class RLT(Lifting):
    name = "rlt"
    label = "RLT"

    def bounded(self, qcqp: QCQP) -> str | None:
        return bd.unbounded_reason(
            qcqp,
            bd.rlt_diagonal(qcqp),
            self.label,
            "the linear constraints do not bound x: add bounds or use shor",
            psd=False,
        )

    def apply(self, qcqp: QCQP) -> Relaxation:
        return shor_family(qcqp, self.name, psd=False, rlt=True, diagonal=bd.rlt_diagonal(qcqp))
