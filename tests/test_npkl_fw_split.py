"""benchmarks/npkl_fw_split.py (issue #30, thirty-eighth pass): the check's FW gap splits
exactly into its parts in span V, outside it and the trace's slack; the split reads the
solver's path and never moves it."""

from __future__ import annotations

import pytest
from conftest import load_benchmark

import kernelsdp.solvers.alm_outer as alm_outer
from kernelsdp.solvers import solve


@pytest.fixture(scope="module")
def traced():
    split = load_benchmark("npkl_fw_split")
    rows, r = split.traced(600, 0)
    return split, rows, r


def test_the_parts_sum_to_the_checks_fw_gap(traced):
    _, rows, _ = traced
    parts = [d for d in rows if "in_span" in d]
    assert len(parts) >= 5
    for d in parts:
        total = d["in_span"] + d["outside"] + d["slack"]
        assert total == pytest.approx(d["fw"], rel=1e-7, abs=1e-12)
        assert d["in_span"] >= -1e-12 and -1e-12 <= d["share"] <= 1 + 1e-12
        assert d["outside"] >= -1e-9  # λ_V is a Ritz value of M: at or above λ_min


def test_the_split_leaves_the_path_and_the_solver_as_they_were(traced):
    split, rows, r = traced
    plain = solve(load_benchmark("npkl_scale").instance(600), "low-rank-alm", seed=0)
    assert r.info["products"] == plain.info["products"]
    assert r.info["checks"] == plain.info["checks"] == len(rows)
    assert alm_outer.fw_check.__module__ == "kernelsdp.solvers.alm_inner"
    assert alm_outer.fw_step.__module__ == "kernelsdp.solvers.alm_inner"
    steps = [d["t"] for d in rows]
    assert max(steps) > 0 and min(steps) >= 0  # some check's step took the vertex in
