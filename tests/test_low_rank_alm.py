"""The low-rank augmented Lagrangian for NPKL with tr K ≤ B (issue #30): agreement with
Clarabel and ADMM inside their certified intervals, the four losses, the labels of its
certificate (proof where λ_min is verified, probable for the randomised bound), limits as
statuses, the memory formula and its refusal, the randomised bound itself, and the
Anderson-mixed multiplier update (seventh pass)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from conftest import traced_peak, two_class_npkl, uci_trace_npkl

from kernelsdp.certificate import PROBABLE, PROOF
from kernelsdp.errors import InvalidParameterError, TooLargeError
from kernelsdp.linalg import row_blocks
from kernelsdp.linalg.randomized_bound import kw_epsilon, randomized_min_eig, steps_for
from kernelsdp.result import PointStatus, Termination
from kernelsdp.solvers import alm_inner, alm_newton, alm_problem, solve
from kernelsdp.solvers.alm_certificate import feasible_factor, primal_upper
from kernelsdp.solvers.alm_inner import _complement, _lobpcg, range_basis
from kernelsdp.solvers.alm_polish import KINK_BAND, newton_steps
from kernelsdp.solvers.alm_problem import ScaledNPKL
from kernelsdp.solvers.low_rank_alm import (
    LMP_PAIRS,
    LOCALISED,
    POLISH_GATHERS,
    memory_bytes_for,
    polish_bytes,
)
from kernelsdp.tolerances import LOW_RANK_ALM_GAP_TOL

LOSSES = ("hinge", "squared-hinge", "l2", "l1")
#: tracemalloc's peak against memory_bytes_for at the rank cap (measured 0.99 in single,
#: 1.05 in double precision at n = 6,000, rank 24): the formula counts the arrays, not the
#: interpreter's small objects
MEMORY_FORMULA_RTOL = 0.1


_fixture = uci_trace_npkl


def _own(r):
    return r.info["certificate"]


@pytest.mark.parametrize("loss", LOSSES)
def test_each_loss_is_certified_by_proofs_and_holds_clarabel_s_optimum(loss):
    """Wine, 60 points, with either inner method: both ends of the solver's own interval are
    proofs (λ_min verified), its width is within the gap, and Clarabel's optimum lies inside
    it (up to Clarabel's own accuracy); the NPKL certificate from scratch holds the answer
    too."""
    from kernelsdp.verify import certify

    f = _fixture("wine", 60, loss)
    ref = solve(f, "clarabel")
    slack = 1e-6 * max(1.0, abs(ref.objective))
    for inner in ("fista", "newton", "hybrid"):  # the subproblem's methods (alm_newton)
        r = solve(f, "low-rank-alm", inner=inner)
        cert = _own(r)
        assert r.termination == Termination.OPTIMAL and r.point == PointStatus.FEASIBLE_POINT
        assert cert.lower_label == PROOF and cert.upper_label == PROOF, cert.lower_why
        assert cert.width <= LOW_RANK_ALM_GAP_TOL
        assert cert.lower - slack <= ref.objective <= cert.upper + slack
        again = certify(f, r, LOW_RANK_ALM_GAP_TOL)
        assert again.lower - slack <= ref.objective <= again.upper + slack


@pytest.mark.parametrize("loss", ["hinge", "l1"])
def test_intervals_of_admm_and_the_alm_intersect(loss):
    """Iris, 40 points: ADMM's certified interval (from scratch) and the ALM's own meet."""
    from kernelsdp.verify import certify

    f = _fixture("iris", 40, loss)
    mine = _own(solve(f, "low-rank-alm"))
    admm = certify(f, solve(f, "admm"), LOW_RANK_ALM_GAP_TOL)
    assert max(mine.lower, admm.lower) <= min(mine.upper, admm.upper) + 1e-9 * abs(mine.upper)


def test_newton_polish_certifies_a_tight_gap_that_holds_clarabel_s_optimum():
    """Wine, 60 points, hinge, gap 1e-6 (the float32 iteration alone stops at 7.7e-6 after
    18,372 steps): from the check at an estimated 1e-2 the active-set Newton steps
    (alm_polish) give a point whose interval, computed as the ALM's own (both ends proofs,
    λ_min verified), is within 1e-6 and holds Clarabel's optimum; the certificate from
    scratch holds it too."""
    from kernelsdp.verify import certify

    f = _fixture("wine", 60, "hinge")
    r = solve(f, "low-rank-alm", gap_tol=1e-6, polish_at=1e-2)
    cert = _own(r)
    assert r.termination == Termination.OPTIMAL and r.info["newton_steps"] >= 1
    assert r.iterations < 2000
    assert cert.lower_label == PROOF and cert.upper_label == PROOF, cert.lower_why
    assert cert.width <= 1e-6
    ref = solve(f, "clarabel")
    slack = 1e-6 * max(1.0, abs(ref.objective))
    assert cert.lower - slack <= ref.objective <= cert.upper + slack
    again = certify(f, r, LOW_RANK_ALM_GAP_TOL)
    assert again.lower - slack <= ref.objective <= again.upper + slack


def test_newton_polish_is_the_hinge_s_only():
    f = _fixture("iris", 40, "l2")
    with pytest.raises(InvalidParameterError, match="polish_at"):
        solve(f, "low-rank-alm", polish_at=1e-2)


def test_upper_end_bounds_the_exact_objective_and_the_factor_is_feasible():
    """P(U) as proven: at or above the objective of the returned factor, whose ‖U‖²_F is at
    most B; a factor past the ball is scaled into it first."""
    f = _fixture("iris", 40, "squared-hinge")
    U = np.random.default_rng(3).standard_normal((40, 5))
    U *= math.sqrt(1.5 * f.B / np.sum(U * U))  # 1.5 B: infeasible as given
    upper, V = primal_upper(f, U)
    assert np.sum(V * V) <= f.B
    from kernelsdp.result import KernelFactor

    exact = f.objective(KernelFactor(V))
    assert exact <= upper <= exact + 1e-9 * abs(exact)
    W, tr = feasible_factor(V, f.B)
    assert tr <= f.B and np.array_equal(W, V)


def test_randomised_bound_is_labelled_probable_with_its_probability():
    """Above verify_max_n the lower end is the randomised Lanczos bound: labelled probable,
    never proof, the failure probability in its reason; the verdict is then not
    'certified', though the interval still holds Clarabel's optimum."""
    f = _fixture("wine", 60, "hinge")
    r = solve(f, "low-rank-alm", verify_max_n=0, failure_probability=1e-6)
    cert = _own(r)
    assert cert.lower_label == PROBABLE and cert.upper_label == PROOF
    assert "1e-06" in cert.lower_why and "Kuczyński" in cert.lower_why
    assert not cert.passed and "lower_probable" in cert.failed
    ref = solve(f, "clarabel").objective
    assert cert.lower <= ref + 1e-6 * abs(ref) and ref <= cert.upper + 1e-6 * abs(ref)


def test_limits_return_a_status_and_a_labelled_interval():
    f = _fixture("wine", 60, "hinge")
    r = solve(f, "low-rank-alm", max_iter=3)
    assert r.termination == Termination.ITERATION_LIMIT and r.iterations == 3
    assert r.kernel is not None and _own(r).lower <= _own(r).upper
    assert "stopped at a limit" in r.message
    r = solve(f, "low-rank-alm", time_limit=1e-9)
    assert r.termination == Termination.TIME_LIMIT and _own(r).upper_label == PROOF


def test_single_and_double_precision_agree_within_the_gap():
    f = _fixture("iris", 40, "l2")
    a, b = solve(f, "low-rank-alm"), solve(f, "low-rank-alm", precision="double")
    assert a.kernel.U.dtype == np.float64
    assert abs(a.objective - b.objective) <= LOW_RANK_ALM_GAP_TOL * abs(b.objective)


def test_double_precision_certifies_where_the_factor_s_columns_are_dependent():
    """In double the Newton steps leave V's columns exactly dependent (the slack row σ
    carries the rank): LOBPCG refused them as constraints and the solve raised ValueError
    at every n from 450 to 3,000 (the check's LOBPCG path starts above 400)."""
    f = two_class_npkl(500, 1.2, "hinge", "trace", C=1.0, B=500.0)
    r = solve(f, "low-rank-alm", precision="double")
    assert r.termination == Termination.OPTIMAL
    assert _own(r).upper - _own(r).lower <= LOW_RANK_ALM_GAP_TOL * max(1.0, abs(_own(r).upper))


def test_the_check_s_complement_is_off_a_dependent_factor_s_span():
    """Six columns of rank five (one twice another): LOBPCG refuses them as constraints,
    and the check's complement is then computed off their span all the same."""
    rng = np.random.default_rng(0)
    n = 600
    X = rng.standard_normal((n, 5))
    X = np.hstack([X, 2.0 * X[:, 1:2]])
    M = sp.diags(np.linspace(-1.0, 1.0, n)).tocsr()
    W0 = rng.standard_normal((n, 4))
    with pytest.raises(ValueError, match="dependent"):
        _lobpcg(M, W0, X)
    Q = range_basis(X)
    assert Q.shape == (n, 5) and np.allclose(Q.T @ Q, np.eye(5))
    assert np.allclose(Q @ (Q.T @ X), X)  # the same span
    W, theta, _ = _complement(M, W0, X)
    assert np.abs(Q.T @ W).max() <= 1e-8 * np.abs(W).max()
    assert np.all(np.isfinite(theta)) and theta[0] <= -0.9


def test_the_single_precision_check_needs_no_retry_off_a_dependent_factor(monkeypatch):
    """In single precision the check's LOBPCG runs in float32 against an orthonormal basis
    of span X (its Gram in double; forty-second pass): a factor whose columns are dependent
    (one twice another, singular values down to 1e-5 besides) needs no retry from a fresh
    start, the block and its Ritz values agree with the double check's off the same span
    (an orthonormal basis of it: X itself needs a fresh start in double), the block is off
    span X, and the products are the columns LOBPCG asked for (its start, each iteration
    and its last Rayleigh–Ritz block)."""
    rng = np.random.default_rng(0)
    n = 2_000
    X = rng.standard_normal((n, 6)) * np.logspace(0, -5, 6)
    X = np.hstack([X, 2.0 * X[:, :1]])
    M = sp.diags(np.linspace(-1.0, 1.0, n)).tocsr()
    W0 = rng.standard_normal((n, 4))
    calls, plain = [], alm_inner._lobpcg

    def recorded(op, start, Y):
        calls.append(start.dtype)
        return plain(op, start, Y)

    monkeypatch.setattr(alm_inner, "_lobpcg", recorded)
    asked = []
    op = spla.aslinearoperator(M)
    op.matmat = lambda Y: asked.append(Y.shape[1]) or M @ Y
    W32, theta32, products = _complement(M, W0.astype(np.float32), X.astype(np.float32), op)
    assert calls == [np.float32] and W32.dtype == theta32.dtype == np.float32
    Q = range_basis(X)  # double, off the same span (X itself would need a fresh start)
    _, theta64, _ = _complement(M, W0, Q)
    assert np.allclose(theta32, theta64, atol=1e-5)
    assert np.abs(Q.T @ W32).max() <= 1e-6
    assert products == sum(asked) >= 4 * (alm_inner.check_iterations(n) + 1)


def _diagonal_case(seed: int, n: int = 600):
    """The check's small case: a factor X (n×5), M = diag(linspace(−1, 1, n)) and a start
    of 4 columns, X and the start drawn in that order."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 5))
    return X, sp.diags(np.linspace(-1.0, 1.0, n)).tocsr(), rng.standard_normal((n, 4))


def test_the_single_precision_check_falls_back_to_double_when_float32_lobpcg_fails(
    monkeypatch,
):
    """Where float32 LOBPCG is refused twice (or returns non-finite values), the check is
    done again in double against X itself: finite directions off span X, every column
    multiplied counted."""
    X, M, W0 = _diagonal_case(1)
    calls, plain = [], alm_inner._lobpcg

    def refusing_single(op, start, Y):
        calls.append(start.dtype)
        if start.dtype == np.float32:
            op @ start  # a column asked for before the refusal: counted too
            raise ValueError("eigh has failed in lobpcg postprocessing")
        return plain(op, start, Y)

    monkeypatch.setattr(alm_inner, "_lobpcg", refusing_single)
    W, theta, products = _complement(M, W0.astype(np.float32), X.astype(np.float32))
    assert calls == [np.float32, np.float32, np.float64]
    assert W.dtype == np.float64 and np.all(np.isfinite(theta)) and theta[0] <= -0.9
    assert np.abs(range_basis(X).T @ W).max() <= 1e-8
    assert products > 2 * 4


def test_the_check_retries_lobpcg_from_a_fresh_start_off_span_x(monkeypatch):
    """LOBPCG also refuses a start whose vectors are dependent (n = 450, l2, double, a
    0.05 s limit: the warm block's least singular value 2e-15 of 1, and the solve raised
    ValueError); the retry starts afresh, its constraints an orthonormal basis of span X."""
    X, M, W0 = _diagonal_case(0)
    n = X.shape[0]
    calls, plain = [], alm_inner._lobpcg

    def refusing_once(op, start, Y):
        calls.append((start.copy(), Y))
        if len(calls) == 1:
            raise ValueError("Linearly dependent initial approximations")
        return plain(op, start, Y)

    monkeypatch.setattr(alm_inner, "_lobpcg", refusing_once)
    W, theta, _ = alm_inner._complement(M, W0, X)
    (first, _), (again, Y) = calls
    assert not np.allclose(again, first) and np.allclose(Y.T @ Y, np.eye(5))
    assert np.abs(X.T @ W).max() <= 1e-8 * np.abs(X).max() * np.abs(W).max() * n
    assert theta[0] <= -0.9


def test_the_check_s_lobpcg_iterations_grow_with_log_n_above_twenty_thousand(monkeypatch):
    """Six iterations up to n = 20,000, as many again per factor five of n (twenty-sixth
    pass): 12 at 100,000, 21 at 10⁶; LOBPCG is given the count for the block's n, and the
    products reported are the columns it asked the operator for (forty-second pass)."""
    counts = {n: alm_inner.check_iterations(n) for n in (60, 3_000, 20_000, 100_000, 10**6)}
    assert counts == {60: 6, 3_000: 6, 20_000: 6, 100_000: 12, 10**6: 21}
    sizes = np.geomspace(20_000, 10**7, 40).astype(int)
    assert np.all(np.diff([alm_inner.check_iterations(int(n)) for n in sizes]) >= 0)
    seen = []

    def lobpcg(op, W0, Y, largest, maxiter, tol):
        seen.append((W0.shape[0], maxiter))
        for _ in range(maxiter + 2):  # the start, each iteration, the last Rayleigh–Ritz
            op @ W0
        return np.zeros(W0.shape[1]), W0

    monkeypatch.setattr(alm_inner.spla, "lobpcg", lobpcg)
    monkeypatch.setattr(alm_inner, "check_iterations", lambda n: n // 100)
    M = sp.diags(np.linspace(-1.0, 1.0, 600)).tocsr()
    W0 = np.random.default_rng(0).standard_normal((600, 4))
    _, _, products = alm_inner._complement(M, W0, np.zeros((600, 0)))
    assert seen == [(600, 6)] and products == 4 * (6 + 2)


def test_reordering_is_undone_on_the_way_out():
    """RCM renumbers the points inside; the factor returned is in the caller's order."""
    f = _fixture("iris", 40, "hinge")
    prob = ScaledNPKL(f, np.float64, reorder=True)
    assert not np.array_equal(prob.order, np.arange(40))
    V = np.random.default_rng(1).standard_normal((40, 3)) / 20
    U = prob.to_original(V)
    np.testing.assert_allclose(prob.from_original(U), V)
    z = prob.B * prob.pair_entries(V)
    np.testing.assert_allclose(z, np.einsum("ij,ij->i", U[f.pairs.i], U[f.pairs.j]))


@pytest.mark.parametrize("threaded_from", [10**9, 1])
def test_pair_entries_in_sorted_gather_order_are_the_pairs_own(monkeypatch, threaded_from):
    """The pairs are gathered by sorted rows and written back in their own order, on one
    thread or two: the same sums as gathering each pair where it stands (bit for bit: the
    same products summed in the same order), and the same again with the rows gathered
    into the caller's arrays (the Newton round's, twenty-second pass; NaN-filled here, so
    nothing they held is read)."""
    monkeypatch.setattr(alm_problem, "THREADED_PAIRS_FROM", threaded_from)
    prob = ScaledNPKL(_fixture("iris", 60, "hinge"), np.float32)
    assert not np.array_equal(prob.gather, np.arange(prob.m))
    V = np.random.default_rng(2).standard_normal((60, 5)).astype(np.float32)
    direct = np.einsum("ij,ij->i", V[prob.i], V[prob.j], dtype=np.float64)
    np.testing.assert_array_equal(prob.pair_entries(V), direct)
    out = tuple(np.full((prob.m, 5), np.nan, dtype=np.float32) for _ in range(2))
    np.testing.assert_array_equal(prob.pair_entries(V, out), direct)
    # the rows were written into the caller's arrays in the gather order (halves by thread)
    np.testing.assert_array_equal(out[0], V[prob.gather_lo])
    np.testing.assert_array_equal(out[1], V[prob.gather_hi])


def test_check_matrix_in_its_fixed_pattern_is_the_sum_of_l_and_the_pairs(monkeypatch):
    """M(β) written in place into a pattern built once, multiplied by row blocks: the same
    entries as L + Σ β_p E_p summed afresh, and the same products (two blocks here)."""
    monkeypatch.setattr(row_blocks, "PARALLEL_FROM_NNZ", 1)
    prob = ScaledNPKL(_fixture("iris", 60, "hinge"), np.float32)
    Y = np.random.default_rng(3).standard_normal((60, 4))
    for seed in (4, 5):  # twice: the second call overwrites the first's data
        beta = np.random.default_rng(seed).uniform(-1.0, 0.0, prob.m)
        M = prob.dual_matrix(beta)
        prob.set_multipliers(beta)
        fresh = (prob.L + prob.pairs).astype(np.float64)
        np.testing.assert_array_equal(M.toarray(), fresh.toarray())
        np.testing.assert_array_equal(prob.dual_times(Y), fresh @ Y)
        np.testing.assert_array_equal(prob.dual_operator() @ Y[:, 0], fresh @ Y[:, 0])


def test_memory_formula_holds_tracemalloc_s_peak(monkeypatch):
    """n = 6,000, width capped at 24 (reached): the peak is within MEMORY_FORMULA_RTOL of
    memory_bytes_for in both precisions (FISTA's inner steps in single, Newton's in
    double, the hybrid's in single), the Newton rounds with their scratch arrays kept and
    without, with the CG pairs of ``lmp_pairs`` and without, and far below one dense n×n
    matrix."""
    from kernelsdp.solvers import alm_outer

    n, rank = 6000, 24
    f = two_class_npkl(n, 1.2, "hinge", "trace", B=float(n))
    for precision, word, inner, keep, pairs in (
        ("single", 4, "fista", False, 0),
        ("double", 8, "newton", False, 0),
        ("double", 8, "newton", True, LMP_PAIRS),  # with the CG pairs (alm_lmp)
        ("single", 4, "hybrid", True, LMP_PAIRS),
    ):
        monkeypatch.setattr(alm_outer, "scratch_fits", lambda *a, k=keep: k)
        monkeypatch.setattr(alm_outer, "pairs_fit", lambda *a: True)
        # 160 iterations (120 until the twenty-eighth pass): with the pockets' rows swept
        # the double Newton run's path changed, and at 120 it stopped before a round at the
        # full width took its largest step (peak 0.88 of the formula; at 160, 0.98)
        r, peak = traced_peak(
            lambda p=precision, i=inner, k=pairs: solve(
                f,
                "low-rank-alm",
                precision=p,
                rank=rank,
                max_iter=160,
                verify_max_n=0,
                inner=i,
                lmp_pairs=k,
            )
        )
        # the width was reached (the answer may be the kept point of a lower estimate)
        assert max(h["rank"] for h in r.history if "fw_gap" in h) == rank
        est = memory_bytes_for(
            n, f.pairs.m, f.L.nnz, rank, word, inner=inner, keep_scratch=keep, pairs=pairs
        )
        assert (1 - MEMORY_FORMULA_RTOL) * est <= peak <= (1 + MEMORY_FORMULA_RTOL) * est
        # far below one dense n×n matrix (1/10 until the twenty-first pass; the kept scratch
        # arrays took the double Newton phase to 1/9 at this small n, and since the
        # thirty-fourth pass the CG pairs (alm_lmp: 32 n×s arrays) to 1/4.6, so 1/4 here),
        # and linear in n, which is the claim that matters
        assert est < n * n * 8 / 4
        wide = memory_bytes_for(
            10 * n,
            10 * f.pairs.m,
            10 * f.L.nnz,
            rank,
            word,
            inner=inner,
            keep_scratch=keep,
            pairs=pairs,
        )
        assert wide < 10.5 * est


def test_scratch_arrays_are_kept_only_where_their_formula_fits(monkeypatch):
    """Under a memory limit between the formula without the Newton rounds' scratch arrays
    and with them, both at the rank cap (28, reached; there the Newton rounds' phase is
    the largest), the solve runs (it is refused only by the first); the rounds at the cap
    do not keep them, narrower ones may; and the history is the one with them kept
    everywhere, float for float."""
    from kernelsdp.limits import GIB, MEMORY_ENV
    from kernelsdp.solvers import alm_outer
    from kernelsdp.solvers.low_rank_alm import scratch_fits

    f, cap = two_class_npkl(1000, 1.2, "hinge", "trace", B=1000.0), 28
    lean, kept = (
        memory_bytes_for(f.n, f.pairs.m, f.L.nnz, cap, inner="newton", keep_scratch=k)
        for k in (False, True)
    )
    assert lean < kept
    decisions = []

    def recorded(f, o, width):
        decisions.append((width, scratch_fits(f, o, width)))
        return decisions[-1][1]

    monkeypatch.setattr(alm_outer, "scratch_fits", recorded)

    def history():
        r = solve(f, "low-rank-alm", gap_tol=1e-3, verify_max_n=0, rank=cap)
        return [(h["products"], h["estimated_gap"]) for h in r.history if "fw_gap" in h]

    monkeypatch.delenv(MEMORY_ENV, raising=False)
    everywhere = history()
    assert all(k for _, k in decisions)
    decisions.clear()
    monkeypatch.setenv(MEMORY_ENV, str((lean + kept) / 2 / GIB))
    assert history() == everywhere
    assert {k for w, k in decisions if w == cap} == {False}


def test_fista_s_kept_arrays_give_the_fresh_arrays_iterates_and_leave_the_start_alone():
    """apg with its candidates and row gathers in arrays kept for the call (the solver's
    rounds) takes the same iterates as with fresh ones, float for float, over enough
    iterations that both candidate slots are reused, and does not write into the point it
    started from."""
    prob = ScaledNPKL(uci_trace_npkl("wine", 60, "hinge"), np.float32)
    beta = prob.loss.project(np.zeros(prob.m), prob.t, prob.C)
    V = np.random.default_rng(5).standard_normal((prob.n, 4)).astype(np.float32)
    V *= 0.5 / np.linalg.norm(V)
    start = alm_inner.evaluate(prob, V, beta, 1.0)
    X0, LX0 = start.X.copy(), start.LX.copy()
    runs = [
        alm_inner.apg(prob, start, beta, 1.0, 1.0, 12, tol=0.0, keep_scratch=keep)
        for keep in (False, True)
    ]
    (fresh, ell0, info0), (kept, ell1, info1) = runs
    assert info0 == info1 and info0["iterations"] == 12 and ell0 == ell1
    np.testing.assert_array_equal(fresh.X, kept.X)
    np.testing.assert_array_equal(fresh.LX, kept.LX)
    assert fresh.value == kept.value and fresh.value < start.value
    np.testing.assert_array_equal(start.X, X0)
    np.testing.assert_array_equal(start.LX, LX0)


def test_hybrid_inner_steps_take_both_kinds_of_round_and_meet_newton_s_interval(monkeypatch):
    """n = 3,000 (two classes, 1.2 pairs a point, hinge, tr K ≤ n): ``inner="hybrid"``
    takes FISTA's rounds after the checks whose vertex is a hub's pocket (fewer than
    LOCALISED nodes, below V's level) and Newton's after the others, both at least once;
    its certified interval is within the gap and meets the Newton steps' own."""
    from kernelsdp.solvers import alm_outer

    rounds = {"apg": 0, "newton": 0}

    def counted(name):
        inner = getattr(alm_outer, name)

        def call(*a, **k):
            rounds[name] += 1
            return inner(*a, **k)

        return call

    for name in rounds:
        monkeypatch.setattr(alm_outer, name, counted(name))
    f = two_class_npkl(3000, 1.2, "hinge", "trace", B=3000.0)
    r = solve(f, "low-rank-alm", inner="hybrid")
    spreads = [h["vertex_participation"] for h in r.history if "vertex_participation" in h]
    assert min(spreads) < LOCALISED < max(spreads)
    assert rounds["apg"] >= 1 and rounds["newton"] >= 1, rounds
    mine, newton = _own(r), _own(solve(f, "low-rank-alm", inner="newton"))
    assert r.termination == Termination.OPTIMAL and mine.width <= LOW_RANK_ALM_GAP_TOL
    assert max(mine.lower, newton.lower) <= min(mine.upper, newton.upper) + 1e-9 * abs(mine.upper)


def test_polish_memory_formula_holds_tracemalloc_s_peak():
    """n = 6,000, width 24: two Newton steps' peak (alm_polish) is within
    MEMORY_FORMULA_RTOL of polish_bytes with its kink gathers counted at the pairs met, and
    at most polish_bytes itself (which counts every pair at the kink)."""
    n, s = 6000, 24
    f = two_class_npkl(n, 1.2, "hinge", "trace", B=float(n))
    U = np.random.default_rng(0).standard_normal((n, s))
    U *= math.sqrt(f.B / np.sum(U * U))
    t = f.pairs.t.astype(float)
    z = t * np.einsum("ij,ij->i", U[f.pairs.i], U[f.pairs.j])
    kink = int(np.sum(np.abs(1 - z) <= KINK_BAND))
    st, peak = traced_peak(lambda: list(newton_steps(f, U, -0.5 * t, 2, krylov=50))[-1])
    assert st.U.shape == (n, s)
    m = f.pairs.m
    est = polish_bytes(n, m, f.L.nnz, s)
    met = est - 8 * POLISH_GATHERS * (m - kink) * s
    assert (1 - MEMORY_FORMULA_RTOL) * met <= peak <= (1 + MEMORY_FORMULA_RTOL) * met
    assert peak <= est


def test_a_size_that_does_not_fit_is_refused_before_allocating(monkeypatch):
    f = two_class_npkl(2000, 1.2, "hinge", "trace", B=2000.0)
    monkeypatch.setenv("KERNELSDP_MEMORY_GIB", "0.001")
    with pytest.raises(TooLargeError, match="low-rank-alm would need about"):
        solve(f, "low-rank-alm")


def test_randomised_bound_below_a_clustered_minimum():
    """A spectrum whose bottom is a cluster of 20 eigenvalues within 1e-9 (as at an NPKL
    optimum): the bound is at or below λ_min, within its target of the Ritz value, and the
    steps follow Theorem 4.2's ε."""
    rng = np.random.default_rng(0)
    n = 1500
    Q = np.linalg.qr(rng.standard_normal((n, n)))[0]
    w = np.concatenate([-1 + 1e-9 * rng.random(20), np.linspace(-0.9, 2.0, n - 20)])
    A = (Q * w) @ Q.T
    rb = randomized_min_eig(A, target=1e-3, failure_probability=1e-9, seed=5)
    assert rb.lower <= w.min() and rb.ritz - rb.lower <= 1e-3
    assert rb.epsilon == pytest.approx(kw_epsilon(n, rb.steps, 1e-9))
    assert kw_epsilon(n, steps_for(n, 1e-4, 1e-9), 1e-9) <= 1e-4


def test_randomised_bound_on_a_sparse_matrix_against_lapack():
    A = sp.random(800, 800, density=0.01, random_state=2)
    A = (A + A.T).tocsr()
    exact = np.linalg.eigvalsh(A.toarray())[0]
    rb = randomized_min_eig(A, target=1e-4, seed=1)
    assert rb.lower <= exact <= rb.ritz + 1e-8


def test_anderson_mixing_speeds_a_contraction_and_stays_in_the_dual_box():
    """Anderson (memory 3) on a contraction β ↦ Π(Aβ + c), Π the projection onto the
    hinge's box β·T ∈ [−C, 0] that holds the fixed point: after 30 steps the error is a
    hundredth of the plain iteration's (measured 1.9e-4 against 0.12), every iterate stays
    in the box, and memory 0 is the plain update."""
    from kernelsdp.formulations.losses import HINGE
    from kernelsdp.solvers.alm_anderson import AndersonMultipliers

    rng = np.random.default_rng(0)
    m = 40
    T = np.where(rng.random(m) < 0.5, -1.0, 1.0)
    Q = np.linalg.qr(rng.standard_normal((m, m)))[0]
    A = Q @ np.diag(np.linspace(0.5, 0.95, m)) @ Q.T
    star = -T * rng.uniform(0.2, 0.8, m)  # α* inside (0, C)
    c = star - A @ star
    box = lambda b: HINGE.project(b, T, 1.0)

    def run(memory: int, steps: int) -> float:
        mix = AndersonMultipliers(memory, box)
        beta, fy = np.zeros(m), math.inf
        for _ in range(steps):
            bt = box(A @ beta + c)
            fy = float(np.linalg.norm(bt - beta))
            beta = mix.next(beta, bt, fy, reset=False)
            assert np.all(beta * T <= 1e-12) and np.all(beta * T >= -1.0 - 1e-12)
        return float(np.linalg.norm(beta - star))

    assert run(3, 30) < 1e-2 * run(0, 30)
    plain = AndersonMultipliers(0, lambda b: b)
    bt = np.ones(3)
    assert plain.next(np.zeros(3), bt, 1.0, reset=False) is bt


@pytest.mark.parametrize("loss", ["hinge", "squared-hinge"])
def test_plain_and_anderson_multiplier_updates_certify_the_same_optimum(loss):
    """Wine, 60 points: with ``anderson=0`` (the plain β ← β̃) and the default, both solves
    are certified within the gap by proofs and their intervals meet."""
    f = _fixture("wine", 60, loss)
    a, b = _own(solve(f, "low-rank-alm", anderson=0)), _own(solve(f, "low-rank-alm"))
    for c in (a, b):
        assert c.width <= LOW_RANK_ALM_GAP_TOL and c.lower_label == PROOF
    assert max(a.lower, b.lower) <= min(a.upper, b.upper) + 1e-9 * abs(a.upper)


def test_a_small_starting_penalty_still_leaves_k_zero():
    """ρ₀ ≤ C/4: at width 0 the gradient steps have nothing to do, which counted as a stall
    and updated the multipliers until FY = 0 without a Frank–Wolfe step — K stayed 0 and
    the solve ran to the iteration limit (two-Gaussian data, n = 3,000)."""
    f = _fixture("iris", 60, "hinge")
    r = solve(f, "low-rank-alm", rho=0.1, max_iter=5000)
    assert r.termination == Termination.OPTIMAL and r.kernel.rank > 0
    assert _own(r).lower_label == PROOF


def test_each_check_records_the_multiplier_updates_before_it(monkeypatch):
    """The history's ``multiplier_updates`` counts the calls of the schedule's update made
    before each check (a 10⁶ run's gap rose without saying whether an update did it)."""
    from kernelsdp.solvers import alm_outer

    calls = []
    update = alm_outer.Schedule.update

    def counted(self, run, chk, rec, fy_last):
        calls.append(run.checks)  # the check after which the update is made
        update(self, run, chk, rec, fy_last)

    monkeypatch.setattr(alm_outer.Schedule, "update", counted)
    r = solve(_fixture("iris", 60, "hinge"), "low-rank-alm")
    seen = [h["multiplier_updates"] for h in r.history if "multiplier_updates" in h]
    assert calls and len(seen) == sum(1 for h in r.history if "check" in h)
    for h in r.history:
        if "check" in h:
            assert h["multiplier_updates"] == sum(1 for c in calls if c < h["check"])


def test_participation_counts_the_entries_that_carry_a_vector():
    """n for a constant vector, 1 for a coordinate vector, k for k equal entries: the
    measure each check records of its vertex (localised directions of negative curvature
    marked the 20,000 run's spikes of the FW gap: 9-17 nodes)."""
    from kernelsdp.solvers.alm_inner import participation

    n = 50
    assert participation(np.ones(n)) == pytest.approx(n)
    assert participation(np.eye(n)[3]) == pytest.approx(1.0)
    v = np.zeros(n)
    v[[2, 7, 11, 40]] = [1.0, -1.0, 1.0, -1.0]
    assert participation(3.7 * v) == pytest.approx(4.0)
    assert participation(np.zeros(n)) == 0.0


def test_each_check_records_its_vertex_and_the_seeds_below_the_level(monkeypatch):
    """Each check's record carries the vertex's participation ratio and how many of the
    block's vectors lie below V's level — the columns the Frank–Wolfe step after it adds as
    seeds — against the check's own vectors, recomputed here."""
    from kernelsdp.solvers import alm_outer

    checks = []
    fw_check = alm_outer.fw_check

    def kept(*args, **kwargs):
        chk = fw_check(*args, **kwargs)
        checks.append(chk)
        return chk

    monkeypatch.setattr(alm_outer, "fw_check", kept)
    r = solve(_fixture("iris", 60, "hinge"), "low-rank-alm")
    recs = [h for h in r.history if "check" in h]
    assert len(recs) == len(checks) >= 2
    for h, chk in zip(recs, checks):
        v = chk.vertex / np.linalg.norm(chk.vertex)
        assert h["vertex_participation"] == pytest.approx(1.0 / float(np.sum(v**4)))
        assert 1.0 <= h["vertex_participation"] <= 60 + 1e-9
        below = chk.block_values < min(chk.level, 0.0)
        assert h["seeds"] == int(below.sum()) <= h["block"] == chk.block.shape[1]
        assert np.array_equal(alm_inner.below_level(chk), below)
    # the Newton steps' trust radius as each round left it: the first check's is the start
    radii = [h["trust_radius"] for h in recs]
    assert radii[0] == pytest.approx(alm_newton.DELTA_MAX / 8)
    assert all(0 < d <= alm_newton.DELTA_MAX for d in radii) and len(set(radii)) > 1


def test_rho_doubles_only_after_slow_updates_in_a_row():
    """ρ doubles after ``SLOW_UPDATES`` updates in a row that each left FY above
    ``FY_PROGRESS`` of the last, and a fast update in between resets the count (one slow
    update read off a hub's creeping FY doubled ρ at n = 100,000: 4,715 products against
    3,544; docs/npkl.md §7, fourteenth pass)."""
    from types import SimpleNamespace

    from kernelsdp.solvers import alm_outer
    from kernelsdp.solvers.low_rank_alm import FY_PROGRESS, SLOW_UPDATES, LowRankALMOptions

    f = _fixture("iris", 60, "hinge")
    run = alm_outer._Run(f, LowRankALMOptions(), 8)
    sched = alm_outer.Schedule(run)
    rho0 = run.rho

    def step(fy: float, fy_last: float) -> float:
        chk = SimpleNamespace(fy_gap=fy, beta_tilde=np.zeros(f.pairs.m))
        sched.update(run, chk, {}, fy_last)
        return run.rho

    slow = 1.01 * FY_PROGRESS  # FY at the update over FY at the update before
    for _ in range(SLOW_UPDATES - 1):
        assert step(slow, 1.0) == rho0  # slow, but not yet often enough
    assert step(0.5, 1.0) == rho0  # a fast update resets the count
    for _ in range(SLOW_UPDATES - 1):
        assert step(slow, 1.0) == rho0
    assert step(slow, 1.0) == 2 * rho0
    assert step(slow, 1.0) == 2 * rho0  # the count starts again after a doubling


def test_at_a_limit_the_kept_point_of_a_lower_estimate_is_certified_and_answers():
    """n = 3,000, stopped by max_iter = 118 right after a hub's pocket (the last check's
    estimate 0.62): the point of check 8 (estimate 0.48) is certified too, and its
    narrower interval is the answer; it meets the certified optimum's interval, and the
    answer's factor is the kept one (its objective within the interval)."""
    f = two_class_npkl(3000, 1.2, "hinge", "trace", B=3000.0)
    # the path from K = 0 without the pockets solved as blocks (the default since the
    # forty-fourth pass closes the pocket this test stops after)
    r = solve(f, "low-rank-alm", max_iter=118, spectral_start=0, pocket_blocks=False)
    last = [h for h in r.history if "fw_gap" in h][-1]
    (kept,) = [h for h in r.history if "kept_check" in h]
    assert r.termination == Termination.ITERATION_LIMIT
    assert kept["kept_check"] < last["check"]
    assert kept["estimated_gap"] < last["certified_gap"]
    assert r.info["relative_gap"] == kept["certified_gap"] < last["certified_gap"]
    assert (r.lower_bound, r.upper_bound) == (kept["lower"], kept["upper"])
    assert r.info["answer_check"] == kept["kept_check"]
    assert f"at the point of check {kept['kept_check']} of {last['check']}" in r.message
    assert r.lower_bound <= r.objective <= r.upper_bound
    best = solve(f, "low-rank-alm")
    assert best.termination == Termination.OPTIMAL
    assert max(r.lower_bound, best.lower_bound) <= min(r.upper_bound, best.upper_bound)


def test_at_a_limit_far_from_the_gap_the_randomised_bound_is_sized_by_the_estimate(
    monkeypatch,
):
    """n = 3,000 stopped by max_iter = 60 (estimate 0.89), randomised bound only: the
    width is at least the estimate, so the last point's interval aims at the estimate, not
    at gap_tol (only Lanczos steps: the width cannot be below it), and the slack it leaves is
    within BOUND_SHARE of it."""
    from kernelsdp.solvers import alm_certificate, alm_outer

    targets = []

    def spied(*a, **k):
        targets.append(a[4])
        return alm_certificate.interval(*a, **k)

    monkeypatch.setattr(alm_outer, "interval", spied)
    f = two_class_npkl(3000, 1.2, "hinge", "trace", B=3000.0)
    # the path from K = 0 (from the spectral start, the default, 60 iterations reach an
    # estimate of 0.117, and 600 Lanczos steps, the cap, certify 0.195: wider, not wrong;
    # with the pockets solved as blocks, the default since the forty-fourth pass, 0.374 and
    # 0.497 after 400 steps: the check's λ lay above the bottom the bound's Lanczos found,
    # so again wider, not wrong)
    r = solve(f, "low-rank-alm", max_iter=60, verify_max_n=0, spectral_start=0, pocket_blocks=False)
    last = [h for h in r.history if "fw_gap" in h][-1]
    assert r.termination == Termination.ITERATION_LIMIT
    assert targets[0] == last["estimated_gap"] > 100 * LOW_RANK_ALM_GAP_TOL
    share = alm_certificate.BOUND_SHARE * last["estimated_gap"]
    assert last["estimated_gap"] <= last["certified_gap"] <= last["estimated_gap"] + 2 * share


def test_threads_change_no_digit_of_the_solve(monkeypatch):
    """The products by row blocks, the pairs' gathers and the single-precision inner
    products on two threads, or each in one call: the same history, float for float (each
    thread computes whole rows exactly as one call would; the sums over them are unchanged)."""
    f = two_class_npkl(1000, 1.2, "hinge", "trace", B=1000.0)  # n > DENSE_CHECK_N: LOBPCG

    def history():
        r = solve(f, "low-rank-alm", gap_tol=1e-3, verify_max_n=0)
        return [(h["products"], h["estimated_gap"], h["rank"]) for h in r.history if "fw_gap" in h]

    monkeypatch.setattr(row_blocks, "PARALLEL_FROM_NNZ", 10**9)
    for module in (alm_problem, alm_newton):
        monkeypatch.setattr(module, "THREADED_PAIRS_FROM", 10**9)
    monkeypatch.setattr(alm_inner, "THREADED_DOT_FROM", 10**9)
    one = history()
    monkeypatch.setattr(row_blocks, "PARALLEL_FROM_NNZ", 1)
    for module in (alm_problem, alm_newton):
        monkeypatch.setattr(module, "THREADED_PAIRS_FROM", 1)
    monkeypatch.setattr(alm_inner, "THREADED_DOT_FROM", 1)
    assert history() == one and len(one) >= 3


def test_the_check_s_start_is_the_warm_block_in_c_order_or_the_seeded_draw():
    """The check's LOBPCG start: a whole warm block copied in C order (an F-ordered copy
    took other BLAS paths and moved the solve's rounding), a narrower one completed by the
    seed's draw of all k columns, exactly as before the draw was skipped."""
    from kernelsdp.solvers.alm_inner import _start_block

    rng = np.random.default_rng(11)
    warm = np.asfortranarray(rng.standard_normal((50, 8)))
    W0 = _start_block(50, 8, warm, seed=3)
    assert W0.flags.c_contiguous and W0 is not warm
    np.testing.assert_array_equal(W0, warm)
    drawn = np.random.default_rng(3).standard_normal((50, 8))
    drawn[:, :3] = warm[:, :3]
    np.testing.assert_array_equal(_start_block(50, 8, warm[:, :3], seed=3), drawn)
    np.testing.assert_array_equal(
        _start_block(50, 8, None, seed=3), np.random.default_rng(3).standard_normal((50, 8))
    )


def test_the_check_s_fw_gap_and_vertex_are_those_of_fresh_arrays():
    """The check copies G·V into the Rayleigh–Ritz basis's memory once the vertex is read
    from it (twenty-second pass): the FW gap is a·(⟨V, G·V⟩ − min(λ, 0)) computed afresh,
    bit for bit, and the vertex is a unit vector with Rayleigh quotient λ (LOBPCG's path:
    n above DENSE_CHECK_N)."""
    from kernelsdp.solvers.alm_inner import evaluate, fw_check

    f = two_class_npkl(1000, 1.2, "hinge", "trace", B=1000.0)
    prob = ScaledNPKL(f, np.float32)
    rng = np.random.default_rng(8)
    X = (rng.standard_normal((prob.n, 6)) / np.sqrt(6 * prob.n)).astype(np.float32)
    beta = prob.loss.project(-rng.uniform(0.0, 1.0, prob.m) * prob.t, prob.t, prob.C)
    pt = evaluate(prob, X, beta, 1.0)
    chk = fw_check(prob, pt, beta, 1.0, None, 0)
    X64 = X.astype(np.float64)
    GX = prob.dual_matrix(chk.beta_tilde) @ X64
    vgv = float(np.dot(X64.ravel(), GX.ravel()))
    assert chk.fw_gap == prob.a * (vgv - min(chk.lam, 0.0))
    v = chk.vertex
    assert np.linalg.norm(v) == pytest.approx(1.0, rel=1e-12)
    assert v @ (prob.dual_matrix(chk.beta_tilde) @ v) == pytest.approx(chk.lam, rel=1e-9)
