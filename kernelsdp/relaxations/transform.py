"""Relaxations chosen by name: the registry, what applies to a QCQP, and ``relax``.

The registry is one ordered dict literal, one line per relaxation, in the order of the
standard hierarchy (docs/relaxations.md).  A relaxation written elsewhere joins it at run
time with ``RELAXATIONS["mine"] = Mine()`` and is then named in ``relax(q, "mine")``,
``applicable(q)`` and ``kernelsdp relax --relaxation mine`` like the others.

``relax`` refuses a lifting that does not apply (:class:`UnsupportedProblemError`) and,
unless ``allow_unbounded=True``, a lifting whose model may be unbounded while the QCQP's own
feasible set is bounded (:class:`UnboundedProblemError`): a bound of −∞ from a weak lifting
of a perfectly bounded problem is what a user should hear about before solving, not after.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UnboundedProblemError, UnknownNameError, UnsupportedProblemError
from .base import Lifting
from .boundedness import feasible_set_bounded
from .dnn import DNN
from .lifting import Relaxation
from .moment import Moment2
from .qcqp import QCQP
from .rlt import RLT
from .sdp1 import SDP1
from .shor import Shor
from .shor_rlt import ShorRLT

#: the relaxations by name, in the order of the hierarchy
RELAXATIONS: dict[str, Lifting] = {
    "shor": Shor(),
    "rlt": RLT(),
    "shor+rlt": ShorRLT(),
    "dnn": DNN(),
    "sdp1": SDP1(),
    "moment2": Moment2(),
}


@dataclass(frozen=True)
class Applicability:
    """Whether a relaxation applies to a QCQP and whether its model is bounded, with why."""

    name: str
    applies: bool
    bounded: bool
    why: str = ""

    @property
    def ok(self) -> bool:
        return self.applies and self.bounded

    def __str__(self) -> str:
        return f"{self.name}: ok" if self.ok else self.why


def check(qcqp: QCQP, name: str) -> Applicability:
    lifting = RELAXATIONS[name]
    why = lifting.accepts(qcqp)
    if why is not None:
        return Applicability(name, False, False, f"{lifting.label or name}: {why}")
    why = lifting.bounded(qcqp)
    return Applicability(name, True, why is None, why or "")


def applicable(qcqp: QCQP) -> dict[str, Applicability]:
    """Every registered relaxation → whether it applies to ``qcqp`` and its model is bounded
    (``str()`` of each says why not: "Shor: no bound on x[0]; add bounds or use rlt")."""
    return {name: check(qcqp, name) for name in RELAXATIONS}


def relax(qcqp: QCQP, name: str, allow_unbounded: bool = False) -> Relaxation:
    """The named relaxation of a QCQP, with a clear error when it does not apply or (unless
    ``allow_unbounded``) when its model may be unbounded on a bounded problem."""
    if name not in RELAXATIONS:
        raise UnknownNameError(
            f"unknown relaxation {name!r}; choose one of {', '.join(RELAXATIONS)}."
        )
    verdict = check(qcqp, name)
    if not verdict.applies:
        fits = [k for k, v in applicable(qcqp).items() if v.applies]
        raise UnsupportedProblemError(
            f"relaxation {name!r} does not apply: {verdict.why}; "
            f"this problem takes {', '.join(fits) or 'none'}."
        )
    if not verdict.bounded and not allow_unbounded and feasible_set_bounded(qcqp):
        raise UnboundedProblemError(
            f"{verdict.why}. The QCQP's feasible set is bounded but this model may not be "
            "(its bound could be infinite); pass allow_unbounded=True to build it anyway."
        )
    return RELAXATIONS[name].apply(qcqp)
