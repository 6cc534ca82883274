"""benchmarks/npkl_check_amg.py (issue #30, thirty-ninth pass): the comparison starts where
the check starts (no preconditioner at the check's own iterations reads the check's λ), no
variant's λ lies below λ_min, the V-cycle is a symmetric positive definite preconditioner
that converges as a solver, and the solver's path is not moved."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import load_benchmark

import kernelsdp.solvers.alm_inner as alm_inner
import kernelsdp.solvers.alm_outer as alm_outer
from kernelsdp.solvers import solve
from kernelsdp.solvers.alm_inner import evaluate, fw_check
from kernelsdp.solvers.alm_problem import ScaledNPKL

pytest.importorskip("pyamg")  # the test extra installs it (pyproject.toml)

N = 600  # above DENSE_CHECK_N: the check runs LOBPCG


@pytest.fixture(scope="module")
def traced():
    amg = load_benchmark("npkl_check_amg")
    rows, r = amg.traced(N, 0)
    return amg, rows, r


def test_no_preconditioner_at_the_checks_iterations_reads_the_checks_lambda(traced):
    """The rerun starts from the check's warm block off span V and ends in the check's
    Rayleigh–Ritz pencil: at the check's own iterations it gives the check's λ."""
    amg, rows, _ = traced
    its = alm_inner.check_iterations(N)
    assert its in amg.VARIANTS["none"]
    assert len(rows) >= 5
    for r in rows:
        # abs 1e-7, not rounding's 1e-12: the check's LOBPCG runs in float32 through the
        # row-block operator against a float32 orthonormal basis of span V (V itself in
        # double until the forty-second pass), this one in double through M against a
        # double basis, and unconverged iterates carry the difference (n = 600: at most
        # 4e-9 of λ ≈ 0.36 with the double check)
        assert r["ref"] + r[f"none {its}"] == pytest.approx(r["lam"], abs=1e-7)


def test_no_variant_reads_below_lambda_min(traced):
    """Ritz values are at least λ_min: a negative excess would mean a wrong reference."""
    amg, rows, _ = traced
    for row in rows:
        for v, its in amg.VARIANTS.items():
            assert all(row[f"{v} {n}"] >= -1e-9 for n in its)


def test_every_check_at_a_nonzero_width_is_compared(traced):
    """Every check at a nonzero width is a row (at width 0 there is nothing to rerun off
    span V): from the spectral start, the default, every check (from K = 0 all but the
    first)."""
    _, rows, r = traced
    assert next(h["rank"] for h in r.history if "fw_gap" in h) > 0
    assert r.info["checks"] == len(rows)
    assert [row["check"] for row in rows] == list(range(1, len(rows) + 1))


def test_the_reference_is_the_least_eigenvalue():
    """At a state of the n = 600 instance with a random 5-column factor and multipliers
    drawn in the box: the reference is M(β̃)'s dense bottom."""
    amg = load_benchmark("npkl_check_amg")
    prob = ScaledNPKL(load_benchmark("npkl_scale").instance(N), np.float64)
    beta = np.random.default_rng(3).uniform(0.0, 1.0, prob.m) * prob.t
    rho, V = 2.0, np.random.default_rng(4).standard_normal((N, 5)) * 0.05
    pt = evaluate(prob, V, beta, rho)
    chk = fw_check(prob, pt, beta, rho, None, 0)
    row = amg.compare(prob, pt, None, 0, chk, {})
    M = prob.dual_matrix(chk.beta_tilde).toarray()
    assert row["ref"] == pytest.approx(np.linalg.eigvalsh(M)[0], abs=1e-9)


def test_amg_on_m_reads_lambda_closer_than_plain_iterations_in_the_body(traced):
    """In the body (the first six compared checks) three V-cycle iterations read λ closer,
    summed, than the check's own six plain ones: the pass's measured point, at n = 600."""
    _, rows, _ = traced
    body = rows[:6]
    assert sum(r["amg-M 3"] for r in body) < sum(r["none 6"] for r in body)


def test_the_v_cycle_is_symmetric_positive_definite_and_converges():
    amg = load_benchmark("npkl_check_amg")
    n = 400
    rng = np.random.default_rng(0)
    G = sp.random(n, n, density=0.01, random_state=1)
    A = (sp.diags(np.asarray(abs(G + G.T).sum(axis=1)).ravel() + 0.1) - (G + G.T)).tocsr()
    T = amg.BlockVCycle(A)
    X, Y = rng.standard_normal((n, 3)), rng.standard_normal((n, 3))
    assert np.allclose(X.T @ T(Y), T(X).T @ Y, atol=1e-10)
    assert np.all(np.linalg.eigvalsh(T(np.eye(n))) > 0)
    b, x = rng.standard_normal(n), np.zeros(n)
    for _ in range(10):  # as a stationary solver: x ← x + T(b − Ax)
        x = x + T(b - A @ x)
    assert np.linalg.norm(b - A @ x) < 1e-6 * np.linalg.norm(b)


def test_the_comparison_leaves_the_path_and_the_solver_as_they_were(traced):
    _, rows, r = traced
    plain = solve(load_benchmark("npkl_scale").instance(N), "low-rank-alm", seed=0)
    assert r.info["products"] == plain.info["products"]
    assert alm_outer.fw_check.__module__ == "kernelsdp.solvers.alm_inner"


def test_stopping_after_k_checks():
    amg = load_benchmark("npkl_check_amg")
    rows, r = amg.traced(N, 0, checks=2)
    assert len(rows) == 2 and r is None
    assert "amg-L setup s" in rows[0] and "check's excess" in amg.table(rows)
    assert alm_outer.fw_check.__module__ == "kernelsdp.solvers.alm_inner"


def test_the_command_line_picks_iterations_and_variants(capsys):
    amg = load_benchmark("npkl_check_amg")  # main sets the module's VARIANTS: a fresh copy
    argv = ["--n", str(N), "--checks", "2", "--plain", "3,6", "--variants", "none,amg-M"]
    assert amg.main(argv) == 0
    out = capsys.readouterr().out
    assert "none:3/6 | amg-M:2/3/4" in out and "amg-L" not in out
    with pytest.raises(SystemExit) as exit_:
        amg.main(["--variants", "none,amg-X"])
    assert exit_.value.code == 2
    # the module's table is left as declared: a second call sees every variant
    assert amg.VARIANTS == {"none": (6, 12, 24), "amg-M": (2, 3, 4), "amg-L": (2, 3, 4)}
