"""The inner solver of the low-rank augmented Lagrangian (:mod:`.low_rank_alm`, issue #30):
minimise φ_ρ(V) = a·⟨V, LV⟩ + (1/s)·Σ_p e_p(B·z_p(V)) over ‖V‖_F ≤ 1 (the scaled
spectraplex tr K ≤ B of :mod:`.alm_problem`), after HALLaR's hybrid low-rank method
(Monteiro, Sujanani & Cifuentes, arXiv:2401.12490, §3):

- **accelerated projected gradient** on the factor at a fixed width (:func:`apg`): FISTA
  (Beck & Teboulle 2009) with backtracking on the step 1/ℓ (ℓ first shrunk by
  ``STEP_GROWTH`` each iteration, doubled while the sufficient-decrease test fails), the
  projection onto the ball a scaling, and O'Donoghue–Candès's function restart.  L·X is
  carried along, so L·Y at the extrapolated Y = X + θ(X − X₋) is a combination, not a
  product: one iteration is one product with L (at the candidate, for its value) and one
  with the pairs (at Y, for the gradient), plus the row gathers of the pair entries;
- **the Frank–Wolfe check** (:func:`fw_check`): the bottom of the spectrum of
  G = M(β̃) = ∇_K Φ outside the factor's span (LOBPCG, block ``BLOCK``, constrained
  orthogonal to V and warm-started from the last call's block, :func:`check_iterations`
  iterations: more as n grows; in the iterate's precision, the products with G in
  double), then Rayleigh–Ritz on [V, W], the lowest pair refined by the Lanczos
  recurrence from it (:mod:`.alm_vertex`: the coupling of V and W that the constrained
  block does not see): the FW vertex v, the Ritz value λ ≈ λ_min(G), the FW gap
  a·(⟨V, GV⟩ − min(λ, 0)) of the convex subproblem in K, and the dual estimate;
- **the Frank–Wolfe step** (:func:`fw_step`): K ← (1 − t)K + t·vvᵀ (scaled: the vertex is
  B·vvᵀ when λ < 0, else 0) with an exact line search on the convex scalar function
  φ((1 − t)K + t·vvᵀ) (each value O(m)); the width grows by one, plus the block's other
  vectors below the factor's own level −μ with a small weight (``SEED_WEIGHT``): the
  rank grows by Frank–Wolfe;
- **the thin SVD** (:func:`shrink`): V ← V·Q from the eigenvectors of VᵀV (double), the
  columns below ``SHRINK_RTOL`` of the largest dropped: the rank shrinks.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse.linalg as spla
from scipy.optimize import minimize_scalar

from ..linalg.row_blocks import on_threads
from . import alm_vertex
from .alm_problem import ScaledNPKL

#: the step's curvature estimate ℓ is multiplied by this before each iteration's test
STEP_GROWTH = 0.9
#: ℓ's floor (the scaled problem's curvature is O(1): a·‖L‖ + ρ-terms; on the ball's
#: boundary the test can pass at any ℓ, and a vanishing ℓ overflowed float32 steps) and
#: the backtracking's cap (a non-finite value fails the test; ℓ doubles past it)
ELL_MIN = 1e-3
MAX_BACKTRACKS = 60
#: above this ℓ (far beyond the scaled problem's curvature) a failed test is the iterate's
#: rounding: the test then allows 10 ulps of the value (float32 at n = 60 sent ℓ to 2⁶⁰ and
#: the steps to zero: 20,000 iterations without a certificate)
ELL_NOISE = 1e4
#: complement vectors the Frank–Wolfe check computes (LOBPCG's block)
BLOCK = 8
#: at or below this n the check is dense LAPACK on the projected M
DENSE_CHECK_N = 400
#: LOBPCG iterations of one check up to n = ``CHECK_GROWTH_FROM``, and its tolerance
#: (directions only); above that size :func:`check_iterations` adds as many again for each
#: factor ``CHECK_GROWTH_FACTOR`` of n (docs/npkl.md §7, twenty-sixth pass: a hub's pocket
#: on w nodes overlaps a start block that does not hold it by about √(w/n), and LOBPCG must
#: amplify that; six iterations were accurate at the tail of n = 3,000 and 20,000 and far
#: from it at 10⁶; with this rule the solver's hour at 10⁶ certified 6.86e-3 against
#: 1.94e-2, and n = 100,000 took 1-13 % fewer products at four seeds of five, 17 % more at
#: the fifth)
CHECK_ITERATIONS = 6
CHECK_GROWTH_FROM = 20_000
CHECK_GROWTH_FACTOR = 5.0
CHECK_TOL = 1e-3
#: the extra columns of a Frank–Wolfe step carry this share of ‖V‖² between them
SEED_WEIGHT = 1e-3
#: a single-precision inner product of at least this many entries runs as two halves of its
#: rows on two threads (:func:`_row_dots`; measured at n = 100,000, width 89: 1.7 ms against
#: 2.4 ms in one call)
THREADED_DOT_FROM = 1_000_000
#: a column whose squared singular value is below this share of the largest is dropped
SHRINK_RTOL = 1e-7
#: LOBPCG's constraints when the factor's own are dependent: directions of X whose squared
#: singular value is below this share of the largest are dropped (:func:`range_basis`)
RANGE_RTOL = 1e-12
#: single-precision rows cast to double at a time by :func:`gram_eigh` and :func:`rotated`
DOUBLE_ROWS = 65_536


@dataclass
class Point:
    """An iterate with what the next steps reuse: L·X, the pair entries B·z(X), φ(X)."""

    X: np.ndarray
    LX: np.ndarray
    w: np.ndarray
    value: float


def evaluate(
    prob: ScaledNPKL,
    X: np.ndarray,
    beta: np.ndarray,
    rho: float,
    LX: np.ndarray | None = None,
    takes: tuple[np.ndarray, np.ndarray] | None = None,
) -> Point:
    """φ_ρ at X (one product with L unless LX is given); ``takes``: two m×s arrays for the
    pair entries' row gathers (:meth:`.ScaledNPKL.pair_entries`), else fresh ones."""
    if LX is None:
        LX = prob.times_L(X, np.empty_like(X))
    w = prob.B * prob.pair_entries(X, takes)
    env, _ = prob.envelope(w, beta, rho)
    return Point(X, LX, w, prob.a * _dot(X, LX) + env / prob.scale)


def apg(
    prob: ScaledNPKL,
    pt: Point,
    beta: np.ndarray,
    rho: float,
    ell: float,
    max_iter: int,
    tol: float,
    deadline: float | None = None,
    keep_scratch: bool = False,
) -> tuple[Point, float, dict]:
    """FISTA with backtracking and restarts over ‖V‖_F ≤ 1 at a fixed width (module
    docstring) from ``pt``; stops after ``max_iter`` iterations, at the deadline, or when
    the gradient mapping's size ℓ·‖X⁺ − Y‖·‖X⁺‖ (a bound on the first-order decrease left)
    is at most ``tol``.  Returns (the last point, ℓ, counts).

    ``keep_scratch``: the candidates X⁺ and L·X⁺ go into two pairs of arrays made once
    for the call (the one that does not hold the current point; the other held the point
    before it, which only the extrapolation reads), and the pair entries' two m×s row
    gathers into two more, instead of fresh arrays at every value: the same arithmetic
    and the same peak (prev, cur and the candidate were alive together before too), with
    fewer first touches of fresh pages.  n = 10⁶, width 92–95: a fresh gather pair cost
    0.28–1.6 s a call against 0.23 s kept, and the pair entries were 104 s of a FISTA
    run's 176 s of rounds (docs/npkl.md §7, twenty-fourth pass)."""
    a, s = prob.a, prob.scale
    prev, cur = pt, pt
    tk, iters, backtracks, restarts, step = 1.0, 0, 0, 0, math.inf
    Y, LY, G, D = (np.empty_like(pt.X) for _ in range(4))
    takes, slots, free = None, None, 0
    if keep_scratch:
        takes = tuple(np.empty((prob.m, pt.X.shape[1]), dtype=pt.X.dtype) for _ in range(2))
        slots = [tuple(np.empty_like(pt.X) for _ in range(2)) for _ in range(2)]
    slack = 1e-12  # measured: 10·eps(float32) here took 2,020 iterations at n = 3,000 against 1,280
    while iters < max_iter and (deadline is None or time.perf_counter() < deadline):
        iters += 1
        tn = (1.0 + math.sqrt(1.0 + 4.0 * tk * tk)) / 2.0
        theta = (tk - 1.0) / tn
        _extrapolate(cur.X, prev.X, theta, Y)
        _extrapolate(cur.LX, prev.LX, theta, LY)
        wY = prob.B * prob.pair_entries(Y, takes)
        envY, bY = prob.envelope(wY, beta, rho)
        fY = a * _dot(Y, LY) + envY / s
        prob.set_multipliers(bY)
        prob.times_pairs(Y, G)
        G += LY
        G *= 2.0 * a
        ell = max(ell * STEP_GROWTH, ELL_MIN)
        for _ in range(MAX_BACKTRACKS):
            Xn, LXn = (None, None) if slots is None else slots[free]
            Xn = np.multiply(G, -1.0 / ell, out=Xn)
            Xn += Y
            xx = _project(Xn, norm=True)
            LXn = prob.times_L(Xn, np.empty_like(Xn) if LXn is None else LXn)
            new = evaluate(prob, Xn, beta, rho, LXn, takes)
            D = np.subtract(Xn, Y, out=D)
            dd = _dot(D, D)
            noise = slack if ell < ELL_NOISE else 10.0 * np.finfo(Xn.dtype).eps
            if new.value <= fY + _dot(G, D) + 0.5 * ell * dd + noise * abs(fY):
                break
            ell *= 2.0
            backtracks += 1
        step = ell * math.sqrt(dd * xx)
        if new.value > cur.value:  # function restart
            tn, restarts = 1.0, restarts + 1
        prev, cur, tk, free = cur, new, tn, 1 - free
        if step <= tol:
            break
    return (
        cur,
        ell,
        {"iterations": iters, "backtracks": backtracks, "restarts": restarts, "stationarity": step},
    )


@dataclass
class Check:
    """What one Frank–Wolfe check found at a point (scaled units; see :func:`fw_check`)."""

    beta_tilde: np.ndarray
    lam: float  # Ritz value ≈ λ_min(M(β̃)) (an upper estimate of it)
    vertex: np.ndarray  # unit FW vector
    block: np.ndarray  # complement vectors (next warm start)
    block_values: np.ndarray
    level: float  # −μ: V's own Rayleigh level ⟨V, GV⟩/‖V‖²
    primal: float  # P(K)/s
    dual_estimate: float  # D(β̃)/s with the Ritz value
    fw_gap: float  # a·(⟨V, GV⟩ − min(λ, 0))
    fy_gap: float  # Fenchel–Young part: P − D = fw_gap + fy_gap
    eig_products: int


def fw_check(
    prob: ScaledNPKL, pt: Point, beta: np.ndarray, rho: float, warm: np.ndarray | None, seed: int
) -> Check:
    """The FW check at ``pt`` (module docstring).  LOBPCG in the iterate's precision (its
    constraints an orthonormal basis of span V in single, :func:`range_basis`), the
    products with M, the Rayleigh–Ritz pencil and the vertex in double."""
    X, n = pt.X, prob.n
    _, bt = prob.envelope(pt.w, beta, rho)
    M = prob.dual_matrix(bt)
    s = X.shape[1]
    k = min(BLOCK, n - s - 1)
    W0 = _start_block(n, k, warm, seed, X.dtype)
    W, theta, products = _complement(M, W0, X, prob.dual_operator())
    # [V, W] in double, V's columns cast into place (no separate double copy of V)
    Q = np.empty((n, s + W.shape[1]))
    Q[:, :s], Q[:, s:] = X, W
    GQ = prob.dual_times(Q)  # G·V and G·W in one product (each column as alone, bit for bit)
    GX = GQ[:, :s]
    try:
        ev, C = ritz_pairs(Q, GQ)
    except (np.linalg.LinAlgError, ValueError):
        ev, C = theta[:1], np.eye(Q.shape[1])[:, s : s + 1]
    v = Q @ C[:, 0]
    v /= np.linalg.norm(v)
    lam = float(ev[0])
    a, sc = prob.a, prob.scale
    primal = a * _dot(X, pt.LX) + prob.loss_value(pt.w) / sc
    if refines_vertex(n):  # V, W coupled: .alm_vertex
        tol = alm_vertex.RTOL * max(abs(primal), 1e-300) / a
        lam, v, refine = alm_vertex.refined_vertex(prob.dual_operator(), v, lam, tol)
        products += refine
    vv = _dot(X, X)
    # ⟨V, G·V⟩ over contiguous arrays (by BLAS in double, row by row in single: _dot);
    # G·V's columns (a strided slice) are copied into Q's own memory, which is not read
    # again, where ravel made a fresh n×s array (n = 10⁶, s = 95: 1.7 s of a 13.5 s check)
    GX_flat = Q.reshape(-1)[: GX.size].reshape(GX.shape)
    np.copyto(GX_flat, GX)
    vgv = _dot(X, GX_flat)
    dual = a * min(lam, 0.0) - prob.conjugate_sum(bt) / sc
    fw = a * (vgv - min(lam, 0.0))
    fy = prob.fenchel_young(pt.w, bt) / sc
    return Check(
        bt,
        lam,
        v,
        W,
        theta,
        vgv / vv if vv > 0 else 0.0,
        primal,
        dual,
        fw,
        fy,
        products + s + k,
    )


def ritz_pairs(Q: np.ndarray, GQ: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rayleigh–Ritz of G on span Q given G·Q: the pencil (QᵀGQ, QᵀQ), the Gram matrix
    lifted by 1e-14 of its mean diagonal (Q's columns can be nearly dependent)."""
    H = Q.T @ GQ
    S = Q.T @ Q
    H = (H + H.T) / 2
    return sla.eigh(H, S + 1e-14 * np.trace(S) / max(S.shape[0], 1) * np.eye(S.shape[0]))


def refines_vertex(n: int) -> bool:
    """Whether the check at this n refines its vertex (:mod:`.alm_vertex`): from
    ``REFINE_FROM`` on, and never where the check is dense (its pair is exact there)."""
    return n >= max(alm_vertex.REFINE_FROM, DENSE_CHECK_N + 1)


def _start_block(
    n: int, k: int, warm: np.ndarray | None, seed: int, dtype=np.float64
) -> np.ndarray:
    """LOBPCG's start in ``dtype``: the last check's block, its missing columns drawn (the
    draw of all k columns, whose warm ones are overwritten: skipped when the warm block is
    whole)."""
    if warm is not None and 0 <= k <= warm.shape[1]:
        return np.array(warm[:, :k], dtype=dtype, order="C")
    W0 = np.random.default_rng(seed).standard_normal((n, k))
    if warm is not None and warm.shape[1]:
        W0[:, : warm.shape[1]] = warm
    return W0.astype(dtype, copy=False)


def _complement(M, W0: np.ndarray, X: np.ndarray, op=None) -> tuple[np.ndarray, np.ndarray, int]:
    """The lowest eigenpairs of M orthogonal to span(X), and the columns multiplied by M:
    LOBPCG's block (directions) in W₀'s precision, or dense LAPACK on the projected M for
    small n (LOBPCG refuses constraints there); ``op`` multiplies by M for LOBPCG (M itself
    when not given).  In single precision the constraints are :func:`range_basis` (SciPy
    factors their Gram in single, which X's own, its condition up to 1/``SHRINK_RTOL``,
    would fail)."""
    n, k = W0.shape
    if n <= DENSE_CHECK_N or n < 5 * (k + X.shape[1]):
        X = np.asarray(X, dtype=np.float64)
        Q = np.linalg.qr(X)[0] if X.shape[1] else np.zeros((n, 0))
        P = np.eye(n) - Q @ Q.T
        w, V = np.linalg.eigh(P @ (M.toarray() @ P))
        keep = np.flatnonzero(np.abs(Q.T @ V).sum(axis=0) < 0.5)[:k]  # off span X
        return V[:, keep], w[keep], n
    times = counted_operator(M if op is None else op, n, W0.dtype)
    if W0.dtype == np.float64:
        Y, W0 = X, off_span(X, W0)
    else:
        Y = range_basis(X)
        W0 = W0 - Y @ (Y.T @ W0)  # Y orthonormal: no Gram
    try:
        theta, W = _lobpcg(times, W0, Y)
    except ValueError:
        # LOBPCG refuses linearly dependent constraints (X's Gram singular) or starts (the
        # warm block's vectors, seeded into X by the last Frank–Wolfe step, lie in span X):
        # again with an orthonormal basis of span X and a fresh random start
        W0 = np.random.default_rng(n).standard_normal((n, k)).astype(W0.dtype)
        try:
            theta, W = _lobpcg(times, W0, range_basis(X) if Y is X else Y)
        except ValueError:
            if Y is X:
                raise
            theta = np.full(k, np.nan)
    if W0.dtype != np.float64 and not np.all(np.isfinite(theta)):
        # single precision broke down (or its retry was refused): the check again in double
        W, theta, more = _complement(M, W0.astype(np.float64), X.astype(np.float64), op)
        return W, theta, times.columns + more
    order = np.argsort(theta)
    return W[:, order], theta[order], times.columns


def counted_operator(A, n: int, dtype) -> spla.LinearOperator:
    """A (a matrix or an operator, its product in double) as LOBPCG's operator in ``dtype``
    (the check's and the spectral start's), counting the columns it multiplies
    (``.columns``: SciPy's LOBPCG also multiplies its start and its last Rayleigh–Ritz
    block, so a formula from the iteration count was low)."""

    def times(Y: np.ndarray) -> np.ndarray:
        op.columns += Y.shape[1]
        return np.asarray(A @ Y).astype(dtype, copy=False)

    op = spla.LinearOperator(
        (n, n), matvec=lambda x: times(x.reshape(-1, 1)).ravel(), matmat=times, dtype=dtype
    )
    op.columns = 0
    return op


def off_span(X: np.ndarray, W: np.ndarray) -> np.ndarray:
    """W with its part in span X removed, by the normal equations (O(n·s·k), not lstsq's
    O(n·s²)); W itself where X has no columns."""
    if not X.shape[1]:
        return W
    gram = X.T @ X
    return W - X @ np.linalg.solve(gram + 1e-12 * np.trace(gram) * np.eye(gram.shape[0]), X.T @ W)


def check_iterations(n: int) -> int:
    """LOBPCG iterations of one check at size n: ``CHECK_ITERATIONS`` up to
    ``CHECK_GROWTH_FROM``, then as many again per factor ``CHECK_GROWTH_FACTOR`` of n
    (12 at n = 100,000, 21 at 10⁶): the iterations needed to find a localised direction
    grow with log n."""
    growth = math.log(max(n, CHECK_GROWTH_FROM) / CHECK_GROWTH_FROM) / math.log(CHECK_GROWTH_FACTOR)
    return round(CHECK_ITERATIONS * (1.0 + growth))


def _lobpcg(op, W0: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spla.lobpcg(
            op,
            W0,
            Y=Y if Y.shape[1] else None,
            largest=False,
            maxiter=check_iterations(W0.shape[0]),
            tol=CHECK_TOL,
        )


def range_basis(X: np.ndarray) -> np.ndarray:
    """An orthonormal basis of span X (X's dtype, computed in double: :func:`gram_eigh`,
    :func:`rotated`), the directions whose squared singular value is below ``RANGE_RTOL``
    of the largest dropped.  LOBPCG's constraints must have a Cholesky-factorable Gram, and
    the factor's columns can be exactly dependent: the Newton steps move [V; σ] on its
    sphere, and V alone loses a rank where the slack row σ carries it (n = 3,000 in double:
    XᵀX's least eigenvalue −1e-18 of 0.44, width 46 — LOBPCG raised and the solve crashed).
    The directions dropped are below the check's tolerance; the Rayleigh–Ritz pencil that
    follows still uses X itself."""
    ev, Q = gram_eigh(X)
    keep = ev > RANGE_RTOL * max(ev[-1], 1e-300) if len(ev) else np.zeros(0, dtype=bool)
    return rotated(X, Q[:, keep] / np.sqrt(ev[keep]))


def fw_step(prob: ScaledNPKL, pt: Point, chk: Check, beta: np.ndarray, rho: float) -> np.ndarray:
    """The Frank–Wolfe step with exact line search, plus the block's vectors below V's own
    level as small seed columns (module docstring); returns the new factor V."""
    X, a, s = pt.X, prob.a, prob.scale
    v = chk.vertex if chk.lam < 0 else np.zeros(prob.n)
    lap_x = _dot(X, pt.LX) if X.shape[1] else 0.0
    lap_v = float(v @ (prob.L.astype(np.float64) @ v))
    wv = prob.B * prob.outer_entries(v)

    def phi(t: float) -> float:
        env, _ = prob.envelope((1 - t) * pt.w + t * wv, beta, rho)
        return a * ((1 - t) * lap_x + t * lap_v) + env / s

    t = exact_step(phi, 1e-8)
    seeds = chk.block[:, below_level(chk)]
    add = int(t > 0 and chk.lam < 0)
    # V = [√(1−t)·X, √t·v, the seeds] written in the iterate's dtype (no double copy of X)
    width = X.shape[1]
    V = np.empty((prob.n, width + add + seeds.shape[1]), dtype=prob.dtype)
    np.multiply(X, math.sqrt(1.0 - t), out=V[:, :width], casting="unsafe")
    if add:
        V[:, width] = math.sqrt(t) * v
    if seeds.shape[1]:
        total = max(_dot(X, X), 1e-12)
        V[:, width + add :] = seeds * math.sqrt(SEED_WEIGHT * total / seeds.shape[1])
    return _project(V)


def exact_step(phi, xatol: float) -> float:
    """The Frank–Wolfe step's exact line search: t in [0, 1] minimising ``phi`` (bounded
    Brent, to ``xatol``), or 0 where that t raises phi above phi(0)."""
    t = float(minimize_scalar(phi, bounds=(0.0, 1.0), method="bounded", options={"xatol": xatol}).x)
    return 0.0 if phi(t) > phi(0.0) else t


def below_level(chk: Check) -> np.ndarray:
    """Which of the check's block vectors lie below V's own level and below 0: the seed
    columns a Frank–Wolfe step adds (all of them: the block was saturated)."""
    return chk.block_values < min(chk.level, 0.0)


def participation(v: np.ndarray) -> float:
    """The participation ratio (Σ v_i²)² / Σ v_i⁴ of a vector: how many of its entries carry
    it — n for a constant vector, 1 for a coordinate vector.  The check records it for the
    vertex: a few nodes out of n mark a localised direction of negative curvature."""
    v = np.asarray(v, dtype=np.float64)
    sq = v * v
    quartic = float(np.dot(sq, sq))
    return float(np.sum(sq)) ** 2 / quartic if quartic > 0 else 0.0


def gram_eigh(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the eigenvalues of XᵀX ascending, their eigenvectors), XᵀX in double: the thin
    SVD that :func:`shrink`, :func:`range_basis` and :func:`.alm_start.retire` truncate.
    Single-precision rows are cast ``DOUBLE_ROWS`` at a time (no n×s double copy: at 10⁶,
    width 150, the copy and its first touch were 1.2 GB and half of a 4.4 s shrink)."""
    if X.dtype == np.float64:
        G = X.T @ X
    else:
        G = np.zeros((X.shape[1], X.shape[1]))
        for rows in _row_chunks(X.shape[0]):
            c = X[rows].astype(np.float64)
            G += c.T @ c
    return np.linalg.eigh(G)


def rotated(X: np.ndarray, T: np.ndarray) -> np.ndarray:
    """X·T in X's dtype, the product in double (single-precision rows cast ``DOUBLE_ROWS``
    at a time, as :func:`gram_eigh`)."""
    if X.dtype == np.float64:
        return X @ T
    out = np.empty((X.shape[0], T.shape[1]), dtype=X.dtype)
    for rows in _row_chunks(X.shape[0]):
        out[rows] = X[rows].astype(np.float64) @ T
    return out


def _row_chunks(n: int):
    """Slices of ``DOUBLE_ROWS`` rows covering 0..n."""
    return (slice(lo, lo + DOUBLE_ROWS) for lo in range(0, n, DOUBLE_ROWS))


def shrink(X: np.ndarray, cap: int) -> np.ndarray:
    """The thin SVD of X from the eigenvectors of XᵀX (double): columns below
    ``SHRINK_RTOL`` of the largest dropped, at most ``cap`` kept."""
    if X.shape[1] == 0:
        return X
    ev, Q = gram_eigh(X)
    keep = np.flatnonzero(ev > SHRINK_RTOL * max(ev[-1], 1e-300))[::-1][:cap]
    return rotated(X, Q[:, keep])


# ----- small helpers --------------------------------------------------------------------
def _dot(A: np.ndarray, B: np.ndarray) -> float:
    """⟨A, B⟩ accumulated in double (a float32 BLAS dot over 10⁷ entries loses the digits
    that the backtracking test compares)."""
    if A.dtype == np.float64 and B.dtype == np.float64:
        return float(np.dot(A.ravel(), B.ravel()))
    if A.ndim == 2:  # row by row in the arrays' precision (a few hundred terms), then double
        return float(_row_dots(A, B).sum(dtype=np.float64))
    return float(np.einsum("i,i->", A, B, dtype=np.float64))


def _row_dots(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """⟨A_i, B_i⟩ for every row, in the arrays' precision; from ``THREADED_DOT_FROM``
    entries the two halves of the rows on two threads (einsum releases the GIL), each row's
    sum the same as in one call, so the double sum over them is bit for bit the same."""
    n = A.shape[0]
    if A.size < THREADED_DOT_FROM or n < 2:
        return np.einsum("ij,ij->i", A, B)
    out = np.empty(n, dtype=np.result_type(A.dtype, B.dtype))
    halves = (slice(0, n // 2), slice(n // 2, n))
    on_threads([lambda h=h: np.einsum("ij,ij->i", A[h], B[h], out=out[h]) for h in halves])
    return out


def _extrapolate(X: np.ndarray, Xo: np.ndarray, theta: float, out: np.ndarray) -> None:
    np.subtract(X, Xo, out=out)
    out *= theta
    out += X


def _project(X: np.ndarray, norm: bool = False):
    """Onto ‖X‖_F ≤ 1, in place (``norm``: also return ‖X‖²_F after it)."""
    s = _dot(X, X)
    if s > 1.0:
        X *= 1.0 / math.sqrt(s)
        s = 1.0
    return s if norm else X
