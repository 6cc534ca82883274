"""Hubs' pockets taken in bulk after each Frank–Wolfe step (issue #30; prototyped in the
eleventh pass, ``benchmarks/npkl_local_proto.py``'s ``local-ls``, built into the solver as
the option ``pockets`` in the thirty-first, off by default; docs/npkl.md §7).

**Why.**  In the first half of a run the check's vertex is, check after check, a hub's
pocket: a direction of negative curvature of G = M(β̃) on a few nodes around a node with
many pairs, whose pairs the multipliers' path holds at the box's end (tenth and sixteenth
passes).  The check's block brings in one to a few of them a check, and at n = 100,000 the
phase that finds them is what grows with n (twenty-seventh pass).  They can be found in
bulk, each by a small eigenproblem of its own.

**Local eigenproblems.**  For a node h and its ``HOPS``-hop neighbourhood N in M's pattern
(L's and the pairs' entries), the lowest eigenpair (λ_N, v_N) of the principal block
M[N, N], padded with zeros, is a unit vector whose Rayleigh quotient under M is exactly λ_N,
so λ_N ≥ λ_min(M) (Cauchy interlacing).  Its entries below ``SUPPORT_RTOL`` of the largest
are dropped, so the quotient of the vector taken is λ_N up to a term of their size.  Where
λ_N lies below V's own level (the check's ``level``) and below 0 the vector is a direction
of descent for the subproblem.  Centres are the nodes whose star quotient
d_h − ‖M[h, ≠h]‖₂ is within ``MARGIN`` of the level, at most ``CANDIDATES`` of them, the
lowest first; a node already in a found support is no centre.

**Packing.**  Two such vectors whose supports are disjoint and joined by no entry of M's
pattern can share one column u = v₁ + v₂: uuᵀ and v₁v₁ᵀ + v₂v₂ᵀ then differ only off the
pattern, where neither tr(LK), tr K nor a pair's entry reads K.  The vectors are packed
greedily into at most ``COLUMNS`` columns, so that the factor grows by at most that many
whatever their number.

**The step.**  Each column u (unit) is a Frank–Wolfe vertex B·uuᵀ in turn, K ← (1 − t)K +
t·B·uuᵀ with the exact line search on the subproblem's value (which needs the pairs'
entries and ⟨V, LV⟩: one product with L).  The point stays feasible (a convex combination
inside tr K ≤ B), so nothing changes for the certificate; the check after the next inner
round sees the new point.

**Measured** (docs/measurements.md, "Thirty-first pass"; products to the certified 1e-3,
seeds 0-4): 3 % fewer at n = 3,000, 4 % fewer at 20,000, 2 % more at 100,000 (the spread
over seeds narrower: 2,927-3,187 against 2,632-3,324), so the products across n are not
closer than without it (worst seed 2.12× against 2.11×), and a 100,000 solve takes longer
(more checks; the local eigenproblems themselves 30 s of 390 s).  At n = 10⁶ the hour
with it certified 7.16e-3 against the solver's 6.24e-3 (its last pocket at check 26
instead of 34, but no faster a tail).  Hence off by default.

The step's own arrays (star quotients, the packed columns, V widened and its L·V, the
pairs' values) peak at a fifth of the check's phase of
:func:`.low_rank_alm.memory_bytes_for` (n = 6,000, s = 24), which has no term for them.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from .alm_inner import _dot, _project, exact_step

#: the local eigenproblems' neighbourhoods, in steps of M's pattern (the eleventh pass: the
#: 2-hop blocks, 52-98 nodes at n = 100,000, found each localised vertex's λ within 0.03
#: and carried 93 % of its mass, medians)
HOPS = 2
#: a node is a centre when its star quotient is within this much of V's level (M's scaled
#: units: the level is about -0.44 at the instances of ``npkl_scale.py``)
MARGIN = 0.5
#: centres a step examines at most, the lowest star quotients first (each a dense
#: eigenproblem of its neighbourhood's size)
CANDIDATES = 3000
#: columns a step adds at most
COLUMNS = 4
#: a local eigenvector's entries below this share of its largest are dropped
SUPPORT_RTOL = 1e-3
#: the line search's tolerance in t (the Frank–Wolfe step's is 1e-8): a pocket's step moves
#: a few nodes' share of tr K, so it is small; the prototype's value, which its measurements
#: carry
XATOL = 1e-10


def star_quotients(M: sp.csr_matrix) -> np.ndarray:
    """d_h − ‖M[h, ≠h]‖₂ for every node h (a Gershgorin-type estimate in the 2-norm): a
    cheap guess at how low a pocket around h goes, to rank the centres."""
    d = M.diagonal()
    filled = np.diff(M.indptr) > 0  # reduceat misreads empty rows, so they are left out
    sq = np.zeros(M.shape[0])
    if M.nnz:
        sq[filled] = np.add.reduceat(M.data * M.data, M.indptr[:-1][filled])
    return d - np.sqrt(np.maximum(sq - d * d, 0.0))


def neighbourhood(M: sp.csr_matrix, nodes: np.ndarray, hops: int) -> np.ndarray:
    """The nodes within ``hops`` steps of ``nodes`` in M's pattern, sorted (``nodes`` too)."""
    ip, ix = M.indptr, M.indices
    for _ in range(hops):
        nodes = np.unique(np.concatenate([nodes, *(ix[ip[k] : ip[k + 1]] for k in nodes)]))
    return nodes


def lowest_pair(
    M: sp.csr_matrix, N: np.ndarray, position: np.ndarray | None = None
) -> tuple[float, np.ndarray]:
    """The lowest eigenpair of the principal block M[N, N] (dense LAPACK, one pair).
    ``position``: an n-vector of −1 to reuse, so that the block costs O(its rows' entries),
    not O(n) as SciPy's column indexing does (returned to −1)."""
    if position is None:
        position = np.full(M.shape[0], -1, dtype=np.int64)
    position[N] = np.arange(len(N))
    rows = M[N]
    cols = position[rows.indices]
    inside = cols >= 0
    block = np.zeros((len(N), len(N)))
    row_of = np.repeat(np.arange(len(N)), np.diff(rows.indptr))
    block[row_of[inside], cols[inside]] = rows.data[inside]
    position[N] = -1
    w, Q = sla.eigh(block, subset_by_index=[0, 0])
    return float(w[0]), Q[:, 0]


def local_pockets(M: sp.csr_matrix, below: float, margin: float = MARGIN):
    """Yield (support, v, λ_N) for each local direction with λ_N < ``below``: the centres
    whose star quotient is below ``below + margin``, the lowest first (at most
    ``CANDIDATES``), each one's ``HOPS``-hop block's lowest eigenpair, its entries above
    ``SUPPORT_RTOL`` of the largest kept (v on the support, not normalised).  A node in a
    support already yielded is no centre.  Shared by :func:`pocket_columns` and
    :mod:`.alm_blocks`."""
    q = star_quotients(M)
    centres = np.flatnonzero(q < below + margin)
    centres = centres[np.argsort(q[centres], kind="stable")][:CANDIDATES]
    used = np.zeros(M.shape[0], bool)
    position = np.full(M.shape[0], -1, dtype=np.int64)
    for h in centres:
        if used[h]:
            continue
        N = neighbourhood(M, np.array([h]), HOPS)
        lam, v = lowest_pair(M, N, position)
        if not lam < below:
            continue
        keep = np.abs(v) > SUPPORT_RTOL * np.abs(v).max()
        used[N[keep]] = True
        yield N[keep], v[keep], lam


class Packing:
    """At most ``COLUMNS`` columns of an n × COLUMNS array, each holding pieces whose
    supports stay one step of M's pattern apart (module docstring, "Packing")."""

    def __init__(self, M: sp.csr_matrix):
        self.M = M
        self.blocked = np.zeros((M.shape[0], COLUMNS), bool)
        self.S = np.zeros((M.shape[0], COLUMNS))

    def free(self, support: np.ndarray) -> np.ndarray:
        """The columns no piece within one step of ``support`` holds."""
        return np.flatnonzero(~self.blocked[support].any(axis=0))

    def place(self, support: np.ndarray, cols: np.ndarray, values: np.ndarray) -> None:
        """``values`` (|support| × len(cols)) into those columns on the support's rows."""
        self.blocked[np.ix_(neighbourhood(self.M, support, 1), cols)] = True
        self.S[np.ix_(support, cols)] = values


def pocket_columns(
    M: sp.csr_matrix, below: float, margin: float = MARGIN
) -> tuple[np.ndarray, np.ndarray]:
    """(S, pieces): the local directions of :func:`local_pockets`, packed into at most
    ``COLUMNS`` unit columns S (n × k, k ≤ COLUMNS), and how many directions each column
    holds (module docstring)."""
    packing, pieces = Packing(M), np.zeros(COLUMNS, dtype=np.int64)
    for support, v, _ in local_pockets(M, below, margin):
        free = packing.free(support)
        if len(free):
            packing.place(support, free[:1], (v / np.linalg.norm(v))[:, None])
            pieces[free[0]] += 1
    filled = pieces > 0
    S = packing.S[:, filled]
    return S / np.linalg.norm(S, axis=0), pieces[filled]


def line_searched(prob, V: np.ndarray, S: np.ndarray, beta, rho) -> tuple[np.ndarray, list]:
    """V after a Frank–Wolfe step with exact line search towards B·uuᵀ for each column u of
    S in turn; returns (V in its own precision, the steps t)."""
    a, s = prob.a, prob.scale
    w = prob.B * prob.pair_entries(V)
    lap = _dot(V, prob.times_L(V, np.empty_like(V)))
    L = prob.L
    steps = []
    for u in S.T:
        wu, lu = prob.B * prob.outer_entries(u), float(u @ (L @ u))

        def phi(t: float, w=w, lap=lap, wu=wu, lu=lu) -> float:
            env, _ = prob.envelope((1 - t) * w + t * wu, beta, rho)
            return a * ((1 - t) * lap + t * lu) + env / s

        t = exact_step(phi, XATOL)
        steps.append(t)
        w, lap = (1 - t) * w + t * wu, (1 - t) * lap + t * lu
    kept = [k for k, t in enumerate(steps) if t > 0]
    if not kept:
        return V, steps
    # column k is scaled by √t_k and by √(1 − t_j) for every later step j; V by all of them
    later = np.append(np.cumprod([math.sqrt(1 - t) for t in steps][::-1])[::-1], 1.0)
    cols = [S[:, k : k + 1] * (math.sqrt(steps[k]) * later[k + 1]) for k in kept]
    return np.hstack([V * V.dtype.type(later[0]), *(c.astype(V.dtype) for c in cols)]), steps


def take_pockets(prob, V: np.ndarray, level: float, beta, rho) -> tuple[np.ndarray, int]:
    """(V, taken): the factor after the pockets below ``min(level, 0)`` were line-searched
    in (:func:`pocket_columns`, :func:`line_searched`), and how many of them came in with
    a step t > 0.  On M(β̃) as the last check left it (``prob.M``: the check writes it, and
    nothing between the check and the Frank–Wolfe step does)."""
    S, pieces = pocket_columns(prob.M, min(level, 0.0))
    if S.shape[1] == 0:
        return V, 0
    V, steps = line_searched(prob, V, S, beta, rho)
    taken = int(sum(p for p, t in zip(pieces, steps) if t > 0))
    return _project(V), taken  # a convex combination: only rounding can leave the ball
