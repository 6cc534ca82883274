"""benchmarks/npkl_pocket_block_proto.py (issue #30, forty-third pass; its blocks built into
the solver as ``pocket_blocks`` in the forty-fourth, tested in test_alm_blocks.py): the
prototype's wrapper and the solver's option each certify a 1,500-node run with proof."""

from __future__ import annotations

import json

import pytest
from conftest import load_benchmark

from kernelsdp.solvers import alm_outer


@pytest.fixture(scope="module")
def proto():
    return load_benchmark("npkl_pocket_block_proto")


@pytest.fixture
def restored(monkeypatch):
    """The solver's inner round put back after the test (``install`` replaces it)."""
    monkeypatch.setattr(alm_outer, "_inner_round", alm_outer._inner_round)


@pytest.mark.parametrize("mode", ["block", "option"])
def test_the_run_prints_its_counts(proto, capsys, restored, mode):
    assert proto.main(["--n", "1500", "--mode", mode]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "optimal" and out["label"] == "proof"
    assert out["pockets_solved"] >= 1 and out["products"] > 0
    if mode == "block":  # the wrapper's own log: a round whose point it kept
        assert out["rounds_kept"] >= 1
