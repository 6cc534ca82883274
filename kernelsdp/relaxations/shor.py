"""``shor``: Shor's semidefinite relaxation (N. Z. Shor, "Quadratic optimization problems",
Soviet J. Comput. Syst. Sci. 25, 1987; Lovász–Schrijver 1991 for the ±1 case).

    min ⟨P₀, X⟩ + q₀ᵀx + r₀   s.t.  [[1, xᵀ], [x, X]] ⪰ 0,  each constraint lifted,
                                    X_ii ≤ (l_i + u_i)x_i − l_iu_i  (finite box),
                                    A X = b xᵀ  (the squared equalities)

Exact when it has a rank-one optimum: one quadratic constraint (the S-lemma, Yakubovich
1971), the trust-region subproblem, a convex QCQP; for ±1 problems its value is within
0.878 of MaxCut's (Goemans & Williamson 1995).  Bounded when every x_i has a finite box, a
±1/binary declaration, or a quadratic constraint definite in it.
"""

from __future__ import annotations

from . import boundedness as bd
from .base import Lifting
from .lifting import Relaxation
from .qcqp import QCQP
from .shor_family import shor_family


class Shor(Lifting):
    name = "shor"
    label = "Shor"

    def bounded(self, qcqp: QCQP) -> str | None:
        return bd.unbounded_reason(
            qcqp, bd.shor_diagonal(qcqp), self.label, "add bounds (lb=, ub=) or use rlt"
        )

    def apply(self, qcqp: QCQP) -> Relaxation:
        return shor_family(qcqp, self.name, psd=True, diagonal=bd.shor_diagonal(qcqp))
