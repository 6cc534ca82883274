"""The problems ``kernelsdp certify`` reads: SDPA files, folders of them, Python files.

- ``FILE.dat-s``: the sparse SDPA format (:mod:`kernelsdp.data.sdpa`), modelled as SDPA's
  primal;
- ``FILE.py``: a Python file defining ``problem()`` that returns a ``cvxpy.Problem``.  **It
  is executed**, so it runs only when asked (``allow_python``, ``--allow-python``): only
  run files you trust, as with any script.  Whatever it raises — an exception,
  ``SystemExit``, ``KeyboardInterrupt`` — is one line and a failed entry, never an exit;
- a folder: every ``*.dat-s`` in it (not recursive), sorted by name, and its ``*.py`` only
  with ``allow_python`` — point it at SDPLIB 1.2 (https://github.com/vsdp/SDPLIB,
  ``data/``), the standard set, to see how many of a solver's "optimal" answers survive a
  certificate.  An entry that cannot be read (a broken or looping link) is a failed entry,
  not the end of the run.

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


def problem_paths(path: str, allow_python: bool = False) -> list[str]:
    """The files a path stands for (a user error when there is none); ``.py`` files only
    with ``allow_python``."""
    suffixes = SUFFIXES if allow_python else (".dat-s",)
    try:
        if os.path.isdir(path):
            names = sorted(os.listdir(path))
        elif not os.path.lexists(path):
            raise InvalidDataError(f"{path}: no such file or folder.")
        else:
            names = None
    except OSError as exc:
        raise InvalidDataError(f"{path}: cannot be read: {exc.strerror or exc}.") from None
    if names is not None:
        files = [os.path.join(path, f) for f in names if f.endswith(suffixes)]
        skipped = sum(f.endswith(".py") for f in names) if not allow_python else 0
        if not files:
            raise InvalidDataError(
                f"{path}: no .dat-s file in this folder"
                + (
                    f" ({skipped} .py file(s) skipped: a .py file is executed, so it runs only "
                    "with --allow-python)."
                    if skipped
                    else "."
                )
            )
        return files
    if path.endswith(".py") and not allow_python:
        raise InvalidDataError(
            f"{path} is Python code, which kernelsdp certify executes: "
            "it runs only with --allow-python."
        )
    if not path.endswith(SUFFIXES):
        raise InvalidDataError(
            f"{path}: expected an SDPA file (.dat-s), a .py file defining "
            "problem() (with --allow-python), or a folder of them."
        )
    return [path]


def load_problem(path: str) -> ProblemFile:
    """Read one file into a CVXPY problem."""
    name = os.path.basename(path)
    if path.endswith(".dat-s"):
        return ProblemFile(name, path, read_sdpa(path).to_cvxpy())
    try:
        namespace = runpy.run_path(path)
    except BaseException as exc:
        raise InvalidDataError(f"{path}: running it raised {type(exc).__name__}: {exc}") from None
    make = namespace.get("problem")
    if not callable(make):
        raise InvalidDataError(f"{path}: defines no function problem() returning a cvxpy.Problem.")
    try:
        problem = make()
    except BaseException as exc:
        raise InvalidDataError(f"{path}: problem() raised {type(exc).__name__}: {exc}") from None
    if not isinstance(problem, cp.Problem):
        raise InvalidDataError(
            f"{path}: problem() returned {type(problem).__name__}, not a cvxpy.Problem."
        )
    from ..certificate.solved_problem import refuse_mixed_integer

    refuse_mixed_integer(problem, path)
    return ProblemFile(name, path, problem)


def check_row(c) -> dict:
    """One solver's answer to one file, as ``kernelsdp certify`` prints and stores it."""
    return {
        "solver": c.solver,
        "status": c.status,
        "claimed": c.claimed,
        "objective": c.objective,
        "dimacs": c.dimacs,
        "lower": c.lower,
        "upper": c.upper,
        "rigorous": c.rigorous,
        "passed": c.passed,
        "failed": c.failed,
        "verdict": c.verdict,
        "solve_time_s": c.solve_time_s,
        "certify_time_s": c.certify_time_s,
        "kind": c.kind,
        "note": c.note,
        "lower_label": c.lower_label,
        "upper_label": c.upper_label,
        "lower_why": c.lower_why,
        "upper_why": c.upper_why,
        "width": c.width,
        "measures": c.residuals,
    }


def certify_unit(path: str, solvers: list[str], tol: float, time_limit: float | None) -> dict:
    """The runner's unit for one file: its path, the file's SHA-256 (an edited file is a new
    unit) and every setting that changes the answer."""
    try:
        with open(path, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
    except OSError as exc:  # a broken or looping link: the unit fails with one line
        digest = f"unreadable: {exc.strerror or exc}"
    return {
        "path": os.path.abspath(path),
        "sha256": digest,
        "solvers": list(solvers),
        "tol": tol,
        "time_limit": time_limit,
    }


def certify_file(unit: dict) -> dict:
    """Solve one file with each solver and certify every answer (a module-level function:
    the runner may send it to another process).  A file that cannot be read or solved is
    a record with its one-line ``error``."""
    from .report import verify

    options = (
        {n: {"time_limit": unit["time_limit"]} for n in unit["solvers"]}
        if unit.get("time_limit")
        else {}
    )
    if unit["sha256"].startswith("unreadable"):
        return {"error": f"{unit['path']}: cannot be read ({unit['sha256'][12:]})", RETRY: False}
    try:
        pf = load_problem(unit["path"])
        rep = verify(pf.problem, unit["solvers"], tol_=unit["tol"], **options)
    except KernelSDPError as exc:  # a size refused on this machine is tried again next time
        return {"error": str(exc), RETRY: isinstance(exc, TooLargeError)}
    rep.problem.update(name=pf.name, path=unit["path"])
    return {
        "problem": rep.problem,
        "passed": rep.passed,
        "solvers": [check_row(c) for c in rep.checks],
        "comparisons": [asdict(c) for c in rep.comparisons],
    }
