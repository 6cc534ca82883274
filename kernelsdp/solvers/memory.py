"""Scale limits said up front: a solve that would not fit in memory is refused, with the GiB
it would need, before anything is allocated.

Every solver declares ``memory_bytes(f, options)``: the peak bytes one solve holds beyond
the problem's own data, computed from the sizes alone (n, m, nnz(L), the rank, the
options).  :class:`~kernelsdp.solvers.base.Solver` runs :func:`refuse_if_too_large` at the
start of every ``run`` — ``solve``, ``verify``, sweeps and benchmarks all go through it —
and raises :class:`~kernelsdp.errors.TooLargeError` when the need exceeds the limit: this
machine's physical memory, or ``$KERNELSDP_MEMORY_GIB`` when set (lower it on a shared
machine), and at most the solver's own ``memory_cap`` where it has one.

ADMM's formula is :func:`kernelsdp.solvers.admm.iteration_memory_bytes` (its module
docstring derives it).  It and the extragradient's are attached here rather than in
``admm.py`` and ``extragradient.py`` because those modules were being changed by other
engineers when the limits were added: move them into ``memory_bytes`` methods there.
"""

from __future__ import annotations

import os

from ..errors import InvalidParameterError, TooLargeError

ENV = "KERNELSDP_MEMORY_GIB"
GIB = 2**30


def physical_memory() -> int:
    """This machine's physical memory in bytes."""
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def memory_limit(cap: int | None = None) -> int:
    """The bytes a solve may use: ``$KERNELSDP_MEMORY_GIB`` if set, else physical memory;
    at most ``cap``."""
    text = os.environ.get(ENV)
    if text:
        try:
            limit = float(text) * GIB
        except ValueError:
            limit = -1.0
        if not limit > 0:
            raise InvalidParameterError(f"${ENV} must be a positive number of GiB. Got {text!r} "
                                        "instead.")
    else:
        limit = physical_memory()
    return int(min(limit, cap) if cap is not None else limit)


def peak_bytes(solver, f, options) -> int | None:
    """What ``solver`` declares for one solve of ``f`` (None: nothing declared)."""
    from .admm import ADMM
    from .extragradient import Extragradient
    if isinstance(solver, ADMM):
        return admm_bytes(f, options)
    if isinstance(solver, Extragradient):
        return extragradient_bytes(f, options)
    return solver.memory_bytes(f, options)


def refuse_if_too_large(solver, f, options) -> None:
    """Raise :class:`TooLargeError` (one line, with the GiB) when the solve would not fit."""
    need = peak_bytes(solver, f, options)
    if need is None:
        return
    limit = memory_limit(getattr(solver, "memory_cap", None))
    if need > limit:
        size = f"n = {f.n}" + (f", m = {f.pairs.m}" if hasattr(f, "pairs") else "")
        raise TooLargeError(
            f"{solver.name} would need about {need / GIB:.1f} GiB for this {f.name} problem "
            f"({size}); the limit is {limit / GIB:.1f} GiB (this machine's memory, "
            f"${ENV}, or the solver's own cap); {solver.memory_advice}")


def sparse_bytes(nnz: int) -> int:
    """A CSR matrix: 8-byte values and 4-byte column indices (the row pointers are O(n))."""
    return 12 * nnz


def positive_part_bytes(n: int, nnz: int, method: str) -> int:
    """All positive eigenpairs of a sparse n×n matrix with nnz entries
    (:func:`kernelsdp.linalg.positive_part.positive_eigenpairs`): the sparse matrix, then
    the dense decomposition (3 n×n arrays) where ``method`` goes dense, else at least the
    first ARPACK block (Lanczos basis and eigenvectors, 2·(2k+1) vectors of n; the block
    grows with the positive part, so this is a floor)."""
    from ..linalg.positive_part import DENSE_ALWAYS_N, PROBE_BLOCK, dense_bytes
    dense = method == "dense" or (method == "auto" and n <= DENSE_ALWAYS_N)
    work = dense_bytes(n) if dense else 8 * n * 2 * (2 * PROBE_BLOCK + 1)
    return sparse_bytes(nnz) + work


def admm_bytes(f, options) -> int:
    """Low-rank ADMM (seed 001): one iteration at the widest factor it may reach (``rank``,
    default Pataki's bound) plus the dense warm start below ``factor_steps.DENSE_N``."""
    from .admm import iteration_memory_bytes
    from .factor_steps import DENSE_N, default_rank
    r = default_rank(f.pairs.m) if options.rank is None else options.rank
    warm = 3 * 8 * f.n * f.n if f.n <= DENSE_N else 0
    return iteration_memory_bytes(f.n, r, f.pairs.m, f.L.nnz, options.anderson) + warm


def extragradient_bytes(f, options) -> int:
    """LMTL's extragradient (seed 004 eq. 2): the operator's O(nJD) temporaries (three
    arrays of φ's size), about ten n-vectors (α, its averages and steps) and a few J × J."""
    n, J, D = f.F.shape
    return 8 * (3 * n * J * D + 10 * n + 8 * J * J)
