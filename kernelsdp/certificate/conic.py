"""The generic certificate of a canonical conic answer, from (x, y) alone.

With the canonical pair of :mod:`.canonical` (s = Ax + b ∈ K, multipliers y, g = Px + c),
p = ½xᵀPx + cᵀx + d and q = d − bᵀy − ½xᵀPx (the Lagrangian's value where it is
stationary), the DIMACS error measures (Mittelmann's benchmarks, after the 7th DIMACS
challenge) are reported, each relative to the size of what it measures so that scaling the
objective or a row leaves it unchanged:

    err1 = ‖D·s_zero‖₂ / ‖D(|A_Z||x| + |b_Z|)‖₂, D the rows' powers of two   equalities
    err2 = max_j max(0, −λ_min(D·s_j)) / ‖D·s‖_∞           primal cones
    err3 = ‖g − Aᵀy‖₂ / ‖|g| + |A|ᵀ|y|‖₂                   stationarity of the Lagrangian
    err4 = max_j max(0, −λ_min(y_j)) / ‖y‖_∞               dual cones (K*)
    err5 = (p − q) / max(|p|, |q|, σ)                      duality gap
    err6 = Σ_j ⟨s_j, y_j⟩ / max(|p|, |q|, σ)               complementarity (cones)

with σ = Σ|cᵢxᵢ| + ½|x|ᵀ|P||x| + |d| and Σ|bᵢyᵢ| (the larger), the objective's own size.
err1–err2 (the returned point's own feasibility) are judged at tol; the others are shown,
not judged: **the verdict rests on the interval** — both ends proofs
(:mod:`.ends`: a verified dual bound and a verified feasible point, rounding included),
lower ≤ upper, width (upper − lower)/max(|lower|, |upper|, σ) ≤ tol.  When an end fails
because the point sits on a cone's boundary, one re-solve with the cones shrunk
(:mod:`.perturbed`) looks for a strictly feasible pair and the better proof of each end is
kept; where none exists the end says so and the upper end is +∞.

Infeasibility and unboundedness: :mod:`.rays`.
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import replace

import cvxpy as cp
import numpy as np
from threadpoolctl import ThreadpoolController

from .bounds import APrioriBounds
from .canonical import CanonicalForm, CanonicalSolution
from .combination import step_inside
from .cones import blocks_min_eig, cone_rows, rows_min_eig
from .correction import zero_rows
from .ends import better, boundary_failure, proven_lower, proven_upper
from .equilibrate import data_row_scales, equilibrated, point_row_scales
from .perturbed import (
    resolve_limits,
    resolve_refusal,
    shrink_and_solve,
    shrink_sizes,
)
from .rays import farkas_certificate, ray_certificate
from .slater import dual_recession_column, primal_fixed_row
from .verdict import OPTIMALITY, PROOF, Certificate, feasibility_only, no_point, relative_width

#: the measures judged at tol beside the interval: the returned point's own feasibility (the
#: interval may be proven from a corrected point; the point itself must still be one)
JUDGED = ("primal_equalities", "primal_cones")

DIMACS = {
    "primal_equalities": "err1",
    "primal_cones": "err2",
    "stationarity": "err3",
    "dual_cones": "err4",
    "duality_gap": "err5",
    "complementarity": "err6",
}


def _cone_mins(form: CanonicalForm, s: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(min λ_min of s's cone blocks, the same of y's in K*): one stacked eigensolve where
    every cone reads both sides alike (ℝ₊, second-order, PSD with √2-scaled or full rows)."""
    alike = all(
        blk.kind in ("zero", "nonneg", "soc")
        or (blk.kind == "psd" and (blk.sqrt2 or blk.triangle is None))
        for blk in form.blocks
    )
    if not alike:
        return blocks_min_eig(form, s, dual=False), blocks_min_eig(form, y, dual=True)
    both = rows_min_eig(form, np.stack([s, y]), dual=False)
    return float(both[0]), float(both[1])


def primal_measures(form: CanonicalForm, x: np.ndarray) -> dict[str, float]:
    """err1, err2 (relative to the rows' own size), on the rows scaled by the data's powers
    of two (:func:`.equilibrate.data_row_scales`, exact): on the rows as given, the 2-norm
    ratio weighted them by their sizes (θ of C₅ solved by SCS passed with its trace row ×
    10⁻⁶ and failed as written) and ‖s‖_∞ was the largest block's; a ratio per row would read
    1 for any violated row xᵢ = 0."""
    s = data_row_scales(form) * (form.magnitude().M @ x + form.b)
    return _primal_measures(form, x, s, blocks_min_eig(form, s, dual=False))


def _primal_measures(form: CanonicalForm, x: np.ndarray, s: np.ndarray, cone_min: float):
    """:func:`primal_measures` from the scaled s and the least λ_min of its cone blocks."""
    d, z = data_row_scales(form), zero_rows(form)
    err1 = 0.0
    if z.size:
        size = float(
            np.linalg.norm(d[z] * (form.magnitude().abs[z] @ np.abs(x) + np.abs(form.b[z])))
        )
        err1 = _rel(float(np.linalg.norm(s[z])), size)
    return {
        "primal_equalities": err1,
        "primal_cones": _rel(max(0.0, -cone_min), float(np.max(np.abs(s), initial=0.0))),
    }


def dimacs_measures(form: CanonicalForm, x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """err1–err6, each relative to the size of what it measures (module docstring)."""
    b = form.b
    s = form.magnitude().M @ x + b
    scaled = data_row_scales(form) * s
    primal_min, dual_min = _cone_mins(form, scaled, y)
    Px = np.zeros_like(x) if form.P is None else form.P @ x
    g = Px + form.c
    p, q = form.objective(x), form.dual_objective(x, y)
    sigma = objective_scale(form, x, y)
    cones, AT = cone_rows(form), form.magnitude(transposed=True)  # Aᵀ kept on the form
    return {
        **_primal_measures(form, x, scaled, primal_min),
        "stationarity": _rel(
            float(np.linalg.norm(g - AT.M @ y)),
            float(np.linalg.norm(np.abs(g) + AT.abs @ np.abs(y))),
        ),
        "dual_cones": _rel(max(0.0, -dual_min), float(np.max(np.abs(y), initial=0.0))),
        "duality_gap": _rel(p - q, max(abs(p), abs(q), sigma)),
        "complementarity": _rel(float(s[cones] @ y[cones]), max(abs(p), abs(q), sigma)),
    }


def objective_scale(form: CanonicalForm, x: np.ndarray, y: np.ndarray | None) -> float:
    """σ: the objective's own size, Σ|cᵢxᵢ| + ½|x|ᵀ|P||x| + |d|, or Σ|bᵢyᵢ| if larger —
    multiplied by t when the objective is (y scales with it), unchanged when a row is."""
    sigma = float(np.abs(form.c) @ np.abs(x)) + abs(form.d)
    if form.P is not None:
        sigma += 0.5 * float(np.abs(x) @ (abs(form.P) @ np.abs(x)))
    if y is not None:
        sigma = max(sigma, float(np.abs(form.b) @ np.abs(y)))
    return sigma


def _rel(num: float, den: float) -> float:
    return 0.0 if num == 0 else (np.inf if den == 0 else num / den)


def _wide(lo, hi, tol: float, scale: float) -> bool:
    """Is the interval not yet certified (an end not proven, or wider than tol)?"""
    if lo.label != PROOF or hi.label != PROOF:
        return True
    return not relative_width(lo.value, hi.value, scale) <= tol


def _proven_ends(
    form: CanonicalForm,
    x: np.ndarray,
    y: np.ndarray,
    resolve: bool,
    tol: float,
    limits: dict | None = None,
    lower=None,
):
    """(lower End, upper End, note): the two proofs; an end that a cone's boundary stopped
    is retried from a combination with a central point, then — while the interval is not
    certified — from one re-solve with the cones shrunk; the better proof of each end is
    kept.  ``lower``: a proven lower End to keep instead of seeking one."""
    bounds = APrioriBounds(form)
    lo = proven_lower(form, x, y, bounds) if lower is None else lower
    hi = proven_upper(form, x)
    scale = objective_scale(form, x, y)

    def defer() -> bool:  # will the re-solve shrink the dual? (asked only where it matters)
        return resolve and not dual_recession_column(form) and not resolve_refusal(form)

    lo, hi, notes, later = step_inside(form, x, y, lo, hi, bounds, tol, scale, defer)
    notes = notes[-2:]
    if (
        resolve
        and _wide(lo, hi, tol, scale)
        and (boundary_failure(lo) or boundary_failure(hi) or "central" in " ".join(notes))
    ):
        lo, hi = _resolve(form, (x, y), (lo, hi), bounds, notes, limits or {})
    if later is not None:
        lo = later(lo, notes)
    return lo, hi, "; ".join(notes)


def _sides_to_shrink(form: CanonicalForm, lo, hi, notes: list) -> tuple[bool, bool]:
    """(primal, dual): the sides the one re-solve shrinks — those whose proof a boundary
    stopped or a central point widened, and that can have a strictly feasible point
    (:mod:`.slater`); when the dual is re-solved anyway, the primal too (its point may
    tighten an upper end that is proven but loose: control1's 18.06 against 17.78)."""
    joined = " ".join(notes)
    need_p = hi.label != PROOF or "primal point" in joined
    need_d = lo.label != PROOF or "dual point" in joined
    if need_p and (why := primal_fixed_row(form)):
        notes.append(f"no primal re-solve: {why}")
        need_p = False
    if need_d and (why := dual_recession_column(form)):
        notes.append(f"no dual re-solve: {why}")
        need_d = False
        if lo.label != PROOF and hi.label == PROOF and need_p:
            # the interval cannot be certified: a primal re-solve would only tighten an
            # upper end that is already a proof (gpp100: 1.3e-4 for the cost of a solve)
            notes.append("no primal re-solve: without that dual point the interval stays open")
            need_p = False
    if need_d and not need_p and hi.label == PROOF and not primal_fixed_row(form):
        need_p = True
    return need_p, need_d


def _resolve(form: CanonicalForm, point, ends, bounds, notes: list, limits: dict):
    """(lo, hi) after the one re-solve with the cones shrunk (:mod:`.perturbed`) on the sides
    :func:`_sides_to_shrink` picks; ``notes`` gets what was done, and why a side was left
    alone or its proof still failed."""
    (x, y), (lo, hi) = point, ends
    need_p, need_d = _sides_to_shrink(form, lo, hi, notes)
    if not (need_p or need_d):
        return lo, hi
    refusal = resolve_refusal(form)
    if refusal:
        notes.append(refusal)
        return lo, hi
    eps_p, eps_d = shrink_sizes(
        form, x, y, lo.details.get("sigma_min_A"), frozenset(k for k in bounds)
    )
    alt = shrink_and_solve(form, eps_p if need_p else 0.0, eps_d if need_d else 0.0, **limits)
    if alt is None:
        notes.append("a re-solve with the cones shrunk found no strictly feasible point")
        return lo, hi
    lo2, hi2 = proven_lower(form, alt.x, alt.y, bounds), proven_upper(form, alt.x, False)
    if alt.eps_dual > 0:
        lo2 = replace(lo2, source="shrunk dual")
    notes.append(
        f"re-solved by {alt.solver} with the cones shrunk (ε_primal {alt.eps_primal:.1e}, "
        f"ε_dual {alt.eps_dual:.1e}, {alt.solve_time_s:.2f} s)"
    )
    for end, need, name in ((lo2, need_d, "lower"), (hi2, need_p and hi.label != PROOF, "upper")):
        if need and end.label != PROOF:
            notes.append(f"its {name} end: {end.why[:160]}")
    return better(lo, lo2, lower=True), better(hi, hi2, lower=False)


#: the rows' powers of two differ by more than this factor before a second pass on the
#: rows scaled is worth its cost: 2⁷ — SDPLIB's hinf rows spread 1 to 64 and their second
#: pass never proved anything (it cost hinf's median 1.06 → 1.21 of the solve at 16), a row
#: a user multiplied by 10³ or more is caught; control1–4 spread 8,192
ROW_SCALE_SPREAD = 128.0


def _with_rows_scaled(form: CanonicalForm, x, y, ends, tol: float):
    """(lo, hi, how) after a second pass on the rows scaled by powers of two
    (:mod:`.equilibrate`), when the first left the interval uncertified and the rows'
    scales differ: the better proof of each end is kept (each is a proof of the same
    problem).  The scaled pass alone would make the proofs blind to a row a user wrote × 10⁻⁶
    (θ of C₅'s trace row) but lost arch8's lower end, which the rows as written prove; the
    scaled pass has no re-solve of its own."""
    lo, hi, how = ends
    if not _wide(lo, hi, tol, objective_scale(form, x, y)):
        return ends
    d = point_row_scales(form, x)  # the spread first: the scaled form only where it counts
    if not float(np.max(d)) > ROW_SCALE_SPREAD * float(np.min(d)):
        return ends
    scaled, d = equilibrated(form, x)
    if not float(np.max(d)) > ROW_SCALE_SPREAD * float(np.min(d)):
        return ends  # a scaling that would not be exact is not made (D = 1)
    # the boundary point's dual is not tried again where a strictly feasible dual of the
    # re-solve proved the lower end: on SDPLIB it never did better (control1–4's scaled
    # lower ends were estimates, 0.2–4 % below; 12 ms of control4's 245)
    kept = lo if lo.label == PROOF and lo.source == "shrunk dual" else None
    lo2, hi2, how2 = _proven_ends(scaled, x, y / d, False, tol, lower=kept)
    lo3, hi3 = better(lo, lo2, lower=True), better(hi, hi2, lower=False)
    if lo3 is lo and hi3 is hi:
        return ends
    extra = "proven on the rows scaled by powers of two" + (f": {how2}" if how2 else "")
    return lo3, hi3, "; ".join(w for w in (how, extra) if w)


def _optimality(sol: CanonicalSolution, tol: float, resolve: bool = True) -> Certificate:
    form, x, y = sol.form, sol.x, sol.y
    measures = dimacs_measures(form, x, y)
    lo, hi, how = _proven_ends(
        form, x, y, resolve, tol, resolve_limits(sol.solve_time_s, sol.iterations, sol.solver)
    )
    lo, hi, how = _with_rows_scaled(form, x, y, (lo, hi, how), tol)
    for k, v in {**lo.details, **hi.details}.items():
        measures[k] = float(v)
    note = (
        "both ends proven"
        if lo.label == hi.label == PROOF
        else "; ".join(w for w in (lo.why, hi.why) if w)
    )
    cert = Certificate(
        OPTIMALITY,
        tol,
        float(lo.value),
        float(hi.value),
        lo.label,
        measures,
        tuple(k for k in measures if k not in JUDGED),
        {DIMACS[k]: v for k, v in measures.items() if k in DIMACS},
        note=note + (f" ({how})" if how else ""),
        per_constraint=dict(sol.violations),
        upper_label=hi.label,
        lower_why=lo.why,
        upper_why=hi.why,
        scale=objective_scale(form, x, y),
    )
    return cert.mapped(form.sense)


def conic_certificate(sol: CanonicalSolution, tol: float, resolve: bool = True) -> Certificate:
    """The certificate of one canonical answer, chosen by what the solver claims
    (``resolve``: allow the one shrunk re-solve of :mod:`.perturbed`); computed once per
    answer and tolerance (a copy is returned: callers may add measures)."""
    key = (float(tol), bool(resolve))
    if key not in sol.cache:
        with _blas_threads(sol.form):
            sol.cache[key] = _certificate(sol, tol, resolve)
    cert = sol.cache[key]
    return replace(cert, measures=dict(cert.measures), per_constraint=dict(cert.per_constraint))


#: a certificate whose dense matrices (PSD sides, A's columns) are all at most this large
#: runs its linear algebra on one BLAS thread: at such sizes threads add nothing, and on a
#: shared two-core machine they contend (measured on SDPLIB under load: qap5's certificate
#: 1.23 s on two threads, 0.42 s on one; truss6's 3.1 s and 1.4 s)
SINGLE_THREAD_MAX_SIDE = 1000


@functools.cache
def _blas_controller() -> ThreadpoolController:
    """The loaded BLAS libraries, found once (a ``threadpool_limits`` call scans them every
    time: 2.7 ms, a fifth of a small problem's certificate)."""
    return ThreadpoolController()


def _blas_threads(form: CanonicalForm):
    side = max((b.side for b in form.blocks if b.kind == "psd"), default=0)
    if max(side, form.A.shape[1]) <= SINGLE_THREAD_MAX_SIDE:
        return _blas_controller().limit(limits=1, user_api="blas")
    return contextlib.nullcontext()


def _certificate(sol: CanonicalSolution, tol: float, resolve: bool) -> Certificate:
    if sol.status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
        return farkas_certificate(sol, tol)
    if sol.status in (cp.UNBOUNDED, cp.UNBOUNDED_INACCURATE):
        return ray_certificate(sol, tol)
    if sol.x is None:
        return no_point(tol, f"{sol.solver} reports {sol.status} with no point")
    if sol.y is None:
        m = primal_measures(sol.form, sol.x)
        hi = proven_upper(equilibrated(sol.form, sol.x)[0], sol.x)
        value = hi.value if hi.label == PROOF else sol.form.objective(sol.x)
        return feasibility_only(
            tol, m, sol.form.sense * value, maximize=sol.form.sense < 0, label=hi.label, why=hi.why
        )
    return _optimality(sol, tol, resolve)
