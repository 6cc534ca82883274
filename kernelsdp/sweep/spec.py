"""The sweep spec: a TOML file naming a study and the grid of its units.

    study = "npkl-uci"                 # the study's name in the results store
    out = "out/sweeps"                 # where the table, CSV/JSON and PNG go (optional)
    tol = 1e-3                         # the certificates' tolerance (optional; default
                                       # CERTIFY_TOL, 1e-6: one tolerance judges every unit)

    [grid]                             # every combination of these values is one unit
    formulation = "npkl"               # a scalar is a one-value list
    solver = ["admm", "clarabel"]
    dataset = ["iris", "wine"]
    n_points = 60
    loss = ["hinge", "l2"]
    capacity = "trace"
    C = [0.3, 1.0]
    B = 60

    [options.admm]                     # options of one solver, added to its units only
    rank = 8

    [cluster]                          # optional; command-line flags take precedence
    backend = "dask"                   # loky (local processes), dask or ray
    scheduler = "tcp://10.0.0.1:8786"  # the running scheduler's address
    jobs = -1

``grid`` may also be an array of tables (``[[grid]]``): the units are then the union, in
order, without repeats.  A grid key that is an option of some of the listed solvers only
applies to those (``rank`` does not multiply Clarabel's units).  Every unit is checked
when the spec is read, by the formulation's and the solvers' declarations — names, types,
ranges (``C = [1.0, -1.0]`` fails on −1 before C = 1 is solved), the one problem source,
option types and ranges — without reading any data: 10⁴ units take well under a second
(``tests/test_declared_inputs.py``).  A grid of more than ``MAX_UNITS`` units is refused
unless the caller raises the limit (``kernelsdp sweep --max-units N``).  Every setting
lives in the unit, so a changed setting is a new unit and never reuses a stale record.
"""

from __future__ import annotations

import functools
import itertools
import os
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass

from ..errors import InvalidDataError, InvalidParameterError
from ..runs import unit_key
from .unit import META, SOLVER_PREFIX, check_unit, problem_inputs, solver_option_names

BACKENDS = ("loky", "dask", "ray")
DEFAULT_OUT = os.path.join("out", "sweeps")
_TOP = ("study", "out", "tol", "grid", "options", "cluster")
_CLUSTER = ("backend", "scheduler", "jobs")
#: the most units a spec may expand to unless the caller says more (--max-units)
MAX_UNITS = 10_000
#: the largest spec file read (a spec is written by hand; its grid multiplies values)
MAX_SPEC_BYTES = 2**20


@dataclass
class Spec:
    study: str
    units: list[dict]
    out: str = DEFAULT_OUT
    backend: str | None = None
    scheduler: str | None = None
    jobs: int = 1


def _values(key: str, v) -> list:
    vals = v if isinstance(v, list) else [v]
    if not vals:
        raise InvalidParameterError(f"the sweep key {key!r} lists no value.")
    for x in vals:
        if not isinstance(x, (bool, int, float, str)):
            raise InvalidParameterError(
                f"the sweep key {key!r} must hold numbers, strings or booleans; got {x!r}."
            )
    return vals


def expand(grid: dict, options: dict) -> Iterator[dict]:
    """The units of one grid table (see the module docstring), one at a time."""
    for key in META:
        if key not in grid:
            raise InvalidParameterError(f"the sweep grid needs the key {key!r}.")
    keys = list(grid)
    solvers = _values("solver", grid["solver"])
    own = functools.cache(solver_option_names)
    for combo in itertools.product(*(_values(k, grid[k]) for k in keys)):
        unit = dict(zip(keys, combo))
        inputs = problem_inputs(unit["formulation"])
        mine = own(unit["formulation"], unit["solver"])
        # drop what only other solvers take
        others = {o for s in solvers if s != unit["solver"] for o in own(unit["formulation"], s)}
        unit = {
            k: v
            for k, v in unit.items()
            if k in META or k in inputs or k in mine or k not in others
        }
        for k, v in options.get(unit["solver"], {}).items():
            k = SOLVER_PREFIX + k if k in inputs else k  # e.g. the solver's seed, not the data's
            if k in unit and unit[k] != v:
                raise InvalidParameterError(
                    f"the sweep sets {k!r} both in the grid and in [options.{unit['solver']}]."
                )
            unit[k] = v
        yield unit


def _units(grids: list[dict], options: dict, max_units: int, where: str) -> list[dict]:
    """Every unit of the grids, without repeats, each checked; more than ``max_units`` is
    refused before any is checked."""
    units, seen = [], set()
    for g in grids:
        for u in expand(g, options):
            k = unit_key(u)
            if k not in seen:
                seen.add(k)
                units.append(u)
                if len(units) > max_units:
                    raise InvalidParameterError(
                        f"{where}: the grid has more than {max_units:,} units; split the study "
                        f"or raise the limit (kernelsdp sweep --max-units N)."
                    )
    for u in units:
        check_unit(u)
    return units


def parse_spec(data: dict, where: str = "the sweep spec", max_units: int = MAX_UNITS) -> Spec:
    extra = sorted(set(data) - set(_TOP))
    if extra:
        raise InvalidParameterError(
            f"{where}: unknown key(s) {', '.join(extra)}; the keys are {', '.join(_TOP)}."
        )
    study = data.get("study")
    if not isinstance(study, str) or not study.strip():
        raise InvalidParameterError(f'{where} needs a study name: study = "NAME".')
    grids = data.get("grid")
    if isinstance(grids, dict):
        grids = [grids]
    if not isinstance(grids, list) or not grids or not all(isinstance(g, dict) for g in grids):
        raise InvalidParameterError(f"{where} needs a [grid] table (or [[grid]] tables).")
    options = data.get("options", {})
    if not isinstance(options, dict) or not all(isinstance(v, dict) for v in options.values()):
        raise InvalidParameterError(f"{where}: [options.SOLVER] tables map option names to values.")
    named = {str(s) for g in grids for s in _values("solver", g.get("solver", []))}
    stray = sorted(set(options) - named)
    if stray:
        raise InvalidParameterError(
            f"{where}: [options.{stray[0]}] names no solver of the grid "
            f"(its solvers: {', '.join(sorted(named)) or 'none'})."
        )
    units = _units(grids, options, max_units, where)
    if "tol" in data:  # part of each unit: another tolerance is another answer
        t = data["tol"]
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 < t < 1:
            raise InvalidParameterError(
                f"The 'tol' parameter of the sweep must be a float in (0, 1). Got {t!r} instead."
            )
        for u in units:
            u["tol"] = float(t)
    cluster = data.get("cluster", {})
    bad = sorted(set(cluster) - set(_CLUSTER)) if isinstance(cluster, dict) else ["(not a table)"]
    if bad:
        raise InvalidParameterError(
            f"{where}: unknown [cluster] key(s) {', '.join(bad)}; the "
            f"keys are {', '.join(_CLUSTER)}."
        )
    backend = cluster.get("backend")
    if backend is not None and backend not in BACKENDS:
        raise InvalidParameterError(
            f"The 'backend' parameter of the sweep must be one of "
            f"{', '.join(map(repr, BACKENDS))}. Got {backend!r} instead."
        )
    jobs = cluster.get("jobs", 1)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs == 0:
        raise InvalidParameterError(
            f"The 'jobs' parameter of the sweep must be a non-zero int "
            f"(-1: all cores). Got {jobs!r} instead."
        )
    out = data.get("out", DEFAULT_OUT)
    if not isinstance(out, str) or not out:
        raise InvalidParameterError(f"{where}: out must be a folder name.")
    return Spec(study.strip(), units, out, backend, cluster.get("scheduler"), jobs)


def read_spec(path: str, max_units: int = MAX_UNITS) -> Spec:
    """The spec in a TOML file (a malformed file is one line naming it)."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_SPEC_BYTES + 1)
        if len(raw) > MAX_SPEC_BYTES:
            raise InvalidDataError(
                f"{path}: a sweep spec of more than {MAX_SPEC_BYTES // 2**20} "
                "MiB is not read; list fewer values."
            )
        data = tomllib.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise InvalidDataError(
            f"{path}: not UTF-8 text (byte {exc.start}); TOML is UTF-8."
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise InvalidDataError(f"{path}: not valid TOML ({exc}).") from None
    except OSError as exc:
        raise InvalidDataError(
            f"{path}: cannot read the sweep spec ({exc.strerror or exc})."
        ) from None
    return parse_spec(data, path, max_units)
