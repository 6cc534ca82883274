"""Run a benchmark's parts, each in its own subprocess (so each peak RSS is its own), each
finished part kept in the project's results store (kernelsdp.runs) as soon as it ends.

A benchmark script defines ``PARTS`` (name → function(quick) → JSON-able dict) and a
``report(name, result)`` printer, and calls :func:`run` from its ``__main__``.  The child
process prints its result as JSON on its last stdout line.  A re-run reports the parts the
store already holds without measuring them again (``--fresh`` measures everything anew);
Ctrl-C stops with one line saying what was kept; the results are also written as
``out/benchmarks/<script>[-quick].csv`` and ``.json``.  ``unit_extra`` goes into every
part's key (a benchmark on k-NN graphs passes data.graph.GRAPH_REVISION, so parts measured
on another graph are measured again, not reported); it may be a function of the parsed
arguments, for a key that depends on them (an input folder's contents).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable

from kernelsdp.errors import Interrupted
from kernelsdp.runs import ResultsStore, run_units


class PartFailed(Exception):
    """A part's child process exited non-zero (nothing is stored for it)."""


def run(
    script: str,
    doc: str,
    parts: dict[str, Callable[[bool], dict]],
    report: Callable[[str, dict], None],
    extra: Callable[[argparse.Namespace], int | None] | None = None,
    extra_args: Callable[[argparse.ArgumentParser], None] | None = None,
    unit_extra: dict | Callable[[argparse.Namespace], dict] | None = None,
) -> int:
    ap = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--part", choices=parts)
    ap.add_argument(
        "--fresh", action="store_true", help="measure again the parts the results store holds"
    )
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    if extra_args is not None:
        extra_args(ap)
    a = ap.parse_args()
    if extra is not None:
        code = extra(a)
        if code is not None:
            return code
    if a.child:
        print(json.dumps(parts[a.part](a.quick)))
        return 0
    if callable(unit_extra):
        unit_extra = unit_extra(a)
    name = os.path.splitext(os.path.basename(script))[0]
    study = f"benchmark:{name}" + (":quick" if a.quick else "")
    store = ResultsStore()

    def measure(unit: dict) -> dict:
        cmd = [sys.executable, script, "--part", unit["part"], "--child"] + (
            ["--quick"] if a.quick else []
        )
        out = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        if out.returncode != 0:
            raise PartFailed(f"exit {out.returncode}")
        return {"result": json.loads(out.stdout.strip().splitlines()[-1])}

    try:
        for part in [a.part] if a.part else parts:
            unit = {"part": part, "quick": a.quick, **(unit_extra or {})}
            if a.fresh:
                store.forget(study, unit)
            try:
                summary = run_units(study, [unit], measure, store=store)
            except PartFailed as exc:
                print(f"\n== {part}: failed ({exc})")
                continue
            if summary.skipped:
                print(
                    f"\n(== {part}: kept from an earlier run in {store.path}; "
                    "--fresh measures it again)"
                )
            report(part, summary.records[0]["result"])
    except Interrupted as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 130
    csv_path, _ = store.export(study, os.path.join("out", "benchmarks"))
    print(f"\nresults: {csv_path} (and .json beside it)")
    return 0
