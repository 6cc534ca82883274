"""Sweeps: a grid of formulations × solvers × parameters × data sets, run through the
project's one runner (:func:`kernelsdp.runs.run_units`) and results store, locally with
joblib or on a Dask / Ray cluster through joblib's backend; every answer certified.

    spec = read_spec("examples/sweep.toml")
    summary = run_sweep(spec, jobs=2)            # or backend="dask", scheduler="tcp://…:8786"
    print(table(summary.records, spec_keys(spec)))

The spec format is in :mod:`.spec`, one unit's work in :mod:`.unit`, the table and plot in
:mod:`.summary`, the cluster connections in :mod:`.cluster`.
"""

from __future__ import annotations

from ..runs import ResultsStore, RunSummary, run_units
from .cluster import connect
from .spec import Spec, parse_spec, read_spec
from .summary import plot, table
from .unit import run_unit


def spec_keys(spec: Spec) -> list[str]:
    """Every key the spec's units use, in first-seen order."""
    return list(dict.fromkeys(k for u in spec.units for k in u))


def run_sweep(
    spec: Spec,
    *,
    jobs: int | None = None,
    backend: str | None = None,
    scheduler: str | None = None,
    fresh: bool = False,
    store: ResultsStore | None = None,
) -> RunSummary:
    """Run the spec's units not yet in the store (all of them with ``fresh``); each finished
    unit is saved at once.  ``jobs``/``backend``/``scheduler`` override the spec's
    [cluster] table."""
    backend = backend or spec.backend
    scheduler = scheduler or spec.scheduler
    jobs = jobs if jobs is not None else spec.jobs
    if backend in ("dask", "ray") and jobs == 1:
        jobs = -1  # every worker of the cluster
    with connect(backend, scheduler) as joblib_backend:
        return run_units(
            spec.study,
            spec.units,
            run_unit,
            store=store,
            n_jobs=jobs,
            backend=joblib_backend,
            desc=f"sweep {spec.study}",
            fresh=fresh,
        )


__all__ = [
    "Spec",
    "connect",
    "parse_spec",
    "plot",
    "read_spec",
    "run_sweep",
    "run_unit",
    "spec_keys",
    "table",
]
