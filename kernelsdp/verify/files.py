"""The problems ``kernelsdp certify`` reads: SDPA files, folders of them, Python files.

- ``FILE.dat-s``: the sparse SDPA format (:mod:`kernelsdp.data.sdpa`), modelled as SDPA's
  primal;
- ``FILE.py``: a Python file defining ``problem()`` that returns a ``cvxpy.Problem`` (it is
  executed: only run files you trust, as with any script);
- a folder: every ``*.dat-s`` and ``*.py`` in it (not recursive), sorted by name — point it
  at SDPLIB 1.2 (https://github.com/vsdp/SDPLIB, ``data/``), the standard set, to see how
  many of a solver's "optimal" answers survive a certificate.
"""

from __future__ import annotations

import os
import runpy
from dataclasses import dataclass

import cvxpy as cp

from ..data.sdpa import read_sdpa
from ..errors import InvalidDataError

SUFFIXES = (".dat-s", ".py")


@dataclass
class ProblemFile:
    name: str
    path: str
    problem: cp.Problem


def problem_paths(path: str) -> list[str]:
    """The files a path stands for (a user error when there is none)."""
    if os.path.isdir(path):
        files = sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(SUFFIXES))
        if not files:
            raise InvalidDataError(f"{path}: no .dat-s or .py file in this folder.")
        return files
    if not os.path.exists(path):
        raise InvalidDataError(f"{path}: no such file or folder.")
    if not path.endswith(SUFFIXES):
        raise InvalidDataError(f"{path}: expected an SDPA file (.dat-s), a .py file defining "
                               "problem(), or a folder of them.")
    return [path]


def load_problem(path: str) -> ProblemFile:
    """Read one file into a CVXPY problem."""
    name = os.path.basename(path)
    if path.endswith(".dat-s"):
        return ProblemFile(name, path, read_sdpa(path).to_cvxpy())
    try:
        namespace = runpy.run_path(path)
    except Exception as exc:  # the user's script failed: say so in one line
        raise InvalidDataError(f"{path}: running it raised {type(exc).__name__}: {exc}") from None
    make = namespace.get("problem")
    if not callable(make):
        raise InvalidDataError(f"{path}: defines no function problem() returning a cvxpy.Problem.")
    try:
        problem = make()
    except Exception as exc:
        raise InvalidDataError(f"{path}: problem() raised {type(exc).__name__}: {exc}") from None
    if not isinstance(problem, cp.Problem):
        raise InvalidDataError(f"{path}: problem() returned {type(problem).__name__}, "
                               "not a cvxpy.Problem.")
    return ProblemFile(name, path, problem)
