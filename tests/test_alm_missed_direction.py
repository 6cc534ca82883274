"""A bottom direction the Frank–Wolfe check missed goes back to the next check (issue #30,
thirty-third pass): the randomised bound returns its Ritz vector when asked, the interval
returns it when its Lanczos ends more than its slack below the check's λ, and the outer
loop puts it first in the next check's warm block.  Under a proof (n ≤ ``verify_max_n``,
thirty-eighth pass) the interval hands back the bottom eigenvector the same way."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import two_class_npkl

from kernelsdp.linalg.randomized_bound import RandomizedBound, randomized_min_eig
from kernelsdp.solvers import alm_outer, solve
from kernelsdp.solvers.alm_certificate import BOUND_SHARE, interval


def _diagonal(n: int = 600):
    d = np.linspace(-0.5, 1.0, n)
    d[0] = -1.0  # the bottom, alone: its eigenvector is e₀
    return sp.diags(d).tocsr()


def test_the_bound_rebuilds_its_ritz_vector_on_request():
    A = _diagonal()
    rb = randomized_min_eig(A, target=1e-8, seed=3)
    v = rb.ritz_vector()
    assert abs(v[0]) == pytest.approx(1.0, abs=1e-6) and np.linalg.norm(v) == pytest.approx(1.0)
    assert float(v @ (A @ v)) == pytest.approx(rb.ritz, abs=1e-8)
    assert rb.ritz == pytest.approx(-1.0, abs=1e-8)
    with pytest.raises(ValueError):
        RandomizedBound(-1.0, -1.0, 1, 1e-9, 0.5, 2.0, "").ritz_vector()


@pytest.fixture(scope="module")
def solved():
    f = two_class_npkl(300, 1.2, "hinge", "trace", B=300.0)
    return f, solve(f, "low-rank-alm", verify_max_n=0)


@pytest.mark.parametrize("verify_max_n", [0, 10_000], ids=["probable", "proof"])
def test_the_interval_hands_back_a_direction_below_the_checks_lambda(solved, verify_max_n):
    """At the solver's answer (n = 300; the randomised bound forced, or the proof): with
    the check's own λ nothing comes back; with a λ read 0.05 too high and a target the
    interval misses, the bound's Ritz vector (under a proof, the bottom eigenvector) does, a
    unit vector whose Rayleigh quotient in M(β) is the interval's Ritz value; not when
    unasked (the same interval otherwise), and not when the interval is within its target."""
    f, r = solved
    U, beta, lam = r.kernel.U, r.duals["beta"], -r.duals["lam"]
    tight = 1e-12  # no interval is that narrow: every one below fails its target
    # the answer's λ is its own interval's Ritz value, at λ_min to rounding: a hair below
    # it, no Ritz value of the bound can be lower
    honest = interval(f, U, beta, lam - 1e-6, tight, verify_max_n, seed=11, find_missed=True)
    assert honest.missed is None and honest.width > tight
    high = interval(f, U, beta, lam + 0.05, tight, verify_max_n, seed=11, find_missed=True)
    assert high.lower_label == ("proof" if verify_max_n else "probable")
    # at a limit: no use for it
    unasked = interval(f, U, beta, lam + 0.05, tight, verify_max_n, seed=11)
    assert unasked.missed is None and unasked.width == high.width
    met = interval(f, U, beta, lam + 0.05, 1e-3, verify_max_n, seed=11, find_missed=True)
    assert met.width <= 1e-3 and met.missed is None  # certified: no next check to feed
    v = high.missed
    assert v is not None and np.linalg.norm(v) == pytest.approx(1.0)
    assert (high.missed_products > 0) == (verify_max_n == 0)  # a proof's are not counted
    # the bottom of M(β), not any direction below the check's λ (n = 300: dense)
    bottom = np.linalg.eigvalsh(f.dual_matrix(np.asarray(beta, dtype=np.float64)).toarray())[0]
    assert high.lam_ritz == pytest.approx(bottom, abs=1e-7)
    M = f.dual_matrix(np.asarray(beta, dtype=np.float64))
    slack = BOUND_SHARE * tight * abs(high.upper) / f.B
    assert float(v @ (M @ v)) == pytest.approx(high.lam_ritz, abs=1e-9)
    assert high.lam_ritz < lam + 0.05 - slack


def test_with_direction_puts_the_direction_first_and_the_block_after_it():
    rng = np.random.default_rng(0)
    block, v = rng.standard_normal((50, 8)), rng.standard_normal(50)
    out = alm_outer.with_direction(block, v)
    assert out.shape == (50, 9)
    np.testing.assert_array_equal(out[:, 0], v)
    np.testing.assert_array_equal(out[:, 1:], block)
    assert alm_outer.with_direction(None, v).shape == (50, 1)


@pytest.mark.parametrize("verify_max_n", [0, 10_000], ids=["probable", "proof"])
def test_a_check_that_reads_lambda_high_gets_the_missed_direction_next(monkeypatch, verify_max_n):
    """The solve (n = 600: the check is LOBPCG's, which reads the warm block) with every
    check's λ read 0.02 too high, so the estimate reads low and an interval is tried early:
    the failed interval records the bound's λ (under a proof, the bottom eigenvalue), the
    next check's warm block starts with its direction, and that direction, in the scaled
    problem's order, has that λ as its Rayleigh quotient in the check's M(β̃) (a wrong node
    order would not)."""
    f = two_class_npkl(600, 1.2, "hinge", "trace", B=600.0)
    plain, warm_seen, checks = alm_outer.fw_check, [], []

    def high(prob, pt, beta, rho, warm, seed):
        warm_seen.append(None if warm is None else warm[:, 0].copy())
        chk = plain(prob, pt, beta, rho, warm, seed)
        checks.append((prob, np.array(chk.beta_tilde)))
        chk.lam += 0.02
        chk.dual_estimate += prob.a * 0.02 if chk.lam < 0 else 0.0
        return chk

    monkeypatch.setattr(alm_outer, "fw_check", high)
    r = solve(f, "low-rank-alm", verify_max_n=verify_max_n, max_iter=3000)
    missed = [h for h in r.history if "missed_lambda" in h]
    assert missed and (missed[0]["missed_products"] > 0) == (verify_max_n == 0)
    assert missed[0]["lower_label"] == ("proof" if verify_max_n else "probable")
    first = missed[0]
    assert first["missed_lambda"] < first["lambda"] - 0.01
    v = warm_seen[first["check"]]  # the check after the first failed interval
    prob, bt = checks[first["check"] - 1]
    M = prob.dual_matrix(bt)
    assert float(v @ (M @ v)) == pytest.approx(first["missed_lambda"], abs=1e-5)
