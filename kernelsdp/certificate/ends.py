"""The two ends of a conic certificate's interval, each a proof in floating point or
labelled an estimate with the reason (docs/certificate.md §3).

For (P) min ½xᵀPx + cᵀx + d s.t. s = Ax + b ∈ K (:mod:`.canonical`):

**Lower end** (the dual side; Jansen, Chaykin & Keil, SIAM J. Optim. 18, 2007, Thm 3.2, as
in VSDP).  y is corrected to y′ (:func:`.correction.dual_correction`), whose stationarity
residual r = c + Px̂ − Aᵀy′ is computed with its rounding bounded (ρ ≥ ‖r_exact‖₂).  An
exact correction Δ with AᵀΔ = r exists with ‖Δ‖₂ ≤ δ = ρ / σ_min(A) when σ_min(A) > 0 is
proven (:func:`.membership.min_singular_bound`); then y″ = y′ + Δ is exactly stationary,
and for every feasible x, with P ⪰ 0 proven,

    f(x) ≥ d − bᵀy′ − ½x̂ᵀPx̂ − ‖b‖₂δ + Σ_j min(0, λ_min(y′_j) − δ)·s̄_j,

where λ_min(y′_j) is a verified lower bound (:func:`.membership.block_lower`) and s̄_j ≥
tr(s_j) is an a-priori bound over the feasible set (:mod:`.bounds`), needed only for the
blocks whose dual is not proven inside K* with room δ.  Every rounding of the right-hand
side is bounded (:mod:`kernelsdp.linalg.rounding`).  With a quadratic objective the point
x̂ of q may move too: P·Δx − AᵀΔy = −r has a solution with ‖(Δx, Δy)‖₂ ≤ δ = ρ/σ_min([A; P])
(on the variables in A or P), and the bound loses ‖Px̂‖₂δ + ½‖P‖δ² more — a QP whose
equality rows are fewer than its variables (A alone rank deficient) is proven this way.

**Upper end** (the primal side).  x̂ is projected onto the equality rows (x₁,
:func:`.correction.project_equalities`); the residual r_Z = A_Z x₁ + b_Z is enclosed the
same way (an exact Δx with A_Z Δx = −r_Z, ‖Δx‖₂ ≤ δx = ρ_Z / σ_min(A_Zᵀ), exact duplicate
rows dropped), and every cone block of s₁ = Ax₁ + b is verified inside its cone with room
‖A_j‖_F·δx.  Then x₁ + Δx is feasible, and

    f(x₁ + Δx) ≤ f(x₁) + ‖c + Px₁‖₂δx + ½‖P‖δx²,

rounding included.  Where a block is too close to its boundary for that, the end says which
block and by how much (the caller may re-solve with the cones shrunk, :mod:`.perturbed`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..linalg.rounding import (
    UNIT_ROUNDOFF,
    abs_row_sum_max,
    affine_error,
    as_csr,
    dot_error,
    down,
    gamma,
    magnitude,
    matvec_error,
    norm_up,
    segment_norms_up,
    sum_up,
    up,
)
from ..linalg.verified import verified_psd
from .canonical import CanonicalForm
from .cones import blocks_min_eigs, cone_pieces, pieces_trace
from .correction import dual_correction, project_equalities, scaled_correction, zero_rows
from .membership import BlocksLower, blocks_lower, cached_singular_bound, distinct_rows
from .verdict import ESTIMATE, PROOF

#: the floor, relative to ‖y‖_∞, at which unbounded dual blocks are held inside K*: room
#: for the enclosure δ of the last rounding residual (δ ≈ 1e-16·‖y‖/σ_min(A))
DUAL_FLOOR = 1e-11


@dataclass
class End:
    """One end of the interval: its value, label, why it is not a proof (if not), and the
    numbers behind it (correction residuals, enclosure radii, failing blocks)."""

    value: float
    label: str
    why: str = ""
    details: dict = field(default_factory=dict)
    #: how far the worst block fell short of its cone (primal) or of K* (dual), where that
    #: is what stopped the proof
    deficit: float = 0.0
    #: where the point came from, when not the returned one (``"shrunk dual"``: a re-solve's
    #: strictly feasible dual, :mod:`.perturbed`)
    source: str = ""


def boundary_failure(end: End) -> bool:
    """Did a cone's boundary stop this end's proof (the point is not strictly inside)?"""
    return end.label != PROOF and ("outside K*" in end.why or "strictly feasible" in end.why)


def better(old: End, new: End, lower: bool) -> End:
    """The better of two ends: a proof over anything else, then the tighter value."""
    if new.label != PROOF:
        return old
    if old.label != PROOF:
        return new
    return new if (new.value > old.value if lower else new.value < old.value) else old


def _objective_up_err(form: CanonicalForm, x: np.ndarray) -> tuple[float, float]:
    """(fl(f(x)), a bound on its rounding error)."""
    err = dot_error(form.c, x)
    half = 0.0
    if form.P is not None:
        Px = form.P @ x
        half = 0.5 * float(x @ Px)
        err += 0.5 * (dot_error(x, Px) + float(np.abs(x) @ matvec_error(form.P, x)))
    cx = float(form.c @ x)
    value = half + cx + form.d
    err += 2 * UNIT_ROUNDOFF * (abs(half) + abs(cx) + abs(form.d) + abs(value))
    return value, up(err)


def _p_is_psd(form: CanonicalForm) -> tuple[bool, str]:
    P = form.P
    if P is None or P.nnz == 0:
        return True, ""
    P = sp.csr_matrix(P)
    off = P - sp.diags(P.diagonal())
    if off.count_nonzero() == 0:
        return bool(np.all(P.diagonal() >= 0)), "the objective's P has a negative diagonal"
    r = verified_psd(P)
    return r.proof and r.lower >= 0, "the objective's P is not proven PSD"


def _stationarity(
    form: CanonicalForm, x: np.ndarray, yc: np.ndarray
) -> tuple[np.ndarray, float, float]:
    """(columns of A that carry the residual, ρ ≥ ‖c + Px − Aᵀy′‖₂ exactly, the part of ρ
    that is the products' rounding alone)."""
    AT = form.magnitude(transposed=True)
    Px = np.zeros_like(x) if form.P is None else form.P @ x
    g = Px + form.c
    ATy = AT.M @ yc
    r = g - ATy
    err = matvec_error(AT, yc) + 2 * UNIT_ROUNDOFF * (np.abs(g) + np.abs(ATy) + np.abs(r))
    if form.P is not None:
        err = err + matvec_error(form.P, x)
    used, loose = form.derived("columns", lambda: _used_columns(form))
    if loose.size and np.any(np.abs(r[loose]) + err[loose] > 0):
        return used, math.inf, 0.0  # a variable in no constraint with a nonzero gradient
    return used, norm_up(np.abs(r[used]) + err[used]), float(np.linalg.norm(err[used]))


def _used_columns(form: CanonicalForm) -> tuple[np.ndarray, np.ndarray]:
    """(the variables in a row of A or of P, the others: their stationarity rows can only
    hold exactly)."""
    n = form.A.shape[1]
    live = np.bincount(as_csr(form.A).indices, minlength=n) > 0  # a stored entry
    if _has_p(form):
        live |= np.bincount(as_csr(form.P).indices, minlength=n) > 0
    return np.flatnonzero(live), np.flatnonzero(~live)


def _has_p(form: CanonicalForm) -> bool:
    return form.P is not None and form.P.nnz > 0


def _enclosing_matrix(form: CanonicalForm, used: np.ndarray):
    """The matrix whose σ_min encloses the exact correction: A's used columns (y moves),
    and for a quadratic objective [A; P] (x̄ of q moves too: P·Δx − AᵀΔy = −r has a
    solution of norm ≤ ρ/σ_min when AᵀA + P² is definite on the used variables — a QP whose
    A alone has fewer rows than variables)."""
    if not _has_p(form):  # every column: A itself (dense when small), no copy
        return form.magnitude().M if used.size == form.A.shape[1] else form.A[:, used]
    return sp.vstack([form.A[:, used], sp.csr_matrix(form.P)[:, used]]).tocsr()


def _inside_or_none(
    form: CanonicalForm, y: np.ndarray | None, bounds: Mapping[int, float], floor: float
) -> np.ndarray | None:
    """y when every block without an a-priori bound is inside K* by ``floor`` (estimated),
    else None."""
    if y is None:
        return None
    lam = blocks_min_eigs(form, y, dual=True)
    for j, blk in enumerate(form.blocks):
        if blk.kind in ("nonneg", "soc", "psd") and lam[j] < floor and j not in bounds:
            return None
    return y


def proven_lower(
    form: CanonicalForm, x: np.ndarray, y: np.ndarray, bounds: Mapping[int, float]
) -> End:
    """The dual side: a proof when every step above closes (see the module docstring).

    y is corrected in the interior-point metric first; when that correction keeps y inside
    K* but leaves a residual above 4× its rounding whose enclosure pushes a block out (its
    refinement stalls on an ill-conditioned metric: SDPLIB's truss6, residual 1.9e-7
    against 1.6e-13 for the least-norm correction), the least-norm correction is tried as
    well and the better end kept — and, at the form's later points (a combination, a
    re-solve's), tried first: the metric that stalled once stalls again (truss6: 13 → 6 ms
    a later point).  A constant objective (a feasibility problem: c = 0, no
    P) is bounded below by d itself, exactly — y = 0 proves it, whatever y the solver gave
    (one 5e-19 outside K* with no a-priori bound left "min 0 s.t. X ⪰ 0, X₀₀ = 1" unproven)."""
    if not np.any(form.c) and not _has_p(form):
        return End(form.d, PROOF, "", {"constant_objective": 1.0})
    floor = DUAL_FLOOR * max(float(np.max(np.abs(y), initial=0.0)), 1e-300)
    Px = np.zeros_like(x) if form.P is None else form.P @ x
    g = Px + form.c

    def least_norm() -> End:
        return _lower_at(form, x, dual_correction(form, y, g, bounds, floor=floor), bounds, Px)

    memo = form.derived("lower-end memo", dict)
    second = least_norm() if memo.get("metric stalled") else None  # it stalled before here
    if second is not None and second.label == PROOF:
        return second
    yc = _inside_or_none(form, scaled_correction(form, y, g, floor), bounds, floor / 2)
    if yc is None:
        return second or least_norm()
    first = _lower_at(form, x, yc, bounds, Px)
    stalled = first.details["correction_residual"] > 4 * first.details["rounding_residual"]
    if first.label == PROOF or "outside K*" not in first.why or not stalled:
        return first
    memo["metric stalled"] = True
    second = second or least_norm()
    return second if second.label == PROOF else first


def _lower_at(
    form: CanonicalForm, x: np.ndarray, yc: np.ndarray, bounds: Mapping[int, float], Px: np.ndarray
) -> End:
    """The lower end proven from the corrected dual yc (the module docstring's bound)."""
    b = form.b
    used, rho, rounding = _stationarity(form, x, yc)
    half = 0.0 if form.P is None else 0.5 * float(x @ Px)
    bty = float(b @ yc)
    q = form.d - bty - half
    q_err = dot_error(b, yc) + 2 * UNIT_ROUNDOFF * (abs(form.d) + abs(bty) + abs(half) + abs(q))
    if form.P is not None:
        q_err += 0.5 * (dot_error(x, Px) + float(np.abs(x) @ matvec_error(form.P, x)))
    details = {"correction_residual": rho, "rounding_residual": rounding}
    whys = []
    ok_p, why_p = _p_is_psd(form)
    if not ok_p:
        whys.append(why_p)
    delta = 0.0
    if rho > 0:
        sig = (
            cached_singular_bound(form, "A", lambda: _enclosing_matrix(form, used))
            if math.isfinite(rho)
            else None
        )
        if sig is None or not (sig.proof and sig.lower > 0):
            whys.append(
                "the stationarity residual is not enclosed ("
                + ("[A; P]" if _has_p(form) else "A")
                + " has no proven full column rank"
                + (")" if sig is None else f": {sig.note})")
            )
            delta = 0.0
        else:
            delta = up(rho / math.sqrt(down(sig.lower)))
            details["sigma_min_A"] = math.sqrt(sig.lower)
    details["dual_enclosure"] = delta
    taken = [up(q_err), up(norm_up(b) * delta)]  # nonnegative amounts taken off q
    if _has_p(form) and delta > 0:  # x̄ + Δx in q: −x̄ᵀPΔx − ½ΔxᵀPΔx
        px = norm_up(np.abs(Px) + matvec_error(form.P, x))
        taken.append(up(px * delta + 0.5 * abs_row_sum_max(form.P) * delta * delta))
    lows = blocks_lower(form, yc, dual=True)
    penalty, estimated, short = _dual_shortfall(form, lows, delta, bounds, x, whys)
    # one subtraction of one bound on the sum: its rounding is relative to the result,
    # which down() covers (a chain of subtractions would round at each partial result)
    lower = q - up(sum_up(np.array([*taken, penalty]))) + estimated
    lower = down(lower)
    if math.isnan(lower):
        whys.append("the bound evaluated to NaN")
    if whys:
        return End(lower, ESTIMATE, "; ".join(whys), details, deficit=short)
    return End(lower, PROOF, "", details)


def _dual_shortfall(form: CanonicalForm, lows: BlocksLower, delta: float, bounds, x, whys: list):
    """(penalty, estimated, short): an upper bound on Σ max(δ − λ_i, 0)·s̄_i over the pieces
    of the dual blocks whose a-priori bound s̄_i is known (Jansen–Chaykin–Keil's sum, every
    rounding counted: t_i = fl(δ − λ_i) ≥ exact/(1 + u), each product one more u), the
    estimate −Σ max(δ − λ_i, 0)·tr(s_i) at the point for the pieces without one (``whys``
    says which blocks), and the largest shortfall of those — all blocks at once (truss7's
    150 blocks: one pass, not 150)."""
    pieces = lows.pieces
    whys += [f"block {j} ({form.blocks[j].kind}): {lows.whys[j]}" for j in sorted(lows.whys)]
    if not pieces.blocks.size:
        return 0.0, 0.0, 0.0
    t = delta - lows.values
    out = t > 0  # only these pieces meet their bound (0·∞ elsewhere would be NaN)
    if not np.any(out):
        return 0.0, 0.0, 0.0
    bound = np.full(t.size, np.inf)
    for j, v in bounds.items():
        if pieces.where[j] >= 0:
            bound[pieces.of(j)] = v
    held = out & np.isfinite(bound)
    penalty = up(sum_up(t[held] * bound[held]) * (1.0 + gamma(2))) if np.any(held) else 0.0
    loose = out & ~held
    if not np.any(loose):
        return penalty, 0.0, 0.0
    cone, owner = list(pieces.blocks), pieces.owner
    tr = pieces_trace(form, form.A @ x + form.b, cone)
    estimated = -float(t[loose] @ tr[loose])
    short = float(np.max(t[loose]))
    named = [cone[c] for c in np.unique(owner[loose])]
    kinds = ", ".join(sorted({form.blocks[j].kind for j in named}))
    if len(named) == 1:
        whys.append(
            f"block {named[0]} ({kinds}): its dual is outside K* by {short:.2g} and no "
            "a-priori bound on its trace is known"
        )
    else:
        more = f" and {len(named) - 3} more" if len(named) > 3 else ""
        whys.append(
            f"blocks {', '.join(map(str, named[:3]))}{more} ({kinds}): their duals are "
            f"outside K* by up to {short:.2g} and no a-priori bound on their traces is known"
        )
    return penalty, estimated, short


def _distinct_equalities(form: CanonicalForm, Z: np.ndarray):
    """(A_Z with its magnitudes, b_Z, D): the equality rows, each distinct row once, and a
    power of two per row that brings its norm into [1, 2) — exact in floating point."""
    A_Z, b_Z = form.A[Z], form.b[Z]
    keep = distinct_rows(A_Z, b_Z)
    A_Z = sp.csr_matrix(A_Z[keep])
    norms = np.sqrt(np.asarray(A_Z.multiply(A_Z).sum(axis=1)).ravel())
    _, expo = np.frexp(np.where(norms > 0, norms, 1.0))
    return magnitude(A_Z), b_Z[keep], np.ldexp(1.0, 1 - expo)


def _equality_enclosure(form: CanonicalForm, x: np.ndarray) -> tuple[np.ndarray, float, str]:
    """(x₁ projected onto the equality rows, δx bounding the exact rest, why not).

    The exact rest Δ solves A_Z Δ = −r; so does the least-norm solution of D·A_Z Δ = −D·r
    for any positive diagonal D, whence ‖Δ‖ ≤ ‖D·r‖ / σ_min((D·A_Z)ᵀ).  D equilibrates the
    rows by powers of two (exact), so that δx — and the verdict — do not change when a row
    is multiplied by 10⁻⁶ (θ of C₅ with its trace row so scaled lost its proof)."""
    Z = zero_rows(form)
    if Z.size == 0:
        return x, 0.0, ""
    E, b_Z, D = form.derived("equalities", lambda: _distinct_equalities(form, Z))
    A_Z = E.M
    x1 = project_equalities(A_Z, b_Z, x)
    r = A_Z @ x1 + b_Z
    rho = norm_up(D * (np.abs(r) + affine_error(E, x1, b_Z)))
    if rho == 0:
        return x1, 0.0, ""
    sig = cached_singular_bound(form, "A_Z", lambda: (sp.diags(D) @ A_Z).T)
    if not (sig.proof and sig.lower > 0):
        return x1, math.inf, f"the equality rows are not proven independent ({sig.note})"
    return x1, up(rho / math.sqrt(down(sig.lower))), ""


def _row_norms(form: CanonicalForm) -> np.ndarray:
    """Per piece (:func:`.cones.cone_pieces`), the bound ‖A_j‖ that turns δx into the room a
    block must keep: per row for ℝ₊ (‖a_i‖₂ rounded up), ‖A_j‖_F for the others — kept."""
    return form.derived("row_norms", lambda: _piece_row_norms(form))


def _piece_row_norms(form: CanonicalForm) -> np.ndarray:
    """Each block's entries read straight off A's CSR arrays (the entries a slice of its
    rows would hold, in the same order: one sparse slice per block cost truss6 2.3 ms), the
    Frobenius norms of all blocks at once (:func:`.rounding.segment_norms_up`: one
    :func:`.rounding.norm_up` per block cost truss7 2.4 ms)."""
    A, pieces = as_csr(form.A), cone_pieces(form)
    out = np.empty(pieces.starts[-1])
    kinds = [form.blocks[j].kind for j in pieces.blocks]
    whole = [j for j, kind in zip(pieces.blocks, kinds) if kind != "nonneg"]
    lo = A.indptr[[form.blocks[j].start for j in whole]]
    hi = A.indptr[[form.blocks[j].stop for j in whole]]
    take = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi)] + [np.zeros(0, int)])
    segment = np.repeat(np.arange(len(whole)), hi - lo)
    out[pieces.starts[pieces.where[whole]]] = segment_norms_up(A.data[take], segment, len(whole))
    if "nonneg" in kinds:  # each row's sum of squares, as its own slice sums it
        squares = np.asarray(A.multiply(A).sum(axis=1)).ravel()
        for j, kind in zip(pieces.blocks, kinds):
            if kind == "nonneg":
                out[pieces.of(j)] = np.sqrt(squares[form.blocks[j].rows]) * (1 + 1e-15)
    return out


def _short_of_room(form: CanonicalForm, s1: np.ndarray, room: np.ndarray, details) -> End | None:
    """The failed upper end, without the verification, where an estimate already decides it:
    every verified bound of a PSD, second-order or ℝ₊ piece is at most its λ_min estimate
    (the shift sits below it; t − ‖x‖ and v less their roundings), so a piece
    whose estimate lies below its room by more than the estimate's rounding cannot be proven
    inside (an interior-point solver's point lies just outside: truss1's block 6 by 1.9e-10);
    None otherwise.  Its deficit is the estimated one."""
    pieces = cone_pieces(form)
    est = blocks_min_eigs(form, s1)[pieces.blocks][pieces.owner]
    for j in pieces.blocks:
        kind = form.blocks[j].kind
        if kind == "nonneg":
            est[pieces.of(j)] = s1[form.blocks[j].rows]
        elif kind not in ("psd", "soc"):  # exp, pow: a distance, not a bound's ceiling
            est[pieces.of(j)] = np.inf
    margin = 64 * UNIT_ROUNDOFF * float(np.max(np.abs(s1), initial=0.0))
    short = pieces.block_max(room - est)
    failing = np.flatnonzero(short > margin)
    if not failing.size:
        return None
    said = [f" within {short[p]:.2g} of its boundary, estimated" for p in failing[:3]]
    return _not_strictly_feasible(form, failing, said, details, float(np.max(short)))


def _not_strictly_feasible(
    form: CanonicalForm, failing: np.ndarray, said: list[str], details, deficit: float
) -> End:
    """The upper end refused: the failing pieces' blocks (positions in
    :func:`.cones.cone_pieces`), each with what was found, the first three named."""
    blocks = cone_pieces(form).blocks
    named = [
        f"block {blocks[p]} ({form.blocks[blocks[p]].kind}){how}"
        for p, how in zip(failing[:3], said)
    ]
    return End(
        math.inf,
        ESTIMATE,
        "no proven upper bound: the point is not strictly feasible ("
        + "; ".join(named)
        + ("; …" if failing.size > 3 else "")
        + ")",
        details,
        deficit=deficit,
    )


def proven_upper(form: CanonicalForm, x: np.ndarray, estimate_first: bool = True) -> End:
    """The primal side: a proof when a feasible point within δx of x₁ is proven.
    ``estimate_first``: refuse on the λ_min estimates first where they already decide
    (:func:`_short_of_room`; for a returned point, which an interior-point solver leaves
    just outside — not for a point made to lie inside)."""
    x1, dx, why = _equality_enclosure(form, x)
    details = {"primal_enclosure": dx}
    if not math.isfinite(dx):
        return End(math.inf, ESTIMATE, "no proven upper bound: " + why, details)
    b = form.b
    s1 = form.magnitude().M @ x1 + b  # the product its error bound is for
    pieces = cone_pieces(form)
    room = _row_norms(form) * dx
    if estimate_first and (surely := _short_of_room(form, s1, room, details)) is not None:
        return surely
    err_s = affine_error(form.magnitude(), x1, b)
    goal = np.full(len(form.blocks), np.nan)
    goal[pieces.blocks] = pieces.block_max(room)
    lows = blocks_lower(form, s1, err_s, at_least=goal)
    short = pieces.block_max(room - lows.values)
    failing = np.flatnonzero(~lows.proof | (short >= 0))
    if failing.size:
        said = [
            f" within {short[p]:.2g} of its boundary"
            if lows.proof[p]
            else f": {lows.whys.get(int(pieces.blocks[p]), '')}"
            for p in failing[:3]
        ]
        worst = float(np.max(np.where(lows.proof[failing], short[failing], np.inf)))
        return _not_strictly_feasible(form, failing, said, details, max(worst, 0.0))
    value, err = _objective_up_err(form, x1)
    Px1 = np.zeros_like(x1) if form.P is None else form.P @ x1
    grad = norm_up(
        np.abs(form.c + Px1) + matvec_error(form.P, x1) if form.P is not None else np.abs(form.c)
    )
    curv = 0.0 if form.P is None else abs_row_sum_max(form.P)
    upper = up(value + err + up(grad * dx) + up(0.5 * curv * dx * dx))
    return End(upper, PROOF, "", details)
