"""``sdp1``: SDP₁ of seed 003, the doubly nonnegative lifting of the *homogenised* standard
QP (I. M. Bomze & E. de Klerk, "Solving standard quadratic optimization problems via linear,
semidefinite and copositive programming", J. Global Optim. 24, 2002; seed 003's SDP₁):

    min xᵀQx s.t. 1ᵀx = 1, x ≥ 0   ↦   min ⟨Q, Z⟩ s.t. 1ᵀZ1 = 1, Z ⪰ 0, Z ≥ 0

A linear term and a constant are homogenised on the simplex (qᵀx = xᵀq1ᵀx, r = r(1ᵀx)²):
Q = P + (q1ᵀ + 1qᵀ)/2 + r11ᵀ.  Forward map x ↦ Z = xxᵀ (no first-moment row); inverse
x = √diag Z normalised (exact when Z* > 0 elementwise, seed 003 Theorem 1).  Its dual is
max t s.t. Q − t11ᵀ ∈ PSD + nonnegative, the copositive bound of Bomze et al.  Exact for
d ≤ 4 (the DNN cone is the completely positive one there).  Always bounded: Z ≥ 0 and
1ᵀZ1 = 1 (the implied tr Z ≤ 1 is stated for the certificate).
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from .base import Lifting
from .lifting import Relaxation
from .qcqp import QCQP


def simplex_qcqp(qcqp: QCQP) -> str | None:
    """None when the QCQP is min/max xᵀPx + qᵀx + r on the simplex (one equality α1ᵀx = α
    with α > 0, x ≥ 0, no upper bound below 1) and nothing else, else why not."""
    a = None if qcqp.A is None or qcqp.A.shape[0] != 1 else qcqp.A[0]
    simplex = (
        a is not None
        and np.all(a > 0)
        and np.allclose(a, a[0])
        and np.isclose(qcqp.b[0], a[0])
        and np.all(qcqp.lb == 0)
        and np.all(qcqp.ub >= 1)
        and qcqp.G is None
        and not qcqp.inequalities
        and not qcqp.equalities
        and not qcqp.integer.size
    )
    return (
        None
        if simplex
        else ("lifts the standard QP only (xᵀPx + qᵀx + r with 1ᵀx = 1, x >= 0 and nothing else)")
    )


def homogenised(qcqp: QCQP) -> np.ndarray:
    """Q with xᵀQx = xᵀPx + qᵀx + r on 1ᵀx = 1."""
    o, d = qcqp.objective, qcqp.d
    one = np.ones(d)
    return o.P + (np.outer(o.q, one) + np.outer(one, o.q)) / 2 + o.r * np.ones((d, d))


def simplex_dnn(Q: np.ndarray, qcqp: QCQP | None = None) -> Relaxation:
    """SDP₁ of Q (a minimisation unless ``qcqp`` says otherwise)."""
    Q = np.asarray(Q, dtype=float)
    d = Q.shape[0]
    if qcqp is None:
        qcqp = QCQP.build(Q, A=np.ones((1, d)), b=[1.0], nonneg=True)
    Z = cp.Variable((d, d), symmetric=True, name="Z")
    # tr Z ≤ 1 is implied (Z ≥ 0, 1ᵀZ1 = 1) and redundant; stated, it is the a-priori bound
    # that makes the certificate's bound rigorous (kernelsdp.certificate.bounds)
    cons = {
        "psd": [Z >> 0],
        "nonnegativity": [Z >= 0],
        "normalisation": [cp.sum(Z) == 1],
        "a_priori_trace": [cp.trace(Z) <= 1],
    }
    sense = cp.Maximize if qcqp.maximize else cp.Minimize
    problem = cp.Problem(sense(cp.sum(cp.multiply(Q, Z))), [c for g in cons.values() for c in g])
    return Relaxation(
        "sdp1",
        qcqp,
        problem,
        Z,
        True,
        cons,
        {"a_priori_trace": "tr Z <= 1 (implied by Z >= 0, 1ᵀZ1 = 1)"},
    )


class SDP1(Lifting):
    name = "sdp1"
    label = "SDP1"

    def accepts(self, qcqp: QCQP) -> str | None:
        return simplex_qcqp(qcqp)

    def apply(self, qcqp: QCQP) -> Relaxation:
        return simplex_dnn(homogenised(qcqp), qcqp)
