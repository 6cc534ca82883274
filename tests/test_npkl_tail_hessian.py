"""benchmarks/npkl_tail_hessian.py (issue #30, thirty-fifth pass): the Hessian it studies is
symmetric on the tangent space, sends V's rotations Z·A (A antisymmetric) to the vertical
shift, and the report's shares add up to one."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import load_benchmark

from kernelsdp.solvers.alm_newton import _tangent


@pytest.fixture(scope="module")
def state():
    proto = load_benchmark("npkl_tail_hessian")
    return proto, proto.captured_state(600, 0, 0.0, 1.0)


def test_the_operator_is_symmetric_and_shifts_the_rotations(state):
    proto, st = state
    op, x, Z, _ = proto.horizontal_hessian(st)
    rng = np.random.default_rng(0)
    u, v = (_tangent(x, rng.standard_normal(Z.shape)).ravel() for _ in range(2))
    assert u @ op.matvec(v) == pytest.approx(v @ op.matvec(u), rel=1e-9)
    A = rng.standard_normal((Z.shape[1],) * 2)
    rotation = (Z @ (A - A.T)).ravel()
    np.testing.assert_allclose(op.matvec(rotation), proto.VERTICAL_SHIFT * rotation, atol=1e-9)


def test_the_report_places_each_direction(state, capsys):
    proto, st = state
    proto.report(st, 4, 20)
    lines = [ln.split() for ln in capsys.readouterr().out.splitlines() if "curvature" in ln]
    assert len(lines) == 4
    for words in lines:
        in_v, in_w, rest = (float(words[words.index(k) + 1]) for k in ("V", "block", "elsewhere"))
        assert 0 <= in_v <= 1 and 0 <= in_w <= 1
        assert abs(in_v + in_w + rest - 1) < 2e-3  # each printed to 3 places
