"""Seed 001's explanation column, the readings behind it, the timing claims and the list of
what is not reproduced (:mod:`.flexible_npkl_admm` runs the units; this module reads them).

Readings (reproductions.readings: each applied to every cell it changes, >= 5 repetitions, with
its moves into and out of the paper's band; a cell cites one only under that rule):
- ``raw``: the same units on raw features (the adopted table standardises, our choice*);
- ``normalised``: kernel k-means on the cosine-normalised kernel, on the same kernels;
- ``other-capacity``: each ADMM row read as the other one (problem (1) ↔ tr K ≤ n), the
  solver bound the paper's problem leaves open.
Odd-even (a substitute, 3 repetitions) takes no reading: its cells read "not explained"
when outside the band.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from .flexible_npkl_published import PAPER_CPU, ROWS, band, paper_cell
from .readings import Alternative, count_in_band, effect_lines, explain_cell, table_effect

#: the data sets readings run on (odd-even: a substitute with 3 repetitions)
READING_SETS = ("glass", "heart", "iris", "sonar", "wine")
OTHER_CAPACITY = {"ADMM (1)": "ADMM B=n", "ADMM B=n": "ADMM (1)"}

#: what seed 001 has and this module does not run, with the reason (issue #31)
NOT_REPRODUCED = (
    (
        "Tables 2-3, BCD rows",
        "the block coordinate descent solver of [6] (BCDNPKL) is not implemented here",
    ),
    (
        "Tables 2-3, S-NPKL with the squared loss (SL)",
        "SimpleNPKL has no squared-loss variant "
        "here (seed 000 defines the linear and squared hinge losses)",
    ),
    (
        "Tables 2-3, SDPLR row",
        "SDPLR is not available; SCS on the HL problem with tr K <= n stands in (row 'SDP')",
    ),
    ("Tables 2-3, Protein column", "UCI Protein (116 × 20) is in no offline source"),
    (
        "Tables 2-3, odd-even column as published",
        "USPS (4,000 × 256) is not offline; scikit-learn's digits (1,797 × 64) stands in",
    ),
    ("Tables 2-3, bold marks (pairwise t-test at 95%)", "no t-test is run; our spread is printed"),
    ("Table 1, Wine's 12 features", "every copy of UCI Wine we know has 13; all 13 are used"),
)


def _cell(runs, field="accuracy") -> dict | None:
    vals = [r[field] for r in runs if r.get(field) is not None]
    if not vals:
        return None
    return {"mean": float(np.mean(vals)), "std": float(np.std(vals)), "reps": len(vals)}


def _table(results, names, field="accuracy") -> dict:
    return {
        (n, *key): c
        for n in names
        for key, runs in results.get(n, {}).items()
        if (c := _cell(runs, field)) is not None
    }


def paper_bands(names) -> dict:
    return {(n, *key): (paper_cell(key, n)[0], band(key, n)) for n in names for key in ROWS}


def alternatives(names, results, raw_results) -> list[Alternative]:
    """The three readings' cells, each with the cells it changes (UCI data sets only)."""
    sets = [n for n in names if n in READING_SETS]
    everything = tuple((n, *key) for n in sets for key in ROWS)
    swapped = {}
    for n in sets:
        for loss, method in results.get(n, {}):
            other = results[n].get((loss, OTHER_CAPACITY.get(method)), [])
            if method in OTHER_CAPACITY and (c := _cell(other)):
                swapped[(n, loss, method)] = c
    admm = tuple(k for k in everything if k[2] in OTHER_CAPACITY)
    return [
        Alternative("raw", _table(raw_results, sets), everything, "raw features"),
        Alternative(
            "normalised",
            _table(results, sets, "accuracy_normalised"),
            everything,
            "cosine-normalised kernel k-means",
        ),
        Alternative("other-capacity", swapped, admm, "problem (1) <-> tr K <= n"),
    ]


def _facts(runs, key) -> str:
    """Measured facts about a cell's kernels (never a cause: see reproductions.readings)."""
    mean = lambda field: float(np.mean([r[field] for r in runs if r.get(field) is not None]))
    facts = (
        f"tr K/n {mean('trace_over_n'):.3g}, rank {mean('rank'):.0f}, training-pair signs "
        f"right {100 * mean('pair_signs'):.0f} %, graph components {mean('components'):.0f}"
    )
    if key[1] == "ADMM (1)":
        counts = sorted(Counter(r["status"] for r in runs).items())
        status = ", ".join(f"{s} {k}" for s, k in counts)
        capped = " (quick: capped iterations)" if any(r.get("max_iter") for r in runs) else ""
        facts += f"; stopped {status}{capped}"
    return facts


def print_readings(names, results, raw_results) -> None:
    """Each reading's table-wide moves, then every cell outside the band with its verdict."""
    table, paper = _table(results, names), paper_bands(names)
    alts = alternatives(names, results, raw_results)
    effects = {a.name: table_effect(a, table, paper) for a in alts}
    inside, run = count_in_band(table, paper)
    print()
    adopted = "standardised features, unnormalised clustering"
    for line in effect_lines(effects, adopted, inside, run):
        print(line)
    print(
        "\nCells further than max(2 std, 3 points) from the paper: verdict "
        "(reproductions.readings), then measured facts"
    )
    outside = 0
    for name in names:
        for key in ROWS:
            cell = table.get((name, *key))
            if cell is None or abs(cell["mean"] - paper[(name, *key)][0]) <= paper[(name, *key)][1]:
                continue
            outside += 1
            verdict, _ = explain_cell((name, *key), table, paper, alts, effects)
            runs = [r for r in results[name][key] if r.get("accuracy") is not None]
            print(
                f"  {name:<9}{key[0]:<4}{key[1]:<9} {cell['mean']:5.1f} vs "
                f"{paper[(name, *key)][0]:5.1f}: {verdict}; {_facts(runs, key)}"
            )
    if not outside:
        print("  none")


def _cpu(results, name, loss, method):
    cpu = [r["cpu_s"] for r in results.get(name, {}).get((loss, method), [])]
    return float(np.mean(cpu)) if cpu else None


def timing_ratios(names, results, slow: str, fast: str, losses) -> dict:
    """(data set, loss) → slow CPU s / fast CPU s, both measured in this run."""
    out = {}
    for n in names:
        for loss in losses:
            a, b = _cpu(results, n, loss, slow), _cpu(results, n, loss, fast)
            if a is not None and b:
                out[(n, loss)] = a / b
    return out


def print_timing(names, results) -> None:
    """§4's claim 'ADMM is more efficient than the other methods' and the abstract's 'one to
    two orders of magnitude faster' than an SDP solver, on times measured side by side."""
    print(
        "\nTiming claims (CPU s measured in this run, same machine, each solver to its own "
        "stopping rule)"
    )
    for slow, paper_slow, losses, claim in (
        ("S-NPKL", "S-NPKL", ("HL", "SHL"), "'ADMM is more efficient than' S-NPKL (§4)"),
        (
            "SDP",
            "SDP",
            ("HL",),
            "'one to two orders of magnitude faster' than SDP (abstract; "
            "SDPLR in the paper, SCS here)",
        ),
    ):
        for admm in ("ADMM (1)", "ADMM B=n"):
            r = timing_ratios(names, results, slow, admm, losses)
            if not r:
                print(f"  {claim}, {admm}: not measured in this run")
                continue
            paper = [
                PAPER_CPU[(loss, paper_slow)][n] / PAPER_CPU[(loss, "ADMM")][n] for n, loss in r
            ]
            least = min(r.values())
            holds = least > 1 if slow == "S-NPKL" else least >= 10
            print(
                f"  {claim}, {admm}: {slow}/ADMM time {np.mean(list(r.values())):.1f}x on "
                f"average, least {least:.2f}x over {len(r)} cells (paper, same cells: "
                f"{np.mean(paper):.1f}x, "
                f"least {min(paper):.1f}x) -> {'holds' if holds else 'does not hold'} here"
            )
