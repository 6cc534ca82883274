"""NPKL's interval ends as proofs in floating point (issue #26; docs/npkl.md §3).

- **Upper end**: P(K) at the returned factor K = UUᵀ — positive semidefinite exactly, as a
  product of stored numbers.  The capacity is checked with its rounding bounded (‖U‖²_F ≤ B
  for the trace, ‖UᵀU‖²_F ≤ B for the Frobenius bound); a factor over it by rounding is
  shrunk by the factor that proves it feasible.  P is evaluated with its rounding bounded:
  tr(UᵀLU) by Higham's γ_k, and each convex loss term h(z) by its maximum over the interval
  z ± err(z), at an end of the interval.
- **Lower end**: the dual function g(β) (:meth:`.npkl.NPKL.dual_value`) at multipliers
  projected onto the domain of h* (exact: clipping and ±1 products), with λ_min(M(β))
  *verified* (:func:`kernelsdp.linalg.verified.verified_min_eig`, the assembly of M counted
  as an entrywise error) and Σh* rounded up.  Dense up to
  ``linalg.verified.DENSE_VERIFY_MAX_N``, by a sparse LDLᵀ above while its fill stays under
  ``SPARSE_VERIFY_MAX_FILL`` per row; beyond, the Lanczos value is an estimate, labelled so.
  The Frobenius capacity's ‖M₋‖_F is bounded through the computed negative part N = VΛVᵀ:
  λ_min(M − N) ≥ −η verified gives min tr(MK) ≥ −√B(‖Λ‖_F‖V‖₂² + η√n) over ‖K‖_F ≤ √B.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from ..certificate.verdict import ESTIMATE, PROBABLE, PROOF
from ..linalg.rounding import UNIT_ROUNDOFF, abs_row_sum_max, down, gamma, sum_up, up
from ..linalg.verified import DENSE_VERIFY_MAX_N, SPARSE_VERIFY_MAX_N, verified_min_eig
from ..result import KernelFactor
from .losses import LOSSES


def _feasible_factor(f, kernel: KernelFactor) -> tuple[KernelFactor, str]:
    """(a factor proven within the capacity, '' or why not)."""
    U = kernel.U
    if f.capacity == "none":
        return kernel, ""
    if f.capacity == "trace":
        t = sum_up(U * U)
        power = 2.0
    else:
        G = U.T @ U
        t = sum_up((np.abs(G) + gamma(U.shape[0]) * (np.abs(U).T @ np.abs(U))) ** 2)
        power = 4.0
    if t <= f.B:
        return kernel, ""
    shrink = (f.B / t) ** (1.0 / power) * (1 - 8 * UNIT_ROUNDOFF)
    if not shrink > 0:
        return kernel, "the capacity cannot be met by shrinking the factor"
    return KernelFactor(U * shrink), ""


def objective_upper(f, kernel: KernelFactor) -> float:
    """An upper bound on the exact P(K) at K = UUᵀ (rounding of every product bounded)."""
    U, L = kernel.U, f.L
    LU = L @ U
    quad = float(np.sum(U * LU))
    quad_err = gamma(U.size) * float(np.sum(np.abs(U) * np.abs(LU))) + gamma(_row_nnz(L)) * float(
        np.sum(np.abs(U) * (abs(L) @ np.abs(U)))
    )
    P = f.pairs
    z = kernel.entries(P.i, P.j)
    z_err = gamma(U.shape[1]) * np.einsum("ij,ij->i", np.abs(U[P.i]), np.abs(U[P.j]))
    loss = LOSSES[f.loss]
    hi = np.maximum(loss.value(z - z_err, P.t, f.C), loss.value(z + z_err, P.t, f.C))
    hi = hi + 4 * UNIT_ROUNDOFF * np.abs(hi)  # each h's own few roundings
    loss_sum = float(np.sum(hi))
    loss_up = loss_sum + gamma(max(hi.size, 1)) * float(np.sum(np.abs(hi)))
    return up(quad + up(quad_err) + loss_up)


def _row_nnz(L) -> int:
    L = sp.csr_matrix(L)
    return int(np.max(np.diff(L.indptr), initial=1))


def proven_upper(f, kernel: KernelFactor) -> tuple[float, str, str]:
    """(upper, label, why): P at a factor proven feasible, rounding included."""
    if kernel is None:
        return math.inf, ESTIMATE, "no kernel returned"
    fk, why = _feasible_factor(f, kernel)
    if why:
        return f.objective(kernel), ESTIMATE, why
    return objective_upper(f, fk), PROOF, ""


def assembly_error(f, beta: np.ndarray) -> sp.csr_matrix:
    """Entrywise bound on |M(β)_exact − fl(M(β))|: γ_k(|L| + |W(β)|), k the terms per entry
    (the Laplacian's entry and every pair on it)."""
    W = f.pairs.weighted_matrix(np.abs(beta))
    absM = (abs(f.L) + W).tocsr()
    keys = np.minimum(f.pairs.i, f.pairs.j).astype(np.int64) * f.n + np.maximum(
        f.pairs.i, f.pairs.j
    )  # one key per entry: the most pairs on one entry, O(m log m) (never an n² count)
    k = 2 + int(np.max(np.unique(keys, return_counts=True)[1], initial=1))
    return (absM * gamma(k)).tocsr()


def verified_lambda_min(
    f, M: sp.csr_matrix, beta: np.ndarray, estimate: float | None = None
) -> tuple[float, str, str]:
    """(λ_low ≤ λ_min(M(β)_exact), label, why not a proof) — M assembled in floating point.

    A proof where :func:`~kernelsdp.linalg.verified.verified_min_eig` gives one; above its
    sizes a randomised Lanczos bound (:mod:`kernelsdp.linalg.randomized_bound`), labelled
    ``probable`` with its failure probability, run until its slack B·(Ritz − bound) is
    below RANDOMIZED_SLACK of the objective's scale."""
    E = assembly_error(f, beta)
    extra = E.toarray() if f.n <= DENSE_VERIFY_MAX_N else abs_row_sum_max(E)
    note = (
        f"n = {f.n:,} above the verified limits (dense {DENSE_VERIFY_MAX_N:,}, sparse "
        f"{SPARSE_VERIFY_MAX_N:,})"
    )
    if f.n <= max(DENSE_VERIFY_MAX_N, SPARSE_VERIFY_MAX_N):
        r = verified_min_eig(M, extra, estimate)
        if r.proof:
            return r.lower, PROOF, ""
        if f.n <= DENSE_VERIFY_MAX_N:
            return r.lower, ESTIMATE, r.note
        note = r.note
    from ..linalg.randomized_bound import randomized_min_eig

    scale = max(float(abs(M).sum()) / max(f.n, 1), 1e-300)  # a typical |λ|
    rb = randomized_min_eig(M, target=RANDOMIZED_SLACK * scale, seed=0)
    return down(rb.lower - up(float(extra))), PROBABLE, f"{note}; {rb.note}"


#: the randomised bound runs until Ritz − bound ≤ this times M's mean absolute row sum
RANDOMIZED_SLACK = 1e-4


def conjugate_sum_up(f, beta: np.ndarray) -> float:
    """An upper bound on the exact Σ h*(β) (each term's few roundings and the sum's)."""
    h = LOSSES[f.loss].conjugate(beta, f.pairs.t, f.C)
    if f.loss == "linear":  # h* = 0 on its domain, exactly
        return 0.0
    mag = np.abs(beta)  # βT with T = ±1 is exact; the quadratic terms round
    if f.loss in ("squared-hinge", "l2"):
        mag = mag + beta * beta / (2 * f.C)
    return up(float(np.sum(h)) + gamma(h.size + 4) * float(np.sum(mag)))


def frobenius_spectrum_up(f, M: sp.csr_matrix, beta: np.ndarray) -> tuple[float, bool, str]:
    """(s ≥ max over ‖K‖_F ≤ 1, K ⪰ 0 of −tr(MK), proof, why): s = ‖Λ‖_F‖V‖₂² + η√n from
    the computed negative part N = VΛVᵀ and a verified λ_min(M − N) ≥ −η (dense n only)."""
    from ..linalg.positive_part import positive_eigenpairs

    part = positive_eigenpairs((-M).tocsr())
    if f.n > DENSE_VERIFY_MAX_N:
        return (
            part.frobenius,
            False,
            (f"n = {f.n:,} above the dense limit {DENSE_VERIFY_MAX_N:,} of the verified ‖M₋‖_F"),
        )
    V, lam = part.V, part.w  # −M ≈ V diag(lam) Vᵀ on its positive part
    D = M.toarray()
    N = -(V * lam) @ V.T if lam.size else np.zeros_like(D)
    R = D - N
    E = (
        assembly_error(f, beta).toarray()
        + gamma(max(lam.size, 1) + 2) * (np.abs(V * lam) @ np.abs(V).T)
        + 2 * UNIT_ROUNDOFF * np.abs(R)
    )
    r = verified_min_eig((R + R.T) / 2, E)
    if not r.proof:
        return part.frobenius, False, r.note
    eta = max(0.0, -r.lower)
    if lam.size:
        G = V.T @ V
        vnorm2 = (
            1.0
            + abs_row_sum_max(G - np.eye(lam.size))
            + gamma(f.n) * abs_row_sum_max(np.abs(V).T @ np.abs(V))
        )
    else:
        vnorm2 = 0.0
    lam_norm = math.sqrt(sum_up(lam * lam)) * (1 + 4 * UNIT_ROUNDOFF) if lam.size else 0.0
    return up(lam_norm * vnorm2 + eta * math.sqrt(f.n) * (1 + 4 * UNIT_ROUNDOFF)), True, ""


def proven_dual_value(
    f, beta: np.ndarray, M: sp.csr_matrix | None = None
) -> tuple[float, str, str, float]:
    """(g_low ≤ g(β), its label, why not a proof, the spectral value) for every capacity,
    β already in the domain of h*."""
    M = f.dual_matrix(beta) if M is None else M
    conj = conjugate_sum_up(f, beta)
    if f.capacity == "frobenius":
        s, proof, why = frobenius_spectrum_up(f, M, beta)
        return (
            down(-up(math.sqrt(f.B) * (1 + 2 * UNIT_ROUNDOFF) * s) - conj),
            PROOF if proof else ESTIMATE,
            why,
            s,
        )
    lam, label, why = verified_lambda_min(f, M, beta)
    if f.capacity == "trace":
        return down(up(f.B) * min(0.0, lam) - conj), label, why, lam
    if lam >= 0:
        return down(-conj), label, why, lam
    return -math.inf, label, why, lam
