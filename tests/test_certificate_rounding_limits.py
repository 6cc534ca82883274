"""The proofs' rounding bounds at the edges of floating point (issue #26: a proof holds for
the exact optimum, rounding accounted for): gradual underflow, and a bound that would be
NaN.  Both were found by ``benchmarks/certificate_adversary.py``."""

from fractions import Fraction

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

import kernelsdp
from kernelsdp.certificate.verdict import OPTIMALITY, PROOF, Certificate
from kernelsdp.linalg.rounding import UNDERFLOW, up


def test_a_subnormal_objective_is_never_certified_off_its_optimum():
    """min cᵀx s.t. x = 0.3 with c subnormal: each product cᵢ·0.3 rounds down by up to half
    a subnormal step, which the relative bounds γ_k·|c||x| (underflowing to 0) missed — the
    proven upper end sat 13 steps below the exact optimum, "certified"."""
    m, tiny = 40, 2.0**-1074
    rng = np.random.default_rng(0)
    ks = []
    while len(ks) < m:  # products that round down the most
        k = int(rng.integers(2**27, 2**28))
        frac = Fraction(k) * Fraction(0.3) - int(Fraction(k) * Fraction(0.3))
        if Fraction(3, 10) < frac < Fraction(1, 2):
            ks.append(k)
    c, beta = np.array([k * tiny for k in ks]), np.full(m, 0.3)
    truth = sum(Fraction(ci) * Fraction(b) for ci, b in zip(c, beta))
    x = cp.Variable(m)
    p = cp.Problem(cp.Minimize(c @ x), [x == beta])
    x.value = beta.copy()
    p.constraints[0].save_dual_value(c.copy())
    p._status = cp.OPTIMAL
    cert = kernelsdp.certify(p)
    for end, label in ((cert.lower, cert.lower_label), (cert.upper, cert.upper_label)):
        assert label != PROOF or end is not None
    if cert.lower_label == PROOF:
        assert Fraction(cert.lower) <= truth
    if cert.upper_label == PROOF:
        assert Fraction(cert.upper) >= truth


def test_up_covers_the_underflow_of_products():
    assert up(0.0) >= UNDERFLOW > 2.0**-1074 * 2**70
    assert up(1.0) > 1.0 and up(-1.0) > -1.0


def test_an_end_that_evaluates_to_nan_is_not_a_proof():
    """min −x₁ s.t. x ≥ 0, x₁ ≤ 1e-9·x₀ + 1, x₀ ≤ 1e9 (optimum −2): the a-priori bound of the
    entries whose dual sits inside K* is ∞, and 0·∞ made the lower end NaN labelled proof."""
    x = cp.Variable(2)
    p = cp.Problem(cp.Minimize(-x[1]), [x >= 0, x[1] <= 1e-9 * x[0] + 1.0, x[0] <= 1e9])
    p.solve(solver="CLARABEL")
    cert = kernelsdp.certify(p)
    assert not np.isnan(cert.lower)
    if cert.lower_label == PROOF:
        assert cert.lower <= -2.0
    nan = Certificate(OPTIMALITY, 1e-6, float("nan"), 1.0, PROOF, {}, (), {}, upper_label=PROOF)
    assert nan.lower_label != PROOF and not nan.passed


def test_a_maximize_s_reasons_name_the_user_s_sides():
    """The canonical min −f's 'no proven upper bound' is a Maximize's lower end."""
    c = Certificate(
        OPTIMALITY,
        1e-6,
        1.0,
        float("inf"),
        PROOF,
        {},
        (),
        {},
        upper_label="estimate",
        upper_why="no proven upper bound: the point is not strictly feasible",
    ).mapped(-1.0)
    assert c.lower_label == "estimate" and c.lower_why.startswith("no proven lower bound")


def test_up_and_down_of_each_entry_are_up_and_down_bit_for_bit():
    """The stacked verification's elementwise up/down are the scalar ones, entry by entry
    (zero, signs, subnormals, the largest floats, infinities, NaN)."""
    from kernelsdp.linalg.rounding import down, down_each, up_each

    x = np.array(
        [
            0.0,
            -0.0,
            1.0,
            -1.0,
            5e-324,
            -5e-324,
            1e-310,
            2.0**-1000,
            1.7e308,
            -1.7e308,
            np.inf,
            -np.inf,
            np.nan,
            3.14159,
            -2.5e-17,
        ]
    )
    for got, one in ((up_each(x), up), (down_each(x), down)):
        want = np.array([one(float(v)) for v in x])
        assert np.array_equal(got, want, equal_nan=True)


def test_segment_norms_bound_each_segment_exact_norm():
    """:func:`segment_norms_up` — every block's norm at once — is at least each segment's
    exact Euclidean norm (checked in rationals) and within a few ulps of :func:`norm_up`,
    at extreme magnitudes, with empty and all-zero segments."""
    from kernelsdp.linalg.rounding import norm_up, segment_norms_up

    rng = np.random.default_rng(1)
    for _ in range(200):
        count = int(rng.integers(1, 8))
        segment = np.repeat(np.arange(count), rng.integers(0, 6, count))
        v = rng.standard_normal(segment.size) * 10.0 ** float(rng.integers(-150, 150))
        if rng.random() < 0.2:
            v[:] = 0.0
        got = segment_norms_up(v, segment, count)
        for i in range(count):
            exact = sum((Fraction(x) ** 2 for x in v[segment == i]), Fraction(0))
            assert Fraction(got[i]) ** 2 >= exact
            assert got[i] == pytest.approx(norm_up(v[segment == i]), rel=1e-14, abs=0.0)


def test_gram_row_sums_bound_the_exact_ones():
    """:func:`gram_abs_row_sum_max` — |M|ᵀ|M|'s largest row sum by two products with a
    vector — is at least the exact value (rationals), dense and sparse, and agrees with the
    row sums of the formed product to rounding."""
    import scipy.sparse as sp

    from kernelsdp.linalg.rounding import abs_row_sum_max, gram_abs_row_sum_max

    rng = np.random.default_rng(0)
    for _ in range(60):
        m, n = (int(v) for v in rng.integers(1, 9, 2))
        D = rng.standard_normal((m, n)) * 10.0 ** float(rng.integers(-100, 100))
        D[rng.random((m, n)) < 0.4] = 0.0
        A = [[Fraction(abs(v)) for v in row] for row in D]
        exact = max(
            sum(sum(A[r][i] * A[r][j] for r in range(m)) for j in range(n)) for i in range(n)
        )
        formed = abs_row_sum_max(np.abs(D).T @ np.abs(D)) if np.any(D) else 0.0
        for M in (np.abs(D), abs(sp.csr_matrix(D))):
            got = gram_abs_row_sum_max(M)
            assert Fraction(got) >= exact
            assert got == formed == 0.0 or got == pytest.approx(formed, rel=1e-12)


@pytest.mark.parametrize("dense", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_a_product_s_rounding_bound_holds_against_exact_arithmetic(dense, seed):
    """γ_k·|A||x| (and one more addition for + b) bounds the rounding of A @ x + b as the
    certificate computes it — a small A dense (k its full row length, zeros summed too:
    ``CanonicalForm.magnitude``), a large one sparse (k its nonzeros) — checked entry by
    entry against exact rationals on rows whose terms cancel."""
    from kernelsdp.linalg.rounding import affine_error, magnitude, matvec_error

    rng = np.random.default_rng(seed)
    m, n = 9, 13
    A = rng.standard_normal((m, n)) * 10.0 ** rng.integers(-8, 9, (m, n))
    A[rng.random((m, n)) < 0.4] = 0.0
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-4, 5, n)
    x[-1] = (
        -float(sum(Fraction(a) * Fraction(v) for a, v in zip(A[0, :-1], x[:-1]))) / A[0, -1]
        if A[0, -1]
        else x[-1]
    )
    b = rng.standard_normal(m)
    M = A if dense else sp.csr_matrix(A)
    mag = magnitude(M)
    Ax = M @ x
    for i in range(m):
        exact = sum(Fraction(a) * Fraction(v) for a, v in zip(A[i], x))
        assert abs(Fraction(Ax[i]) - exact) <= Fraction(matvec_error(mag, x)[i])
        fl = Ax[i] + b[i]
        assert abs(Fraction(fl) - (exact + Fraction(b[i]))) <= Fraction(affine_error(mag, x, b)[i])
