"""Pre-registered readings: the only causes a reproduction's explanation column may cite
(issue #31).

A *reading* is one named change of protocol where the paper is silent or ambiguous: a
feature scaling, a pair protocol, a value of C, a solver bound, a row assignment.  A table
is run under one *adopted* reading.  Every other reading is run over every cell it changes,
with at least :data:`MIN_REPS` repetitions, and reported as a *table-wide alternative*: how
many cells it moves into the paper's band and how many it moves out.

The rule, fixed before any run (``explain_cell``): a cell inside the band reads "within";
a cell outside may cite an alternative only when

1. the alternative *qualified*: it ran on every cell it changes, each with at least
   ``MIN_REPS`` repetitions (a reading tried on a few cells, or on two repetitions, is
   never a cause);
2. table-wide, it moves more cells into the band than out of it (a reading that loses
   more cells than it wins is, by the table's own evidence, not the paper's protocol);
3. under it the cell lies inside the band; and
4. the move is larger than the repetitions' noise: ``|Δ| > NOISE_SE · SE(Δ)``, with
   ``SE(Δ) = √(s₁²/n₁ + s₂²/n₂)``.

Otherwise the cell reads "not explained".  Measured facts (a kernel's rank, a solver's
status, a substitute data set) may follow a verdict, but they are facts, not causes.

A cell is a dict with ``mean``, ``std`` and ``reps``; tables map a key (any hashable, e.g.
``(data set, method)``) to a cell; ``paper`` maps a key to ``(mean, band)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

#: repetitions a reading needs on every cell before any cell may cite it (issue #31)
MIN_REPS = 5
#: a move counts only beyond this many standard errors of the difference of two means
NOISE_SE = 2.0


def in_band(mean: float | None, paper: tuple[float, float]) -> bool:
    """|ours − paper| ≤ band (the band is the module's: max(2·std, 3 points) in both papers)."""
    return mean is not None and abs(mean - paper[0]) <= paper[1]


@dataclass(frozen=True)
class Alternative:
    """One reading's cells, and the keys of the adopted table it changes.  Keys it does not
    change keep the adopted value by construction (the same computation), so they are not
    re-run and cannot move."""

    name: str
    cells: dict
    changes: tuple
    note: str = ""


@dataclass(frozen=True)
class Effect:
    """A reading applied to the whole table: moves into and out of the paper's band."""

    name: str
    changed: int  # cells of the adopted table this reading changes
    run: int  # of those, run under the reading with >= MIN_REPS repetitions
    qualified: bool
    in_band_adopted: int  # over the changed cells
    in_band_reading: int
    moves_in: tuple = field(default_factory=tuple)
    moves_out: tuple = field(default_factory=tuple)
    why_not: str = ""


def _ran(cell: dict | None) -> bool:
    return cell is not None and cell.get("mean") is not None


def table_effect(alt: Alternative, adopted: dict, paper: dict) -> Effect:
    """Count ``alt``'s moves over every adopted cell it changes (cells the adopted run has)."""
    keys = [k for k in alt.changes if _ran(adopted.get(k)) and k in paper]
    full = [k for k in keys if _ran(alt.cells.get(k)) and alt.cells[k].get("reps", 0) >= MIN_REPS]
    missing = [k for k in keys if not _ran(alt.cells.get(k))]
    few = [k for k in keys if _ran(alt.cells.get(k)) and alt.cells[k].get("reps", 0) < MIN_REPS]
    why = []
    if not keys:
        why.append("changes no cell of this table")
    if missing:
        why.append(f"not run on {len(missing)} of the {len(keys)} cells it changes")
    if few:
        least = min(alt.cells[k]["reps"] for k in few)
        why.append(f"{len(few)} cells with fewer than {MIN_REPS} repetitions (least {least})")
    both = [k for k in keys if _ran(alt.cells.get(k))]
    before = {k for k in both if in_band(adopted[k]["mean"], paper[k])}
    after = {k for k in both if in_band(alt.cells[k]["mean"], paper[k])}
    return Effect(
        alt.name,
        len(keys),
        len(full),
        bool(keys) and not why,
        len(before),
        len(after),
        tuple(k for k in both if k in after - before),
        tuple(k for k in both if k in before - after),
        "; ".join(why),
    )


def beyond_noise(a: dict, b: dict) -> bool:
    """|mean_a − mean_b| > NOISE_SE standard errors of the difference."""
    se = math.sqrt(
        a.get("std", 0.0) ** 2 / max(a.get("reps", 1), 1)
        + b.get("std", 0.0) ** 2 / max(b.get("reps", 1), 1)
    )
    return abs(a["mean"] - b["mean"]) > NOISE_SE * se


def explain_cell(
    key, adopted: dict, paper: dict, alternatives, effects: dict
) -> tuple[str, list[str]]:
    """(verdict, readings cited) for one cell under the rule of the module docstring."""
    cell = adopted.get(key)
    if not _ran(cell):
        return "not run", []
    if in_band(cell["mean"], paper[key]):
        return "within", []
    cited, parts = [], []
    for alt in alternatives:
        eff = effects[alt.name]
        other = alt.cells.get(key)
        if not (eff.qualified and key in alt.changes and _ran(other)):
            continue
        if len(eff.moves_in) <= len(eff.moves_out):
            continue
        if in_band(other["mean"], paper[key]) and beyond_noise(cell, other):
            cited.append(alt.name)
            parts.append(
                f"in band under table-wide reading {alt.name!r}: {other['mean']:.1f} ± "
                f"{other['std']:.1f} ({other['reps']} reps; table-wide "
                f"+{len(eff.moves_in)} in / -{len(eff.moves_out)} out)"
            )
    if not parts:
        return "not explained", []
    return "; ".join(parts), cited


def count_in_band(table: dict, paper: dict) -> tuple[int, int]:
    """(cells inside the band, cells run) over the keys of ``paper``."""
    run = [k for k in paper if _ran(table.get(k))]
    return sum(in_band(table[k]["mean"], paper[k]) for k in run), len(run)


def effect_lines(effects: dict, adopted_name: str, adopted_in: int, adopted_run: int) -> list[str]:
    """One line per reading: in band before (adopted) and after, moves in and out."""
    lines = [
        f"Readings applied to the whole table (adopted: {adopted_name!r}, {adopted_in} of "
        f"{adopted_run} cells in band); a cell may cite only a qualified reading "
        f"(every changed cell run, >= {MIN_REPS} repetitions) that moves more cells in "
        "than out"
    ]
    for e in effects.values():
        status = "qualified" if e.qualified else f"not qualified: {e.why_not}"
        lines.append(
            f"  {e.name:<16} changes {e.changed:>3} cells; in band "
            f"{e.in_band_adopted:>3} -> {e.in_band_reading:>3}; moves in "
            f"{len(e.moves_in):>3}, out {len(e.moves_out):>3}"
            f"  ({status})"
        )
    return lines


def not_reproduced_lines(items) -> list[str]:
    """The closing list every reproduction prints: (item, reason) pairs."""
    items = list(items)
    lines = [
        f"Not reproduced ({len(items)} items): what the paper has and this module does not run"
    ]
    lines += [f"  - {what}: {why}" for what, why in items]
    return lines
