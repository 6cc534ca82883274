"""Run a benchmark's parts, each in its own subprocess (so each peak RSS is its own).

A benchmark script defines ``PARTS`` (name → function(quick) → JSON-able dict) and a
``report(name, result)`` printer, and calls :func:`run` from its ``__main__``.  The child
process prints its result as JSON on its last stdout line.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from typing import Callable


def run(script: str, doc: str, parts: dict[str, Callable[[bool], dict]],
        report: Callable[[str, dict], None], extra: Callable[[argparse.Namespace], int | None] | None = None,
        extra_args: Callable[[argparse.ArgumentParser], None] | None = None) -> int:
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--part", choices=parts)
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
    for name in ([a.part] if a.part else parts):
        cmd = [sys.executable, script, "--part", name, "--child"] + (["--quick"] if a.quick else [])
        out = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        if out.returncode != 0:
            print(f"\n== {name}: failed (exit {out.returncode})")
            continue
        report(name, json.loads(out.stdout.strip().splitlines()[-1]))
    return 0
