"""How long the command line takes to answer: ``kernelsdp --help`` against the 0.5 s bar of
issue #28, measured in fresh processes beside a bare interpreter (``python -c pass``) and
the import of CVXPY that ``--help`` no longer pays.

    python benchmarks/cli_startup.py [--quick] [--runs N] [--baseline DIR]

Prints the median and the best wall time of each command over N runs, taken in turn (so
that a busy machine slows them alike), and the ratio of ``--help`` to the bare interpreter;
with ``--baseline DIR`` (another checkout, e.g. ``git worktree add DIR <commit>``) also that
tree's ``--help`` in the same run, and the ratio. A measurement, not a test: nothing is
asserted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

BAR_S = 0.5


def commands(baseline: str | None = None) -> dict[str, list[str]]:
    exe = shutil.which("kernelsdp")
    cli = [exe] if exe else [sys.executable, "-m", "kernelsdp.cli"]
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "kernelsdp --help": [*cli, "--help"],
        "kernelsdp --version": [*cli, "--version"],
        "kernelsdp solve npkl --help": [*cli, "solve", "npkl", "--help"],
        "python -c 'import cvxpy'": [sys.executable, "-c", "import cvxpy"],
    } | (
        {
            "baseline --help": [
                sys.executable,
                "-c",
                "import sys; sys.path.insert(0, "
                f"{os.path.abspath(baseline)!r}); from kernelsdp.cli import main; "
                "sys.exit(main(['--help']))",
            ]
        }
        if baseline
        else {}
    )


def wall_times(cmds: dict[str, list[str]], runs: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in cmds}
    for _ in range(runs):
        for name, argv in cmds.items():
            t0 = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            times[name].append(time.perf_counter() - t0)
    return times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="3 runs instead of the default")
    ap.add_argument("--runs", type=int, default=15, help="runs of each command (default 15)")
    ap.add_argument("--baseline", metavar="DIR", help="another checkout whose --help to time")
    args = ap.parse_args(argv)
    runs = 3 if args.quick else args.runs
    times = wall_times(commands(args.baseline), runs)
    print(f"wall time of a fresh process, {runs} runs each, in turn")
    print(f"{'command':<30} {'median':>8} {'best':>8}")
    for name, ts in times.items():
        print(f"{name:<30} {statistics.median(ts):7.3f}s {min(ts):7.3f}s")
    help_s = statistics.median(times["kernelsdp --help"])
    bare_s = statistics.median(times["python -c pass"])
    verdict = "under" if help_s < BAR_S else "OVER"
    print(
        f"kernelsdp --help: {help_s:.3f} s median, {verdict} the {BAR_S} s bar; "
        f"{help_s / bare_s:.1f}x a bare interpreter"
    )
    if args.baseline:
        base_s = statistics.median(times["baseline --help"])
        print(
            f"baseline ({args.baseline}) --help: {base_s:.3f} s median; this tree's is "
            f"{base_s / help_s:.1f}x faster"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
