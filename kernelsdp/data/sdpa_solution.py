"""Solution files of the SDPA-format solvers — CSDP's ``.sol`` and SDPA's output file — read
strictly into one :class:`SDPASolution` in SDPA's terms: x, the slack X = F(x), the dual Y.

**Conventions.**  SDPA's primal is  min cᵀx  s.t.  X = Σ F_i x_i − F_0 ⪰ 0  and its dual
max F_0•Y  s.t.  F_i•Y = c_i, Y ⪰ 0  (:mod:`kernelsdp.data.sdpa`).  CSDP names the pair the
other way round: its primal  max tr(CX)  s.t.  tr(A_i X) = a_i, X ⪰ 0  (C = F_0, A_i = F_i,
a = c) is SDPA's dual, and its dual  min aᵀy  s.t.  Σ y_i A_i − C = Z ⪰ 0  is SDPA's primal
(CSDP 6.2 user's guide, §2).  So

    CSDP's y = SDPA's x,    CSDP's Z = SDPA's X (the slack),    CSDP's X = SDPA's Y.

- **CSDP's .sol** (``lib/writesol.c``): the first line holds the m entries of y; then one
  line ``matno blk i j value`` per nonzero upper-triangle entry (i ≤ j), matno 1 for Z and
  2 for X.  The file states no status: CSDP gives it as its exit code
  (:data:`CSDP_STATUS`): 1 "primal infeasible" — SDPA's dual — comes with (y, Z) scaled to
  aᵀy = −1, a ray of SDPA's primal; 2 "dual infeasible" — SDPA's primal — with X scaled to
  tr(CX) = 1, A(X) = 0, a Farkas certificate.
- **SDPA's output** (SDPA 7): ``phase.value = pdOPT`` (:data:`SDPA_PHASE`),
  ``objValPrimal``, ``objValDual``, then ``xVec =`` {x}, ``xMat =`` the slack's blocks and
  ``yMat =`` the dual's; a matrix block prints as ``{ {row}, {row} }``, a diagonal block
  (and a 1 × 1 matrix) as ``{v, v}``.  The digits are the parameter file's
  xPrint/XPrint/YPrint format: SDPA's default ``%+8.3e`` keeps four, far from what a
  certificate at 1e-6 needs (:attr:`SDPASolution.digits` says how many the file has;
  kernelsdp runs SDPA with ``%+.17e``).

Numbers are read in C's grammar (:func:`kernelsdp.data.sdpa.strict_number`); NaN and inf
are read (a failed solve prints them) and make the solution :attr:`~SDPASolution.finite`
False.  Everything is checked against the problem's m and block sizes; every error is one
:class:`~kernelsdp.errors.InvalidDataError` line naming the file (and the line).
"""

from __future__ import annotations

import math
import os
import re
from array import array
from dataclasses import dataclass, field

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ..errors import InvalidDataError
from ..limits import check_memory
from .sdpa import ENTRY_BYTES, MIN_ENTRY_CHARS, SDPAProblem, line_numbers, no_repeats, strict_number

#: CSDP's exit codes (``easy_sdp``), as the status of SDPA's primal in CVXPY's words
CSDP_STATUS = {
    0: cp.OPTIMAL,
    1: cp.UNBOUNDED,
    2: cp.INFEASIBLE,
    3: cp.OPTIMAL_INACCURATE,
    4: cp.USER_LIMIT,
}
#: what CSDP's exit codes mean, in its own words
CSDP_CODES = {
    0: "solved",
    1: "primal infeasible (CSDP's primal: SDPA's dual)",
    2: "dual infeasible (CSDP's dual: SDPA's primal)",
    3: "reduced accuracy",
    4: "iteration limit",
    5: "stuck at the edge of primal feasibility",
    6: "stuck at the edge of dual feasibility",
    7: "lack of progress",
    8: "X, Z or O singular",
    9: "NaN or Inf",
}
#: SDPA's phase.value as the status of its primal in CVXPY's words (pUNBD: the primal
#: objective runs to −∞; dUNBD: the dual's to +∞, so the primal is infeasible)
SDPA_PHASE = {
    "pdOPT": cp.OPTIMAL,
    "pdFEAS": cp.OPTIMAL_INACCURATE,
    "pFEAS": cp.USER_LIMIT,
    "dFEAS": cp.USER_LIMIT,
    "noINFO": cp.USER_LIMIT,
    "pdINF": cp.settings.INFEASIBLE_OR_UNBOUNDED,
    "pINF_dFEAS": cp.INFEASIBLE,
    "dUNBD": cp.INFEASIBLE,
    "pFEAS_dINF": cp.UNBOUNDED,
    "pUNBD": cp.UNBOUNDED,
}
FORMATS = ("csdp", "sdpa")
#: dense n×n copies per block the mapping onto a canonical form holds (Y, its vector, s)
SOLUTION_COPIES = 3

_TOKEN = re.compile(r"[{}]|[^\s{},]+")


@dataclass
class SDPASolution:
    """An SDPA-format solver's answer in SDPA's terms (see the module docstring).

    Per block, ``slack`` and ``Y`` hold a symmetric (n, n) array (dense, or sparse from a
    ``.sol``) for a matrix block, a (k,) array for a diagonal one."""

    x: np.ndarray
    slack: list
    Y: list
    fmt: str
    path: str
    #: the status of SDPA's primal the file states (None: a CSDP .sol states none)
    status: str | None = None
    #: the program's own word for it ("pdOPT", "exit code 0: solved", ...)
    claim: str = ""
    objectives: tuple[float, float] | None = None
    #: the fewest significant digits among the printed values (None: full precision)
    digits: int | None = None
    stats: dict = field(default_factory=dict)

    @property
    def finite(self) -> bool:
        parts = [self.x] + [M.data if sp.issparse(M) else M for M in (*self.Y, *self.slack)]
        return all(bool(np.all(np.isfinite(p))) for p in parts)


def _price(problem: SDPAProblem, path: str, nbytes: int) -> None:
    """Refuse, before allocating, a solution whose blocks (dense, :data:`SOLUTION_COPIES`
    times) or whose file's entry lines (:data:`~kernelsdp.data.sdpa.ENTRY_BYTES` each)
    would not fit."""
    rows = sum(n * n if n > 0 else -n for n in problem.blocks)
    entries = ENTRY_BYTES * nbytes / MIN_ENTRY_CHARS
    check_memory(
        8.0 * SOLUTION_COPIES * rows + 8 * problem.m + entries,
        f"{path}: the solution of {problem.name} (m = {problem.m}, blocks up to "
        f"n = {max(abs(n) for n in problem.blocks)}, {nbytes / 2**20:.0f} MiB of text)",
    )


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except UnicodeDecodeError:
        raise InvalidDataError(
            f"{path}: not a text file (solution files are plain text)."
        ) from None
    except OSError as exc:
        raise InvalidDataError(f"{path}: cannot be read ({exc.strerror or exc}).") from None


# ----- CSDP ------------------------------------------------------------------------------
def _csdp_entry(vals: list[float], problem: SDPAProblem, where: str) -> tuple[int, int, int, int]:
    ints = []
    for v in vals[:4]:
        if not (math.isfinite(v) and v == int(v)):
            raise InvalidDataError(f"{where}: an index must be an integer; got {v}.")
        ints.append(int(v))
    mat, blk, i, j = ints
    if mat not in (1, 2) or not 1 <= blk <= len(problem.blocks):
        raise InvalidDataError(
            f"{where}: matrix {mat} (1: Z, 2: X) or block {blk} out of range "
            f"(1..{len(problem.blocks)})."
        )
    size = problem.blocks[blk - 1]
    if not (1 <= i <= abs(size) and 1 <= j <= abs(size)) or (size < 0 and i != j):
        raise InvalidDataError(
            f"{where}: entry ({i}, {j}) is outside block {blk} "
            f"({'diagonal, ' if size < 0 else ''}of size {abs(size)})."
        )
    return mat, blk, min(i, j), max(i, j)


def _csdp_blocks(problem: SDPAProblem, cols: list[array]) -> tuple[list, list]:
    """Z's and X's blocks from the entry columns [mat, blk, i, j, line] and values, each
    symmetric in full (sparse for a matrix block)."""
    if isinstance(cols[0], np.ndarray):  # the fast reader's arrays
        mat, blk, i, j, line, v = cols
    else:
        mat, blk, i, j, line = (np.frombuffer(c, dtype=np.int64) for c in cols[:5])
        v = np.frombuffer(cols[5], dtype=float)
    out: dict[int, list] = {1: [], 2: []}
    for which in (1, 2):
        for b, size in enumerate(problem.blocks, start=1):
            sel = (mat == which) & (blk == b)
            ib, jb, vb = i[sel] - 1, j[sel] - 1, v[sel]
            n = abs(size)
            if size < 0:
                d = np.zeros(n)
                d[ib] = vb
                out[which].append(d)
                continue
            off = ib != jb
            rows, cc = np.concatenate([ib, jb[off]]), np.concatenate([jb, ib[off]])
            out[which].append(
                sp.csr_matrix((np.concatenate([vb, vb[off]]), (rows, cc)), shape=(n, n))
            )
    return out[1], out[2]


def _csdp_entries(lines, problem: SDPAProblem, path: str) -> list[array]:
    cols = [array("q") for _ in range(5)] + [array("d")]
    for no, s in lines:
        where = f"{path}, line {no}"
        vals = line_numbers(s, path, no)
        if len(vals) != 5 or len(s.split()) != 5:
            raise InvalidDataError(
                f"{where}: expected the 5 numbers 'matno block i j value'; got {s[:40]!r}."
            )
        for col, val in zip(cols, (*_csdp_entry(vals, problem, where), no, vals[4])):
            col.append(val)
    keys = [np.frombuffer(c, dtype=np.int64) for c in cols[:5]]
    no_repeats(path, keys[:4], keys[4])
    return cols


#: CSDP's entry lines as its writesol.c prints them — four unsigned integers and one finite
#: decimal number per line, blanks between — checked over the whole body by one expression
_CSDP_BODY = re.compile(
    r"(?:[ \t]*\d+[ \t]+\d+[ \t]+\d+[ \t]+\d+[ \t]+"
    r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[ \t]*(?:\r?\n|\Z)|[ \t]*\r?\n)*"
)


def _body_after(text: str, no: int) -> str:
    """The text after line ``no`` where "\n" (or "\r\n") is the only line break — as
    str.splitlines numbers the lines —, else "" (the strict reader takes the rest)."""
    breaks = text.count("\n")
    if len(text.splitlines()) != breaks + (not text.endswith("\n")):
        return ""
    return text.split("\n", no)[-1] if breaks >= no else ""


def _csdp_entries_fast(body: str, problem: SDPAProblem) -> list[np.ndarray] | None:
    """The entry columns (matno, block, i ≤ j, value) of a body that is exactly CSDP's own
    output, read as arrays; None at anything else — a stray token, an index out of range,
    a repeated entry — which the strict line-by-line reader then reports by its line.
    (The body is only read here: what this accepts, the strict reader accepts the same.)"""
    if not _CSDP_BODY.fullmatch(body):
        return None
    vals = np.array(body.split(), dtype=float).reshape(-1, 5)
    mat, blk, i, j = (vals[:, k].astype(np.int64) for k in range(4))
    sizes = np.asarray(problem.blocks, dtype=np.int64)
    if not (np.all((mat == 1) | (mat == 2)) and np.all((blk >= 1) & (blk <= sizes.size))):
        return None
    size = sizes[blk - 1]
    side = np.abs(size)
    inside = (i >= 1) & (i <= side) & (j >= 1) & (j <= side) & ((size > 0) | (i == j))
    if not np.all(inside):
        return None
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    order = np.lexsort((hi, lo, blk, mat))
    keys = np.stack([mat[order], blk[order], lo[order], hi[order]])
    if np.any(np.all(keys[:, 1:] == keys[:, :-1], axis=0)):
        return None
    return [mat, blk, lo, hi, np.zeros_like(mat), vals[:, 4].copy()]


def parse_csdp_solution(
    text: str, problem: SDPAProblem, path: str = "csdp.sol", exit_code: int | None = None
) -> SDPASolution:
    """CSDP's ``.sol`` for ``problem`` (``exit_code``: CSDP's, when known, gives the status)."""
    _price(problem, path, len(text))
    lines = ((no, s.strip()) for no, s in enumerate(text.splitlines(), start=1) if s.strip())
    first = next(lines, None)
    if first is None:
        raise InvalidDataError(
            f"{path}: empty; a CSDP solution starts with the {problem.m} entries of y."
        )
    no, s = first
    x = line_numbers(s, path, no)
    if len(x) != problem.m or len(s.split()) != problem.m:
        raise InvalidDataError(
            f"{path}, line {no}: expected the {problem.m} entries of y "
            f"(SDPA's x) for {problem.name}; got {len(s.split())}."
        )
    fast = _csdp_entries_fast(_body_after(text, no), problem)
    Z, X = _csdp_blocks(problem, fast if fast is not None else _csdp_entries(lines, problem, path))
    status = None if exit_code is None else CSDP_STATUS.get(exit_code, cp.SOLVER_ERROR)
    claim = (
        "none (a CSDP .sol states no status)"
        if exit_code is None
        else f"exit code {exit_code}: {CSDP_CODES.get(exit_code, 'unknown')}"
    )
    return SDPASolution(np.asarray(x, float), Z, X, "csdp", path, status, claim)


def read_csdp_solution(
    path: str, problem: SDPAProblem, exit_code: int | None = None
) -> SDPASolution:
    """:func:`parse_csdp_solution` of a file."""
    return parse_csdp_solution(_read_text(path), problem, path, exit_code)


# ----- SDPA ------------------------------------------------------------------------------
def _groups(tokens: list[str], pos: int, path: str, what: str) -> tuple[list, int]:
    """The brace group starting at tokens[pos] as nested lists of number strings, and the
    position after it."""
    if pos >= len(tokens) or tokens[pos] != "{":
        raise InvalidDataError(f"{path}: expected '{{' to open {what}.")
    stack: list[list] = [[]]
    pos += 1
    while pos < len(tokens):
        tok = tokens[pos]
        pos += 1
        if tok == "{":
            stack.append([])
        elif tok == "}":
            done = stack.pop()
            if not stack:
                return done, pos
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    raise InvalidDataError(f"{path}: the file ends inside {what} (a '}}' is missing).")


def _values(items: list, path: str, what: str) -> np.ndarray:
    if any(isinstance(t, list) for t in items):
        raise InvalidDataError(f"{path}: {what} is nested where numbers were expected.")
    out = []
    for t in items:
        v = strict_number(t, f"{path}, {what}")
        if v is None:
            raise InvalidDataError(f"{path}, {what}: {t[:40]!r} is not a number.")
        out.append(v)
    return np.asarray(out, dtype=float)


def _block(group, size: int, path: str, what: str) -> np.ndarray:
    n = abs(size)
    if size < 0 or n == 1:  # a diagonal block, or a 1 × 1 matrix printed flat
        flat = (
            group
            if not (n == 1 and size > 0 and group and isinstance(group[0], list))
            else group[0]
        )
        v = _values(flat, path, what)
        if v.size != n:
            raise InvalidDataError(f"{path}: {what} has {v.size} entries; block size {n}.")
        return v if size < 0 else v.reshape(1, 1)
    if len(group) != n or not all(isinstance(r, list) for r in group):
        raise InvalidDataError(f"{path}: {what} should be {n} rows of {n}; got {len(group)} items.")
    M = np.stack(
        [
            _values(r, path, f"{what}, row {k + 1}")
            if len(r) == n
            else _short_row(path, what, k, len(r), n)
            for k, r in enumerate(group)
        ]
    )
    return (M + M.T) / 2  # SDPA prints its iterates' (i, j) and (j, i) up to an ulp apart


def _short_row(path: str, what: str, k: int, got: int, n: int):
    raise InvalidDataError(f"{path}: {what}, row {k + 1} has {got} entries; block size {n}.")


def _matrices(tokens: list[str], key: str, problem: SDPAProblem, path: str) -> tuple[list, list]:
    """The blocks printed after ``key =``, and their number strings (for their digits)."""
    group, _ = _groups(tokens, _find(tokens, key, path), path, key)
    if len(group) != len(problem.blocks):
        raise InvalidDataError(
            f"{path}: {key} has {len(group)} blocks; {problem.name} has {len(problem.blocks)}."
        )
    return (
        [
            _block(g, size, path, f"{key} block {b}")
            for b, (g, size) in enumerate(zip(group, problem.blocks), start=1)
        ],
        _flat(group),
    )


def _find(tokens: list[str], key: str, path: str) -> int:
    for k in range(len(tokens) - 1):
        if tokens[k] == key and tokens[k + 1] == "=":
            return k + 2
    raise InvalidDataError(
        f"{path}: no '{key} =' (an SDPA output file prints xVec, xMat and "
        "yMat unless its parameter file says NOPRINT)."
    )


def _field(text: str, key: str, path: str) -> str:
    m = re.search(rf"^\s*{re.escape(key)}\s*=\s*(\S+)", text, re.MULTILINE)
    if m is None:
        raise InvalidDataError(f"{path}: no '{key} =' line: not an SDPA output file.")
    return m.group(1)


def _digits(tokens) -> int | None:
    """The fewest significant digits printed (``%+.3e`` prints 4; None: 15 or more)."""
    least = None
    for t in tokens:
        m = re.fullmatch(r"[+-]?(\d+)\.?(\d*)[eE][+-]?\d+", t)
        if m:
            d = len(m.group(1)) + len(m.group(2))
            least = d if least is None else min(least, d)
    return None if least is None or least >= 15 else least


def _flat(group) -> list[str]:
    return [t for g in group for t in (_flat(g) if isinstance(g, list) else [g])]


def parse_sdpa_output(text: str, problem: SDPAProblem, path: str = "sdpa.out") -> SDPASolution:
    """SDPA's output file for ``problem``."""
    _price(problem, path, len(text))
    phase = _field(text, "phase.value", path)
    objectives = tuple(
        strict_number(_field(text, k, path), f"{path}, {k}") for k in ("objValPrimal", "objValDual")
    )
    tokens = _TOKEN.findall(text[text.find("xVec") :] if "xVec" in text else "")
    group, _ = _groups(tokens, _find(tokens, "xVec", path), path, "xVec")
    x = _values(group, path, "xVec")
    if x.size != problem.m:
        raise InvalidDataError(
            f"{path}: xVec has {x.size} entries; {problem.name} has m = {problem.m}."
        )
    slack, slack_text = _matrices(tokens, "xMat", problem, path)
    Y, y_text = _matrices(tokens, "yMat", problem, path)
    return SDPASolution(
        x,
        slack,
        Y,
        "sdpa",
        path,
        SDPA_PHASE.get(phase, cp.SOLVER_ERROR),
        f"phase.value = {phase}",
        objectives,
        _digits(group + slack_text + y_text),
    )


def read_sdpa_output(path: str, problem: SDPAProblem) -> SDPASolution:
    """:func:`parse_sdpa_output` of a file."""
    return parse_sdpa_output(_read_text(path), problem, path)


def detect_format(path: str) -> str:
    """'sdpa' when the file has SDPA's ``phase.value`` line, else 'csdp'."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(1 << 16)
    except OSError as exc:
        raise InvalidDataError(f"{path}: cannot be read ({exc.strerror or exc}).") from None
    return "sdpa" if b"phase.value" in head or b"SDPA" in head[:200] else "csdp"


def read_solution(path: str, problem: SDPAProblem, fmt: str | None = None) -> SDPASolution:
    """A solution file of ``problem`` in ``fmt`` ('csdp' or 'sdpa'; None: detected)."""
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise InvalidDataError(
            f"unknown solution format {fmt!r}; choose one of {', '.join(FORMATS)}."
        )
    if not os.path.isfile(path):
        raise InvalidDataError(f"{path}: no such file.")
    return (read_csdp_solution if fmt == "csdp" else read_sdpa_output)(path, problem)
