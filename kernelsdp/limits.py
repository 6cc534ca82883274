"""Memory limits said up front: work that would not fit is refused, with the GiB it would
need, before anything is allocated.

The limit is this machine's physical memory, or ``$KERNELSDP_MEMORY_GIB`` when set (lower
it on a shared machine), at most the process's address-space limit (``ulimit -v``,
``RLIMIT_AS``) where one is set, and at most a method's own cap where it has one.  Readers price
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
    limit = min(limit, address_space_limit())
    return int(min(limit, cap) if cap is not None else limit)


def address_space_limit() -> float:
    """The process's address-space limit (``RLIMIT_AS``'s soft limit) in bytes, or ∞ where
    none is set: a method planned against the machine's memory in a capped process dies of
    a MemoryError mid-solve instead of being refused (a 10⁶ NPKL run under a 14.1 GiB cap,
    its formula 17.7 GiB)."""
    try:
        import resource
    except ImportError:  # not on every platform
        return float("inf")
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return float("inf") if soft == resource.RLIM_INFINITY or soft <= 0 else float(soft)


def check_memory(nbytes: float, what: str, hint: str = "") -> None:
    """Refuse, before allocating, work that would need more than :func:`memory_limit`."""
    limit = memory_limit()
    if nbytes > limit:
        raise TooLargeError(
            f"{what} would need about {nbytes / GIB:.1f} GiB; the limit is "
            f"{limit / GIB:.1f} GiB (this machine's memory, ${MEMORY_ENV} or the process's "
            "address-space limit)"
            f"{'; ' + hint if hint else ''}."
        )


def format_size(nbytes: int) -> str:
    """``nbytes`` in GiB, or in MiB below a tenth of a GiB."""
    return f"{nbytes / GIB:.1f} GiB" if nbytes >= GIB / 10 else f"{nbytes / 2**20:.1f} MiB"
