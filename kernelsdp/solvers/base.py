"""The contract of a solver.

A solver declares which formulations it handles (``supports``: None when it can, else the
reason), whether it can run here (``availability``: installed, licensed) and solves a
validated formulation into a :class:`~kernelsdp.result.Result`.  Solver trouble is a
status in the result; only user mistakes (an unsupported loss asked for by name, a size
that would not fit in memory) raise.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from ..formulations.base import Formulation
from ..result import Result


class Solver(ABC):
    name: str = ""
    #: "generic" (a conic solver through CVXPY) or "fast" (a specialised method)
    kind: str = "fast"

    def availability(self) -> tuple[bool, str]:
        """(True, "") when the solver can run on this machine, else (False, reason)."""
        return True, ""

    @abstractmethod
    def supports(self, formulation: Formulation) -> str | None:
        """None when this solver handles the problem, else a sentence saying why not."""

    @abstractmethod
    def solve(self, formulation: Formulation, **options) -> Result:
        """Solve; options are solver-specific (tolerances, limits, verbosity)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"
