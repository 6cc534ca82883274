"""The certificate's cost work (issue #26): many small PSD blocks verified as one stack give
exactly the scalar answers, and a re-solve is not run on a side that has no strictly
feasible point."""

import cvxpy as cp
import numpy as np
import pytest

from kernelsdp import tolerances as tol
from kernelsdp.certificate import conic_certificate, solve_canonical
from kernelsdp.certificate.cones import blocks_min_eig
from kernelsdp.certificate.membership import block_lower, blocks_lower
from kernelsdp.certificate.perturbed import dual_room_needed, normalized, shrink_sizes
from kernelsdp.certificate.slater import dual_recession_column, primal_fixed_row
from kernelsdp.linalg.verified import verified_min_eig, verified_min_eig_stack


def _matrices(k: int, n: int, seed: int) -> np.ndarray:
    """PSD, indefinite, singular, zero-row and non-symmetric matrices, mixed."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(k):
        B = rng.standard_normal((n, n))
        M = B @ B.T
        if i % 4 == 1:
            M = M - 1.2 * np.linalg.eigvalsh(M)[-1] * np.eye(n)
        if i % 4 == 2:
            v = rng.standard_normal(n)
            M = np.outer(v, v)
        if i % 9 == 3:
            M[1, :] = M[:, 1] = 0
        M = (M + M.T) / 2
        if i % 11 == 5:
            M[0, 1] += 1e-3  # not exactly symmetric
        out.append(M)
    return np.array(out)


@pytest.mark.parametrize("n", [2, 3, 7])
@pytest.mark.parametrize("goal", ["none", "zero", "random"])
def test_a_stack_is_verified_exactly_as_each_matrix_alone(n, goal):
    Ms = _matrices(30, n, seed=n)
    rng = np.random.default_rng(0)
    E = np.abs(rng.standard_normal(Ms.shape)) * 1e-10
    E = (E + E.transpose(0, 2, 1)) / 2
    at = {"none": None, "zero": [0.0] * 30, "random": list(rng.uniform(-1, 1, 30))}[goal]
    got = verified_min_eig_stack(Ms, E, at)
    for i in range(len(Ms)):
        alone = verified_min_eig(Ms[i], E[i], None, None if at is None else at[i])
        assert (got.lower[i], got.proof[i]) == (alone.lower, alone.proof), i
        sym = (Ms[i] + Ms[i].T) / 2
        if got.proof[i]:  # below the exact λ_min of every matrix within E
            assert got.lower[i] <= np.linalg.eigvalsh(sym)[0] + np.abs(E[i]).sum(axis=1).max()


def _many_blocks():
    """Ten 3 × 3 PSD variables and one 5 × 5 (a truss-like layout of equal small blocks)."""
    Xs = [cp.Variable((3, 3), symmetric=True) for _ in range(10)]
    Y = cp.Variable((5, 5), symmetric=True)
    rng = np.random.default_rng(3)
    C = [rng.standard_normal((3, 3)) for _ in Xs]
    obj = sum(cp.trace((c + c.T) @ X) for c, X in zip(C, Xs)) + cp.trace(Y)
    cons = [X >> 0 for X in Xs] + [Y >> 0, cp.trace(Y) + sum(cp.trace(X) for X in Xs) == 1]
    return cp.Problem(cp.Minimize(obj), cons)


def test_blocks_are_verified_as_one_block_at_a_time_would_be():
    sol = solve_canonical(_many_blocks(), "CLARABEL")
    form = sol.form
    s = form.A @ sol.x + form.b
    rng = np.random.default_rng(1)
    err = np.abs(rng.standard_normal(s.size)) * 1e-12
    for v, e, dual in ((s, err, False), (sol.y, None, True)):
        goal = [float(g) for g in rng.uniform(-1e-3, 1e-3, len(form.blocks))]
        got = blocks_lower(form, v, e, dual, goal)
        for j, blk in enumerate(form.blocks):
            if blk.kind == "zero":
                continue
            alone = block_lower(blk, v[blk.rows], None if e is None else e[blk.rows], dual, goal[j])
            assert np.array_equal(got[j].values, alone.values) and got[j].proof == alone.proof
        plain = min(b.min_eig(v[b.rows], dual) for b in form.blocks if b.kind != "zero")
        assert blocks_min_eig(form, v, dual) == pytest.approx(plain, abs=1e-12)


def _sdpa_like(F: list[np.ndarray], c: list[float]) -> cp.Problem:
    """min cᵀx s.t. Σ F_i x_i − F_0 ⪰ 0 (SDPA's primal; x free, in no equality row)."""
    x = cp.Variable(len(c))
    S = sum(x[i] * F[i + 1] for i in range(len(c))) - F[0]
    return cp.Problem(cp.Minimize(np.asarray(c) @ x), [(S + S.T) / 2 >> 0])


def test_a_free_direction_of_the_primal_skips_the_dual_re_solve():
    """gpp's structure: x_0's matrix J = 11ᵀ ⪰ 0 costs nothing, so ⟨Y, J⟩ = 0 for every
    dual point, and no dual point is strictly feasible."""
    n = 4
    J, I = np.ones((n, n)), np.eye(n)
    D = np.diag([1.0, 2.0, 3.0, 4.0])
    problem = _sdpa_like([D, J, I], [0.0, 1.0])
    sol = solve_canonical(problem, "CLARABEL")
    assert "x_0" in dual_recession_column(sol.form)
    assert primal_fixed_row(sol.form) == ""
    cert = conic_certificate(sol, tol.CERTIFY_TOL)
    assert cert.lower_label != "proof" and "no dual re-solve" in cert.note
    assert cert.upper_label == "proof" and "re-solved" not in cert.note


def test_a_row_that_is_always_zero_has_no_strictly_feasible_primal_point():
    x = cp.Variable(2)
    S = cp.bmat([[x[0], x[1], 0], [x[1], 1 + x[0], 0], [0, 0, 0]])
    sol = solve_canonical(cp.Problem(cp.Minimize(x[0]), [S >> 0]), "CLARABEL")
    assert "no strictly feasible primal point" in primal_fixed_row(sol.form)
    cert = conic_certificate(sol, tol.CERTIFY_TOL)
    assert cert.upper_label != "proof" and "no primal re-solve" in cert.note
    assert cert.lower_label == "proof"


def test_the_dual_shrink_leaves_room_for_the_rounding_enclosure():
    """ε_d of the re-solve is at least twice δ = ρ/σ_min(A) in every unbounded block's
    normalised units, and grows as σ_min(A) shrinks."""
    sol = solve_canonical(_many_blocks(), "CLARABEL")
    form, x, y = sol.form, sol.x, sol.y
    plain = shrink_sizes(form, x, y)[1]
    small = shrink_sizes(form, x, y, 1e-9)[1]
    _, r, sigma = normalized(form)
    rows = [b.rows for b in form.blocks if b.kind == "psd"]
    unit = min(float(np.min(sigma * r[rw])) for rw in rows)
    assert small >= 2 * dual_room_needed(form, x, y, 1e-9) / unit * (1 - 1e-12)
    assert small > plain and shrink_sizes(form, x, y, 1e-3)[1] <= small


def test_a_stalled_metric_correction_falls_back_on_the_least_norm_one(monkeypatch):
    """When the interior-point-metric correction keeps y inside K* but leaves a residual
    whose enclosure pushes a block out (truss6), the least-norm correction still proves
    the lower end."""
    from kernelsdp.certificate import ends
    from kernelsdp.certificate.perturbed import cone_identity

    rng = np.random.default_rng(7)
    n, m = 5, 3
    F = [rng.standard_normal((n, n)) for _ in range(m + 1)]
    F = [(f + f.T) / 2 for f in F[:1]] + [np.eye(n)] + [(f + f.T) / 2 for f in F[2:]]
    Y0 = np.eye(n) + 0.1 * np.ones((n, n))
    c = [float(np.trace(f @ Y0)) for f in F[1:]]  # Y0 ≻ 0 is dual feasible
    sol = solve_canonical(_sdpa_like(F, c), "CLARABEL")
    form = sol.form
    (blk,) = [b for b in form.blocks if b.kind == "psd"]
    y0 = np.zeros(form.A.shape[0])
    y0[blk.rows] = blk.vector(Y0, dual=True)  # inside K* by 1, stationary up to rounding
    assert ends.proven_lower(form, sol.x, y0, {}).label == "proof"
    e = cone_identity(form, dual=True)
    stalled = ends.scaled_correction
    monkeypatch.setattr(  # still inside K*, but 10·Aᵀe away from stationarity
        ends, "scaled_correction", lambda form, y, g, floor: stalled(form, y, g, floor) + 10 * e
    )
    yc = ends.scaled_correction(form, y0, form.c, 0.0)
    assert "outside K*" in ends._lower_at(form, sol.x, yc, {}, 0 * sol.x).why
    got = ends.proven_lower(form, sol.x, y0, {})
    assert got.label == "proof" and got.value <= form.objective(sol.x) + 1e-9


@pytest.mark.parametrize("dual", [False, True])
@pytest.mark.parametrize("triangle", ["lower", "upper", None])
def test_a_one_by_one_psd_block_is_its_entry_less_its_error(triangle, dual):
    """A 1 × 1 PSD block (CVXPY writes a scalar X ⪰ 0 so) is proven as its entry less its
    error, at most that — never through a shifted factorisation — and a non-finite entry
    is no proof."""
    from kernelsdp.certificate.cones import Block

    blk = Block("psd", 0, 1, side=1, triangle=triangle, sqrt2=True)
    for v, e in ((0.3, 1e-12), (-2.0, 0.0), (1e-300, 0.0), (5.0, 3e-16)):
        got = block_lower(blk, np.array([v]), np.array([e]), dual)
        assert got.proof and got.values[0] <= v - e
        assert got.values[0] == v or got.values[0] >= v - 2 * e - 1e-16 * abs(v)
    assert not block_lower(blk, np.array([np.nan]), np.array([0.0]), dual).proof


def _mixed_cones():
    """ℝ₊ rows beside a PSD block (the shortcut reads ℝ₊ per entry)."""
    x, X = cp.Variable(3), cp.Variable((3, 3), symmetric=True)
    cons = [x >= 0, X >> 0, cp.sum(x) + cp.trace(X) == 2, x[0] >= X[0, 1]]
    return cp.Problem(cp.Minimize(x @ [1.0, 2.0, 3.0] + cp.trace(X)), cons)


def test_an_upper_end_refused_on_its_estimate_is_one_the_proof_refuses(monkeypatch):
    """The shortcut that refuses a primal point on its λ_min estimates (an interior-point
    point just outside its cones) never refuses one that the verification proves: at points
    around the solver's, inside and outside, with ℝ₊ and PSD blocks — and both outcomes
    occur."""
    import kernelsdp.certificate.ends as ends

    shortcut, seen = ends._short_of_room, set()
    for problem in (_many_blocks(), _mixed_cones()):
        sol = solve_canonical(problem, "CLARABEL")
        rng = np.random.default_rng(5)
        for k in range(40):
            x = sol.x + rng.standard_normal(sol.x.size) * 10.0 ** -float(rng.integers(3, 12))
            monkeypatch.setattr(ends, "_short_of_room", shortcut)
            fast = ends.proven_upper(sol.form, x)
            monkeypatch.setattr(ends, "_short_of_room", lambda *a: None)
            full = ends.proven_upper(sol.form, x)
            assert fast.label == full.label, (k, fast.why, full.why)
            if "estimated" in fast.why:
                seen.add("refused on the estimate")
                assert full.deficit >= fast.deficit * (1 - 1e-9)
            elif full.label == "proof":
                seen.add("proven")
    assert seen == {"refused on the estimate", "proven"}
