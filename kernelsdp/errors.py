"""Typed exceptions of kernelsdp.

Every mistake a user can make (bad data, bad parameter, unknown name) raises a subclass
of :class:`KernelSDPError`; the CLI turns any of them into one readable line and exit
code 2.  Solver *trouble* (not installed, not licensed, inaccurate, iteration limit) is
never an exception: it is a status in the :class:`~kernelsdp.result.Result`.
"""

from __future__ import annotations


class KernelSDPError(Exception):
    """Base class of every error that the user can fix."""


class InvalidDataError(KernelSDPError, ValueError):
    """Problem data are malformed: shape, symmetry, NaN, index range, labels."""


class InvalidParameterError(KernelSDPError, ValueError):
    """A parameter is out of its range or of the wrong type.

    The message follows one shape: "The 'C' parameter of NPKL must be a float in the
    range (0, inf). Got -1 instead."
    """


class UnknownNameError(KernelSDPError, KeyError):
    """A formulation, solver, loss, data set or paper name that is not registered."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class UnsupportedProblemError(KernelSDPError):
    """A solver was asked for a problem it does not handle (e.g. a loss it lacks)."""


class UnboundedProblemError(KernelSDPError):
    """The problem as declared has no finite optimum (e.g. linear loss, no capacity)."""


class SolverUnavailableError(KernelSDPError):
    """The named solver is registered but cannot run here (not installed, no licence)."""


class TooLargeError(KernelSDPError, MemoryError):
    """A method that needs dense n×n storage was asked for an n that would not fit."""


class Interrupted(KernelSDPError):
    """A long run stopped by Ctrl-C; its message says what was kept and how to resume."""


class IllPosedWarning(UserWarning):
    """The problem is accepted but may not attain its optimum; solvers will struggle."""


#: names that moved out of this module (issue #28): still importable from here, with a
#: DeprecationWarning, until the next minor version
_MOVED = {
    "MEMORY_ENV": "limits",
    "GIB": "limits",
    "physical_memory": "limits",
    "memory_limit": "limits",
    "check_memory": "limits",
    "check_positive": "validation",
    "check_int": "validation",
    "check_choice": "validation",
}


def __getattr__(name: str):
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib
    import warnings

    home = f"kernelsdp.{_MOVED[name]}"
    warnings.warn(
        f"kernelsdp.errors.{name} moved to {home}.{name}", DeprecationWarning, stacklevel=2
    )
    return getattr(importlib.import_module(home), name)
