"""Issue #30's forty-third pass, a prototype: each hub's pocket solved as a small SDP of its
own just before the check, instead of line-searched in along one vector (nothing in the
package).

*Why.*  In the forty-second pass's 10⁶ hour 13 of 27 checks found a hub's pocket (a vertex
on 5–9 nodes, its Ritz value −0.6 to −0.96 where the spread checks read −0.44), and the
cycles after them took 45 % of the hour.  The solver's option ``pockets``
(:mod:`kernelsdp.solvers.alm_pockets`) takes pockets in after the Frank–Wolfe step, each
packed column by one exact line search.  Logged at n = 20,000 (this pass), a packed
column's Rayleigh quotient ends at V's level but each piece's own local eigenvalue does not
(−0.77 against a level of −0.28): a pocket is stiff, its hub's pair multipliers move with
its weight, and one step along a fixed vector cannot close it.

*What.*  After each inner round (just before the check): the pockets below V's level λ_V
are searched as :func:`kernelsdp.solvers.alm_pockets.pocket_columns` searches them
(centres by star quotient, 2-hop neighbourhoods, support above ``SUPPORT_RTOL``), and each
one's support N gets the local problem

    min_{D ⪰ 0 on N×N}  a·⟨L_NN − λ_V·I, D⟩ + (1/S)·Σ_{p ⊂ N} [e_p(w_p + B·D_p) − e_p(w_p)],

the subproblem restricted to a PSD block on N with the trace priced at V's level (e_p the
envelope at (β, ρ), S the scale, a = B/S).  Its gradient a·(M_NN(β̃(D)) − λ_V·I) is the
check's matrix on N, so at its optimum λ_min(M_NN) ≥ λ_V: the pocket is closed.  Solved by
projected gradient with FISTA's momentum, backtracking and restarts (``BLOCK_ITERATIONS``),
each step one eigendecomposition of |N|×|N|.  The solutions' factors are packed into at
most ``COLUMNS`` new columns (supports one step apart share one, as in ``pocket_columns``),
V is scaled back into the ball, and the point is kept only if φ fell.  ``--sweeps k``
repeats the search on the new point up to k times.

    python benchmarks/npkl_pocket_block_proto.py --n 100000 --seed 0 --mode block

``--mode line`` line-searches the same pockets in instead (``alm_pockets.line_searched``),
``--mode plain`` is the solver.

Measured (docs/measurements.md, "Forty-third pass"; products to the certified 1e-3): each
block closes its pocket (its local eigenvalue after the solve within 1e-3 of the level),
but the next check still finds a pocket around the same hubs (a neighbourhood the search
does not centre on).  Over five seeds 6,964 products at 3,000 and 7,759 at 20,000 (the
solver 6,969 and 7,766); at 100,000, seeds 0–3, 9,410 (9,968: −13 % to +4 % by seed).  At
10⁶ the hour (``npkl_resume_proto.py --variant spectral-128+blocks``) certified 3.27e-3,
the lowest of the one-hour runs, with 10 pocket checks of 26 (13 of 27 without).  Not adopted yet.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time

import numpy as np
from npkl_scale import _alm_progress, instance

from kernelsdp import solve
from kernelsdp.solvers import alm_outer, alm_pockets
from kernelsdp.solvers.alm_inner import _dot, _project, evaluate

#: new columns a search adds at most (``alm_pockets.COLUMNS``)
COLUMNS = alm_pockets.COLUMNS
#: projected-gradient iterations of one block at most, and their relative stop in value
BLOCK_ITERATIONS, BLOCK_RTOL = 300, 1e-10
#: step halvings of one iteration at most (a non-finite value never passes the test)
MAX_BACKTRACKS = 60
#: the block's eigenvalues below this share of its largest are dropped from its factor
FACTOR_RTOL = 1e-3


def pairs_inside(prob, N: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(p, a, b): the pairs with both ends in N, in the pairs' order, and their ends'
    positions in N (a < b); ``npkl_hub_blocks_proto`` reads its blocks' pairs by it too."""
    pos = np.full(prob.n, -1, dtype=np.int64)
    pos[N] = np.arange(len(N))
    p = np.flatnonzero((pos[prob.i] >= 0) & (pos[prob.j] >= 0))
    a, b = pos[prob.i[p]], pos[prob.j[p]]
    return p, np.minimum(a, b), np.maximum(a, b)


def psd_part(D: np.ndarray) -> np.ndarray:
    ev, Q = np.linalg.eigh(0.5 * (D + D.T))
    return (Q * np.maximum(ev, 0.0)) @ Q.T


def block_problem(prob, w, beta, rho: float, N: np.ndarray, level: float):
    """(f, Lipschitz guess): f(D) → (value, gradient) of the module docstring's problem."""
    a, B, scale = prob.a, prob.B, prob.scale
    A0 = a * (prob.L[N][:, N].toarray().astype(np.float64) - level * np.eye(len(N)))
    p, i, j = pairs_inside(prob, N)
    w0, b0, t0 = w[p], beta[p], prob.t[p]
    base = float(prob.envelope_terms(w0, b0, rho, t0)[0].sum())

    def f(D: np.ndarray) -> tuple[float, np.ndarray]:
        vals, bt = prob.envelope_terms(w0 + B * D[i, j], b0, rho, t0)
        G = A0.copy()
        np.add.at(G, (i, j), 0.5 * a * bt)
        np.add.at(G, (j, i), 0.5 * a * bt)
        return float(np.sum(A0 * D)) + (float(vals.sum()) - base) / scale, G

    degree = np.bincount(np.concatenate([i, j]), minlength=len(N)).max() if len(p) else 1
    return f, a * rho * B * max(int(degree), 1) + np.abs(A0).sum(axis=1).max()


def solve_block(prob, w, beta, rho: float, N: np.ndarray, level: float):
    """(value, factor F, iterations): the block's problem by projected gradient with
    momentum, backtracking and restarts, from D = 0; FFᵀ is the solution D without its
    eigenvalues below ``FACTOR_RTOL`` of the largest, and the value is D's.  ``level`` ≤ 0
    (a positive price on the trace would leave the problem unbounded below)."""
    f, lipschitz = block_problem(prob, w, beta, rho, N, level)
    eta = 1.0 / lipschitz
    D = np.zeros((len(N), len(N)))
    Y, tk, fD, it = D, 1.0, 0.0, 0
    for it in range(1, BLOCK_ITERATIONS + 1):
        fy, G = f(Y)
        for _ in range(MAX_BACKTRACKS):
            Dn = psd_part(Y - eta * G)
            fn, _ = f(Dn)
            step = Dn - Y
            if fn <= fy + np.sum(G * step) + 0.5 / eta * np.sum(step * step) + 1e-18:
                break
            eta *= 0.5
        if not fn <= fD:  # momentum overshot: restart from the best point
            if tk == 1.0:  # already a plain step from it: nothing more to gain
                break
            Y, tk = D, 1.0
            continue
        tn = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * tk * tk))
        Y = Dn + (tk - 1.0) / tn * (Dn - D)
        settled = it > 5 and abs(fD - fn) <= BLOCK_RTOL * max(abs(fn), 1e-300)
        D, fD, tk, eta = Dn, fn, tn, 1.5 * eta
        if settled:
            break
    ev, Q = np.linalg.eigh(D)
    keep = ev > FACTOR_RTOL * max(ev[-1], 1e-300)
    return fD, Q[:, keep] * np.sqrt(ev[keep]), it


def pocket_blocks(prob, pt, beta, rho: float, level: float) -> tuple[np.ndarray, list]:
    """(the new columns n×k, one record per block solved): the pockets below ``level``
    around the centres of ``alm_pockets.pocket_columns``, each solved by
    :func:`solve_block` on its support and packed."""
    _, bt = prob.envelope(pt.w, beta, rho)
    M = prob.dual_matrix(bt)
    q = alm_pockets.star_quotients(M)
    below = min(level, 0.0)
    centres = np.flatnonzero(q < below + alm_pockets.MARGIN)
    centres = centres[np.argsort(q[centres], kind="stable")][: alm_pockets.CANDIDATES]
    used, blocked = np.zeros(prob.n, bool), np.zeros((prob.n, COLUMNS), bool)
    S, records = np.zeros((prob.n, COLUMNS)), []
    position = np.full(prob.n, -1, dtype=np.int64)
    for h in centres:
        if used[h]:
            continue
        N = alm_pockets.neighbourhood(M, np.array([h]), alm_pockets.HOPS)
        lam, v = alm_pockets.lowest_pair(M, N, position)
        if not lam < below:
            continue
        N = N[np.abs(v) > alm_pockets.SUPPORT_RTOL * np.abs(v).max()]
        used[N] = True
        free = np.flatnonzero(~blocked[N].any(axis=0))
        if len(free) == 0:
            continue
        value, F, its = solve_block(prob, pt.w, beta, rho, N, below)
        if F.shape[1] == 0 or value >= 0 or len(free) < F.shape[1]:
            continue
        cols = free[: F.shape[1]]
        blocked[np.ix_(alm_pockets.neighbourhood(M, N, 1), cols)] = True
        S[np.ix_(N, cols)] = F
        records.append({"nodes": len(N), "lambda": lam, "rank": F.shape[1], "iterations": its})
    return S[:, np.any(S != 0, axis=0)], records


def level_of(prob, pt, beta, rho: float) -> float:
    """V's Rayleigh level ⟨V, M(β̃)V⟩/‖V‖² from the point's L·V and pair entries."""
    _, bt = prob.envelope(pt.w, beta, rho)
    X = pt.X
    return (_dot(X, pt.LX) + float(bt @ pt.w) / prob.B) / max(_dot(X, X), 1e-300)


def install(mode: str, sweeps: int, log: list) -> None:
    """Wrap the solver's inner round: after it, ``sweeps`` searches of ``mode``."""
    round_ = alm_outer._inner_round

    def inner_round(run, pt, tol):
        pt, stalled = round_(run, pt, tol)
        if pt.X.shape[1] == 0:
            return pt, stalled
        t, prob, new, found = time.perf_counter(), run.prob, pt, 0
        level = level_of(prob, pt, run.beta, run.rho)
        for _ in range(sweeps):
            if mode == "block":
                S, records = pocket_blocks(prob, new, run.beta, run.rho, level)
                X = np.hstack([new.X, S.astype(new.X.dtype)]) if S.shape[1] else new.X
            else:
                S, pieces = alm_pockets.pocket_columns(
                    prob.dual_matrix(prob.envelope(new.w, run.beta, run.rho)[1]), min(level, 0.0)
                )
                X = alm_pockets.line_searched(prob, new.X, S, run.beta, run.rho)[0]
                records = [{"nodes": int(p)} for p in pieces]
            if X is new.X:
                break
            found += len(records)
            new = evaluate(prob, _project(X), run.beta, run.rho)
        kept = new is not pt and new.value < pt.value
        log.append({"check": run.checks, "level": level, "pockets": found, "kept": kept,
                    "s": time.perf_counter() - t})  # fmt: skip
        return (new if kept else pt), stalled

    alm_outer._inner_round = inner_round


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=20_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--mode", choices=("plain", "line", "block"), default="block")
    p.add_argument("--sweeps", type=int, default=1)
    p.add_argument("--instance", help="a pickled instance (else npkl_scale.instance(n))")
    p.add_argument("--time-limit", type=float, help="the solve's limit in seconds")
    p.add_argument("--progress", action="store_true", help="a line on stderr at each check")
    args = p.parse_args(argv)
    if args.instance:
        with open(args.instance, "rb") as fh:
            f = pickle.load(fh)
    else:
        f = instance(args.n)
    log: list = []
    if args.mode != "plain":
        install(args.mode, args.sweeps, log)
    checks: list = []
    t = time.perf_counter()

    def progress(rec: dict) -> None:
        checks.append(rec)
        if args.progress:
            _alm_progress(rec)

    r = solve(f, "low-rank-alm", seed=args.seed, progress=progress, time_limit=args.time_limit)
    pockets = sum(1 for h in checks if h["vertex_participation"] < alm_outer.LOCALISED
                  and h["lambda"] < 0)  # fmt: skip
    out = {
        "n": f.n, "seed": args.seed, "mode": args.mode, "sweeps": args.sweeps,
        "status": r.termination.value, "products": r.info["products"],
        "checks": r.info["checks"], "pocket_checks": pockets,
        "updates": checks[-1]["multiplier_updates"], "gap": r.info["relative_gap"],
        "label": r.info["lower_label"], "solve_s": round(time.perf_counter() - t, 1),
        "pockets_solved": sum(e["pockets"] for e in log),
        "search_s": round(sum(e["s"] for e in log), 1),
        "rounds_kept": sum(e["kept"] for e in log),
        "rank": r.kernel.rank,
    }  # fmt: skip
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
