"""benchmarks/npkl_local_proto.py (issue #30, eleventh pass): local eigenproblems find
planted pockets of negative curvature, and packing puts only supports one step apart into
one column, so that the column's Rayleigh quotient is the mean of its pieces' (no cross
terms: the objective reads K only on M's pattern)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import load_benchmark


@pytest.fixture(scope="module")
def proto():
    return load_benchmark("npkl_local_proto")


def path_with_pockets(n: int, hubs: list[int], depth: float = 3.0) -> sp.csr_matrix:
    """A path graph's Laplacian with the diagonal lowered by ``depth`` at each hub."""
    d = np.full(n, 2.0)
    d[[0, -1]] = 1.0
    d[hubs] -= depth
    return sp.diags([-np.ones(n - 1), d, -np.ones(n - 1)], [-1, 0, 1], format="csr")


def quotient(M: sp.csr_matrix, u: np.ndarray) -> float:
    return float(u @ (M @ u)) / float(u @ u)


def test_far_pockets_share_one_column(proto):
    hubs = [20, 80, 140]
    M = path_with_pockets(200, hubs)
    S, stats = proto.local_directions(M, below=-0.5, margin=0.5)
    assert stats["found"] == 3 and S.shape[1] == 1
    lams = [proto.local_pair(M, proto.neighbourhood(M, np.array([h]), 2))[0] for h in hubs]
    assert quotient(M, S[:, 0]) == pytest.approx(np.mean(lams), abs=1e-5)
    assert quotient(M, S[:, 0]) < -0.5
    assert np.isclose(np.linalg.norm(S[:, 0]), 1.0)
    assert all(np.abs(S[h - 3 : h + 4, 0]).max() > 0.5 for h in hubs)


def test_near_pockets_take_separate_columns(proto):
    M = path_with_pockets(200, [20, 25])  # supports 18–22 and 23–27: one edge apart
    S, stats = proto.local_directions(M, below=-0.5, margin=0.5)
    assert stats["found"] == 2 and S.shape[1] == 2
    for u in S.T:  # each column one piece: no pattern entry joins two supports in a column
        supp = np.flatnonzero(u)
        assert supp.max() - supp.min() == len(supp) - 1
        assert quotient(M, u) < -0.5


def test_nothing_below_the_level(proto):
    S, stats = proto.local_directions(path_with_pockets(100, []), below=-0.5, margin=0.5)
    assert stats["found"] == 0 and S.shape == (100, 0)


def test_the_row_cap_rejects_only_a_step_that_drains_a_heavy_row(proto, monkeypatch):
    """``rowcap-F``: a trial point that takes a heavy row (norm² ≥ HEAVY × the mean) below
    1/F of its norm² reads +∞ to the ratio test; light rows and milder steps pass."""
    from types import SimpleNamespace

    newton = proto.alm_newton._Newton
    monkeypatch.setattr(newton, "at", lambda self, Z, known=None, slot=0: SimpleNamespace(X=Z[:-1]))
    monkeypatch.setattr(newton, "value", lambda self, X, slot=0: (1.0, "LX", "w"))
    log: list = []
    proto.install_row_cap("rowcap-4", log)
    nt = object.__new__(newton)
    X = np.full((100, 2), 0.05)
    X[7] = [1.0, 1.0]  # the hub: norm² 2, the mean about 0.025
    nt.at(np.vstack([X, np.zeros((1, 2))]))
    mild, drained, light = X.copy(), X.copy(), X.copy()
    mild[7] *= 0.6  # norm² × 0.36 > 1/4
    drained[7] *= 0.4  # × 0.16 < 1/4
    light[3] = 0.0  # a light row emptied
    assert nt.value(mild) == (1.0, "LX", "w") and nt.value(light)[0] == 1.0
    assert nt.value(drained) == (np.inf, "LX", "w") and log == [{"found": 1}]
