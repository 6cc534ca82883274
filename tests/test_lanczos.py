"""The two-pass Lanczos recurrence (kernelsdp.linalg.lanczos) and the Frank–Wolfe check's
vertex refined by it (kernelsdp.solvers.alm_vertex)."""

from __future__ import annotations

import numpy as np
import pytest

from kernelsdp.linalg.lanczos import Lanczos
from kernelsdp.solvers import alm_vertex
from kernelsdp.solvers.alm_vertex import refined_vertex


def _clustered(n: int = 300, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A symmetric matrix whose bottom is a cluster of ten eigenvalues 1e-3 apart (the NPKL
    optimum's shape), its eigenvalues and eigenvectors."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    w = np.concatenate([-0.443 + 1e-3 * np.arange(10) / 9, rng.uniform(-0.43, 3.5, n - 10)])
    return (Q * w) @ Q.T, np.sort(w), Q[:, np.argsort(w)]


def test_the_ritz_vector_of_the_second_pass_has_the_ritz_value_as_its_quotient():
    A, w, _ = _clustered()
    lan = Lanczos(A, 0.0, np.random.default_rng(1).standard_normal(A.shape[0]))
    lan.run(40)
    x = lan.ritz_vector()
    assert np.linalg.norm(x) == pytest.approx(1.0)
    assert -(x @ A @ x) == pytest.approx(lan.theta(), abs=1e-10)  # P = −A
    assert -lan.theta() >= w[0] - 1e-12  # a Ritz value of A is at least λ_min(A)


def test_the_recurrence_stops_on_an_invariant_space():
    A, w, V = _clustered()
    lan = Lanczos(A, 0.0, V[:, 3])
    lan.run(20)
    assert lan.broke and lan.steps == 1
    assert -lan.theta() == pytest.approx(w[3], abs=1e-12)
    assert abs(lan.ritz_vector() @ V[:, 3]) == pytest.approx(1.0)


def test_a_vertex_mixed_with_the_complement_is_refined_to_the_bottom():
    """A vertex inside the bottom cluster plus 10 % from above it (the check's vertex when
    V and its complement are coupled): the refined λ is below the vertex's quotient, at
    least λ_min, within 1e-5 of it, and is its vector's quotient."""
    A, w, V = _clustered()
    v = V[:, :10] @ np.full(10, np.sqrt(0.9 / 10)) + np.sqrt(0.1) * V[:, 50]
    lam0 = float(v @ A @ v)
    lam, x, products = refined_vertex(A, v, lam0, 1e-9)
    assert w[0] - 1e-12 <= lam < lam0 - 1e-3
    assert lam - w[0] < 1e-5
    assert float(x @ A @ x) == pytest.approx(lam, abs=1e-10)
    assert products <= 2 * alm_vertex.MAX_STEPS


def test_an_eigenvector_vertex_is_returned_unchanged_after_one_chunk():
    A, w, V = _clustered()
    vertex = V[:, 0]
    lam, x, products = refined_vertex(A, vertex, w[0], 1e-9)
    assert lam == w[0] and x is vertex  # the Ritz value did not move: no second pass
    assert products <= alm_vertex.CHUNK


def test_the_solver_checks_vertex_is_never_above_its_rayleigh_ritz_vertex(monkeypatch):
    """n = 3,000 with the refinement on (the solver's ``REFINE_FROM`` is 300,000): at every
    check of a solve the refined λ is at most the Rayleigh–Ritz λ on [V, W] at the same
    point and is its vertex's quotient; at the early checks (a point far from optimal, V
    and W coupled) it is lower by more than 1e-3."""
    from conftest import two_class_npkl

    from kernelsdp.solvers import alm_outer, solve

    monkeypatch.setattr(alm_vertex, "REFINE_FROM", 0)
    plain, seen = alm_outer.fw_check, []

    def both(prob, pt, beta, rho, warm, seed):
        chk = plain(prob, pt, beta, rho, warm, seed)
        with monkeypatch.context() as m:
            m.setattr(alm_vertex, "MAX_STEPS", 0)
            rr = plain(prob, pt, beta, rho, warm, seed)
        G = prob.dual_matrix(chk.beta_tilde)
        seen.append((chk.lam, rr.lam, float(chk.vertex @ (G @ chk.vertex))))
        return chk

    monkeypatch.setattr(alm_outer, "fw_check", both)
    r = solve(two_class_npkl(3000, 1.2, "hinge", "trace", B=3000.0), "low-rank-alm")
    assert r.info["relative_gap"] <= 1e-3
    for lam, rr, quotient in seen:
        assert lam <= rr + 1e-12
        # 1e-8, not 1e-10: an unrefined vertex's λ is the Rayleigh–Ritz pencil's, whose
        # Gram matrix carries a 1e-14·tr regularisation (1.5e-9 off its quotient here)
        assert quotient == pytest.approx(lam, abs=1e-8)
    assert max(rr - lam for lam, rr, _ in seen) > 1e-3


def test_the_refinement_s_peak_is_within_the_memory_formula_s_term():
    """n = 6,000 on the solver's own operator M(β), 200 steps and the second pass: the
    peak tracemalloc sees is within MEMORY_FORMULA_RTOL of the ``REFINE_VECTORS``
    n-vectors that ``memory_bytes_for`` adds to the check's phase at n ≥ ``REFINE_FROM``,
    and that term is in the formula there and not below."""
    from conftest import traced_peak, two_class_npkl
    from test_low_rank_alm import MEMORY_FORMULA_RTOL

    from kernelsdp.solvers.alm_problem import ScaledNPKL
    from kernelsdp.solvers.low_rank_alm import memory_bytes_for

    n = 6000
    f = two_class_npkl(n, 1.2, "hinge", "trace", B=float(n))
    prob = ScaledNPKL(f, np.float32, True)
    prob.dual_matrix(np.random.default_rng(0).uniform(-0.5, 0.5, f.pairs.m))
    op = prob.dual_operator()
    v = np.random.default_rng(1).standard_normal(n)
    v /= np.linalg.norm(v)
    # tol = 0: every chunk counts as a move, so the recurrence runs to MAX_STEPS; a λ above
    # any Ritz value makes the second pass run too
    (_, _, products), peak = traced_peak(lambda: refined_vertex(op, v, np.inf, 0.0))
    assert products == 2 * alm_vertex.MAX_STEPS - 1
    term = 8 * alm_vertex.REFINE_VECTORS * n
    assert (1 - MEMORY_FORMULA_RTOL) * term <= peak <= term
    big = alm_vertex.REFINE_FROM  # the check's phase is the largest at rank 1, so the
    # formula's difference across the threshold is the term (scaled to n)
    gain = memory_bytes_for(big, 0, 0, 1) - memory_bytes_for(big - 1, 0, 0, 1)
    assert gain >= 8 * alm_vertex.REFINE_VECTORS * (big - 1)
