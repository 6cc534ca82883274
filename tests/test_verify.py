"""verify must catch wrong answers, not only bless right ones."""

from dataclasses import replace

import numpy as np
from conftest import make_npkl

from kernelsdp import tolerances as tol
from kernelsdp.result import KernelFactor
from kernelsdp.solvers import solve
from kernelsdp.verify import certify, verify


def test_exact_certificate_closes_the_gap(iris_small):
    f = make_npkl(iris_small, "linear", "frobenius")
    r = solve(f, "npkl-closed-form")
    c = certify(f, r)
    assert c.passed and c.rigorous and abs(c.width) < 1e-12
    assert c.measures["complementarity"] < 1e-12
    assert np.isclose(f.dual_value(r.duals["beta"]), r.objective)
    assert np.isclose(c.lower, r.objective) and np.isclose(c.upper, r.objective)


def test_truncated_kernel_fails_verification(iris_small):
    f = make_npkl(iris_small, "linear", "frobenius")
    r = solve(f, "npkl-closed-form")
    U = r.kernel.U[:, : max(1, r.kernel.rank // 2)]
    U = U * np.sqrt(np.sqrt(f.B) / np.linalg.norm(U.T @ U))  # still feasible
    bad = replace(r, kernel=KernelFactor(U), objective=f.objective(KernelFactor(U)))
    check = certify(f, bad)
    assert not check.passed and "interval_width" in check.failed
    assert check.lower <= f.objective(r.kernel) + 1e-9  # the bound stays valid


def test_wrong_multipliers_fail_verification(iris_small):
    f = make_npkl(iris_small, "squared-hinge", "frobenius")
    r = solve(f, "saddle-point")
    assert certify(f, r).passed
    wrong = replace(r, duals={**r.duals, "beta": r.duals["beta"] * 0.5})
    check = certify(f, wrong)
    # the wrong multipliers give a proven but wide interval, and the reported measure shows why
    assert not check.passed and check.failed == ["interval_width"]
    assert check.measures["stationarity_fenchel_young"] > tol.CERTIFY_TOL


def test_infeasible_dual_is_reported_and_the_bound_stays_valid(iris_small):
    f = make_npkl(iris_small, "hinge", "frobenius")
    r = solve(f, "saddle-point")
    wrong = replace(r, duals={**r.duals, "beta": -r.duals["beta"]})  # β·T ∉ [−C, 0]
    check = certify(f, wrong)
    assert not check.passed and check.measures["dual_infeasibility"] > tol.CERTIFY_TOL
    assert check.rigorous and check.lower <= r.objective  # g at the projected β: still a bound


def test_report_compares_intervals_at_named_tolerances(iris_small):
    f = make_npkl(iris_small, "linear", "frobenius")
    rep = verify(f, ["clarabel", "npkl-closed-form"])
    assert rep.passed and rep.comparisons[0].tol == tol.CERTIFY_TOL  # one tolerance decides
    assert rep.comparisons[0].relation == "intervals overlap"
    d = rep.to_dict()
    assert {"problem", "passed", "solvers", "comparisons"} <= set(d)
    assert all(s["rigorous"] for s in d["solvers"])


def test_a_result_without_duals_is_feasibility_only(iris_small):
    f = make_npkl(iris_small, "linear", "frobenius")
    r = solve(f, "npkl-closed-form")
    c = certify(f, replace(r, duals={}))
    assert not c.passed and c.kind == "feasibility only" and c.verdict == "feasibility only"
