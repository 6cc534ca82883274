"""Active constraint selection (seed 000 §3.2.4).

For each point i with l_i > 0 constraints, margin_i = |Σ_{j: T_ij ≠ 0} T_ij K_ij| / l_i
measures how certain the current kernel is about i.  The k points of smallest margin are
the most uncertain; every pair touching one of them is kept.  The result is a new NPKL
problem on the reduced pair set: solving it is an approximation of the original problem,
and is reported as such (its own objective, its own m).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..linalg.positive_part import closed_form_kernel, positive_eigenpairs
from ..result import KernelFactor
from ..validation import check_int


def margins(f, kernel: KernelFactor) -> np.ndarray:
    """margin_i for every point (inf for points without constraints)."""
    P = f.pairs
    tk = P.t * kernel.entries(P.i, P.j)
    num = np.bincount(P.i, tk, f.n) + np.bincount(P.j, tk, f.n)
    count = np.bincount(P.i, minlength=f.n) + np.bincount(P.j, minlength=f.n)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 0, np.abs(num) / np.maximum(count, 1), np.inf)


def select_active(f, kernel: KernelFactor, k: int):
    """The problem restricted to the pairs touching the k most uncertain points."""
    k = check_int(k, "k", "active constraint selection")
    m = margins(f, kernel)
    constrained = np.flatnonzero(np.isfinite(m))
    chosen = constrained[np.argsort(m[constrained], kind="stable")[:k]]
    mask = np.zeros(f.n, dtype=bool)
    mask[chosen] = True
    return replace(f, pairs=f.pairs.subset(mask[f.pairs.i] | mask[f.pairs.j]))


def active_subproblem(f, k: int):
    """The reduction the seed uses: margins under the linear-loss SimpleNPKL kernel
    (Proposition 1, K = √B A₊/‖A₊‖_F with A = C·T − L), then :func:`select_active`."""
    part = positive_eigenpairs((f.C * f.pairs.matrix() - f.L).tocsr())
    return select_active(f, closed_form_kernel(part, f.B), k)
