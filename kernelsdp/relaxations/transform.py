"""Relaxations as transforms, chosen by name from outside a formulation.

The contract (cvxpy's reductions, MathOptInterface's bridges): a :class:`Lifting` declares
which QCQPs it ``accepts``; ``apply(qcqp)`` returns the lifted convex model
(:class:`~.lifting.Relaxation`, whose ``problem`` any conic solver takes and the certificate
layer certifies); after a solve, ``Relaxation.invert()`` maps the lifted point back to a
point of the original problem and reports how tight the relaxation was.  The registry is
ordered by tightness, strongest first:

- ``sdp1``: the doubly nonnegative lifting of the *homogenised* standard QP
  (min xᵀPx, 1ᵀx = 1, x ≥ 0 only): Z ⪰ 0, Z ≥ 0, 1ᵀZ1 = 1 (seed 003);
- ``dnn``: Shor's lifting with Y ≥ 0 elementwise (needs x ≥ 0);
- ``shor``: Shor's lifting, [[1, xᵀ], [x, X]] ⪰ 0.

Both Shor liftings add the products of the linear equalities with x (X a = β x), a valid cut
the lifting otherwise loses; without it the lifted standard QP is unbounded.  Whether a
lifting's model is *bounded* is the formulation's to say: the standard QP takes ``sdp1`` and
``dnn`` (plain ``shor`` lets X grow along Q's negative directions orthogonal to 1).

A formulation declares its nonconvex problem once (``original()`` → QCQP) and takes the
relaxation as a parameter; a user's own QCQP goes through the same path:
``relax(qcqp, "dnn")`` → solve or verify its ``.problem`` → ``.invert()``.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..errors import UnknownNameError, UnsupportedProblemError
from .lifting import Relaxation, shor, simplex_dnn
from .qcqp import QCQP


class Lifting:
    name: ClassVar[str] = ""

    def accepts(self, qcqp: QCQP) -> str | None:
        """None when this lifting applies to the QCQP, else why not."""
        return None

    def apply(self, qcqp: QCQP) -> Relaxation:
        raise NotImplementedError


class Shor(Lifting):
    name = "shor"

    def apply(self, qcqp: QCQP) -> Relaxation:
        return shor(qcqp, products=True)


class DNN(Lifting):
    name = "dnn"

    def accepts(self, qcqp: QCQP) -> str | None:
        return None if qcqp.nonneg else "the DNN tightening needs x >= 0"

    def apply(self, qcqp: QCQP) -> Relaxation:
        return shor(qcqp, dnn=True, products=True)


class SDP1(Lifting):
    name = "sdp1"

    def accepts(self, qcqp: QCQP) -> str | None:
        simplex = (qcqp.nonneg and qcqp.A is not None and qcqp.A.shape[0] == 1
                   and np.all(qcqp.A == 1) and np.allclose(qcqp.b, 1) and qcqp.G is None
                   and not qcqp.inequalities and not qcqp.equalities
                   and not np.any(qcqp.objective.q) and qcqp.objective.r == 0)
        return None if simplex else ("SDP1 lifts the standard QP only (min xᵀPx, 1ᵀx = 1, "
                                     "x >= 0, nothing else)")

    def apply(self, qcqp: QCQP) -> Relaxation:
        return simplex_dnn(qcqp.objective.P)


#: the relaxations by name, strongest first
RELAXATIONS: dict[str, Lifting] = {r.name: r for r in (SDP1(), DNN(), Shor())}


def applicable(qcqp: QCQP) -> list[str]:
    return [name for name, r in RELAXATIONS.items() if r.accepts(qcqp) is None]


def relax(qcqp: QCQP, name: str) -> Relaxation:
    """The named relaxation of a QCQP (a clear error when it does not apply)."""
    if name not in RELAXATIONS:
        raise UnknownNameError(f"unknown relaxation {name!r}; choose one of "
                               f"{', '.join(RELAXATIONS)}.")
    why = RELAXATIONS[name].accepts(qcqp)
    if why is not None:
        raise UnsupportedProblemError(f"relaxation {name!r} does not apply: {why}; this "
                                      f"problem takes {', '.join(applicable(qcqp))}.")
    return RELAXATIONS[name].apply(qcqp)
