"""Leases: which run works on a unit now, so that concurrent runs of one study on one store
run each unit exactly once (issue #29).

Before a run starts a unit it takes the unit's lease in one write transaction
(:meth:`~kernelsdp.runs.store.ResultsStore.claim`): a finished unit is not run again, and a
unit leased by another run that is still alive is left to it.  A lease names its owner
by pid *and* process start time (:mod:`.processes`), host and a token of the run, so a
lease whose process is gone — a run killed by ``kill -9`` — is retaken at once, and a
reused pid never passes for its owner.  A lease taken on another host cannot be checked
from here and is trusted; ``--fresh`` forgets a study's leases with its records.  The
record and the end of the lease are written in one transaction.
"""

from __future__ import annotations

import socket
import sqlite3
import time
import uuid
from dataclasses import dataclass

from ..processes import is_alive, this_process

#: what :func:`claim` finds: the lease is now ours, the unit is finished, another run has it
CLAIMED, DONE, HELD = "claimed", "done", "held"


@dataclass(frozen=True)
class Owner:
    """One run: its process (pid, start time), host, and a token (two runs in one process
    are two owners)."""

    pid: int
    started: int
    host: str
    run: str

    @classmethod
    def current(cls) -> Owner:
        pid, started = this_process()
        return cls(pid, started, socket.gethostname(), uuid.uuid4().hex)


def holder_alive(pid: int, started: int, host: str) -> bool:
    """Whether the process holding a lease still runs (another host's: assumed so)."""
    return host != socket.gethostname() or is_alive(pid, started)


def claim(db: sqlite3.Connection, study: str, key: str, owner: Owner) -> str:
    """Inside a write transaction: take the lease on (study, key) unless the unit is finished
    or a live run of another owner holds it."""
    if db.execute("SELECT 1 FROM runs WHERE study = ? AND unit = ?", (study, key)).fetchone():
        return DONE
    row = db.execute(
        "SELECT pid, started, host, run FROM leases WHERE study = ? AND unit = ?", (study, key)
    ).fetchone()
    if row is not None and row[3] != owner.run and holder_alive(*row[:3]):
        return HELD
    db.execute(
        "INSERT OR REPLACE INTO leases (study, unit, pid, started, host, run, taken) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (study, key, owner.pid, owner.started, owner.host, owner.run, time.time()),
    )
    return CLAIMED


def release(db: sqlite3.Connection, study: str, owner: Owner, key: str | None = None) -> None:
    """Drop ``owner``'s lease on one unit (every lease of ``owner`` in the study without key)."""
    if key is None:
        db.execute("DELETE FROM leases WHERE study = ? AND run = ?", (study, owner.run))
    else:
        db.execute(
            "DELETE FROM leases WHERE study = ? AND unit = ? AND run = ?", (study, key, owner.run)
        )
