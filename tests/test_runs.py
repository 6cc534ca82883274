"""The results store and runner: a run killed halfway keeps every finished unit, and a
re-run repeats none of them (issue #13's resumability bar)."""

import json
import os

import numpy as np
import pytest

from kernelsdp.errors import InvalidDataError, InvalidParameterError, Interrupted
from kernelsdp.runs import ResultsStore, run_units


def _square(unit):
    return {"value": unit["x"] ** 2, "array": np.arange(2) * unit["x"], "nan": float("nan")}


class _Killer:
    """Counts its calls and raises KeyboardInterrupt (Ctrl-C) on call number ``at``."""

    def __init__(self, at):
        self.at, self.calls = at, []

    def __call__(self, unit):
        if len(self.calls) + 1 == self.at:
            raise KeyboardInterrupt
        self.calls.append(unit["x"])
        return {"value": unit["x"] ** 2}


def test_interrupted_run_resumes_without_repeating(tmp_path):
    store = ResultsStore(tmp_path / "r.sqlite")
    units = [{"x": x, "protocol": "p"} for x in range(6)]
    first = _Killer(at=4)
    with pytest.raises(Interrupted, match=r"3 of 6 units .* kept in .*r\.sqlite; run again"):
        run_units("demo", units, first, store=store)
    assert first.calls == [0, 1, 2]
    second = _Killer(at=0)  # never raises
    summary = run_units("demo", units, second, store=store)
    assert second.calls == [3, 4, 5]                     # none of the finished units again
    assert (summary.ran, summary.skipped) == (3, 3)
    assert [r["value"] for r in summary.records] == [x * x for x in range(6)]
    third = _Killer(at=0)
    assert run_units("demo", units, third, store=store).ran == 0 and third.calls == []


def test_parallel_run_and_export(tmp_path):
    store = ResultsStore(tmp_path / "r.sqlite")
    units = [{"x": x} for x in range(5)]
    summary = run_units("par", units, _square, store=store, n_jobs=2)
    assert [r["x"] for r in summary.records] == list(range(5))   # the units' order
    assert summary.records[3] == {"x": 3, "value": 9, "array": [0, 3], "nan": None}
    csv_path, json_path = store.export("par", tmp_path / "tables")
    assert open(csv_path).read().splitlines()[0] == "x,array,nan,value"  # unit, then record
    assert len(json.load(open(json_path))) == 5
    assert store.studies() == {"par": 5}
    assert run_units("par", units, _square, store=store, fresh=True).ran == 5


def test_settings_are_part_of_the_key(tmp_path):
    store = ResultsStore(tmp_path / "r.sqlite")
    run_units("s", [{"x": 2, "quick": True}], _square, store=store)
    again = run_units("s", [{"x": 2, "quick": False}], _square, store=store)
    assert again.ran == 1                                # a changed setting is new work


@pytest.mark.parametrize("units, match", [
    ([{"x": 1}, {"x": 1}], "twice"),
    ([{}], "non-empty dict"),
    ([{"x": object()}], "numbers, strings"),
])
def test_bad_units_are_user_errors(tmp_path, units, match):
    with pytest.raises(InvalidParameterError, match=match):
        run_units("bad", units, _square, store=ResultsStore(tmp_path / "r.sqlite"))


@pytest.mark.parametrize("n_jobs", [0, 1.5, True, "2"])
def test_bad_n_jobs_is_a_user_error(tmp_path, n_jobs):
    with pytest.raises(InvalidParameterError, match="'n_jobs' parameter"):
        run_units("bad", [{"x": 1}], _square, store=ResultsStore(tmp_path / "r.sqlite"), n_jobs=n_jobs)


def test_a_file_that_is_not_a_store_is_refused(tmp_path):
    path = tmp_path / "not.sqlite"
    path.write_text("hello, this is text\n" * 10)
    with pytest.raises(InvalidDataError, match="not a kernelsdp results store"):
        ResultsStore(path)


def test_store_path_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELSDP_STORE", str(tmp_path / "env.sqlite"))
    assert ResultsStore().path == str(tmp_path / "env.sqlite")
    assert os.path.exists(tmp_path / "env.sqlite")


def test_a_record_marked_retry_is_returned_but_run_again_next_time(tmp_path):
    """A size refused under this machine's memory limit is not a finished unit."""
    from kernelsdp.runs import RETRY
    store = ResultsStore(tmp_path / "r.sqlite")
    calls = []

    def fn(unit):
        calls.append(unit["x"])
        return {"value": unit["x"], RETRY: unit["x"] == 1}
    first = run_units("r", [{"x": 0}, {"x": 1}], fn, store=store)
    assert [r["value"] for r in first.records] == [0, 1] and RETRY not in first.records[1]
    again = run_units("r", [{"x": 0}, {"x": 1}], fn, store=store)
    assert calls == [0, 1, 1] and (again.ran, again.skipped) == (1, 1)


def test_units_from_another_kernelsdp_are_reported_not_silently_reused(tmp_path, monkeypatch, capsys):
    """A unit's key names its settings, not the library that ran it: after an upgrade (here
    the k-NN graph's revision) the stored records are still reported, with one line that
    says so; a store from before provenance was kept counts as another kernelsdp too."""
    import sqlite3

    import kernelsdp.data.graph as graph
    store = ResultsStore(tmp_path / "r.sqlite")
    units = [{"x": x} for x in range(3)]
    run_units("up", units, _square, store=store)
    again = run_units("up", units, _square, store=store)
    assert (again.ran, again.stale) == (0, 0) and "produced by" not in capsys.readouterr().err
    monkeypatch.setattr(graph, "GRAPH_REVISION", graph.GRAPH_REVISION + 1)
    later = run_units("up", units + [{"x": 3}], _square, store=store)
    assert (later.ran, later.skipped, later.stale) == (1, 3, 3)
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert f"3 of 4 units are reported from {store.path} as produced by kernelsdp" in err
    assert f"graph revision {graph.GRAPH_REVISION - 1}, not by" in err and "--fresh" in err
    assert run_units("up", units, _square, store=store, fresh=True).stale == 0
    with sqlite3.connect(store.path) as db:  # as a store written before the column existed
        db.execute("UPDATE runs SET produced_by = NULL")
    assert run_units("up", units, _square, store=store).stale == 3
    assert "an earlier kernelsdp" in capsys.readouterr().err


def test_a_store_from_before_provenance_is_upgraded_in_place(tmp_path):
    import sqlite3
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE runs (study TEXT NOT NULL, unit TEXT NOT NULL, record TEXT NOT NULL, "
                   "finished REAL NOT NULL, PRIMARY KEY (study, unit))")
        db.execute("INSERT INTO runs VALUES ('s', '{\"x\":1}', '{\"value\":1}', 0)")
    store = ResultsStore(path)
    assert store.done("s") == {'{"x":1}': {"value": 1}} and store.producers("s") == {'{"x":1}': None}
    summary = run_units("s", [{"x": 1}, {"x": 2}], _square, store=store)
    assert (summary.ran, summary.stale) == (1, 1)
