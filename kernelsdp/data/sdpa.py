"""The SDPA sparse format (``.dat-s``), the format of SDPLIB 1.2 and most SDP benchmark sets.

A file states the *SDPA primal*

    min cᵀx   s.t.   F(x) = Σ_{i=1..m} F_i x_i − F_0 ⪰ 0        (x ∈ ℝᵐ free)

and implies the *SDPA dual*  max F_0•Y  s.t.  F_i•Y = c_i,  Y ⪰ 0.  Naming: DIMACS (and
SDPLIB's own paper) call the standard form with the matrix variable — SDPA's dual — the
primal; so does CSDP, whose primal is max tr(CX) s.t. tr(A_i X) = a_i, X ⪰ 0 with C = F_0,
A_i = F_i, a = c.  :meth:`SDPAProblem.to_cvxpy` builds SDPA's primal, which is CVXPY's
canonical form with no reformulation (x free, s = F(x) in the cone); its objective is the
value SDPLIB tabulates.  So on an SDPA file the certificate's err1–err2 (the user's
constraints, F(x) ⪰ 0) are what DIMACS tables call err3–err4, and vice versa.

The layout, line by line (``"`` or ``*`` starts a comment line; ``,{}()`` separate like
spaces; text after the numbers a header line needs, e.g. ``3 = mDIM``, is ignored):

1. m, the number of variables;
2. the number of blocks;
3. the block sizes: a negative size −k is a diagonal (LP) block of k entries;
4. c, m numbers, possibly wrapped over several lines;
5. entries ``k b i j v``, one per line: entry (i, j) of block b of F_k is v (k = 0 for
   F_0; indices from 1).  Each entry of the *upper* triangle is listed once (a lower one,
   i > j, is read as its mirror); a diagonal block lists diagonal entries only.

**Numbers** are read in the grammar of the C readers (``strtod``, ``fscanf("%lf")``):
digits with an optional point and exponent (``1``, ``-2.5``, ``.5e-3``), or inf/nan (then
refused as not finite).  A token that starts like a number and is not one — ``1_000``,
``1.0D+00``, ``0x10``, ``1e5x`` — is an error: the C readers would read ``1_000`` as 1 and
stumble on the rest, Python's ``float`` as 1000, and a file whose value depends on the
reader is refused rather than guessed.  A token that does not start like a number ends
the numbers of its line (the ``= mDIM`` comments).  An entry line holds exactly five.

**Sizes are refused before anything is allocated**: the declared m, block count and block
sizes are priced (:func:`declared_bytes`: the sparse matrices' column pointers and c, and
the dense vectors that every use of the model holds — CVXPY's canonical b, the
certificate's slack and multipliers, one dense matrix per block for its λ_min — at
:data:`DENSE_COPIES` vectors of Σ rows), and so is what the file's own length can hold
(:data:`ENTRY_BYTES` per entry line); over the memory limit (``$KERNELSDP_MEMORY_GIB``, or
this machine's memory) the reader stops with one line naming the sizes and the limit.  The
entries are read into typed arrays; the matrices are kept sparse, and the model
(:meth:`SDPAProblem.to_cvxpy`) multiplies the sparse F by (−1, x) instead of densifying F_0.

Errors name the file and the line.
"""

from __future__ import annotations

import io
import math
import os
import re
from array import array
from dataclasses import dataclass

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ..errors import InvalidDataError
from ..limits import check_memory

_SEPARATORS = re.compile(r"[,{}()]")
#: a number as C's strtod reads it (decimal; hexadecimal floats are not SDPA's)
_NUMBER = re.compile(
    r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|infinity|nan)", re.IGNORECASE
)
#: a token that claims to be a number: it must then be a whole one
_NUMERIC_START = re.compile(r"[+\-.\d]|inf|nan", re.IGNORECASE)

#: dense vectors of Σ rows (n² per matrix block, k per diagonal block) that a use of the
#: model holds: CVXPY's canonical b, the certificate's slack s = Ax + b and multipliers y,
#: and one dense matrix per block for its λ_min
DENSE_COPIES = 4
#: bytes held per entry line while reading and assembling: six 8-byte fields (matrix,
#: block, i, j, value, line) in typed arrays, their NumPy copies, and the sparse matrix's
#: two stored entries (a mirrored off-diagonal) with their row indices
ENTRY_BYTES = 128
#: the shortest entry line, "0 1 1 1 1" and its newline: a file of N bytes holds at most
#: N / MIN_ENTRY_CHARS entries
MIN_ENTRY_CHARS = 10


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
        blocks): F(x) is the sparse F times (−1, x), so F_0 stays sparse in the model."""
        x = cp.Variable(self.m, name="x")
        ext = cp.hstack([np.array([-1.0]), x])
        cons = []
        for size, F in zip(self.blocks, self.F):
            G = F @ ext
            if size > 0:
                cons.append(cp.reshape(G, (size, size), order="F") >> 0)
            else:
                cons.append(G >= 0)
        return cp.Problem(cp.Minimize(self.c @ x), cons)


def declared_bytes(m: int, sizes: list[int]) -> tuple[int, int]:
    """(sparse, dense) bytes that these declared sizes cost before a single entry is read:
    c and every block's column pointers (8·(m + 2) each), and :data:`DENSE_COPIES` dense
    vectors of Σ rows (n² for a matrix block of side n, k for a diagonal block of k)."""
    sparse = 8 * m + 8 * (m + 2) * len(sizes)
    rows = sum(s * s if s > 0 else -s for s in sizes)
    return sparse, 8 * DENSE_COPIES * rows


def _check_declared(name: str, m: int, sizes: list[int], nblocks: int | None = None) -> None:
    """Refuse, before allocating, sizes whose model would not fit in memory."""
    if nblocks is not None:  # only the count is known yet: price the column pointers
        sparse, dense = 8 * m + 8 * (m + 2) * nblocks, 0
        what = f"{name}: the declared m = {m} and {nblocks} block(s)"
    else:
        sparse, dense = declared_bytes(m, sizes)
        side = max((abs(s) for s in sizes), default=0)
        what = (
            f"{name}: the declared m = {m} and {len(sizes)} block(s), the largest with n = {side}"
        )
    check_memory(
        sparse + dense,
        what,
        "the model's dense vectors and one dense matrix per "
        "block; a reader that cannot hold them refuses before allocating",
    )


def strict_number(tok: str, where: str) -> float | None:
    """``tok`` as C's strtod reads a whole token; None when it does not start like a number
    (trailing text); an error naming ``where`` when it starts like one and is not."""
    if _NUMBER.fullmatch(tok):
        return float(tok)
    if _NUMERIC_START.match(tok):
        raise InvalidDataError(
            f"{where}: {tok[:40]!r} is not a number in the SDPA grammar "
            "(C's strtod: digits, an optional point and exponent, e.g. 1000 "
            "or 1.5e-3)."
        )
    return None


def line_numbers(text: str, name: str, no: int) -> list[float]:
    """The numbers at the start of a line, strictly in C's grammar (see the module doc)."""
    out = []
    for tok in _SEPARATORS.sub(" ", text).split():
        v = strict_number(tok, f"{name}, line {no}")
        if v is None:
            break  # trailing text such as "= mDIM"
        out.append(v)
    return out


def _integer(v: float, name: str, no: int, what: str) -> int:
    if not math.isfinite(v) or v != int(v):
        raise InvalidDataError(f"{name}, line {no}: {what} must be an integer; got {v}.")
    return int(v)


class _Lines:
    """(line number, numbers) of the data lines of a stream, comments and blanks skipped."""

    def __init__(self, stream, name: str):
        self.stream, self.name = stream, name

    def __iter__(self):
        for no, ln in enumerate(self.stream, start=1):
            s = ln.strip()
            if s and s[0] not in '"*':
                yield no, s

    def header(self, it, what: str) -> tuple[int, list[float]]:
        for no, s in it:
            vals = line_numbers(s, self.name, no)
            if not vals:
                raise InvalidDataError(f"{self.name}, line {no}: expected {what}, got {s[:40]!r}.")
            return no, vals
        raise InvalidDataError(f"{self.name}: the file ends before {what}.")


def _read_header(lines: _Lines, it, name: str) -> tuple[int, list[int], np.ndarray]:
    """m, the block sizes and c, each size priced before anything of that size exists."""
    no, vals = lines.header(it, "the number of variables m")
    m = _integer(vals[0], name, no, "m")
    no, vals = lines.header(it, "the number of blocks")
    nblocks = _integer(vals[0], name, no, "the number of blocks")
    if m < 1 or nblocks < 1:
        raise InvalidDataError(
            f"{name}, line {no}: m and the number of blocks must be >= 1; "
            f"got m = {m}, {nblocks} block(s)."
        )
    _check_declared(name, m, [], nblocks)
    sizes: list[int] = []
    while len(sizes) < nblocks:
        no, vals = lines.header(it, f"{nblocks} block sizes")
        sizes += [_integer(v, name, no, "a block size") for v in vals]
    if len(sizes) != nblocks or 0 in sizes:
        shown = sizes if len(sizes) <= 10 else f"{sizes[:10]}..."
        raise InvalidDataError(
            f"{name}, line {no}: expected {nblocks} nonzero block sizes; got {shown}."
        )
    _check_declared(name, m, sizes)
    c = array("d")
    while len(c) < m:
        no, vals = lines.header(it, f"the {m} entries of c")
        c.extend(vals)
    if len(c) != m or not all(map(math.isfinite, c)):
        raise InvalidDataError(
            f"{name}, line {no}: expected {m} finite entries of c; got {len(c)}."
        )
    return m, sizes, np.frombuffer(c, dtype=float).copy()


def _read_entries(it, name: str, m: int, sizes: list[int]) -> list[array]:
    """The entry lines as typed arrays [matrix, block, i, j, line] (int64) and values."""
    cols = [array("q") for _ in range(5)] + [array("d")]
    nblocks = len(sizes)
    for no, s in it:
        vals = line_numbers(s, name, no)
        if len(vals) != 5:
            raise InvalidDataError(
                f"{name}, line {no}: expected the 5 numbers 'matrix block i "
                f"j value'; got {s[:40]!r}."
            )
        k, b, i, j = (_integer(v, name, no, "an index") for v in vals[:4])
        v = vals[4]
        if not (0 <= k <= m and 1 <= b <= nblocks):
            raise InvalidDataError(
                f"{name}, line {no}: matrix {k} or block {b} out of range (0..{m}, 1..{nblocks})."
            )
        size = sizes[b - 1]
        n = abs(size)
        if not (1 <= i <= n and 1 <= j <= n) or not math.isfinite(v):
            raise InvalidDataError(
                f"{name}, line {no}: entry ({i}, {j}) = {v} is outside block "
                f"{b} of size {n} or not finite."
            )
        if size < 0 and i != j:
            raise InvalidDataError(f"{name}, line {no}: block {b} is diagonal; ({i}, {j}) is not.")
        for col, val in zip(cols, (k, b, min(i, j), max(i, j), no, v)):
            col.append(val)
    return cols


def no_repeats(name: str, keys: list[np.ndarray], line: np.ndarray) -> None:
    """Each key (a tuple of the ``keys`` columns) once: sorted, not hashed, so O(entries)
    memory; the error names the repeat on the earliest line and the line that gave it first."""
    if line.size < 2:
        return
    order = np.lexsort((line, *keys[::-1]))
    stacked = np.stack([k[order] for k in keys])
    same = np.flatnonzero(np.all(stacked[:, 1:] == stacked[:, :-1], axis=0))
    if same.size:
        at = int(np.argmin(line[order[same + 1]]))
        dup, orig = order[same[at] + 1], order[same[at]]
        entry = tuple(int(k[dup]) for k in keys)
        raise InvalidDataError(
            f"{name}, line {line[dup]}: entry {entry} was already given on "
            f"line {line[orig]} (each upper-triangle entry once)."
        )


def _assemble(name: str, m: int, sizes: list[int], cols: list[array]) -> list[sp.csc_matrix]:
    k, b, i, j, line = (np.frombuffer(c, dtype=np.int64) for c in cols[:5])
    v = np.frombuffer(cols[5], dtype=float)
    no_repeats(name, [k, b, i, j], line)
    out = []
    for blk, size in enumerate(sizes, start=1):
        sel = b == blk
        kb, ib, jb, vb = k[sel], i[sel] - 1, j[sel] - 1, v[sel]
        n = abs(size)
        if size < 0:
            rows, cc, data = ib, kb, vb
        else:
            off = ib != jb
            rows = np.concatenate([ib + n * jb, jb[off] + n * ib[off]])
            cc, data = np.concatenate([kb, kb[off]]), np.concatenate([vb, vb[off]])
        shape = (n * n if size > 0 else n, m + 1)
        out.append(sp.csc_matrix((data, (rows, cc)), shape=shape))
    return out


def _parse(stream, name: str, nbytes: int) -> SDPAProblem:
    check_memory(
        ENTRY_BYTES * nbytes / MIN_ENTRY_CHARS,
        f"{name}: reading its {nbytes / 2**20:.0f} MiB of entries",
    )
    lines = _Lines(stream, name)
    it = iter(lines)
    m, sizes, c = _read_header(lines, it, name)
    cols = _read_entries(it, name, m, sizes)
    return SDPAProblem(c, sizes, _assemble(name, m, sizes, cols), name)


def parse_sdpa(text: str, name: str = "sdpa") -> SDPAProblem:
    """Read the sparse SDPA format from a string (``name`` is used in the messages)."""
    return _parse(io.StringIO(text), name, len(text))


def read_sdpa(path: str) -> SDPAProblem:
    """Read a ``.dat-s`` file (see the module docstring), streaming its lines."""
    try:
        nbytes = os.path.getsize(path)
        with open(path, encoding="utf-8-sig") as fh:
            return _parse(fh, str(path), nbytes)
    except UnicodeDecodeError:
        raise InvalidDataError(f"{path}: not a text file (SDPA files are plain text).") from None
    except OSError as exc:
        raise InvalidDataError(f"{path}: cannot be read ({exc.strerror or exc}).") from None


def write_sdpa(problem: SDPAProblem) -> str:
    """The problem in the sparse SDPA format (upper triangles), e.g. to hand to other solvers."""
    out = [
        f'"{problem.name}"',
        str(problem.m),
        str(len(problem.blocks)),
        " ".join(map(str, problem.blocks)),
        " ".join(f"{v:.17g}" for v in problem.c),
    ]
    for b, (size, F) in enumerate(zip(problem.blocks, problem.F), start=1):
        n = abs(size)
        C = F.tocoo()
        r = C.row.astype(np.int64)
        i, j = (r + 1, r + 1) if size < 0 else (r % n + 1, r // n + 1)
        keep = (i <= j) & (C.data != 0)
        cols = (C.col[keep].tolist(), i[keep].tolist(), j[keep].tolist(), C.data[keep].tolist())
        out.extend(map(f"{{}} {b} {{}} {{}} {{:.17g}}".format, *cols))  # the lines, in F's order
    return "\n".join(out) + "\n"
