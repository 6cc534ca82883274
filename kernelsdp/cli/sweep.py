"""``kernelsdp sweep SPEC.toml``: run a study's grid (see :mod:`kernelsdp.sweep.spec`), print
its summary table, export it as CSV/JSON and plot it under the spec's ``out`` folder."""

from __future__ import annotations

import json
import os
import sys

#: a spec expanding to more units than this is refused unless --max-units says otherwise
#: (kept in step with kernelsdp.sweep.spec.MAX_UNITS, without importing it for --help)
MAX_UNITS = 10_000


def add_parser(sub) -> None:
    p = sub.add_parser(
        "sweep",
        help="run a grid of problems x solvers x parameters, certified",
        description="Run every unit of SPEC.toml that the results store does not "
        "hold yet (each saved the moment it finishes; a re-run skips them), "
        "certify every answer, then print the summary table and write "
        "<out>/<study>.csv, .json and .png.",
    )
    p.add_argument(
        "spec",
        metavar="SPEC.toml",
        help="the sweep spec (study, [grid], [options.SOLVER], [cluster])",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="parallel units (joblib; -1: all cores; default: the spec's, else 1)",
    )
    p.add_argument(
        "--backend",
        choices=("loky", "dask", "ray"),
        default=None,
        help="where units run: local processes, a Dask or a Ray cluster",
    )
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="the cluster's scheduler address (dask: tcp://HOST:8786)",
    )
    p.add_argument(
        "--fresh",
        action="store_true",
        help="forget the study's finished units "
        "first; a store file that is not a valid store is set aside, not reused",
    )
    p.add_argument("--json", action="store_true", help="print the records as JSON")
    p.add_argument(
        "--max-units",
        type=int,
        default=MAX_UNITS,
        metavar="N",
        help=f"refuse a grid of more units than this (default {MAX_UNITS:,}); every "
        "unit is checked before the first solve",
    )


def cmd_sweep(args) -> int:
    from ..atomic import remove_orphans
    from ..runs import ResultsStore
    from ..sweep import plot, read_spec, run_sweep, spec_keys, table
    from ..sweep.summary import check_out
    from .output import clean

    spec = read_spec(args.spec, max_units=args.max_units)
    check_out(spec.study, spec.out)  # before any unit runs (issue #29)
    remove_orphans(os.path.abspath(spec.out))  # temporary files of a killed run's exports
    store = ResultsStore(replace_invalid=args.fresh)
    if store.set_aside:
        sys.stderr.write(
            f"kernelsdp: {store.path} was not a results store; it is kept as "
            f"{store.set_aside} and a new store was started (--fresh).\n"
        )
    summary = run_sweep(
        spec,
        jobs=args.jobs,
        backend=args.backend,
        scheduler=args.scheduler,
        fresh=args.fresh,
        store=store,
    )
    csv_path, json_path = store.export(spec.study, spec.out, records=summary.records)
    png = plot(summary.records, os.path.splitext(csv_path)[0] + ".png", spec.study)
    if args.json:
        print(json.dumps(clean(summary.records), indent=1))
    else:
        print(table(summary.records, spec_keys(spec)))
        stale = f" ({summary.stale} from another kernelsdp)" if summary.stale else ""
        others = f", {summary.others} by another run meanwhile" if summary.others else ""
        print(
            f"{summary.ran} run, {summary.skipped} already in {summary.store_path}{stale}"
            f"{others}; "
            f"wrote {csv_path}, {json_path}, {png}"
        )
    return 0 if all(r.get("passed") or r.get("status") == "refused" for r in summary.records) else 1
