"""Issue #30's twenty-fourth pass, a prototype: the Newton round that freezes a row only
where a failing step's model error sits (``kinkrows-k``; nothing in the package but the
round's ``retry`` hook).

*Why.*  The twenty-third pass logged the failing Newton steps of the n = 10⁶ tail: 84–99 %
of each one's pair error sat on ten nodes (a hub's rows), whose pair values moved across
the hinge's whole band, and the ratio test then cut the radius for every row by 4.  Freezing
a fixed k rows at every step (``rowmask-k``, ``hubrows-k``) made the 10⁶ steps pass, but
at 3,000 ``hubrows-20`` took 13,608 products where the plain loop takes 1,591: most steps
there do not fail, and a frozen row is a row the step cannot use.

*What.*  The round's steps are the solver's (Steihaug–Toint in the Frobenius ball) until a
step fails the ratio test (ratio < ``SHRINK_BELOW``).  Then, at the trial point, each
pair's part of the model's error (``npkl_step_log.pair_errors``: what crossing the hinge's
kinks cost) is summed onto its two nodes.  If the pairs' error is at least ``EXPLAINS`` of
the step's shortfall (the model's decrease minus φ's) and the smallest set of nodes that
carries ``SHARE`` of it has at most k nodes, those rows are frozen (weight
``npkl_step_proto.MASKED`` in the preconditioned CG, the region's norm the Frobenius norm
on the other rows) for the rest of the round, and the step is tried again at the same
radius instead of a quarter of it; at most ``RETRIES`` times a round.  Any other failure
shrinks the radius as the solver does.  A round without a failing step is the solver's,
product for product.

    python benchmarks/npkl_kink_rows_proto.py --instance inst3000.pkl --k 100 --seed 1
    python benchmarks/npkl_kink_rows_proto.py --instance inst100000.pkl --k 100 --radius
    python benchmarks/npkl_resume_proto.py --n 1000000 --resume st.pkl --variant kinkrows-100

(``--instance``: ``npkl_scale.instance(n)`` pickled; without ``--k`` the plain round.)

Measured (docs/measurements.md, "Twenty-fourth pass"; products to the certified 1e-3):
``kinkrows-100`` 1,627 / 2,393 / 2,188 at 3,000 (seeds 0–2; plain 1,591 / 1,570 / 1,673),
2,249 at 20,000 (2,287), **4,900** at 100,000 (3,467); ``kinkradius-100`` 1,769 / 1,740 /
1,541 and **4,247**.  At 10⁶ from check 44, ten minutes: 2.04e-2 (plain 1.98e-2).  Not
adopted: at 100,000 the radius cut is what the tail needs.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from pathlib import Path

import npkl_step_log
import npkl_step_proto
import numpy as np
from npkl_scale import FROM_ZERO

from kernelsdp.solvers import alm_newton, alm_outer

#: a failing step's pairs must explain this share of its shortfall, and at most k nodes
#: this share of the pairs' error, for its rows to be frozen; retries a round at most
EXPLAINS, SHARE, RETRIES = 0.5, 0.8, 2
#: ``kinkradius-k``: a failing step's rows' weight is cut by CUT (their radius by 4, as the
#: ratio test cuts the whole radius), and every weight relaxed by RELAX a round (radius ×2)
CUT, RELAX = 1.0 / 16.0, 4.0


class KinkRows:
    """One round's frozen rows: its step (:meth:`step`) and the round's ``retry`` hook.
    ``memory`` (``kinkradius-k``): a dict that carries the rows' weights from round to
    round, each round's start relaxing them by ``RELAX`` (at most 1); a failing step's
    rows are then multiplied by ``cut`` rather than frozen.  A row already frozen may be
    picked again (its weight is multiplied once more); the measured runs kept it so."""

    def __init__(self, k: int, stats: dict | None = None, memory: dict | None = None,
                 cut: float = npkl_step_proto.MASKED):  # fmt: skip
        self.k, self.weights, self.left, self.cut = k, None, RETRIES, cut
        self.stats = {} if stats is None else stats
        self.memory = memory
        if memory is not None and memory.get("weights") is not None:
            w = np.minimum(memory["weights"] * RELAX, 1.0)
            self.weights = memory["weights"] = None if w.min() >= 1.0 else w

    def step(self, nt, x, grad, delta: float, max_iter: int):
        """The solver's step while no row is frozen, else the CG with the frozen rows'
        weights."""
        if self.weights is None:
            return alm_newton._frobenius_step(nt, x, grad, delta, max_iter)
        return npkl_step_proto.preconditioned_cg(nt, x, grad, delta, max_iter, weights=self.weights)

    def rows(self, nt, x, known, model: float) -> np.ndarray | None:
        """The rows to freeze for this failing step, or None (module docstring)."""
        p = nt.prob
        err, _ = npkl_step_log.pair_errors(nt, x, known[2])
        shortfall = model - (x.value - known[0])
        if float(err.sum()) / p.scale < EXPLAINS * shortfall:
            return None
        nodes = npkl_step_log.node_errors(p, err)
        k = min(self.k, p.n)
        top = np.argpartition(nodes, -k)[-k:]
        top = top[np.argsort(-nodes[top])]
        carried = np.cumsum(nodes[top])
        need = int(np.searchsorted(carried, SHARE * float(nodes.sum()))) + 1
        return top[:need] if need <= k else None

    def retry(self, nt, x, known, model: float) -> bool:
        """The round's hook: True when this failing step's rows are frozen."""
        if self.left == 0:
            return False
        rows = self.rows(nt, x, known, model)
        if rows is None:
            self.stats["declined"] = self.stats.get("declined", 0) + 1
            return False
        if self.weights is None:
            self.weights = np.ones((x.Z.shape[0], 1), dtype=x.Z.dtype)
        self.weights[rows, 0] *= self.cut
        if self.memory is not None:
            self.memory["weights"] = self.weights
        self.left -= 1
        self.stats["retries"] = self.stats.get("retries", 0) + 1
        self.stats["rows"] = self.stats.get("rows", 0) + len(rows)
        return True


def newton_kink_rows(
    prob, pt, beta, rho, delta, max_steps, tol, deadline=None, budget=None,
    keep_scratch=False, k=100, stats=None, memory=None,
):  # fmt: skip
    """``kinkrows-k``: :func:`kernelsdp.solvers.alm_newton.newton`'s round (its arguments up
    to ``budget``) with :class:`KinkRows`'s step and retries; with ``memory``,
    ``kinkradius-k``'s."""
    hook = KinkRows(k, stats) if memory is None else KinkRows(k, stats, memory, CUT)
    return alm_newton.newton(
        prob, pt, beta, rho, delta, max_steps, tol, deadline, budget, hook.step, keep_scratch,
        retry=hook.retry,
    )  # fmt: skip


def install(k: int, stats: dict | None = None, radius: bool = False) -> None:
    """``kinkrows-k`` (``radius``: ``kinkradius-k``) as the solver's round in this process."""
    memory = {} if radius else None

    def newton(*args, keep_scratch=False):
        return newton_kink_rows(*args, keep_scratch=keep_scratch, k=k, stats=stats, memory=memory)

    alm_outer.newton = newton


def solve_one(
    path: str, k: int | None, seed: int, time_limit: float | None, radius: bool = False
) -> dict:
    """``low-rank-alm`` as committed (its default ``inner="newton"``) on a pickled
    instance, with ``kinkrows-k``'s round when k is given: products, checks, time, gap."""
    from kernelsdp.solvers import solve

    with open(path, "rb") as fh:
        f = pickle.load(fh)
    stats: dict = {}
    if k is not None:
        install(k, stats, radius)
    t = time.perf_counter()
    r = solve(f, "low-rank-alm", gap_tol=1e-3, seed=seed, time_limit=time_limit, **FROM_ZERO)
    return {
        "n": f.n,
        "seed": seed,
        "variant": "plain" if k is None else f"kink{'radius' if radius else 'rows'}-{k}",
        "status": str(r.termination),
        "products": r.info["products"],
        "checks": r.info["checks"],
        "solve_s": round(time.perf_counter() - t, 1),
        "certified_gap": float(r.info["relative_gap"]),
        "rank": None if r.kernel is None else r.kernel.rank,
        **stats,
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--instance", required=True, help="a pickled npkl_scale instance")
    p.add_argument("--k", type=int, help="kinkrows-k (else the plain round)")
    p.add_argument("--radius", action="store_true", help="kinkradius-k: cut, not frozen")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--time-limit", type=float)
    args = p.parse_args(argv)
    if not Path(args.instance).exists():
        p.error(f"no instance at {args.instance}")
    print(json.dumps(solve_one(args.instance, args.k, args.seed, args.time_limit, args.radius)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
