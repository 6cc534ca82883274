"""Liftings of a QCQP into a convex CVXPY model, with their maps.

**Shor** (``shor``): forward map x ↦ Y = [[1, xᵀ], [x, xxᵀ]], relaxed to Y ⪰ 0, Y₀₀ = 1:
every quadratic xᵀPx + 2qᵀx + r becomes the linear tr(PX) + 2qᵀx + r with X = Y[1:,1:],
x = Y[1:,0].  Linear constraints stay on x; with ``products=True`` each equality aᵀx = β
is also multiplied by x (X a = β x), a valid cut that the lifting otherwise loses.
**DNN tightening** (``dnn=True``, needs x ≥ 0): Y ≥ 0 elementwise (X ≥ 0, x ≥ 0), exact for
the completely positive cone when d ≤ 4.

Inverse (rounding) map: a point of the original problem from (x, X) — see
:mod:`.rounding`; when rank Y = 1, x itself is optimal.  Duals: the multiplier of each
lifted quadratic constraint is a Lagrange multiplier of the original constraint (Shor's
relaxation is the Lagrangian dual's dual), and the multiplier of Y ⪰ 0 certifies the
bound; ``Relaxation.bound`` is the relaxed optimum, a lower bound on the QCQP's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cvxpy as cp
import numpy as np

from ..errors import InvalidParameterError
from .qcqp import QCQP, Quadratic
from .rounding import best_rounding
from .tightness import tightness


@dataclass
class Relaxation:
    """A lifted convex model of a QCQP, with handles to read its solution."""

    name: str
    qcqp: QCQP
    problem: cp.Problem
    Y: cp.Variable
    homogeneous: bool
    constraints: dict[str, list] = field(default_factory=dict)

    def solution(self) -> tuple[np.ndarray, np.ndarray]:
        """(x, X) after solving: first moment and second moment of the lifted point.

        For the homogeneous (simplex) form there is no first-moment row: x is read from
        X by the square-root-of-diagonal map and X = Y.
        """
        Y = np.asarray(self.Y.value, dtype=float)
        Y = (Y + Y.T) / 2
        if self.homogeneous:
            return np.sqrt(np.maximum(np.diag(Y), 0.0)), Y
        return Y[1:, 0].copy(), Y[1:, 1:].copy()

    @property
    def bound(self) -> float:
        """Relaxed optimum: a lower bound on the QCQP's minimum."""
        return float(self.problem.value)

    def invert(self, feasible=None, polish=None):
        """The inverse map, after a solve: (point of the original problem, its value, the
        tightness report).  ``feasible`` maps a proposal into the feasible set (e.g. the
        simplex normalisation), ``polish`` may improve the chosen point (e.g. on its face)."""
        x, X = self.solution()
        point, scheme, values = best_rounding(self.qcqp, x, X, self.homogeneous, feasible=feasible)
        if point is not None and polish is not None:
            better = polish(point)
            if self.qcqp.value(better) < self.qcqp.value(point):
                point, scheme = better, scheme + "+polish"
                values[scheme] = self.qcqp.value(point)
        value = None if point is None else self.qcqp.value(point)
        report = tightness(self.name, self.bound, X if self.homogeneous else
                           np.asarray(self.Y.value, dtype=float), point, value, scheme, values)
        return point, value, report


def lifted(quad: Quadratic, x, X):
    """tr(PX) + 2qᵀx + r: the linearisation of xᵀPx + 2qᵀx + r."""
    return cp.trace(quad.P @ X) + 2 * quad.q @ x + quad.r


def shor(qcqp: QCQP, dnn: bool = False, products: bool = False) -> Relaxation:
    """The Shor relaxation of a QCQP, optionally tightened to doubly nonnegative."""
    if dnn and not qcqp.nonneg:
        raise InvalidParameterError("the DNN tightening (X >= 0) needs x >= 0 in the QCQP.")
    d = qcqp.d
    Y = cp.Variable((d + 1, d + 1), symmetric=True, name="Y")
    x, X = Y[1:, 0], Y[1:, 1:]
    cons: dict[str, list] = {"psd": [Y >> 0], "homogenising": [Y[0, 0] == 1]}
    cons["quadratic_inequalities"] = [lifted(c, x, X) <= 0 for c in qcqp.inequalities]
    cons["quadratic_equalities"] = [lifted(c, x, X) == 0 for c in qcqp.equalities]
    if qcqp.A is not None:
        cons["linear_equalities"] = [qcqp.A @ x == qcqp.b]
        if products:
            cons["equality_products"] = [X @ qcqp.A.T == cp.reshape(x, (d, 1), order="F") @ qcqp.b[None, :]]
    if qcqp.G is not None:
        cons["linear_inequalities"] = [qcqp.G @ x <= qcqp.h]
    if qcqp.nonneg:
        cons["nonnegativity"] = [x >= 0]
    if dnn:
        cons["dnn"] = [X >= 0]
    flat = [c for group in cons.values() for c in group]
    problem = cp.Problem(cp.Minimize(lifted(qcqp.objective, x, X)), flat)
    return Relaxation("shor+dnn" if dnn else "shor", qcqp, problem, Y, False, cons)


def simplex_dnn(Q: np.ndarray) -> Relaxation:
    """SDP₁ of seed 003: min tr(QZ) s.t. 1ᵀZ1 = 1, Z ⪰ 0, Z ≥ 0.

    This is the DNN lifting of the *homogenised* standard QP min αᵀQα, 1ᵀα = 1, α ≥ 0:
    forward map α ↦ Z = ααᵀ (the constraint (1ᵀα)² = 1 becomes 1ᵀZ1 = 1), no first-moment
    row.  Inverse map: α = √diag(Z) normalised (the paper's rounding), exact when
    Z* > 0 elementwise (Theorem 1).  Dual: max t s.t. Q − t·11ᵀ ∈ (PSD + nonnegative), the
    copositive-programming bound of Bomze et al.
    """
    Q = np.asarray(Q, dtype=float)
    d = Q.shape[0]
    Z = cp.Variable((d, d), symmetric=True, name="Z")
    # tr Z ≤ 1 is implied (Z ≥ 0, 1ᵀZ1 = 1) and redundant; stated, it is the a-priori bound
    # that makes the certificate's lower bound rigorous (kernelsdp.certificate.bounds)
    cons = {"psd": [Z >> 0], "nonnegativity": [Z >= 0], "normalisation": [cp.sum(Z) == 1],
            "implied_trace": [cp.trace(Z) <= 1]}
    problem = cp.Problem(cp.Minimize(cp.trace(Q @ Z)), [c for g in cons.values() for c in g])
    qcqp = QCQP.build(Q, A=np.ones((1, d)), b=[1.0], nonneg=True)
    return Relaxation("sdp1", qcqp, problem, Z, True, cons)
