"""Memory refused before it is allocated (issue #29): what a file *declares* — an array's
header, a sparse matrix's shape, a pairs CSV's lines — is priced and refused under
``KERNELSDP_MEMORY_GIB`` before anything is read.  The refusals run in a child process
under an address-space limit (RLIMIT_AS), whose peak RSS it reports itself (VmHWM); the
streamed pairs reader's own peak is measured with tracemalloc."""

from __future__ import annotations

import io
import json
import os
import resource
import subprocess
import sys
import tracemalloc
import zipfile

import numpy as np
import pytest

from kernelsdp.data.files import read_pairs_csv
from kernelsdp.data.pairs import PAIR_BYTES
from kernelsdp.data.pairs_csv import CHUNK_BYTES
from kernelsdp.errors import TooLargeError

GIB = 2**30
#: the child's address space: far below what any refused file declares
CHILD_AS_LIMIT = 2 * GIB

CHILD = r"""
import json, os, sys
from kernelsdp.data.files import load_npz, read_laplacian_npz, read_pairs_csv
out = []
for kind, path, gib in json.loads(sys.argv[1]):
    os.environ["KERNELSDP_MEMORY_GIB"] = str(gib)
    try:
        if kind == "laplacian":
            read_laplacian_npz(path)
        elif kind == "npz":
            z = load_npz(path)
            [z[k] for k in z]
        else:
            read_pairs_csv(path, 100_000)
        out.append([path, "read", ""])
    except BaseException as exc:
        out.append([path, type(exc).__name__, str(exc)])
# this program's own peak (VmHWM: reset at exec), not the pytest parent's pages that a
# forked child shares before exec and that getrusage's ru_maxrss keeps counting
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM"))
print(json.dumps([out, hwm * 1024]))
"""


def _in_child(cases: list[tuple[str, str, float]]) -> tuple[list, float]:
    """Run the readers on ``cases`` (reader, path, KERNELSDP_MEMORY_GIB) in a child under
    RLIMIT_AS; (answers, the child's peak RSS in GiB)."""

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (CHILD_AS_LIMIT, CHILD_AS_LIMIT))

    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, json.dumps(cases)],
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        preexec_fn=limit,
    )
    text = child.stdout.read()
    child.stdout.close()
    _, status, _ = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.returncode == 0, text
    answers, peak_bytes = json.loads(text.strip().splitlines()[-1])
    return answers, peak_bytes / GIB


def _header_only(path, key: str, shape, descr="<f8") -> None:
    """An archive whose member declares ``shape`` but stores 64 bytes."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": descr, "fortran_order": False, "shape": tuple(shape)}
    )
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(key + ".npy", b"\x93NUMPY\x01\x00" + header.getvalue()[8:] + b"\0" * 64)


def _pairs_csv(path, lines: int, n: int = 100_000) -> None:
    rng = np.random.default_rng(0)
    i = rng.integers(0, n, lines)
    j = (i + rng.integers(1, n, lines)) % n
    rows = np.column_stack([i, j, np.where((i + j) % 2 == 0, 1, -1)])
    np.savetxt(path, rows, fmt="%d", delimiter=",", header="i,j,label", comments="")


def test_declared_sizes_are_refused_before_allocation_in_a_child(tmp_path):
    """The issue's cases: a 1.2 KB COO declaring 4e9 × 4e9 and 1e9 × 1e9 (limit 4 GiB),
    a dense array declaring 3 GiB under a 2 GiB limit, a pairs CSV whose lines would cost
    more than the limit: each a TooLargeError naming the size and the limit, and the
    child's peak RSS stays that of the interpreter."""
    cases = []
    for n in (4_000_000_000, 1_000_000_000):
        path = str(tmp_path / f"coo{n}.npz")
        np.savez(
            path,
            data=np.ones(3),
            row=np.arange(3),
            col=np.arange(3),
            format=np.array("coo"),
            shape=np.array([n, n]),
        )
        cases.append(("laplacian", path, 4))
    dense = str(tmp_path / "dense.npz")
    _header_only(dense, "L", (20_000, 20_000))  # 2.98 GiB of float64
    cases.append(("npz", dense, 2))
    pairs = str(tmp_path / "pairs.csv")
    _pairs_csv(pairs, 200_000)  # about 18 MiB at PAIR_BYTES a line
    cases.append(("pairs", pairs, 0.01))
    answers, peak = _in_child(cases)
    for path, kind, message in answers:
        assert kind == "TooLargeError", (path, kind, message)
        assert "GiB; the limit is" in message and "\n" not in message
    assert "149.0 GiB" in answers[0][2] and "37.3 GiB" in answers[1][2]
    assert "3.0 GiB" in answers[2][2] or "2.98" in answers[2][2]
    assert peak < 0.5, peak  # nothing declared was allocated


def test_the_pairs_reader_streams_in_bounded_memory(tmp_path):
    """Read in chunks into typed columns: the peak is PAIR_BYTES a line plus a few chunks,
    where the list-based reader it replaced held about 450 bytes a line."""
    lines = 200_000
    path = tmp_path / "pairs.csv"
    _pairs_csv(path, lines)
    read_pairs_csv(str(path), 100_000)  # imports and caches outside the measurement
    tracemalloc.start()
    try:
        pairs = read_pairs_csv(str(path), 100_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert pairs.m > 0.99 * lines
    assert peak <= PAIR_BYTES * lines + 8 * CHUNK_BYTES, peak / lines


def test_a_refused_pairs_csv_allocates_nothing(tmp_path, monkeypatch):
    path = tmp_path / "pairs.csv"
    _pairs_csv(path, 50_000)
    monkeypatch.setenv("KERNELSDP_MEMORY_GIB", "0.001")  # 1 MiB: 50,000 pairs need 4.6
    tracemalloc.start()
    try:
        with pytest.raises(
            TooLargeError,
            match=r"50,000 lines of pairs would need about .* "
            r"GiB; the limit is",
        ):
            read_pairs_csv(str(path), 100_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * CHUNK_BYTES  # the line count's buffer only
