"""A researcher's own ``cvxpy.Problem`` as a formulation: solve, verify and certify it with
no code of its own (the generic conic certificate of :mod:`kernelsdp.certificate`).

The problem object is shared, not copied: after a solve its variables hold the last
solver's values, exactly as after ``problem.solve()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import cvxpy as cp

from ..errors import InvalidDataError
from .base import CvxpyModel, Formulation, psd_side


@dataclass
class CvxpyProblem(Formulation):
    """Any DCP ``cvxpy.Problem``, declared by the user."""

    problem: cp.Problem
    label: str = "cvxpy"
    _side: int = field(default=-1, repr=False)

    name: ClassVar[str] = "cvxpy"

    def __post_init__(self) -> None:
        if not isinstance(self.problem, cp.Problem):
            raise InvalidDataError(f"expected a cvxpy.Problem; got {type(self.problem).__name__}.")
        if not self.problem.variables():
            raise InvalidDataError("the problem has no variables: there is nothing to solve.")
        if not self.problem.is_dcp():
            raise InvalidDataError(
                "the problem is not DCP: CVXPY cannot hand it to a conic "
                "solver (see problem.is_dcp())."
            )
        self.maximize = isinstance(self.problem.objective, cp.Maximize)  # type: ignore[misc]

    @property
    def n(self) -> int:
        return self.psd_dim

    @property
    def psd_dim(self) -> int:
        if self._side < 0:
            self._side = psd_side(self.problem)
        return self._side

    def describe(self) -> dict[str, Any]:
        return {
            "formulation": self.label,
            "variables": len(self.problem.variables()),
            "constraints": len(self.problem.constraints),
            "psd_side": self.psd_dim,
        }

    def build(self) -> CvxpyModel:
        return CvxpyModel(
            self.problem,
            {v.name(): v for v in self.problem.variables()},
            {str(k): c for k, c in enumerate(self.problem.constraints)},
        )

    def objective(self, point) -> float:
        return float(self.problem.objective.value)

    @classmethod
    def from_npz(cls, arrays, **params):
        raise InvalidDataError(
            "a cvxpy.Problem is given in Python (or a .py file for "
            "'kernelsdp certify'), not as a .npz file."
        )


def as_formulation(problem_or_formulation) -> Formulation:
    """A formulation as is; a ``cvxpy.Problem`` wrapped as :class:`CvxpyProblem`."""
    if isinstance(problem_or_formulation, Formulation):
        return problem_or_formulation
    if isinstance(problem_or_formulation, cp.Problem):
        return CvxpyProblem(problem_or_formulation)
    raise InvalidDataError(
        "expected a kernelsdp formulation or a cvxpy.Problem; got "
        f"{type(problem_or_formulation).__name__}."
    )
