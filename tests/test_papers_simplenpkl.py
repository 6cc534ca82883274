"""Seed 000's reproduction: the protocol pieces, the computed explanation column, and a
reduced quick run through the results store (kernelsdp/reproductions/simplenpkl_*.py)."""

import numpy as np
import pytest
from networkx.utils import UnionFind

from kernelsdp.data import load
from kernelsdp.evaluation import kernel_kmeans, pairwise_cluster_accuracy
from kernelsdp.reproductions import simplenpkl_explain as ex
from kernelsdp.reproductions import simplenpkl_icml2009 as sn
from kernelsdp.result import KernelFactor
from kernelsdp.runs import ResultsStore


def test_pair_count_is_the_papers_own_count_per_point():
    ratios = [m / n for n, m in sn.PAPER_PAIR_COUNTS.values()]
    assert min(ratios) >= 2.4 and max(ratios) <= 2.61
    assert pytest.approx(np.mean(ratios)) == sn.PAIRS_PER_POINT
    _, y = load("heart")
    P = sn.draw_pairs(y, sn.Protocol(), seed=0)
    assert P.m == round(sn.PAIRS_PER_POINT * len(y))
    assert np.array_equal(P.t, np.where(y[P.i] == y[P.j], 1.0, -1.0))


def test_xing_reading_stops_at_seventy_percent_components_with_far_fewer_pairs():
    _, y = load("heart")
    P = sn.draw_pairs(y, sn.READINGS["xing-0.7"], seed=0)
    uf = UnionFind(range(len(y)))
    for a, b in zip(P.i[P.t > 0], P.j[P.t > 0]):
        uf.union(int(a), int(b))
    assert len(list(uf.to_sets())) <= np.ceil(0.7 * len(y))
    assert P.m < sn.PAIRS_PER_POINT * len(y) / 2  # the earlier reading: about 0.6 n


@pytest.mark.parametrize("name", ["heart", "sonar", "wine"])
def test_kmeans_baseline_on_raw_features_with_one_start_matches_the_papers_column(name):
    unit = sn.units_for("paper", [name], 1, 1, True, ("k-means",))[0]
    accs = [sn.run_unit({**unit, "rep": r})["accuracy"] for r in range(3)]
    assert ex.within(np.mean(accs), sn.PAPER[name][0])


def test_standardised_features_change_the_kmeans_column_on_heart():
    unit = sn.units_for("standardised", ["heart"], 1, 1, True, ("k-means",))[0]
    assert unit["features"] == "standardised"
    assert not ex.within(sn.run_unit(unit)["accuracy"], sn.PAPER["heart"][0])


def test_every_setting_is_in_the_unit_so_readings_never_share_rows():
    keys = set()
    for reading in sn.READINGS:
        (u,) = sn.units_for(reading, ["iris"], 1, 1, False, ("SimpleNPKL-LL",))
        assert set(sn.Protocol.__dataclass_fields__) <= set(u) and {"C", "B", "k"} <= set(u)
        keys.add(tuple(sorted(u.items())))
    assert len(keys) == len(sn.READINGS)


def test_paper_npkl_columns_are_eq4_hinge_without_capacity_and_trace_1_is_a_reading():
    n = 47
    assert sn.npkl_plan("NPKL-HL", sn.Protocol(), n) == ("hinge", "none", sn.B, "clarabel")
    assert sn.npkl_plan("NPKL-LL", sn.Protocol(), n) == ("linear", "trace", float(n), "clarabel")
    assert sn.npkl_plan("NPKL-HL", sn.READINGS["trace-1"], n)[1:3] == ("trace", 1.0)
    big = sn.GENERIC_MAX_N + 1  # past Clarabel's dense scaling block: SCS (linear), ADMM (hinge)
    assert sn.npkl_plan("NPKL-LL", sn.Protocol(), big)[3] == "scs"
    assert sn.npkl_plan("NPKL-HL", sn.Protocol(), big) == ("hinge", "none", sn.B, "admm")


def _cell(mean, **kw):
    return {"mean": mean, "std": 0.5, "reps": 3, "n": 100.0, **kw}


def test_explanation_cites_only_table_wide_readings_and_says_not_explained():
    """Sonar's LL cell 14 points above the paper: a reading that lands it in the band is
    cited only when run on every cell it changes with >= 5 repetitions (reproductions.readings)."""
    from kernelsdp.reproductions.readings import Alternative

    pm = sn.PAPER["sonar"][3][0]  # SimpleNPKL-LL, std 0.3: band 3
    key = ("sonar", "SimpleNPKL-LL")
    table = {key: _cell(pm + 1.0)}
    assert ex.explain("sonar", "SimpleNPKL-LL", table) == "within"
    table = {key: _cell(pm + 14.0), ("iris", "SimpleNPKL-LL"): _cell(97.4)}
    assert ex.explain("sonar", "SimpleNPKL-LL", table).startswith("not explained")
    both = (key, ("iris", "SimpleNPKL-LL"))
    few = Alternative("xing-0.7", {key: _cell(pm - 2.0)}, both)  # one cell of the two it changes
    assert ex.explain("sonar", "SimpleNPKL-LL", table, [few]).startswith("not explained")
    three = Alternative("xing-0.7", {k: _cell(pm - 2.0) for k in both}, both)  # 3 repetitions
    assert ex.explain("sonar", "SimpleNPKL-LL", table, [three]).startswith("not explained")
    even = Alternative("xing-0.7", {k: _cell(pm - 2.0, reps=5) for k in both}, both)  # +1, -1
    assert ex.explain("sonar", "SimpleNPKL-LL", table, [even]).startswith("not explained")
    wide = Alternative(
        "xing-0.7",
        {key: _cell(pm - 2.0, reps=5), ("iris", "SimpleNPKL-LL"): _cell(97.0, reps=5)},
        both,
    )
    text = ex.explain(
        "sonar", "SimpleNPKL-LL", table, [wide], ex.effects_of(["sonar", "iris"], table, [wide])
    )
    assert text.startswith("in band under table-wide reading 'xing-0.7'")
    assert "+1 in / -0 out" in text
    table[("sonar", "SimpleNPKL-SHL")] = _cell(90.0, margin_reached=0.0)
    assert "0% of pairs reach" in ex.explain("sonar", "SimpleNPKL-SHL", table)


def test_row_swap_reading_reads_chessboard_against_double_spiral():
    names = ["chessboard", "double-spiral"]
    table = {
        (n, m): _cell(sn.PAPER[other][k][0], reps=20)
        for n, other in zip(names, reversed(names))
        for k, m in enumerate(sn.METHODS)
    }
    swap = ex.row_swap(table, names)
    e = ex.effects_of(names, table, [swap])["rows-swapped"]
    assert e.qualified and e.in_band_reading == 10 and e.in_band_adopted < 10


def test_speed_claims_compare_times_measured_in_the_same_run():
    table = {
        ("iris", "NPKL-LL"): {"cpu_s": 2.0},
        ("iris", "SimpleNPKL-LL"): {"cpu_s": 0.01},
        ("iris", "NPKL-HL"): {"cpu_s": 1.0},
        ("iris", "SimpleNPKL-SHL"): {"cpu_s": 0.5},
    }
    ll, shl = ex.speed_claims(["iris"], table)[1:]
    assert "ours 200x" in ll and "holds here" in ll
    assert "least 2.0x" in shl and "does not hold" in shl


def test_normalised_kernel_kmeans_clusters_directions_not_norms():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 20)
    directions = np.array([[1.0, 0.1], [0.1, 1.0]])[y]
    U = directions * rng.uniform(0.1, 3.0, size=(40, 1))  # norms spread over 30x
    plain = pairwise_cluster_accuracy(y, kernel_kmeans(KernelFactor(U), 2))
    cosine = pairwise_cluster_accuracy(y, kernel_kmeans(KernelFactor(U), 2, normalized=True))
    assert cosine == 1.0 and plain < 0.9


def test_quick_mode_reduced_runs_prints_exports_and_resumes(tmp_path, capsys):
    store = ResultsStore(tmp_path / "r.sqlite")
    kw = {
        "quick": True,
        "datasets": ["iris"],
        "repetitions": 2,
        "readings": ["xing-0.7"],
        "figures": False,
        "store": store,
        "out": str(tmp_path),
        "adult": False,
    }
    assert sn.main(**kw) == 0
    text = capsys.readouterr().out
    assert "SNPKL-LL" in text and "97.4 ±  0.0" in text and "xing-0.7" in text
    assert "not qualified: 2 cells with fewer than 5 repetitions" in text  # quick: never a cause
    tail = text[text.index("Not reproduced (") :].splitlines()
    assert len(tail) == 1 + len(sn.NOT_REPRODUCED) and "Protein" in tail[1]  # ends with it
    assert "m = 2.49·n" in text or "m = 2.50·n" in text
    rows = store.records(sn.STUDY)
    assert {r["method"] for r in rows} == {"k-means", "SimpleNPKL-LL", "SimpleNPKL-SHL"}
    assert (tmp_path / "simplenpkl-table2.csv").read_text().count("\n") == 1 + len(sn.METHODS)
    before = len(rows)
    assert sn.main(**kw) == 0  # resumed: every unit is in the store, nothing new
    assert len(store.records(sn.STUDY)) == before


def test_an_unknown_reading_is_one_typed_error(tmp_path):
    from kernelsdp.errors import UnknownNameError

    with pytest.raises(UnknownNameError, match="unknown reading 'nope'"):
        sn.main(
            quick=True, reading="nope", store=ResultsStore(tmp_path / "r.sqlite"), out=str(tmp_path)
        )


def test_figure2_writes_a_png_with_both_selections(tmp_path, capsys):
    from kernelsdp.reproductions.simplenpkl_figures import figure2

    path = figure2(
        out=str(tmp_path),
        store=ResultsStore(tmp_path / "r.sqlite"),
        dataset="soybean",
        fractions=(0.2,),
        reps=1,
    )
    assert (tmp_path / "simplenpkl_figure2.png").stat().st_size > 10_000 and path.endswith(".png")
    text = capsys.readouterr().out
    assert "active" in text and "random" in text
