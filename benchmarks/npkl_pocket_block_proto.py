"""Issue #30's forty-third pass, a prototype: each hub's pocket solved as a small SDP of its
own just before the check, instead of line-searched in along one vector.  Built into the
solver in the forty-fourth pass as the option ``pocket_blocks``, on by default
(:mod:`kernelsdp.solvers.alm_blocks`, which now holds the block solve this script calls).

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
projected gradient with FISTA's momentum, backtracking and restarts
(``alm_blocks.BLOCK_ITERATIONS``), each step one eigendecomposition of |N|×|N|.  The
solutions' factors are packed into at most ``alm_pockets.COLUMNS`` new columns (supports
one step apart share one, as in ``pocket_columns``), V is scaled back into the ball, and
the point is kept only if φ fell.  ``--sweeps k`` repeats the search on the new point up to
k times.

    python benchmarks/npkl_pocket_block_proto.py --n 100000 --seed 0 --mode block

``--mode block`` is the prototype's wrapper around the solver's inner round (``--sweeps``
searches a round; unlike the option it may widen the factor past the width cap),
``--mode line`` line-searches the same pockets in instead (``alm_pockets.line_searched``),
``--mode option`` is the solver as it is (the blocks by its option), and ``--mode plain``
the solver with ``pocket_blocks=False``; ``block``, ``line`` and ``plain`` run with the
option off.  ``pockets_solved`` counts every block the wrapper solved, kept or not, and
under ``option`` the blocks the solver kept.

Measured (docs/measurements.md, "Forty-third pass"; products to the certified 1e-3): each
block closes its pocket (its local eigenvalue after the solve within 1e-3 of the level),
but the next check still finds a pocket around the same hubs (a neighbourhood the search
does not centre on).  Over five seeds 6,964 products at 3,000 and 7,759 at 20,000 (the
solver 6,969 and 7,766); at 100,000, seeds 0–3, 9,410 (9,968: −13 % to +4 % by seed).  At
10⁶ the hour (``npkl_resume_proto.py --variant spectral-128+blocks``) certified 3.27e-3,
the lowest of the one-hour runs, with 10 pocket checks of 26 (13 of 27 without).  The option
(forty-fourth pass): 6,758 at 3,000 and 7,683 at 20,000 over five seeds.
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
from kernelsdp.solvers.alm_blocks import level_of, pocket_blocks
from kernelsdp.solvers.alm_inner import _project, evaluate


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
    p.add_argument("--mode", choices=("plain", "line", "block", "option"), default="block")
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
    if args.mode in ("line", "block"):
        install(args.mode, args.sweeps, log)
    checks: list = []
    t = time.perf_counter()

    def progress(rec: dict) -> None:
        checks.append(rec)
        if args.progress:
            _alm_progress(rec)

    r = solve(
        f,
        "low-rank-alm",
        seed=args.seed,
        progress=progress,
        time_limit=args.time_limit,
        pocket_blocks=args.mode == "option",
    )
    pockets = sum(1 for h in checks if h["vertex_participation"] < alm_outer.LOCALISED
                  and h["lambda"] < 0)  # fmt: skip
    out = {
        "n": f.n, "seed": args.seed, "mode": args.mode, "sweeps": args.sweeps,
        "status": r.termination.value, "products": r.info["products"],
        "checks": r.info["checks"], "pocket_checks": pockets,
        "updates": checks[-1]["multiplier_updates"], "gap": r.info["relative_gap"],
        "label": r.info["lower_label"], "solve_s": round(time.perf_counter() - t, 1),
        "pockets_solved": sum(e["pockets"] for e in log) + r.info["blocks"],
        "search_s": round(sum(e["s"] for e in log), 1),
        "rounds_kept": sum(e["kept"] for e in log),
        "rank": r.kernel.rank,
    }  # fmt: skip
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
