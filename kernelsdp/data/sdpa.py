"""The SDPA sparse format (``.dat-s``), the format of SDPLIB 1.2 and most SDP benchmark sets.

A file states the *SDPA primal*

    min cᵀx   s.t.   F(x) = Σ_{i=1..m} F_i x_i − F_0 ⪰ 0        (x ∈ ℝᵐ free)

and implies the *SDPA dual*  max F_0•Y  s.t.  F_i•Y = c_i,  Y ⪰ 0.  Naming: DIMACS (and
SDPLIB's own paper) call the standard form with the matrix variable — SDPA's dual — the
primal.  :meth:`SDPAProblem.to_cvxpy` builds SDPA's primal, which is CVXPY's canonical form
with no reformulation (x free, s = F(x) in the cone); its objective is the value SDPLIB
tabulates.  So on an SDPA file the certificate's err1–err2 (the user's constraints,
F(x) ⪰ 0) are what DIMACS tables call err3–err4, and vice versa.

The layout, line by line (``"`` or ``*`` starts a comment line; ``,{}()`` separate like
spaces; text after the numbers a line needs, e.g. ``3 = mDIM``, is ignored):

1. m, the number of variables;
2. the number of blocks;
3. the block sizes: a negative size −k is a diagonal (LP) block of k entries;
4. c, m numbers, possibly wrapped over several lines;
5. entries ``k b i j v``: entry (i, j) of block b of F_k is v (k = 0 for F_0; indices from
   1).  Each entry of the *upper* triangle is listed once (a lower one, i > j, is read as
   its mirror); a diagonal block lists diagonal entries only.

Errors name the file and the line.  The matrices are kept sparse; nothing n×n is densified.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ..errors import InvalidDataError

_SEPARATORS = re.compile(r"[,{}()]")


@dataclass
class SDPAProblem:
    """c (m,), block sizes (negative: diagonal), and per block the (rows, m + 1) sparse
    matrix whose column k is F_k restricted to the block (vec of the full symmetric n × n
    matrix, column-major; the diagonal of a diagonal block)."""

    c: np.ndarray
    blocks: list[int]
    F: list[sp.csc_matrix]
    name: str = "sdpa"

    @property
    def m(self) -> int:
        return int(self.c.size)

    def to_cvxpy(self) -> cp.Problem:
        """SDPA's primal as a CVXPY problem (one PSD constraint per block, ≥ 0 for diagonal
        blocks)."""
        x = cp.Variable(self.m, name="x")
        cons = []
        for size, F in zip(self.blocks, self.F):
            G = F[:, 1:] @ x - F[:, 0].toarray().ravel()
            if size > 0:
                cons.append(cp.reshape(G, (size, size), order="F") >> 0)
            else:
                cons.append(G >= 0)
        return cp.Problem(cp.Minimize(self.c @ x), cons)


def _numbers(text: str) -> list[float]:
    out = []
    for tok in _SEPARATORS.sub(" ", text).split():
        try:
            out.append(float(tok))
        except ValueError:
            break  # trailing text such as "= mDIM"
    return out


def parse_sdpa(text: str, name: str = "sdpa") -> SDPAProblem:
    """Read the sparse SDPA format from a string (``name`` is used in the messages)."""
    lines = [(k + 1, ln) for k, ln in enumerate(text.splitlines())
             if ln.strip() and ln.lstrip()[0] not in '"*']
    pos = 0

    def header(what: str) -> tuple[int, list[float]]:
        nonlocal pos
        if pos >= len(lines):
            raise InvalidDataError(f"{name}: the file ends before {what}.")
        no, ln = lines[pos]
        pos += 1
        vals = _numbers(ln)
        if not vals:
            raise InvalidDataError(f"{name}, line {no}: expected {what}, got {ln.strip()[:40]!r}.")
        return no, vals

    def integer(v: float, no: int, what: str) -> int:
        if not math.isfinite(v) or v != int(v):
            raise InvalidDataError(f"{name}, line {no}: {what} must be an integer; got {v}.")
        return int(v)

    no, vals = header("the number of variables m")
    m = integer(vals[0], no, "m")
    no, vals = header("the number of blocks")
    nblocks = integer(vals[0], no, "the number of blocks")
    if m < 1 or nblocks < 1:
        raise InvalidDataError(f"{name}, line {no}: m and the number of blocks must be >= 1.")
    sizes: list[int] = []
    while len(sizes) < nblocks:
        no, vals = header(f"{nblocks} block sizes")
        sizes += [integer(v, no, "a block size") for v in vals]
    if len(sizes) != nblocks or 0 in sizes:
        raise InvalidDataError(f"{name}, line {no}: expected {nblocks} nonzero block sizes; "
                               f"got {sizes}.")
    c: list[float] = []
    while len(c) < m:
        no, vals = header(f"the {m} entries of c")
        c += vals
    if len(c) != m or not all(map(math.isfinite, c)):
        raise InvalidDataError(f"{name}, line {no}: expected {m} finite entries of c; got {len(c)}.")
    seen: dict[tuple[int, int, int, int], int] = {}
    triplets: list[tuple[list, list, list]] = [([], [], []) for _ in sizes]
    for no, ln in lines[pos:]:
        vals = _numbers(ln)
        if len(vals) < 5:
            raise InvalidDataError(f"{name}, line {no}: expected 'matrix block i j value'; "
                                   f"got {ln.strip()[:40]!r}.")
        k, b, i, j = (integer(v, no, "an index") for v in vals[:4])
        v = vals[4]
        if not (0 <= k <= m and 1 <= b <= nblocks):
            raise InvalidDataError(f"{name}, line {no}: matrix {k} or block {b} out of range "
                                   f"(0..{m}, 1..{nblocks}).")
        size = sizes[b - 1]
        n = abs(size)
        if not (1 <= i <= n and 1 <= j <= n) or not math.isfinite(v):
            raise InvalidDataError(f"{name}, line {no}: entry ({i}, {j}) = {v} is outside block "
                                   f"{b} of size {n} or not finite.")
        if size < 0 and i != j:
            raise InvalidDataError(f"{name}, line {no}: block {b} is diagonal; ({i}, {j}) is not.")
        i, j = min(i, j), max(i, j)
        if (k, b, i, j) in seen:
            raise InvalidDataError(f"{name}, line {no}: entry {(k, b, i, j)} was already given on "
                                   f"line {seen[k, b, i, j]} (each upper-triangle entry once).")
        seen[k, b, i, j] = no
        rows, cols, data = triplets[b - 1]
        if size < 0:
            rows.append(i - 1); cols.append(k); data.append(v)
            continue
        rows.append((i - 1) + n * (j - 1)); cols.append(k); data.append(v)
        if i != j:
            rows.append((j - 1) + n * (i - 1)); cols.append(k); data.append(v)
    F = [sp.csc_matrix((data, (rows, cols)), shape=(s * s if s > 0 else -s, m + 1))
         for s, (rows, cols, data) in zip(sizes, triplets)]
    return SDPAProblem(np.asarray(c, dtype=float), sizes, F, name)


def read_sdpa(path: str) -> SDPAProblem:
    """Read a ``.dat-s`` file (see the module docstring)."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except UnicodeDecodeError:
        raise InvalidDataError(f"{path}: not a text file (SDPA files are plain text).") from None
    return parse_sdpa(text, name=str(path))


def write_sdpa(problem: SDPAProblem) -> str:
    """The problem in the sparse SDPA format (upper triangles), e.g. to hand to other solvers."""
    out = [f'"{problem.name}"', str(problem.m), str(len(problem.blocks)),
           " ".join(map(str, problem.blocks)), " ".join(f"{v:.17g}" for v in problem.c)]
    for b, (size, F) in enumerate(zip(problem.blocks, problem.F), start=1):
        n = abs(size)
        C = F.tocoo()
        for r, k, v in zip(C.row, C.col, C.data):
            i, j = (r + 1, r + 1) if size < 0 else (r % n + 1, r // n + 1)
            if i <= j:
                out.append(f"{k} {b} {i} {j} {v:.17g}")
    return "\n".join(out) + "\n"
