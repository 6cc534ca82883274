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
- ``soc``: a second-order cone (t, u) as the arrow matrix [[t, uᵀ], [u, tI]] ⪰ 0, whose
  adjoint maps Y to (tr Y, 2·Y[1:, 0]), a point of the cone when Y ⪰ 0.

:func:`layout_of_model` matches an SDPA file's blocks with the canonical form of its CVXPY
model (``read_sdpa(path).to_cvxpy()``), checking every block's data, so a change in CVXPY's
layout fails loudly instead of mapping wrong.  :func:`sdpa_of_form` writes any canonical form
with these cones as an SDPA problem (for CSDP and SDPA to solve), and refuses the others.
"""

from __future__ import annotations

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
    """One SDPA block's place in the canonical form: its kind and canonical rows."""

    kind: str      # "psd" | "lp" | "zero" | "soc"
    block: Block   # the canonical block (for "zero", the run of equality rows)


@dataclass
class SDPALayout:
    """An SDPA problem and the canonical form it maps onto, block by block."""

    form: CanonicalForm
    sdpa: SDPAProblem
    parts: list[Part]

    def y(self, Y: list) -> np.ndarray:
        """The canonical multipliers of SDPA's dual blocks (see the module docstring)."""
        y = np.zeros(self.form.A.shape[0])
        for part, Yb in zip(self.parts, Y):
            y[part.block.rows] = _dual_rows(part, Yb)
        return y

    def s(self, slack: list) -> np.ndarray:
        """The canonical slack of SDPA's primal blocks X = F(x) (the rows' own packing)."""
        s = np.zeros(self.form.A.shape[0])
        for part, Xb in zip(self.parts, slack):
            blk = part.block
            if part.kind == "psd":
                s[blk.rows] = blk.vector(_dense(Xb))
            elif part.kind == "lp":
                s[blk.rows] = np.asarray(Xb, float)
            elif part.kind == "zero":
                s[blk.rows] = np.asarray(Xb, float)[: blk.size]
            else:  # soc: (t, u) from the arrow's first column
                M = _dense(Xb)
                s[blk.rows] = M[:, 0]
        return s


def _dense(M) -> np.ndarray:
    return M.toarray() if sp.issparse(M) else np.asarray(M, float)


def _dual_rows(part: Part, Yb) -> np.ndarray:
    blk = part.block
    if part.kind == "psd":
        return blk.vector(_dense(Yb), dual=True)
    if part.kind == "lp":
        return np.asarray(Yb, float)
    if part.kind == "zero":
        d = np.asarray(Yb, float)
        return d[: blk.size] - d[blk.size:]
    M = _dense(Yb)  # soc: the arrow's adjoint
    return np.concatenate([[np.trace(M)], 2.0 * M[1:, 0]])


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
    return sp.csr_matrix((np.r_[inv, inv[i != j]], (np.r_[P.col, (j + n * i)[i != j]],
                                                     np.r_[P.row, P.row[i != j]])),
                         shape=(n * n, blk.size))


def _arrow(k: int) -> sp.csr_matrix:
    """vec(Arw(t, u)) = W @ (t, u) for the (k × k) arrow matrix [[t, uᵀ], [u, tI]]."""
    d = np.arange(k)
    rows = np.r_[d * (k + 1), d[1:], d[1:] * k]  # the diagonal, then (i, 0) and (0, i)
    cols = np.r_[np.zeros(k, int), d[1:], d[1:]]
    return sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(k * k, k))


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
    rows = form.A[blk.start:blk.stop]
    scale = 1.0 + max(_largest(A), float(np.max(np.abs(b), initial=0.0)))
    dA = _largest(rows - A)
    db = float(np.max(np.abs(form.b[blk.rows] - b), initial=0.0))
    return max(dA, db) <= MATCH_RTOL * scale


def layout_of_model(sdpa: SDPAProblem, form: CanonicalForm) -> SDPALayout:
    """The layout of ``sdpa`` in ``form``, the canonical form of ``sdpa.to_cvxpy()``: each
    diagonal block is a nonneg block and each matrix block a psd block, matched in order
    and checked entry by entry."""
    if form.c.size != sdpa.m or form.P is not None or form.d != 0.0:
        raise NotImplementedError(f"the canonical form ({form.c.size} columns) is not that of "
                                  f"{sdpa.name}'s model (m = {sdpa.m})")
    free = list(enumerate(form.blocks))
    parts = []
    for b, (size, F) in enumerate(zip(sdpa.blocks, sdpa.F), start=1):
        kind, side = ("psd", size) if size > 0 else ("nonneg", -size)
        for pos, (j, blk) in enumerate(free):
            fits = blk.kind == kind and (blk.side == side if kind == "psd" else blk.size == side)
            if fits and _matches(form, size, F, blk):
                parts.append(Part("psd" if size > 0 else "lp", blk))
                del free[pos]
                break
        else:
            raise NotImplementedError(f"block {b} of {sdpa.name} (size {size}) has no match in "
                                      "its canonical form: a CVXPY layout kernelsdp does not know")
    if free or not np.array_equal(form.c, sdpa.c):
        raise NotImplementedError(f"{sdpa.name}'s canonical form has rows or costs its SDPA "
                                  "file does not: a CVXPY layout kernelsdp does not know")
    return SDPALayout(form, sdpa, parts)


# ----- any canonical form, as an SDPA problem ----------------------------------------------
def sdpa_of_form(form: CanonicalForm, name: str = "kernelsdp") -> SDPALayout:
    """``form`` written as SDPA's primal: x the canonical x, one SDPA block per cone (equality
    rows as one ± diagonal block); refused with :class:`UnsupportedProblemError` when the
    form has a quadratic objective or an exponential or power cone."""
    if form.P is not None and form.P.nnz:
        raise UnsupportedProblemError("CSDP and SDPA take a linear objective; this problem's "
                                      "canonical form has a quadratic one.")
    bad = sorted({blk.kind for blk in form.blocks} - {"zero", "nonneg", "soc", "psd"})
    if bad:
        raise UnsupportedProblemError(f"CSDP and SDPA take semidefinite, second-order and "
                                      f"linear cones; this problem has {', '.join(bad)} cones.")
    if form.c.size == 0 or not form.blocks:
        raise UnsupportedProblemError("an SDPA problem needs at least one variable and one "
                                      "constraint.")
    Ab = sp.hstack([sp.csr_matrix(-form.b.reshape(-1, 1)), form.A], format="csr")
    sizes, Fs, parts = [], [], []
    zero = [blk for blk in form.blocks if blk.kind == "zero"]
    if zero:  # all equality rows in one block: [s; −s] ≥ 0
        rows = np.concatenate([np.arange(b.start, b.stop) for b in zero])
        G = Ab[rows]
        lo, hi = int(rows.min()), int(rows.max()) + 1
        if hi - lo != rows.size:  # pragma: no cover - CVXPY puts the zero cone first
            raise NotImplementedError("equality rows that are not contiguous")
        sizes.append(-2 * rows.size)
        Fs.append(sp.vstack([G, -G], format="csc"))
        parts.append(Part("zero", Block("zero", lo, hi)))
    for blk in form.blocks:
        G = Ab[blk.start:blk.stop]
        if blk.kind == "nonneg":
            size, F, kind = -blk.size, G, "lp"
        elif blk.kind == "psd":
            size, F, kind = blk.side, _unpack(blk) @ G, "psd"
        elif blk.kind == "soc":
            size, F, kind = blk.size, _arrow(blk.size) @ G, "soc"
        else:
            continue  # the zero rows, written above
        sizes.append(size)
        Fs.append(sp.csc_matrix(F))
        parts.append(Part(kind, blk))
    # column 0 of Ab is −b = F_0: SDPA's F(x) = Σ F_i x_i − F_0 is then the canonical s
    problem = SDPAProblem(np.asarray(form.c, float).copy(), sizes, Fs, name)
    return SDPALayout(form, problem, parts)
