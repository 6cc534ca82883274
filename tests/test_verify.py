"""verify must catch wrong answers, not only bless right ones."""

import numpy as np
from dataclasses import replace

from kernelsdp import tolerances as tol
from kernelsdp.result import KernelFactor
from kernelsdp.solvers import solve
from kernelsdp.verify import certify, dual_value, npkl_residuals, verify

from conftest import make_npkl


def test_exact_certificate_closes_the_gap(iris_small):
    f = make_npkl(iris_small, "linear", "frobenius")
    r = solve(f, "closed-form")
    res = npkl_residuals(f, r.kernel, r.duals)
    assert abs(res["relative_duality_gap"]) < 1e-12 and res["complementarity"] < 1e-12
    assert np.isclose(dual_value(f, r.duals["beta"]), r.objective)


def test_truncated_kernel_fails_verification(iris_small):
    f = make_npkl(iris_small, "linear", "frobenius")
    r = solve(f, "closed-form")
    U = r.kernel.U[:, : max(1, r.kernel.rank // 2)]
    U = U * np.sqrt(np.sqrt(f.B) / np.linalg.norm(U.T @ U))  # still feasible
    bad = replace(r, kernel=KernelFactor(U), objective=f.objective(KernelFactor(U)))
    check = certify(f, bad)
    assert not check.passed and "relative_duality_gap" in check.failed


def test_wrong_multipliers_fail_verification(iris_small):
    f = make_npkl(iris_small, "squared-hinge", "frobenius")
    r = solve(f, "saddle-point")
    assert certify(f, r).passed
    wrong = replace(r, duals={**r.duals, "beta": r.duals["beta"] * 0.5})
    check = certify(f, wrong)
    assert not check.passed and "stationarity_fenchel_young" in check.failed


def test_infeasible_dual_is_reported(iris_small):
    f = make_npkl(iris_small, "hinge", "frobenius")
    r = solve(f, "saddle-point")
    wrong = replace(r, duals={**r.duals, "beta": -r.duals["beta"]})  # β·T ∉ [−C, 0]
    assert "dual_infeasibility" in certify(f, wrong).failed


def test_report_compares_objectives_at_named_tolerances(iris_small):
    f = make_npkl(iris_small, "linear", "frobenius")
    rep = verify(f, ["clarabel", "closed-form"])
    assert rep.passed and rep.comparisons[0].tol == tol.OBJECTIVE_RTOL_EXACT
    d = rep.to_dict()
    assert {"problem", "passed", "solvers", "comparisons"} <= set(d)
