"""The contract of a relaxation (cvxpy's reductions, MathOptInterface's bridges): a
:class:`Lifting` says which QCQPs it ``accepts``, whether its model of a QCQP is
``bounded`` (and why not), and ``apply`` builds the lifted model, a
:class:`~.lifting.Relaxation` that any conic solver takes and the certificate layer
certifies.  A new relaxation is one subclass and one registry line
(:data:`kernelsdp.relaxations.RELAXATIONS`), from inside the package or outside it.
"""

from __future__ import annotations

from typing import ClassVar

from .lifting import Relaxation
from .qcqp import QCQP


class Lifting:
    """Base class of the relaxations; subclasses set ``name`` and implement ``apply``."""

    name: ClassVar[str] = ""
    #: how messages name it ("Shor", "RLT")
    label: ClassVar[str] = ""

    def accepts(self, qcqp: QCQP) -> str | None:
        """None when this lifting applies to the QCQP, else why not."""
        return None

    def bounded(self, qcqp: QCQP) -> str | None:
        """None when its model of the QCQP is known to be bounded (or is not analysed),
        else why it may not be: "Shor: no bound on x[0]; add bounds or use rlt"."""
        return None

    def apply(self, qcqp: QCQP) -> Relaxation:
        raise NotImplementedError
