"""Where the blocks of an SDPA problem sit in a canonical conic form, both ways — so that an
SDPA-format solver's (x, Y) becomes the canonical (x, y) that :func:`.conic_certificate`
checks.

SDPA's primal  min cᵀx  s.t.  F(x) = Σ F_i x_i − F_0 ⪰ 0  (:mod:`kernelsdp.data.sdpa`) and
the canonical  min cᵀx + d  s.t.  s = Ax + b ∈ K  (:mod:`.canonical`) share x; per SDPA block,
the canonical rows hold a linear image of the block, s_rows = P(F(x)), and the multipliers
are the adjoint's image y_rows = P*⁻¹(Y), chosen so that the pairing is kept,
⟨y_rows, s_rows⟩ = ⟨Y, F(x)⟩.  Then stationarity c − Aᵀy = 0 is SDPA's dual equality
F_i•Y = c_i, and the dual value d − bᵀy is d + F_0•Y: the SDPA dual objective.  The parts:

- ``psd``: a matrix block as CVXPY's scaled triangle (the off-diagonals × √2, so that inner
  products are kept: y = the same packing of Y, :meth:`.cones.Block.vector`);
- ``lp``: a diagonal block as a nonnegative block, entry by entry (y = diag Y);
- ``zero``: equality rows written as the diagonal block [s; −s] ≥ 0 (y = Y₊ − Y₋; such a
  problem has no strictly feasible point in SDPA's form, and the solvers' accuracy shows it);
- ``soc``: a second-order cone t ≥ ‖u‖ as a tree of arrow blocks [[τ, fᵀ], [f, τI]] ⪰ 0
  (τ ≥ ‖f‖; Ben-Tal and Nemirovski, *Lectures on Modern Convex Optimization*, §4.2): the
  root's τ is t, each block has about √len(u) children, leaves are the u_i, and each inner
  node is a new variable s ≥ ‖its children‖ appended to x.  The adjoint of a block maps its
  dual Y to (tr Y, 2·Y[1:, 0]); t's multiplier is the root's tr Y and u_i's the entry of its
  leaf — a point of the cone wherever the new variables' stationarity holds (their cost is
  0), which the certificate measures.  One arrow block for the whole cone would be a dense
  (len(u) + 1)-sided matrix (CSDP took 23–45 s on NPKL's Frobenius capacity at n = 24 that
  way); a binary tree of 2 × 2 blocks adds len(u) − 2 variables to the Schur complement
  (2.9 s); about √len(u) blocks of side √len(u) add only √len(u).

:func:`layout_of_model` matches an SDPA file's blocks with the canonical form of its CVXPY
model (``read_sdpa(path).to_cvxpy()``), checking every block's data, so a change in CVXPY's
layout fails loudly instead of mapping wrong.  :func:`sdpa_of_form` writes any canonical form
with these cones as an SDPA problem (for CSDP and SDPA to solve), and refuses the others.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from cvxpy.utilities.psd_utils import tri_to_full

from ..data.sdpa import SDPAProblem
from ..errors import UnsupportedProblemError
from .canonical import CanonicalForm
from .cones import Block

#: the relative difference up to which an SDPA block's data and the canonical rows match
#: (CVXPY scales the off-diagonals by √2 in floating point; a wrong match differs by O(1))
MATCH_RTOL = 1e-12


@dataclass(frozen=True)
class Part:
    """One cone of the canonical form and the SDPA blocks that hold it."""

    kind: str  # "psd" | "lp" | "zero" | "soc"
    block: Block  # the canonical block (for "zero", the run of equality rows)
    sdpa: tuple[int, ...]  # the SDPA blocks (one, or a soc's tree of arrow blocks)
    #: soc: per canonical row (t, u_1, ...), (SDPA block, 0 for τ or its child's position)
    roles: tuple[tuple[int, int], ...] = ()


@dataclass
class SDPALayout:
    """An SDPA problem and the canonical form it maps onto, cone by cone."""

    form: CanonicalForm
    sdpa: SDPAProblem
    parts: list[Part]

    def x(self, xs) -> np.ndarray:
        """The canonical x of SDPA's x (whose tail holds a soc tree's inner nodes)."""
        return np.asarray(xs, float)[: self.form.c.size]

    def y(self, Y: list) -> np.ndarray:
        """The canonical multipliers of SDPA's dual blocks (see the module docstring)."""
        return self._rows(Y, dual=True)

    def s(self, slack: list) -> np.ndarray:
        """The canonical slack of SDPA's primal blocks X = F(x) (the rows' own packing)."""
        return self._rows(slack, dual=False)

    def _rows(self, blocks: list, dual: bool) -> np.ndarray:
        out = np.zeros(self.form.A.shape[0])
        for part in self.parts:
            blk = part.block
            if part.kind == "soc":
                mats = {k: _dense(blocks[k]) for k in part.sdpa}
                out[blk.rows] = [_arrow_entry(mats[k], pos, dual) for k, pos in part.roles]
                continue
            v = blocks[part.sdpa[0]]
            if part.kind == "psd":
                out[blk.rows] = blk.vector(_dense(v), dual=dual)
            elif part.kind == "lp":
                out[blk.rows] = np.asarray(v, float)
            else:  # zero: [s; −s] ≥ 0, multipliers y₊ − y₋
                d = np.asarray(v, float)
                out[blk.rows] = d[: blk.size] - d[blk.size :] if dual else d[: blk.size]
        return out


def _dense(M) -> np.ndarray:
    return M.toarray() if sp.issparse(M) else np.asarray(M, float)


def _arrow_entry(M: np.ndarray, pos: int, dual: bool) -> float:
    """Of an arrow block [[τ, fᵀ], [f, τI]]: τ (pos 0) or f_pos; of a dual block Y, the
    adjoint's image: tr Y (pos 0) or 2·Y[pos, 0]."""
    if pos == 0:
        return float(np.trace(M)) if dual else float(M[0, 0])
    return 2.0 * float(M[pos, 0]) if dual else float(M[pos, 0])


# ----- packing operators -----------------------------------------------------------------
def _pack(blk: Block) -> sp.csr_matrix:
    """P with rows = P @ vec(M) for a symmetric n×n M (vec column-major): the canonical rows
    of a psd block, off-diagonals × √2 where the block scales them."""
    n = blk.side
    if blk.triangle is None:
        return sp.identity(n * n, format="csr")
    marks = np.rint(tri_to_full(np.arange(1.0, blk.size + 1), n, blk.triangle, False))
    i, j = np.nonzero(np.triu(marks))  # one (i, j), i ≤ j, per row
    r = marks[i, j].astype(int) - 1
    scale = np.where(i == j, 1.0, np.sqrt(2.0) if blk.sqrt2 else 1.0)
    return sp.csr_matrix((scale, (r, i + n * j)), shape=(blk.size, n * n))


def _unpack(blk: Block) -> sp.csr_matrix:
    """U with vec(M) = U @ rows, the inverse of :func:`_pack` on symmetric matrices (a full
    n² block is symmetrised: its cone is that of (M + Mᵀ)/2)."""
    n = blk.side
    if blk.triangle is None:
        k = np.arange(n * n)
        swap = (k % n) * n + k // n
        return sp.csr_matrix((np.full(2 * n * n, 0.5), (np.r_[k, k], np.r_[k, swap])))
    P = _pack(blk).tocoo()
    i, j = P.col % n, P.col // n
    inv = 1.0 / P.data
    return sp.csr_matrix(
        (np.r_[inv, inv[i != j]], (np.r_[P.col, (j + n * i)[i != j]], np.r_[P.row, P.row[i != j]])),
        shape=(n * n, blk.size),
    )


# ----- an SDPA file's model ---------------------------------------------------------------
def _expected(size: int, F: sp.csc_matrix, blk: Block) -> tuple[sp.csr_matrix, np.ndarray]:
    """(A_rows, b_rows) that the canonical block holds for SDPA block F (s = A x + b)."""
    G = _pack(blk) @ F if size > 0 else sp.csr_matrix(F)
    G = sp.csr_matrix(G)
    return G[:, 1:], -G[:, 0].toarray().ravel()


def _largest(M: sp.spmatrix) -> float:
    return float(abs(M).max()) if M.nnz else 0.0


def _matches(form: CanonicalForm, size: int, F, blk: Block) -> bool:
    A, b = _expected(size, F, blk)
    rows = form.A[blk.start : blk.stop]
    scale = 1.0 + max(_largest(A), float(np.max(np.abs(b), initial=0.0)))
    dA = _largest(rows - A)
    db = float(np.max(np.abs(form.b[blk.rows] - b), initial=0.0))
    return max(dA, db) <= MATCH_RTOL * scale


def layout_of_model(sdpa: SDPAProblem, form: CanonicalForm) -> SDPALayout:
    """The layout of ``sdpa`` in ``form``, the canonical form of ``sdpa.to_cvxpy()``: each
    diagonal block is a nonneg block and each matrix block a psd block, matched in order
    and checked entry by entry."""
    if form.c.size != sdpa.m or form.P is not None or form.d != 0.0:
        raise NotImplementedError(
            f"the canonical form ({form.c.size} columns) is not that of "
            f"{sdpa.name}'s model (m = {sdpa.m})"
        )
    free = list(form.blocks)
    parts = []
    for b, (size, F) in enumerate(zip(sdpa.blocks, sdpa.F), start=1):
        kind, side = ("psd", size) if size > 0 else ("nonneg", -size)
        for pos, blk in enumerate(free):
            fits = blk.kind == kind and (blk.side == side if kind == "psd" else blk.size == side)
            if fits and _matches(form, size, F, blk):
                parts.append(Part("psd" if size > 0 else "lp", blk, (b - 1,)))
                del free[pos]
                break
        else:
            raise NotImplementedError(
                f"block {b} of {sdpa.name} (size {size}) has no match in "
                "its canonical form: a CVXPY layout kernelsdp does not know"
            )
    if free or not np.array_equal(form.c, sdpa.c):
        raise NotImplementedError(
            f"{sdpa.name}'s canonical form has rows or costs its SDPA "
            "file does not: a CVXPY layout kernelsdp does not know"
        )
    return SDPALayout(form, sdpa, parts)


# ----- any canonical form, as an SDPA problem ----------------------------------------------
class _Tree:
    """Second-order cones as trees of arrow blocks, over the columns [−1 | x | inner nodes]:
    each affine form is (columns, values); the inner nodes' columns count from ``next`` and
    the blocks are kept as triplets until the width is known (:meth:`matrices`)."""

    def __init__(self, next_col: int):
        self.next = next_col
        self.blocks: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] = []

    def cone(self, tau, children: list) -> int:
        """Add the arrow block [[τ, fᵀ], [f, τI]] ⪰ 0, i.e. τ ≥ ‖f‖; its number."""
        n = len(children) + 1
        rows, cols, vals = [], [], []

        def put(at, form):
            rows.append(np.full(form[0].size, at))
            cols.append(form[0])
            vals.append(form[1])

        for i in range(n):
            put(i * (n + 1), tau)  # the diagonal
        for i, f in enumerate(children, start=1):
            put(i, f)  # (i, 0)
            put(i * n, f)  # (0, i)
        self.blocks.append((n, np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)))
        return len(self.blocks) - 1

    def node(self, leaves: list, roles: dict, branch: int) -> tuple:
        """An affine form r with r ≥ ‖leaves‖: a leaf itself, or a new variable s with
        s ≥ ‖(its children)‖; ``roles`` gets each leaf's (block, position)."""
        if len(leaves) == 1:
            return leaves[0][1], leaves[0][0]
        s = (np.array([self.next]), np.array([1.0]))
        self.next += 1
        self.attach(s, leaves, roles, branch)
        return s, None

    def attach(self, tau, leaves: list, roles: dict, branch: int) -> int:
        """τ ≥ ‖leaves‖ as one arrow block over at most ``branch`` children."""
        groups = [leaves[k::branch] for k in range(min(branch, len(leaves)))]
        kids = [self.node(g, roles, branch) for g in groups]
        k = self.cone(tau, [f for f, _ in kids])
        for pos, (_, leaf) in enumerate(kids, start=1):
            if leaf is not None:
                roles[leaf] = (k, pos)
        return k

    def matrices(self, width: int) -> list[sp.csc_matrix]:
        return [sp.csc_matrix((v, (r, c)), shape=(n * n, width)) for n, r, c, v in self.blocks]


def _soc_tree(G: sp.csr_matrix, tree: _Tree, first_block: int) -> tuple[tuple, tuple]:
    """t ≥ ‖u‖ (G's rows: t, u_1, …) as a tree of arrow blocks of about √len(u) children
    each; (its SDPA blocks, the (block, position) of each row)."""
    forms = [
        (G.indices[G.indptr[r] : G.indptr[r + 1]], G.data[G.indptr[r] : G.indptr[r + 1]])
        for r in range(G.shape[0])
    ]
    leaves = list(enumerate(forms[1:], start=1))
    branch = max(2, math.ceil(math.sqrt(len(leaves))))
    roles: dict[int, tuple[int, int]] = {}
    start = len(tree.blocks)
    roles[0] = (tree.attach(forms[0], leaves, roles, branch), 0)
    blocks = tuple(range(first_block, first_block + len(tree.blocks) - start))
    return blocks, tuple(
        (first_block + roles[i][0] - start, roles[i][1]) for i in range(G.shape[0])
    )


def sdpa_of_form(form: CanonicalForm, name: str = "kernelsdp") -> SDPALayout:
    """``form`` written as SDPA's primal: x the canonical x (then the soc trees' inner
    nodes), one SDPA block per cone, equality rows as one ± diagonal block, a second-order
    cone as a tree of arrow blocks; refused with :class:`UnsupportedProblemError` when the
    form has a quadratic objective or an exponential or power cone."""
    _check_writable(form)
    n = form.c.size
    Ab = sp.hstack([sp.csr_matrix(-form.b.reshape(-1, 1)), form.A], format="csr")
    sizes, Fs, parts = [], [], []  # Fs: (SDPA block, CSR rows over [−1 | x]) or a tree's
    zero = [blk for blk in form.blocks if blk.kind == "zero"]
    if zero:  # all equality rows in one block: [s; −s] ≥ 0
        rows = np.concatenate([np.arange(b.start, b.stop) for b in zero])
        lo, hi = int(rows.min()), int(rows.max()) + 1
        if hi - lo != rows.size:  # pragma: no cover - CVXPY puts the zero cone first
            raise NotImplementedError("equality rows that are not contiguous")
        sizes.append(-2 * rows.size)
        Fs.append(sp.vstack([Ab[rows], -Ab[rows]], format="csr"))
        parts.append(Part("zero", Block("zero", lo, hi), (0,)))
    tree = _Tree(1 + n)
    for blk in form.blocks:
        G = Ab[blk.start : blk.stop]
        if blk.kind in ("nonneg", "psd"):
            parts.append(Part("lp" if blk.kind == "nonneg" else "psd", blk, (len(sizes),)))
            sizes.append(-blk.size if blk.kind == "nonneg" else blk.side)
            Fs.append(sp.csr_matrix(G if blk.kind == "nonneg" else _unpack(blk) @ G))
        elif blk.kind == "soc":
            first = len(tree.blocks)
            blocks, roles = _soc_tree(G, tree, len(sizes))
            sizes += [tree.blocks[k][0] for k in range(first, len(tree.blocks))]
            Fs += [first + k for k in range(len(blocks))]  # placeholders: the tree's blocks
            parts.append(Part("soc", blk, blocks, roles))
    width = tree.next
    trees = tree.matrices(width)
    Fs = [
        trees[F]
        if isinstance(F, int)
        else sp.csc_matrix(sp.hstack([F, sp.csr_matrix((F.shape[0], width - 1 - n))]))
        for F in Fs
    ]
    # column 0 is −b = F_0: SDPA's F(x) = Σ F_i x_i − F_0 is then the canonical s
    c = np.concatenate([np.asarray(form.c, float), np.zeros(width - 1 - n)])
    return SDPALayout(form, SDPAProblem(c, sizes, Fs, name), parts)


def _check_writable(form: CanonicalForm) -> None:
    if form.P is not None and form.P.nnz:
        raise UnsupportedProblemError(
            "CSDP and SDPA take a linear objective; this problem's "
            "canonical form has a quadratic one."
        )
    bad = sorted({blk.kind for blk in form.blocks} - {"zero", "nonneg", "soc", "psd"})
    if bad:
        raise UnsupportedProblemError(
            f"CSDP and SDPA take semidefinite, second-order and "
            f"linear cones; this problem has {', '.join(bad)} cones."
        )
    if form.c.size == 0 or not form.blocks:
        raise UnsupportedProblemError(
            "an SDPA problem needs at least one variable and one constraint."
        )
