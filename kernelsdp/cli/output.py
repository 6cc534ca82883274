"""What the CLI prints and writes: JSON-safe values, progress lines, report rows, and output
files written atomically (nothing half-written)."""

from __future__ import annotations

import math
import os
import sys
import tempfile

import numpy as np


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
    sys.stderr.write(f"  iter {rec['iteration']:4d}  primal {_num(rec['primal'], '.8g')}  dual "
                     f"{_num(rec['dual'], '.8g')}  rel.gap {_num(rec['relative_gap'], '.2e')}  "
                     + (f"rank {rec['rank']}  " if "rank" in rec else "")
                     + f"{rec['time_s']:.1f}s\n")


class ProgressBar:
    """A tqdm bar on stderr fed by an iterative solver's ``progress`` records (iteration,
    relative gap once certified): what a long solve shows without --verbose.  Off when
    stderr is not a terminal (scripts, CI), unless ``file`` is given."""

    def __init__(self, total: int | None, desc: str, file=None):
        from tqdm import tqdm
        self.bar = tqdm(total=total, desc=desc, unit="it", leave=False, dynamic_ncols=True,
                        file=file or sys.stderr,
                        disable=file is None and not sys.stderr.isatty())

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
        self.bar = tqdm(total=None, desc=desc, bar_format="{desc}: {elapsed} elapsed",
                        leave=False, file=file or sys.stderr,
                        disable=file is None and not sys.stderr.isatty())
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(every,), daemon=True)

    def _run(self, every: float) -> None:
        while not self._stop.wait(every):
            self.bar.refresh()

    def __enter__(self) -> "Ticker":
        if not self.bar.disable:
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        self.bar.close()


def write_npz_atomically(path: str, arrays: dict) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(suffix=".npz", dir=folder)
    os.close(fd)
    try:
        np.savez_compressed(tmp, **arrays)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600: keep the user's umask instead
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def _interval(lower, upper, rigorous: bool) -> str:
    fmt = lambda v: "-" if v is None else f"{v:.10g}"  # noqa: E731
    return f"[{fmt(lower)}, {fmt(upper)}] {'rigorous' if rigorous else 'estimate'}"


def print_check(c) -> None:
    """One solver's row of a report: status, objective, certified interval, verdict."""
    obj = f"{c.objective:.10g}" if c.objective is not None else "-"
    print(f"{c.solver:<14} {c.status:<16} objective {obj:<18} {c.solve_time_s:9.3f}s  "
          f"{c.verdict}  (tol {c.kkt_tol:.0e})")
    print(f"    interval {_interval(c.lower, c.upper, c.rigorous)}"
          + (f"  ({c.note})" if c.note else ""))
    shown = [f"{k} {v:.2e}" for k, v in c.residuals.items() if isinstance(v, float)]
    if shown:
        print("    " + "  ".join(shown))
    worst = sorted(c.per_constraint.items(), key=lambda kv: -kv[1])[:3]
    if worst and worst[0][1] > c.kkt_tol:
        print("    most violated constraints: " + ", ".join(f"{k} {v:.2e}" for k, v in worst))


