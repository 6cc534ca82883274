"""The cones of CVXPY's canonical form, one block per cone, and what a certificate needs of
each: the smallest "eigenvalue" of a vector in the cone and in its dual cone, its Jordan
trace, and where a PSD block keeps its diagonal.

Rows follow the layout CVXPY's conic solvers receive (``ConicSolver.format_constraints``):

- ``zero``: s = 0 (equalities; the dual is free);
- ``nonneg``: s ≥ 0 entrywise; λ_min is the smallest entry;
- ``soc``: one cone per contiguous run (t, x), t ≥ ‖x‖; λ_min = (t − ‖x‖)/√2, the smaller
  Jordan eigenvalue, and tr = √2·t (so ⟨y, s⟩ ≥ λ_min(y)·tr(s) for s in the cone);
- ``psd``: a symmetric matrix, as the scaled triangle (``SvecPSD``: the solver's triangle
  kind, off-diagonals × √2, so that inner products are preserved) or the full column-major
  n² vector; λ_min of the unpacked matrix;
- ``exp`` and ``pow3d``: three rows per cone (x, y, z) in the solver's order; no spectral
  decomposition, so "λ_min" is minus an upper bound on the Euclidean distance to the cone
  (the distance to the nearest of a few points of the cone, closed form: no solver runs
  inside a certificate), 0 inside.  The dual cones are mapped onto the primal ones:
  (u, v, w) ∈ K*_exp ⇔ (−v, −u, e·w) ∈ K_exp, and (u, v, w) ∈ K*_α ⇔
  (u/α, v/(1 − α), w) ∈ K_α.

Every cone here is self-dual except exp and pow3d (and zero, whose dual is free).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from cvxpy.utilities.psd_utils import TriangleKind, tri_to_full


def exp_distance(x: float, y: float, z: float) -> float:
    """An upper bound on the distance of (x, y, z) to K_exp = cl{y·e^(x/y) ≤ z, y > 0}
    (0 inside): the distance to the nearest of the origin, the face {x ≤ 0, y = 0, z ≥ 0},
    and the boundary points reached by raising z or lowering x."""
    if (y > 0 and z > 0 and x <= y * math.log(z / y)) or (y == 0 and x <= 0 and z >= 0):
        return 0.0
    cands = [
        math.sqrt(x * x + y * y + z * z),
        math.sqrt(max(x, 0.0) ** 2 + y * y + min(z, 0.0) ** 2),
    ]
    if y > 0:
        e = x / y
        if e < 700:  # z raised to y·e^(x/y)
            cands.append(max(y * math.exp(e) - z, 0.0))
        if z > 0:  # x lowered to y·log(z/y)
            cands.append(max(x - y * math.log(z / y), 0.0))
    return min(cands)


def pow_distance(x: float, y: float, z: float, alpha: float) -> float:
    """An upper bound on the distance of (x, y, z) to K_α = {x^α y^(1−α) ≥ |z|, x, y ≥ 0}
    (0 inside): to the origin, or to (x₊, y₊, z clipped to ±x₊^α y₊^(1−α))."""
    xp, yp = max(x, 0.0), max(y, 0.0)
    cap = xp**alpha * yp ** (1.0 - alpha)
    if x >= 0 and y >= 0 and abs(z) <= cap:
        return 0.0
    clipped = math.copysign(min(abs(z), cap), z)
    return min(
        math.sqrt(x * x + y * y + z * z),
        math.sqrt((x - xp) ** 2 + (y - yp) ** 2 + (z - clipped) ** 2),
    )


@functools.lru_cache(maxsize=64)
def _entry_map(side: int, triangle, sqrt2: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    size = side * (side + 1) // 2
    marks = tri_to_full(np.arange(1.0, size + 1), side, triangle, False)
    iu, ju = np.triu_indices(side)
    k = np.rint(marks[iu, ju]).astype(int) - 1
    a, b = np.empty(size, dtype=int), np.empty(size, dtype=int)
    a[k], b[k] = iu, ju
    w = np.where(a == b, 1.0, np.sqrt(2.0) if sqrt2 else 1.0)
    return a, b, w


@functools.lru_cache(maxsize=64)
def _diagonal_rows(side: int, triangle, sqrt2: bool) -> np.ndarray:
    if triangle is None:
        rows = np.arange(side) * (side + 1)
    else:
        a, b, _ = _entry_map(side, triangle, sqrt2)
        rows = np.empty(side, dtype=int)
        diag = np.flatnonzero(a == b)
        rows[a[diag]] = diag
    rows.setflags(write=False)
    return rows


@dataclass(frozen=True)
class Block:
    """One cone of the canonical form: its kind, its rows, and how to read them."""

    kind: str
    start: int
    stop: int
    side: int = 0  # psd: matrix side
    triangle: TriangleKind | None = None  # psd: None for the full n² vector
    sqrt2: bool = False  # psd: off-diagonals scaled by √2
    order: tuple[int, ...] = (0, 1, 2)  # exp: where rows of (x, y, z) sit
    alpha: float = 0.5  # pow3d

    @property
    def rows(self) -> slice:
        return slice(self.start, self.stop)

    @property
    def size(self) -> int:
        return self.stop - self.start

    # ----- reading -------------------------------------------------------------------
    def matrix(self, v: np.ndarray, dual: bool = False) -> np.ndarray:
        """The symmetric matrix of a psd block's rows.  The multipliers pair with the rows by
        the plain dot product; with √2-scaled (or full) rows that is the matrix inner
        product, but with an *unscaled* triangle (MOSEK's, COPT's) each off-diagonal counts
        once, so the dual matrix has them halved: ⟨y, s⟩ = ⟨Y, S⟩_F."""
        if self.triangle is None:
            M = v.reshape((self.side, self.side), order="F")
            return (M + M.T) / 2
        a, b, w = self.entry_map()
        vals = v / w if self.sqrt2 else (np.where(a == b, v, v / 2) if dual else v)
        M = np.empty((self.side, self.side))
        M[a, b] = vals
        M[b, a] = vals
        return M

    def entry_map(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(a, b, w): row k of a triangle-format PSD block holds the matrix entry (a_k, b_k)
        times w_k (√2 off the diagonal when scaled, else 1) — cached per layout."""
        return _entry_map(self.side, self.triangle, self.sqrt2)

    def diagonal_rows(self) -> np.ndarray:
        """Row offsets (within the block) of a psd block's diagonal entries (cached per
        layout, read-only: truss7 asks for them 150 times per pass)."""
        return _diagonal_rows(self.side, self.triangle, self.sqrt2)

    def _triple(self, v: np.ndarray) -> tuple[float, float, float]:
        return tuple(float(v[self.order[i]]) for i in range(3))  # type: ignore[return-value]

    # ----- membership ----------------------------------------------------------------
    def min_eig(self, v: np.ndarray, dual: bool = False) -> float:
        """λ_min of v in this cone (of the dual cone when ``dual``); ≥ 0 iff v belongs.
        The zero cone: −max|v| for the primal side, +inf for the (free) dual side."""
        if self.kind == "zero":
            return np.inf if dual else -float(np.max(np.abs(v), initial=0.0))
        if self.kind == "nonneg":
            return float(np.min(v, initial=np.inf))
        if self.kind == "soc":
            return float(v[0] - np.linalg.norm(v[1:])) / np.sqrt(2.0)
        if self.kind == "psd":
            return float(np.linalg.eigvalsh(self.matrix(v, dual))[0])
        x, y, z = self._triple(v)
        if self.kind == "exp":
            if dual:
                x, y, z = -y, -x, np.e * z
            return -exp_distance(x, y, z)
        if dual:
            x, y = x / self.alpha, y / (1.0 - self.alpha)
        return -pow_distance(x, y, z, self.alpha)

    def project(self, v: np.ndarray, floor: float = 0.0) -> np.ndarray:
        """The nearest point of this (self-dual) cone shifted inside by ``floor`` (λ_min ≥
        floor): nonneg, soc, psd only."""
        if self.kind == "nonneg":
            return np.maximum(v, floor)
        if self.kind == "soc":
            lift = np.sqrt(2.0) * floor  # λ_min = (t − ‖x‖)/√2 ≥ floor ⇔ t − ‖x‖ ≥ √2·floor
            t, x = float(v[0]) - lift, v[1:]
            nx_ = float(np.linalg.norm(x))
            if nx_ <= t:
                out = v.copy()
            elif nx_ <= -t:
                out = np.concatenate([[lift], np.zeros_like(x)])
            else:
                a = (t + nx_) / 2
                out = np.concatenate([[a + lift], a * x / nx_])
            return out
        if self.kind == "psd":  # (a dual block: held out of the bound, its pairing kept)
            w, V = np.linalg.eigh(self.matrix(v, dual=True))
            P = (V * np.maximum(w, floor)) @ V.T
            return self.vector(P, dual=True)
        raise ValueError(f"no projection onto the {self.kind} cone here")

    def vector(self, M: np.ndarray, dual: bool = False) -> np.ndarray:
        """The rows of a psd block holding the symmetric matrix M (inverse of matrix())."""
        if self.triangle is None:
            return M.reshape(-1, order="F")
        a, b, w = self.entry_map()
        scale = w if self.sqrt2 else (np.where(a == b, 1.0, 2.0) if dual else 1.0)
        return M[a, b] * scale

    def entry_min(self, v: np.ndarray) -> np.ndarray:
        """λ_min per separately bounded piece: each entry of a nonneg block, else one value."""
        if self.kind == "nonneg":
            return v
        return np.array([self.min_eig(v, dual=True)])

    def trace(self, v: np.ndarray) -> np.ndarray:
        """Jordan trace per piece (matching :meth:`entry_min`): ⟨y, s⟩ ≥ λ_min(y)·tr(s)."""
        if self.kind == "nonneg":
            return np.maximum(v, 0.0)
        if self.kind == "soc":
            return np.array([np.sqrt(2.0) * max(float(v[0]), 0.0)])
        if self.kind == "psd":
            return np.array([max(float(np.sum(v[self.diagonal_rows()])), 0.0)])  # = tr
        return np.array([float(np.linalg.norm(v))])  # exp/pow3d: |⟨y, s⟩| ≤ dist·‖s‖


# ----- many blocks at once ---------------------------------------------------------------
#: PSD blocks up to this side that share a layout are read (and verified) as one stack
STACK_MAX_SIDE = 64
#: points read at once by :func:`rows_min_eigs`: up to this many PSD matrix entries
STACK_MAX_ENTRIES = 4_000_000


def psd_groups(form) -> list[tuple[Block, np.ndarray, np.ndarray]]:
    """(a block, the indices of the blocks sharing its layout, their rows as a (k, size)
    index array) for each layout of two or more small PSD blocks — kept on the form."""
    return form.derived("psd_groups", lambda: _psd_groups(form))


def _psd_groups(form) -> list[tuple[Block, np.ndarray, np.ndarray]]:
    by_layout: dict[tuple, list[int]] = {}
    for j, blk in enumerate(form.blocks):
        if blk.kind == "psd" and blk.side <= STACK_MAX_SIDE:
            by_layout.setdefault((blk.side, blk.triangle, blk.sqrt2), []).append(j)
    out = []
    for members in by_layout.values():
        if len(members) > 1:
            idx = np.asarray(members)
            rows = np.stack([np.arange(form.blocks[j].start, form.blocks[j].stop) for j in idx])
            out.append((form.blocks[members[0]], idx, rows))
    return out


def stacked_matrices(blk: Block, V: np.ndarray, dual: bool = False) -> np.ndarray:
    """:meth:`Block.matrix` of each row of V (k, size), for blocks of ``blk``'s layout."""
    k, n = V.shape[0], blk.side
    if blk.triangle is None:
        M = V.reshape((k, n, n), order="C").transpose(0, 2, 1)  # column-major per block
        return (M + M.transpose(0, 2, 1)) / 2
    a, b, w = blk.entry_map()
    vals = V / w if blk.sqrt2 else (np.where(a == b, V, V / 2) if dual else V)
    M = np.empty((k, n, n))
    M[:, a, b] = vals
    M[:, b, a] = vals
    return M


def stacked_vectors(blk: Block, M: np.ndarray, dual: bool = False) -> np.ndarray:
    """:meth:`Block.vector` of each matrix of the stack M (k, side, side): (k, size)."""
    if blk.triangle is None:
        return M.transpose(0, 2, 1).reshape(M.shape[0], -1)  # column-major per block
    a, b, w = blk.entry_map()
    scale = w if blk.sqrt2 else (np.where(a == b, 1.0, 2.0) if dual else 1.0)
    return M[:, a, b] * scale


def blocks_min_eigs(form, v: np.ndarray, dual: bool = False) -> np.ndarray:
    """:meth:`Block.min_eig` of every block (+inf for the zero cone's dual side, as
    :meth:`Block.min_eig` gives it) — the small PSD blocks of one layout by one stacked
    eigensolve (truss7's 150 blocks: one call instead of 150)."""
    return rows_min_eigs(form, v[None, :], dual)[0]


def rows_min_eigs(form, V: np.ndarray, dual: bool = False) -> np.ndarray:
    """:func:`blocks_min_eigs` of each row of V (k points, one per row): (k, blocks) — a
    whole search grid of points in one stacked eigensolve per layout (:mod:`.interior`'s
    central search took 16 calls of Python overhead on each of its curves), in chunks of
    at most STACK_MAX_ENTRIES matrix entries."""
    per_point = form.derived(
        "psd entries", lambda: sum(blk.side**2 for blk in form.blocks if blk.kind == "psd")
    )
    step = max(1, STACK_MAX_ENTRIES // max(per_point, 1))
    parts = [_rows_min_eigs(form, V[i : i + step], dual) for i in range(0, V.shape[0], step)]
    return np.concatenate(parts) if parts else np.empty((0, len(form.blocks)))


def _rows_min_eigs(form, V: np.ndarray, dual: bool) -> np.ndarray:
    k = V.shape[0]
    out = np.empty((k, len(form.blocks)))
    grouped = np.zeros(len(form.blocks), dtype=bool)
    for blk, idx, rows in psd_groups(form):
        M = stacked_matrices(blk, V[:, rows].reshape(k * rows.shape[0], -1), dual)
        out[:, idx] = np.linalg.eigvalsh(M)[:, 0].reshape(k, rows.shape[0])
        grouped[idx] = True
    for j in np.flatnonzero(~grouped):
        blk = form.blocks[j]
        W = V[:, blk.rows]
        if blk.kind == "psd" and blk.side == 1:  # [v]: its own eigenvalue
            out[:, j] = W[:, 0]
        elif blk.kind == "psd":
            out[:, j] = np.linalg.eigvalsh(stacked_matrices(blk, W, dual))[:, 0]
        elif blk.kind == "nonneg":
            out[:, j] = np.min(W, axis=1, initial=np.inf)
        else:
            out[:, j] = [blk.min_eig(w, dual) for w in W]
    return out


def cone_blocks(form) -> list[int]:
    """The indices of the blocks that are not the zero cone (kept on the form)."""
    return form.derived(
        "cone blocks", lambda: [j for j, blk in enumerate(form.blocks) if blk.kind != "zero"]
    )


def cone_rows(form) -> np.ndarray:
    """The indices of the rows of the blocks that are not the zero cone (kept on the form)."""

    def find() -> np.ndarray:
        rows = [np.arange(form.blocks[j].start, form.blocks[j].stop) for j in cone_blocks(form)]
        return np.concatenate(rows) if rows else np.zeros(0, dtype=np.intp)

    return form.derived("cone rows", find)


@dataclass(frozen=True)
class Pieces:
    """The separately bounded pieces of the non-zero-cone blocks (:meth:`Block.entry_min`),
    one after another: ``blocks`` their block indices, block ``blocks[p]``'s pieces at
    ``starts[p]:starts[p + 1]`` (one per entry of ℝ₊, one for any other cone), ``owner``
    the position p of each piece, ``where[j]`` the position of block j (−1: zero cone)."""

    blocks: np.ndarray
    starts: np.ndarray
    owner: np.ndarray
    where: np.ndarray

    def of(self, j: int) -> slice:
        p = self.where[j]
        return slice(int(self.starts[p]), int(self.starts[p + 1]))

    def block_max(self, v: np.ndarray) -> np.ndarray:
        """The largest of each block's pieces of v (−inf for a block without any)."""
        out = np.full(self.blocks.size, -np.inf)
        np.maximum.at(out, self.owner, v)
        return out


def cone_pieces(form) -> Pieces:
    """:class:`Pieces` of the form (kept on it)."""
    return form.derived("cone pieces", lambda: _cone_pieces(form))


def _cone_pieces(form) -> Pieces:
    blocks = np.asarray(cone_blocks(form), dtype=int)
    members = [form.blocks[j] for j in blocks]
    sizes = np.array([blk.size if blk.kind == "nonneg" else 1 for blk in members], dtype=int)
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    where = np.full(len(form.blocks), -1)
    where[blocks] = np.arange(blocks.size)
    return Pieces(blocks, starts, np.repeat(np.arange(blocks.size), sizes), where)


def blocks_min_eig(form, v: np.ndarray, dual: bool = False) -> float:
    """min over the non-zero-cone blocks of :meth:`Block.min_eig` (:func:`blocks_min_eigs`)."""
    return float(rows_min_eig(form, v[None, :], dual)[0])


def rows_min_eig(form, V: np.ndarray, dual: bool = False) -> np.ndarray:
    """:func:`blocks_min_eig` of each row of V: (k,)."""
    lam = rows_min_eigs(form, V, dual)[:, cone_blocks(form)]
    return np.min(lam, axis=1, initial=np.inf)


def pieces_trace(form, v: np.ndarray, blocks: list[int]) -> np.ndarray:
    """:meth:`Block.trace` of ``blocks``, one after another (the pieces of
    :meth:`Block.entry_min`) — the small PSD blocks of one layout read at once."""
    found: dict[int, np.ndarray] = {}
    for blk, idx, rows in psd_groups(form):
        tr = np.maximum(v[rows][:, blk.diagonal_rows()].sum(axis=1), 0.0)
        found.update(zip(idx.tolist(), tr[:, None]))
    parts = [
        found[j] if j in found else form.blocks[j].trace(v[form.blocks[j].rows]) for j in blocks
    ]
    return np.concatenate(parts) if parts else np.zeros(0)
