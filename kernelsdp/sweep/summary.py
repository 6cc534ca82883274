"""The end of a sweep: a table of its units, the CSV/JSON export and one plot.

The table has one row per unit: the grid keys that vary across the study, then the
answer's status, certificate verdict, objective, certified relative gap (the interval's
width) and solve time.  The plot puts each unit at (solve time, certified relative gap),
one marker per solver, filled when the certificate passed and hollow when it did not, so
a fast answer that is not certified cannot pass for a good one.
"""

from __future__ import annotations

import math
import os

from ..atomic import write_atomically
from ..errors import InvalidDataError, InvalidParameterError
from ..runs.store import export_paths

#: record fields shown in the table, after the varying unit keys
COLUMNS = ("status", "verdict", "objective", "relative_gap", "solve_time_s")


def varying_keys(records: list[dict], unit_keys: list[str]) -> list[str]:
    """The unit keys whose value is not the same in every record."""
    return [k for k in unit_keys if len({repr(r.get(k)) for r in records}) > 1]


def _cell(v) -> str:
    if isinstance(v, float):
        return (
            "-" if not math.isfinite(v) else f"{v:.6g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.1e}"
        )
    return "-" if v is None else str(v)


def table(records: list[dict], unit_keys: list[str]) -> str:
    """The summary table as text (the constant unit keys on one line above it)."""
    keys = varying_keys(records, unit_keys) or ["solver"]
    fixed = [k for k in unit_keys if k not in keys]
    cols = keys + list(COLUMNS)
    rows = [[_cell(r.get(c)) for c in cols] for r in records]
    widths = [max(len(c), *(len(row[i]) for row in rows)) for i, c in enumerate(cols)]
    lines = []
    if fixed and records:
        lines.append("; ".join(f"{k} = {_cell(records[0].get(k))}" for k in fixed))
    lines.append("  ".join(c.ljust(w) for c, w in zip(cols, widths)))
    lines += ["  ".join(x.ljust(w) for x, w in zip(row, widths)) for row in rows]
    passed = sum(bool(r.get("passed")) for r in records)
    lines.append(f"{passed} of {len(records)} answers certified")
    return "\n".join(lines)


def plot(records: list[dict], path: str, title: str) -> str:
    """Solve time against certified relative gap, one series per solver; returns ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    solvers = sorted({str(r.get("solver")) for r in records})
    for k, name in enumerate(solvers):
        color = f"C{k % 10}"
        for passed in (True, False):
            pts = [
                (r["solve_time_s"], r["relative_gap"])
                for r in records
                if str(r.get("solver")) == name
                and bool(r.get("passed")) == passed
                and r.get("solve_time_s")
                and r.get("relative_gap") is not None
            ]
            if pts:
                x, y = zip(*pts)
                ax.scatter(
                    x,
                    [max(v, 1e-16) for v in y],
                    marker="o",
                    s=30,
                    facecolors=color if passed else "none",
                    edgecolors=color,
                    label=f"{name} ({'certified' if passed else 'not certified'})",
                )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("solve time (s)")
    ax.set_ylabel("certified relative gap")
    ax.set_title(title)
    if ax.has_data():
        ax.legend(fontsize=7)
    fig.tight_layout()
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        write_atomically(path, lambda tmp: fig.savefig(tmp, dpi=120, format="png"), suffix=".png")
    except OSError as exc:
        raise InvalidDataError(
            f"cannot write {path}: {exc.strerror or exc}; nothing was written."
        ) from None
    finally:
        plt.close(fig)
    return path


def output_paths(study: str, out: str) -> list[str]:
    """The files a sweep writes under ``out``: ``STUDY.csv``, ``.json`` and ``.png``."""
    return export_paths(study, out, ("csv", "json", "png"))


def check_out(study: str, out: str) -> None:
    """Refuse, before any unit runs, an ``out`` that cannot hold the sweep's files: a file
    (or a file above it), a folder that is not writable, or a folder where a file goes."""
    folder = os.path.abspath(out)
    parent = folder
    while not os.path.isdir(parent):
        if os.path.lexists(parent):
            where = f"the sweep's out {out}" + ("" if parent == folder else f": {parent}")
            raise InvalidParameterError(
                f"{where} is a file, not a folder; name a folder in "
                "the spec's out. Nothing was run."
            )
        parent = os.path.dirname(parent)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InvalidParameterError(
            f"the sweep's out {out}: the folder {parent} is not writable. Nothing was run."
        )
    for path in output_paths(study, out):
        if os.path.isdir(path):
            raise InvalidParameterError(
                f"the sweep writes {path}, which is a folder. Nothing was run."
            )
