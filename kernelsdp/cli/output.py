"""What the CLI prints and writes: JSON-safe values, progress lines, report rows, and output
files written atomically (nothing half-written)."""

from __future__ import annotations

import math
import os
import sys

import numpy as np

from ..atomic import remove_orphans, write_atomically
from ..errors import KernelSDPError


def clean(x):
    """JSON-safe: inf/nan as None, numpy scalars as Python numbers."""
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [clean(v) for v in x]
    if isinstance(x, (np.floating, float)):
        return float(x) if math.isfinite(x) else None
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


def _num(v, fmt: str) -> str:
    """v formatted, or '-' before an iterative solver has a value (its first certificate)."""
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, fmt)


def progress(rec: dict) -> None:
    sys.stderr.write(
        f"  iter {rec['iteration']:4d}  primal {_num(rec.get('primal'), '.8g')}  dual "
        f"{_num(rec.get('dual'), '.8g')}  rel.gap {_num(rec.get('relative_gap'), '.2e')}  "
        + (f"rank {rec['rank']}  " if "rank" in rec else "")
        + f"{rec.get('time_s', 0.0):.1f}s\n"
    )


class ProgressBar:
    """A tqdm bar on stderr fed by an iterative solver's ``progress`` records (iteration,
    relative gap once certified): what a long solve shows without --verbose.  Off when
    stderr is not a terminal (scripts, CI), unless ``file`` is given."""

    def __init__(self, total: int | None, desc: str, file=None):
        from tqdm import tqdm

        self.bar = tqdm(
            total=total,
            desc=desc,
            unit="it",
            leave=False,
            dynamic_ncols=True,
            file=file or sys.stderr,
            disable=file is None and not sys.stderr.isatty(),
        )

    def __call__(self, rec: dict) -> None:
        self.bar.update(max(0, rec["iteration"] - self.bar.n))
        gap = rec.get("relative_gap")
        if gap is not None and not (isinstance(gap, float) and math.isnan(gap)):
            self.bar.set_postfix_str(f"gap {gap:.1e}")

    def close(self) -> None:
        self.bar.close()


class Ticker:
    """For a solver without progress records (a generic conic solve): an elapsed-time line on
    a terminal, refreshed by a background thread until the solve returns."""

    def __init__(self, desc: str, file=None, every: float = 0.5):
        import threading

        from tqdm import tqdm

        self.bar = tqdm(
            total=None,
            desc=desc,
            bar_format="{desc}: {elapsed} elapsed",
            leave=False,
            file=file or sys.stderr,
            disable=file is None and not sys.stderr.isatty(),
        )
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(every,), daemon=True)

    def _run(self, every: float) -> None:
        while not self._stop.wait(every):
            self.bar.refresh()

    def __enter__(self) -> Ticker:
        if not self.bar.disable:
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        self.bar.close()


def check_out_path(path: str | None, inputs: list[str | None], force: bool) -> None:
    """Refuse, before any work, an output file that could not or should not be written: an
    empty name, one that is not ``.npz``, a missing folder or a file in its place, one of
    this run's inputs, or an existing file without ``--force``."""
    if path is None:
        return
    if not path.strip():
        raise KernelSDPError("--out needs a file name (FILE.npz).")
    if not path.endswith(".npz"):
        raise KernelSDPError(f"--out {path}: the output is a .npz archive; name it FILE.npz.")
    folder = os.path.dirname(os.path.abspath(path))
    parent = folder
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise KernelSDPError(f"--out {path}: {parent} is a file, not a folder.")
    if parent != folder:
        raise KernelSDPError(f"--out {path}: no such folder {folder}; create it first.")
    if not os.access(folder, os.W_OK):
        raise KernelSDPError(f"--out {path}: the folder {folder} is not writable.")
    for given in inputs:
        if (
            given
            and os.path.exists(given)
            and os.path.exists(path)
            and os.path.samefile(given, path)
        ):
            raise KernelSDPError(
                f"--out {path} is an input of this run ({given}); choose another file."
            )
    if os.path.isdir(path):
        raise KernelSDPError(f"--out {path} is a folder.")
    if os.path.exists(path) and not force:
        raise KernelSDPError(f"--out {path} exists; pass --force to replace it.")
    remove_orphans(folder)  # what a run killed while writing there left (issue #29)


def write_npz_atomically(path: str, arrays: dict) -> None:
    """Write the arrays whole or not at all (:mod:`kernelsdp.atomic`), with the user's umask;
    a failure (full disk, read-only file system) names ``path``."""
    try:
        write_atomically(path, lambda tmp: np.savez_compressed(tmp, **arrays), suffix=".npz")
    except OSError as exc:
        raise KernelSDPError(
            f"cannot write {path}: {exc.strerror or exc}; nothing was written."
        ) from None
