"""The runner: a study's units run once, each saved the moment it finishes.

``run_units(study, units, fn)`` skips the units the store already holds, runs the rest
(in this process, or in parallel through joblib: processes locally, or Dask distributed /
Ray on a cluster through joblib's backend), writes each record as it arrives, and shows a
tqdm bar on a terminal.  Ctrl-C stops it with :class:`~kernelsdp.errors.Interrupted`, whose
one line says how many units were kept and where; running the same call again resumes.
Stored units that another kernelsdp produced (another version or graph revision:
:func:`~kernelsdp.runs.store.produced_by`) are reported as stored, never silently: one
line on stderr says how many and by what, and ``RunSummary.stale`` counts them.

Two runs of one study on one store share its units: each unit is leased before it runs
(:mod:`.leases`), a unit another live run holds is left to it and its record read when it
lands (``RunSummary.others``), and a lease whose process died is retaken.  Local worker
processes die with the run (:func:`~.processes.die_with_parent`): a ``kill -9`` leaves no
worker behind.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import Interrupted, InvalidParameterError
from ..processes import die_with_parent
from .leases import CLAIMED, Owner
from .store import ResultsStore, describe_producer, produced_by, to_json, unit_key

#: a record holding ``RETRY: True`` is returned but not stored: its answer depends on this
#: machine (a size refused under this memory limit), so a re-run elsewhere tries again
RETRY = "retry_on_rerun"
#: seconds between looks at the store while every unit left is another live run's
POLL_S = 0.5


@dataclass
class RunSummary:
    """What a run did: ``records`` ({**unit, **record}) in the order of its units."""

    study: str
    records: list[dict]
    ran: int
    skipped: int
    store_path: str
    stale: int = 0  # of the skipped: produced by another kernelsdp version or graph revision
    others: int = 0  # finished meanwhile by another run of the study on the same store


def _run_one(fn: Callable[[dict], dict], unit: dict) -> tuple[dict, dict]:
    record = fn(dict(unit))
    if not isinstance(record, dict):
        raise InvalidParameterError(
            f"a unit's function must return a dict; {getattr(fn, '__name__', fn)} "
            f"returned {type(record).__name__} for {unit!r}."
        )
    return unit, record


def run_units(
    study: str,
    units: list[dict],
    fn: Callable[[dict], dict],
    *,
    store: ResultsStore | None = None,
    n_jobs: int = 1,
    backend: str | None = None,
    desc: str | None = None,
    fresh: bool = False,
    progress_file=None,
) -> RunSummary:
    """Run ``fn(unit)`` for every unit the store does not hold yet; see the module docstring.

    ``fn`` must be a module-level function (picklable) when ``n_jobs != 1``; ``backend``
    is a joblib backend name ("loky", "threading", "dask", "ray") or None for joblib's
    default (which an enclosing ``joblib.parallel_config`` sets).  ``fresh`` forgets the
    study's finished units first.  A unit that another live run has leased is left to it
    and its record read when it lands (:mod:`.leases`).
    """
    from tqdm import tqdm

    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0:
        raise InvalidParameterError(
            f"The 'n_jobs' parameter of {study!r} must be a nonzero int "
            f"(-1: every core). Got {n_jobs!r} instead."
        )
    store = store if store is not None else ResultsStore()
    keys = [unit_key(u) for u in units]
    if len(set(keys)) != len(keys):
        dup = next(k for k in keys if keys.count(k) > 1)
        raise InvalidParameterError(f"study {study!r} lists the unit {dup} twice.")
    if fresh:
        store.clear(study)
    done = store.done(study)
    skipped = sum(k in done for k in keys)
    stale = _stale(study, store, [k for k in keys if k in done], len(units), progress_file)
    bar = tqdm(
        total=len(units),
        initial=skipped,
        desc=desc or study,
        unit="unit",
        leave=False,
        dynamic_ncols=True,
        file=progress_file or sys.stderr,
        disable=progress_file is None and not sys.stderr.isatty(),
    )
    work = _Work(study, store, fn, done, bar)
    try:
        work.run([u for u, k in zip(units, keys) if k not in done], n_jobs, backend, progress_file)
    except KeyboardInterrupt:
        raise Interrupted(
            f"interrupted: {len(done)} of {len(units)} units of {study!r} kept in "
            f"{store.path}; run again to resume."
        ) from None
    finally:
        bar.close()
        store.release(study, work.owner)
    records = [{**u, **(done[k] if k in done else work.kept[k])} for u, k in zip(units, keys)]
    return RunSummary(study, records, work.ran, skipped, store.path, stale, work.others)


class _Work:
    """The units of one call of :func:`run_units` still to do: each leased, run, and saved
    the moment it finishes; those that another run holds are waited for."""

    def __init__(self, study: str, store: ResultsStore, fn, done: dict, bar):
        self.study, self.store, self.fn, self.done, self.bar = study, store, fn, done, bar
        self.owner = Owner.current()
        self.kept: dict[str, dict] = {}  # RETRY records: returned, not stored
        self.ran = self.others = 0

    def run(self, todo: list[dict], n_jobs: int, backend: str | None, file=None) -> None:
        said = False
        while todo:
            held: list[dict] = []
            for unit, record in _results(self.fn, self._claimed(todo, held), n_jobs, backend):
                self._save(unit, record)
            todo = self._landed(held)
            if todo and not said:
                print(
                    f"{self.study}: {len(todo)} units are being run by another run on "
                    f"{self.store.path}; waiting for their records.",
                    file=file or sys.stderr,
                )
                said = True
            if todo:  # every one left is another live run's: look again shortly
                time.sleep(POLL_S)

    def _claimed(self, todo: list[dict], held: list[dict]):
        """The units of ``todo`` whose lease this run takes (the rest go to ``held``)."""
        for unit in todo:
            if self.store.claim(self.study, unit, self.owner) == CLAIMED:
                yield unit
            else:
                held.append(unit)

    def _save(self, unit: dict, record: dict) -> None:
        if record.pop(RETRY, False):  # an answer of this machine only: run it again next time
            self.kept[unit_key(unit)] = json.loads(to_json(record))
            self.store.release(self.study, self.owner, unit)
        else:
            self.store.put(self.study, unit, record, self.owner)
            self.done[unit_key(unit)] = json.loads(to_json(record))  # as a re-run will read it
        self.ran += 1
        self.bar.update(1)

    def _landed(self, held: list[dict]) -> list[dict]:
        """Read the records of the held units that other runs have finished; the rest."""
        if not held:
            return []
        finished = self.store.done(self.study)
        rest = []
        for unit in held:
            key = unit_key(unit)
            if key in finished:
                self.done[key] = finished[key]
                self.others += 1
                self.bar.update(1)
            else:
                rest.append(unit)
        return rest


def _results(fn, todo, n_jobs: int, backend: str | None):
    """(unit, record) pairs as they finish: in this process, or through joblib; local worker
    processes die with this one (:func:`~.processes.die_with_parent`)."""
    if n_jobs == 1 and backend is None:
        return (_run_one(fn, u) for u in todo)
    from joblib import Parallel, delayed

    extra = {}
    if _local_processes(backend):
        extra = {"initializer": die_with_parent, "initargs": (os.getpid(),)}
    return Parallel(n_jobs=n_jobs, backend=backend, return_as="generator_unordered", **extra)(
        delayed(_run_one)(fn, u) for u in todo
    )


def _local_processes(backend: str | None) -> bool:
    """Whether joblib will run the units in loky processes on this machine."""
    if backend is not None:
        return backend == "loky"
    from joblib._parallel_backends import LokyBackend
    from joblib.parallel import get_active_backend

    return isinstance(get_active_backend()[0], LokyBackend)


def _stale(study: str, store: ResultsStore, reused: list[str], total: int, file) -> int:
    """How many of the reused units another kernelsdp produced; one line says so."""
    if not reused:
        return 0
    now = produced_by()
    producers = store.producers(study)
    others = [p for p in map(producers.get, reused) if p != now]
    if others:
        by = sorted({describe_producer(p) for p in others})
        print(
            f"{study}: {len(others)} of {total} units are reported from {store.path} as "
            f"produced by {' and '.join(by)}, not by this kernelsdp {now['kernelsdp']} with "
            f"graph revision {now['graph_revision']}; a fresh run (--fresh, or another store "
            f"named by KERNELSDP_STORE) measures them again.",
            file=file or sys.stderr,
        )
    return len(others)
