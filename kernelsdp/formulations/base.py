"""The contract of a formulation: validated problem data + one CVXPY model builder.

A formulation is declared once.  Generic solvers call :meth:`Formulation.build` and hand
the CVXPY problem to a conic solver; fast solvers read the same validated data; verify
evaluates the same objective.  ``NPZ_KEYS`` documents how the formulation is read from a
``--problem FILE.npz`` (the one way to feed any formulation from a script).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np

from ..errors import InvalidDataError


@dataclass
class CvxpyModel:
    """A built CVXPY problem with named handles to its variables and constraints."""

    problem: cp.Problem
    variables: dict[str, cp.Variable] = field(default_factory=dict)
    constraints: dict[str, cp.Constraint] = field(default_factory=dict)


class Formulation(ABC):
    """Base class: subclasses are dataclasses of validated data and parameters."""

    #: registry name of the formulation family
    name: ClassVar[str]
    #: key -> description of the arrays read from ``--problem FILE.npz``
    NPZ_KEYS: ClassVar[dict[str, str]] = {}

    @abstractmethod
    def build(self) -> CvxpyModel:
        """The symbolic CVXPY model of the problem (the single declaration)."""

    @abstractmethod
    def objective(self, point) -> float:
        """The objective of the declared problem at a point (a kernel factor, weights...)."""

    @abstractmethod
    def from_cvxpy(self, model: CvxpyModel) -> dict[str, Any]:
        """Read a solved model: keys ``kernel``, ``primal``, ``duals``, ``info`` and, when
        the model is a relaxation, ``objective`` (the value of the point read back)."""

    @property
    @abstractmethod
    def n(self) -> int:
        """Number of points (size of the kernel)."""

    @property
    def psd_dim(self) -> int:
        """Side of the largest PSD block of the CVXPY model (0 for a QP): what sizes the
        memory of an interior-point solve."""
        return self.n

    def describe(self) -> dict[str, Any]:
        """Parameters worth printing in a report."""
        return {"formulation": self.name, "n": self.n}

    @classmethod
    @abstractmethod
    def from_npz(cls, arrays: dict[str, np.ndarray], **params) -> "Formulation":
        """Build from the arrays of a ``--problem`` file (keys in ``NPZ_KEYS``)."""


def require_keys(arrays: dict[str, np.ndarray], keys, owner: str) -> None:
    missing = [k for k in keys if k not in arrays]
    if missing:
        raise InvalidDataError(f"the problem file for {owner} lacks the key(s) {', '.join(missing)}; "
                               f"see 'kernelsdp solve {owner} --help'.")
