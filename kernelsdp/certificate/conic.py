"""The generic certificate of a canonical conic answer, from (x, y) alone.

With the canonical pair of :mod:`.canonical` (s = Ax + b ∈ K, multipliers y, g = Px + c),
p = ½xᵀPx + cᵀx + d and q = d − bᵀy − ½xᵀPx (the Lagrangian's value where it is
stationary), the DIMACS error measures (Mittelmann's benchmarks, after the 7th DIMACS
challenge) are

    err1 = ‖s_zero‖₂ / (1 + ‖b‖_∞)                 primal equalities
    err2 = max(0, −min_j λ_min(s_j)) / (1 + ‖b‖_∞)   primal cones
    err3 = ‖g − Aᵀy‖₂ / (1 + ‖c‖_∞)                stationarity of the Lagrangian
    err4 = max(0, −min_j λ_min(y_j)) / (1 + ‖c‖_∞)   dual cones (K*)
    err5 = (p − q) / (1 + |p| + |q|)                 duality gap
    err6 = Σ_j ⟨s_j, y_j⟩ / (1 + |p| + |q|)          complementarity (cones, not equalities)

with λ_min per cone as in :mod:`.cones`.  DIMACS states them for the standard-form pair
(min ⟨C, X⟩, A(X) = b, X ∈ K); here the user's problem (P) is the "primal", which is
DIMACS's *dual* form: read our err1–err2 as the user's constraints and err3–err4 as the
multipliers'.  Each is checked at the tolerance; err5 and err6 by magnitude.

**The interval.**  upper = p, the value of the returned point (its infeasibility is err1–2).
lower: y is first corrected to satisfy stationarity exactly — the weighted least-norm δ with
Aᵀδ = g − Aᵀy, moving free (zero-cone) rows and bounded blocks rather than the others, one
sparse factorisation of AᵀW⁻¹A; an unbounded block pushed out of K* is projected back and
held, and the correction redone (:func:`dual_correction`) — and then, for every feasible x',

    f(x') ≥ q(y') + Σ_j min(0, λ_min(y'_j))·s̄_j,      s̄_j ≥ tr(s'_j) a-priori,

the bound of Jansen–Chaykin–Keil and VSDP (there with interval arithmetic; here in floating
point, so "rigorous" means up to the rounding of that last residual, which is reported).
Where a negative λ_min meets a block without an a-priori bound (:mod:`.bounds`), the
returned point's own trace stands in and the interval is labelled an estimate.

**Infeasibility** (Farkas): y ∈ K*, Aᵀy = 0, bᵀy < 0; normalised to bᵀŷ = −1, the measure
‖Aᵀŷ‖₂ = ρ says no feasible x has ‖x‖₂ < 1/ρ.  **Unboundedness**: a ray x̂ with Ax̂ ∈ K,
Px̂ = 0 and cᵀx̂ < 0; normalised to cᵀx̂ = −1.
"""

from __future__ import annotations

import warnings

import cvxpy as cp
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .bounds import trace_bounds
from .canonical import CanonicalForm, CanonicalSolution
from .verdict import (ESTIMATE, INFEASIBILITY, OPTIMALITY, PROOF, UNBOUNDEDNESS, Certificate,
                      feasibility_only, no_point)

#: relative weight of a row in the stationarity correction: free rows and bounded blocks
#: move, the rest (whose dual must stay in K* without a bound to absorb it) barely
HEAVY = 1e6
#: the corrected stationarity residual (relative to 1 + ‖c‖_∞) up to which the lower bound
#: counts as rigorous: floating-point rounding of Aᵀy', not an error of the method
CORRECTION_TOL = 1e-10

DIMACS = {"primal_equalities": "err1", "primal_cones": "err2", "stationarity": "err3",
          "dual_cones": "err4", "duality_gap": "err5", "complementarity": "err6"}


def _cone_min(form: CanonicalForm, v: np.ndarray, dual: bool) -> float:
    vals = [blk.min_eig(v[blk.rows], dual) for blk in form.blocks if blk.kind != "zero"]
    return float(min(vals, default=np.inf))


def _equalities(form: CanonicalForm, s: np.ndarray) -> float:
    z = [s[blk.rows] for blk in form.blocks if blk.kind == "zero"]
    return float(np.linalg.norm(np.concatenate(z))) if z else 0.0


def primal_measures(form: CanonicalForm, x: np.ndarray) -> dict[str, float]:
    s = form.A @ x + form.b
    nb = 1.0 + float(np.max(np.abs(form.b), initial=0.0))
    return {"primal_equalities": _equalities(form, s) / nb,
            "primal_cones": max(0.0, -_cone_min(form, s, dual=False)) / nb}


def correct_stationarity(form: CanonicalForm, y: np.ndarray, g: np.ndarray,
                         light_blocks: set[int], frozen: np.ndarray | None = None) -> np.ndarray:
    """y + δ with Aᵀ(y + δ) = g, δ the least Σ w_i δ_i² (w = 1 on zero rows and on the
    blocks in ``light_blocks``, HEAVY elsewhere; rows in ``frozen`` do not move)."""
    A = form.A
    winv = np.full(A.shape[0], 1.0 / HEAVY)
    for j, blk in enumerate(form.blocks):
        if blk.kind == "zero" or j in light_blocks:
            winv[blk.rows] = 1.0
    if frozen is not None:
        winv[frozen] = 0.0
    N = (A.T @ sp.diags(winv) @ A).tocsc()
    ridge = 1e-14 * max(float(N.diagonal().max(initial=0.0)), 1e-300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            lu = spla.splu((N + ridge * sp.identity(N.shape[0], format="csc")).tocsc())
            solve = lu.solve
        except RuntimeError:  # structurally singular: least squares instead
            def solve(r):
                return spla.lsqr(N, r, atol=1e-15, btol=1e-15)[0]
    y0, y = y, y.copy()
    for _ in range(3):  # iterative refinement against the ridge and rounding
        r = g - A.T @ y
        with np.errstate(all="ignore"):
            step = winv * (A @ solve(r))
        if not np.all(np.isfinite(step)):  # a singular system: keep what we have
            break
        y += step
    return y if np.all(np.isfinite(y)) else y0


def dual_correction(form: CanonicalForm, y: np.ndarray, g: np.ndarray,
                    bounds: dict[int, float], rounds: int = 3) -> np.ndarray:
    """Exact stationarity for the lower bound, keeping the unbounded cones' duals in K*.

    The least-norm correction may push an unbounded block's dual (one no a-priori bound can
    absorb) slightly out of K* — e.g. an inactive hinge row's multiplier 3e-9 → −7e-11.  Such
    entries are then set to their projection (nonneg: 0; soc/psd: eigenvalues clipped), held
    there, and the correction is redone on the other rows, at most ``rounds`` times."""
    frozen = np.zeros(form.A.shape[0], dtype=bool)
    y = y.copy()
    for _ in range(rounds):
        yc = correct_stationarity(form, y, g, set(bounds), frozen)
        moved = False
        for j, blk in enumerate(form.blocks):
            if blk.kind not in ("nonneg", "soc", "psd") or j in bounds:
                continue
            v = yc[blk.rows]
            if blk.kind == "nonneg":
                neg = np.flatnonzero(v < 0)
                if neg.size:
                    idx = blk.start + neg
                    y[idx], frozen[idx], moved = 0.0, True, True
            elif blk.min_eig(v, dual=True) < 0:
                y[blk.rows], frozen[blk.rows], moved = blk.project(v), True, True
        if not moved:
            return yc
        y[~frozen] = yc[~frozen]
    return correct_stationarity(form, y, g, set(bounds), frozen)


def _optimality(sol: CanonicalSolution, tol: float) -> Certificate:
    form, x, y = sol.form, sol.x, sol.y
    A, b = form.A, form.b
    s = A @ x + b
    nc = 1.0 + float(np.max(np.abs(form.c), initial=0.0))
    Px = np.zeros_like(x) if form.P is None else form.P @ x
    g = Px + form.c
    p = form.objective(x)
    q = form.dual_objective(x, y)
    scale = 1.0 + abs(p) + abs(q)
    cones = [j for j, blk in enumerate(form.blocks) if blk.kind != "zero"]
    measures = {
        **primal_measures(form, x),
        "stationarity": float(np.linalg.norm(g - A.T @ y)) / nc,
        "dual_cones": max(0.0, -_cone_min(form, y, dual=True)) / nc,
        "duality_gap": (p - q) / scale,
        "complementarity": sum(float(s[form.blocks[j].rows] @ y[form.blocks[j].rows])
                               for j in cones) / scale,
    }
    # the interval: exact stationarity first, then the cones' negative parts times bounds
    bounds = trace_bounds(form)
    yc = dual_correction(form, y, g, bounds)
    leftover = float(np.linalg.norm(g - A.T @ yc)) / nc
    lower = form.dual_objective(x, yc)
    rigorous = leftover <= CORRECTION_TOL
    for j in cones:
        blk = form.blocks[j]
        lam = blk.entry_min(yc[blk.rows])
        neg = np.minimum(lam, 0.0)
        if not np.any(neg < 0):
            continue
        if j in bounds:
            lower += float(np.sum(neg)) * bounds[j]
        else:
            rigorous = False
            lower += float(neg @ blk.trace(s[blk.rows]))
    measures["correction_residual"] = leftover
    cert = Certificate(OPTIMALITY, tol, float(lower), float(p), PROOF if rigorous else ESTIMATE, measures,
                       ("correction_residual",),
                       {DIMACS[k]: v for k, v in measures.items() if k in DIMACS},
                       note=("rigorous lower bound" if rigorous else
                             "estimate: no a-priori bound absorbs the dual's cone violation"))
    cert.per_constraint = dict(sol.violations)
    return cert.mapped(form.sense)


def _normalised(sol: CanonicalSolution, tol: float, kind: str, v, weights, key: str, what: str):
    """(v / −⟨weights, v⟩, None), or (None, the failing certificate) when v is missing or
    ⟨weights, v⟩ is not negative — the sign that makes v a certificate at all."""
    if v is None:
        return None, no_point(tol, f"{sol.solver} reports {sol.status} but returned no {what}")
    inner = float(weights @ v)
    if not inner < 0:
        return None, Certificate(kind, tol, measures={key: np.inf},
                                 note=f"the {what} has inner product {inner:.3g} >= 0: no certificate")
    return v / -inner, None


def _farkas(sol: CanonicalSolution, tol: float) -> Certificate:
    form = sol.form
    yh, failed = _normalised(sol, tol, INFEASIBILITY, sol.y, form.b, "farkas_sign", "dual ray")
    if failed is not None:
        return failed
    return Certificate(INFEASIBILITY, tol, measures={
        "farkas_stationarity": float(np.linalg.norm(form.A.T @ yh)),
        "farkas_cone": max(0.0, -_cone_min(form, yh, dual=True))},
        note="Farkas: y ∈ K*, Aᵀy = 0, bᵀy = −1 (no feasible x with ‖x‖ < 1/farkas_stationarity)")


def _ray(sol: CanonicalSolution, tol: float) -> Certificate:
    form = sol.form
    rh, failed = _normalised(sol, tol, UNBOUNDEDNESS, sol.ray, form.c, "ray_sign", "primal ray")
    if failed is not None:
        return failed
    Ar = form.A @ rh
    m = {"ray_equalities": _equalities(form, Ar),
         "ray_cone": max(0.0, -_cone_min(form, Ar, dual=False))}
    if form.P is not None:
        m["ray_curvature"] = float(np.linalg.norm(form.P @ rh))
    return Certificate(UNBOUNDEDNESS, tol, measures=m,
                       note="ray: Ax̂ ∈ K, cᵀx̂ = −1 (the objective decreases without bound)")


def conic_certificate(sol: CanonicalSolution, tol: float) -> Certificate:
    """The certificate of one canonical answer, chosen by what the solver claims."""
    if sol.status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
        return _farkas(sol, tol)
    if sol.status in (cp.UNBOUNDED, cp.UNBOUNDED_INACCURATE):
        return _ray(sol, tol)
    if sol.x is None:
        return no_point(tol, f"{sol.solver} reports {sol.status} with no point")
    if sol.y is None:
        m = primal_measures(sol.form, sol.x)
        return feasibility_only(tol, m, sol.form.sense * sol.form.objective(sol.x),
                                maximize=sol.form.sense < 0)
    return _optimality(sol, tol)
