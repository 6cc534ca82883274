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


#: the environment variable that sets the memory (GiB) a solve or a data set may plan to use
MEMORY_ENV = "KERNELSDP_MEMORY_GIB"
GIB = 2**30


def physical_memory() -> int:
    """This machine's physical memory in bytes."""
    import os
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def memory_limit(cap: int | None = None) -> int:
    """The bytes a method may plan to use: ``$KERNELSDP_MEMORY_GIB`` if set, else physical
    memory; at most ``cap``."""
    import os
    text = os.environ.get(MEMORY_ENV)
    if text:
        try:
            limit = float(text) * GIB
        except ValueError:
            limit = -1.0
        if not limit > 0:
            raise InvalidParameterError(f"${MEMORY_ENV} must be a positive number of GiB. Got "
                                        f"{text!r} instead.")
    else:
        limit = physical_memory()
    return int(min(limit, cap) if cap is not None else limit)


def check_memory(nbytes: float, what: str, hint: str = "") -> None:
    """Refuse, before allocating, work that would need more than :func:`memory_limit`."""
    limit = memory_limit()
    if nbytes > limit:
        raise TooLargeError(f"{what} would need about {nbytes / GIB:.1f} GiB; the limit is "
                            f"{limit / GIB:.1f} GiB (this machine's memory, or ${MEMORY_ENV})"
                            f"{'; ' + hint if hint else ''}.")


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
