"""Issue #30's fifth pass, a timeboxed prototype: the dual spectral bundle method with box
bounds (Helmberg & Kiwiel, "A spectral bundle method with bounds", Math. Program. 93,
2002) as a polisher from the low-rank augmented Lagrangian's point, measured beside ADMM
and the plain ``low-rank-alm`` on ``npkl_scale.py``'s instance (two Gaussians, mutual 5-NN
graph, m = 1.2n, hinge, C = 1, tr K ≤ B = n).

**The dual** (docs/npkl.md §3, hinge, β = −α·T):  D(α) = Σα + B·min(0, λ_min(S(α))),
S(α) = M(−α·T) = L − Σ_p α_p T_p E_p, α ∈ [0, C]^m, and B·min(0, λ_min(S)) =
min{⟨S, X⟩ : X ⪰ 0, tr X ≤ B} (HK eq. (2)).  **The model** (HK §2, eq. (5)): X restricted
to 𝒲 = {P W Pᵀ + γ W̄ : W ⪰ 0, γ ≥ 0, tr W + γ ≤ B}, P an orthonormal n×k bundle, W̄ the
aggregate (tr W̄ = 1, kept as a factor Ū of at most ``AGG_COLS`` columns); the model
f̂(α) = Σα + min_{X∈𝒲} ⟨S(α), X⟩ ≥ D(α).  **The step** (HK eq. (6), with the box as
their bounds): max_{α∈[0,C]^m} f̂(α) − (u/2)‖α − α̂‖², solved as the saddle in X: for fixed
X the α-part is the clip α(X) = clip(α̂ + (1 − T·X_p)/u, 0, C) — the augmented Lagrangian's
multiplier update with ρ = 1/u — so what is left is the convex, piecewise quadratic

    g(W, γ) = ⟨PᵀLP, W⟩ + γ⟨L, W̄⟩ + Σ_p [α_p(1 − T_pX_p) − (u/2)(α_p − α̂_p)²],  α = α(X),

minimised over {W ⪰ 0, γ ≥ 0, tr W + γ ≤ B} by FISTA with the projection by an
eigendecomposition of the k×k W (the capped simplex on [eig(W), γ]).  One FISTA iteration
costs two m×k×k products with the pairs' rows of P (no product with the n×n matrix).
**Evaluation** (HK §3): λ_min of the WHOLE S(α_new) by LOBPCG, warm-started from the
bottom Ritz vectors of S(α_new) in span P (one n×k product), block ``EIG_BLOCK`` — never
an eigensolve off span P (the failure of the first subspace prototype, docs/npkl.md §7).
Serious step when D(α_new) − D(α̂) ≥ κ·(f̂(α_new) − D(α̂)) (κ = 0.1); u (1/ρ of the ALM
at the switch) halves after a serious step with ratio ≥ 0.5 and stays after a null step
(growing it 1.5× there stalled the primal: ρ fell to 0.2).  Bundle update (HK §4): P ←
orth[P·Q₁ (W's eigenvectors with eigenvalue ≥ 1e-3·max), LOBPCG's block, the lowest Ritz
vectors of S(α_new) in span P up to k_max = r₀ + 8 + 16 columns]; the rest of P W Pᵀ and
γW̄ go into the aggregate.  (Keeping only W's range and the new block cycled the 8 new
vectors through a bottom cluster of about 24: the primal stalled at 1,006.3 at n = 3,000.)

**The certificate**: never relabelled.  The primal factor is U = [P W^{1/2}, √γ·Ū]
(‖U‖²_F ≤ B: feasible), the dual the centre α̂; the interval is
:func:`kernelsdp.solvers.alm_certificate.interval` exactly as the solver's own (upper a
proof, lower ``proof`` by the verified λ_min up to n = 4,000, else ``probable``), computed
after a serious step once the estimated gap is ≤ 0.8·gap_tol (the ALM's rule), and its
time is counted.  It hooks in where the Newton polish does (``low-rank-alm`` with
``polish_at``; the hook ``alm_outer._polish`` is replaced in the child process), so the
ALM goes on from its own point if the bundle does not certify within ``--steps``.
``alm+bundle-dual`` uses the bundle as a dual polisher only: after its steps the ALM goes
on, and each check's estimate and labelled interval take the bundle's centre when its
estimated dual is the better (the interval is still :func:`interval`, at the ALM's U).

**Measured** (docs/npkl.md §7, fifth pass; docs/measurements.md): it does not pay.  At
n = 20,000 a step costs 1.2–2.8 s (88 % in the subproblem's FISTA: k = 81, m = 24,000) and
the estimated gap falls about ×0.96 a step (4.5e-3 → 1.7e-3 in 30 steps, 43 s), the primal
end lagging; at 3,000 it certifies 1e-3 in 3.2 s (ALM 1.8 s, ADMM 2.5 s) and 1e-4 in 5.8 s
(ADMM 5.3 s; the float32 ALM stalls at 2.4e-4).

    python benchmarks/npkl_bundle_proto.py --sizes 3000 20000 --gap 1e-3 --steps 30
    python benchmarks/npkl_bundle_proto.py --sizes 3000 --gap 1e-4 --steps 100
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
import warnings

import numpy as np
import scipy.linalg as sla
import scipy.sparse.linalg as spla
from npkl_polish_proto import (
    plain_row,
    print_speedups,
    print_table_header,
    print_table_row,
    run_child,
    side_by_side_arguments,
)
from npkl_scale import FROM_ZERO, instance
from threadpoolctl import threadpool_limits

from kernelsdp.solvers import alm_outer, solve
from kernelsdp.solvers.alm_certificate import interval, primal_upper

# LOBPCG's "not reaching the requested tolerance" at EIG_ITERS is expected here
warnings.filterwarnings("ignore", message=r"Exited (at iteration|postprocessing)")

METHODS = ("admm", "low-rank-alm", "alm+bundle", "alm+bundle-dual")
#: LOBPCG's block and iterations for λ_min of the whole S(α) at each step
EIG_BLOCK = 8
EIG_ITERS = 20
#: the serious-step test's share of the predicted increase (HK's m_L)
KAPPA = 0.1
#: the aggregate's factor is truncated to this many columns (then the model uses that)
AGG_COLS = 8
#: the bundle's columns beyond the ALM's rank and LOBPCG's block (8 → 16: n = 3,000's
#: primal over the final bundle 1,006.2 → 1,005.3 by Clarabel; the optimum 1,004.8)
K_MAX_EXTRA = 16
#: FISTA's iterations per subproblem and its stop (relative change of g)
FISTA_ITERS = 150
FISTA_TOL = 1e-9
#: BLAS threads of the bundle's m×k×k products (2: 3× slower at n = 3,000, shared machine)
BLAS_THREADS = 1
#: W's eigenvectors kept in the bundle: eigenvalue at least this share of the largest
KEEP_SHARE = 1e-3
#: u's rule: ×U_SERIOUS after a serious step with ratio ≥ 0.5, ×U_NULL after a null step
U_SERIOUS, U_NULL, U_MIN, U_MAX = 0.5, 1.0, 1e-3, 10.0
#: the primal recovery (off): FISTA on the Moreau-smoothed primal over the bundle with
#: u·RECOVER_SHARE; 0.01 and 0.001 moved n = 3,000's best primal after 15 steps only from
#: 1,006.33 to 1,006.24 and 1,006.21, at 1.4× and 1.9× the time
RECOVER_SHARE, RECOVER_ITERS = 0.0, 300
#: u at the start: this over the ALM's ρ (u = 1/ρ makes the step the ALM's update)
U0_SCALE = 1.0


# ----- the bundle's pieces -------------------------------------------------------------
class Bundle:
    """The problem in the caller's order and the bundle's state (module docstring)."""

    def __init__(self, f, U: np.ndarray, alpha: np.ndarray, u: float):
        self.f, self.n, self.B, self.C = f, f.n, float(f.B), float(f.C)
        self.i, self.j, self.t = f.pairs.i, f.pairs.j, f.pairs.t.astype(float)
        self.L = f.L.tocsr().astype(float)
        self.u, self.center = u, alpha.copy()
        self.products, self.eigsolves, self.fista = 0, 0, 0
        self.Ubar = np.zeros((self.n, 0))
        self.k_max = U.shape[1] + EIG_BLOCK + K_MAX_EXTRA

    def S(self, alpha: np.ndarray):
        return self.f.dual_matrix(-alpha * self.t)

    def bottom(self, alpha: np.ndarray, P: np.ndarray, seed: int):
        """(λ_min's Ritz value of the whole S(α), its block): LOBPCG warm-started from the
        bottom Ritz vectors of S(α) in span P."""
        S = self.S(alpha)
        SP = S @ P
        self.products += 1
        w, Q = np.linalg.eigh(P.T @ SP)
        X0 = P @ Q[:, :EIG_BLOCK]
        X0 += 1e-3 * np.random.default_rng(seed).standard_normal(X0.shape) / math.sqrt(self.n)
        lam, V, hist = spla.lobpcg(
            S, X0, largest=False, maxiter=EIG_ITERS, tol=1e-7, retResidualNormsHistory=True
        )
        self.products += len(hist) + 1
        self.eigsolves += 1
        o = np.argsort(lam)
        self.ritz_in_P = P @ Q  # S(α)'s Ritz vectors in span P, lowest first
        return float(min(lam[o[0]], w[0])), V[:, o]

    def dual(self, alpha: np.ndarray, lam: float) -> float:
        return float(np.sum(alpha) + self.B * min(0.0, lam))

    def agg_stats(self):
        Ub = self.Ubar
        wbar = np.einsum("ij,ij->i", Ub[self.i], Ub[self.j]) if Ub.shape[1] else None
        lbar = float(np.sum(Ub * (self.L @ Ub))) if Ub.shape[1] else 0.0
        return wbar, lbar


def _project(W: np.ndarray, g: float, B: float):
    """Euclidean projection of (W, γ) onto {W ⪰ 0, γ ≥ 0, tr W + γ ≤ B}."""
    d, Q = np.linalg.eigh(0.5 * (W + W.T))
    x = np.concatenate([d, [g]])
    y = np.maximum(x, 0.0)
    if y.sum() > B:  # the capped simplex: a shift τ with Σ max(x − τ, 0) = B
        s = np.sort(x)[::-1]
        c = (np.cumsum(s) - B) / np.arange(1, len(s) + 1)
        tau = c[np.nonzero(s - c > 0)[0][-1]]
        y = np.maximum(x - tau, 0.0)
    return (Q * y[:-1]) @ Q.T, float(y[-1])


def subproblem(b: Bundle, P: np.ndarray, W0: np.ndarray, g0: float, iters: int = 0):
    """HK eq. (6) for the hinge's box: FISTA on g(W, γ) (module docstring); returns
    (W, γ, α(X), the model value f̂(α), the pair values X_p)."""
    Pi, Pj = P[b.i], P[b.j]
    PLP = P.T @ (b.L @ P)
    b.products += 1
    wbar, lbar = b.agg_stats()
    t, C, u, ac = b.t, b.C, b.u, b.center

    def parts(W, g):
        x = np.einsum("ij,ij->i", Pi @ W, Pj)
        if wbar is not None:
            x = x + g * wbar
        a = np.clip(ac + (1.0 - t * x) / u, 0.0, C)
        val = np.sum(PLP * W) + g * lbar + np.sum(a * (1 - t * x) - 0.5 * u * (a - ac) ** 2)
        c = t * a
        G = Pi.T @ (c[:, None] * Pj)
        GW = PLP - 0.5 * (G + G.T)
        gg = lbar - (float(c @ wbar) if wbar is not None else 0.0)
        return val, GW, gg, a, x

    # the gradient's Lipschitz constant ≤ ‖A‖²/u, A: (W, γ) ↦ X_p, by power iteration
    Z = np.random.default_rng(1).standard_normal(W0.shape)
    Z = Z + Z.T
    for _ in range(8):
        Z /= np.linalg.norm(Z)
        y = np.einsum("ij,ij->i", Pi @ Z, Pj)
        Z = 0.5 * (Pi.T @ (y[:, None] * Pj) + Pj.T @ (y[:, None] * Pi))
    lip = 1.2 * (np.linalg.norm(Z) + (float(wbar @ wbar) if wbar is not None else 0.0)) / u
    W, g = _project(W0, g0, b.B)
    Wy, gy, th, last = W.copy(), g, 1.0, math.inf
    for it in range(iters or FISTA_ITERS):
        val, GW, gg, a, x = parts(Wy, gy)
        Wn, gn = _project(Wy - GW / lip, gy - gg / lip, b.B)
        thn = 0.5 * (1 + math.sqrt(1 + 4 * th * th))
        Wy = Wn + ((th - 1) / thn) * (Wn - W)
        gy = max(gn + ((th - 1) / thn) * (gn - g), 0.0)
        W, g, th = Wn, gn, thn
        if abs(last - val) <= FISTA_TOL * max(abs(val), 1.0) and it > 10:
            break
        last = val
    b.fista += it + 1
    val, GW, gg, a, x = parts(W, g)
    # the model at α(X): Σα + ⟨S(α), X⟩ for X = PWPᵀ + γW̄ (the saddle's value plus the prox)
    model = float(np.sum(a) + np.sum(PLP * W) + g * lbar - np.sum(t * a * x))
    return W, g, a, model


def update_bundle(b: Bundle, P: np.ndarray, W: np.ndarray, g: float, V: np.ndarray):
    """HK §4: keep W's leading eigenvectors, aggregate the rest, add LOBPCG's block."""
    d, Q = np.linalg.eigh(W)
    d, Q = d[::-1], Q[:, ::-1]
    keep = min(int(np.sum(d >= KEEP_SHARE * max(d[0], 1e-300))), b.k_max - V.shape[1])
    rest = [P @ (Q[:, keep:] * np.sqrt(np.maximum(d[keep:], 0)))]
    if b.Ubar.shape[1] and g > 0:
        rest.append(math.sqrt(g) * b.Ubar)
    F = np.hstack(rest)
    tr = float(np.sum(F * F))
    if tr > 0:  # the aggregate's factor, truncated to AGG_COLS columns, trace 1
        Uf, s, _ = np.linalg.svd(F, full_matrices=False)
        F = Uf[:, :AGG_COLS] * s[:AGG_COLS]
        g_new = float(np.sum(F * F))
        b.Ubar = F / math.sqrt(g_new)
    else:
        g_new = 0.0
    P1 = P @ Q[:, :keep]
    extra = max(0, b.k_max - keep - V.shape[1])  # the lowest Ritz vectors in span P stay
    Z = np.hstack([P1, V, b.ritz_in_P[:, :extra]])
    Pn, R, _ = sla.qr(Z, mode="economic", pivoting=True)
    Pn = Pn[:, np.abs(np.diag(R)) > 1e-8 * abs(R[0, 0])]
    W_new = Pn.T @ (P1 * d[:keep]) @ (P1.T @ Pn)
    return Pn, 0.5 * (W_new + W_new.T), g_new


def primal_factor(b: Bundle, P: np.ndarray, W: np.ndarray, g: float) -> np.ndarray:
    d, Q = np.linalg.eigh(W)
    keep = d > 1e-12 * max(d[-1], 1e-300)
    U = P @ (Q[:, keep] * np.sqrt(d[keep]))
    if b.Ubar.shape[1] and g > 0:
        U = np.hstack([U, math.sqrt(g) * b.Ubar])
    return U


# ----- the polisher, in the place of alm_outer._polish ---------------------------------
def bundle_polish(run, chk, pt, steps: int) -> bool:
    """:func:`_bundle_polish` with ``BLAS_THREADS`` BLAS threads (the ALM runs with one)."""
    with threadpool_limits(limits=BLAS_THREADS, user_api="blas"):
        return _bundle_polish(run, chk, pt, steps)


def _bundle_polish(run, chk, pt, steps: int) -> bool:
    """HK's proximal bundle iteration from the ALM's point; True once a serious step's
    labelled interval (:func:`interval`) is within gap_tol (``run.best`` holds it)."""
    run.polished = True
    f, o = run.f, run.o
    t = f.pairs.t.astype(float)
    U0 = run.prob.to_original(pt.X)
    alpha = np.clip(-np.asarray(chk.beta_tilde, np.float64) * t, 0.0, f.C)
    b = Bundle(f, U0, alpha, U0_SCALE / run.rho)
    P0, _ = sla.qr(U0, mode="economic")
    lam_c, V = b.bottom(alpha, P0, o.seed)
    P, _ = sla.qr(np.hstack([U0, V]), mode="economic")
    W, g = (P.T @ U0) @ (U0.T @ P), 0.0
    D_c = b.dual(alpha, lam_c)
    best_p, best_U = primal_upper(f, U0)
    base = run.prob.products
    for step in range(1, steps + 1):
        W, g, a_new, model = subproblem(b, P, W, g)
        lam, V = b.bottom(a_new, P, o.seed + step)
        D_new = b.dual(a_new, lam)
        Wp, gp = W, g
        if RECOVER_SHARE > 0:  # the smoothed primal over the bundle, for the upper end
            u_keep, b.u = b.u, b.u * RECOVER_SHARE
            Wp, gp = subproblem(b, P, W, g, RECOVER_ITERS)[:2]
            b.u = u_keep
        pu, Uf = primal_upper(f, primal_factor(b, P, Wp, gp))
        if pu < best_p:
            best_p, best_U = pu, Uf
        pred = model - D_c
        serious = D_new - D_c >= KAPPA * max(pred, 0.0) and D_new > D_c
        if serious:
            if D_new - D_c >= 0.5 * pred:
                b.u = max(U_MIN, b.u * U_SERIOUS)
            b.center, D_c, lam_c = a_new, D_new, lam
        else:
            b.u = min(U_MAX, b.u * U_NULL)
        run.prob.products = base + b.products
        est = (best_p - D_c) / max(abs(best_p), 1e-300)
        rec = {
            "bundle_step": step,
            "time_s": run.elapsed(),
            "serious": bool(serious),
            "estimated_gap": est,
            "lambda": lam,
            "u": b.u,
            "k": P.shape[1],
            "fista": b.fista,
            "products": run.prob.products,
            "eigsolves": b.eigsolves,
        }
        run.history.append(rec)
        if run.out_of_budget() is not None:
            return False
        if serious and est <= 0.8 * o.gap_tol:
            beta = -b.center * t
            iv = interval(
                f,
                best_U,
                beta,
                lam_c,
                o.gap_tol,
                o.verify_max_n,
                o.failure_probability,
                o.seed + 104_729 * step,
            )
            if not math.isfinite(iv.lam_ritz):
                iv.lam_ritz = iv.lam_lower
            rec.update(certified_gap=iv.width, lower_label=iv.lower_label, time_s=run.elapsed())
            if iv.width <= o.gap_tol:
                run.best = (iv, beta)
                run.bundle = b
                return True
        P, W, g = update_bundle(b, P, W, g, V)
    run.bundle_state = (b, P, W, g, best_U, best_p, D_c, lam_c)
    return False


def _bundled(n: int, gap: float, switch: float, limit: float, steps: int, hook=None) -> dict:
    alm_outer._polish = hook or (lambda run, chk, pt: bundle_polish(run, chk, pt, steps))
    f = instance(n)
    t0 = time.perf_counter()
    r = solve(f, "low-rank-alm", gap_tol=gap, time_limit=limit, polish_at=switch, **FROM_ZERO)
    dt = time.perf_counter() - t0
    bs = [h for h in r.history if "bundle_step" in h]
    first = bs[0]["time_s"] if bs else float("nan")
    checks = [h for h in r.history if "check" in h and h["time_s"] <= first]
    last_alm = [h for h in r.history if "check" in h]
    return {
        "status": r.termination.value,
        "iterations": f"{r.iterations}+{len(bs)}",
        "products": r.info["products"],
        "eigsolves": r.info["checks"] + (bs[-1]["eigsolves"] if bs else 0),
        "solve_s": dt,
        "alm_s": checks[-1]["time_s"] if checks else float("nan"),
        "alm_after": len(last_alm) - len(checks),
        "gap": float(r.info["relative_gap"]),
        "label": r.info["certificate"].lower_label,
        "rank": r.kernel.rank,
        "steps": [
            (
                h["time_s"],
                h["estimated_gap"],
                h.get("certified_gap", float("nan")),
                int(h["serious"]),
                h["u"],
                h["k"],
                h["fista"],
                h["lambda"],
            )
            for h in bs
        ],
    }


def _hybrid(n: int, gap: float, switch: float, limit: float, steps: int) -> dict:
    """The bundle as a dual polisher only: ``steps`` bundle steps at the switch, then the
    ALM goes on for the primal; each check's estimate, and the labelled interval, take the
    better (estimated) of the ALM's β̃ and the bundle's centre.  The interval is still
    :func:`interval` at (the ALM's U, that β): nothing relabelled."""
    hy: dict = {}

    def hook(run, chk, pt):
        if bundle_polish(run, chk, pt, steps):
            return True
        b, D_c, lam_c = run.bundle_state[0], run.bundle_state[6], run.bundle_state[7]
        hy.update(beta=-b.center * b.t, dual=D_c, lam=lam_c, bundle=b)
        return False

    check0, interval0 = alm_outer._Run.check, alm_outer.interval

    def check(self, pt):
        chk, rec = check0(self, pt)
        hy["alm_dual"] = rec["dual"]
        if "dual" in hy and hy["dual"] > rec["dual"]:
            rec["estimated_gap"] = (rec["primal"] - hy["dual"]) / max(abs(rec["primal"]), 1e-300)
        return chk, rec

    def interval_(f, U, beta, lam_ritz, *a, **k):
        if "dual" in hy and hy["dual"] > hy.get("alm_dual", -math.inf):
            beta, lam_ritz = hy["beta"], hy["lam"]
        return interval0(f, U, beta, lam_ritz, *a, **k)

    alm_outer._Run.check, alm_outer.interval = check, interval_
    row = _bundled(n, gap, switch, limit, steps, hook)
    row["dual_from_bundle"] = bool("dual" in hy and hy["dual"] > hy.get("alm_dual", -math.inf))
    return row


def main() -> int:
    ap = side_by_side_arguments(__doc__, METHODS, [3000])
    ap.add_argument("--steps", type=int, default=30, help="bundle steps before the ALM resumes")
    args = ap.parse_args()
    if args.child:
        method, n = args.child[0], int(args.child[1])
        if method == "alm+bundle":
            row = _bundled(n, args.gap, args.switch, args.time_limit, args.steps)
        elif method == "alm+bundle-dual":
            row = _hybrid(n, args.gap, args.switch, args.time_limit, args.steps)
        else:
            row = plain_row(method, n, args.gap, args.time_limit)
        print(json.dumps(row))
        return 0
    print_table_header(args, eigs=True)
    rows = {}
    for n in args.sizes:
        for method in args.methods.split(","):
            options = ["--gap", str(args.gap), "--switch", str(args.switch)]
            options += ["--steps", str(args.steps), "--time-limit", str(args.time_limit)]
            row = run_child(__file__, method, n, options)
            if not print_table_row(n, method, row, eigs=True):
                continue
            rows[n, method] = row
            if row["steps"]:
                print(
                    f"        ALM to {args.switch:g}: {row['alm_s']:.1f} s, ALM checks "
                    f"after the bundle: {row['alm_after']}; bundle steps (time, est. gap, "
                    "cert. gap, serious, u, k, FISTA total, λ):",
                    flush=True,
                )
                for s in row["steps"]:
                    print(
                        f"          {s[0]:7.2f}s {s[1]:9.2e} {s[2]:9.2e} {s[3]} {s[4]:8.2e} "
                        f"{s[5]:3d} {s[6]:5d} {s[7]: .3e}",
                        flush=True,
                    )
    print_speedups(rows, args.sizes, args.methods.split(","))
    print(f"load {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
