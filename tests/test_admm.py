"""Low-rank NPKL by ADMM (seed 001): steps, certificate, cross-checks, errors, memory."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from conftest import traced_peak, two_class_npkl
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar

from kernelsdp.data import PairwiseConstraints, knn_laplacian, load
from kernelsdp.errors import InvalidParameterError, UnsupportedProblemError
from kernelsdp.formulations import NPKL
from kernelsdp.formulations.losses import LOSSES as ALL_LOSSES
from kernelsdp.linalg.extreme import LowestEigenpair
from kernelsdp.result import PointStatus, Termination
from kernelsdp.solvers import solve
from kernelsdp.solvers.admm import iteration_memory_bytes
from kernelsdp.solvers.admm.certificate_spacing import check_spacing
from kernelsdp.solvers.admm.factor_steps import ball_step, default_rank
from kernelsdp.tolerances import ADMM_GAP_TOL
from kernelsdp.verify import certify, verify, verify_twins

LOSSES = ("l2", "hinge", "squared-hinge", "l1")


@given(st.integers(1, 10**6))
def test_default_rank_is_the_largest_pataki_rank(m):
    r = default_rank(m)
    assert r * (r + 1) // 2 <= m < (r + 1) * (r + 2) // 2


@settings(max_examples=60, deadline=None)
@given(
    loss=st.sampled_from(list(ALL_LOSSES)),
    c=st.floats(-3, 3),
    t=st.sampled_from([-1.0, 1.0]),
    lam=st.floats(0.05, 5),
    alpha=st.floats(0.01, 20),
)
def test_each_z_step_is_the_prox_of_its_loss(loss, c, t, lam, alpha):
    """Each loss's prox (the Z-step, formulations.md §4) minimises lam·h(z)/C + α/2 (z − c)²,
    with h the loss's own value: one definition of the loss, its prox checked against it."""
    ell = lambda z: float(ALL_LOSSES[loss].value(np.array([z]), np.array([t]), 1.0)[0])
    phi = lambda z: lam * ell(z) + alpha / 2 * (z - c) ** 2
    z = float(ALL_LOSSES[loss].prox(np.array([c]), np.array([t]), lam, alpha)[0])
    ref = minimize_scalar(phi, bounds=(-10, 10), method="bounded", options={"xatol": 1e-12})
    assert phi(z) <= ref.fun + 1e-9


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    B=st.floats(0.01, 100.0),
    alpha=st.floats(1e-3, 10.0),
    beta=st.floats(1e-2, 10.0),
)
def test_factor_step_keeps_the_trace_ball_with_its_kkt_multiplier(seed, B, alpha, beta):
    """The X/Y step with tr K ≤ B: U(βI + αG + μI) = R, ‖U‖² ≤ B, μ ≥ 0, μ(‖U‖² − B) = 0."""
    rng = np.random.default_rng(seed)
    F, R = rng.standard_normal((30, 4)), rng.standard_normal((30, 4)) * rng.uniform(0.01, 30)
    G = F.T @ F
    U = np.empty_like(R)
    mu = ball_step(R, G, alpha, beta, B, out=U)
    assert mu >= 0 and np.sum(U * U) <= B * (1 + 1e-9)
    np.testing.assert_allclose(
        U @ ((beta + mu) * np.eye(4) + alpha * G), R, atol=1e-8 * (1 + abs(R).max())
    )
    assert mu == 0 or np.sum(U * U) == pytest.approx(B, rel=1e-8)


def test_certificates_are_spaced_by_cost_and_by_the_gap_s_rate():
    assert check_spacing([], 1e-3, 25, cost=3.0) == 25
    assert check_spacing([(100, 1e-2)], 1e-3, 25, cost=60.4) == 61
    # the gap halves every 25 iterations: 10 halvings (250 iterations) left, check after 125
    assert check_spacing([(100, 2**-0), (125, 2**-1)], 2**-11, 25, cost=1.0) == 125
    assert check_spacing([(100, 1.0), (125, 0.999)], 1e-3, 25, cost=1.0) == 200  # capped
    assert check_spacing([(100, 0.5), (125, 0.6)], 1e-3, 25, cost=1.0) == 25  # rising gap


def test_lowest_eigenvalue_falls_back_to_a_valid_bound_when_arpack_fails(monkeypatch):
    A = sp.random(600, 600, density=0.01, random_state=0)
    M = (A + A.T - 3 * sp.eye(600)).tocsr()
    exact = np.linalg.eigvalsh(M.toarray())[0]
    assert LowestEigenpair()(M) == pytest.approx(exact, abs=1e-8)

    def no_convergence(*args, **kwargs):
        raise spla.ArpackNoConvergence("no convergence", np.zeros(0), np.zeros((600, 0)))

    monkeypatch.setattr(spla, "eigsh", no_convergence)
    assert LowestEigenpair()(M) <= exact  # Gershgorin: weaker, still a lower bound


def _fixture(name, n):
    X, y = load(name)
    idx = np.sort(np.random.default_rng(0).choice(len(y), n, replace=False))
    pairs = PairwiseConstraints.from_labels(y[idx], ratio=0.5, seed=1)
    return knn_laplacian(X[idx], 5), pairs


@pytest.fixture(scope="module")
def uci_fixtures():
    return {"iris-40": _fixture("iris", 40), "wine-60": _fixture("wine", 60)}


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("name", ["iris-40", "wine-60"])
def test_admm_matches_clarabel_and_is_certified(uci_fixtures, name, loss):
    """Issue #3's bar: objective within ADMM_GAP_TOL of Clarabel, and verify's independent
    KKT residuals (gap, complementarity, Fenchel–Young, PSD of M + λI) pass."""
    L, pairs = uci_fixtures[name]
    f = NPKL(L=L, pairs=pairs, loss=loss, capacity="trace", C=1.0, B=float(L.shape[0]))
    rep = verify(f, ["admm", "clarabel"], tol=ADMM_GAP_TOL)  # ADMM's own stop: named
    admm = rep.checks[0]
    assert admm.status == Termination.OPTIMAL.value
    assert rep.passed, (admm.failed, rep.comparisons)
    assert rep.comparisons[0].relative_difference <= ADMM_GAP_TOL


@pytest.mark.parametrize("loss", ["hinge", "l1"])
def test_single_precision_iteration_is_certified_in_double(uci_fixtures, loss):
    """precision='single' runs the iteration in float32; the returned factor is float64 and its
    certificate, computed from scratch in double, passes, and both precisions agree within
    the certified gap."""
    L, pairs = uci_fixtures["wine-60"]
    f = NPKL(L=L, pairs=pairs, loss=loss, capacity="trace", C=1.0, B=float(L.shape[0]))
    single, double = solve(f, "admm", precision="single"), solve(f, "admm")
    cert = certify(f, single, ADMM_GAP_TOL)
    assert single.termination == Termination.OPTIMAL and cert.passed, cert.verdict
    assert single.kernel.U.dtype == np.float64
    assert abs(single.objective - double.objective) <= ADMM_GAP_TOL * max(
        1.0, abs(double.objective)
    )


def _two_class_complete(n=8, B=4.0, C=1.0):
    """Two classes, every pair constrained, L = 0, B < n: both the trace- and the
    Frobenius-bounded optimum are (B/n)·yyᵀ (rank one, so tr K = ‖K‖_F = B); each pair then
    has margin B/n and squared-hinge loss (C/2)(1 − B/n)²."""
    y = np.repeat([1, -1], n // 2)
    i, j = np.triu_indices(n, 1)
    pairs = PairwiseConstraints.from_arrays(np.c_[i, j], np.where(y[i] == y[j], 1, -1), n)
    return y, pairs, sp.csr_matrix((n, n)), i.size * C / 2 * (1 - B / n) ** 2


def test_admm_agrees_with_simplenpkl_where_the_problems_coincide():
    y, pairs, L, expected = _two_class_complete()
    n, B, C = y.size, 4.0, 1.0
    admm = solve(NPKL(L=L, pairs=pairs, loss="squared-hinge", capacity="trace", C=C, B=B), "admm")
    snpkl = solve(
        NPKL(L=L, pairs=pairs, loss="squared-hinge", capacity="frobenius", C=C, B=B**2),
        "saddle-point",
    )
    assert admm.ok and snpkl.ok
    assert admm.objective == pytest.approx(expected, rel=ADMM_GAP_TOL)
    assert snpkl.objective == pytest.approx(expected, rel=1e-6)
    K = admm.kernel.dense()
    assert np.linalg.norm(K - B / n * np.outer(y, y)) <= 0.05 * B


def test_rank_grows_from_a_narrow_start_to_the_certified_optimum(uci_fixtures):
    """Starting one column wide, the factor widens while saturated (never past ``rank``) and
    ends at the same certified optimum; ``rank_start=rank`` keeps the seed's fixed width."""
    L, pairs = uci_fixtures["wine-60"]
    f = NPKL(L=L, pairs=pairs, loss="hinge", capacity="trace", C=1.0, B=60.0)
    grown = solve(f, "admm", rank=8, rank_start=1)
    fixed = solve(f, "admm", rank=8, rank_start=8)
    assert grown.ok and fixed.ok
    assert 1 < grown.info["rank"] <= 8 and fixed.info["rank"] == 8
    widths = [h["rank"] for h in grown.history]
    assert widths == sorted(widths) and widths[0] == 1
    assert grown.objective == pytest.approx(fixed.objective, rel=2 * ADMM_GAP_TOL)
    assert grown.kernel.trace() <= f.B * (1 + 1e-9)


def test_widening_stops_at_the_time_limit():
    """The widening's ARPACK runs under the solver's time limit: past it there is no
    widening (the run's own check then stops it); without a limit the factor grows."""
    from kernelsdp.linalg.positive_part import EigenBudget
    from kernelsdp.solvers.admm.factor_steps import DENSE_N, widen

    f = two_class_npkl(DENSE_N + 100, 1.2, "hinge", "trace", C=1.0, B=float(DENSE_N + 100))
    n, r = f.n, 4
    X = np.linalg.qr(np.random.default_rng(0).standard_normal((n, r)))[
        0
    ]  # saturated: K = XᵀX has equal eigenvalues
    state = (X, X.copy(), np.zeros((n, r)), np.zeros(3), np.zeros(3))
    M = lambda: f.dual_matrix(-f.C * f.pairs.t.astype(float))
    assert widen(state, 8, 0, M, EigenBudget(time_limit=1e-9)) is None
    grown = widen(state, 8, 0, M, EigenBudget(time_limit=None))
    assert grown is not None and grown.size == 3 * n * 8 + 6


def test_verify_twins_compares_only_where_the_problems_coincide(uci_fixtures):
    _, pairs, L, _ = _two_class_complete()
    f = NPKL(L=L, pairs=pairs, loss="squared-hinge", capacity="trace", C=1.0, B=4.0)
    rep = verify_twins(f, tol=ADMM_GAP_TOL)
    assert rep.passed and rep.comparisons[0].relation == "equal optima (both rank one)"
    L, pairs = uci_fixtures["iris-40"]  # three classes: neither optimum is rank one
    rep = verify_twins(
        NPKL(L=L, pairs=pairs, loss="hinge", capacity="trace", B=40.0), tol=ADMM_GAP_TOL
    )
    assert not rep.comparisons and "differ" in rep.problem["twins"]
    with pytest.raises(UnsupportedProblemError, match="trace"):
        verify_twins(NPKL(L=L, pairs=pairs, loss="hinge", capacity="frobenius", B=40.0))


def test_history_and_two_level_status_on_the_iteration_limit(iris_small):
    L, pairs, _ = iris_small
    f = NPKL(L=L, pairs=pairs, loss="hinge", capacity="trace", B=24.0)
    r = solve(f, "admm", max_iter=3)
    assert r.termination == Termination.ITERATION_LIMIT
    assert r.point == PointStatus.FEASIBLE_POINT
    assert r.kernel.trace() <= f.B * (1 + 1e-12)
    assert len(r.history) == 3
    assert {"objective", "primal_1", "primal_2", "dual", "alpha", "beta"} <= set(r.history[0])


@pytest.mark.parametrize(
    "options, match",
    [
        ({"rank": 0}, "'rank'"),
        ({"rank": 2.5}, "'rank'"),
        ({"tol": 0.0}, "'tol'"),
        ({"tol": -1e-3}, "'tol'"),
        ({"gap_tol": float("nan")}, "'gap_tol'"),
        ({"max_iter": 0}, "'max_iter'"),
        ({"rank_start": 0}, "'rank_start'"),
    ],
)
def test_bad_parameters_are_clear_errors(iris_small, options, match):
    L, pairs, _ = iris_small
    f = NPKL(L=L, pairs=pairs, loss="l2", capacity="trace", B=24.0)
    with pytest.raises(InvalidParameterError, match=match):
        solve(f, "admm", **options)


@pytest.mark.parametrize(
    "loss, capacity, named", [("linear", "trace", "linear"), ("l2", "frobenius", "frobenius")]
)
def test_unsupported_combinations_are_refused_by_name(iris_small, loss, capacity, named):
    L, pairs, _ = iris_small
    f = NPKL(L=L, pairs=pairs, loss=loss, capacity=capacity, B=24.0)
    with pytest.raises(UnsupportedProblemError, match=named):
        solve(f, "admm")


#: tracemalloc's peak against ``iteration_memory_bytes``: the formula counts every array of
#: the iteration, the pattern and the certificate's Lanczos vectors, not the interpreter's
#: small objects (measured: 0.96-1.00 of it from n = 3,000 to 20,000, both precisions), so
#: the peak may fall MEMORY_FORMULA_RTOL below it and exceed it by half that (those objects)
MEMORY_FORMULA_RTOL = 0.1


def test_memory_never_holds_an_n_by_n_matrix():
    """n = 6,000: one dense n×n float64 matrix is 288 MB.  A few ADMM iterations, gap checks
    included, take the docstring's formula to within MEMORY_FORMULA_RTOL (50-70 MB at
    r = 24, mostly the Anderson history), in double precision with a double or a single
    history (the default) and in single precision; each step down saves a fifth or more."""
    n, r = 6000, 24
    f = two_class_npkl(n, 1.2, "hinge", "trace", B=float(n))
    peaks = {}
    for precision, history, word, history_word in (
        ("double", "double", 8, 8),
        ("double", "single", 8, 4),
        ("single", "single", 4, 4),
    ):
        res, peaks[precision, history] = traced_peak(
            lambda precision=precision, history=history: solve(
                f,
                "admm",
                rank=r,
                rank_start=r,
                max_iter=60,
                check_every=10,
                tol=1.0,
                precision=precision,
                history_precision=history,
            )
        )
        assert res.kernel.U.shape == (n, r)
        assert any("relative_gap" in h for h in res.history)  # λ_min's Lanczos ran
        estimate = iteration_memory_bytes(
            n, r, f.pairs.m, f.L.nnz, word=word, history_word=history_word
        )
        peak = peaks[precision, history]
        assert (
            (1 - MEMORY_FORMULA_RTOL) * estimate <= peak <= estimate * (1 + MEMORY_FORMULA_RTOL / 2)
        )
        # under a third of one dense n×n (0.26 of it since λ_min's Lanczos counts the
        # 80-vector basis of its retry, linalg.extreme.LANCZOS_WORDS_PER_ROW; 0.24 before)
        assert estimate < n * n * 8 / 3
    assert (
        peaks["single", "single"]
        < 0.8 * peaks["double", "single"]
        < 0.8**2 * peaks["double", "double"]
    )


def test_reproduction_runs_units_into_the_store_and_explains_off_cells(
    capsys, tmp_path, monkeypatch
):
    """The reproduction's plumbing on three units (the whole --quick run takes about a minute):
    the paper's problem (1) beside B = n, each cell beside the paper, the raw-features reading
    run on its own units, the records exported, the 'not reproduced' list, and a second run
    reuses them."""
    import kernelsdp.reproductions.flexible_npkl_admm as repro
    from kernelsdp.runs import ResultsStore

    quick = repro.units_for(True)
    assert {u["method"] for u in quick} == {"ADMM B=n", "ADMM (1)", "S-NPKL", "SDP"}
    assert all(
        u.get("max_iter") == repro.QUICK_MAX_ITER_1 for u in quick if u["method"] == "ADMM (1)"
    )
    few = [
        {"dataset": "iris", "seed": 0, "loss": "HL", "method": "ADMM B=n", "features": f}
        for f in ("standardised", "raw")
    ]
    few.append(
        {
            "dataset": "iris",
            "seed": 0,
            "loss": "HL",
            "method": "ADMM (1)",
            "max_iter": 300,
            "features": "standardised",
        }
    )
    monkeypatch.setattr(repro, "units_for", lambda quick: few)
    monkeypatch.chdir(tmp_path)
    store = ResultsStore(tmp_path / "r.sqlite")
    assert repro.main(quick=True, store=store) == 0
    out = capsys.readouterr().out
    assert "Protein: not available offline" in out and "3 units run" in out
    table2 = out.split("Table 2")[1].split("Table 3")[0]
    assert any(line.startswith("HL   ADMM (1)") for line in table2.splitlines())
    assert "not reproduced" in out.lower()
    assert (tmp_path / "out" / f"{repro.STUDY}.csv").exists()
    assert repro.main(quick=True, store=store) == 0
    assert "0 units run, 3 reused" in capsys.readouterr().out


# ---- seed 001's problem (1): no capacity (issue #14) --------------------------------------


def _free_basis(n, free):
    cols = []
    for idx, V in free:
        for c in range(V.shape[1]):
            w = np.zeros(n)
            w[idx] = V[:, c]
            cols.append(w)
    return np.array(cols).T if cols else np.zeros((n, 0))


def _with_free_path(L, pairs):
    """L beside a path on 3 more points that no pair touches: a free null direction of L
    (the mutual 5-NN graphs of the fixtures have none: every component holds a pair)."""
    import scipy.sparse as sp

    from kernelsdp.data import normalized_laplacian

    path = normalized_laplacian(sp.diags([np.ones(2), np.ones(2)], [-1, 1], shape=(3, 3)))
    L = sp.block_diag([L, path]).tocsr()
    return L, PairwiseConstraints.from_arrays(np.c_[pairs.i, pairs.j], pairs.t, L.shape[0])


@pytest.mark.parametrize("loss", LOSSES)
def test_a_priori_trace_bound_holds_on_the_level_set(iris_small, loss):
    """docs/npkl.md §6: every K ⪰ 0 with P(K) ≤ P(0) has tr ΠKΠ ≤ B̄.  The largest tr ΠKΠ
    over that level set is itself an SDP: Clarabel's value must not exceed B̄ (measured:
    it is 3-10 % of B̄ here, so the bound is valid and loose), and without Π (the free
    null directions kept) the level set is unbounded."""
    import cvxpy as cp

    from kernelsdp.formulations.npkl_trace_bound import trace_bound

    L, pairs = _with_free_path(*iris_small[:2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = NPKL(L=L, pairs=pairs, loss=loss, capacity="none")
    u = float(np.sum(ALL_LOSSES[loss].value(np.zeros(pairs.m), pairs.t, 1.0)))
    tb = trace_bound(f, u)
    W = _free_basis(f.n, tb.free)
    assert W.shape[1] >= 1
    K = cp.Variable((f.n, f.n), symmetric=True)
    Lc = L.tocoo()
    level = [
        K >> 0,
        Lc.data @ K[Lc.row, Lc.col]
        + ALL_LOSSES[loss].expr(K[pairs.i, pairs.j], pairs.t.astype(float), 1.0)
        <= u,
    ]
    widest = cp.Problem(cp.Maximize(cp.trace((np.eye(f.n) - W @ W.T) @ K)), level)
    widest.solve(solver="CLARABEL")
    assert widest.status == "optimal" and 0 < widest.value <= tb.B
    free = cp.Problem(cp.Maximize(cp.trace(W @ W.T @ K)), level)
    free.solve(solver="CLARABEL")
    assert free.status == "unbounded"


def test_repaired_multipliers_vanish_on_free_directions_and_keep_the_domain(iris_small):
    from kernelsdp.formulations.npkl_trace_bound import repair_multipliers, trace_bound

    L, pairs = _with_free_path(*iris_small[:2])
    for loss in LOSSES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f = NPKL(L=L, pairs=pairs, loss=loss, capacity="none")
        tb = trace_bound(f, 10.0)
        assert tb.free, "the fixture has free null directions"
        beta = np.random.default_rng(1).standard_normal(pairs.m)
        bt, residual = repair_multipliers(f, beta, tb)
        W = _free_basis(f.n, tb.free)
        assert np.abs(f.dual_matrix(bt) @ W).max() <= 1e-9 and residual <= 1e-9
        assert not np.any(ALL_LOSSES[loss].domain_violation(bt, pairs.t, 1.0) > 0)


@pytest.mark.parametrize("loss", ["l2", "l1"])
def test_admm_without_capacity_matches_clarabel_and_is_certified(iris_small, loss):
    """The seed's own problem (1): ADMM's certified optimum (a-priori bound, no capacity)
    within ADMM_GAP_TOL of Clarabel's, and verify's independent certificate passes."""
    L, pairs, _ = iris_small
    f = NPKL(L=L, pairs=pairs, loss=loss, capacity="none")
    rep = verify(f, ["admm", "clarabel"], tol=ADMM_GAP_TOL)  # ADMM's own stop: named
    admm = rep.checks[0]
    # the a-priori bound B̄ is computed in floating point without a rounding analysis: the
    # lower end is an estimate and says why; the upper end is a proof; the intervals meet
    assert admm.upper_label == "proof" and admm.lower_label == "estimate"
    assert "B̄" in admm.lower_why and admm.failed == ["lower_estimate"], admm.failed
    assert all(c.passed for c in rep.comparisons), rep.comparisons
    assert rep.comparisons[0].relative_difference <= ADMM_GAP_TOL


def test_uncertified_stops_without_capacity_say_so(uci_fixtures, monkeypatch):
    """A residual-only stop is LOCALLY_SOLVED, never OPTIMAL, and its message says what it
    rests on; its certified interval still holds the true optimum (Clarabel's, 3.9575)."""
    import kernelsdp.solvers.admm.run as admm_module

    _, pairs = uci_fixtures["iris-40"]
    # the mutual 4-NN graph of those 40 points leaves components that stall ADMM (the 5-NN
    # graph's do not: there ADMM certifies without an escape)
    X, y = load("iris")
    L = knn_laplacian(X[np.sort(np.random.default_rng(0).choice(len(y), 40, replace=False))], 4)
    f = NPKL(L=L, pairs=pairs, loss="l2", capacity="none")
    monkeypatch.setattr(admm_module, "MAX_ESCAPES", 0)
    r = solve(f, "admm")
    assert r.termination == Termination.LOCALLY_SOLVED and r.info["relative_gap"] > ADMM_GAP_TOL
    assert "residuals only" in r.message and "not certified" in r.message
    assert r.lower_bound <= 3.9575 <= r.upper_bound
    limit = solve(f, "admm", max_iter=5)
    assert limit.termination == Termination.ITERATION_LIMIT and "not certified" in limit.message


def test_cli_solves_problem_1_and_says_what_certifies_it(capsys):
    from kernelsdp.cli import main

    code = main(
        [
            "solve",
            "npkl",
            "--dataset",
            "iris",
            "--n-points",
            "30",
            "--loss",
            "l2",
            "--capacity",
            "none",
            "--solver",
            "admm",
        ]
    )
    out = capsys.readouterr().out
    assert "certified by" in out and "tr ΠKΠ ≤" in out
    assert code == (0 if "admm: optimal" in out or "locally_solved" in out else 1)


@pytest.mark.parametrize("capacity", ["trace", "none"])
def test_time_limit_stops_with_a_usable_point_and_says_so(iris_small, capacity):
    L, pairs, _ = iris_small
    f = NPKL(L=L, pairs=pairs, loss="l2", capacity=capacity, B=24.0)
    r = solve(f, "admm", time_limit=1e-9)
    assert r.termination == Termination.TIME_LIMIT and r.iterations == 1 and r.ok
    assert capacity == "trace" or "not certified" in r.message
