"""Typed exceptions of kernelsdp.

Every mistake a user can make (bad data, bad parameter, unknown name) raises a subclass
of :class:`KernelSDPError`; the CLI turns any of them into one readable line and exit
code 2.  Solver *trouble* (not installed, not licensed, inaccurate, iteration limit) is
never an exception: it is a status in the :class:`~kernelsdp.result.Result`.
"""

from __future__ import annotations

import numpy as np


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


#: memory (GiB) a method may plan to allocate before it refuses; KERNELSDP_MEMORY_GIB overrides
DEFAULT_MEMORY_GIB = 8.0


def check_memory(nbytes: float, what: str, hint: str = "") -> None:
    """Refuse, before allocating, work that would need more than the memory budget."""
    import os
    raw = os.environ.get("KERNELSDP_MEMORY_GIB", "")
    try:
        budget = float(raw) if raw else DEFAULT_MEMORY_GIB
    except ValueError:
        budget = DEFAULT_MEMORY_GIB
    if nbytes > budget * 2**30:
        raise TooLargeError(f"{what} would need about {nbytes / 2**30:.1f} GiB (budget {budget:g} GiB; "
                            f"KERNELSDP_MEMORY_GIB raises it){'; ' + hint if hint else ''}.")


def check_positive(value, name: str, owner: str) -> float:
    """Return ``value`` as a float if it is finite and > 0, else raise the standard error."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"The {name!r} parameter of {owner} must be a float in the range (0, inf). "
            f"Got {value!r} instead.") from None
    if not (x > 0.0) or x == float("inf"):
        raise InvalidParameterError(
            f"The {name!r} parameter of {owner} must be a float in the range (0, inf). "
            f"Got {value!r} instead.")
    return x


def check_int(value, name: str, owner: str, low: int = 1) -> int:
    """Return ``value`` as an int if it is an integer (not a bool) >= ``low``, else raise the
    standard error."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise InvalidParameterError(
            f"The {name!r} parameter of {owner} must be an int >= {low}. Got {value!r} instead.")
    return int(value)


def check_choice(value, name: str, owner: str, choices) -> str:
    """Return ``value`` if it is one of ``choices``, else raise the standard error."""
    if value not in choices:
        raise UnknownNameError(
            f"The {name!r} parameter of {owner} must be one of "
            f"{', '.join(map(repr, choices))}. Got {value!r} instead.")
    return value
