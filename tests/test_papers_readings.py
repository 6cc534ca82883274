"""The explanation rule of issue #31 on a small stored table (numbers, not a live run):
a cell cites only a reading applied to the whole table with >= MIN_REPS repetitions, the
move must beat the noise, and moves in / out of the band are counted table-wide."""

import pytest

from kernelsdp.reproductions import readings as rd


def _c(mean, std=0.5, reps=5):
    return {"mean": mean, "std": std, "reps": reps}


#: paper (mean, band) of four cells: two data sets × two methods
PAPER = {
    ("a", "LL"): (80.0, 3.0),
    ("a", "SHL"): (60.0, 3.0),
    ("b", "LL"): (90.0, 3.0),
    ("b", "SHL"): (70.0, 4.0),
}
#: the adopted reading's table: ("a", "LL") and ("a", "SHL") outside the band
ADOPTED = {
    ("a", "LL"): _c(90.0),
    ("a", "SHL"): _c(75.0),
    ("b", "LL"): _c(91.0),
    ("b", "SHL"): _c(69.0),
}
ALL = tuple(PAPER)


def _alternatives():
    return [
        # run on every cell, 5 repetitions: moves ("a", "LL") in, none out
        rd.Alternative(
            "wide",
            {
                ("a", "LL"): _c(81.0),
                ("a", "SHL"): _c(74.0),
                ("b", "LL"): _c(90.5),
                ("b", "SHL"): _c(70.0),
            },
            ALL,
        ),
        # every cell, 5 repetitions, lands ("a", "LL") in the band but moves two cells out
        rd.Alternative(
            "net-loss",
            {
                ("a", "LL"): _c(80.5),
                ("a", "SHL"): _c(75.0),
                ("b", "LL"): _c(80.0),
                ("b", "SHL"): _c(60.0),
            },
            ALL,
        ),
        # lands ("a", "SHL") in the band but ran on that cell only: never a cause
        rd.Alternative("one-cell", {("a", "SHL"): _c(60.0)}, ALL),
        # every cell, but two repetitions: never a cause
        rd.Alternative("two-reps", {k: _c(PAPER[k][0], reps=2) for k in ALL}, ALL),
        # in the band on ("a", "SHL") by a move inside the noise (std 14 over 5 reps)
        rd.Alternative(
            "noisy",
            {("a", "SHL"): _c(62.9, std=14.0), ("b", "SHL"): _c(69.0)},
            (("a", "SHL"), ("b", "SHL")),
        ),
        # changes only the LL column, run on all of it: qualified
        rd.Alternative(
            "ll-only", {("a", "LL"): _c(78.0), ("b", "LL"): _c(91.5)}, (("a", "LL"), ("b", "LL"))
        ),
    ]


def _effects(alts):
    return {a.name: rd.table_effect(a, ADOPTED, PAPER) for a in alts}


def test_moves_in_and_out_are_counted_over_the_whole_table():
    eff = _effects(_alternatives())
    w = eff["wide"]
    assert w.qualified and w.changed == 4 and w.run == 4
    assert w.moves_in == (("a", "LL"),) and w.moves_out == ()
    assert (w.in_band_adopted, w.in_band_reading) == (2, 3)
    loss = eff["net-loss"]
    assert loss.qualified and len(loss.moves_in) == 1 and len(loss.moves_out) == 2
    assert not eff["one-cell"].qualified and "not run on 3 of the 4" in eff["one-cell"].why_not
    assert not eff["two-reps"].qualified and "fewer than 5 repetitions" in eff["two-reps"].why_not
    assert eff["ll-only"].qualified and eff["ll-only"].changed == 2
    assert rd.count_in_band(ADOPTED, PAPER) == (2, 4)


def test_no_cell_cites_a_reading_that_is_not_table_wide():
    alts = _alternatives()
    eff = _effects(alts)
    qualified = {n for n, e in eff.items() if e.qualified}
    for key in PAPER:
        text, cited = rd.explain_cell(key, ADOPTED, PAPER, alts, eff)
        assert set(cited) <= qualified
        for name in eff:  # the text names no reading it did not cite
            assert (repr(name) in text) == (name in cited)


def test_verdicts_on_the_stored_table():
    alts = _alternatives()
    eff = _effects(alts)
    text, cited = rd.explain_cell(("a", "LL"), ADOPTED, PAPER, alts, eff)
    assert cited == ["wide", "ll-only"]
    assert "table-wide +1 in / -0 out" in text  # net-loss lands it too, but loses the table
    # only partial, two-repetition or noisy readings land this cell in the band
    assert rd.explain_cell(("a", "SHL"), ADOPTED, PAPER, alts, eff) == ("not explained", [])
    assert rd.explain_cell(("b", "SHL"), ADOPTED, PAPER, alts, eff) == ("within", [])
    assert rd.explain_cell(("c", "LL"), ADOPTED, {**PAPER, ("c", "LL"): (1.0, 3.0)}, alts, eff) == (
        "not run",
        [],
    )


@pytest.mark.parametrize("std,expected", [(0.0, True), (8.0, False)])
def test_a_move_must_beat_the_noise(std, expected):
    assert rd.beyond_noise(_c(75.0, std, 5), _c(68.0, std, 5)) is expected


def test_not_reproduced_lines_give_each_item_a_reason():
    lines = rd.not_reproduced_lines([("Table 4, a2a-a5a", "not available offline")])
    assert lines[0].startswith("Not reproduced (1 items)")
    assert lines[1] == "  - Table 4, a2a-a5a: not available offline"
