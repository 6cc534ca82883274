"""The SDPA reader and `kernelsdp certify`: formats, clear errors, exit codes, JSON fields."""

import json

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from kernelsdp.cli import main
from kernelsdp.data import sdp_instances as S
from kernelsdp.data.sdpa import SDPAProblem, parse_sdpa, read_sdpa, write_sdpa
from kernelsdp.errors import InvalidDataError


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_reader_reads_blocks_c_and_comments():
    p = parse_sdpa(S.LP_BLOCK_SDPA)
    assert p.m == 2 and p.blocks == [2, -2] and np.allclose(p.c, [1, 1])
    F0 = p.F[0][:, 0].toarray().reshape(2, 2, order="F")
    assert np.allclose(F0, [[0, -1], [-1, 0]])  # the upper entry mirrored
    assert np.allclose(p.F[1][:, 0].toarray().ravel(), [1, 2])
    wrapped = (
        '* a star comment\n"quoted"\n2 = mDIM\n1 = nBLOCK\n(1)\n{3,\n -4}\n1 1 1 1 1\n2 1 1 1 1\n'
    )
    q = parse_sdpa(wrapped)
    assert np.allclose(q.c, [3, -4]) and q.blocks == [1]


def test_writer_round_trips():
    p = S.theta_sdpa(nx.cycle_graph(7))
    q = parse_sdpa(write_sdpa(p))
    assert q.blocks == p.blocks and np.allclose(q.c, p.c)
    assert abs(q.F[0] - p.F[0]).max() == 0


def test_writer_writes_each_upper_entry_once_in_f_s_order():
    """The vectorised writer's lines are the per-entry loop's, byte for byte: a PSD block
    with lower, upper, diagonal and explicitly stored zero entries, and a diagonal block."""
    rng = np.random.default_rng(0)
    dense = rng.standard_normal((9, 4)) * (rng.random((9, 4)) < 0.6)
    dense[4, 2] = 0.1 + 1 / 3  # a value whose 17 digits matter
    F = sp.csc_matrix(dense)
    F.data[0] = 0.0  # stored but zero: not written
    p = SDPAProblem(np.array([1.0, -2.5, 1e-300]), [3, -2], [F, sp.csc_matrix(dense[:2])])
    want = ['"sdpa"', "3", "2", "3 -2", "1 -2.5 1e-300"]
    for b, (size, M) in enumerate(zip(p.blocks, p.F), start=1):
        C = M.tocoo()
        for r, k, v in zip(C.row, C.col, C.data):
            i, j = (r + 1, r + 1) if size < 0 else (r % 3 + 1, r // 3 + 1)
            if i <= j and v != 0:
                want.append(f"{k} {b} {i} {j} {v:.17g}")
    assert write_sdpa(p) == "\n".join(want) + "\n"


@pytest.mark.parametrize(
    "text, where",
    [
        ("2\n1\n2\n1 1\n1 1 1 1 1\n1 1 1 1 2\n", "line 6"),  # repeated entry
        ("1\n1\n-2\n1\n1 1 1 2 1\n", "diagonal"),  # off-diagonal in LP
        ("1\n1\n2\n1\n3 1 1 1 1\n", "out of range"),  # matrix index
        ("1\n1\n2\n1\n1 1 3 1 1\n", "outside block"),  # entry index
        ("2\n1\n2\n1\n", "file ends"),  # c truncated
        ("x\n", "expected the number of variables"),
        ("1\n1\n2\n1\n1 1 1\n", "matrix block i j value"),
        ("1\n1\n2.5\n1\n", "integer"),
        ("1\n1\n2\n1\n1 1 1 1 nan\n", "not finite"),
    ],
)
def test_reader_errors_name_the_line(text, where):
    with pytest.raises(InvalidDataError, match=where):
        parse_sdpa(text, "bad.dat-s")


def test_non_text_file_is_a_clear_error(tmp_path):
    (tmp_path / "b.dat-s").write_bytes(b"\xff\xfe\x00\x01binary")
    with pytest.raises(InvalidDataError, match="not a text file"):
        read_sdpa(str(tmp_path / "b.dat-s"))


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "lp.dat-s").write_text(S.LP_BLOCK_SDPA)
    (tmp_path / "infeasible.dat-s").write_text(S.PRIMAL_INFEASIBLE_SDPA)
    (tmp_path / "unbounded.dat-s").write_text(S.DUAL_INFEASIBLE_SDPA)
    (tmp_path / "theta.dat-s").write_text(write_sdpa(S.theta_sdpa(nx.cycle_graph(9))))
    (tmp_path / "mine.py").write_text(
        "import cvxpy as cp, numpy as np\n"
        "def problem():\n"
        "    X = cp.Variable((3, 3), PSD=True)\n"
        "    return cp.Problem(cp.Minimize(cp.trace(np.diag([1., 2, 3]) @ X)), "
        "[cp.trace(X) == 1])\n"
    )
    return tmp_path


def test_certify_a_folder(capsys, folder):
    code, out, _ = run(capsys, "certify", folder, "--solvers", "clarabel,scs", "--allow-python")
    assert code == 0, out
    rows = [
        ln
        for ln in out.splitlines()
        if ln.rstrip().endswith(
            ("certified optimality", "certified infeasibility", "certified unboundedness")
        )
    ]
    assert len(rows) == 10 and "0 of them not certified" in out
    code, out, _ = run(capsys, "certify", folder, "--json", "--allow-python")
    rows = json.loads(out)
    assert code == 0 and len(rows) == 5 and all(r["passed"] for r in rows)
    s = rows[0]["solvers"][0]
    assert s["lower_label"] == s["upper_label"] == "proof" or s["kind"] != "optimality"
    # without --allow-python the folder's .py file is not run, and the reason is not hidden
    code, out, _ = run(capsys, "certify", folder, "--json")
    assert code == 0 and len(json.loads(out)) == 4
    theta = next(r for r in rows if r["problem"]["name"] == "theta.dat-s")
    s = theta["solvers"][0]
    assert {
        "solver",
        "status",
        "objective",
        "dimacs",
        "lower",
        "upper",
        "rigorous",
        "passed",
        "failed",
        "solve_time_s",
        "certify_time_s",
    } <= set(s)
    assert set(s["dimacs"]) == {f"err{k}" for k in range(1, 7)}
    assert s["lower"] - 1e-6 <= S.theta_value(9) <= s["upper"] + 1e-6
    kinds = {r["problem"]["name"]: r["solvers"][0]["kind"] for r in rows}
    assert (
        kinds["infeasible.dat-s"] == "infeasibility" and kinds["unbounded.dat-s"] == "unboundedness"
    )


def test_certify_exits_1_when_an_answer_fails(capsys, folder):
    # Clarabel stops near 1e-9: held to 1e-12 its 'optimal' answer fails, and says so
    code, out, _ = run(
        capsys, "certify", folder / "theta.dat-s", "--solvers", "clarabel", "--tol", "1e-12"
    )
    assert code == 1 and "FAIL" in out and "1 of them not certified" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["nope.dat-s"], "no such file"),
        (["x.txt"], "expected an SDPA file"),
        (["theta.dat-s", "--solvers", "gurobi"], "unknown solver"),
        (["theta.dat-s", "--tol", "-1"], "tol"),
        (["theta.dat-s", "--time-limit", "0"], "time_limit"),
        (["noproblem.py"], "defines no function problem"),
        (["raises.py"], "problem\\(\\) raised ZeroDivisionError"),
        (["notaproblem.py"], "returned int"),
    ],
)
def test_certify_user_errors_exit_2_with_one_line(capsys, folder, args, message):
    (folder / "x.txt").write_text("hello")
    (folder / "noproblem.py").write_text("x = 1\n")
    (folder / "raises.py").write_text("def problem():\n    return 1 / 0\n")
    (folder / "notaproblem.py").write_text("def problem():\n    return 3\n")
    args = [folder / args[0] if not args[0].startswith("-") else args[0], *args[1:]]
    code, out, err = run(capsys, "certify", *args, "--allow-python")
    assert code == 2 and err.count("\n") == 1 and err.startswith("kernelsdp: error:")
    assert __import__("re").search(message, err), err


def test_certify_time_limit_reaches_the_solver(capsys, folder):
    code, out, _ = run(capsys, "certify", folder / "theta.dat-s", "--time-limit", "60", "--json")
    assert code == 0 and json.loads(out)["passed"]


@pytest.mark.parametrize(
    "source, message",
    [
        (
            "import cvxpy as cp\ndef problem():\n    return cp.Problem(cp.Minimize(0))\n",
            "no variables",
        ),
        (
            "import cvxpy as cp\ndef problem():\n    x, p = cp.Variable(), cp.Parameter()\n"
            "    return cp.Problem(cp.Minimize(x), [x >= p])\n",
            "cannot hand this problem to clarabel",
        ),
        (
            "import cvxpy as cp\ndef problem():\n    x = cp.Variable()\n"
            "    return cp.Problem(cp.Maximize(cp.square(x)), [x <= 1])\n",
            "not DCP",
        ),
    ],
)
def test_certify_refuses_problems_cvxpy_cannot_take(capsys, tmp_path, source, message):
    (tmp_path / "p.py").write_text(source)
    code, _, err = run(capsys, "certify", tmp_path / "p.py", "--allow-python")
    assert code == 2 and message in err and err.count("\n") == 1


def test_python_files_run_only_when_asked_and_never_exit_for_the_cli(capsys, tmp_path):
    """Issue #26 §4: a .py is executed only with --allow-python; what it raises (SystemExit
    included) is one line and a failed entry, never an exit 0 of the CLI."""
    (tmp_path / "exits.py").write_text("import sys\nsys.exit(0)\n")
    code, _, err = run(capsys, "certify", tmp_path / "exits.py")
    assert code == 2 and "--allow-python" in err and err.count("\n") == 1
    code, _, err = run(capsys, "certify", tmp_path / "exits.py", "--allow-python")
    assert code == 2 and "SystemExit" in err and err.count("\n") == 1
    (tmp_path / "ok.dat-s").write_text(S.LP_BLOCK_SDPA)
    code, out, err = run(capsys, "certify", tmp_path, "--allow-python")
    assert code == 2 and "SystemExit" in err and "ok.dat-s" in out


def test_a_symlink_loop_in_a_folder_is_one_failed_entry(capsys, tmp_path):
    (tmp_path / "ok.dat-s").write_text(S.LP_BLOCK_SDPA)
    (tmp_path / "a.dat-s").symlink_to(tmp_path / "b.dat-s")
    (tmp_path / "b.dat-s").symlink_to(tmp_path / "a.dat-s")
    code, out, err = run(capsys, "certify", tmp_path)
    assert code == 2 and "symbolic links" in err and "ok.dat-s" in out
