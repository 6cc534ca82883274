"""The problems ``kernelsdp certify`` reads: SDPA files, folders of them, Python files.

- ``FILE.dat-s``: the sparse SDPA format (:mod:`kernelsdp.data.sdpa`), modelled as SDPA's
  primal;
- ``FILE.py``: a Python file defining ``problem()`` that returns a ``cvxpy.Problem`` (it is
  executed: only run files you trust, as with any script);
- a folder: every ``*.dat-s`` and ``*.py`` in it (not recursive), sorted by name — point it
  at SDPLIB 1.2 (https://github.com/vsdp/SDPLIB, ``data/``), the standard set, to see how
  many of a solver's "optimal" answers survive a certificate.

:func:`certify_file` is the unit of work :func:`kernelsdp.runs.run_units` runs for each file
of a folder: a folder's answers are kept in the results store as they finish, and a re-run
certifies only the files not done yet (or edited since).
"""

from __future__ import annotations

import hashlib
import os
import runpy
from dataclasses import asdict, dataclass

import cvxpy as cp

from ..data.sdpa import read_sdpa
from ..errors import InvalidDataError, KernelSDPError, TooLargeError
from ..runs.runner import RETRY

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


def check_row(c) -> dict:
    """One solver's answer to one file, as ``kernelsdp certify`` prints and stores it."""
    return {"solver": c.solver, "status": c.status, "claimed": c.claimed,
            "objective": c.objective, "dimacs": c.dimacs, "lower": c.lower, "upper": c.upper,
            "rigorous": c.rigorous, "passed": c.passed, "failed": c.failed,
            "verdict": c.verdict, "solve_time_s": c.solve_time_s,
            "certify_time_s": c.certify_time_s, "kind": c.kind, "note": c.note}


def certify_unit(path: str, solvers: list[str], tol: float, time_limit: float | None) -> dict:
    """The runner's unit for one file: its path, the file's SHA-256 (an edited file is a new
    unit) and every setting that changes the answer."""
    with open(path, "rb") as fh:
        digest = hashlib.sha256(fh.read()).hexdigest()
    return {"path": os.path.abspath(path), "sha256": digest, "solvers": list(solvers),
            "tol": tol, "time_limit": time_limit}


def certify_file(unit: dict) -> dict:
    """Solve one file with each solver and certify every answer (a module-level function:
    the runner may send it to another process).  A file that cannot be read or solved is
    a record with its one-line ``error``."""
    from .report import verify

    options = ({n: {"time_limit": unit["time_limit"]} for n in unit["solvers"]}
               if unit.get("time_limit") else {})
    try:
        pf = load_problem(unit["path"])
        rep = verify(pf.problem, unit["solvers"], tol_=unit["tol"], **options)
    except KernelSDPError as exc:  # a size refused on this machine is tried again next time
        return {"error": str(exc), RETRY: isinstance(exc, TooLargeError)}
    rep.problem.update(name=pf.name, path=unit["path"])
    return {"problem": rep.problem, "passed": rep.passed,
            "solvers": [check_row(c) for c in rep.checks],
            "comparisons": [asdict(c) for c in rep.comparisons]}
