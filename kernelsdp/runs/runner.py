"""The runner: a study's units run once, each saved the moment it finishes.

``run_units(study, units, fn)`` skips the units the store already holds, runs the rest
(in this process, or in parallel through joblib: processes locally, or Dask distributed /
Ray on a cluster through joblib's backend), writes each record as it arrives, and shows a
tqdm bar on a terminal.  Ctrl-C stops it with :class:`~kernelsdp.errors.Interrupted`, whose
one line says how many units were kept and where; running the same call again resumes.
Stored units that another kernelsdp produced (another version or graph revision:
:func:`~kernelsdp.runs.store.produced_by`) are reported as stored, never silently: one
line on stderr says how many and by what, and ``RunSummary.stale`` counts them.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Callable

from ..errors import Interrupted, InvalidParameterError
from .store import ResultsStore, describe_producer, produced_by, to_json, unit_key


#: a record holding ``RETRY: True`` is returned but not stored: its answer depends on this
#: machine (a size refused under this memory limit), so a re-run elsewhere tries again
RETRY = "retry_on_rerun"


@dataclass
class RunSummary:
    """What a run did: ``records`` ({**unit, **record}) in the order of its units."""

    study: str
    records: list[dict]
    ran: int
    skipped: int
    store_path: str
    stale: int = 0  # of the skipped: produced by another kernelsdp version or graph revision


def _run_one(fn: Callable[[dict], dict], unit: dict) -> tuple[dict, dict]:
    record = fn(dict(unit))
    if not isinstance(record, dict):
        raise InvalidParameterError(f"a unit's function must return a dict; {getattr(fn, '__name__', fn)} "
                                    f"returned {type(record).__name__} for {unit!r}.")
    return unit, record


def run_units(study: str, units: list[dict], fn: Callable[[dict], dict], *,
              store: ResultsStore | None = None, n_jobs: int = 1, backend: str | None = None,
              desc: str | None = None, fresh: bool = False, progress_file=None) -> RunSummary:
    """Run ``fn(unit)`` for every unit the store does not hold yet; see the module docstring.

    ``fn`` must be a module-level function (picklable) when ``n_jobs != 1``; ``backend``
    is a joblib backend name ("loky", "threading", "dask", "ray") or None for joblib's
    default (which an enclosing ``joblib.parallel_config`` sets).  ``fresh`` forgets the
    study's finished units first.
    """
    from tqdm import tqdm

    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0:
        raise InvalidParameterError(f"The 'n_jobs' parameter of {study!r} must be a nonzero int "
                                    f"(-1: every core). Got {n_jobs!r} instead.")
    store = store if store is not None else ResultsStore()
    keys = [unit_key(u) for u in units]
    if len(set(keys)) != len(keys):
        dup = next(k for k in keys if keys.count(k) > 1)
        raise InvalidParameterError(f"study {study!r} lists the unit {dup} twice.")
    if fresh:
        store.clear(study)
    done = store.done(study)
    todo = [u for u, k in zip(units, keys) if k not in done]
    skipped = len(units) - len(todo)
    stale = _stale(study, store, [k for k in keys if k in done], len(units), progress_file)
    kept: dict[str, dict] = {}
    bar = tqdm(total=len(units), initial=skipped, desc=desc or study, unit="unit", leave=False,
               dynamic_ncols=True, file=progress_file or sys.stderr,
               disable=progress_file is None and not sys.stderr.isatty())
    ran = 0
    try:
        if n_jobs == 1 and backend is None:
            results = (_run_one(fn, u) for u in todo)
        else:
            from joblib import Parallel, delayed
            results = Parallel(n_jobs=n_jobs, backend=backend, return_as="generator_unordered")(
                delayed(_run_one)(fn, u) for u in todo)
        for unit, record in results:
            if record.pop(RETRY, False):  # an answer of this machine only: run it again next time
                kept[unit_key(unit)] = json.loads(to_json(record))
            else:
                store.put(study, unit, record)
                done[unit_key(unit)] = json.loads(to_json(record))  # as a re-run will read it
            ran += 1
            bar.update(1)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted: {len(done)} of {len(units)} units of {study!r} kept in "
                          f"{store.path}; run again to resume.") from None
    finally:
        bar.close()
    records = [{**u, **(done[k] if k in done else kept[k])} for u, k in zip(units, keys)]
    return RunSummary(study, records, ran, skipped, store.path, stale)


def _stale(study: str, store: ResultsStore, reused: list[str], total: int, file) -> int:
    """How many of the reused units another kernelsdp produced; one line says so."""
    if not reused:
        return 0
    now = produced_by()
    producers = store.producers(study)
    others = [p for p in map(producers.get, reused) if p != now]
    if others:
        by = sorted({describe_producer(p) for p in others})
        print(f"{study}: {len(others)} of {total} units are reported from {store.path} as "
              f"produced by {' and '.join(by)}, not by this kernelsdp {now['kernelsdp']} with "
              f"graph revision {now['graph_revision']}; a fresh run (--fresh, or another store named by "
              f"KERNELSDP_STORE) measures them again.",
              file=file or sys.stderr)
    return len(others)
