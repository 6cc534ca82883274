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
docstring derives it); like every solver's, it is the class's own ``memory_bytes``.
"""

from __future__ import annotations


from ..errors import GIB, MEMORY_ENV as ENV, TooLargeError, memory_limit


def peak_bytes(solver, f, options) -> int | None:
    """What ``solver`` declares for one solve of ``f`` (None: nothing declared)."""
    return solver.memory_bytes(f, options)


def refuse_if_too_large(solver, f, options) -> None:
    """Raise :class:`TooLargeError` (one line, with the GiB) when the solve would not fit,
    naming the registered solvers that would take the problem within memory."""
    need = peak_bytes(solver, f, options)
    if need is None:
        return
    limit = memory_limit(getattr(solver, "memory_cap", None))
    if need > limit:
        size = f"n = {f.n}" + (f", m = {f.pairs.m}" if hasattr(f, "pairs") else "")
        raise TooLargeError(
            f"{solver.name} would need about {need / GIB:.1f} GiB for this {f.name} problem "
            f"({size}); the limit is {limit / GIB:.1f} GiB (this machine's memory, "
            f"${ENV}, or the solver's own cap); {_alternatives(solver, f)}")


def within_memory(f, exclude=None) -> list[tuple[str, int]]:
    """(name, bytes) of the registered solvers that support ``f``, can run here and would
    solve it, with their default options, within their memory limit."""
    from . import solvers_for
    fits = []
    for s in solvers_for(type(f)):
        if s is exclude or s.supports(f) is not None or not s.availability()[0]:
            continue
        need = s.memory_bytes(f, s.options())
        if need is not None and need <= memory_limit(s.memory_cap):
            fits.append((s.name, need))
    return fits


def _size(nbytes: int) -> str:
    return f"{nbytes / GIB:.1f} GiB" if nbytes >= GIB / 10 else f"{nbytes / 2**20:.1f} MiB"


def _alternatives(solver, f) -> str:
    fits = within_memory(f, exclude=solver)
    if not fits:
        return "no registered solver takes it within memory: use a smaller n."
    return ("within memory: " + ", ".join(f"--solver {name} (about {_size(need)})"
                                          for name, need in fits) + ".")


def sparse_bytes(nnz: int) -> int:
    """A CSR matrix: 8-byte values and 4-byte column indices (the row pointers are O(n))."""
    return 12 * nnz


def positive_part_bytes(n: int, nnz: int, method: str) -> int:
    """All positive eigenpairs of a sparse n×n matrix with nnz entries
    (:func:`kernelsdp.linalg.positive_part.positive_eigenpairs`): the sparse matrix, then
    the dense decomposition (3 n×n arrays) wherever it fits ``DENSE_MEMORY_LIMIT`` — every
    method switches to it there once the positive part is large (measured: the saddle-point
    at n = 6,000 peaked at 628 MB, where the first ARPACK block alone reads 10 MB) — else
    the first ARPACK block (Lanczos basis and eigenvectors, 2·(2k+1) vectors of n; the
    block grows with the positive part, so beyond the dense limit this is a floor)."""
    from ..linalg.positive_part import DENSE_MEMORY_LIMIT, PROBE_BLOCK, dense_bytes
    dense = method == "dense" or dense_bytes(n) <= DENSE_MEMORY_LIMIT
    work = dense_bytes(n) if dense else 8 * n * 2 * (2 * PROBE_BLOCK + 1)
    return sparse_bytes(nnz) + work
