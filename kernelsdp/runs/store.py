"""The results store: one SQLite file (standard library) for the whole project.

A *study* (a reproduction, a sweep, a benchmark) is a set of *units*, each a small dict of
JSON values that names one piece of work (data set × method × repetition, with every
setting that changes its result).  A unit's *record* (what the work measured) is written
the moment the unit finishes, keyed by (study, unit), so a run killed halfway keeps every
finished unit and a re-run repeats none of them.

Each record also keeps what produced it (:func:`produced_by`: kernelsdp's version and the
k-NN graph's revision).  A unit's key names only its settings, so after an upgrade a
re-run would reuse the old record: the runner says so, one line per study, and ``fresh``
runs them again.

The file is ``out/results.sqlite`` under the working directory unless ``KERNELSDP_STORE``
names another; ``export`` writes a study as CSV and JSON beside a printed table.  An
existing file that is not a valid store — empty, damaged, another program's — is refused
with one line and left as it is, never reset (:mod:`.store_file`); every SQLite error is
one :class:`~kernelsdp.errors.InvalidDataError`.  Concurrent runs of one study share its
units through leases (:mod:`.leases`), so each unit runs once.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import sqlite3
import time
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from ..atomic import write_atomically
from ..errors import InvalidDataError, InvalidParameterError
from . import leases
from .leases import Owner
from .store_file import connect, damaged, open_store_file

DEFAULT_STORE = os.path.join("out", "results.sqlite")
T = TypeVar("T")


def produced_by() -> dict:
    """What produces a record now: kernelsdp's version and the revision of the k-NN graph
    (:data:`kernelsdp.data.graph.GRAPH_REVISION`), the two things a unit's settings do not
    name."""
    from .. import __version__
    from ..data.graph import GRAPH_REVISION

    return {"kernelsdp": __version__, "graph_revision": GRAPH_REVISION}


def describe_producer(p: dict | None) -> str:
    """``produced_by()`` in words ("an earlier kernelsdp" for a record that did not keep it)."""
    if not p:
        return "an earlier kernelsdp (which did not record its version)"
    return f"kernelsdp {p.get('kernelsdp')} with graph revision {p.get('graph_revision')}"


def default_store_path() -> str:
    """``$KERNELSDP_STORE`` if set, else ``out/results.sqlite``."""
    return os.environ.get("KERNELSDP_STORE") or DEFAULT_STORE


def _plain(x):
    """NumPy scalars and arrays as JSON values; non-finite floats as null."""
    if isinstance(x, np.generic):
        return _plain(x.item())
    if isinstance(x, np.ndarray):
        return [_plain(v) for v in x.tolist()]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    raise InvalidParameterError(
        f"a results record holds {type(x).__name__} {x!r}; a unit and "
        "its record must be made of numbers, strings, lists and dicts."
    )


def to_json(x) -> str:
    """``x`` as canonical JSON (sorted keys), the form units are keyed by."""
    return json.dumps(_plain(x), sort_keys=True, separators=(",", ":"), allow_nan=False)


def unit_key(unit: dict) -> str:
    """The key of a unit: its canonical JSON."""
    if not isinstance(unit, dict) or not unit:
        raise InvalidParameterError(f"a unit must be a non-empty dict; got {unit!r}.")
    return to_json(unit)


class ResultsStore:
    """Finished units of every study, in one SQLite file (see the module docstring and
    :mod:`.store_file`: an existing file that is not a store is refused, never reset;
    ``replace_invalid`` sets it aside and starts a new store)."""

    def __init__(self, path: str | os.PathLike | None = None, *, replace_invalid: bool = False):
        self.path = os.fspath(path) if path is not None else default_store_path()
        if not self.path:
            raise InvalidParameterError("the results store path is empty.")
        #: where an invalid file at ``path`` was set aside (``replace_invalid``), else None
        self.set_aside = open_store_file(self.path, replace_invalid)

    def _db(self) -> sqlite3.Connection:
        try:
            return connect(self.path)
        except sqlite3.DatabaseError as exc:
            raise damaged(self.path, exc) from None

    def _query(self, sql: str, args=()) -> list[tuple]:
        db = self._db()
        try:
            with db:
                return db.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as exc:  # a damaged page, a full disk, a lock held too long
            raise damaged(self.path, exc) from None
        finally:
            db.close()

    def transaction(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work(db)`` inside one write transaction taken at once (BEGIN IMMEDIATE), so that
        what it reads cannot change before it writes (another run waits for it)."""
        db = self._db()
        db.isolation_level = None
        try:
            db.execute("BEGIN IMMEDIATE")
            out = work(db)
            db.execute("COMMIT")
            return out
        except sqlite3.DatabaseError as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise damaged(self.path, exc) from None
        finally:
            db.close()

    def put(self, study: str, unit: dict, record: dict, owner: Owner | None = None) -> None:
        """Keep one finished unit (committed at once); a re-run of the same unit replaces it.
        With ``owner``, its lease on the unit ends in the same transaction."""
        key = unit_key(unit)
        row = (study, key, to_json(record), time.time(), to_json(produced_by()))

        def write(db):
            db.execute(
                "INSERT OR REPLACE INTO runs (study, unit, record, finished, produced_by) "
                "VALUES (?, ?, ?, ?, ?)",
                row,
            )
            if owner is not None:
                leases.release(db, study, owner, key)

        self.transaction(write)

    def claim(self, study: str, unit: dict, owner: Owner) -> str:
        """Take the lease on a unit for ``owner``: :data:`~.leases.CLAIMED`, or
        :data:`~.leases.DONE` / :data:`~.leases.HELD` when it is finished or another live
        run holds it (:mod:`.leases`)."""
        key = unit_key(unit)
        return self.transaction(lambda db: leases.claim(db, study, key, owner))

    def release(self, study: str, owner: Owner, unit: dict | None = None) -> None:
        """End ``owner``'s lease on one unit (all of its leases in the study without ``unit``)."""
        key = None if unit is None else unit_key(unit)
        self.transaction(lambda db: leases.release(db, study, owner, key))

    def get(self, study: str, unit: dict) -> dict | None:
        rows = self._query(
            "SELECT record FROM runs WHERE study = ? AND unit = ?", (study, unit_key(unit))
        )
        return json.loads(rows[0][0]) if rows else None

    def done(self, study: str) -> dict[str, dict]:
        """Every finished unit of a study: unit key → record."""
        rows = self._query("SELECT unit, record FROM runs WHERE study = ?", (study,))
        return {u: json.loads(r) for u, r in rows}

    def producers(self, study: str) -> dict[str, dict | None]:
        """Every finished unit of a study: unit key → what produced it (None: not recorded)."""
        rows = self._query("SELECT unit, produced_by FROM runs WHERE study = ?", (study,))
        return {u: (json.loads(p) if p else None) for u, p in rows}

    def records(self, study: str) -> list[dict]:
        """The study's finished units as ``{**unit, **record}``, in the order they finished."""
        rows = self._query(
            "SELECT unit, record FROM runs WHERE study = ? ORDER BY finished", (study,)
        )
        return [{**json.loads(u), **json.loads(r)} for u, r in rows]

    def studies(self) -> dict[str, int]:
        """Study name → number of finished units."""
        return dict(self._query("SELECT study, COUNT(*) FROM runs GROUP BY study ORDER BY study"))

    def forget(self, study: str, unit: dict) -> None:
        """Forget one unit (it will run again)."""
        self._query("DELETE FROM runs WHERE study = ? AND unit = ?", (study, unit_key(unit)))

    def clear(self, study: str) -> int:
        """Forget a study's units (a fresh run); returns how many were removed."""
        n = len(self.done(study))
        self._query("DELETE FROM runs WHERE study = ?", (study,))
        self._query("DELETE FROM leases WHERE study = ?", (study,))
        return n

    def export(
        self, study: str, folder: str | os.PathLike, records: list[dict] | None = None
    ) -> tuple[str, str]:
        """Write a study's records (default: all of them) as ``<study>.csv`` and
        ``<study>.json`` in ``folder``; each file is written whole or not at all."""
        rows = self.records(study) if records is None else [_plain(r) for r in records]
        columns = list(dict.fromkeys(k for r in rows for k in r))
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow(
                {k: json.dumps(v) if isinstance(v, (list, dict)) else v for k, v in r.items()}
            )
        csv_path, json_path = export_paths(study, folder)
        write_text_atomically(csv_path, buf.getvalue())
        write_text_atomically(json_path, json.dumps(rows, indent=1, allow_nan=False) + "\n")
        return csv_path, json_path


def export_paths(study: str, folder: str | os.PathLike, exts=("csv", "json")) -> list[str]:
    """Where :meth:`ResultsStore.export` writes a study (``FOLDER/STUDY.csv``, ``.json``)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in study)
    return [os.path.join(os.fspath(folder), f"{safe}.{ext}") for ext in exts]


def write_text_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all, with the user's umask; a failure (a
    full disk, a read-only folder) is one :class:`InvalidDataError` naming ``path``."""

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)

    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        write_atomically(path, write)
    except OSError as exc:
        raise InvalidDataError(
            f"cannot write {path}: {exc.strerror or exc}; nothing was written."
        ) from None
