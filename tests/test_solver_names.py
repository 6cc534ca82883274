"""Solver names are unique and say their method (issue #28); ``closed-form``, the old common
name of three closed forms, stays an alias resolved formulation by formulation, wherever a
solver is named: ``solve``, ``get_solver``, ``verify`` (options too), the CLI, a sweep's grid
and the estimators' parameter checks; ``kernelsdp solvers`` shows the new names and the
alias."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import make_npkl

from kernelsdp.cli import main
from kernelsdp.data.datasets import hyperplane_transformed
from kernelsdp.errors import InvalidParameterError, UnknownNameError
from kernelsdp.estimators import SpectralMetricLearning
from kernelsdp.formulations import MWCTLA, NPKL, SpectralMetric, StQP
from kernelsdp.solvers import SOLVERS, get_solver, register, solve, solver_names
from kernelsdp.solvers.npkl_closed_form import ClosedForm
from kernelsdp.sweep import parse_spec
from kernelsdp.verify import verify


def _problems(iris_small):
    X, y = hyperplane_transformed(60, "logarithmic", seed=0)
    d = np.random.default_rng(1).uniform(0.5, 2.0, 6)
    return [
        (make_npkl(iris_small, "linear", "frobenius"), "npkl-closed-form"),
        (make_npkl(iris_small, "linear", "trace"), "npkl-closed-form"),
        (SpectralMetric(d=d, c=1.0), "spectral-metric-closed-form"),
        (MWCTLA.from_data(X, y, J=6), "mwc-tla-top-eigenvector"),
    ]


def test_names_are_unique_across_the_registry():
    names = [s.name for s in SOLVERS]
    assert len(names) == len(set(names))
    assert not {a for s in SOLVERS for a in s.aliases} & set(names)


def test_closed_form_resolves_per_formulation_as_before(iris_small):
    for f, name in _problems(iris_small):
        assert get_solver(type(f), "closed-form").name == name
        assert "closed-form" in solver_names(type(f)) and name in solver_names(type(f))
        by_alias, by_name = solve(f, "closed-form"), solve(f, name)
        assert by_alias.solver == by_name.solver == name
        assert by_alias.objective == by_name.objective
    with pytest.raises(UnknownNameError, match="'closed-form' for stqp"):  # none there
        get_solver(StQP, "closed-form")


def test_verify_takes_a_solver_s_options_under_the_name_it_was_asked_by(iris_small):
    f = make_npkl(iris_small, "linear", "frobenius")
    rep = verify(f, ["closed-form"], **{"closed-form": {"eig_method": "arpack", "max_iter": 3}})
    assert [(c.solver, c.status) for c in rep.checks] == [("npkl-closed-form", "iteration_limit")]
    with pytest.raises(InvalidParameterError, match="magic"):
        verify(f, ["closed-form"], **{"closed-form": {"eig_method": "magic"}})


def test_the_cli_the_sweep_and_the_estimators_accept_the_old_name(capsys):
    assert (
        main(
            [
                "solve",
                "simple-npkl",
                "--dataset",
                "iris",
                "--n-points",
                "30",
                "--solver",
                "closed-form",
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["solver"] == "npkl-closed-form"
    spec = parse_spec(
        {
            "study": "s",
            "grid": {
                "formulation": "simple-npkl",
                "dataset": "iris",
                "n_points": 20,
                "solver": "closed-form",
                "eig_method": "dense",
            },
        }
    )
    assert [u["solver"] for u in spec.units] == ["closed-form"]
    assert spec.units[0]["eig_method"] == "dense"  # the alias's own options apply
    SpectralMetricLearning(solver="closed-form")._validate_params()
    SpectralMetricLearning(solver="spectral-metric-closed-form")._validate_params()
    with pytest.raises(ValueError, match="solver"):
        SpectralMetricLearning(solver="closed-forms")._validate_params()


def test_kernelsdp_solvers_lists_the_new_names_and_the_alias(capsys):
    assert main(["solvers"]) == 0
    out = capsys.readouterr().out
    assert "npkl-closed-form" in out and "mwc-tla-top-eigenvector" in out
    note = next(line for line in out.splitlines() if "'closed-form'" in line)
    assert all(
        n in note
        for n in (
            "npkl-closed-form (npkl, simple-npkl)",
            "spectral-metric-closed-form (spectral-metric)",
            "mwc-tla-top-eigenvector (mwc-tla)",
        )
    )
    assert main(["solvers", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["solver"] for r in rows if r["aliases"] == ["closed-form"]} == {
        "npkl-closed-form",
        "spectral-metric-closed-form",
        "mwc-tla-top-eigenvector",
    }
    assert not any(r["solver"] == "closed-form" for r in rows)


def test_a_taken_name_cannot_be_registered():
    class Again(ClosedForm):
        name = "admm"

    class OldName(ClosedForm):
        name = "closed-form"

    class Shadow(ClosedForm):
        name = "my-closed-form"
        aliases = ("saddle-point",)

    for cls in (Again, OldName, Shadow):
        with pytest.raises(TypeError, match="is taken"):
            register(cls())
    assert [s for s in SOLVERS if isinstance(s, (Again, OldName, Shadow))] == []
    assert get_solver(NPKL, "closed-form").name == "npkl-closed-form"
