"""Files written whole or not at all: a temporary file beside the target, renamed over it
when complete, with the user's umask (not mkstemp's 0600).  Used for every output file of
the CLI, the results' CSV/JSON exports and the benchmarks' tables."""

from __future__ import annotations

import os
import tempfile
from typing import Callable


def write_atomically(path: str, write: Callable[[str], None], suffix: str = "") -> None:
    """Call ``write(tmp)`` on a temporary path in ``path``'s folder, then rename it to
    ``path``; on any failure nothing is left behind and ``path`` is untouched."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(suffix=suffix, dir=folder, prefix=".kernelsdp-")
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
