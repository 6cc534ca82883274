"""Issue #30's eleventh pass, a timeboxed prototype: can the localised directions of
negative curvature (docs/npkl.md §7, tenth pass: a few nodes around a hub of the pair
graph) be found in bulk by small local eigenproblems, instead of one Frank–Wolfe check at
a time?  Measured beside the plain ``low-rank-alm`` on ``npkl_scale.py``'s instance (two
Gaussians, mutual 5-NN graph, m = 1.2n, hinge, C = 1, tr K ≤ B = n).

**Local eigenproblems.**  M = M(β̃) is the check's matrix (L and the pairs' multipliers),
whose pattern is the graph's and the pairs'.  For a node h and its k-hop neighbourhood N
in that pattern, the lowest eigenpair (λ_N, v_N) of the principal block M[N, N] gives a
vector of R^n (v_N on N, 0 elsewhere) whose Rayleigh quotient is exactly λ_N ≥ λ_min(M)
(Cauchy interlacing): a direction of negative curvature wherever λ_N is below V's own
level −μ.  Candidates h are the nodes whose star quotient d_h − ‖M[h, ≠h]‖₂ is within
``--margin`` of the level (at most ``alm_pockets.CANDIDATES``, the lowest first); each
node already in a found support is skipped.  Since the thirty-first pass these local
eigenproblems, the packing and the line search are the solver's own
(:mod:`kernelsdp.solvers.alm_pockets`, the option ``pockets``), which this prototype calls.

**Packing.**  Two such vectors whose supports are disjoint and joined by no entry of M's
pattern can share one column u = v₁ + v₂: K = uuᵀ differs from v₁v₁ᵀ + v₂v₂ᵀ only off the
pattern, where neither tr(LK), tr K nor a pair entry reads it.  The found vectors are
packed greedily into at most ``alm_pockets.COLUMNS`` columns (each column's supports kept one step
apart), so that the factor's width grows by at most that many whatever their number.

**The variants** (each replaces :func:`kernelsdp.solvers.alm_outer.fw_step` in the child
process by the solver's own step followed by the variant's; the checks, the inner Newton
steps, the multiplier schedule and the labelled interval are the solver's own, untouched:
every row is certified from scratch as ``low-rank-alm`` is):

- ``local-ls``: each packed column u (unit norm) is a Frank–Wolfe vertex B·uuᵀ in turn,
  K ← (1 − t)K + t·B·uuᵀ with the solver's exact line search in t;
- ``local-seed``: the packed columns of the local directions within ``--seed-margin`` above
  the level (not yet below it) join the factor as seed columns with the block seeds'
  weight (``SEED_WEIGHT``), for the inner steps to grow before they become pockets;
- ``refill``: every localised vertex a check finds is kept (its support, by its top node,
  the last ``KEPT`` of them); after each round of inner steps, those whose quotient under
  M(β̃) at the new point is below the last check's level are line-searched back in as
  Frank–Wolfe vertices, before the next check (tests whether the inner steps' draining
  of a hub is what brings it back to the check);
- ``floor-G`` / ``hubfloor-G``: the Newton model's curvature in a pair, the envelope's
  slope β̃′, floored at G·ρ (on every pair / on the pairs at a node with at least ``HUB``
  pairs); the ratio test is unchanged (tests whether the model's blindness at the box's
  ends is what lets a step carry a hub across its band).

- ``rowcap-F`` (``rowcap-F@K``: from the K-th check on): a per-row trust region beside
  the global one — a trust-region Newton step that takes a heavy row of the factor
  (‖x_i‖² at least ``HEAVY`` times the mean) below 1/F of its norm² is rejected as a
  failed ratio test (Δ/4), so that no step drains a hub at once (tests whether the global
  ratio test is what lets a step good for the bulk carry a hub across its band).

- ``hybrid`` (thirteenth pass; the solver's option ``inner="hybrid"``, which the
  prototype's version became): FISTA's inner round after a check whose vertex is localised
  and below the level, Newton's otherwise (tests whether FISTA's steps, which keep a hub
  filled, end the recurrences);
- ``threads`` / ``hybrid-threads``: the check's dense work on every core (with the Newton
  steps / with ``hybrid``).

- ``pairrho-W`` (fifteenth pass): per-pair penalties ρ·w_p in the multipliers' prox and
  the envelope (any positive weights keep the method of multipliers and its β̃ in dom h*,
  so the certificate is untouched), w_p from the pair degrees d of the pair's two nodes
  (d̄ their mean, d_max the larger): ``inv`` d̄/d_max, ``sqrt`` (d̄/d_max)^½, ``sqrthub``
  the same on the pairs at a node with at least ``HUB`` pairs and 1 elsewhere (tests
  whether a hub's many pairs, each as stiff as any other, are what carries it across its
  band).

``--diagnose --inner fista`` runs the same diagnosis with the FISTA inner steps.

``--diagnose`` runs the plain solver and prints, for every check whose vertex is carried by
fewer than ``LOCALISED`` nodes (its participation ratio), the check's λ beside the local
λ_N of its largest entry's 1-, 2- and 3-hop neighbourhoods and the share of the vertex's
mass on each.

    python benchmarks/npkl_local_proto.py --quick           # n = 3,000 only
    python benchmarks/npkl_local_proto.py --sizes 20000 100000
    python benchmarks/npkl_local_proto.py --diagnose --sizes 100000

Measured (docs/measurements.md, "Eleventh pass"): the 2-hop blocks (52–98 nodes) find each
localised vertex's λ within 0.03 and carry 93 % of its mass (medians).  Taken in bulk they
absorb the thousand-odd pockets of the first checks at n = 10⁶, but the localised phase
goes on as before: at 100,000 its 23 checks are on 6 hubs, one of them re-found 13 times,
drained by the inner steps between checks.  Not adopted.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import time

import numpy as np
import scipy.sparse as sp
from npkl_polish_proto import alm_row, plain_row, run_child, side_by_side_arguments
from npkl_scale import FROM_ZERO, instance
from threadpoolctl import threadpool_limits

import kernelsdp.solvers.alm_newton as alm_newton
import kernelsdp.solvers.alm_outer as alm_outer
import kernelsdp.solvers.alm_problem as alm_problem
from kernelsdp.linalg.row_blocks import available_cores
from kernelsdp.solvers import solve
from kernelsdp.solvers.alm_inner import SEED_WEIGHT, _dot, _project, participation
from kernelsdp.solvers.alm_pockets import (
    SUPPORT_RTOL,
    line_searched,
    neighbourhood,
    pocket_columns,
)
from kernelsdp.solvers.alm_pockets import lowest_pair as local_pair
from kernelsdp.solvers.low_rank_alm import LOCALISED  # a vertex on fewer nodes is localised

METHODS = (
    "low-rank-alm",
    "local-ls",
    "local-seed",
    "refill",
    "floor-0.1",
    "hubfloor-1",
    "rowcap-4",
    "hybrid",
    "threads",
    "hybrid-threads",
)
#: the variants that run the solver's own steps (``hybrid``: its option inner="hybrid"),
#: with the check's BLAS on every core where the name ends in ``threads``
OWN_STEPS = ("hybrid", "threads", "hybrid-threads")
#: the parametrised variants' names
VARIANT_NAMES = r"(hub)?floor-[0-9.eE+-]+|rowcap-[0-9.]+(@[0-9]+)?|pairrho-(inv|sqrt|sqrthub)"
#: a row of the factor with at least this many times the mean norm² is heavy (``rowcap-F``)
HEAVY = 4.0
#: localised vertices ``refill`` keeps
KEPT = 64
#: a node with at least this many pairs is a hub (``hubfloor-G``)
HUB = 6


def local_directions(M: sp.csr_matrix, below: float, margin: float):
    """(columns, stats): the 2-hop local directions with λ_N < ``below``, packed into at
    most ``alm_pockets.COLUMNS`` unit columns (module docstring; the solver's
    :func:`kernelsdp.solvers.alm_pockets.pocket_columns` since the thirty-first pass)."""
    S, pieces = pocket_columns(M, below, margin)
    return S, {"found": int(pieces.sum())}


def install(method: str, args, log: list) -> None:
    """Replace the solver's Frank–Wolfe step by the variant's (in this child process)."""
    plain = alm_outer.fw_step

    def step(prob, pt, chk, beta, rho):
        V = plain(prob, pt, chk, beta, rho)
        level = min(chk.level, 0.0)
        t0 = time.perf_counter()
        if method == "local-ls":
            S, st = local_directions(prob.M, level, args.margin)
            V, st["t"] = line_searched(prob, V, S, beta, rho)
        else:
            S, st = local_directions(prob.M, level + args.seed_margin, args.margin)
            if S.shape[1]:
                weight = math.sqrt(SEED_WEIGHT * _dot(V, V) / S.shape[1])
                V = np.hstack([V, (weight * S).astype(V.dtype)])
        log.append({**st, "lambda": chk.lam, "level": level, "s": time.perf_counter() - t0})
        return _project(V).astype(prob.dtype, copy=False)

    alm_outer.fw_step = step


def install_refill(log: list) -> None:
    """The ``refill`` variant (module docstring), in this child process."""
    kept, last = {}, {"level": 0.0}
    plain_check, plain_round = alm_outer.fw_check, alm_outer._inner_round

    def check(prob, pt, *a):
        chk = plain_check(prob, pt, *a)
        last["level"], v = min(chk.level, 0.0), chk.vertex
        if participation(v) < LOCALISED and chk.lam < last["level"]:
            idx = np.flatnonzero(np.abs(v) > SUPPORT_RTOL * np.abs(v).max())
            kept[int(np.argmax(np.abs(v)))] = (idx, v[idx] / np.linalg.norm(v[idx]))
            while len(kept) > KEPT:
                kept.pop(next(iter(kept)))
        return chk

    def inner_round(run, pt, tol):
        pt, stalled = plain_round(run, pt, tol)
        if not kept or pt.X.shape[1] == 0:
            return pt, stalled
        prob = run.prob
        M = prob.dual_matrix(prob.envelope(pt.w, run.beta, run.rho)[1])
        below = [
            (idx, vals)
            for idx, vals in kept.values()
            if vals @ (M[idx][:, idx] @ vals) < last["level"]
        ]
        if not below:
            return pt, stalled
        S = np.zeros((prob.n, len(below)))
        for k, (idx, vals) in enumerate(below):
            S[idx, k] = vals
        X, steps = line_searched(prob, pt.X, S, run.beta, run.rho)
        log.append({"found": len(below), "t": steps})
        X = _project(X).astype(prob.dtype, copy=False)
        return alm_outer.evaluate(prob, X, run.beta, run.rho), stalled

    alm_outer.fw_check, alm_outer._inner_round = check, inner_round


def install_slope_floor(method: str) -> None:
    """The ``floor-G`` / ``hubfloor-G`` variants (module docstring), in this child process."""
    kind, gamma = method.rsplit("-", 1)
    plain_at, hub_pairs = alm_newton._Newton.at, {}

    def at(self, Z, known=None):
        x, p = plain_at(self, Z, known), self.prob
        if "on" not in hub_pairs:
            deg = np.bincount(np.concatenate([p.i, p.j]), minlength=p.n)
            hub_pairs["on"] = (deg[p.i] >= HUB) | (deg[p.j] >= HUB) if kind == "hubfloor" else True
        floor = float(gamma) * p.B * self.rho
        x.slope = np.where(hub_pairs["on"], np.maximum(x.slope, floor), x.slope)
        return x

    alm_newton._Newton.at = at


def install_row_cap(method: str, log: list) -> None:
    """The ``rowcap-F[@K]`` variant (module docstring), in this child process: a trial
    point that drains a heavy row reads +∞ to the ratio test (rejected, Δ/4) — from the
    K-th Frank–Wolfe check on (``@K``; from the start without it)."""
    cap, _, start = method.rsplit("-", 1)[1].partition("@")
    factor, first = float(cap), int(start or 0)
    plain_at, plain_value = alm_newton._Newton.at, alm_newton._Newton.value
    plain_check, checks = alm_outer.fw_check, [0]

    def check(prob, pt, *a):
        checks[0] += 1
        return plain_check(prob, pt, *a)

    def at(self, Z, known=None, slot=0):
        x = plain_at(self, Z, known, slot)
        self.row_norms = np.einsum("ij,ij->i", x.X, x.X, dtype=np.float64)
        return x

    def value(self, X, slot=0):
        out = plain_value(self, X, slot)
        old = getattr(self, "row_norms", None)
        if old is not None and checks[0] >= first:
            heavy = old >= HEAVY * old.sum() / old.size
            new = np.einsum("ij,ij->i", X[heavy], X[heavy], dtype=np.float64)
            if np.any(new * factor < old[heavy]):
                log.append({"found": int(np.sum(new * factor < old[heavy]))})
                return (math.inf, *out[1:])
        return out

    alm_newton._Newton.at, alm_newton._Newton.value = at, value
    alm_outer.fw_check = check


def pair_weights(prob, kind: str) -> np.ndarray:
    """``pairrho-W``'s w_p (module docstring) in the scaled problem's pair order."""
    deg = np.bincount(np.concatenate([prob.i, prob.j]), minlength=prob.n)
    top = np.maximum(deg[prob.i], deg[prob.j]).astype(float)
    ratio = (2.0 * prob.m / prob.n) / top
    if kind == "inv":
        return ratio
    return np.where(top >= HUB, np.sqrt(ratio), 1.0) if kind == "sqrthub" else np.sqrt(ratio)


def install_pair_penalties(method: str) -> None:
    """The ``pairrho-W`` variant (module docstring), in this child process: every envelope
    (the inner steps', the checks', the line searches') reads ρ·w_p."""
    kind = method.split("-", 1)[1]
    plain = alm_problem.ScaledNPKL.envelope
    weights: dict = {}

    def envelope(self, w, beta, rho):
        if id(self) not in weights:
            weights[id(self)] = pair_weights(self, kind)
        return plain(self, w, beta, rho * weights[id(self)])

    alm_problem.ScaledNPKL.envelope = envelope


def install_check_threads() -> None:
    """``threads``: the check's dense work (LOBPCG's constraint products, the Rayleigh–Ritz
    Grams) on every core; the solver otherwise holds BLAS at one thread beside its threaded
    sparse products, and nothing runs beside the check."""
    plain_check = alm_outer.fw_check

    def check(*a):
        with threadpool_limits(limits=available_cores(), user_api="blas"):
            return plain_check(*a)

    alm_outer.fw_check = check


def variant_row(method: str, n: int, args) -> dict:
    log: list = []
    if method.endswith("threads"):
        install_check_threads()
    if method == "refill":
        install_refill(log)
    elif "floor-" in method:
        install_slope_floor(method)
    elif method.startswith("rowcap-"):
        install_row_cap(method, log)
    elif method.startswith("pairrho-"):
        install_pair_penalties(method)
    elif method not in OWN_STEPS:
        install(method, args, log)
    f = instance(n)
    t = time.perf_counter()
    inner = "hybrid" if method.startswith("hybrid") else "newton"
    r = solve(
        f, "low-rank-alm", gap_tol=args.gap, time_limit=args.time_limit, inner=inner, **FROM_ZERO
    )
    dt = time.perf_counter() - t
    return {
        **alm_row(r, dt),
        "max_width": max(h["rank"] for h in r.history if "rank" in h),
        "found": [e["found"] for e in log],
        "local_s": sum(e.get("s", 0.0) for e in log),
    }


def diagnose(n: int, args) -> None:
    """The plain solver, with each localised check's λ beside its local blocks', its top
    node (a hub: its pairs, how many at the box's end, how often it was the top node before)
    and that node's K_ii at the check."""
    f = instance(n)
    last, seen = {}, {}

    def check(prob, pt, *a):
        last.update(prob=prob, pt=pt, chk=plain_check(prob, pt, *a))
        return last["chk"]

    def report(rec: dict) -> None:
        prob, chk = last["prob"], last["chk"]
        if rec["vertex_participation"] >= LOCALISED or not chk.lam < min(chk.level, 0.0):
            return
        M, v, h = prob.M, chk.vertex, int(np.argmax(np.abs(chk.vertex)))
        seen[h] = seen.get(h, 0) + 1
        mine = (prob.i == h) | (prob.j == h)
        saturated = int(np.sum(np.isclose(np.abs(chk.beta_tilde[mine]), prob.C)))
        x = np.asarray(last["pt"].X[h], dtype=np.float64)
        parts = []
        for hops in (1, 2, 3):
            N = neighbourhood(M, np.array([h]), hops)
            parts.append(f"{hops}-hop {len(N)}: {local_pair(M, N)[0]:6.3f} {np.sum(v[N] ** 2):.2f}")
        print(
            f"  check {rec['check']:>3} on {participation(v):>3.0f} nodes λ {chk.lam:6.3f} "
            f"(level {chk.level:6.3f}); node {h} ({seen[h]}x) pairs {int(mine.sum())} at C "
            f"{saturated} K_ii {prob.B * float(x @ x):.2g}; " + "; ".join(parts),
            flush=True,
        )

    plain_check = alm_outer.fw_check
    alm_outer.fw_check = check
    options = {"gap_tol": args.gap, "time_limit": args.time_limit, "inner": args.inner}
    solve(f, "low-rank-alm", progress=report, **FROM_ZERO, **options)
    print(f"  {sum(seen.values())} localised checks below the level on {len(seen)} nodes")


def main() -> int:
    ap = side_by_side_arguments(__doc__, METHODS, [3000, 20000])
    ap.add_argument("--quick", action="store_true", help="n = 3,000 only")
    ap.add_argument("--diagnose", action="store_true", help="localised checks' local blocks")
    ap.add_argument("--inner", default="newton", choices=("newton", "fista"), help="--diagnose's")
    ap.add_argument("--margin", type=float, default=0.5, help="star-quotient margin")
    ap.add_argument("--seed-margin", type=float, default=0.15, help="local-seed's margin")
    args = ap.parse_args()
    sizes = [3000] if args.quick else args.sizes
    for m in args.methods.split(","):
        if m not in METHODS and not re.fullmatch(VARIANT_NAMES, m):
            ap.error(
                f"unknown method {m!r}: one of {', '.join(METHODS)}, floor-G, hubfloor-G "
                "rowcap-F[@K] or pairrho-W"
            )
    if args.diagnose:
        for n in sizes:
            print(f"n = {n:,}: localised checks of low-rank-alm", flush=True)
            diagnose(n, args)
        return 0
    if args.child:
        method, n = args.child[0], int(args.child[1])
        if method == "low-rank-alm":
            row = plain_row(method, n, args.gap, args.time_limit)
        else:
            row = variant_row(method, n, args)
        print(json.dumps(row))
        return 0
    stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    print(f"{stamp}; gap {args.gap:g}; load {os.getloadavg()}", flush=True)
    print(
        f"{'n':>7} {'method':<14} {'status':<10} {'products':>8} {'checks':>6} {'solve s':>7} "
        f"{'gap':>8} {'lower':>9} {'rank':>5} {'width':>5} local s  found per step",
        flush=True,
    )
    options = ["--gap", str(args.gap), "--time-limit", str(args.time_limit)]
    options += ["--margin", str(args.margin), "--seed-margin", str(args.seed_margin)]
    rows = {}
    for n in sizes:
        for method in args.methods.split(","):
            rows[n, method] = row = run_child(__file__, method, n, options)
            _print(n, method, row)
    for (n, method), row in rows.items():
        plain = rows.get((n, "low-rank-alm"), {})
        if method != "low-rank-alm" and "products" in row and "products" in plain:
            print(
                f"n = {n:,}, {method}: products {row['products'] / plain['products']:.2f}x and "
                f"time {row['solve_s'] / plain['solve_s']:.2f}x the plain solver's"
            )
    return 0


def _print(n: int, method: str, row: dict) -> None:
    if "failed" in row:
        print(f"{n:>7,} {method:<14} failed: {row['failed']}", flush=True)
        return
    found = " ".join(str(k) for k in row.get("found", [])[:16])
    print(
        f"{n:>7,} {method:<14} {row['status']:<10} {row['products']:>8} "
        f"{str(row['eigsolves']):>6} {row['solve_s']:>7.1f} {row['gap']:>8.1e} "
        f"{str(row['label']):>9} {row['rank']:>5} {row.get('max_width', '-'):>5} "
        f"{row.get('local_s', 0.0):>7.1f}  {found}",
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(main())
