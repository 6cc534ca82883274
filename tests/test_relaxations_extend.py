"""A relaxation written outside the package registers with one line and runs end to end —
relax, a proven bound, recovery, applicable, the command line — with no edit to the
package; and the worked example of docs/relaxations.md §7 runs as written (issue #27)."""

import json
import pathlib
import re

import cvxpy as cp
import numpy as np
import pytest

from kernelsdp.cli import main
from kernelsdp.relaxations import QCQP, RELAXATIONS, Lifting, applicable, relax, shor_family

DOCS = (pathlib.Path(__file__).parents[1] / "docs" / "relaxations.md").read_text()


class ShorBall(Lifting):
    """Shor's relaxation with the redundant ball ‖x‖² ≤ Σ max(lᵢ², uᵢ²) of a finite box,
    lifted as tr X ≤ Σ max(lᵢ², uᵢ²): a relaxation this test file adds to the registry."""

    name = "shor+ball"
    label = "Shor+ball"

    def accepts(self, q):
        return None if np.all(np.isfinite(q.lb) & np.isfinite(q.ub)) else "needs a finite box"

    def apply(self, q):
        rel = shor_family(q, self.name)
        radius = float(np.sum(np.maximum(q.lb**2, q.ub**2)))
        ball = [cp.trace(rel.Y[1:, 1:]) <= radius]
        rel.constraints["ball"] = ball
        rel.problem = cp.Problem(rel.problem.objective, rel.problem.constraints + ball)
        return rel


@pytest.fixture
def registered():
    RELAXATIONS["shor+ball"] = ShorBall()
    yield
    del RELAXATIONS["shor+ball"]
    RELAXATIONS.pop("shor+triangle", None)  # the docs example's


def test_a_relaxation_from_a_test_file_runs_end_to_end(registered, tmp_path, capsys):
    q = QCQP.build(np.array([[-1.0, 2.0], [2.0, -3.0]]), [1.0, 0.5], lb=-1, ub=1)
    assert applicable(q)["shor+ball"].ok
    assert not applicable(QCQP.build(np.eye(2)))["shor+ball"].applies
    rel = relax(q, "shor+ball").solve("clarabel")
    shor = relax(q, "shor").solve("clarabel")
    rec = rel.recover()
    assert rel.bound is not None and rel.bound == pytest.approx(shor.bound, abs=1e-6)
    assert rec.best.feasible and rec.best.value >= rel.bound - 1e-9
    path = tmp_path / "q.npz"
    np.savez(path, P=q.objective.P, q=q.objective.q, lb=-1.0, ub=1.0)
    assert main(["relax", str(path), "--relaxation", "shor+ball", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["relaxations"][0]
    assert row["relaxation"] == "shor+ball"
    assert row["proven_bound"] == pytest.approx(rel.bound, abs=1e-6)


def test_the_docs_example_runs_as_written(registered, capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOCS, re.S)
    assert len(blocks) == 3
    first: dict = {"__name__": "docs"}
    for code in blocks[:2]:  # the first two share one session
        exec(compile(code, "docs/relaxations.md", "exec"), first)
    assert first["q"].inequalities and first["rec"].report.attained
    ns: dict = {"__name__": "docs"}
    exec(compile(blocks[2], "docs/relaxations.md", "exec"), ns)
    shor, tri = ns["shor"], ns["tri"]
    assert shor.bound == pytest.approx(4.5225, abs=1e-3)  # Goemans–Williamson's value on C5
    assert tri.bound == pytest.approx(4.0, abs=1e-5)  # the triangles close the gap
    assert tri.recover().best.value == 4.0
