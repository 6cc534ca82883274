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

#: record fields shown in the table, after the varying unit keys
COLUMNS = ("status", "verdict", "objective", "relative_gap", "solve_time_s")


def varying_keys(records: list[dict], unit_keys: list[str]) -> list[str]:
    """The unit keys whose value is not the same in every record."""
    return [k for k in unit_keys if len({repr(r.get(k)) for r in records}) > 1]


def _cell(v) -> str:
    if isinstance(v, float):
        return "-" if not math.isfinite(v) else f"{v:.6g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.1e}"
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
            pts = [(r["solve_time_s"], r["relative_gap"]) for r in records
                   if str(r.get("solver")) == name and bool(r.get("passed")) == passed
                   and r.get("solve_time_s") and r.get("relative_gap") is not None]
            if pts:
                x, y = zip(*pts)
                ax.scatter(x, [max(v, 1e-16) for v in y], marker="o", s=30,
                           facecolors=color if passed else "none", edgecolors=color,
                           label=f"{name} ({'certified' if passed else 'not certified'})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("solve time (s)")
    ax.set_ylabel("certified relative gap")
    ax.set_title(title)
    if ax.has_data():
        ax.legend(fontsize=7)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
