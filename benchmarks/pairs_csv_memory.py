"""Peak memory of reading a pairs CSV (issue #29): the streamed reader
(:mod:`kernelsdp.data.pairs_csv`) beside the list-based reader it replaced, side by side in
one run, each in its own child process (its own peak RSS), on one file of valid pairs.

    python benchmarks/pairs_csv_memory.py            # 10^7 lines (about 140 MB)
    python benchmarks/pairs_csv_memory.py --quick    # 10^6 lines

Prints, for each reader, the peak RSS of the child, its time, and the ratio of the peaks;
and for the streamed reader the peak above the interpreter's own against
``PAIR_BYTES`` · m (what the reader refuses beyond ``KERNELSDP_MEMORY_GIB``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

CHILD = r"""
import csv, json, resource, sys, time
import numpy as np
from kernelsdp.data.pairs import PairwiseConstraints
from kernelsdp.data.files import read_pairs_csv
path, n, how = sys.argv[1], int(sys.argv[2]), sys.argv[3]
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
t0 = time.perf_counter()
if how == "streamed":
    p = read_pairs_csv(path, n)
else:  # the reader before issue #29: every row a list of floats, then one array
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    data = np.array([[float(c) for c in r] for r in rows[1:] if r], dtype=float)
    p = PairwiseConstraints.from_arrays(data[:, :2], data[:, 2], n)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"m": p.m, "peak": peak, "base": base, "s": time.perf_counter() - t0}))
"""


def write_pairs(path: str, lines: int, n: int, seed: int = 0) -> None:
    """``lines`` valid pairs over n points (a pair's label is a function of the pair, so a
    repeated pair never contradicts itself)."""
    rng = np.random.default_rng(seed)
    with open(path, "w") as fh:
        fh.write("i,j,label\n")
        for start in range(0, lines, 10**6):
            k = min(10**6, lines - start)
            i = rng.integers(0, n, k)
            j = (i + rng.integers(1, n, k)) % n
            t = np.where((i + j) % 2 == 0, 1, -1)
            np.savetxt(fh, np.column_stack([i, j, t]), fmt="%d", delimiter=",")


def measure(path: str, n: int, how: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, path, str(n), how], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10^6 lines instead of 10^7")
    args = ap.parse_args()
    from kernelsdp.data.pairs import PAIR_BYTES

    lines, n = (10**6 if args.quick else 10**7), 100_000
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "pairs.csv")
        write_pairs(path, lines, n)
        size = os.path.getsize(path)
        new, old = measure(path, n, "streamed"), measure(path, n, "list-based")
    gib = 2**30
    print(f"{lines:,} lines ({size / 1e6:.0f} MB) over n = {n:,}: {new['m']:,} distinct pairs")
    for name, r in (("streamed", new), ("list-based", old)):
        above = (r["peak"] - r["base"]) / gib
        print(
            f"  {name:<11} peak RSS {r['peak'] / gib:6.2f} GiB  ({above:5.2f} above the "
            f"interpreter)  {r['s']:6.1f} s"
        )
    print(f"  peak ratio list-based / streamed: {old['peak'] / new['peak']:.1f}")
    print(
        f"  streamed above the interpreter: {(new['peak'] - new['base']) / lines:.0f} B a line; "
        f"the reader's estimate: PAIR_BYTES = {PAIR_BYTES} B a line"
    )


if __name__ == "__main__":
    main()
