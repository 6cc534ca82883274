"""Files written whole or not at all: a temporary file beside the target, renamed over it
when complete, with the user's umask (not mkstemp's 0600).  Used for every output file of
the CLI, the results' CSV/JSON exports and the benchmarks' tables.

A temporary file's name says which process writes it (``.kernelsdp-PID-START-…``: pid and
start time, :mod:`kernelsdp.processes`), so one left behind by a killed run is
recognised and removed by the next write into that folder (:func:`remove_orphans`), while
another live run's file is left alone."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable

#: the start of every temporary file's name; then the writer's pid and start time
PREFIX = ".kernelsdp-"


def write_atomically(path: str, write: Callable[[str], None], suffix: str = "") -> None:
    """Call ``write(tmp)`` on a temporary path in ``path``'s folder, then rename it to
    ``path``; on any failure nothing is left behind and ``path`` is untouched."""
    from .processes import this_process

    folder = os.path.dirname(os.path.abspath(path))
    remove_orphans(folder)
    pid, started = this_process()
    fd, tmp = tempfile.mkstemp(suffix=suffix, dir=folder, prefix=f"{PREFIX}{pid}-{started}-")
    os.close(fd)
    try:
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def remove_orphans(folder: str) -> list[str]:
    """Remove the temporary files in ``folder`` whose writer is no longer running (a run
    killed mid-write); returns their paths.  Files of live writers are kept."""
    from .processes import is_alive

    removed = []
    try:
        names = [n for n in os.listdir(folder) if n.startswith(PREFIX)]
    except OSError:
        return removed
    for name in names:
        owner = name[len(PREFIX) :].split("-")
        if len(owner) < 3 or not (owner[0].isdigit() and owner[1].isdigit()):
            continue  # not written by this scheme: not ours to judge
        if not is_alive(int(owner[0]), int(owner[1])):
            try:
                os.remove(os.path.join(folder, name))
                removed.append(os.path.join(folder, name))
            except OSError:
                pass
    return removed
