"""Which process owns something, and whether it is still alive: a process is named by its
pid *and* its start time, so a pid reused by another program after a crash never passes
for the owner (leases of the results store, temporary files of atomic writes).

On Linux the start time is field 22 of ``/proc/PID/stat`` (clock ticks since boot); where
there is no ``/proc`` it is unknown (0) and only the pid is compared.  Workers of a local
parallel run call :func:`die_with_parent` first: on Linux the kernel kills them when the
process that started them dies (``prctl(PR_SET_PDEATHSIG)``), so a ``kill -9`` of a sweep
leaves no worker behind.
"""

from __future__ import annotations

import os
import signal
import sys

#: prctl(2)'s option that sets the signal a child gets when its parent dies (linux/prctl.h)
PR_SET_PDEATHSIG = 1


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (None: no such process)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            text = fh.read().decode("ascii", "replace")
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    except OSError:
        return None
    return text[text.rfind(")") + 2 :].split()  # the name may hold spaces and parentheses


def start_time(pid: int) -> int | None:
    """The process's start time (clock ticks since boot; 0 where ``/proc`` is absent), or None
    when the process is gone or a zombie."""
    if not os.path.isdir("/proc/self"):
        return 0 if _pid_exists(pid) else None
    fields = _stat_fields(pid)
    if fields is None or fields[0] in ("Z", "X"):  # state: a zombie has finished
        return None
    return int(fields[19])  # starttime is field 22; fields[0] is field 3 (state)


def _pid_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def this_process() -> tuple[int, int]:
    """(pid, start time) of this process."""
    pid = os.getpid()
    return pid, start_time(pid) or 0


def is_alive(pid: int, started: int) -> bool:
    """Whether the process (pid, start time) still runs (a reused pid does not count)."""
    now = start_time(int(pid))
    return now is not None and (not started or not now or now == int(started))


def parent_of(pid: int) -> int | None:
    """The parent pid of a live process (None: gone, or no ``/proc``)."""
    fields = _stat_fields(pid)
    return None if fields is None else int(fields[1])


def descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid`` (children, their children, ...), from ``/proc``."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if name.isdigit():
            ppid = parent_of(int(name))
            if ppid is not None:
                children.setdefault(ppid, []).append(int(name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def die_with_parent(parent: int) -> None:
    """A worker's initializer: on Linux ask the kernel to SIGKILL this process when its parent
    dies, then exit at once if the parent (pid ``parent``) is already gone.  Elsewhere it
    does nothing (joblib ends idle workers after its timeout)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # no prctl: nothing more can be done here
        return
    if os.getppid() != parent:  # the parent died before the signal was set
        os._exit(1)
