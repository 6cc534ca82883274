"""``kernelsdp relax FILE``: the table and --json on a box QP and a .npz QCQP, and one line with
exit 2 for each user mistake (issue #27)."""

import json
import pathlib

import numpy as np
import pytest

from kernelsdp.cli import main

BOXQP = pathlib.Path(__file__).parents[1] / "benchmarks" / "data" / "boxqp" / "spar020-100-1.in"


def test_relax_a_published_box_qp_as_json(capsys):
    code = main(
        ["relax", str(BOXQP), "--relaxation", "shor+rlt", "--maximize", "--json", "--draws", "16"]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["problem"]["d"] == 20 and out["problem"]["maximize"]
    rows = {r["relaxation"]: r for r in out["relaxations"]}
    assert rows["shor+rlt"]["proven_bound"] >= 706.5 > rows["shor+rlt"]["proven_bound"] - 0.1
    assert rows["shor+rlt"]["recovered_value"] == 706.5  # the published optimum
    assert rows["shor+rlt"]["gap"] == pytest.approx(rows["shor+rlt"]["proven_bound"] - 706.5)


def test_relax_an_npz_qcqp_prints_a_table(tmp_path, capsys):
    W = np.zeros((5, 5))
    for i in range(5):
        W[i, (i + 1) % 5] = W[(i + 1) % 5, i] = 1.0
    path = tmp_path / "c5.npz"
    np.savez(path, P=-W / 4, r=W.sum() / 4, spin=np.arange(5), maximize=1)
    assert main(["relax", str(path), "--relaxation", "shor,moment2"]) == 0
    out = capsys.readouterr().out
    lines = {
        ln.split()[0]: ln.split() for ln in out.splitlines() if ln.startswith(("shor", "moment2"))
    }
    assert float(lines["shor"][3]) == pytest.approx(4.5225, abs=1e-3)  # proven bound column
    assert float(lines["moment2"][3]) == pytest.approx(4.0, abs=1e-5)
    assert float(lines["moment2"][5]) == 4.0  # the maximum cut of C5, recovered


@pytest.mark.parametrize(
    "args, match",
    [
        (["--relaxation", "lasserre"], "unknown relaxation 'lasserre'"),
        (["--relaxation", "dnn", "--solvers", "nosuch"], "unknown solver 'nosuch'"),
        (["--relaxation", "moment2"], "at most 12 variables"),
        (["--relaxation", ","], "needs at least one name"),
        (["--draws", "-1"], "'draws' parameter"),
    ],
)
def test_user_mistakes_are_one_line_and_exit_2(args, match, capsys):
    assert main(["relax", str(BOXQP), *args]) == 2
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1 and "Traceback" not in err


def test_bad_files_are_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.in"
    bad.write_text("3\n1 2 3\n1 2\n")
    asym = tmp_path / "asym.npz"
    np.savez(asym, P=np.array([[1.0, 2.0], [0.0, 1.0]]))
    typo = tmp_path / "typo.npz"
    np.savez(typo, P=np.eye(2), lbb=0)
    for path, match in (
        (bad, "needs 3 entries of c and 9 of Q"),
        (asym, "not symmetric"),
        (typo, "unknown keys ['lbb']"),
        (tmp_path / "none.in", "no such file"),
    ):
        assert main(["relax", str(path)]) == 2
        err = capsys.readouterr().err
        assert match in err and err.count("\n") == 1, err
