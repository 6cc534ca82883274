"""Transformation learning (seed 004): ramps, Q without n×n, closed form, honesty, refusals."""

import numpy as np
import pytest

from kernelsdp import tolerances as tol
from kernelsdp.data.datasets import hyperplane_transformed
from kernelsdp.data.ramps import RampBasis, label_alignment
from kernelsdp.errors import InvalidDataError, TooLargeError
from kernelsdp.formulations import KA, LMTL, MWCTLA, NCTLA
from kernelsdp.formulations.tla import mixture_kernel
from kernelsdp.solvers import solve
from kernelsdp.verify import verify


@pytest.fixture(scope="module")
def task():
    X, y = hyperplane_transformed(300, "quadratic", seed=0)
    return X, y


def test_ramps_are_monotone_truncated_and_chunked(task, monkeypatch):
    X, y = task
    b = RampBasis.fit(X, 6)
    F = b(X)
    assert F.shape == (len(X), 6, 2) and F.min() >= 0 and F.max() <= 1
    order = np.argsort(X[:, 0])
    assert np.all(np.diff(F[order, :, 0].sum(axis=1)) >= -1e-12)  # Σ_j φ_j is monotone
    import kernelsdp.data.ramps as R
    full = label_alignment(b, X, y)
    monkeypatch.setattr(R, "CHUNK", 7)  # chunking must not change the statistics
    assert np.allclose(R.label_alignment(b, X, y), full)
    S, q = R.kernel_gram(b, X, y)
    Ks = [F[:, j] @ F[:, j].T for j in range(6)]
    assert np.allclose(S, [[np.sum(a * c) for c in Ks] for a in Ks])
    assert np.allclose(q, [y @ K @ y for K in Ks])
    G = np.stack([F[:, j].T @ y for j in range(6)], axis=1)
    assert np.allclose(full, G.T @ G)


def test_mwc_closed_form_matches_clarabel(task):
    X, y = task
    f = MWCTLA.from_data(X, y, J=10)
    rep = verify(f, ["clarabel", "closed-form"])
    assert rep.passed, [(c.solver, c.failed) for c in rep.checks]
    assert rep.comparisons[0].relative_difference <= tol.OBJECTIVE_RTOL_EXACT


def test_untightened_loses_monotonicity_and_dnn_restores_it():
    rng = np.random.default_rng(7)
    X = rng.uniform(0, 1, (300, 1))
    y = np.where(np.abs(X[:, 0] - 0.5) < 0.2, 1.0, -1.0)
    plain = solve(MWCTLA.from_data(X, y, J=10), "closed-form")
    tight = solve(MWCTLA.from_data(X, y, J=10, tightened=True), "clarabel")
    assert plain.info["negative_weights"] > 0 and not plain.info["monotone"]
    assert np.allclose(plain.primal["m"], 0)  # m = 0 is feasible as printed
    assert tight.info["monotone"] and tight.primal["M"].min() >= -1e-7
    assert tight.objective <= plain.objective + 1e-6  # a tighter relaxation bounds lower


def test_mwc_tla_learns_the_square_root(task):
    X, y = hyperplane_transformed(400, "quadratic", seed=3)
    tr, te = np.arange(200), np.arange(200, 400)
    f = MWCTLA.from_data(X[tr], y[tr], J=10, tightened=True)
    r = solve(f, "clarabel")
    from sklearn.svm import SVC
    svm = SVC(kernel="precomputed", C=100).fit(mixture_kernel(f.basis, r.primal["M"], X[tr]), y[tr])
    err = np.mean(svm.predict(mixture_kernel(f.basis, r.primal["M"], X[te], X[tr])) != y[te])
    assert r.info["monotone"] and err <= 0.02


def test_small_nc_tla_lmtl_ka_solve_and_verify(task):
    X, y = task
    for cls, solver in ((NCTLA, "scs"), (LMTL, "scs"), (KA, "clarabel")):
        f = cls.from_data(X[:30], y[:30], J=5)
        rep = verify(f, [solver])
        assert rep.passed, (cls.name, rep.checks[0].failed, rep.checks[0].residuals)


def test_original_alignment_matches_its_definition(task):
    X, y = task
    f = NCTLA.from_data(X[:40], y[:40], J=5)
    m = np.linspace(0.1, 1.0, 5)
    Psi = np.einsum("njd,j->nd", f.F, m)
    K = Psi @ Psi.T
    Y = np.outer(f.y, f.y)
    assert np.isclose(f.original_alignment(m), np.sum(K * Y) / (np.linalg.norm(K) * np.linalg.norm(Y)))
    assert 0 < f.original_alignment(m) <= 1 + 1e-12


def test_block_formulations_refuse_large_n():
    X = np.random.default_rng(0).uniform(size=(500, 2))
    y = np.where(X[:, 0] > 0.5, 1, -1)
    for cls in (NCTLA, LMTL):
        with pytest.raises(TooLargeError, match="GiB"):
            cls.from_data(X, y)
    with pytest.raises(InvalidDataError):
        MWCTLA.from_data(X, np.zeros(500))
