"""A strictly feasible point for a proof: re-solve with the cones shrunk (VSDP's approach).

When the returned point sits on the boundary of a cone (or its dual), the rounding and the
equality projection of :mod:`.ends` can push it just outside, and no proof follows.
VSDP (Jansen, Chaykin & Keil 2007, §4; Härter, Jansen & Lange, VSDP 2012 manual, §2.3)
then solves a perturbed problem whose cones are shrunk by ε:

    min (c − ε_d·A_Kᵀe)ᵀx + ½xᵀPx   s.t.  Ax + b − ε_p·e ∈ K,

with e the cones' identity (ones for ℝ₊, (1, 0, …) for second-order cones, I for PSD
blocks).  Its solution x_ε lies inside K with room ε_p, and its multipliers w give
y = w + ε_d·e, which satisfies the original stationarity Aᵀy = c + Px_ε and lies inside K*
with room ε_d — both ends can then be proven, at a price of about ε_p·Σ tr(y_j) +
ε_d·Σ tr(s_j) in the width.  Where the problem has no strictly feasible point (SDPLIB's gpp,
hinf, qap), the shrunk problem is infeasible and no proof follows: the end says so.

The re-solve runs Clarabel directly on the canonical data (PSD rows converted to its upper
triangle with √2 scaling), whatever solver produced the original point — or CSDP, written
as an SDPA problem, where CSDP is installed and faster (:mod:`.resolve_csdp`) — after scaling the
objective to unit size and each cone block's rows by one positive number (each equality or
ℝ₊ row by its own) — x is unchanged by such scalings and y maps back — so that Clarabel's
absolute tolerances, and with them the certificate, behave the same on the problem
multiplied by 10⁻⁶ or 10⁶.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from cvxpy.utilities.psd_utils import tri_to_full

from .canonical import CanonicalForm
from .equilibrate import row_abs_max

#: ε relative to the magnitude of the block rows (primal) or duals (dual), before the
#: measured shortfall is added; the width pays about ε·Σ tr(y_j).  1e-9 (it was 1e-8): on
#: SDPLIB every proof found at 1e-8 is found at 1e-9 and the proven intervals of control1–5,
#: truss2, 5–8 and hinf9 are ten times narrower (control2: 1.2e-3 → 1.2e-4); at 1e-10 some
#: proofs fail (control3's lower end: Clarabel's re-solve, to RESOLVE_TOL, leaves less room)
SHRINK_REL = 1e-9
#: Clarabel's accuracy for the re-solve
RESOLVE_TOL = 1e-10
#: CSDP's (its axtol, atytol and objtol; its own measures, relative): at 1e-10 it ended
#: "stuck at edge of primal feasibility" on control4's and qap6's shrunk problems, after
#: searching two iterations more (0.21 → 0.12 s, 0.05 → 0.02 s run alone); on SDPLIB every
#: label is the same at 1e-9 and every proven width within 6 % (2026-11-28: control2–5,
#: qap5–8, truss5, truss8; control5's certificate 0.80 → 0.61 s, qap8's 0.55 → 0.22 s)
CSDP_TOL = 1e-9
#: the re-solve's time limit: this many times the original solve, and at least RESOLVE_MIN_S
#: (a certificate must not cost a hundred first-order solves)
RESOLVE_TIME_FACTOR = 2.0
RESOLVE_MIN_S = 2.0
#: and its iteration cap: this many times the original solve's interior-point iterations,
#: and at least RESOLVE_MIN_ITER.  Where a strictly feasible point exists the shrunk problem
#: takes about as many iterations as the original (SDPLIB with Clarabel, 2026-11-25: 0.35 to
#: 1.4 times, qap5 24 for 9); where none does, Clarabel runs on until it detects that
#: (hinf3, hinf10, hinf11: 167 to 173 iterations after 20 to 25), at up to six times the
#: cost of the solve itself, to find nothing
RESOLVE_ITER_FACTOR = 2.0
RESOLVE_MIN_ITER = 50
#: Clarabel's own cap, kept where the original solver's iterations say nothing about an
#: interior-point method's (a first-order solver's thousands)
CLARABEL_MAX_ITER = 200
#: solvers whose iteration counts are interior-point iterations
INTERIOR_POINT_SOLVERS = frozenset({"clarabel", "mosek", "ecos", "cvxopt", "csdp", "sdpa"})
#: the re-solve is skipped when Clarabel's dense PSD scaling blocks would exceed this
#: (48 bytes per entry of each block's (side(side+1)/2)² matrix, as solvers.conic measures)
RESOLVE_MEMORY_BYTES = 2 * 2**30


@dataclass
class Perturbed:
    x: np.ndarray
    y: np.ndarray
    status: str
    eps_primal: float
    eps_dual: float
    solve_time_s: float
    solver: str = "Clarabel"


@functools.lru_cache(maxsize=64)
def _psd_triplets(side: int, triangle, sqrt2: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Clarabel's row, our row, weight) of the entries of T (Clarabel's rows = T · our rows)
    for one PSD block of this layout, offsets within the block: the upper triangle by
    columns, off-diagonals × √2 — cached per layout."""
    n = side
    iu, ju = np.triu_indices(n)
    order = np.lexsort((iu, ju))  # column-major upper triangle
    iu, ju = iu[order], ju[order]
    k = np.arange(iu.size)
    if triangle is None:  # full n² column-major: sym entry = (v_ij + v_ji)/2
        w = np.where(iu == ju, 0.5, np.sqrt(2.0) / 2)
        return np.concatenate([k, k]), np.concatenate([iu + ju * n, ju + iu * n]), np.tile(w, 2)
    marks = tri_to_full(np.arange(1.0, n * (n + 1) // 2 + 1), n, triangle, False)
    cols = np.rint(marks[iu, ju]).astype(int) - 1
    return k, cols, np.where(iu == ju, 1.0, 1.0 if sqrt2 else np.sqrt(2.0))


def _row_map(form: CanonicalForm) -> sp.csr_matrix:
    """T with Clarabel's rows = T · our rows, built from every block's entries at once (one
    sparse matrix per block and their ``block_diag`` cost 0.14 ms a block: truss6's 151
    blocks 21 ms); the identity on the blocks other than PSD."""
    rows, cols, vals, out = [], [], [], 0
    for blk in form.blocks:
        if blk.kind == "psd":
            r, c, w = _psd_triplets(blk.side, blk.triangle, blk.sqrt2)
            size = blk.side * (blk.side + 1) // 2
        else:
            size = blk.size
            r = c = np.arange(size)
            w = np.ones(size)
        rows.append(out + r)
        cols.append(blk.start + c)
        vals.append(w)
        out += size
    if not rows:
        return sp.csr_matrix((0, form.A.shape[0]))
    coo = (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols)))
    return sp.csr_matrix(coo, shape=(out, form.A.shape[0]))


#: interior points of K_exp and K_α (in (x, y, z) order) and of their dual cones:
#: 1·e^(−1) < 1; (−v, −u, e·w) = (−1, 1, 1) ∈ int K_exp; x^α y^(1−α) = 1 > 0; (α, 1 − α, 0)
#: maps to (1, 1, 0) ∈ int K_α
_EXP_INSIDE, _EXP_DUAL_INSIDE = (-1.0, 1.0, 1.0), (-1.0, 1.0, 1.0 / np.e)


def cone_identity(form: CanonicalForm, dual: bool = False) -> np.ndarray:
    """e, in the canonical rows: a point inside every cone (``dual``: inside K*) — I on PSD
    blocks, ones on ℝ₊, (1, 0, …) on second-order cones, fixed interior points of the
    exponential and power cones, 0 on equalities (kept on the form; a copy is returned)."""
    kept = form.derived(f"cone identity, dual={dual}", lambda: _cone_identity(form, dual))
    return kept.copy()


def _cone_identity(form: CanonicalForm, dual: bool) -> np.ndarray:
    e = np.zeros(form.A.shape[0])
    for blk in form.blocks:
        if blk.kind == "psd":
            e[blk.start + blk.diagonal_rows()] = 1.0
        elif blk.kind == "nonneg":
            e[blk.rows] = 1.0
        elif blk.kind == "soc":
            e[blk.start] = 1.0
        elif blk.kind in ("exp", "pow3d"):
            a = blk.alpha
            point = (
                (_EXP_DUAL_INSIDE if dual else _EXP_INSIDE)
                if blk.kind == "exp"
                else ((a, 1 - a, 0.0) if dual else (1.0, 1.0, 0.0))
            )
            for i in range(3):
                e[blk.start + blk.order[i]] = point[i]
    return e


def _clarabel_data(form: CanonicalForm):
    """(T, cones, −T·A): the row map onto Clarabel's layout, its cones, and A there."""
    import clarabel

    cones = []
    for blk in form.blocks:
        if blk.kind == "psd":
            cones.append(clarabel.PSDTriangleConeT(blk.side))
        elif blk.kind == "zero":
            cones.append(clarabel.ZeroConeT(blk.size))
        elif blk.kind == "nonneg":
            cones.append(clarabel.NonnegativeConeT(blk.size))
        elif blk.kind == "soc":
            cones.append(clarabel.SecondOrderConeT(blk.size))
        elif blk.kind == "exp":
            cones.append(clarabel.ExponentialConeT())
        else:
            cones.append(clarabel.PowerConeT(blk.alpha))
    if any(b.kind == "exp" and b.order != (0, 1, 2) for b in form.blocks):
        raise NotImplementedError("exponential cone rows in another order")
    T = _row_map(form)
    return T, cones, (-(T @ form.A)).tocsc()


def normalized(form: CanonicalForm) -> tuple[CanonicalForm, np.ndarray, float]:
    """(the form with rows and objective scaled to unit size, the row factors r, σ): the
    scaled problem has the same x, and y = σ·r·y′ (kept on the form)."""
    return form.derived("normalized", lambda: _normalized(form))


def _normalized(form: CanonicalForm) -> tuple[CanonicalForm, np.ndarray, float]:
    from dataclasses import replace

    A = sp.csr_matrix(form.A)
    mag = np.maximum(row_abs_max(A), np.abs(form.b))
    r = np.ones(A.shape[0])
    for blk in form.blocks:
        m = mag[blk.rows]
        if blk.kind in ("zero", "nonneg"):
            r[blk.rows] = np.where(m > 0, 1.0 / np.where(m > 0, m, 1.0), 1.0)
        else:
            top = float(np.max(m, initial=0.0))
            r[blk.rows] = 1.0 / top if top > 0 else 1.0
    sigma = max(
        float(np.max(np.abs(form.c), initial=0.0)),
        float(abs(form.P).max()) if form.P is not None and form.P.nnz else 0.0,
    )
    sigma = sigma if sigma > 0 else 1.0
    out = replace(
        form,
        A=(sp.diags(r) @ A).tocsr(),
        b=r * form.b,
        c=form.c / sigma,
        d=form.d / sigma,
        P=None if form.P is None else form.P / sigma,
    )
    return out, r, sigma


def resolve_refusal(form: CanonicalForm) -> str:
    """'' when a re-solve fits, else why not (Clarabel's PSD scaling blocks' memory)."""
    need = sum(48 * (b.side * (b.side + 1) // 2) ** 2 for b in form.blocks if b.kind == "psd")
    if need > RESOLVE_MEMORY_BYTES:
        return (
            f"no re-solve: Clarabel's PSD blocks would take about {need / 2**30:.1f} GiB "
            f"(over {RESOLVE_MEMORY_BYTES / 2**30:.0f} GiB for a certificate)"
        )
    return ""


def resolve_limits(solve_time_s: float, iterations: int | None, solver: str = "") -> dict:
    """The re-solve's ``time_limit`` and ``max_iter`` after a solve of this time and
    iteration count by ``solver`` (Clarabel's own cap where the count is unknown or not an
    interior-point method's)."""
    limits = {"time_limit": max(RESOLVE_MIN_S, RESOLVE_TIME_FACTOR * solve_time_s)}
    if iterations and solver.lower() in INTERIOR_POINT_SOLVERS:
        cap = max(RESOLVE_MIN_ITER, int(RESOLVE_ITER_FACTOR * iterations))
        limits["max_iter"] = min(CLARABEL_MAX_ITER, cap)
    return limits


def shrink_and_solve(
    form: CanonicalForm,
    eps_primal: float,
    eps_dual: float,
    time_limit: float | None = None,
    max_iter: int | None = None,
) -> Perturbed | None:
    """Solve the shrunk problem on the normalised data (ε relative to it) with Clarabel, or
    with CSDP where :func:`.resolve_csdp.csdp_resolves` (installed, SDPA's own form, large
    enough to pay for its start); None when the solver finds no solution (no strictly
    feasible point at this ε, or it failed, or ran out of ``time_limit`` or ``max_iter``)."""
    from .resolve_csdp import csdp_resolves, shrink_and_solve_csdp

    scaled, r, sigma = normalized(form)
    if csdp_resolves(scaled):
        got = shrink_and_solve_csdp(scaled, eps_primal, eps_dual, CSDP_TOL, time_limit, max_iter)
    else:
        got = _shrink_and_solve(scaled, eps_primal, eps_dual, time_limit, max_iter)
    if got is None:
        return None
    got.y = sigma * r * got.y
    return got


def _shrink_and_solve(
    form: CanonicalForm,
    eps_primal: float,
    eps_dual: float,
    time_limit: float | None = None,
    max_iter: int | None = None,
) -> Perturbed | None:
    import time

    import clarabel

    T, cones, A_cl = form.derived("clarabel", lambda: _clarabel_data(form))
    e, e_dual = cone_identity(form), cone_identity(form, dual=True)
    b_cl = T @ (form.b - eps_primal * e)
    c = form.c - eps_dual * (form.A.T @ e_dual)
    n = form.A.shape[1]
    P = sp.triu(form.P if form.P is not None else sp.csc_matrix((n, n)), format="csc")
    s = clarabel.DefaultSettings()
    s.verbose = False
    s.tol_gap_abs = s.tol_gap_rel = s.tol_feas = RESOLVE_TOL
    if time_limit is not None:
        s.time_limit = float(time_limit)
    if max_iter is not None:
        s.max_iter = int(max_iter)
    t0 = time.perf_counter()
    try:
        sol = clarabel.DefaultSolver(
            P, np.asarray(c, float), A_cl, np.asarray(b_cl, float), cones, s
        ).solve()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:
        return None  # derive from BaseException: a failed re-solve is "no point"
    status = str(sol.status)
    if "Solved" not in status:
        return None
    y = T.T @ np.asarray(sol.z) + eps_dual * e_dual
    return Perturbed(
        np.asarray(sol.x, float),
        np.asarray(y, float),
        status,
        eps_primal,
        eps_dual,
        time.perf_counter() - t0,
    )


def shrink_sizes(
    form: CanonicalForm,
    x: np.ndarray,
    y: np.ndarray,
    sigma_min_a: float | None = None,
    bounded: frozenset[int] = frozenset(),
) -> tuple[float, float]:
    """(ε_p, ε_d) for the normalised problem (:func:`normalized`): SHRINK_REL of the
    magnitudes of its cone rows and of its duals at (x, y) — and ε_d at least what the
    lower end's proof will take away: its enclosure δ = ρ / σ_min(A) of the stationarity
    residual, whose floor ρ is the rounding of Aᵀy (:func:`dual_room_needed`), mapped into
    the normalised units of the blocks without an a-priori bound (``bounded``)."""
    scaled, r, sigma = normalized(form)
    s = scaled.A @ x + scaled.b
    yn = y / (sigma * r)
    eps_d = SHRINK_REL * max(float(np.max(np.abs(yn), initial=0.0)), 1e-300)
    if sigma_min_a:
        room = dual_room_needed(form, x, y, sigma_min_a)
        rows = [
            blk.rows
            for j, blk in enumerate(form.blocks)
            if blk.kind in ("nonneg", "soc", "psd") and j not in bounded
        ]
        unit = min((float(np.min(sigma * r[rw], initial=np.inf)) for rw in rows), default=np.inf)
        if np.isfinite(unit) and unit > 0:
            eps_d = max(eps_d, ROOM_SAFETY * room / unit)
    return SHRINK_REL * max(float(np.max(np.abs(s), initial=0.0)), 1e-300), eps_d


#: the dual re-solve's room is this many times the enclosure its proof will subtract
ROOM_SAFETY = 2.0


def dual_room_needed(form: CanonicalForm, x: np.ndarray, y: np.ndarray, sigma_min_a: float):
    """δ the lower end's proof subtracts from every dual block's λ_min even after an exact
    correction: ρ / σ_min(A) with ρ the rounding bound of c + Px − Aᵀy alone (Higham's γ_k,
    as :func:`.ends._stationarity` bounds it).  A re-solve that leaves less room than this
    in a block without an a-priori bound cannot prove the lower end (control6–8 of SDPLIB
    did exactly that: room 1.8e-9, δ 2.1e-9)."""
    from ..linalg.rounding import UNIT_ROUNDOFF, matvec_error, norm_up

    g = form.c if form.P is None else form.c + form.P @ x
    AT = form.magnitude(transposed=True)
    ATy = AT.M @ y
    err = matvec_error(AT, y) + 2 * UNIT_ROUNDOFF * (np.abs(g) + 2 * np.abs(ATy))
    return norm_up(err) / sigma_min_a
