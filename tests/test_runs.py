"""The results store and runner: a run killed halfway keeps every finished unit, and a
re-run repeats none of them (issue #13's resumability bar)."""

import json
import os

import numpy as np
import pytest

from kernelsdp.errors import Interrupted, InvalidDataError, InvalidParameterError
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
    assert second.calls == [3, 4, 5]  # none of the finished units again
    assert (summary.ran, summary.skipped) == (3, 3)
    assert [r["value"] for r in summary.records] == [x * x for x in range(6)]
    third = _Killer(at=0)
    assert run_units("demo", units, third, store=store).ran == 0 and third.calls == []


def test_parallel_run_and_export(tmp_path):
    store = ResultsStore(tmp_path / "r.sqlite")
    units = [{"x": x} for x in range(5)]
    summary = run_units("par", units, _square, store=store, n_jobs=2)
    assert [r["x"] for r in summary.records] == list(range(5))  # the units' order
    assert summary.records[3] == {"x": 3, "value": 9, "array": [0, 3], "nan": None}
    csv_path, json_path = store.export("par", tmp_path / "tables")
    with open(csv_path) as fh:
        assert fh.read().splitlines()[0] == "x,array,nan,value"  # unit, then record
    with open(json_path) as fh:
        assert len(json.load(fh)) == 5
    assert store.studies() == {"par": 5}
    assert run_units("par", units, _square, store=store, fresh=True).ran == 5


def test_settings_are_part_of_the_key(tmp_path):
    store = ResultsStore(tmp_path / "r.sqlite")
    run_units("s", [{"x": 2, "quick": True}], _square, store=store)
    again = run_units("s", [{"x": 2, "quick": False}], _square, store=store)
    assert again.ran == 1  # a changed setting is new work


@pytest.mark.parametrize(
    "units, match",
    [
        ([{"x": 1}, {"x": 1}], "twice"),
        ([{}], "non-empty dict"),
        ([{"x": object()}], "numbers, strings"),
    ],
)
def test_bad_units_are_user_errors(tmp_path, units, match):
    with pytest.raises(InvalidParameterError, match=match):
        run_units("bad", units, _square, store=ResultsStore(tmp_path / "r.sqlite"))


@pytest.mark.parametrize("n_jobs", [0, 1.5, True, "2"])
def test_bad_n_jobs_is_a_user_error(tmp_path, n_jobs):
    with pytest.raises(InvalidParameterError, match="'n_jobs' parameter"):
        run_units(
            "bad", [{"x": 1}], _square, store=ResultsStore(tmp_path / "r.sqlite"), n_jobs=n_jobs
        )


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


def test_units_from_another_kernelsdp_are_reported_not_silently_reused(
    tmp_path, monkeypatch, capsys
):
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
        db.execute(
            "CREATE TABLE runs (study TEXT NOT NULL, unit TEXT NOT NULL, record TEXT NOT NULL, "
            "finished REAL NOT NULL, PRIMARY KEY (study, unit))"
        )
        db.execute("INSERT INTO runs VALUES ('s', '{\"x\":1}', '{\"value\":1}', 0)")
    store = ResultsStore(path)
    assert store.done("s") == {'{"x":1}': {"value": 1}} and store.producers("s") == {
        '{"x":1}': None
    }
    summary = run_units("s", [{"x": 1}, {"x": 2}], _square, store=store)
    assert (summary.ran, summary.stale) == (1, 1)


# ----- issue #29: stores that are never silently reset, leases, orphans ----------------------
def _dead_process() -> tuple[int, int]:
    """(pid, start time) of a process that has ended."""
    import subprocess
    import sys

    from kernelsdp.processes import start_time

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.3)"])
    started = start_time(child.pid)
    child.wait()
    return child.pid, started


def _store_with_rows(path, rows=200):
    import sqlite3

    store = ResultsStore(path)
    with sqlite3.connect(path) as db:  # one transaction (a put each would sync 200 times)
        db.executemany(
            "INSERT INTO runs VALUES ('s', ?, ?, 0, NULL)",
            [(f'{{"x":{x}}}', '{"value":"' + "y" * 200 + '"}') for x in range(rows)],
        )
    return store


@pytest.mark.parametrize(
    "content, match",
    [
        (b"", r"0 bytes"),
        (b"SQLite format 3\x00" + b"\x00" * 84, "damaged|not a kernelsdp"),
        (b"x" * 4096, "not an SQLite database"),
    ],
)
def test_an_existing_file_that_is_not_a_store_is_refused_whatever_its_size(
    tmp_path, content, match
):
    path = tmp_path / "r.sqlite"
    path.write_bytes(content)
    with pytest.raises(InvalidDataError, match=match) as err:
        ResultsStore(path)
    assert "--fresh" in str(err.value) and "\n" not in str(err.value)
    assert path.read_bytes() == content  # left as it is
    assert [p.name for p in tmp_path.iterdir()] == ["r.sqlite"]


def test_another_programs_database_is_not_a_store(tmp_path):
    import sqlite3

    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
    before = path.read_bytes()
    with pytest.raises(InvalidDataError, match="without kernelsdp's runs table"):
        ResultsStore(path)
    assert path.read_bytes() == before


def test_fresh_sets_an_invalid_store_aside_and_starts_a_new_one(tmp_path):
    path = tmp_path / "r.sqlite"
    path.write_bytes(b"")
    store = ResultsStore(path, replace_invalid=True)
    assert store.set_aside and os.path.getsize(store.set_aside) == 0  # kept, not deleted
    assert run_units("s", [{"x": 1}], _square, store=store).ran == 1
    assert ResultsStore(path).studies() == {"s": 1} and ResultsStore(path).set_aside is None


def test_a_damaged_page_is_one_error_at_open_and_during_a_run(tmp_path):
    path = tmp_path / "r.sqlite"
    store = _store_with_rows(path)
    with open(path, "r+b") as fh:  # a leaf page of the runs table (page 11 of 20)
        fh.seek(4096 * 10)
        fh.write(b"\xa5" * 4096)
    with pytest.raises(InvalidDataError, match="results store is damaged.*malformed"):
        ResultsStore(path)
    with pytest.raises(InvalidDataError, match="cannot be used .*malformed"):
        store.records("s")  # opened before the damage


def test_a_store_in_an_unwritable_folder_says_so(tmp_path, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    real = os.access
    # root may write anywhere: the folder is made unwritable to os.access as well
    monkeypatch.setattr(
        os,
        "access",
        lambda p, mode: False if os.fspath(p) == str(folder) and mode & os.W_OK else real(p, mode),
    )
    folder.chmod(0o500)
    try:
        with pytest.raises(
            InvalidDataError,
            match=r"cannot create the results store: the "
            r"folder .*ro is not writable",
        ):
            ResultsStore(folder / "r.sqlite")
    finally:
        folder.chmod(0o700)
    assert list(folder.iterdir()) == []


def test_a_store_deleted_during_a_run_is_not_recreated_empty(tmp_path):
    path = tmp_path / "r.sqlite"
    store = ResultsStore(path)
    os.remove(path)
    with pytest.raises(InvalidDataError, match="cannot be used"):
        store.put("s", {"x": 1}, {"v": 1})
    assert not path.exists()


def test_a_lease_of_a_dead_run_is_retaken(tmp_path):
    import socket
    import sqlite3

    store = ResultsStore(tmp_path / "r.sqlite")
    pid, started = _dead_process()
    with sqlite3.connect(store.path) as db:  # the lease a run killed by kill -9 left behind
        db.execute(
            "INSERT INTO leases VALUES ('s', ?, ?, ?, ?, 'gone', 0)",
            ('{"x":1}', pid, started, socket.gethostname()),
        )
    summary = run_units("s", [{"x": 1}, {"x": 2}], _square, store=store)
    assert (summary.ran, summary.others) == (2, 0)
    with sqlite3.connect(store.path) as db:
        assert db.execute("SELECT COUNT(*) FROM leases").fetchone() == (0,)


def test_a_unit_another_live_run_holds_is_waited_for_not_run(tmp_path, capsys):
    import threading

    from kernelsdp.runs.leases import Owner

    store = ResultsStore(tmp_path / "r.sqlite")
    other = Owner.current()  # another run of this (live) process
    assert store.claim("s", {"x": 1}, other) == "claimed"
    calls = []

    def fn(unit):
        calls.append(unit["x"])
        return {"value": unit["x"]}

    finish = threading.Timer(0.3, lambda: store.put("s", {"x": 1}, {"value": "theirs"}, other))
    finish.start()
    summary = run_units("s", [{"x": 0}, {"x": 1}], fn, store=store)
    finish.join()
    assert calls == [0] and (summary.ran, summary.others) == (1, 1)
    assert summary.records[1] == {"x": 1, "value": "theirs"}
    assert "s: 1 units are being run by another run" in capsys.readouterr().err


CONCURRENT = """
import json, os, sys, time
from kernelsdp.runs import ResultsStore, run_units

def work(unit):
    with open(sys.argv[2], "a") as log:
        log.write(json.dumps(unit) + "\\n")
    time.sleep(0.01)
    return {"y": 2 * unit["x"]}

if __name__ == "__main__":
    s = run_units("c", [{"x": x} for x in range(24)], work, store=ResultsStore(sys.argv[1]),
                  n_jobs=int(sys.argv[3]))
    print(json.dumps([s.ran, s.skipped, s.others, [r["y"] for r in s.records]]))
"""


def test_two_concurrent_runs_of_one_study_run_each_unit_exactly_once(tmp_path):
    import json
    import subprocess
    import sys

    script = tmp_path / "run.py"
    script.write_text(CONCURRENT)
    store, log = tmp_path / "r.sqlite", tmp_path / "log"
    ResultsStore(store)
    runs = [
        subprocess.Popen(
            [sys.executable, str(script), str(store), str(log), jobs],
            stdout=subprocess.PIPE,
            text=True,
        )
        for jobs in ("1", "2")
    ]
    outs = [json.loads(r.communicate(timeout=120)[0].strip().splitlines()[-1]) for r in runs]
    ran = [json.loads(line)["x"] for line in log.read_text().splitlines()]
    assert sorted(ran) == list(range(24))  # every unit once, in one run or the other
    assert sum(o[0] for o in outs) == 24
    for o in outs:  # each run reports every unit
        assert o[0] + o[1] + o[2] == 24 and o[3] == [2 * x for x in range(24)]


def test_orphaned_temporary_files_are_removed_on_the_next_start(tmp_path):
    from kernelsdp.atomic import PREFIX, remove_orphans
    from kernelsdp.processes import this_process

    pid, started = _dead_process()
    orphan = tmp_path / f"{PREFIX}{pid}-{started}-abc.csv"
    live = tmp_path / f"{PREFIX}{this_process()[0]}-{this_process()[1]}-def.csv"
    foreign = tmp_path / f"{PREFIX}notours.csv"
    for f in (orphan, live, foreign):
        f.write_text("partial")
    store = ResultsStore(tmp_path / "r.sqlite")  # the store's own start
    assert not orphan.exists() and live.exists() and foreign.exists()
    orphan.write_text("partial")
    store.export("s", tmp_path, records=[{"x": 1}])  # an export's start
    assert not orphan.exists() and live.exists()
    assert remove_orphans(str(tmp_path)) == []


def test_an_export_that_cannot_be_written_is_one_error_and_leaves_nothing(tmp_path, monkeypatch):
    import errno

    import kernelsdp.runs.store as store_module

    store = ResultsStore(tmp_path / "r.sqlite")
    run_units("s", [{"x": 1}], _square, store=store)

    def full(path, write, suffix=""):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store_module, "write_atomically", full)
    with pytest.raises(
        InvalidDataError,
        match=r"cannot write .*s\.csv: No space left on device; "
        r"nothing was written",
    ):
        store.export("s", tmp_path / "out")
    assert not any((tmp_path / "out").iterdir())


def test_an_orphan_of_out_is_removed_when_the_next_solve_starts(tmp_path, iris_small):
    """`kernelsdp solve ... --out DIR/K.npz` killed mid-write leaves .kernelsdp-PID-START-….npz;
    the next solve writing into DIR removes it (its writer is gone) and writes K.npz."""
    import scipy.sparse as sp

    from kernelsdp.atomic import PREFIX
    from kernelsdp.cli import main

    L, pairs, _ = iris_small
    sp.save_npz(tmp_path / "L.npz", L)
    rows = ["i,j,label"] + [f"{i},{j},{int(t)}" for i, j, t in zip(pairs.i, pairs.j, pairs.t)]
    (tmp_path / "pairs.csv").write_text("\n".join(rows) + "\n")
    pid, started = _dead_process()
    orphan = tmp_path / f"{PREFIX}{pid}-{started}-x1y2.npz"
    orphan.write_bytes(b"half an archive")
    code = main(
        [
            "solve",
            "npkl",
            "--laplacian",
            str(tmp_path / "L.npz"),
            "--pairs",
            str(tmp_path / "pairs.csv"),
            "--loss",
            "linear",
            "--capacity",
            "frobenius",
            "--out",
            str(tmp_path / "K.npz"),
        ]
    )
    assert code in (0, 1) and (tmp_path / "K.npz").exists() and not orphan.exists()
    assert not [p for p in os.listdir(tmp_path) if p.startswith(PREFIX)]
