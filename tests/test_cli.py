"""The CLI contract: names, JSON fields, exit codes, one error line, nothing half-written."""

import json

import numpy as np
import pytest
import scipy.sparse as sp

from kernelsdp.cli import main
from kernelsdp.solvers import conic


@pytest.fixture
def files(tmp_path, iris_small):
    L, pairs, _ = iris_small
    sp.save_npz(tmp_path / "L.npz", L)
    rows = ["i,j,label"] + [f"{i},{j},{int(t)}" for i, j, t in zip(pairs.i, pairs.j, pairs.t)]
    (tmp_path / "pairs.csv").write_text("\n".join(rows) + "\n")
    return tmp_path


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_solvers_json_lists_every_formulation(capsys):
    """The table is the registry's: every formulation, its solvers in the registry's order."""
    from kernelsdp.formulations import FORMULATIONS
    from kernelsdp.solvers import KINDS, solvers_for

    code, out, _ = run(capsys, "solvers", "--json")
    rows = json.loads(out)
    assert code == 0
    assert {r["formulation"] for r in rows} == set(FORMULATIONS)
    for name, entry in FORMULATIONS.items():
        listed = [r["solver"] for r in rows if r["formulation"] == name]
        accepted = [s.name for s in solvers_for(entry.cls) if s.name in listed]
        assert listed == accepted and listed  # the same order, derived from the declarations
        kinds = [KINDS.index(r["kind"]) for r in rows if r["formulation"] == name]
        assert kinds == sorted(kinds)  # preference: exact, iterative, interior point, first order
    for r in rows:
        assert {"formulation", "solver", "available", "flags"} <= set(r)
        assert r["available"] or r["reason"]
    admm = next(r for r in rows if r["formulation"] == "npkl" and r["solver"] == "admm")
    assert admm["accepts"] == "loss l2|hinge|squared-hinge|l1; capacity trace|none"  # issue #14
    assert {"rank", "rank_start", "tol", "max_iter"} <= set(admm["options"])
    assert {"--rank", "--max-iter", "--solver-seed"} <= set(admm["flags"])  # flags as typed
    simple = [r["solver"] for r in rows if r["formulation"] == "simple-npkl"]
    assert "admm" not in simple  # its capacity is fixed to frobenius, which ADMM refuses


def test_solvers_table_is_readable(capsys):
    """Columns never run together, one note per unavailable solver, flags as typed."""
    code, out, _ = run(capsys, "solvers")
    assert code == 0
    rows = [line for line in out.splitlines() if line.startswith("  ") and "solver" not in line]
    for line in rows:  # solver, kind and accepts columns are separated by at least two spaces
        cells = [c for c in line.strip().split("  ") if c]
        assert len(cells) >= 4, line
    assert "burer-monteiroiterative" not in out and "max_iter" not in out
    assert "--max-iter" in out
    notes = [line for line in out.splitlines() if line.startswith("* unavailable")]
    assert len(notes) == len({line.split(":")[1] for line in notes})  # one note per solver


def test_max_iter_help_says_what_each_solver_counts(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # argparse wraps at the terminal's width
    with pytest.raises(SystemExit):
        main(["solve", "npkl", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    i = text.index("--max-iter INT", text.index("solver options"))
    help_ = text[i : text.index(" --", i + 10)]
    meanings = {seg.rsplit("[", 1)[-1]: seg for seg in help_.split("]; ")}
    assert "ARPACK" in meanings["npkl-closed-form"]
    clarabel = next(seg for names, seg in meanings.items() if "clarabel" in names)
    assert "iteration limit" in clarabel and "ARPACK" not in clarabel


def test_version(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"kernelsdp {version('kernelsdp')}"
    import kernelsdp

    assert kernelsdp.__version__ == version("kernelsdp")


def test_the_package_imports_lazily_and_keeps_its_names():
    """`import kernelsdp` (and so `kernelsdp --help`) loads no CVXPY; `kernelsdp.verify` is
    the function even after the kernelsdp.verify package has been imported."""
    import subprocess
    import sys

    code = (
        "import sys, types, kernelsdp\n"
        "assert 'cvxpy' not in sys.modules and 'numpy' not in sys.modules\n"
        "import kernelsdp.verify.report\n"
        "from kernelsdp import NPKL, verify\n"
        "assert callable(verify) and not isinstance(verify, types.ModuleType)\n"
        "assert kernelsdp.verify is verify and NPKL.name == 'npkl'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_closed_pipe_ends_the_run_silently(capsys, monkeypatch):
    """`kernelsdp solvers | head -1`: the reader has gone; no traceback, no error line."""
    import sys

    class ClosedPipe:
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    code = main(["solvers"])
    monkeypatch.undo()
    assert code == 141 and capsys.readouterr().err == ""


def test_a_reader_that_stops_early_gets_no_traceback():
    """A real pipe whose reader is gone before the first write (`| head -0`)."""
    import subprocess
    import sys

    p = subprocess.Popen(
        [sys.executable, "-m", "kernelsdp.cli", "solvers", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait() == 141 and err == b""


def test_a_memory_refusal_names_the_solvers_that_fit(capsys, monkeypatch):
    """npkl l2/frobenius on wine: Clarabel's scaling block does not fit; SCS does."""
    code, _, err = run(
        capsys,
        "solve",
        "npkl",
        "--loss",
        "l2",
        "--capacity",
        "frobenius",
        "--dataset",
        "wine",
        "--solver",
        "clarabel",
    )
    assert code == 2 and len(err.strip().splitlines()) == 1 and "GiB" in err
    assert "--solver scs" in err and "clarabel (" not in err


@pytest.mark.parametrize(
    "family, extra",
    [
        ("stqp", ["--n-points", "40", "--n-examples", "4", "--example-size", "12"]),
        ("ncut-mkl", ["--n-points", "40", "--n-examples", "4", "--example-size", "12"]),
        ("spectral-metric", ["--n-points", "40"]),
        ("mwc-tla", ["--n-points", "40", "--ramps", "3"]),
        ("nc-tla", ["--n-points", "30", "--ramps", "2"]),
        ("lmtl", ["--n-points", "30", "--ramps", "2", "--max-iter", "200"]),
    ],
)
def test_every_family_with_points_builds_from_a_bundled_data_set(capsys, family, extra):
    code, out, err = run(capsys, "solve", family, "--dataset", "iris", *extra, "--json")
    d = json.loads(out)
    assert code in (0, 1) and d["status"] not in ("numerical_error",), err
    assert d["objective"] is not None and d["formulation"] == family


def test_solve_json_and_out(capsys, files):
    out_file = files / "K.npz"
    code, out, _ = run(
        capsys,
        "solve",
        "simple-npkl",
        "--solver",
        "npkl-closed-form",
        "--json",
        "--laplacian",
        str(files / "L.npz"),
        "--pairs",
        str(files / "pairs.csv"),
        "--B",
        "24",
        "--out",
        str(out_file),
    )
    d = json.loads(out)
    assert code == 0
    assert {"formulation", "solver", "status", "objective", "solve_time_s", "iterations"} <= set(d)
    assert d["formulation"] == "simple-npkl" and d["status"] == "optimal"
    with np.load(out_file) as z:
        U = z["U"]
        assert np.isclose(float(z["objective"]), d["objective"])
    assert U.shape[0] == 24


def test_problem_npz_and_verify(capsys, tmp_path, iris_small):
    L, pairs, _ = iris_small
    np.savez(
        tmp_path / "p.npz",
        L=L.toarray(),
        pairs=np.column_stack([pairs.i, pairs.j]),
        labels=pairs.t,
        C=1.0,
        B=24.0,
    )
    code, out, _ = run(
        capsys,
        "verify",
        "npkl",
        "--problem",
        str(tmp_path / "p.npz"),
        "--loss",
        "squared-hinge",
        "--solvers",
        "clarabel,saddle-point",
        "--json",
    )
    d = json.loads(out)
    assert code == 0 and d["passed"] and len(d["solvers"]) == 2
    s0 = d["solvers"][0]
    assert s0["lower"] <= s0["upper"] + 1e-6 and s0["rigorous"]
    assert "complementarity" in s0["residuals"]


def test_dataset_input_text_output(capsys):
    code, out, _ = run(
        capsys,
        "verify",
        "simple-npkl",
        "--dataset",
        "soybean",
        "--solvers",
        "clarabel,npkl-closed-form",
    )
    assert code == 0 and "verify: PASSED" in out


def test_help_documents_problem_keys(capsys):
    with pytest.raises(SystemExit) as e:
        main(["solve", "npkl", "--help"])
    assert e.value.code == 0
    assert "pairs" in capsys.readouterr().out


def _bad(tmp_path, name, L=None, rows=None):
    if L is not None:
        sp.save_npz(tmp_path / f"{name}.npz", sp.csr_matrix(L))
    if rows is not None:
        (tmp_path / f"{name}.csv").write_text("i,j,label\n" + "\n".join(rows) + "\n")


GOOD_L = np.array([[1.0, -0.5, 0], [-0.5, 1.0, 0], [0, 0, 1.0]])


@pytest.mark.parametrize(
    "case, L, rows, extra, needle",
    [
        ("asym", np.array([[1.0, 0.2, 0], [0.0, 1, 0], [0, 0, 1]]), ["0,1,1"], [], "symmetric"),
        ("nonsquare", np.ones((3, 2)), ["0,1,1"], [], "square"),
        ("nan", np.array([[1.0, np.nan, 0], [np.nan, 1, 0], [0, 0, 1]]), ["0,1,1"], [], "NaN"),
        ("self", GOOD_L, ["1,1,1"], [], "itself"),
        ("range", GOOD_L, ["0,7,1"], [], "out of range"),
        ("label", GOOD_L, ["0,1,2"], [], "label"),
        ("both", GOOD_L, ["0,1,1", "1,0,-1"], [], "both"),
        ("C", GOOD_L, ["0,1,1"], ["--C", "0"], "'C'"),
        ("Cneg", GOOD_L, ["0,1,1"], ["--C", "-1"], "'C'"),
        ("B", GOOD_L, ["0,1,1"], ["--B", "0"], "'B'"),
        ("solver", GOOD_L, ["0,1,1"], ["--solver", "sedumi"], "unknown solver"),
        ("unsupported", GOOD_L, ["0,1,1"], ["--solver", "saddle-point"], "cannot solve"),
    ],
)
def test_bad_input_is_one_line_exit_2_nothing_written(
    capsys, tmp_path, case, L, rows, extra, needle
):
    _bad(tmp_path, case, L, rows)
    out_file = tmp_path / "out.npz"
    argv = [
        "solve",
        "npkl",
        "--laplacian",
        str(tmp_path / f"{case}.npz"),
        "--pairs",
        str(tmp_path / f"{case}.csv"),
        "--out",
        str(out_file),
    ]
    if "--solver" not in extra:
        argv += ["--solver", "npkl-closed-form"]
    code, out, err = run(capsys, *argv, *extra)
    assert code == 2, (case, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kernelsdp: error:") and needle in lines[0], err
    assert "Traceback" not in err and not out_file.exists()
    assert list(tmp_path.glob("*.npz.tmp*")) == [] and len(list(tmp_path.glob("tmp*.npz"))) == 0


def test_unknown_loss_is_one_line(capsys, files):
    with pytest.raises(SystemExit) as e:
        main(
            [
                "solve",
                "npkl",
                "--laplacian",
                str(files / "L.npz"),
                "--pairs",
                str(files / "pairs.csv"),
                "--loss",
                "logistic",
            ]
        )
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(err) == 1 and "logistic" in err[0]


def test_missing_file_is_one_line(capsys, tmp_path):
    code, _, err = run(
        capsys,
        "solve",
        "npkl",
        "--laplacian",
        str(tmp_path / "nope.npz"),
        "--pairs",
        str(tmp_path / "nope.csv"),
    )
    assert code == 2 and len(err.strip().splitlines()) == 1 and "nope.npz" in err


def test_unlicensed_mosek_is_exit_2(capsys, files, monkeypatch):
    monkeypatch.setattr(
        conic,
        "_mosek_licence",
        lambda: (False, "installed but not usable (licence): license file not found"),
    )
    monkeypatch.setattr(conic.cp, "installed_solvers", lambda: ["CLARABEL", "SCS", "MOSEK"])
    code, out, err = run(
        capsys,
        "solve",
        "npkl",
        "--solver",
        "mosek",
        "--laplacian",
        str(files / "L.npz"),
        "--pairs",
        str(files / "pairs.csv"),
    )
    assert code == 2 and "licence" in err and len(err.strip().splitlines()) == 1
    code, out, _ = run(capsys, "solvers", "--json")
    mosek = [r for r in json.loads(out) if r["solver"] == "mosek"]
    assert mosek and not mosek[0]["available"] and "licence" in mosek[0]["reason"]


def test_unlicensed_mosek_probe_does_not_crash(monkeypatch):
    """A real probe: with a fake mosek module whose Env raises, the probe reports the reason."""
    import sys
    import types

    fake = types.ModuleType("mosek")

    class Env:
        def __init__(self):
            raise RuntimeError("rescode.err_missing_license_file(1008): License cannot be located.")

    fake.Env = Env
    monkeypatch.setitem(sys.modules, "mosek", fake)
    conic._mosek_licence.cache_clear()
    try:
        ok, reason = conic._mosek_licence()
    finally:
        conic._mosek_licence.cache_clear()
    assert not ok and "License cannot be located" in reason


def test_corrupt_input_files_are_one_line(capsys, tmp_path):
    (tmp_path / "junk.npz").write_text("not an archive")
    (tmp_path / "p.csv").write_text("i,j,label\n0,1,1\n")
    for argv in (
        ["--problem", str(tmp_path / "junk.npz")],
        ["--laplacian", str(tmp_path / "junk.npz"), "--pairs", str(tmp_path / "p.csv")],
    ):
        code, _, err = run(capsys, "solve", "npkl", *argv)
        assert code == 2 and len(err.strip().splitlines()) == 1 and "junk.npz" in err


def test_bad_pairs_header_is_one_line(capsys, files):
    (files / "bad.csv").write_text("a,b,c\n0,1,1\n")
    code, _, err = run(
        capsys,
        "solve",
        "npkl",
        "--laplacian",
        str(files / "L.npz"),
        "--pairs",
        str(files / "bad.csv"),
    )
    assert code == 2 and "header" in err and len(err.strip().splitlines()) == 1


def test_stqp_cli(capsys, tmp_path):
    np.savez(tmp_path / "q.npz", Q=np.array([[1.0, -1.0, 0.0], [-1.0, 2.0, 0.5], [0.0, 0.5, -0.5]]))
    code, out, _ = run(
        capsys,
        "verify",
        "stqp",
        "--problem",
        str(tmp_path / "q.npz"),
        "--solvers",
        "clarabel,exact,local",
        "--json",
    )
    d = json.loads(out)
    assert code == 0 and d["passed"]
    # Theorem 2 (d <= 3): the rounded point is the exact optimum, and SDP₁ is exact (d <= 4:
    # DNN = CP), so the relaxation's answer is certified by its own proven bound
    clar = next(c for c in d["solvers"] if c["solver"] == "clarabel")
    assert clar["passed"] and "SDP1 bound" in clar["note"] and clar["rigorous"]
    code, out, err = run(
        capsys, "solve", "stqp", "--problem", str(tmp_path / "q.npz"), "--solver", "exact", "--json"
    )
    assert code == 0 and np.isclose(sum(json.loads(out)["alpha"]), 1.0)
    np.savez(tmp_path / "big.npz", Q=np.eye(20))
    code, _, err = run(
        capsys, "solve", "stqp", "--problem", str(tmp_path / "big.npz"), "--solver", "exact"
    )
    assert code == 2 and "d <= 16" in err and len(err.strip().splitlines()) == 1
    code, out, _ = run(capsys, "solve", "stqp", "--problem", str(tmp_path / "big.npz"), "--json")
    assert code == 0 and json.loads(out)["solver"] == "local"  # the default skips the oracle


def test_spectral_metric_cli(capsys, tmp_path):
    X, y = load_iris_small()
    pairs = np.array([[0, 1], [2, 3], [5, 60], [70, 71]])
    labels = np.array([1, 1, -1, 1])
    np.savez(tmp_path / "s.npz", X=X, pairs=pairs, labels=labels)
    code, out, _ = run(
        capsys,
        "verify",
        "spectral-metric",
        "--problem",
        str(tmp_path / "s.npz"),
        "--solvers",
        "clarabel,spectral-metric-closed-form",
        "--n-landmarks",
        "40",
        "--json",
    )
    d = json.loads(out)
    assert code == 0 and d["passed"] and d["problem"]["formulation"] == "spectral-metric"


def load_iris_small():
    from kernelsdp.data import load

    X, y = load("iris")
    return X[:100], y[:100]


def test_active_points_reduce_the_pairs(capsys):
    code, out, _ = run(
        capsys,
        "solve",
        "simple-npkl",
        "--dataset",
        "iris",
        "--solver",
        "npkl-closed-form",
        "--json",
    )
    full = json.loads(out)["problem"]["m"]
    code, out, _ = run(
        capsys,
        "solve",
        "simple-npkl",
        "--dataset",
        "iris",
        "--solver",
        "saddle-point",
        "--loss",
        "squared-hinge",
        "--active-points",
        "10",
        "--json",
    )
    d = json.loads(out)
    assert code == 0 and 0 < d["problem"]["m"] < full and d["status"] == "optimal"
    code, _, err = run(capsys, "solve", "simple-npkl", "--dataset", "iris", "--active-points", "0")
    assert code == 2 and "'active_points'" in err


def test_tla_cli(capsys, tmp_path):
    from kernelsdp.data.datasets import hyperplane_transformed

    X, y = hyperplane_transformed(80, "logarithmic", seed=0)
    np.savez(tmp_path / "t.npz", X=X, y=y)
    code, out, _ = run(
        capsys,
        "verify",
        "mwc-tla",
        "--problem",
        str(tmp_path / "t.npz"),
        "--solvers",
        "clarabel,mwc-tla-top-eigenvector",
        "--ramps",
        "6",
        "--json",
    )
    d = json.loads(out)
    assert code == 0 and d["passed"] and d["problem"]["J"] == 6
    code, out, _ = run(
        capsys,
        "solve",
        "mwc-tla",
        "--problem",
        str(tmp_path / "t.npz"),
        "--tightened",
        "--solver",
        "clarabel",
        "--json",
    )
    assert code == 0 and json.loads(out)["info"]["monotone"] is True
    code, _, err = run(
        capsys,
        "solve",
        "mwc-tla",
        "--problem",
        str(tmp_path / "t.npz"),
        "--tightened",
        "--solver",
        "mwc-tla-top-eigenvector",
    )
    assert code == 2 and "untightened" in err
    code, _, err = run(
        capsys, "solve", "mwc-tla", "--problem", str(tmp_path / "t.npz"), "--ramps", "0"
    )
    assert code == 2 and "'ramps'" in err and len(err.strip().splitlines()) == 1


def test_newcomer_papercuts(capsys, tmp_path, files):
    """Issue #12's list: a warning is one line; --out keeps the umask; no pickle hint leaks;
    a missing Laplacian names both ways to give it; --C -1 names NPKL; reproduce lists papers."""
    import os

    code, out, err = run(
        capsys,
        "solve",
        "npkl",
        "--dataset",
        "iris",
        "--n-points",
        "20",
        "--loss",
        "hinge",
        "--capacity",
        "none",
        "--solver",
        "clarabel",
    )
    assert "kernelsdp: warning: NPKL with hinge loss" in err and "warnings.warn" not in err
    old = os.umask(0o022)
    try:
        code, _, _ = run(
            capsys,
            "solve",
            "simple-npkl",
            "--laplacian",
            str(files / "L.npz"),
            "--pairs",
            str(files / "pairs.csv"),
            "--out",
            str(tmp_path / "K.npz"),
        )
    finally:
        os.umask(old)
    assert code == 0 and (os.stat(tmp_path / "K.npz").st_mode & 0o777) == 0o644
    np.savez(tmp_path / "obj.npz", L=np.array([{"a": 1}], dtype=object))
    code, _, err = run(capsys, "solve", "npkl", "--problem", str(tmp_path / "obj.npz"))
    assert code == 2 and "never unpickles" in err and "allow_pickle" not in err
    np.savez(tmp_path / "noL.npz", pairs=np.array([[0, 1]]), labels=np.array([1]))
    code, _, err = run(capsys, "solve", "npkl", "--problem", str(tmp_path / "noL.npz"))
    assert code == 2 and "key L (dense" in err and "L_data" in err
    code, _, err = run(capsys, "solve", "npkl", "--dataset", "iris", "--C", "-1")
    assert code == 2 and "'C' parameter of npkl" in err
    with pytest.raises(SystemExit) as exit_:
        main(["reproduce", "--help"])
    assert exit_.value.code == 0 and "simplenpkl" in capsys.readouterr().out


def test_solver_option_flags_come_from_the_declarations(capsys, tmp_path):
    """Every option flag reaches its solver or is refused (exit 2): none is dropped."""
    base = [
        "solve",
        "npkl",
        "--dataset",
        "iris",
        "--n-points",
        "30",
        "--loss",
        "hinge",
        "--capacity",
        "trace",
        "--B",
        "30",
    ]
    code, _, err = run(capsys, *base, "--solver", "clarabel", "--rank", "3")
    assert code == 2 and "'rank' option is not an option of clarabel" in err
    code, out, _ = run(capsys, *base, "--rank", "3", "--json")  # the default solver: admm
    d = json.loads(out)
    assert code == 0 and d["solver"] == "admm" and d["rank"] <= 3
    code, out, _ = run(capsys, *base, "--solver", "scs", "--max-iter", "1", "--json")
    assert code == 1 and json.loads(out)["status"] == "iteration_limit"  # reached SCS, honestly
    code, _, err = run(capsys, *base, "--solver", "admm", "--tol", "-1")
    assert code == 2 and "'tol' option of admm must be a float in the range (0, inf)" in err
    np.savez(tmp_path / "q.npz", Q=np.eye(3))
    code, out, _ = run(
        capsys,
        "solve",
        "stqp",
        "--problem",
        str(tmp_path / "q.npz"),
        "--solver",
        "local",
        "--starts",
        "3",
        "--json",
    )
    assert code == 0 and json.loads(out)["solver"] == "local"


def test_relaxation_is_a_cli_parameter(capsys, tmp_path):
    np.savez(tmp_path / "q.npz", Q=np.array([[1.0, -1.0, 0.0], [-1.0, 2.0, 0.5], [0.0, 0.5, -0.5]]))
    code, out, _ = run(
        capsys,
        "solve",
        "stqp",
        "--problem",
        str(tmp_path / "q.npz"),
        "--solver",
        "clarabel",
        "--relaxation",
        "dnn",
        "--json",
    )
    assert code == 0 and json.loads(out)["info"]["relaxation"] == "dnn"
    with pytest.raises(SystemExit) as exit_:  # the parameter's declared choices
        main(["solve", "stqp", "--problem", str(tmp_path / "q.npz"), "--relaxation", "lasserre"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "invalid choice: 'lasserre'" in err and err.count("\n") == 1


def test_progress_bar_follows_an_iterative_solver():
    import io

    from kernelsdp.cli.output import ProgressBar

    buf = io.StringIO()
    bar = ProgressBar(100, "admm", file=buf)
    for it in (1, 50, 100):
        bar({"iteration": it, "relative_gap": float("nan") if it < 100 else 5e-4})
    bar.close()
    assert "admm" in buf.getvalue() and "gap 5.0e-04" in buf.getvalue()
    assert ProgressBar(10, "x").bar.disable  # pytest's stderr is not a terminal: no bar


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--n-points", "10000"], "has 150 points; got --n-points 10000"),
        (["--n-points", "0"], "'n_points' parameter of simple-npkl must be an int in the range [2"),
        (["--seed", "-3"], "'seed' parameter"),
    ],
)
def test_data_set_flags_are_checked(capsys, flags, message):
    code, _, err = run(capsys, "solve", "simple-npkl", "--dataset", "iris", *flags)
    assert code == 2 and message in err and err.count("\n") == 1


def test_ticker_shows_elapsed_time_for_a_generic_solve():
    import io
    import time as _time

    from kernelsdp.cli.output import Ticker

    buf = io.StringIO()
    with Ticker("clarabel on npkl", file=buf, every=0.01):
        _time.sleep(0.05)
    assert "clarabel on npkl" in buf.getvalue() and "elapsed" in buf.getvalue()
