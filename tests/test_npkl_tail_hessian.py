"""benchmarks/npkl_tail_hessian.py (issue #30, thirty-fifth pass): the Hessian it studies is
symmetric on the tangent space, sends V's rotations Z·A (A antisymmetric) to the vertical
shift and keeps a horizontal direction's curvature, its block basis lies off span V, and
the report places each direction."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import load_benchmark

from kernelsdp.solvers.alm_newton import _tangent


@pytest.fixture(scope="module")
def state():
    proto = load_benchmark("npkl_tail_hessian")
    st = proto.captured_state(600, 0, 0.0, 1.0)
    assert st["X"].shape[1] >= 3  # rotations to test (width 17 at check 3)
    return proto, st


def _vertical_basis(Z: np.ndarray) -> np.ndarray:
    """An orthonormal basis (columns) of {Z·A : A antisymmetric}, pair by pair."""
    s = Z.shape[1]
    cols = []
    for i in range(s):
        for j in range(i + 1, s):
            A = np.zeros((s, s))
            A[i, j], A[j, i] = 1.0, -1.0
            cols.append((Z @ A).ravel())
    return np.linalg.qr(np.column_stack(cols))[0]


def test_the_operator_shifts_the_rotations_and_keeps_the_horizontal_curvature(state):
    proto, st = state
    op, x, Z, nt = proto.horizontal_hessian(st)
    rng = np.random.default_rng(0)
    u, v = (_tangent(x, rng.standard_normal(Z.shape)).ravel() for _ in range(2))
    assert u @ op.matvec(v) == pytest.approx(v @ op.matvec(u), rel=1e-9)
    A = rng.standard_normal((Z.shape[1],) * 2)
    rotation = (Z @ (A - A.T)).ravel()
    np.testing.assert_allclose(op.matvec(rotation), proto.VERTICAL_SHIFT * rotation, atol=1e-9)
    B = _vertical_basis(Z)
    h = u - B @ (B.T @ u)  # horizontal and tangent
    image = op.matvec(h)
    Hh = nt.hessian(x, h.reshape(Z.shape).copy()).ravel()
    assert h @ image == pytest.approx(h @ Hh, rel=1e-8)  # no shift on the horizontal space
    assert np.abs(B.T @ image).max() <= 1e-8 * np.linalg.norm(image)  # its image horizontal


def test_the_block_basis_is_orthonormal_and_off_span_v():
    proto = load_benchmark("npkl_tail_hessian")
    rng = np.random.default_rng(1)
    Q = np.linalg.qr(rng.standard_normal((200, 6)))[0]
    block = np.column_stack([rng.standard_normal((200, 3)), Q[:, :2] @ rng.standard_normal(2)])
    W = proto.block_off(Q, block)
    assert W.shape == (200, 3)  # the vector inside span Q dropped
    np.testing.assert_allclose(W.T @ W, np.eye(3), atol=1e-12)
    assert np.abs(Q.T @ W).max() < 1e-12


def test_the_report_places_each_direction(state, capsys):
    proto, st = state
    proto.report(st, 4, 20)
    lines = [ln.split() for ln in capsys.readouterr().out.splitlines() if "curvature" in ln]
    assert len(lines) == 4
    for words in lines:
        in_v, in_w, rest = (float(words[words.index(k) + 1]) for k in ("V", "block", "elsewhere"))
        assert 0 <= in_v <= 1 and 0 <= in_w <= 1
        assert rest >= -1e-3  # the three shares, each printed to 3 places, add to one
