"""A pairs CSV (``kernelsdp solve npkl --pairs``), read in bounded memory (issue #29).

The file is UTF-8 text: the header ``i,j,label``, then one pair a line, ``i`` and ``j``
decimal integers (``[+-]?[0-9]+``: no ``1_000``, ``1e3`` or ``1.0``) and the label a
decimal number equal to +1 or -1; empty lines are skipped.  The rows are counted first
(one pass over the bytes) and what they will cost — :data:`~.pairs.PAIR_BYTES` a pair,
validation included — is refused before anything is allocated when it exceeds the
memory limit (``KERNELSDP_MEMORY_GIB``, :func:`kernelsdp.limits.check_memory`); then the
file is parsed in chunks of :data:`CHUNK_BYTES` by NumPy's C reader straight into typed
columns.  A 10⁷-line file peaks near 1 GiB (``benchmarks/pairs_csv_memory.py``).  Every
malformed line is one error naming the file and the line.
"""

from __future__ import annotations

import io
import os
import re
import warnings

import numpy as np

from ..errors import InvalidDataError
from ..limits import check_memory
from .pairs import PAIR_BYTES, PairwiseConstraints

#: bytes parsed at a time (a line longer than this is refused)
CHUNK_BYTES = 4 * 2**20
HEADER = ["i", "j", "label"]
_COLUMNS = np.dtype([("i", np.int64), ("j", np.int64), ("t", np.float64)])
_INT = re.compile(r"[+-]?[0-9]+\Z")
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")


def read_pairs_csv(path: str, n: int) -> PairwiseConstraints:
    """Pairs from a UTF-8 CSV with the header ``i,j,label`` (label ±1) over n points."""
    if os.path.isdir(path):
        raise InvalidDataError(f"{path}: is a folder, not a CSV file.")
    with open(path, "rb") as fh:
        rows = _count_lines(fh) - 1
        check_memory(
            max(rows, 0) * PAIR_BYTES,
            f"{path}: reading its {rows:,} lines of pairs",
            "split the pairs or raise the limit",
        )
        fh.seek(0)
        _check_header(fh.readline(CHUNK_BYTES), path)
        i, j, t = (np.empty(max(rows, 0), dtype=_COLUMNS[k]) for k in ("i", "j", "t"))
        filled, line, offset = 0, 2, fh.tell()
        for chunk in _chunks(fh, path, line):
            text = _decode(chunk, path, offset)
            block = _parse(text, path, line, n)
            k = block.size
            i[filled : filled + k], j[filled : filled + k], t[filled : filled + k] = (
                block["i"],
                block["j"],
                block["t"],
            )
            filled += k
            line += text.count("\n")
            offset += len(chunk)
    if filled == 0:
        raise InvalidDataError(
            f"{path}: expected rows 'i,j,label' with three numbers each "
            "after the header; found none."
        )
    return PairwiseConstraints.from_columns(i[:filled], j[:filled], t[:filled], n)


def _count_lines(fh) -> int:
    """Lines of the file (a last line without its newline counts)."""
    count, last = 0, b"\n"
    while block := fh.read(CHUNK_BYTES):
        count += block.count(b"\n")
        last = block[-1:]
    return count + (last != b"\n")


def _check_header(raw: bytes, path: str) -> None:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidDataError(
            f"{path}: not UTF-8 text (byte {exc.start}); save the CSV as UTF-8."
        ) from None
    cells = [c.strip().strip('"').lower() for c in text.rstrip("\r\n").split(",")]
    if cells != HEADER:
        raise InvalidDataError(f"{path}: the first line must be the header 'i,j,label'.")


def _chunks(fh, path: str, line: int):
    """The rest of the file in pieces of about CHUNK_BYTES, each ending with a whole line."""
    rest = b""
    while block := fh.read(CHUNK_BYTES):
        block = rest + block
        cut = block.rfind(b"\n") + 1
        if cut == 0 and len(block) > CHUNK_BYTES:
            raise InvalidDataError(
                f"{path}: a line after line {line} is longer than "
                f"{CHUNK_BYTES // 2**20} MiB; not a pairs CSV."
            )
        if cut:
            yield block[:cut]
        rest = block[cut:]
        line += block.count(b"\n", 0, cut)
    if rest:
        yield rest


def _decode(chunk: bytes, path: str, offset: int) -> str:
    try:
        return chunk.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidDataError(
            f"{path}: not UTF-8 text (byte {offset + exc.start}); save the CSV as UTF-8."
        ) from None


def _parse(text: str, path: str, line: int, n: int) -> np.ndarray:
    """The rows of ``text`` (lines from ``line`` on) as typed columns, or the first bad line."""
    if not text.strip("\r\n"):
        return np.empty(0, dtype=_COLUMNS)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "input contained no data" on empty lines
            return np.loadtxt(
                io.StringIO(text), delimiter=",", dtype=_COLUMNS, ndmin=1, comments=None
            )
    except ValueError as exc:
        raise _bad_line(text, path, line, n) or InvalidDataError(
            f"{path}: not a pairs CSV after line {line - 1} ({exc})."
        ) from None


def _bad_line(text: str, path: str, line: int, n: int) -> InvalidDataError | None:
    """The error for the first line of ``text`` that is not ``i,j,label`` (None: none)."""
    for k, row in enumerate(text.split("\n")):
        row = row.rstrip("\r")
        if not row:
            continue
        where = f"{path}, line {line + k}"
        cells = [c.strip() for c in row.split(",")]
        if len(cells) != 3:
            return InvalidDataError(
                f"{where}: every row must hold three numbers 'i,j,label'; "
                f"got {len(cells)} field(s) in {row[:60]!r}."
            )
        for c in cells[:2]:
            if _INT.match(c) and abs(int(c)) >= 2**63:
                return InvalidDataError(
                    f"{where}: pair index {c} is out of range: there are "
                    f"only n = {n} points (indices 0..{n - 1})."
                )
            if not _INT.match(c):
                what = (
                    "pair indices must be integers"
                    if _DECIMAL.match(c)
                    else "every row must hold three numbers 'i,j,label'"
                )
                return InvalidDataError(f"{where}: {what}; got {c[:40]!r}.")
        if not _DECIMAL.match(cells[2]):
            return InvalidDataError(
                f"{where}: every row must hold three numbers 'i,j,label'; "
                f"the label {cells[2][:40]!r} is not a number."
            )
    return None
