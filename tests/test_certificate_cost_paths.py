"""The cheap paths of the certificate (issue #26's cost bar) give what the general ones give:
dense normal equations, the small-block interior-point metric, the re-solve's iteration cap,
and the feasible point of a ray certificate found without a solve.  None of them may change
a label: each only decides how a point to be proven is found."""

from fractions import Fraction

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

from kernelsdp import tolerances as tol
from kernelsdp.certificate import conic_certificate, correction, perturbed, solve_canonical
from kernelsdp.certificate.cones import Block
from kernelsdp.certificate.normal_equations import (
    dense_or_sparse,
    ridged_solver,
    weighted_gram,
)


@pytest.mark.parametrize("shape", [(30, 8), (400, 60)])
def test_dense_and_sparse_normal_equations_agree(shape):
    rng = np.random.default_rng(3)
    A = sp.random(*shape, density=0.3, random_state=4, format="csr") + sp.eye(*shape)
    w = rng.uniform(0.5, 2.0, shape[0])
    r = rng.standard_normal(shape[1])
    dense = ridged_solver(weighted_gram(A.toarray(), w), 1e-14)(r)
    sparse = ridged_solver(weighted_gram(sp.csr_matrix(A), w), 1e-14)(r)
    assert np.allclose(dense, sparse, rtol=1e-9, atol=1e-12)
    assert isinstance(dense_or_sparse(A), np.ndarray) == (shape[0] * shape[1] <= 20_000)


def test_an_empty_column_makes_no_dense_solver():
    A = np.zeros((5, 3))
    A[:, :2] = np.arange(10.0).reshape(5, 2)
    assert ridged_solver(weighted_gram(A), 0.0) is None


@pytest.mark.parametrize("triangle,sqrt2", [("lower", True), ("upper", False)])
@pytest.mark.parametrize("side", [1, 4, 9, 30])
@pytest.mark.parametrize("small_side", [0, 24])
def test_the_interior_point_metric_of_a_psd_block_is_y_m_y(
    monkeypatch, triangle, sqrt2, side, small_side
):
    """Both paths of :func:`correction._psd_scaled` (all columns at once for a small block,
    one column on its support otherwise) give Y·mat(m)·Y, packed with the dual weights."""
    rng = np.random.default_rng(side)
    blk = Block("psd", 0, side * (side + 1) // 2, side=side, triangle=triangle, sqrt2=sqrt2)
    B = rng.standard_normal((side, side))
    Y = B @ B.T
    sub = rng.standard_normal((blk.size, 7))
    sub[np.abs(sub) < 1.0] = 0.0
    sub[:, 3] = 0.0  # an empty column
    monkeypatch.setattr(correction, "SMALL_SIDE", small_side)
    got = correction._psd_scaled(blk, Y, sub)
    a, b, w = blk.entry_map()
    w_dual = np.where(a == b, 1.0, w if sqrt2 else 2.0)
    for col in range(sub.shape[1]):
        want = (Y @ blk.matrix(sub[:, col]) @ Y)[a, b] * w_dual
        assert np.allclose(got[:, col], want, rtol=1e-12, atol=1e-12 * (1 + np.abs(want).max()))


def test_the_re_solve_is_capped_by_an_interior_point_solve_s_iterations():
    limits = perturbed.resolve_limits(0.01, 23, "clarabel")
    assert limits["max_iter"] == perturbed.RESOLVE_MIN_ITER
    assert perturbed.resolve_limits(0.01, 80, "CLARABEL")["max_iter"] == 160
    assert perturbed.resolve_limits(0.01, 500, "mosek")["max_iter"] == perturbed.CLARABEL_MAX_ITER
    # a first-order solver's count says nothing about Clarabel's: its own cap stays
    assert "max_iter" not in perturbed.resolve_limits(0.01, 4000, "scs")
    assert "max_iter" not in perturbed.resolve_limits(0.01, None, "clarabel")
    assert perturbed.resolve_limits(5.0, 20, "clarabel")["time_limit"] == 10.0


def test_an_unbounded_problem_s_feasible_point_is_proven_without_a_solve(monkeypatch):
    """min −x₀ s.t. [[x₀, x₁], [x₁, 1 + x₀]] ⪰ 0, x₁ ≥ −1: the ray (1, 0) and a strictly
    feasible central point; the shrunk re-solve is never reached."""
    x = cp.Variable(2)
    S = cp.bmat([[x[0], x[1]], [x[1], 1 + x[0]]])
    sol = solve_canonical(cp.Problem(cp.Minimize(-x[0]), [S >> 0, x[1] >= -1]), "CLARABEL")
    assert sol.status == "unbounded"

    def no_solve(*args, **kwargs):
        raise AssertionError("the central point should have been proven")

    monkeypatch.setattr(perturbed, "shrink_and_solve", no_solve)
    cert = conic_certificate(sol, tol.CERTIFY_TOL)
    assert cert.passed and "a feasible point" in cert.note and "not proven" not in cert.note


def test_a_dual_re_solve_shrinks_the_primal_too_where_it_can_have_an_interior():
    """The one re-solve that the dual needs also shrinks the primal (its point may tighten a
    proven but loose upper end: SDPLIB's control1, 18.06 → 17.79 against 17.78) — except
    where a cone row is 0 for every x, so no primal point is strictly feasible."""
    from kernelsdp.certificate.conic import _sides_to_shrink
    from kernelsdp.certificate.ends import End

    lo = End(0.0, "estimate", "block 0 (psd): its dual is outside K* by 1e-3")
    hi = End(1.0, "proof")
    x = cp.Variable(2)
    free = solve_canonical(
        cp.Problem(cp.Minimize(x[0]), [cp.bmat([[x[0], x[1]], [x[1], 1]]) >> 0]), "CLARABEL"
    )
    assert _sides_to_shrink(free.form, lo, hi, []) == (True, True)
    assert _sides_to_shrink(free.form, hi, hi, []) == (False, False)
    S = cp.bmat([[x[0], x[1], 0], [x[1], 1 + x[0], 0], [0, 0, 0]])
    fixed = solve_canonical(cp.Problem(cp.Minimize(x[0]), [S >> 0]), "CLARABEL")
    assert _sides_to_shrink(fixed.form, lo, hi, []) == (False, True)


@pytest.mark.parametrize("shape,dense", [((40, 12), True), ((3000, 90), False)])
def test_sigma_min_is_proven_just_below_its_value(shape, dense, monkeypatch):
    """The σ_min² that turns a stationarity residual into the dual's enclosure: proven
    within 1 % of the SVD's (what separates them is the rounding of MᵀM, γ_k·‖|M|ᵀ|M|‖,
    here up to 4e-5 of σ_min² as the columns span four decades), and never below what the
    ladder of shifts proves (at best half a rung: 2 to 10,000 times below on SDPLIB)."""
    from kernelsdp.certificate import membership

    rng = np.random.default_rng(5)
    M = sp.random(*shape, density=0.2, random_state=6, format="csr") + sp.eye(*shape)
    M = M @ sp.diags(10.0 ** rng.uniform(-3, 1, shape[1]))  # columns of mixed scale
    exact = np.linalg.svd(M.toarray(), compute_uv=False)[-1] ** 2
    r = membership.min_singular_bound(M)
    assert r.proof and exact * 0.99 <= r.lower <= exact
    assert isinstance(dense_or_sparse(M), np.ndarray) == dense
    monkeypatch.setattr(membership, "DENSE_SIGMA_MAX_N", -1)
    ladder = membership.min_singular_bound(M)
    assert ladder.proof and ladder.lower <= r.lower


def test_a_rank_deficient_matrix_gets_no_sigma_min_proof():
    from kernelsdp.certificate.membership import min_singular_bound

    M = np.arange(24.0).reshape(8, 3)  # column 2 = 2·column 1 − column 0
    r = min_singular_bound(sp.csr_matrix(M))
    assert not (r.proof and r.lower > 0)


def _row_map_block_by_block(form):
    """The map onto Clarabel's rows as it was built before: one sparse matrix per block
    (an identity, or T of one PSD block) and their ``block_diag``."""
    from cvxpy.utilities.psd_utils import tri_to_full

    pieces = []
    for blk in form.blocks:
        if blk.kind != "psd":
            pieces.append(sp.identity(blk.size, format="csr"))
            continue
        n = blk.side
        iu, ju = np.triu_indices(n)
        order = np.lexsort((iu, ju))
        iu, ju = iu[order], ju[order]
        k = np.arange(iu.size)
        if blk.triangle is None:
            w = np.where(iu == ju, 0.5, np.sqrt(2.0) / 2)
            entries = (
                np.concatenate([w, w]),
                (np.concatenate([k, k]), np.concatenate([iu + ju * n, ju + iu * n])),
            )
            pieces.append(sp.csr_matrix(entries, shape=(k.size, n * n)))
            continue
        marks = tri_to_full(np.arange(1.0, blk.size + 1), n, blk.triangle, False)
        cols = np.rint(marks[iu, ju]).astype(int) - 1
        w = np.where(iu == ju, 1.0, 1.0 if blk.sqrt2 else np.sqrt(2.0))
        pieces.append(sp.csr_matrix((w, (k, cols)), shape=(k.size, blk.size)))
    return sp.block_diag(pieces, format="csr")


@pytest.mark.parametrize("triangle,sqrt2", [("lower", True), ("upper", False), (None, False)])
def test_the_row_map_onto_clarabel_is_the_block_by_block_one(triangle, sqrt2):
    """The re-solve's map onto Clarabel's rows, built from all blocks' entries at once, is
    the block-by-block map bit for bit, and so is −T·A (zero, ℝ₊, second-order and PSD
    blocks of three sides, each layout)."""
    from kernelsdp.certificate.canonical import CanonicalForm

    blocks, start = [], 0
    for kind, size, side in [("zero", 3, 0), ("psd", 0, 3), ("nonneg", 4, 0), ("psd", 0, 1)]:
        if kind == "psd":
            size = side * side if triangle is None else side * (side + 1) // 2
        blocks.append(
            Block(
                kind,
                start,
                start + size,
                side=side,
                triangle=triangle if kind == "psd" else None,
                sqrt2=sqrt2,
            )
        )
        start += size
    blocks.append(Block("soc", start, start + 3))
    start += 3
    A = sp.random(start, 6, density=0.5, random_state=1, format="csr")
    form = CanonicalForm(np.ones(6), 0.0, A, np.zeros(start), blocks)
    T, _, A_cl = perturbed._clarabel_data(form)
    want = _row_map_block_by_block(form)
    assert T.shape == want.shape and abs(T - want).nnz == 0
    want_A = (-(want @ A)).tocsc()
    assert np.array_equal(A_cl.indptr, want_A.indptr) and np.array_equal(
        A_cl.indices, want_A.indices
    )
    assert np.array_equal(A_cl.data, want_A.data)


def _metric_one_column_at_a_time(blk, Y, sub):
    """The interior-point metric of one PSD block as it was computed before: one product
    Y[:, S]·mat(m)[S, S]·Y[S, :] per column m, S its support."""
    a, b, w = blk.entry_map()
    w_dual = np.where(a == b, 1.0, w if blk.sqrt2 else 2.0)
    S = sp.csc_matrix(sub)
    out = np.zeros(sub.shape)
    for col in range(S.shape[1]):
        rows = S.indices[S.indptr[col] : S.indptr[col + 1]]
        if rows.size == 0:
            continue
        vals = S.data[S.indptr[col] : S.indptr[col + 1]] / w[rows]
        support, where = np.unique(np.concatenate([a[rows], b[rows]]), return_inverse=True)
        ia, ib = where[: rows.size], where[rows.size :]
        M = np.zeros((support.size, support.size))
        M[ia, ib] = vals
        M[ib, ia] = vals
        Ys = Y[:, support]
        out[:, col] = (Ys @ M @ Ys.T)[a, b] * w_dual
    return out


@pytest.mark.parametrize("side", [5, 30])
def test_the_metric_s_stacked_columns_are_each_column_alone_bit_for_bit(side):
    """Columns whose supports have one size are multiplied as one stack: the same bits as
    one column at a time (supports of 1 to side entries, an empty column)."""
    rng = np.random.default_rng(side)
    blk = Block("psd", 0, side * (side + 1) // 2, side=side, triangle="upper", sqrt2=True)
    B = rng.standard_normal((side, side))
    sub = rng.standard_normal((blk.size, 40))
    sub[rng.uniform(size=sub.shape) < 0.9] = 0.0
    sub[:, 3] = 0.0
    sub[:, 5] = rng.standard_normal(blk.size)  # a full support
    got = correction._psd_scaled_columns(blk, B @ B.T, sub, correction._dual_weights(blk))
    assert np.array_equal(got, _metric_one_column_at_a_time(blk, B @ B.T, sub))


def test_small_blocks_of_one_layout_are_scaled_as_one_stack_bit_for_bit():
    """H⁻¹A of a form with six PSD blocks of side 3 (one stack), one of side 2, ℝ₊ and
    equality rows: each stacked block's rows are what the block alone gives."""
    from kernelsdp.certificate.canonical import CanonicalForm

    rng = np.random.default_rng(7)
    blocks, start = [Block("zero", 0, 2), Block("nonneg", 2, 5)], 5
    for side in (3, 3, 3, 2, 3, 3, 3):
        size = side * (side + 1) // 2
        blocks.append(Block("psd", start, start + size, side=side, triangle="lower", sqrt2=True))
        start += size
    A = sp.random(start, 9, density=0.3, random_state=8, format="csr")
    form = CanonicalForm(np.ones(9), 0.0, A, np.zeros(start), blocks)
    y = np.zeros(start)
    for blk in blocks[2:]:
        B = rng.standard_normal((blk.side, blk.side))
        y[blk.rows] = blk.vector(B @ B.T + np.eye(blk.side), dual=True)
    y[:5] = rng.uniform(1, 2, 5)
    got = correction._scaled_columns(form, y)
    y = np.ldexp(y, -np.frexp(np.max(np.abs(y)))[1])  # the power of two it divides by
    dense = A.toarray()
    for blk in blocks[2:]:
        Y = blk.matrix(y[blk.rows], dual=True)
        want = correction._psd_scaled_small(blk, Y, dense[blk.rows])
        assert np.array_equal(got[blk.rows], want)


@pytest.mark.parametrize("triangle", ["lower", None])
def test_blocks_raised_to_the_floor_as_a_stack_are_each_block_alone_bit_for_bit(triangle):
    """The metric correction's start: each dual block below the floor projected onto the
    shifted cone — small PSD blocks of one layout by stacked eigensolves, the same bits as
    :meth:`Block.project` one block at a time (and blocks above the floor untouched)."""
    from kernelsdp.certificate.canonical import CanonicalForm

    rng = np.random.default_rng(11)
    blocks, start = [Block("nonneg", 0, 3)], 3
    for side in (3, 3, 3, 3, 2):
        size = side * side if triangle is None else side * (side + 1) // 2
        blocks.append(Block("psd", start, start + size, side=side, triangle=triangle, sqrt2=True))
        start += size
    y = rng.standard_normal(start)
    y[blocks[2].rows] = blocks[2].vector(np.eye(3) * 5.0, dual=True)  # inside: untouched
    form = CanonicalForm(np.ones(2), 0.0, sp.csr_matrix((start, 2)), np.zeros(start), blocks)
    got = correction._raised_to_floor(form, y, 1e-3)
    want = y.copy()
    for blk in blocks:
        if blk.min_eig(y[blk.rows], dual=True) < 1e-3:
            want[blk.rows] = blk.project(y[blk.rows], 1e-3)
    assert np.array_equal(got, want)
    assert np.array_equal(got[blocks[2].rows], y[blocks[2].rows])


def test_rows_read_off_the_csr_arrays_are_what_sparse_slices_give():
    """Row maxima and each block's row norms read straight off A's CSR arrays (empty rows,
    a stored zero): the values ``abs(A).max(axis=1)`` and one sparse slice per block give,
    bit for bit for the rows; a whole block's norm is the same bound, summed in another
    order."""
    from kernelsdp.certificate.canonical import CanonicalForm
    from kernelsdp.certificate.ends import _piece_row_norms
    from kernelsdp.certificate.equilibrate import row_abs_max
    from kernelsdp.linalg.rounding import norm_up

    dense = sp.random(12, 5, density=0.4, random_state=3).toarray()
    dense[2] = 0.0  # an empty row
    A = sp.csr_matrix(dense)
    A.data[0] = 0.0  # a stored zero
    blocks = [
        Block("zero", 0, 3),
        Block("nonneg", 3, 6),
        Block("psd", 6, 12, side=3, triangle="lower"),
    ]
    form = CanonicalForm(np.ones(5), 0.0, A, np.zeros(12), blocks)
    assert np.array_equal(row_abs_max(A), np.asarray(abs(A).max(axis=1).todense()).ravel())
    got = _piece_row_norms(form)  # the pieces: the nonneg block's 3 rows, the PSD block
    sub = A[3:6]
    assert got.size == 4
    assert np.array_equal(
        got[:3], np.sqrt(np.asarray(sub.multiply(sub).sum(axis=1)).ravel()) * (1 + 1e-15)
    )
    exact = sum((Fraction(v) ** 2 for v in A[6:12].data), Fraction(0))
    assert Fraction(got[3]) ** 2 >= exact
    assert got[3] == pytest.approx(norm_up(A[6:12].data), rel=1e-14)


def test_blocks_held_inside_as_a_stack_are_each_block_alone_bit_for_bit():
    """The least-norm correction's hold of unbounded dual blocks: small PSD blocks of one
    layout as a stack — a bounded block and a frozen one left alone — the same y and
    frozen rows as :meth:`Block.project` one block at a time."""
    from kernelsdp.certificate.canonical import CanonicalForm

    rng = np.random.default_rng(12)
    blocks, start = [Block("nonneg", 0, 4)], 4
    for _ in range(5):
        blocks.append(Block("psd", start, start + 6, side=3, triangle="lower", sqrt2=True))
        start += 6
    form = CanonicalForm(np.ones(2), 0.0, sp.csr_matrix((start, 2)), np.zeros(start), blocks)
    yc, y = rng.standard_normal(start), np.zeros(start)
    frozen = np.zeros(start, dtype=bool)
    frozen[blocks[3].rows] = True
    bounds = {2: 1.0}
    got_y, got_frozen = y.copy(), frozen.copy()
    moved = correction._hold_inside(form, yc, (got_y, got_frozen), bounds, 1e-3)
    for j, blk in enumerate(blocks):
        v = yc[blk.rows]
        if blk.kind == "nonneg":
            low = blk.start + np.flatnonzero(v < 1e-3)
            y[low], frozen[low] = 1e-3, True
        elif j not in bounds and not frozen[blk.start] and blk.min_eig(v, dual=True) < 1e-3:
            y[blk.rows], frozen[blk.rows] = blk.project(v, 1e-3), True
    assert moved and np.array_equal(got_y, y) and np.array_equal(got_frozen, frozen)


def test_the_metric_reads_the_same_rows_from_a_sparse_a(monkeypatch):
    """Above the dense limits the metric reads A's rows sparse (stacked small blocks by
    row indices, a large block by its slice): the same H⁻¹A as from the dense A."""
    from kernelsdp.certificate import normal_equations
    from kernelsdp.certificate.canonical import CanonicalForm

    rng = np.random.default_rng(13)
    blocks, start = [Block("zero", 0, 2)], 2
    for side in (3, 3, 30):
        size = side * (side + 1) // 2
        blocks.append(Block("psd", start, start + size, side=side, triangle="upper", sqrt2=True))
        start += size
    A = sp.random(start, 40, density=0.1, random_state=14, format="csr")
    y = np.zeros(start)
    for blk in blocks[1:]:
        B = rng.standard_normal((blk.side, blk.side))
        y[blk.rows] = blk.vector(B @ B.T + np.eye(blk.side), dual=True)
    dense = correction._scaled_columns(
        CanonicalForm(np.ones(40), 0.0, A, np.zeros(start), blocks), y
    )
    monkeypatch.setattr(correction, "DENSE_ROWS_MAX_ENTRIES", 0)
    monkeypatch.setattr(normal_equations, "DENSE_MAX_ENTRIES", 0)
    form = CanonicalForm(np.ones(40), 0.0, A, np.zeros(start), blocks)
    assert np.array_equal(correction._scaled_columns(form, y), dense)
