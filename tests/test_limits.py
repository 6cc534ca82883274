"""Honest stops (issue #13): every iterative solver — ARPACK inside the closed form
included — takes a time and an iteration limit, reports progress, and a stop at a limit
is never 'optimal'."""

import pytest
import scipy.sparse.linalg as spla
from conftest import make_npkl

from kernelsdp.result import PointStatus, Termination
from kernelsdp.solvers import solve


def test_closed_form_arpack_stops_at_its_product_limit(iris_small):
    f = make_npkl(iris_small, "linear", "frobenius", C=0.3, B=1.0)
    seen = []
    r = solve(f, "npkl-closed-form", eig_method="arpack", max_iter=3, progress=seen.append)
    assert r.termination == Termination.ITERATION_LIMIT and r.point == PointStatus.NO_POINT
    assert "3 products" in r.message and not r.ok
    full = solve(f, "npkl-closed-form", eig_method="arpack")
    from kernelsdp.verify import certify

    assert full.termination == Termination.OPTIMAL and full.info["eigen_method"] == "arpack"
    assert certify(f, full).passed


def test_closed_form_time_limit(iris_small, monkeypatch):
    f = make_npkl(iris_small, "linear", "frobenius", C=0.3, B=1.0)
    import kernelsdp.linalg.positive_part as pp

    clock = iter(range(0, 10**6, 10))  # every reading of the clock is 10 s later
    monkeypatch.setattr(pp.time, "perf_counter", lambda: float(next(clock)))
    r = solve(f, "npkl-closed-form", eig_method="arpack", time_limit=5.0)
    assert r.termination == Termination.TIME_LIMIT and r.point == PointStatus.NO_POINT


def test_arpack_failure_is_a_status(iris_small, monkeypatch):
    f = make_npkl(iris_small, "linear", "frobenius", C=0.3, B=1.0)

    def fail(*a, **k):
        raise spla.ArpackNoConvergence("no", [], [])

    monkeypatch.setattr(spla, "eigsh", fail)
    r = solve(f, "npkl-closed-form", eig_method="arpack")
    assert r.termination == Termination.NUMERICAL_ERROR and "ARPACK did not converge" in r.message


def test_saddle_point_time_limit_is_not_optimal(iris_small):
    f = make_npkl(iris_small, "hinge", "frobenius", C=0.3, B=1.0)
    r = solve(f, "saddle-point", time_limit=1e-9)
    assert r.termination == Termination.TIME_LIMIT and not r.ok
    ok = solve(f, "saddle-point")
    from kernelsdp.verify import certify

    assert ok.termination == Termination.OPTIMAL and certify(f, ok).passed  # not on status alone


@pytest.mark.parametrize(
    "argv",
    [
        [
            "--solver",
            "npkl-closed-form",
            "--loss",
            "linear",
            "--max-iter",
            "2",
            "--eig-method",
            "arpack",
        ]
    ],
)
def test_cli_limit_exits_1_and_says_so(capsys, argv):
    from kernelsdp.cli import main

    code = main(
        [
            "solve",
            "simple-npkl",
            "--dataset",
            "iris",
            "--n-points",
            "30",
            "--B",
            "1",
            "--C",
            "0.3",
            *argv,
        ]
    )
    out, err = capsys.readouterr()
    assert code == 1 and "iteration_limit" in out and "no_point" in out


def test_verify_refuses_a_size_before_the_first_solve(iris_small, monkeypatch):
    """The second solver's size refusal comes before the first solver runs."""
    from kernelsdp.errors import TooLargeError
    from kernelsdp.solvers.npkl_closed_form import ClosedForm
    from kernelsdp.verify import verify

    f = make_npkl(iris_small, "linear", "frobenius", C=0.3, B=1.0)
    ran = []
    real = ClosedForm.run
    monkeypatch.setattr(ClosedForm, "run", lambda self, g, o: ran.append(1) or real(self, g, o))
    # 1 MiB: the closed form's 24×24 eigh fits (~16 KB), Clarabel's SDP (~4 MB) does not
    monkeypatch.setenv("KERNELSDP_MEMORY_GIB", str(1 / 1024))
    with pytest.raises(TooLargeError, match="clarabel"):
        verify(f, ["npkl-closed-form", "clarabel"])
    assert ran == []


def test_local_stqp_time_limit_and_progress():
    import numpy as np

    from kernelsdp.formulations import StQP

    Q = np.random.default_rng(0).standard_normal((6, 6))
    f = StQP(Q + Q.T)
    seen = []
    r = solve(f, "local", starts=5, progress=seen.append)
    assert r.termination == Termination.LOCALLY_SOLVED and [s["iteration"] for s in seen] == [
        1,
        2,
        3,
        4,
        5,
    ]
    stopped = solve(f, "local", starts=5, time_limit=1e-12)
    assert stopped.termination == Termination.TIME_LIMIT and not stopped.ok


def test_every_iterative_solver_takes_time_and_iteration_limits():
    """Issue #13: an iterative solver without a time limit could run for minutes."""
    import dataclasses

    from kernelsdp.solvers import registry
    from kernelsdp.solvers.npkl_closed_form import ClosedForm  # ARPACK inside; the others are dense

    lacking = {
        s.name: sorted({"time_limit", "max_iter"} - {x.name for x in dataclasses.fields(s.Options)})
        for ss in registry().values()
        for s in ss
        if s.kind != "exact" or isinstance(s, ClosedForm)
    }
    lacking = {k: v for k, v in lacking.items() if v}
    assert not lacking, lacking


@pytest.mark.parametrize(
    "argv",
    [
        "solve simple-npkl --dataset iris --n-points 30 --loss hinge --solver saddle-point",
        "solve simple-npkl --dataset iris --n-points 30 --loss linear --solver npkl-closed-form "
        "--eig-method arpack",
        "solve npkl --dataset iris --n-points 30 --loss hinge --capacity trace --B 30 "
        "--solver admm",
        "solve npkl --dataset iris --n-points 30 --loss l2 --capacity trace --B 30 "
        "--solver burer-monteiro",
        "solve lmtl --problem {d}/t.npz --solver extragradient",
        "solve stqp --problem {d}/q.npz --solver local",
    ],
)
def test_verbose_progress_of_every_iterative_solver(tmp_path, capsys, argv):
    """--verbose prints each solver's progress records (they share one shape)."""
    import numpy as np

    from kernelsdp.cli import main

    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 3))
    np.savez(tmp_path / "t.npz", X=X, y=np.where(X[:, 0] > 0, 1, -1))
    Q = rng.standard_normal((5, 5))
    np.savez(tmp_path / "q.npz", Q=Q + Q.T)
    code = main(argv.replace("{d}", str(tmp_path)).split() + ["--verbose"])
    out, err = capsys.readouterr()
    assert code in (0, 1) and "Traceback" not in err, err
    if "npkl-closed-form" not in argv:  # ARPACK reports every 0.5 s: this one is done sooner
        assert "  iter " in err and " primal " in err
