"""The results store's file: created whole, refused when it is not a store, never reset
silently (issue #29).

- A new store is built in a temporary file beside its path and linked into place, so a
  half-created store never exists and two runs creating it at once share one.
- An existing file is used only when it is a kernelsdp store: an SQLite database (its
  16-byte header) with the ``runs`` table, whose pages pass SQLite's ``quick_check``.  Any
  other file — empty (0 bytes), text, another program's database, a damaged page — is
  refused with one line, whatever its size, and left as it is; ``replace_invalid`` (the
  CLI's ``--fresh``) sets it aside as ``PATH.invalid-TIME`` and starts a new store.
- Every connection opens the file read-write without creating it (``mode=rw``), so a
  store deleted while a run goes on is an error, not a new empty store.
"""

from __future__ import annotations

import os
import pathlib
import sqlite3
import time

from ..errors import InvalidDataError

#: the first 16 bytes of every SQLite 3 database file
SQLITE_HEADER = b"SQLite format 3\x00"
RUNS_TABLE = (
    "CREATE TABLE IF NOT EXISTS runs (study TEXT NOT NULL, unit TEXT NOT NULL, "
    "record TEXT NOT NULL, finished REAL NOT NULL, produced_by TEXT, "
    "PRIMARY KEY (study, unit))"
)
#: who runs a unit now: the owner's pid and start time, host and run token (runs.leases)
LEASES_TABLE = (
    "CREATE TABLE IF NOT EXISTS leases (study TEXT NOT NULL, unit TEXT NOT NULL, "
    "pid INTEGER NOT NULL, started INTEGER NOT NULL, host TEXT NOT NULL, "
    "run TEXT NOT NULL, taken REAL NOT NULL, PRIMARY KEY (study, unit))"
)
RUNS_COLUMNS = {"study", "unit", "record", "finished"}
#: how long a connection waits for another run's write to finish (seconds)
BUSY_TIMEOUT_S = 30
ADVICE = (
    "`kernelsdp sweep --fresh` sets it aside and starts a new store; or name another "
    "with KERNELSDP_STORE"
)


def connect(path: str) -> sqlite3.Connection:
    """A connection to an existing store file (never creates one)."""
    uri = pathlib.Path(os.path.abspath(path)).as_uri() + "?mode=rw"
    return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S)


def damaged(path: str, exc: sqlite3.DatabaseError) -> InvalidDataError:
    """The one-line error for a store SQLite cannot read or write."""
    if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
        return InvalidDataError(
            f"{path}: the results store stayed locked by another run for "
            f"{BUSY_TIMEOUT_S} s ({exc}); try again when it ends."
        )
    return InvalidDataError(f"{path}: the results store cannot be used ({exc}); {ADVICE}.")


def _tables(db: sqlite3.Connection) -> set[str]:
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def why_not_a_store(path: str) -> str | None:
    """Why the existing file at ``path`` is not a kernelsdp results store (None: it is one)."""
    with open(path, "rb") as fh:
        head = fh.read(len(SQLITE_HEADER))
    if not head:
        return "an empty file (0 bytes)"
    if head != SQLITE_HEADER:
        return "not an SQLite database"
    try:
        db = connect(path)
        try:
            tables = _tables(db)
            if "runs" not in tables:
                return "an SQLite database without kernelsdp's runs table"
            columns = {r[1] for r in db.execute("PRAGMA table_info(runs)")}
            if not columns >= RUNS_COLUMNS:
                return "its runs table lacks " + ", ".join(sorted(RUNS_COLUMNS - columns))
            check = [r[0] for r in db.execute("PRAGMA quick_check")]
            if check != ["ok"]:
                return f"damaged: {check[0]}"
        finally:
            db.close()
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc):
            raise damaged(path, exc) from None
        return f"damaged: {exc}"
    except sqlite3.DatabaseError as exc:
        return f"damaged: {exc}"
    return None


def _create(path: str) -> None:
    """A new, empty store at ``path``, built beside it and linked into place (a store made
    meanwhile by another run is kept: both then use it)."""
    from ..atomic import PREFIX
    from ..processes import this_process

    pid, started = this_process()
    tmp = os.path.join(
        os.path.dirname(os.path.abspath(path)),
        f"{PREFIX}{pid}-{started}-{time.monotonic_ns()}.sqlite",
    )
    try:
        db = sqlite3.connect(tmp)
        try:
            with db:
                db.execute(RUNS_TABLE)
                db.execute(LEASES_TABLE)
        finally:
            db.close()
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links
            if not os.path.exists(path):
                os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _upgrade(path: str) -> None:
    """Add what a store from an earlier kernelsdp lacks (the provenance column, leases)."""
    db = connect(path)
    try:
        with db:
            columns = {row[1] for row in db.execute("PRAGMA table_info(runs)")}
            if "produced_by" not in columns:
                db.execute("ALTER TABLE runs ADD COLUMN produced_by TEXT")
            if "leases" not in _tables(db):
                db.execute(LEASES_TABLE)
    except sqlite3.DatabaseError as exc:
        raise damaged(path, exc) from None
    finally:
        db.close()


def _writable(path: str, folder: str, exists: bool) -> None:
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InvalidDataError(
            f"{path}: cannot {'use' if exists else 'create'} the results store: the folder "
            f"{folder} is not writable{' (SQLite keeps its journal there)' if exists else ''}; "
            "name another with KERNELSDP_STORE."
        )
    if exists and not os.access(path, os.R_OK | os.W_OK):
        raise InvalidDataError(
            f"{path}: the results store is not readable and writable by "
            "this user; name another with KERNELSDP_STORE."
        )


def open_store_file(path: str, replace_invalid: bool = False) -> str | None:
    """Make ``path`` a usable store (see the module docstring); returns where an invalid file
    was set aside (``replace_invalid``), else None."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise InvalidDataError(
            f"{path}: cannot create the folder of the results store ({exc.strerror or exc})."
        ) from None
    if os.path.isdir(path):
        raise InvalidDataError(f"{path}: is a folder, not a results store file.")
    from ..atomic import remove_orphans

    remove_orphans(folder)  # what a killed run left: a store half-created, an export
    exists = os.path.exists(path)
    _writable(path, folder, exists)
    aside = None
    try:
        reason = why_not_a_store(path) if exists else None
        if reason is not None and not replace_invalid:
            what = (
                f"the results store is {reason}"
                if reason.startswith("damaged")
                else f"not a kernelsdp results store ({reason})"
            )
            raise InvalidDataError(f"{path}: {what}; it was left as it is: {ADVICE}.")
        if reason is not None:
            aside = f"{path}.invalid-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
            os.replace(path, aside)
            exists = False
        if not exists:
            _create(path)
    except (OSError, sqlite3.OperationalError) as exc:
        raise InvalidDataError(
            f"{path}: cannot {'open' if exists else 'create'} the results "
            f"store ({getattr(exc, 'strerror', None) or exc})."
        ) from None
    _upgrade(path)
    return aside
