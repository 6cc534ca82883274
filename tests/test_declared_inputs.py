"""Inputs declared once, parsers derived (issue #28): a formulation's inputs are typed
declarations; the CLI, sweeps and estimators check values against them; no argument parser
below ``kernelsdp/cli``; a sweep checks its whole grid before the first solve."""

from __future__ import annotations

import pathlib
import time

import numpy as np
import pytest

import kernelsdp.sweep as sweep_module
from kernelsdp.data import PairwiseConstraints
from kernelsdp.data.files import read_pairs_csv
from kernelsdp.errors import InvalidDataError, InvalidParameterError
from kernelsdp.formulations import NPKL, StQP
from kernelsdp.runs import ResultsStore
from kernelsdp.sweep import parse_spec, run_sweep

PACKAGE = pathlib.Path(__file__).parents[1] / "kernelsdp"
SMALL = {
    "formulation": "npkl",
    "solver": "admm",
    "dataset": "iris",
    "n_points": 20,
    "loss": "l2",
    "capacity": "trace",
    "B": 20,
}


def test_no_argument_parser_below_the_cli():
    offenders = [
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if "cli" not in p.relative_to(PACKAGE).parts and "argparse" in p.read_text(encoding="utf-8")
    ]
    assert offenders == []


@pytest.mark.parametrize(
    "given, error, match",
    [
        ({}, InvalidDataError, "exactly one problem input: --problem FILE.npz, --laplacian"),
        ({"dataset": "iris", "problem": "p.npz"}, InvalidDataError, "exactly one"),
        ({"laplacian": "L.npz"}, InvalidDataError, "--laplacian needs --pairs pairs.csv"),
        ({"problem": "p.npz", "k": 3}, InvalidDataError, "--k applies to --dataset only"),
        (
            {"dataset": "iris", "C": -1.0},
            InvalidParameterError,
            "'C' parameter of npkl must be a float in the range \\(0, inf\\)",
        ),
        ({"dataset": "iris", "n_points": 2.5}, InvalidParameterError, "'n_points'"),
        ({"dataset": "iris", "n_points": 1000}, InvalidParameterError, "has 150 points"),
        ({"dataset": "iris", "loss": "logistic"}, InvalidParameterError, "'loss'"),
        ({"dataset": "iris", "colour": 3}, InvalidParameterError, "no input 'colour'"),
    ],
)
def test_inputs_are_checked_by_their_declaration_without_reading_data(given, error, match):
    with pytest.raises(error, match=match):
        NPKL.check_inputs(given)


def test_checked_inputs_fill_the_defaults_of_the_chosen_source_only():
    values = NPKL.check_inputs({"dataset": "iris", "C": 2})
    assert values == {"dataset": "iris", "C": 2.0, "k": 5, "ratio": 0.7, "seed": 0}
    assert isinstance(values["C"], float)  # an int given for a float input becomes a float
    assert NPKL.check_inputs({"problem": "p.npz"}) == {"problem": "p.npz"}  # C, B from the file
    with pytest.raises(InvalidDataError, match="simple-npkl fixes capacity"):
        NPKL.check_inputs(
            {"dataset": "iris", "capacity": "trace"}, {"capacity": "frobenius"}, "simple-npkl"
        )


def test_a_sweep_checks_its_whole_grid_before_the_first_solve(monkeypatch, tmp_path):
    """Issue #29's case: C = [1.0, -1.0] failed only after the C = 1 unit had solved."""
    ran = []
    monkeypatch.setattr(sweep_module, "run_unit", lambda unit: ran.append(unit) or {})
    with pytest.raises(InvalidParameterError, match="'C' parameter of npkl"):
        spec = parse_spec({"study": "c", "grid": {**SMALL, "C": [1.0, -1.0]}})
        run_sweep(spec, store=ResultsStore(tmp_path / "r.sqlite"))
    assert ran == []


def test_ten_thousand_units_are_checked_in_seconds():
    grid = {
        **SMALL,
        "solver": ["admm", "clarabel"],
        "C": [0.1 * k for k in range(1, 51)],
        "B": [float(b) for b in range(1, 51)],
        "seed": [0, 1],
    }
    t0 = time.perf_counter()
    spec = parse_spec({"study": "big", "grid": grid})
    elapsed = time.perf_counter() - t0
    assert len(spec.units) == 10_000
    print(f"10,000 units checked in {elapsed:.2f} s")  # measured, not asserted (shared machine)


def test_a_grid_beyond_the_unit_limit_is_refused_unless_asked():
    grid = {**SMALL, "C": [0.5, 1.0, 2.0], "B": [10.0, 20.0, 30.0, 40.0]}
    with pytest.raises(InvalidParameterError, match="more than 10 units.*--max-units"):
        parse_spec({"study": "s", "grid": grid}, max_units=10)
    assert len(parse_spec({"study": "s", "grid": grid}, max_units=12).units) == 12


def test_the_cli_passes_max_units(tmp_path, capsys):
    from kernelsdp.cli import main
    from kernelsdp.cli.sweep import MAX_UNITS as cli_default
    from kernelsdp.sweep.spec import MAX_UNITS

    assert cli_default == MAX_UNITS  # kept apart so that --help does not import the sweep
    spec = tmp_path / "s.toml"
    spec.write_text(
        'study = "m"\n[grid]\nformulation = "npkl"\nsolver = "admm"\n'
        'dataset = "iris"\nC = [0.5, 1.0, 2.0]\n'
    )
    assert main(["sweep", str(spec), "--max-units", "2"]) == 2
    assert "more than 2 units" in capsys.readouterr().err


def test_estimators_read_the_formulations_declarations():
    from kernelsdp.estimators import NPKLKernelLearning

    for name in ("loss", "capacity", "C", "B"):
        assert list(map(str, NPKLKernelLearning._parameter_constraints[name])) == list(
            map(str, NPKL.inputs()[name].sklearn_constraint())
        )
    with pytest.raises(InvalidParameterError, match="'C' parameter of NPKLKernelLearning"):
        NPKLKernelLearning(C=-1.0).fit(np.zeros((4, 2)), [0, 0, 1, 1])


def test_a_stqp_from_a_data_set_is_the_ncut_surrogate():
    values = StQP.check_inputs(
        {"dataset": "iris", "n_points": 30, "n_examples": 4, "example_size": 10}
    )
    f = StQP.from_inputs(values)
    assert f.d == 3 and np.allclose(f.Q, f.Q.T)  # one weight per RBF base kernel


def test_pairs_round_trip_through_csv(tmp_path):
    pairs = PairwiseConstraints.from_labels(np.repeat([0, 1, 2], 10), ratio=0.5, seed=3)
    pairs.to_csv(tmp_path / "p.csv")
    back = read_pairs_csv(str(tmp_path / "p.csv"), pairs.n)
    assert back.n == pairs.n and all(
        np.array_equal(getattr(back, k), getattr(pairs, k)) for k in ("i", "j", "t")
    )
    assert (tmp_path / "p.csv").read_text().splitlines()[0] == "i,j,label"
