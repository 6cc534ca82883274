"""Every NPKL loss × capacity × applicable solver on the shared fixture, certified by verify."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import make_npkl, two_class_npkl

from kernelsdp import tolerances as tol
from kernelsdp.data import PairwiseConstraints
from kernelsdp.errors import (
    InvalidParameterError,
    UnboundedProblemError,
    UnknownNameError,
    UnsupportedProblemError,
)
from kernelsdp.formulations import CAPACITIES, LOSSES, NPKL
from kernelsdp.formulations.active import margins, select_active
from kernelsdp.result import PointStatus, Termination
from kernelsdp.solvers import get_solver, solve, solvers_for
from kernelsdp.verify import certify, verify

# linear/none is refused (unbounded); hinge and squared hinge without capacity are
# ill-posed (no attained optimum; see test_one_sided_losses_without_capacity_warn).
CASES = [
    (loss, cap)
    for loss in LOSSES
    for cap in CAPACITIES
    if not (cap == "none" and loss in ("linear", "hinge", "squared-hinge"))
]


@pytest.mark.parametrize("loss, capacity", CASES)
def test_every_applicable_solver_agrees_and_certifies(iris_small, loss, capacity):
    f = make_npkl(iris_small, loss, capacity)
    names = [s.name for s in solvers_for(NPKL) if s.supports(f) is None and s.availability()[0]]
    assert "clarabel" in names and "scs" in names
    if loss == "linear" and capacity in ("frobenius", "trace"):
        assert "npkl-closed-form" in names
    if capacity == "frobenius" and loss in ("hinge", "squared-hinge"):
        assert "saddle-point" in names
    # held to the loosest named stop among them (ADMM's, the low-rank ALM's and SCS's are
    # 1e-3): one tolerance for the whole report, never each solver's own
    rep = verify(f, names, tol=tol.ADMM_GAP_TOL)
    for c in rep.checks:
        if capacity == "none":  # B̄, the a-priori bound, is not proven in floating point:
            assert c.failed in ([], ["lower_estimate"]), (c.solver, c.failed)  # said so
            assert c.upper_label == "proof" and "B̄" in c.lower_why or c.passed
        else:
            assert c.passed, (c.solver, c.failed, c.residuals)
    for c in rep.comparisons:
        assert c.passed, (c.a, c.b, c.relative_difference)


def test_golden_two_points(two_points):
    r = solve(two_points, "npkl-closed-form")
    assert r.termination is Termination.OPTIMAL
    assert np.isclose(r.objective, -0.5)
    assert np.allclose(r.kernel.dense(), [[0.5, 0.5], [0.5, 0.5]])
    assert np.isclose(r.duals["lam"], 0.25)  # ‖A₊‖_F / (2√B) = 0.5 / 2
    r2 = solve(two_points, "clarabel")
    assert abs(r2.objective + 0.5) < tol.OBJECTIVE_RTOL_EXACT


@pytest.mark.parametrize("capacity", ["frobenius", "trace"])
def test_closed_form_matches_clarabel_at_exact_tolerance(iris_small, capacity):
    for B, C in [(1.0, 1.0), (24.0, 0.5), (500.0, 3.0)]:
        f = make_npkl(iris_small, "linear", capacity, C=C, B=B)
        a, b = solve(f, "npkl-closed-form"), solve(f, "clarabel")
        assert abs(a.objective - b.objective) <= tol.OBJECTIVE_RTOL_EXACT * max(1, abs(b.objective))


def test_trace_closed_form_is_zero_when_the_dual_matrix_is_psd():
    """M = L − C·T = 2I − T ⪰ 0 (one must-link, λ_min = 1.5): K* = 0, value 0, λ = 0."""
    f = NPKL(
        L=sp.identity(2, format="csr") * 2.0,
        loss="linear",
        capacity="trace",
        C=1.0,
        B=5.0,
        pairs=PairwiseConstraints.from_arrays([[0, 1]], [1], 2),
    )
    r = solve(f, "npkl-closed-form")
    assert r.termination is Termination.OPTIMAL and r.objective == 0.0 and r.duals["lam"] == 0.0
    assert np.isclose(r.info["lambda_min"], 1.5) and certify(f, r).passed
    assert abs(solve(f, "clarabel").objective) < tol.OBJECTIVE_RTOL_EXACT


def test_trace_closed_form_by_lanczos_above_the_dense_size():
    """n = 600 > DENSE_MAX_N: Lanczos's λ_min against dense LAPACK's, certified from scratch;
    the product limit is a status, not a point."""
    f = two_class_npkl(600, 1.2, "linear", "trace", C=1.0, B=600.0)
    r = solve(f, "npkl-closed-form")
    exact = np.linalg.eigvalsh(f.dual_matrix(-f.C * f.pairs.t.astype(float)).toarray())[0]
    assert r.info["eigen_method"] == "arpack" and exact < 0
    assert abs(r.objective - f.B * exact) <= tol.OBJECTIVE_RTOL_EXACT * abs(f.B * exact)
    assert r.kernel.rank == 1 and np.isclose(r.kernel.trace(), f.B)
    assert certify(f, r).passed
    stopped = solve(f, "npkl-closed-form", max_iter=5)
    assert (
        stopped.termination is Termination.ITERATION_LIMIT and stopped.point is PointStatus.NO_POINT
    )


@pytest.mark.parametrize("loss", ["squared-hinge", "hinge"])
def test_saddle_point_matches_generic_solvers(iris_small, loss):
    for B, C in [(24.0, 1.0), (240.0, 0.1), (1.0, 10.0)]:
        f = make_npkl(iris_small, loss, "frobenius", C=C, B=B)
        r = solve(f, "saddle-point")
        assert r.termination is Termination.OPTIMAL and r.info["relative_gap"] <= tol.SADDLE_GAP_TOL
        for ref in ("clarabel", "scs"):
            o = solve(f, ref).objective
            assert abs(r.objective - o) <= tol.OBJECTIVE_RTOL_ITERATIVE * max(1, abs(o)), ref
        hist = [h["relative_gap"] for h in r.history]
        assert hist[-1] <= hist[0]


def test_saddle_point_iteration_limit_is_a_status(iris_small):
    f = make_npkl(iris_small, "squared-hinge", "frobenius", C=0.1, B=240.0)
    r = solve(f, "saddle-point", max_iter=2, tol=1e-14)
    assert r.termination is Termination.ITERATION_LIMIT and r.point is PointStatus.FEASIBLE_POINT
    assert r.kernel is not None and len(r.history) == 2


def test_unsupported_and_unknown(iris_small):
    f = make_npkl(iris_small, "hinge", "trace")
    with pytest.raises(
        UnsupportedProblemError,
        match="npkl-closed-form accepts loss 'linear' and capacity 'frobenius', 'trace'; "
        "got loss 'hinge'",
    ):
        solve(f, "npkl-closed-form")
    with pytest.raises(
        UnsupportedProblemError, match="saddle-point accepts .*; got capacity 'trace'"
    ):
        solve(f, "saddle-point")
    with pytest.raises(UnsupportedProblemError, match="trace capacity|tr KK"):
        solve(make_npkl(iris_small, "hinge", "frobenius"), "admm")  # the refusal says why
    with pytest.raises(UnknownNameError, match="choose one of"):
        get_solver(NPKL, "sedumi")


@pytest.mark.parametrize(
    "solver, options, message",
    [
        ("admm", {"max_iters": 3}, "'max_iters' option is not an option of admm"),
        ("admm", {"tol": -1}, "'tol' option of admm must be a float in the range \\(0, inf\\)"),
        ("admm", {"rank": 0}, "'rank' option of admm must be an int in the range \\[1, inf\\)"),
        ("admm", {"rank": 2.5}, "'rank' option of admm must be an int"),
        ("clarabel", {"max_iters": 3}, "not an option of clarabel"),
        ("clarabel", {"solver_options": {"no_such_setting": 1}}, "clarabel rejected an option"),
        ("saddle-point", {"max_iter": 0}, "'max_iter' option of saddle-point"),
        ("npkl-closed-form", {"eig_method": "magic"}, "one of 'auto'"),
    ],
)
def test_every_option_typo_is_an_error(iris_small, solver, options, message):
    loss, cap = {"admm": ("hinge", "trace"), "saddle-point": ("hinge", "frobenius")}.get(
        solver, ("linear", "frobenius")
    )
    with pytest.raises(InvalidParameterError, match=message):
        solve(make_npkl(iris_small, loss, cap), solver, **options)


def test_default_solver_is_the_most_preferred_that_supports_the_problem(iris_small):
    from kernelsdp.solvers import default_solver

    assert default_solver(make_npkl(iris_small, "linear", "frobenius")).name == "npkl-closed-form"
    assert default_solver(make_npkl(iris_small, "linear", "trace")).name == "npkl-closed-form"
    assert default_solver(make_npkl(iris_small, "hinge", "frobenius")).name == "saddle-point"
    assert default_solver(make_npkl(iris_small, "hinge", "trace")).name == "admm"
    assert default_solver(make_npkl(iris_small, "l2", "none")).name == "admm"  # issue #14
    assert solve(make_npkl(iris_small, "linear", "frobenius")).solver == "npkl-closed-form"


@pytest.mark.parametrize(
    "kw, err",
    [
        ({"C": 0.0}, InvalidParameterError),
        ({"C": -1.0}, InvalidParameterError),
        ({"B": 0.0}, InvalidParameterError),
        ({"loss": "logistic"}, UnknownNameError),
        ({"capacity": "spectral"}, UnknownNameError),
    ],
)
def test_bad_parameters(iris_small, kw, err):
    L, pairs, _ = iris_small
    with pytest.raises(err):
        NPKL(L=L, pairs=pairs, **{"loss": "linear", "capacity": "frobenius", **kw})


def test_linear_loss_without_capacity_is_refused_before_solving(iris_small):
    L, pairs, _ = iris_small
    with pytest.raises(UnboundedProblemError, match="unbounded"):
        NPKL(L=L, pairs=pairs, loss="linear", capacity="none")


@pytest.mark.parametrize("loss", ["hinge", "squared-hinge"])
def test_one_sided_losses_without_capacity_warn(iris_small, loss):
    from kernelsdp.certificate import conic_certificate
    from kernelsdp.errors import IllPosedWarning

    with pytest.warns(IllPosedWarning, match="may not attain"):
        f = make_npkl(iris_small, loss, "none")
    # measured: the optimum need not be attained, and the generic solvers differ by version
    # (Clarabel 0.9-0.10 stopped "inaccurate" with a point; 0.11.1 stops with a solver error
    # and no point on squared hinge; SCS 3.3 returns one, in 6 s, so it runs only then).
    # Whatever each one does is a status, never a crash, and that status is the
    # certificate's word
    r = solve(f, "clarabel")
    if r.point is PointStatus.NO_POINT:
        assert r.termination is Termination.NUMERICAL_ERROR and r.objective is None
        assert "clarabel" in r.message
        r = solve(f, "scs")
        assert r.point is not PointStatus.NO_POINT
    assert r.termination in (
        Termination.OPTIMAL,
        Termination.ALMOST_OPTIMAL,
        Termination.SLOW_PROGRESS,
    )
    assert r.objective >= -1e-6  # both terms are nonnegative (to SCS's accuracy when it ran)
    # "optimal" exactly when the solver said so and the generic certificate passes at the one
    # named tolerance (conic.honest_status); a failing one names its terms in the message
    passed = conic_certificate(r.canonical, tol.CERTIFY_TOL).passed
    assert (r.termination is Termination.OPTIMAL) == (
        passed and r.info["cvxpy_status"] == "optimal"
    )
    assert passed or any(
        f in r.message for f in conic_certificate(r.canonical, tol.CERTIFY_TOL).failed
    )


def test_unlicensed_mosek_is_a_status_not_a_crash(iris_small, monkeypatch):
    from kernelsdp.solvers import conic

    s = conic.ConicSolver("MOSEK")
    monkeypatch.setattr(
        conic.ConicSolver,
        "availability",
        lambda self: (False, "installed but not usable (licence): no licence file"),
    )
    r = s.solve(make_npkl(iris_small, "linear", "frobenius"))
    assert r.termination is Termination.SOLVER_UNAVAILABLE and r.point is PointStatus.NO_POINT
    assert "licence" in r.message


def test_generic_solver_refuses_sizes_that_do_not_fit():
    import scipy.sparse as sp

    from kernelsdp.data import PairwiseConstraints
    from kernelsdp.errors import TooLargeError

    n = 400
    f = NPKL(
        L=sp.identity(n, format="csr"), pairs=PairwiseConstraints.from_arrays([[0, 1]], [1], n)
    )
    with pytest.raises(TooLargeError, match="GiB"):
        solve(f, "clarabel")


def test_active_selection_keeps_pairs_touching_uncertain_points(iris_small):
    f = make_npkl(iris_small, "linear", "frobenius")
    K = solve(f, "npkl-closed-form").kernel
    m = margins(f, K)
    g = select_active(f, K, 5)
    chosen = np.argsort(np.where(np.isfinite(m), m, np.inf), kind="stable")[:5]
    touches = np.isin(f.pairs.i, chosen) | np.isin(f.pairs.j, chosen)
    assert g.pairs.m == int(touches.sum()) < f.pairs.m
    with pytest.raises(InvalidParameterError):
        select_active(f, K, 0)
