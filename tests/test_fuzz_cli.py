"""The command line under random option values (issue #29): every solver option of NPKL's
solvers, drawn from its declared range and just outside it, ends in a result (exit 0 or
1) or one readable line and exit 2 — never a traceback, within a bounded time (an alarm)
and memory (RLIMIT_AS).

The draws run in one long-lived child (a fresh interpreter that imports the CLI once and
forks a grandchild per draw, each under its own RLIMIT_AS and alarm), so a draw costs its
solve, not an interpreter start, and the test process is never forked."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import subprocess
import sys
import typing

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernelsdp.cli.inputs import NOT_FLAGS
from kernelsdp.declarations import strip_optional
from kernelsdp.formulations import FORMULATIONS
from kernelsdp.solvers import solvers_for

#: each draw's limits: address space (GiB), seconds, and the memory kernelsdp may plan
AS_GIB, ALARM_S, MEMORY_GIB = 4, 120, 1

SERVER = r"""
import json, os, resource, signal, sys, traceback
import cvxpy, kernelsdp.solvers, kernelsdp.formulations  # imported once, before the forks
from kernelsdp.cli import main, make_parser
make_parser()
as_bytes, alarm = int(sys.argv[1]) * 2**30, int(sys.argv[2])
for line in sys.stdin:
    argv = json.loads(line)
    err_path = os.path.join(sys.argv[3], "err")
    pid = os.fork()
    if pid == 0:
        fd = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(fd, 2)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        resource.setrlimit(resource.RLIMIT_AS, (as_bytes, as_bytes))
        signal.alarm(alarm)
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        except BaseException:
            traceback.print_exc()
            code = 70
        sys.stderr.flush()
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    with open(err_path, errors="replace") as fh:
        err = fh.read()
    print(json.dumps({"rc": os.waitstatus_to_exitcode(status), "err": err}), flush=True)
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli-fuzz")
    env = {
        **os.environ,
        "KERNELSDP_MEMORY_GIB": str(MEMORY_GIB),
        "KERNELSDP_STORE": str(folder / "r.sqlite"),
    }
    child = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(AS_GIB), str(ALARM_S), str(folder)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=folder,
    )

    def run(argv: list[str]) -> dict:
        child.stdin.write(json.dumps(argv) + "\n")
        child.stdin.flush()
        return json.loads(child.stdout.readline())

    yield run
    child.stdin.close()
    child.wait(timeout=60)


def _declared(cls) -> list[tuple[list[str], str, dataclasses.Field, type]]:
    """(solver and a problem it accepts as flags, option, field, type) of every flag-able
    option of the solvers of ``cls`` that can run here."""
    out = []
    for s in solvers_for(cls):
        if not s.availability()[0]:
            continue
        problem = [f"--{k}={v[0]}" for k, v in s.accepted(cls).items()]
        hints = typing.get_type_hints(s.Options)
        for f in dataclasses.fields(s.Options):
            if f.name not in NOT_FLAGS:
                out.append(
                    ([f"--solver={s.name}"] + problem, f.name, f, strip_optional(hints[f.name]))
                )
    return out


OPTIONS = _declared(FORMULATIONS["npkl"].cls)


def _values(f: dataclasses.Field, kind: type) -> st.SearchStrategy:
    """Values inside the declared range and just outside it, as command-line text."""
    m = f.metadata
    low, high = m.get("low"), m.get("high")
    if m.get("choices"):
        return st.sampled_from(list(m["choices"]) + ["nosuch", "", "1"])
    if kind is int:
        inside = [
            v
            for v in (low, (low or 0) + 1, 2, 100, high, 10**9, 2**31, 2**63)
            if v is not None and (low is None or v >= low) and (high is None or v <= high)
        ]
        outside = [(low or 0) - 1, -(10**21), 10**21, "1.5", "1e3", "abc", ""]
        outside += [high + 1] if high is not None else []
        return st.sampled_from([str(v) for v in inside + outside])
    if kind is float:
        lo = 0.0 if low is None else float(low)
        inside = [lo + 1e-300, lo + 1e-9, 0.5, 1.0, 1e6, 1e308]
        inside = [v for v in inside if high is None or v <= high] + ([high] if high else [])
        outside = [lo - 1e-9, -1.0, math.inf, -math.inf, math.nan, "abc", "1_0", ""]
        outside += [lo] if m.get("open_low") else []
        outside += [high * (1 + 1e-9) + 1e-12, 1e308] if high is not None else []
        return st.sampled_from(
            [repr(v) if isinstance(v, float) else str(v) for v in inside + outside]
        )
    return st.just(None)  # a switch


@st.composite
def draws(draw):
    solver, name, f, kind = draw(st.sampled_from(OPTIONS))
    flag = "--" + name.replace("_", "-")
    flag = "--solver-seed" if name == "seed" else flag  # --seed is the data set's
    argv = ["solve", "npkl", "--dataset", "iris", "--n-points", "12", *solver]
    value = draw(_values(f, kind))
    argv += [flag] if value is None else [f"{flag}={value}"]
    if name != "time_limit":
        argv += ["--time-limit", "20"]  # a draw of max_iter = 1e9 stops in bounded time
    return argv


@settings(
    max_examples=20,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(argv=draws())
def test_every_option_value_ends_in_a_result_or_one_line(server, argv):
    out = server(argv)
    rc, err = out["rc"], out["err"]
    command = "kernelsdp " + " ".join(argv)
    assert rc != -14, f"{command}: no answer within {ALARM_S} s"  # SIGALRM
    last = err.strip().splitlines()[-1:]
    assert "Traceback" not in err and rc in (0, 1, 2), f"{command}: exit {rc}, {last}"
    if rc == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("kernelsdp: error: "), (command, err)


def test_the_draws_cover_every_declared_option():
    """Every solver of NPKL that can run here and each of its options is drawn from."""
    solvers = {s[0] for s, *_ in OPTIONS}
    assert solvers >= {"--solver=clarabel", "--solver=scs", "--solver=admm"}
    assert ("--solver=clarabel", "max_iter") in {(s[0], n) for s, n, *_ in OPTIONS}
