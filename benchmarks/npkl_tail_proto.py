"""Issue #30's seventh pass, a timeboxed prototype: can the tail of the low-rank augmented
Lagrangian's outer (multiplier) iteration be accelerated?  Measured beside ADMM and the
cold ``low-rank-alm`` on ``npkl_scale.py``'s instance (two Gaussians, mutual 5-NN graph,
m = 1.2n, hinge, C = 1, tr K ≤ B = n).

**The variants** (each the solver's own :func:`kernelsdp.solvers.alm_outer.iterate` with
its multiplier update, penalty schedule and FW share replaced by a
:class:`~kernelsdp.solvers.alm_outer.Schedule` of the variant's, :func:`tail_iterate`; the inner
FISTA, the Frank–Wolfe checks, the stopping rule and the labelled interval are the
solver's own, untouched: every row is certified from scratch as ``low-rank-alm`` is):

- ``base``: the schedule at the constants this pass started from (FY_PROGRESS 0.5, the plain
  update: the products of ``low-rank-alm`` before this pass; ``low-rank-alm`` itself now
  runs its new defaults, ``accel=anderson+fy_progress=0.75`` here);
- ``nesterov``: the ALM is a proximal point method on the dual, so Güler / He & Yuan
  (2010) acceleration of the multipliers, β_{k+1} = Π(β̃_k + ((t_k − 1)/t_{k+1})(β̃_k −
  β̃_{k−1})), Π the projection onto the hinge's dual box (β = −α·T, α ∈ [0, C]), restarted
  (t = 1) when the FY gap at the update rose or ρ changed (``nesterov-gap``: when the
  estimated gap rose);
- ``anderson3``/``anderson5``: Anderson acceleration (type II, memory 3/5) of the map
  β ↦ β̃ (residual β̃ − β = ρ × the pair residual), Tikhonov-regularised least squares,
  projected; memory cleared when ρ changes or the FY gap rose, and the plain β̃ taken when
  the mixed step is over ``ANDERSON_CAP`` times the residual;
- the penalty schedule: ``grow4`` (ρ × 4 instead of × 2), ``fyp0.25``/``fyp0.75``
  (FY_PROGRESS), ``rho4``/``rho16`` (ρ₀ in units of C), ``rhomax256`` (RHO_MAX),
  ``fws0.25``/``fws1`` (FW_SHARE); or any combination as ``key=value+key=value`` with the
  keys of :data:`DEFAULTS` (e.g. ``accel=nesterov+growth=4``).

Each (n, method) runs in its own child process, one after the other, to the certified gap
``--gap`` (1e-3).  Printed per row: status, gradient iterations, sparse products (n×s
blocks, one with L, one with the pairs), Frank–Wolfe checks, multiplier updates (ρ
changes, accelerator restarts), products at the first estimated gap ≤ 1e-2 (the tail is the
rest), time, the certified gap and its lower end's label, final ρ/C, rank.  The machine is
shared: compare ratios within one run.

**Measured** (docs/npkl.md §7, seventh pass; docs/measurements.md): the tail is not a long
outer iteration — the cold ALM makes 8 (3,000) and 9 (20,000) multiplier updates in all —
but the inner solves between updates, whose cost grows with ρ faster than the gap's cut
per update.  Acceleration alone barely helps (20,000: Nesterov 4,355 products, Anderson
4,983, against 4,850); a larger ρ (ρ₀ = 4C, ρ × 4, FY_PROGRESS 0.25) costs 1.3-1.6× more;
keeping ρ at C (FY_PROGRESS 0.75) gives 3,295, and with Anderson memory 3 3,168 (1.53×;
3,000: 1,713 against 2,825), adopted as the solver's default.

    python benchmarks/npkl_tail_proto.py --quick            # n = 3,000 only
    python benchmarks/npkl_tail_proto.py                    # n = 3,000 and 20,000
    python benchmarks/npkl_tail_proto.py --sizes 20000 --methods low-rank-alm,nesterov
"""

from __future__ import annotations

import json
import math
import os
import sys
import time

import gap_curves
import numpy as np
from npkl_polish_proto import (
    alm_row,
    plain_row,
    print_speedups,
    run_child,
    side_by_side_arguments,
)
from npkl_scale import FROM_ZERO, instance
from simplenpkl_speed import gaussian_mixture
from threadpoolctl import threadpool_limits

from kernelsdp.data import PairwiseConstraints, knn_laplacian
from kernelsdp.formulations import NPKL
from kernelsdp.solvers.alm_outer import Schedule, _result, _Run, iterate
from kernelsdp.solvers.low_rank_alm import LowRankALMOptions, _rank_cap

#: a variant's settings: by default the solver's as this pass found them (FY_PROGRESS,
#: FW_SHARE and RHO_MAX of :mod:`kernelsdp.solvers.low_rank_alm`, written out here so that
#: ``base`` stays the same method whatever the solver's defaults become)
DEFAULTS = {
    "accel": "none",  # none, nesterov, anderson
    "restart": "fy",  # what restarts the accelerator when it rises: fy, gap
    "memory": 3,  # Anderson's
    "growth": 2.0,  # ρ's factor when FY did not fall to fy_progress of its last value
    "fy_progress": 0.5,
    "fw_share": 0.5,
    "rho": 1.0,  # ρ₀ / C
    "rho_max": 64.0,
}
PRESETS = {
    "base": {},
    "nesterov": {"accel": "nesterov"},
    "nesterov-gap": {"accel": "nesterov", "restart": "gap"},
    "anderson3": {"accel": "anderson", "memory": 3},
    "anderson5": {"accel": "anderson", "memory": 5},
    "grow4": {"growth": 4.0},
    "fyp0.25": {"fy_progress": 0.25},
    "fyp0.75": {"fy_progress": 0.75},
    "rho4": {"rho": 4.0},
    "rho16": {"rho": 16.0},
    "rhomax256": {"rho_max": 256.0},
    "fws0.25": {"fw_share": 0.25},
    "fws1": {"fw_share": 1.0},
}
METHODS = ("admm", "low-rank-alm", "base", "nesterov", "anderson3", "grow4", "rho4")
#: Anderson's mixed step is dropped for the plain β̃ when it is this many residuals long
ANDERSON_CAP = 10.0
#: the split of the products: the first check at or below this estimated gap
TAIL_FROM = 1e-2


def variant(method: str) -> dict:
    """The settings of a preset or of ``key=value+key=value``."""
    v = dict(DEFAULTS)
    if method in PRESETS:
        v.update(PRESETS[method])
        return v
    for item in method.split("+"):
        key, value = item.split("=")
        if key not in DEFAULTS:
            raise SystemExit(f"unknown variant key {key!r} (keys: {', '.join(DEFAULTS)})")
        v[key] = value if isinstance(DEFAULTS[key], str) else type(DEFAULTS[key])(value)
    return v


class Accelerator:
    """The multiplier update β ← β̃ (``none``), or its Nesterov / Anderson extrapolation
    projected onto the hinge's dual box; ``restarts`` counts the resets."""

    def __init__(self, v: dict, prob):
        self.kind, self.memory, self.prob = v["accel"], v["memory"], prob
        self.prev, self.tk, self.last = None, 1.0, math.inf
        self.xs: list[np.ndarray] = []
        self.gs: list[np.ndarray] = []
        self.restarts, self.capped = 0, 0

    def project(self, beta: np.ndarray) -> np.ndarray:
        """Onto the loss's dual domain (hinge: β = −α·T, α ∈ [0, C])."""
        return self.prob.loss.project(beta, self.prob.t, self.prob.C)

    def next(self, beta: np.ndarray, bt: np.ndarray, measure: float, reset: bool) -> np.ndarray:
        """The next multipliers from the inner solve's input β and its β̃; ``measure`` (FY
        or the estimated gap at the update) rising, or ``reset`` (ρ changed), restarts."""
        rose = measure > self.last
        self.last = measure
        if self.kind == "none":
            return bt
        if reset or rose:
            self.restarts += self.prev is not None or bool(self.xs)
            self.prev, self.tk, self.xs, self.gs = None, 1.0, [], []
        if self.kind == "nesterov":
            return self._nesterov(bt)
        return self._anderson(beta, bt)

    def _nesterov(self, bt: np.ndarray) -> np.ndarray:
        if self.prev is None:
            self.prev, self.tk = bt, 1.0
            return bt
        tn = (1.0 + math.sqrt(1.0 + 4.0 * self.tk * self.tk)) / 2.0
        out = self.project(bt + ((self.tk - 1.0) / tn) * (bt - self.prev))
        self.prev, self.tk = bt, tn
        return out

    def _anderson(self, beta: np.ndarray, bt: np.ndarray) -> np.ndarray:
        self.xs.append(np.array(beta, dtype=np.float64))
        self.gs.append(np.array(bt, dtype=np.float64))
        self.xs, self.gs = self.xs[-(self.memory + 1) :], self.gs[-(self.memory + 1) :]
        if len(self.xs) < 2:
            return bt
        F = np.stack([g - x for g, x in zip(self.gs, self.xs)], axis=1)
        G = np.stack(self.gs, axis=1)
        dF, dG, f = np.diff(F, axis=1), np.diff(G, axis=1), F[:, -1]
        H = dF.T @ dF
        H += 1e-10 * max(np.trace(H), 1e-300) * np.eye(H.shape[0])
        gamma = np.linalg.solve(H, dF.T @ f)
        step = dG @ gamma
        if np.linalg.norm(step) > ANDERSON_CAP * max(np.linalg.norm(f), 1e-300):
            self.capped += 1
            return bt
        return self.project(bt - step)


def _update(run: _Run, chk, rec, v: dict, acc: Accelerator, fy_last: float, stats: dict):
    """The multiplier update and the penalty schedule of one outer iteration."""
    old = run.rho
    if chk.fy_gap > v["fy_progress"] * fy_last:
        run.rho = min(v["growth"] * run.rho, v["rho_max"] * run.f.C)
    changed = run.rho != old
    stats["rho_changes"] += changed
    stats["updates"] += 1
    stats["trace"].append((rec["products"], rec["estimated_gap"], run.rho / run.f.C))
    measure = chk.fy_gap if v["restart"] == "fy" else rec["estimated_gap"]
    run.beta = acc.next(run.beta, chk.beta_tilde, measure, changed)


class TailSchedule(Schedule):
    """The variant's multiplier update, penalty schedule and FW share in the solver's own
    outer loop (:func:`kernelsdp.solvers.alm_outer.iterate`); ``stats`` gets the counts."""

    def __init__(self, run: _Run, v: dict, stats: dict):
        self.v, self.stats, self.acc = v, stats, Accelerator(v, run.prob)
        self.fw_share = v["fw_share"]

    def update(self, run: _Run, chk, rec: dict, fy_last: float) -> None:
        _update(run, chk, rec, self.v, self.acc, fy_last, self.stats)


def tail_iterate(run: _Run, v: dict, stats: dict):
    """The solver's outer loop with the variant's schedule: (the last point, status)."""
    sched = TailSchedule(run, v, stats)
    out = iterate(run, sched)
    stats["restarts"], stats["capped"] = sched.acc.restarts, sched.acc.capped
    return out


def seeded_instance(n: int, seed: int, loss: str = "hinge") -> NPKL:
    """``npkl_scale.instance(n, loss)`` at seed 0; else the same construction with the data
    and the pairs drawn from ``seed`` (another draw of the same problem family)."""
    if seed == 0:
        return instance(n, loss)
    X, y = gaussian_mixture(n, seed=seed)
    pairs = PairwiseConstraints.sample(y, int(1.2 * n), seed=seed)
    L = knn_laplacian(X, 5)
    return NPKL(L=L, pairs=pairs, loss=loss, capacity="trace", C=1.0, B=float(n))


def tail_row(method: str, n: int, args) -> dict:
    """One variant at size n, to the certified gap (the solver's own labelled interval)."""
    v, gap, limit = variant(method), args.gap, args.time_limit
    f = seeded_instance(n, args.seed, args.loss)
    o = LowRankALMOptions(gap_tol=gap, time_limit=limit, rho=v["rho"], **FROM_ZERO)
    stats = {"updates": 0, "rho_changes": 0, "tail_from": None, "trace": []}
    t = time.perf_counter()
    with threadpool_limits(limits=1, user_api="blas"):
        run = _Run(f, o, _rank_cap(f, o))
        pt, status = tail_iterate(run, v, stats)
        r = _result("low-rank-alm", run, pt, status)
    dt = time.perf_counter() - t
    stats["tail_from"] = gap_curves.products_to(gap_curves.history_curve(r.history), TAIL_FROM)
    return {**alm_row(r, dt), "final_rho": r.info["final_rho"] / f.C, **stats}


def _print(n: int, method: str, row: dict, trace: bool = False) -> None:
    if "failed" in row:
        print(f"{n:>7,} {method:<26} failed: {row['failed']}", flush=True)
        return
    extra = "-"
    if "updates" in row:
        tail = "-" if row["tail_from"] is None else f"{row['tail_from']:,}"
        extra = (
            f"{row['updates']}/{row['rho_changes']}/{row['restarts']}"
            f"{'c' + str(row['capped']) if row['capped'] else ''} {tail:>6} "
            f"{row['final_rho']:>5g}"
        )
    print(
        f"{n:>7,} {method:<26} {row['status']:<12} {row['iterations']:>6} "
        f"{row['products']:>8} {str(row['eigsolves']):>6} {row['solve_s']:>7.1f} "
        f"{row['gap']:>8.1e} {str(row['label']):>9} {row['rank']:>5}  {extra}",
        flush=True,
    )
    if trace and row.get("trace"):
        print(
            "        updates at (products, estimated gap, rho/C): "
            + " ".join(f"{p},{g:.1e},{r:g}" for p, g, r in row["trace"]),
            flush=True,
        )


def main() -> int:
    ap = side_by_side_arguments(__doc__, METHODS, [3000, 20000])
    ap.add_argument("--quick", action="store_true", help="n = 3,000 only")
    ap.add_argument("--trace", action="store_true", help="each multiplier update's figures")
    ap.add_argument(
        "--seed",
        type=int,
        default=0,
        help="the instance's data and pairs seed (0: npkl_scale's; else ADMM and "
        "low-rank-alm are not run, 'base' is the cold ALM)",
    )
    ap.add_argument(
        "--loss",
        default="hinge",
        choices=("hinge", "squared-hinge", "l2", "l1"),
        help="the pair loss (not the hinge: as for --seed)",
    )
    args = ap.parse_args()
    if args.child:
        method, n = args.child[0], int(args.child[1])
        if method in ("admm", "low-rank-alm"):
            row = plain_row(method, n, args.gap, args.time_limit)
        else:
            row = tail_row(method, n, args)
        print(json.dumps(row))
        return 0
    sizes = [3000] if args.quick else args.sizes
    methods = args.methods.split(",")
    for m in methods:
        if m not in ("admm", "low-rank-alm"):
            variant(m)  # fail early on a bad spec
    stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    print(
        f"{stamp}; gap {args.gap:g}; seed {args.seed}; {args.loss}; load {os.getloadavg()}",
        flush=True,
    )
    print(
        f"{'n':>7} {'method':<26} {'status':<12} {'iter':>6} {'products':>8} {'checks':>6} "
        f"{'solve s':>7} {'gap':>8} {'lower':>9} {'rank':>5}  updates/rho/restarts "
        f"products@1e-2 rho/C",
        flush=True,
    )
    options = ["--gap", str(args.gap), "--time-limit", str(args.time_limit)]
    options += ["--seed", str(args.seed), "--loss", args.loss]
    if args.seed or args.loss != "hinge":
        methods = [m for m in methods if m not in ("admm", "low-rank-alm")]
    rows = {}
    for n in sizes:
        for method in methods:
            rows[n, method] = run_child(__file__, method, n, options)
            _print(n, method, rows[n, method], args.trace)
    print_speedups(rows, sizes, methods)
    stamp = time.strftime("%H:%M:%S UTC", time.gmtime())
    print(f"{stamp}; load {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
