"""Memory limits said up front: work that would not fit is refused, with the GiB it would
need, before anything is allocated.

The limit is this machine's physical memory, or ``$KERNELSDP_MEMORY_GIB`` when set (lower
it on a shared machine), and at most a method's own cap where it has one.  Readers price
what a file declares with :func:`check_memory` before reading it; every solver declares
``memory_bytes(f, options)``, the peak bytes of one solve from the sizes alone, and
:class:`~kernelsdp.solvers.base.Solver` refuses a size above :func:`memory_limit` at the
start of every ``run`` (:func:`kernelsdp.solvers.base.refuse_if_too_large`), naming the
registered solvers that would take the problem within memory.  ADMM's formula is
:func:`kernelsdp.solvers.admm.iteration_memory_bytes` (its module docstring derives it).
"""

from __future__ import annotations

import os

from .errors import InvalidParameterError, TooLargeError

#: the environment variable that sets the memory (GiB) a solve or a data set may plan to use
MEMORY_ENV = "KERNELSDP_MEMORY_GIB"
GIB = 2**30


def physical_memory() -> int:
    """This machine's physical memory in bytes."""
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def memory_limit(cap: int | None = None) -> int:
    """The bytes a method may plan to use: ``$KERNELSDP_MEMORY_GIB`` if set, else physical
    memory; at most ``cap``."""
    text = os.environ.get(MEMORY_ENV)
    if text:
        try:
            limit = float(text) * GIB
        except ValueError:
            limit = -1.0
        if not limit > 0:
            raise InvalidParameterError(
                f"${MEMORY_ENV} must be a positive number of GiB. Got {text!r} instead."
            )
    else:
        limit = physical_memory()
    return int(min(limit, cap) if cap is not None else limit)


def check_memory(nbytes: float, what: str, hint: str = "") -> None:
    """Refuse, before allocating, work that would need more than :func:`memory_limit`."""
    limit = memory_limit()
    if nbytes > limit:
        raise TooLargeError(
            f"{what} would need about {nbytes / GIB:.1f} GiB; the limit is "
            f"{limit / GIB:.1f} GiB (this machine's memory, or ${MEMORY_ENV})"
            f"{'; ' + hint if hint else ''}."
        )


def format_size(nbytes: int) -> str:
    """``nbytes`` in GiB, or in MiB below a tenth of a GiB."""
    return f"{nbytes / GIB:.1f} GiB" if nbytes >= GIB / 10 else f"{nbytes / 2**20:.1f} MiB"
