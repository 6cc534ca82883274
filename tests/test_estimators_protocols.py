"""benchmarks/estimators_protocols.py, the label-scarce transductive protocol: the labelled
draw, that the RBF and the learned kernels are tuned and fit on exactly the same labelled
points, and that no label of an unlabelled point is read."""

import importlib.util
import pathlib

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from kernelsdp import load
from kernelsdp.data import DATASETS
from kernelsdp.runs import unit_key

PATH = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "estimators_protocols.py"


@pytest.fixture(scope="module")
def protocols():
    spec = importlib.util.spec_from_file_location("estimators_protocols", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with threadpool_limits(1):
        yield module


@pytest.fixture
def tiny_grids(protocols, monkeypatch):
    """One kernel setting and two SVC C: the code path, not the tuning."""
    monkeypatch.setattr(protocols, "GAMMA_SCALES", (1.0,))
    monkeypatch.setattr(protocols, "HINGE_GRID", ((1.0, 5),))
    monkeypatch.setattr(protocols, "LINEAR_GRID", ((1.0, 5),))
    monkeypatch.setattr(protocols, "SVC_C", (1.0, 10.0))


def test_labelled_draw_is_stratified_and_leaves_every_class_unlabelled_points(protocols):
    y = np.array([0] * 10 + [1] * 3 + [2] * 20)
    lab, unl = protocols.labelled_points(y, 5, seed=1)
    assert np.bincount(y[lab]).tolist() == [5, 2, 5]  # the class of 3 keeps one unlabelled
    assert np.intersect1d(lab, unl).size == 0 and len(lab) + len(unl) == len(y)
    again, _ = protocols.labelled_points(y, 5, seed=1)
    other, _ = protocols.labelled_points(y, 5, seed=2)
    assert np.array_equal(lab, again) and not np.array_equal(lab, other)


def test_rbf_and_learned_kernels_see_the_same_labelled_points(protocols, tiny_grids, monkeypatch):
    X, y = load("soybean")
    lab, unl = protocols.labelled_points(y, 3, seed=0)
    seen: dict[str, list] = {}
    kernels = protocols.kernels

    def spy(method, param, X_, y_, fit, ev):
        seen.setdefault(method, []).append((tuple(fit), tuple(ev)))
        return kernels(method, param, X_, y_, fit, ev)

    monkeypatch.setattr(protocols, "kernels", spy)
    for m in ("rbf", "npkl-hinge-sym", "npkl-linear"):
        out = protocols.tuned_accuracy(m, X, y, lab, unl, seed=0)
        assert 0.0 <= out["accuracy"] <= 1.0 and isinstance(out["certified"], bool)
    assert seen["rbf"] == seen["npkl-hinge-sym"] == seen["npkl-linear"]
    *inner, final = seen["rbf"]
    assert len(inner) == 3 and final == (tuple(lab), tuple(unl))
    for fit, ev in inner:  # inner folds: labelled points only, scored on other labelled ones
        assert set(fit) | set(ev) == set(lab) and not set(fit) & set(ev)


def test_unlabelled_labels_are_never_read(protocols):
    X, y = load("soybean")
    lab, unl = protocols.labelled_points(y, 3, seed=0)
    scrambled = y.copy()
    scrambled[unl] = np.random.default_rng(0).permutation(y[unl])
    assert not np.array_equal(scrambled, y)
    for m in ("npkl-hinge-sym", "npkl-linear"):
        Kf, Ke, cert = protocols.kernels(m, (1.0, 5), X, y, lab, unl)
        Kf2, Ke2, _ = protocols.kernels(m, (1.0, 5), X, scrambled, lab, unl)
        assert Kf.shape == (len(lab), len(lab)) and Ke.shape == (len(unl), len(lab))
        assert np.array_equal(Kf, Kf2) and np.array_equal(Ke, Ke2)


def test_run_unit_reports_every_method(protocols, tiny_grids):
    out = protocols.run_unit({"dataset": "soybean", "split": 0, "labels_per_class": 3})
    assert out["n_labelled"] == 12
    for m in protocols.SCARCE_METHODS:
        assert 0.0 <= out[m]["accuracy"] <= 1.0
        assert out[m]["inner_uncertified"] >= 0


def test_first_split_draws_are_fresh(protocols, monkeypatch):
    """--first-split 10 gives draws 10-19: unit keys that none of draws 0-9 has (as stored,
    every method; or as a subset), and on every data set labelled points that repeat none of
    draws 0-9's."""
    monkeypatch.syspath_prepend(str(PATH.parent))
    cli = importlib.import_module("estimators_vs_rbf")
    args = ["--protocol", "scarce", "--splits", "10"]
    stored = cli.scarce_units(cli.parser().parse_args(args))
    subset = args + ["--methods", "rbf,npkl-hinge-sym"]
    old = cli.scarce_units(cli.parser().parse_args(subset))
    new = cli.scarce_units(cli.parser().parse_args(subset + ["--first-split", "10"]))
    # the keys first stored, and the graph's revision (records on revision 1's mutual graph
    # are not reused); the symmetric graph's units keep their keys
    assert set(stored[0]) == {"dataset", "split", "labels_per_class", "graph_revision"}
    assert "graph_revision" not in old[0]
    assert sorted({u["split"] for u in new}) == list(range(10, 20)) and len(new) == len(old)
    assert not {unit_key(u) for u in new} & {unit_key(u) for u in stored + old}
    for name in DATASETS:
        y = load(name)[1]
        before = {tuple(protocols.labelled_points(y, 5, s)[0]) for s in range(10)}
        after = {
            tuple(protocols.labelled_points(y, 5, u["split"])[0])
            for u in new
            if u["dataset"] == name
        }
        assert len(after) == 10 and not before & after, name


def test_methods_must_start_with_rbf(protocols):
    for bad in (("npkl-hinge-sym",), ("npkl-hinge-sym", "rbf"), ("rbf", "rbf"), ("rbf", "svm")):
        with pytest.raises(ValueError, match="start with 'rbf'"):
            protocols.units(["iris"], 1, 5, methods=bad)


def test_a_unit_of_some_methods_runs_only_those(protocols, tiny_grids):
    unit = protocols.units(["soybean"], 1, 3, methods=("rbf", "npkl-hinge-sym"))[0]
    out = protocols.run_unit(unit)
    assert [m for m in protocols.SCARCE_METHODS if m in out] == ["rbf", "npkl-hinge-sym"]


def test_per_draw_counts_wins_ties_and_losses(protocols):
    acc = [(0.5, 0.6), (0.7, 0.7), (0.8, 0.6), (0.5, 0.9)]  # (rbf, learned) per draw
    rs = [{"rbf": {"accuracy": a}, "npkl-hinge-sym": {"accuracy": b}} for a, b in acc]
    assert protocols.per_draw(rs, "npkl-hinge-sym") == (2, 1, 1)
