"""Verified lower bounds on λ_min of a symmetric matrix: the one place a certificate's
eigenvalue becomes a proof.

**The test** (after Rump, "Verification of positive definiteness", BIT 46, 2006, and the
residual form of Higham §10.1): pick a shift μ just below an estimate of λ_min(A), factor
A − μI ≈ L D Lᵀ in floating point — any factorisation will do — and compute the residual
R = (A − μI) − L D Lᵀ.  When D ≥ 0, the *exact* product L D Lᵀ of the stored factors is
positive semidefinite, so by Weyl's inequality

    λ_min(A) ≥ μ − ‖R_exact‖₂ ≥ μ − ‖ |fl(R)| + γ_{k+3}(|A − μI| + |L||D||Lᵀ| + |fl(R)|) ‖_∞,

where k is the longest dot product in L D Lᵀ (Higham eq. 3.5; :mod:`.rounding`), and the
∞-norm of a symmetric matrix bounds its 2-norm.  Nothing in the proof trusts the
factorisation's own rounding: only the residual is analysed, so LAPACK's blocked Cholesky
and qdldl's sparse LDLᵀ serve alike.  ``extra`` adds the caller's bound on ‖A_true − A‖₂
(the matrix the caller holds may itself be rounded, e.g. s = Ax + b).

- sparse, ``DENSE_SPARSE_SWITCH`` < n ≤ ``SPARSE_VERIFY_MAX_N``: qdldl's LDLᵀ with AMD
  ordering (``method='ldlt'``), refused when the factor holds more than
  ``SPARSE_VERIFY_MAX_FILL`` nonzeros per row;
- dense (or sparse whose LDLᵀ was refused), n ≤ ``DENSE_VERIFY_MAX_N``: LAPACK's Cholesky
  of A − μI (``'cholesky'``);
- otherwise, or when every shift fails: the estimate, labelled as such (``proof=False``,
  with the reason in ``note``).

The shift is the estimate less a margin η that starts at the size of the rounding bound
and grows ×64 up to ``SHIFT_TRIES`` times; ``at_least`` asks only whether λ_min ≥ at_least
(a cone membership test), which the midpoint shift answers in one factorisation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .rounding import UNIT_ROUNDOFF, abs_row_sum_max, down, down_each, gamma, up, up_each

#: at or below this side a dense matrix is verified by LAPACK's Cholesky (n³/3 flops)
DENSE_VERIFY_MAX_N = 4000
#: sparse matrices up to this side are tried by LDLᵀ (measured on NPKL's M(β), 5-NN graph
#: of 10-D two-Gaussian data: fill 47, 129, 425 a row and 0.02, 0.32, 27.9 s at n = 1,000,
#: 3,000, 10,000 — the kNN graph of 10-D data is an expander: its fill grows fast)
SPARSE_VERIFY_MAX_N = 12_000
#: above this side a sparse matrix tries LDLᵀ before the dense Cholesky
DENSE_SPARSE_SWITCH = 400
#: ... unless the factor's fill exceeds this many nonzeros per row (memory: 12 bytes each)
SPARSE_VERIFY_MAX_FILL = 400
#: shifts tried before giving up
SHIFT_TRIES = 4


@dataclass(frozen=True)
class VerifiedEig:
    """A lower bound on λ_min: a proof when ``proof``, else an estimate (``note`` says why)."""

    lower: float
    proof: bool
    method: str
    note: str = ""
    estimate: float = math.nan


def _symmetric(A):
    """(A, extra): A itself when exactly symmetric, else its symmetric part and the bound
    on the rounding of (A + Aᵀ)/2."""
    if sp.issparse(A):
        A = sp.csr_matrix(A, dtype=float)
        if (A != A.T).nnz == 0:
            return A, 0.0
        S = ((A + A.T) * 0.5).tocsr()
        return S, up(UNIT_ROUNDOFF * abs_row_sum_max(S))
    A = np.asarray(A, dtype=float)
    if np.array_equal(A, A.T):
        return A, 0.0
    S = (A + A.T) * 0.5
    return S, up(UNIT_ROUNDOFF * abs_row_sum_max(S))


def _nonzero_rows(A) -> np.ndarray:
    """Indices of the rows of A with a nonzero entry (a zero row of a symmetric matrix is a
    zero column: its eigenvalue 0 is exact)."""
    if sp.issparse(A):
        return np.flatnonzero(np.asarray(abs(A).sum(axis=1)).ravel() > 0)
    return np.flatnonzero(np.any(A != 0, axis=1))


def _dense_residual_bound(A: np.ndarray, mu: float) -> float | None:
    """‖(A − μI) − LLᵀ‖₂ bounded from above, or None when Cholesky fails."""
    n = A.shape[0]
    S = A - mu * np.eye(n)
    try:
        L = np.linalg.cholesky(S)
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(L)):
        return None
    R = S - L @ L.T
    absL = np.abs(L)
    rows = (
        np.abs(R).sum(axis=1) * (1 + gamma(n))
        + gamma(n + 3)
        * (np.abs(S).sum(axis=1) + absL @ (absL.T @ np.ones(n)) + np.abs(R).sum(axis=1))
        * (1 + gamma(n)) ** 2
    )
    return up(float(np.max(rows)))


def _sparse_residual_bound(A: sp.csr_matrix, mu: float) -> tuple[float | None, str]:
    """The same for a sparse A, by qdldl's LDLᵀ (AMD order); (None, why) on failure."""
    import qdldl

    n = A.shape[0]
    S = (A - mu * sp.identity(n, format="csr")).tocsc()
    try:
        F = qdldl.Solver(sp.triu(S, format="csc"))
        L, D, p = F.factors()
    except Exception as exc:  # a zero pivot: not positive definite at this shift
        return None, f"LDLᵀ failed ({type(exc).__name__})"
    if L.nnz > SPARSE_VERIFY_MAX_FILL * n:
        return None, f"LDLᵀ fill {L.nnz / n:.0f} per row > {SPARSE_VERIFY_MAX_FILL}"
    if not (np.all(D > 0) and np.all(np.isfinite(D)) and np.all(np.isfinite(L.data))):
        return None, "a pivot of LDLᵀ is not positive"
    Lf = (sp.identity(n, format="csc") + L).tocsc()
    Sp = S[p][:, p].tocsc()
    R = (Sp - Lf @ sp.diags(D) @ Lf.T).tocsr()
    absL = abs(Lf)
    k = int(np.max(np.diff(Lf.tocsr().indptr), initial=1)) + 1
    absR = np.asarray(abs(R).sum(axis=1)).ravel()
    absS = np.asarray(abs(Sp).sum(axis=1)).ravel()
    LDL = absL @ (D * (absL.T @ np.ones(n)))
    kk = max(k, int(np.max(np.diff(R.indptr), initial=1)))
    rows = absR * (1 + gamma(kk)) + gamma(k + 3) * (absS + LDL + absR) * (1 + gamma(kk)) ** 2
    return up(float(np.max(rows))), ""


def _estimate(A) -> float:
    """λ_min: dense LAPACK up to ``linalg.extreme.DENSE_MAX_N``, Lanczos above (its value is
    only the shift's starting point: a wrong one costs tightness, never validity)."""
    from .extreme import DENSE_MAX_N, extreme_eigenvalue

    if sp.issparse(A):
        if A.shape[0] <= DENSE_MAX_N:
            return float(np.linalg.eigvalsh(A.toarray())[0])
        return extreme_eigenvalue(A, "SA").value
    return float(np.linalg.eigvalsh(A)[0])


def _shifts(est: float, scale: float, n: int, at_least: float | None) -> list[float]:
    """Shifts to try, best first: the midpoint towards ``at_least``, then est − η·64^t."""
    out = []
    if at_least is not None and est > at_least:
        out.append(at_least + (est - at_least) / 2)
    eta = max(gamma(n + 3) * scale * 4, abs(est) * 1e-12, 1e-300)
    out += [est - eta * 64.0**t for t in range(SHIFT_TRIES)]
    return out


def verified_min_eig(
    A, extra=0.0, estimate: float | None = None, at_least: float | None = None
) -> VerifiedEig:
    """A lower bound on λ_min of the symmetric matrix A (dense or sparse), proven when it
    can be (see the module docstring), for every matrix A + E with ‖E‖₂ ≤ ``extra`` (a
    float) or |E| ≤ ``extra`` entrywise (a dense array: then exact zero rows of both are
    set aside exactly).

    ``estimate``: the caller's λ_min estimate (saves an eigensolve); ``at_least``: stop
    at the first bound ≥ at_least (a membership test)."""
    A, sym_extra = _symmetric(A)
    n = A.shape[0]
    if n == 0:
        return VerifiedEig(math.inf, True, "empty", estimate=math.inf)
    if not np.isscalar(extra):  # an entrywise bound |E| ≤ extra: rows zero in both A and E
        Emat = np.abs(np.asarray(extra, dtype=float))  # are exact zero rows of A + E
        live = np.union1d(_nonzero_rows(A), _nonzero_rows(Emat))
        if live.size < n:
            sub = A[live][:, live] if sp.issparse(A) else A[np.ix_(live, live)]
            r = verified_min_eig(sub, Emat[np.ix_(live, live)], None, at_least)
            return VerifiedEig(min(r.lower, 0.0), r.proof, r.method, r.note, min(r.estimate, 0.0))
        extra = abs_row_sum_max(Emat)
    live = _nonzero_rows(A)
    if live.size < n:  # exact zero rows: λ_min(A) = min(0, λ_min of the rest), exactly
        all_extra = float(extra) + sym_extra
        zero = 0.0 if all_extra == 0 else down(-up(all_extra))
        if live.size == 0:
            return VerifiedEig(zero, True, "zero", estimate=0.0)
        sub = A[live][:, live] if sp.issparse(A) else A[np.ix_(live, live)]
        r = verified_min_eig(sub, all_extra, None, at_least)
        return VerifiedEig(min(r.lower, zero), r.proof, r.method, r.note, min(r.estimate, 0.0))
    extra = float(extra) + sym_extra
    scale = abs_row_sum_max(A)
    if not math.isfinite(scale):
        return VerifiedEig(-math.inf, False, "none", "the matrix has a non-finite entry")
    sparse_ok = sp.issparse(A) and n <= SPARSE_VERIFY_MAX_N
    dense_ok = n <= DENSE_VERIFY_MAX_N
    est = _estimate(A) if estimate is None else float(estimate)
    if not (sparse_ok or dense_ok):
        return VerifiedEig(
            est,
            False,
            "estimate",
            f"n = {n:,} above the verified limits (dense "
            f"{DENSE_VERIFY_MAX_N:,}, sparse {SPARSE_VERIFY_MAX_N:,})",
            est,
        )
    if not math.isfinite(est):
        return VerifiedEig(-math.inf, False, "none", "no finite estimate of λ_min")
    shifts = _shifts(est, scale, n, at_least)
    why = "Cholesky of A − μI failed at every shift"
    if sparse_ok and n > DENSE_SPARSE_SWITCH:  # sparse LDLᵀ first, dense only if its fill
        for mu in shifts:  # is refused and n is small enough
            err, why = _sparse_residual_bound(A, mu)
            if err is not None:
                return VerifiedEig(down(mu - up(err + extra)), True, "ldlt", estimate=est)
            if "fill" in why:
                break
        if not dense_ok:
            return VerifiedEig(down(est - up(extra)), False, "estimate", why, est)
    D = A.toarray() if sp.issparse(A) else A
    for mu in shifts:
        err = _dense_residual_bound(D, mu)
        if err is not None:
            return VerifiedEig(down(mu - up(err + extra)), True, "cholesky", estimate=est)
    return VerifiedEig(down(est - up(extra)), False, "estimate", why, est)


def verified_psd(A, extra: float = 0.0, estimate: float | None = None) -> VerifiedEig:
    """Is A (+ E, ‖E‖₂ ≤ extra) positive semidefinite?  ``proof and lower >= 0`` says yes."""
    return verified_min_eig(A, extra, estimate, at_least=0.0)


@dataclass(frozen=True)
class StackedEig:
    """:class:`VerifiedEig` of each matrix of a stack, as arrays (one entry per matrix), the
    reasons kept only where there is no proof."""

    lower: np.ndarray
    proof: np.ndarray
    notes: dict[int, str]


def verified_min_eig_stack(Ms: np.ndarray, Es: np.ndarray, at_least=None) -> StackedEig:
    """:func:`verified_min_eig` of each matrix of the stack Ms (k, n, n), with the entrywise
    error bounds Es (k, n, n) and ``at_least`` (None, or one value per matrix, NaN for none):
    the same estimate, first shift, Cholesky and residual bound per matrix, the small dense
    factorisations of a stack done together (k calls of Python overhead become one).

    Matrices outside this path — not exactly symmetric, a zero row, a non-finite entry, n
    above ``DENSE_SPARSE_SWITCH``, or a Cholesky that fails at the first shift — take
    :func:`verified_min_eig` itself; every entry of the result is that function's answer
    or one proven the same way."""
    Ms, Es = np.asarray(Ms, dtype=float), np.abs(np.asarray(Es, dtype=float))
    k, n = Ms.shape[0], Ms.shape[1]
    goal = np.full(k, np.nan) if at_least is None else np.asarray(at_least, dtype=float)
    plain = (  # the arrays' own reductions: np.all's dispatch cost more than 3×3 blocks
        (Ms == Ms.transpose(0, 2, 1)).all(axis=(1, 2))
        & (Ms != 0).any(axis=2).all(axis=1)
        & np.isfinite(Ms).all(axis=(1, 2))
        & np.isfinite(Es).all(axis=(1, 2))
    )
    if n > DENSE_SPARSE_SWITCH or n == 0:
        plain[:] = False
    lower, proof, notes = np.full(k, np.nan), np.zeros(k, dtype=bool), {}
    idx = np.flatnonzero(plain)
    if idx.size:
        found, good = _stack_first_shift(Ms[idx], Es[idx], goal[idx])
        lower[idx[good]], proof[idx[good]] = found[good], True
    for i in np.flatnonzero(~proof):
        g = None if np.isnan(goal[i]) else float(goal[i])
        r = verified_min_eig(Ms[i], Es[i], None, g)
        lower[i], proof[i] = r.lower, r.proof
        if not r.proof:
            notes[int(i)] = r.note
    return StackedEig(lower, proof, notes)


def _row_sum_max_up(M: np.ndarray) -> np.ndarray:
    """:func:`.rounding.abs_row_sum_max` of each matrix of a stack."""
    n = M.shape[2]
    rows = np.abs(M).sum(axis=2).max(axis=1)
    return np.where(rows == 0, 0.0, up_each(rows * (1.0 + gamma(max(n, 1)))))


def _stack_first_shift(Ms: np.ndarray, Es: np.ndarray, goal: np.ndarray):
    """(lower, good): each matrix's bound proven at its first shift, and where it was."""
    n, k = Ms.shape[1], Ms.shape[0]
    extra, scale = _row_sum_max_up(np.concatenate([Es, Ms])).reshape(2, k)  # one pass
    est = np.linalg.eigvalsh(Ms)[:, 0]
    mu = _first_shifts(est, scale, n, goal)
    S = Ms - mu[:, None, None] * np.eye(n)
    L, ok = _cholesky_each(S)
    R = S - L @ L.transpose(0, 2, 1)
    absL = np.abs(L)
    absR = np.abs(R).sum(axis=2)
    LL = np.einsum("kij,kj->ki", absL, absL.sum(axis=1))
    g1, g3 = gamma(n), gamma(n + 3)
    rows = absR * (1 + g1) + g3 * (np.abs(S).sum(axis=2) + LL + absR) * (1 + g1) ** 2
    worst = rows.max(axis=1)
    good = ok & np.isfinite(L).all(axis=(1, 2)) & np.isfinite(worst)
    with np.errstate(invalid="ignore"):
        return down_each(mu - up_each(up_each(worst) + extra)), good


def _first_shifts(est: np.ndarray, scale: np.ndarray, n: int, goal: np.ndarray) -> np.ndarray:
    """:func:`_shifts`' first shift of each matrix (the same operations, elementwise)."""
    eta = np.maximum(np.maximum(gamma(n + 3) * scale * 4, np.abs(est) * 1e-12), 1e-300)
    mu = est - eta
    mid = ~np.isnan(goal) & (est > goal)  # NaN: no goal
    mu[mid] = goal[mid] + (est[mid] - goal[mid]) / 2
    return mu


def _cholesky_each(S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(L, ok): the Cholesky factor of each matrix of the stack where it exists (zeros and
    ok False where it does not) — the stack halved until the failures are isolated."""
    try:
        return np.linalg.cholesky(S), np.ones(S.shape[0], dtype=bool)
    except np.linalg.LinAlgError:
        if S.shape[0] == 1:
            return np.zeros_like(S), np.zeros(1, dtype=bool)
    h = S.shape[0] // 2
    (L1, ok1), (L2, ok2) = _cholesky_each(S[:h]), _cholesky_each(S[h:])
    return np.concatenate([L1, L2]), np.concatenate([ok1, ok2])
