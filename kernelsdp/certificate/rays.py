"""Certificates of infeasibility (a Farkas dual ray) and unboundedness (a primal ray),
proven in floating point where the enclosures close, and measured relative to the size of
what they measure otherwise (docs/certificate.md §4).

**Infeasibility.**  y is corrected to y′ with Aᵀy′ ≈ 0 and y′ held inside K* by a floor
(:func:`.correction.dual_correction` with g = 0); the residual Aᵀy′ is enclosed (an exact Δ
with AᵀΔ = −Aᵀy′, ‖Δ‖₂ ≤ δ, :mod:`.ends`).  When every block of y′ is verified inside K*
with room δ and bᵀy′ + ‖b‖₂δ < 0, then for any x, 0 ≤ (y′ + Δ)ᵀ(Ax + b) = bᵀ(y′ + Δ) < 0: no
x is feasible — a proof.

**Unboundedness.**  The ray x̂ is projected onto the null space of the equality rows and
verified: A_Z x̂ = 0 (enclosed), A_K x̂ ∈ K with room, P x̂ = 0 (no quadratic term on its
support), cᵀx̂ < 0 with room.  That proves the dual infeasible.  The problem is then
unbounded *if it is feasible*: a strictly feasible point is sought by one re-solve with c =
0 and the cones shrunk (:mod:`.perturbed`) and proven (:func:`.ends.proven_upper`).  Only
both together are "proof"; the ray alone is an estimate that says so.

The measures are scale-invariant: ray residuals relative to ‖|A||x̂|‖, Farkas ones to
‖|A|ᵀ|y|‖, and the sign relative to ‖c‖‖x̂‖ (resp. ‖b‖‖y‖): a problem multiplied by 10⁻⁶ or
10⁶, objective or rows, gets the same verdict.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from ..linalg.rounding import dot_error, down, matvec_error, norm_up, up
from .canonical import CanonicalForm, CanonicalSolution
from .correction import dual_correction, project_equalities, zero_rows
from .ends import proven_upper
from .interior import central_primal
from .membership import block_lower, cached_singular_bound, distinct_rows
from .verdict import ESTIMATE, INFEASIBILITY, PROOF, UNBOUNDEDNESS, Certificate, no_point

#: entries of a Farkas ray below this (relative to its largest) are snapped to 0
SNAP = 1e-12
#: a ray (primal, or the Farkas y) that is not proven as returned is tried again with its
#: entries below each of these (relative to its largest) set to 0 — safe at any size, the
#: snapped ray is proven from scratch; an interior-point ray's entries along a face are its
#: accuracy, ~1e-9
RAY_SNAPS = (SNAP, 1e-8, 1e-6)


def _rel(num: float, den: float) -> float:
    return 0.0 if num == 0 else (math.inf if den == 0 else num / den)


def _cone_short(form: CanonicalForm, v: np.ndarray, dual: bool, room: float) -> list[str]:
    """The blocks not verified inside the cone (dual cone) with ``room`` to spare."""
    bad = []
    for j, blk in enumerate(form.blocks):
        if blk.kind == "zero":
            continue
        bl = block_lower(blk, v[blk.rows], dual=dual, at_least=room)
        if not bl.proof or np.any(bl.values < room):
            bad.append(f"block {j} ({blk.kind})")
    return bad


def _relative_cone(form: CanonicalForm, v: np.ndarray, dual: bool) -> float:
    worst = min(
        (blk.min_eig(v[blk.rows], dual) for blk in form.blocks if blk.kind != "zero"), default=0.0
    )
    return _rel(max(0.0, -worst), float(np.max(np.abs(v), initial=0.0)))


def farkas_certificate(sol: CanonicalSolution, tol: float) -> Certificate:
    form, y = sol.form, sol.y
    if y is None:
        return no_point(tol, f"{sol.solver} reports {sol.status} but returned no dual ray")
    if not float(form.b @ y) < 0:
        return Certificate(
            INFEASIBILITY,
            tol,
            measures={"farkas_sign": math.inf},
            note=f"the dual ray has bᵀy = {float(form.b @ y):.3g} >= 0: no certificate",
        )
    y = y / -float(form.b @ y)
    A = form.A
    yc = _snap(dual_correction(form, y, np.zeros(A.shape[1]), {}, floor=0.0))
    ATy = A.T @ yc
    rel_stat = _rel(float(np.linalg.norm(A.T @ y)), float(np.linalg.norm(abs(A).T @ np.abs(y))))
    measures = {
        "farkas_stationarity": rel_stat,
        "farkas_cone": _relative_cone(form, y, True),
        "farkas_sign": 0.0,
    }
    why = _farkas_proof(form, yc, ATy)
    for rel in RAY_SNAPS[1:] if why else ():  # coarser snaps, each proven from scratch
        ys = _snap(yc, rel)
        if not _farkas_proof(form, ys, A.T @ ys):
            why = ""
            break
    return Certificate(
        INFEASIBILITY,
        tol,
        measures=measures,
        reported=tuple(measures),
        lower_label=ESTIMATE if why else PROOF,
        lower_why=why,
        note="Farkas: y ∈ K*, Aᵀy = 0, bᵀy < 0 — no x is feasible"
        + ("" if not why else f" (not proven: {why})"),
    )


def _snap(y: np.ndarray, rel: float = 0.0) -> np.ndarray:
    """y with entries below SNAP·‖y‖_∞ set to exactly 0: a Farkas ray on the boundary of K*
    (a zero entry meeting a column) can then meet Aᵀy = 0 exactly, with no rounding to
    enclose, and a primal ray along a face of K (min x₀ − x₁, x ≥ 0, x₀ ≤ 3: x̂ = (1e-10, 1)
    leaves x₀ ≤ 3 by 1e-10, (0, 1) does not) meets its rows exactly; every residual is
    computed after the snap, so nothing is assumed."""
    out = y.copy()
    out[np.abs(out) <= (rel or SNAP) * float(np.max(np.abs(y), initial=0.0))] = 0.0
    return out


#: Aᵀy is summed exactly (in rationals) when it involves at most this many products
EXACT_PRODUCTS_MAX = 20_000


def _exactly_zero(A, y: np.ndarray) -> bool:
    """Is Aᵀy exactly 0, every product and sum in rational arithmetic?  (A snapped Farkas ray
    on a face of K* often meets its columns exactly, where the a-priori bound γ_k|A|ᵀ|y| > 0
    would ask a singular PSD block for room it cannot have.)"""
    from fractions import Fraction

    live = np.flatnonzero(y)
    sub = sp.csc_matrix(A[live])
    if sub.nnz > EXACT_PRODUCTS_MAX:
        return False
    yl = [Fraction(float(v)) for v in y[live]]
    for j in range(sub.shape[1]):
        lo, hi = sub.indptr[j], sub.indptr[j + 1]
        total = sum(
            (Fraction(float(a)) * yl[i] for a, i in zip(sub.data[lo:hi], sub.indices[lo:hi])),
            Fraction(0),
        )
        if total != 0:
            return False
    return True


def _farkas_proof(form: CanonicalForm, yc: np.ndarray, ATy: np.ndarray) -> str:
    """'' when y′ proves infeasibility, else why not."""
    A, b = form.A, form.b
    exact = not np.any(ATy) and _exactly_zero(A, yc)
    rho = 0.0 if exact else norm_up(np.abs(ATy) + matvec_error(A.T, yc))
    delta = 0.0
    if rho > 0:  # an exact Aᵀy = 0 (a snapped ray) needs no enclosure
        used = np.flatnonzero(np.diff(A.tocsc().indptr) > 0)
        sig = cached_singular_bound(form, "A", lambda: A[:, used])
        if not (sig.proof and sig.lower > 0):
            return "the residual Aᵀy is not enclosed (A has no proven full column rank)"
        delta = up(rho / math.sqrt(down(sig.lower)))
    bad = _cone_short(form, yc, dual=True, room=delta)
    if bad:
        return "y is not proven inside K* (" + ", ".join(bad[:3]) + ")"
    if not up(float(b @ yc) + dot_error(b, yc) + norm_up(b) * delta) < 0:
        return "bᵀy < 0 is not proven"
    return ""


def ray_certificate(sol: CanonicalSolution, tol: float) -> Certificate:
    form, r = sol.form, sol.ray
    if r is None:
        return no_point(tol, f"{sol.solver} reports {sol.status} but returned no primal ray")
    if not float(form.c @ r) < 0:
        return Certificate(
            UNBOUNDEDNESS,
            tol,
            measures={"ray_sign": math.inf},
            note=f"the ray has cᵀx = {float(form.c @ r):.3g} >= 0: no certificate",
        )
    A = form.A
    Ar = A @ r
    z = zero_rows(form)
    scale_r = float(np.linalg.norm(abs(A) @ np.abs(r)))
    measures = {
        "ray_equalities": _rel(float(np.linalg.norm(Ar[z])), scale_r),
        "ray_cone": _relative_cone(form, Ar, False),
        "ray_descent": _rel(-float(form.c @ r), float(np.linalg.norm(form.c) * np.linalg.norm(r))),
    }
    if form.P is not None:
        measures["ray_curvature"] = _rel(
            float(np.linalg.norm(form.P @ r)), float(np.linalg.norm(abs(form.P) @ np.abs(r)))
        )
    why = _ray_proof(form, r)
    for rel in RAY_SNAPS if why else ():  # the ray with its negligible entries exactly 0
        if not _ray_proof(form, _snap(r, rel)):
            why = ""
            break
    if not why:
        why = _feasibility_proof(form)
    return Certificate(
        UNBOUNDEDNESS,
        tol,
        measures=measures,
        reported=tuple(measures),
        lower_label=ESTIMATE if why else PROOF,
        lower_why=why,
        note="ray: Ax̂ ∈ K, cᵀx̂ < 0, and a feasible point: the objective "
        "decreases without bound" + ("" if not why else f" (not proven: {why})"),
    )


def _ray_proof(form: CanonicalForm, r: np.ndarray) -> str:
    """'' when the ray is proven a direction of recession with cᵀx̂ < 0."""
    if (
        form.P is not None
        and sp.csr_matrix(form.P).nnz
        and np.any(abs(form.P) @ (np.abs(r) > 0) > 0)
    ):
        return "the quadratic term acts on the ray: Px̂ = 0 is not proven"
    Z = zero_rows(form)
    A = form.A
    r1, delta = r, 0.0
    if Z.size:
        A_Z = A[Z]
        keep = distinct_rows(A_Z, np.zeros(Z.size))
        A_Z = A_Z[keep]
        r1 = project_equalities(A_Z, np.zeros(A_Z.shape[0]), r)
        rho = norm_up(np.abs(A_Z @ r1) + matvec_error(A_Z, r1))
        if rho > 0:
            sig = cached_singular_bound(form, "A_Z (rows distinct without b)", lambda: A_Z.T)
            if not (sig.proof and sig.lower > 0):
                return "the equality rows are not proven independent"
            delta = up(rho / math.sqrt(down(sig.lower)))
    Ar = A @ r1
    err = matvec_error(A, r1)
    room = norm_up(A.data) * delta if delta else 0.0
    for j, blk in enumerate(form.blocks):
        if blk.kind == "zero":
            continue
        bl = block_lower(blk, Ar[blk.rows], err[blk.rows], at_least=room)
        if not bl.proof or np.any(bl.values < room):
            return f"the ray is not proven inside the cone (block {j}, {blk.kind})"
    if not up(float(form.c @ r1) + dot_error(form.c, r1) + norm_up(form.c) * delta) < 0:
        return "cᵀx̂ < 0 is not proven"
    return ""


def _central_point_proven(zero: CanonicalForm) -> bool:
    """Is the least-squares central point of :mod:`.interior` a proven feasible point?  (No
    solve: on SDPLIB's infd1 and infd2 it is, where the re-solve cost 0.7 of the solve.)"""
    scale = float(np.max(np.abs(zero.b), initial=1.0)) or 1.0
    found = central_primal(zero, np.zeros(zero.A.shape[1]), scale)
    return found is not None and proven_upper(zero, found[0]).label == PROOF


def _feasibility_proof(form: CanonicalForm) -> str:
    """'' when a feasible point is proven: the central point of :mod:`.interior` if it is
    one, else the point of one shrunk re-solve with c = 0."""
    from dataclasses import replace

    from .perturbed import RESOLVE_MIN_S, SHRINK_REL, resolve_refusal, shrink_and_solve

    zero = replace(form, c=np.zeros_like(form.c), P=None, d=0.0)
    refusal = resolve_refusal(zero)
    if refusal:
        return "the ray is proven, but " + refusal
    if _central_point_proven(zero):
        return ""
    eps = SHRINK_REL * max(1.0, float(np.max(np.abs(form.b), initial=0.0)))
    found = shrink_and_solve(zero, eps, 0.0, time_limit=RESOLVE_MIN_S * 10)
    if found is None:
        return (
            "the ray is proven, but no feasible point was found: the problem is "
            "unbounded or infeasible"
        )
    end = proven_upper(zero, found.x)
    if end.label != PROOF:
        return "the ray is proven, but the feasible point found is not: " + end.why
    return ""
