"""The certificate at every iterate of the low-rank augmented Lagrangian (issue #30 §3), with
the labels of issue #26 (:mod:`kernelsdp.certificate.verdict`).

For NPKL with tr K ≤ B, every factor U with ‖U‖²_F ≤ B is primal feasible and every β in
the domain of h* is dual feasible, so the interval [D(β), P(U)] (docs/npkl.md §3)

    P(U) = ⟨U, LU⟩ + Σ_p h(u_iᵀu_j),     D(β) = B·min(0, λ_min(M(β))) − Σ_p h*(β_p)

holds at every iterate, once each end is bounded on its safe side:

- **upper** (a proof): U is scaled down by a hair until an upper bound of ‖U‖²_F, rounding
  included, is ≤ B; P is evaluated in double and raised by the a-priori bounds of
  :mod:`kernelsdp.linalg.rounding` (the product LU entry by entry, the pair entries by the
  loss's local Lipschitz constant, and every sum);
- **lower**: β is projected onto the domain of h* (exact in floating point: a clip and a
  sign), Σh* is lowered by its rounding bound, and λ_min(M(β)) comes from
  :func:`kernelsdp.linalg.verified.verified_min_eig` (``proof``) where that is tried and
  succeeds, else from the randomised Lanczos bound of
  :mod:`kernelsdp.linalg.randomized_bound` (``probable``, its failure probability in the
  reason), both for the exact M(β): the rounding of forming L + Σβ_pE_p is added.  B
  multiplies λ's error, so the randomised bound runs until B·(Ritz value − bound) is at
  most ``share`` of the gap the caller aims at.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..certificate import OPTIMALITY, PROBABLE, PROOF, Certificate
from ..formulations.losses import LOSSES
from ..linalg.randomized_bound import FAILURE_PROBABILITY, randomized_min_eig
from ..linalg.rounding import UNIT_ROUNDOFF, abs_row_sum_max, down, gamma, sum_up, up

#: rows (and pairs) per chunk of the certificate's work arrays
CHUNK = 16_384
#: the share of the target gap that the randomised bound's slack B·(ritz − bound) may take
#: (0.25 left n = 20,000 at 1.02e-3 where the estimate was 7.9e-4, and the retry came 4 s
#: later; 0.1: 5,200 Lanczos steps, 1.1 s, certified at the first try)
BOUND_SHARE = 0.1


@dataclass
class Interval:
    """[lower, upper] with labels; ``U``: the (possibly scaled) feasible factor."""

    lower: float
    upper: float
    lower_label: str
    lower_why: str
    lam_lower: float
    lam_ritz: float
    U: np.ndarray
    method: str
    steps: int = 0
    #: a bottom direction that the caller's eigensolve missed (unit, in f's own node order,
    #: the caller's; None otherwise): the randomised bound's Ritz vector, or under a proof
    #: the Lanczos eigenvector, where its Ritz value is negative and lies below the caller's
    #: by more than the bound's slack
    missed: np.ndarray | None = None
    #: the products with M that rebuilt ``missed`` (the randomised bound's second pass; 0
    #: under a proof, whose eigensolves, like the verified bound's own, are not counted)
    missed_products: int = 0

    @property
    def width(self) -> float:
        den = max(abs(self.lower), abs(self.upper))
        return (self.upper - self.lower) / den if den > 0 else 0.0


def feasible_factor(U: np.ndarray, B: float) -> tuple[np.ndarray, float]:
    """(U scaled so that ‖U‖²_F ≤ B holds for the exact entries, an upper bound of it)."""
    U = np.asarray(U, dtype=np.float64)
    tr = sum_up(U * U)
    while tr > B:
        U = U * (math.sqrt(B / tr) * (1.0 - 8 * UNIT_ROUNDOFF))
        tr = sum_up(U * U)
    return U, tr


def _loss_lipschitz(
    loss: str, z: np.ndarray, t: np.ndarray, C: float, delta: np.ndarray
) -> np.ndarray:
    """max |h'| on [z − δ, z + δ], per pair (h convex: the larger end's slope)."""
    if loss in ("hinge", "l1", "linear"):
        return np.full_like(z, C)
    if loss == "squared-hinge":
        return C * (np.maximum(0.0, 1.0 - t * z) + delta)
    return C * (np.abs(z - t) + delta)  # l2


def primal_upper(f, U: np.ndarray) -> tuple[float, np.ndarray]:
    """(an upper bound on P(U′U′ᵀ) for the exact entries of the returned U′, U′) where U′
    is U scaled to be feasible.  Row and pair chunks of ``CHUNK`` keep the work arrays
    small; the product's rounding is bounded through ⟨|U|, |L||U|⟩ ≤ ‖L‖_∞·‖U‖²_F."""
    U, tr = feasible_factor(U, f.B)
    L, P = f.L.tocsr(), f.pairs
    n, r = U.shape
    quad, quad_abs = 0.0, 0.0
    for lo in range(0, n, CHUNK):
        blk = U[lo : lo + CHUNK] * (L[lo : lo + CHUNK] @ U)
        quad += float(np.sum(blk))
        quad_abs += float(np.sum(np.abs(blk)))
    k = int(np.max(np.diff(L.indptr), initial=1))
    err_quad = (gamma(k) * abs_row_sum_max(L) * tr + gamma(n * r + n) * quad_abs) * (1 + gamma(4))
    hsum, err_h, h_abs = 0.0, 0.0, 0.0
    for lo in range(0, P.m, CHUNK):
        Ui, Uj = U[P.i[lo : lo + CHUNK]], U[P.j[lo : lo + CHUNK]]
        t = P.t[lo : lo + CHUNK]
        z = np.einsum("ij,ij->i", Ui, Uj)
        dz = gamma(r) * (1 + gamma(r)) * np.einsum("ij,ij->i", np.abs(Ui), np.abs(Uj))
        h = LOSSES[f.loss].value(z, t, f.C)
        hsum += float(np.sum(h))
        h_abs += float(np.sum(np.abs(h)))
        err_h += float(np.sum(_loss_lipschitz(f.loss, z, t, f.C, dz) * dz))
    err = err_quad + up(err_h * (1 + gamma(P.m))) + gamma(P.m + 4) * h_abs
    return up(quad + hsum + err + 4 * gamma(4) * (abs(quad) + abs(hsum))), U


def dual_lower_terms(f, beta: np.ndarray):
    """(β projected onto dom h*, a lower bound on −Σh*(β), the rounding bound of forming
    M(β), M(β))."""
    loss = LOSSES[f.loss]
    b = loss.project(np.asarray(beta, dtype=np.float64), f.pairs.t, f.C)
    terms = loss.conjugate(b, f.pairs.t, f.C)
    minus_conj = down(-float(np.sum(terms)) - gamma(b.size + 4) * sum_up(np.abs(terms)) * 2)
    M = f.dual_matrix(b)
    return b, minus_conj, up(UNIT_ROUNDOFF * abs_row_sum_max(M)), M


def interval(
    f,
    U: np.ndarray,
    beta: np.ndarray,
    lam_ritz: float,
    target_gap: float,
    verify_max_n: int,
    failure_probability: float = FAILURE_PROBABILITY,
    seed: int = 0,
    max_steps: int | None = None,
    find_missed: bool = False,
) -> Interval:
    """The labelled interval at (U, β) (module docstring); ``target_gap``: the relative gap
    the caller aims at (it sizes the randomised bound's steps).  With ``find_missed``, where
    the interval is wider than ``target_gap`` and the bound's Lanczos ended below 0 and more
    than its slack below ``lam_ritz`` (the caller's estimate of λ_min), its Ritz vector as
    ``missed`` (a second pass of the recurrence, ``steps`` − 1 more products with M: asked for
    only where a next check can use it, and paid only when the interval failed).  At
    n = 100,000 a Frank–Wolfe check read λ −0.44029 where the bound's Lanczos found
    −0.44170, the interval was 5.36e-3 wide at an estimated gap of 7.8e-4, and without
    that direction the checks never found it (docs/npkl.md §7, thirty-third pass).  Under a
    proof the same test reads the verified bound's own estimate of λ_min, and the direction
    is the bottom eigenvector (:func:`_bottom_vector`, thirty-eighth pass)."""
    upper, U = primal_upper(f, U)
    b, minus_conj, m_err, M = dual_lower_terms(f, beta)
    lam, label, why, method, steps = -math.inf, PROBABLE, "", "", 0
    below = False  # the bound's (or proof's) estimate below the caller's λ by its slack
    slack = BOUND_SHARE * target_gap * max(abs(upper), 1e-300) / f.B
    if f.n <= verify_max_n:
        from ..linalg.verified import verified_min_eig

        v = verified_min_eig(M, extra=m_err)  # its own estimate: a Ritz value is above λ_min
        if v.proof:
            lam, label, method = v.lower, PROOF, v.method
            below = math.isfinite(lam_ritz) and v.estimate < min(lam_ritz - slack, 0.0)
        else:
            why = f"verified λ_min failed: {v.note}; "
    if label != PROOF:
        kw = {} if max_steps is None else {"max_steps": max_steps}
        rb = randomized_min_eig(
            M, target=slack, failure_probability=failure_probability, seed=seed, **kw
        )
        lam, method, steps = down(rb.lower - m_err), "randomized-lanczos", rb.steps
        # a direction matters to D only below 0 (D reads min(0, λ))
        below = math.isfinite(lam_ritz) and rb.ritz < min(lam_ritz - slack, 0.0)
        lam_ritz = min(lam_ritz, rb.ritz)
        why += rb.note
    lower = down(f.B * min(0.0, lam) + minus_conj)
    iv = Interval(lower, upper, label, why, lam, lam_ritz, U, method, steps)
    if find_missed and below and iv.width > target_gap:
        if label == PROOF:
            iv.missed, iv.lam_ritz = _bottom_vector(M, lam_ritz)
        else:
            iv.missed, iv.missed_products = rb.ritz_vector(), steps - 1
    return iv


def _bottom_vector(M, lam_ritz: float) -> tuple[np.ndarray | None, float]:
    """(M's bottom eigenvector, min(its Ritz value, ``lam_ritz``)) by
    :func:`kernelsdp.linalg.extreme.extreme_eigenvalue` (dense LAPACK or Lanczos), where the
    proof's own estimate said the caller's λ is too high ((None, ``lam_ritz``) where only
    Gershgorin's bound came back): the proof's path hands a missed direction back too
    (thirty-eighth pass: at n = 3,000 a path whose checks read λ −0.4191 to −0.4194 while the
    proof's bound was −0.4215 stayed
    from check 19 to 32 at estimates of 7.4e-5 to 7.5e-4, six intervals 7.4–7.8e-3 wide,
    the direction not found)."""
    from ..linalg.extreme import extreme_eigenvalue

    e = extreme_eigenvalue(M, "SA")
    if e.vector is None:
        return None, lam_ritz
    return e.vector / np.linalg.norm(e.vector), min(lam_ritz, e.value)


def certificate(iv: Interval, tol: float, measures: dict) -> Certificate:
    """The :class:`~kernelsdp.certificate.Certificate` of an interval (both ends labelled)."""
    return Certificate(
        OPTIMALITY,
        tol,
        iv.lower,
        iv.upper,
        iv.lower_label,
        measures=measures,
        reported=tuple(measures),
        upper_label=PROOF,
        lower_why="" if iv.lower_label == PROOF else iv.lower_why,
        note=f"low-rank ALM: upper P(U) with ‖U‖²_F ≤ B and rounding bounded; "
        f"lower D(β) with λ_min by {iv.method}",
    )
