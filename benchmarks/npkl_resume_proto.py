"""Issue #30's twenty-second pass, a prototype: ``low-rank-alm``'s run saved at a check and
resumed from there with a variant of its outer loop, so that the 10⁶ path's stall (checks
45–61 of the twentieth pass, about 35 minutes in) can be studied in ten-minute runs.

The run is ``npkl_scale.py``'s (``inner="hybrid"``, the check's BLAS on every core, as the
10⁶ runs were). ``--dump-at K`` runs to check K and saves the state after that check's
round: the point, the run's counters and history, the multipliers, the kept point, the
check's warm block, the schedule's Anderson memory (a pickle: resume only states this
script wrote, since loading a pickle runs what it names). ``--resume STATE --variant V`` loads it
into a fresh run of the same instance and continues for ``--time-limit`` seconds, then
certifies as the solver does at a limit. Without either, the run goes from the start.
``plain`` is the solver's own loop (at 3,000 a resumed run ends count for count where the
uninterrupted one does; a test holds it).

Variants (``+`` joins them):
- ``newton-S``: S Newton steps a round (the solver's 4);
- ``stagnate-K``: the multipliers are also updated when the FW gap of the spread checks
  (not a hub's pocket) has not fallen below 0.9 of its best over the last K of them;
- ``rows-κ``: the Newton steps in the nineteenth pass's region N(η) = max(‖η‖_F,
  (√n/κ)·max_i ‖η_i‖) (``npkl_region_proto.region_cg``), which caps the largest row's move;
- ``rowprec``: the Newton steps' CG preconditioned by row weights, the region in their norm
  (``npkl_step_proto``'s ``rowprec``);
- ``rowmask-k``: the same with the k rows of largest gradient nearly frozen (weight 1e-4);
- ``hubrows-k``: those k rows minimised row by row before each round's steps
  (``npkl_hub_rows_proto``), then frozen in them;
- ``fista``: every round FISTA's (``inner="fista"``), not the hybrid's Newton steps;
- ``kinkrows-k``: a failing step's rows frozen where its model error sits (at most k), and
  the step tried again at the same radius (``npkl_kink_rows_proto``);
- ``checkit-N``: N LOBPCG iterations a Frank–Wolfe check at every size (the solver's
  ``alm_inner.check_iterations(n)``: 6 up to n = 20,000, 12 at 100,000, 21 at 10⁶ since
  the twenty-sixth pass);
- ``cgmax-N``: Newton steps of at most N conjugate-gradient iterations (the solver's
  ``alm_newton.CG_MAX``, 12; ``newton-2+cgmax-24`` is the seventeenth pass's ``cg24``);
- ``multifw``: the seventeenth pass's Frank–Wolfe step over the vertex and every block
  vector below V's level, weighted at the minimum of φ over the capped simplex
  (``npkl_round_proto.multi_fw_step``; its counts ``steps`` and ``vertices`` in the summary);
- ``tailround``: the thirty-seventh pass's tail rounds (the option ``tail_rounds``,
  :mod:`kernelsdp.solvers.alm_tail`: after a spread check at an estimated gap ≤ 1e-2, steps
  of at most 24 CG iterations, the round ended once a lower bound on the FW gap is at most
  half of FY);
- ``noblocks``: without the pockets solved as PSD blocks just before each check (the
  option ``pocket_blocks``, :mod:`kernelsdp.solvers.alm_blocks`, on by default since the
  forty-fourth pass); ``blocks``, the forty-third pass's name for them (then
  ``npkl_pocket_block_proto``'s wrapper), is now the default and changes nothing;
- ``spectral-K``: the fortieth pass's spectral start (the option ``spectral_start``,
  :mod:`kernelsdp.solvers.alm_start`: the factor starts as the lowest K eigenvectors of M at
  K = 0, and since the forty-first pass its dead directions are retired; from the start
  only, not with ``--resume``).  Without it the prototype starts from K = 0, as the logs
  before the forty-first pass did, although the solver's default is now the start.

``--spectrum`` prints, after each check, where the bottom of M(β̃) lies against the factor
(:func:`spectrum_line`, on stderr; one product with M, not counted): the check's Ritz
value λ, V's level, the Ritz values of M(β̃) in span V, the highest Rayleigh quotient of
V's heavy principal directions, and the lowest of the block's.  Where the block's lowest
lies above that quotient, moving weight from any heavy direction of V to a block vector
(a seed) does not lower the objective to first order.

``--log-steps`` prints each Newton step: the radius, CG iterations, whether it reached the
boundary, the model's decrease, the value's and their ratio, and where the model failed
(``npkl_step_log``: how many rows carry the step, the pairs' error from the hinge's kinks).

    python benchmarks/npkl_resume_proto.py --n 1000000 --dump-at 44 --state st.pkl
    python benchmarks/npkl_resume_proto.py --n 1000000 --resume st.pkl --variant stagnate-3 \\
        --time-limit 600

Measured (docs/measurements.md, "Twenty-second pass"; n = 10⁶ from check 44, 600 s each):
the Newton model holds at radii up to about 1e-2 and fails beyond (ratios −0.1 to −1.7),
so the spread checks' FW gap rests near 1e-2 above FY; ``newton-8`` certified 2.06e-2,
``stagnate-3`` 1.70e-2 (its forced update at check 50 cut the estimated gap from 1.6e-2 to
1.3e-2; 1.31e-2 after 1,200 s and three forced updates, FW still near 1e-2), ``plain``
1.98e-2 (no update in ten checks). Not adopted.  Twenty-third pass, the same state: the
failing steps sat on 16–52 rows (``--log-steps``); ``rows-64`` 0.218 and ``rowmask-100``
0.160 (pockets the checks missed), ``rowprec`` 1.97e-2, ``hubrows-100`` 1.35e-2 (1.04e-2
at the hour's end, 3,728 s). Not adopted.  Twenty-fourth pass: ``kinkrows-100`` 2.04e-2,
``fista`` 1.99e-2 (no pocket after check 45, but FW fell only from 1.1e-2 to 9.5e-3).
Twenty-fifth pass: at 10⁶ the check's six LOBPCG iterations are far from converged (at check
48 of the plain path λ −0.444 where 24 iterations find a hub's pocket at −0.481, and 1 of
the block's 8 values below V's level where 24 find 4); ``checkit-24`` finds the pockets a
check earlier and seeds 4–6 spread directions a check (width 90 → 122 in ten minutes), but
the spread checks' FW gap stays at 1.1–1.3e-2 without an update: 2.08e-2.
``checkit-24+multifw`` 1.99e-2; in twenty minutes its FW gap came below FY at check 56 (one
update) and the limit certified 1.53e-2 (``stagnate-3``: 1.31e-2); in thirty minutes (3,242 s
into the run, two updates) 1.12e-2 (``hubrows-100``: 1.04e-2 at 3,728 s). Not adopted.
Twenty-sixth pass: the solver's check iterations now grow with log n (21 at 10⁶), and
``plain`` from the start for the hour (``--time-limit 3300``) certified 6.86e-3.
Twenty-seventh pass, from the start for the hour with the rule: ``hubrows-100+multifw``
certified 8.92e-3 (ahead of ``plain`` to 2,100 s, 7.1e-3 against 9.7e-3, and no pocket after
check 18; then ρ doubled and the spread checks' FW gap rested at 4-6e-3). Not adopted.
Twenty-eighth pass: the solver now sweeps its pockets' rows before each Newton round
(``kernelsdp.solvers.alm_rows``; the state keeps them), and ``plain`` from the start for the
hour certified 4.95e-3 (its estimate 1.4e-3 at the last check, 3,350 s; no pocket after
check 27).  Twenty-ninth pass: the check's vertex is refined by the Lanczos recurrence from
itself (``kernelsdp.solvers.alm_vertex``); from the state at check 36 of a 10⁶ hour,
``--time-limit 786`` (to 3,300 s in all), the solver with it certified 7.54e-3 at an
estimate of 6.6e-3 and without it 7.48e-3 at an estimate of 4.8e-3 (44 checks, 4,297–4,298
products each, one after the other on the same machine).  Thirty-third pass, from the same
state for the same 786 s: ``newton-2`` with the CG cap at 24 (what ``newton-2+cgmax-24``
now sets; that run set it by a wrapper) certified 6.33e-3 (44 checks, 4,112 products). Its
first round cut FW from 6.0e-3 to 2.5e-3 where the solver's reached 5.3e-3, but FY rose
from 3.1e-3 to 5.0e-3, ρ doubled and a hub's pocket followed.  The spectrum over checks
37–44 (a wrapper that ``--spectrum`` replaces): the block's lowest value 0.97–1.37e-3
above V's heavy directions at every check, and V's heavy directions spread over 1.47e-3
at check 37 (20,000 and 100,000: 1.45e-3 and 1.68e-3 at the same estimate).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import sys
import time

import npkl_hub_rows_proto
import npkl_kink_rows_proto
import npkl_region_proto
import npkl_round_proto
import npkl_step_log
import npkl_step_proto
import numpy as np
from npkl_local_proto import install_check_threads
from npkl_scale import _alm_progress, instance
from threadpoolctl import threadpool_limits

from kernelsdp.solvers import alm_inner, alm_newton, alm_outer
from kernelsdp.solvers.alm_outer import Schedule, _Run, _stop, evaluate
from kernelsdp.solvers.low_rank_alm import LowRankALMOptions, _rank_cap

#: the run's attributes a state carries (the problem is rebuilt from the instance)
RUN_FIELDS = (
    "beta", "rho", "ell", "delta", "iterations", "checks", "eig_products", "updates",
    "history", "warm", "next_certify", "best", "kept", "answer_check", "localised",
    "hub_rows", "pockets", "pockets_s", "blocks", "blocks_s", "retire_budget",
)  # fmt: skip
MIX_FIELDS = ("values", "residuals", "last_fy", "resets", "capped")
#: ``stagnate-K``: the spread checks' FW gap must fall below this share of its best
STAGNATION = 0.9
#: ``--spectrum``: V's principal directions whose squared singular value is at least this
#: share of their mean are its heavy ones (the rest are seeds and columns on their way out)
HEAVY_SHARE = 1e-3
#: the variants' counts (``kinkrows-k``: its retries, the rows they froze, the failures it
#: declined; ``multifw``: its steps and the vertices they weighted)
VARIANT_STATS: dict = {}


class Loop:
    """The outer loop of :func:`kernelsdp.solvers.alm_outer.iterate`, resumable, with the
    variant's gate."""

    def __init__(self, run: _Run, sched: Schedule, variant: str):
        self.run, self.sched, self.variant = run, sched, variant
        self.fy_last, self.stalled, self.spread = math.inf, False, []
        parts = dict(p.split("-") for p in variant.split("+") if "-" in p)
        self.stagnate = int(parts["stagnate"]) if "stagnate" in parts else None

    def state(self, pt) -> dict:
        run = self.run
        st = {k: getattr(run, k) for k in RUN_FIELDS}
        st.update(pt=pt, products=run.prob.products, elapsed=run.elapsed())
        st.update(slow=self.sched.slow, fy_last=self.fy_last, stalled=self.stalled)
        st["mix"] = {k: getattr(self.sched.mix, k) for k in MIX_FIELDS}
        return st

    def restore(self, st: dict, limit: float) -> object:
        run = self.run
        for k in RUN_FIELDS:  # a state saved before a field existed keeps the run's own
            setattr(run, k, st.get(k, getattr(run, k)))
        run.prob.products = st["products"]
        run.t0 = time.perf_counter() - st["elapsed"]
        run.deadline = time.perf_counter() + limit
        self.sched.slow, self.fy_last, self.stalled = st["slow"], st["fy_last"], st["stalled"]
        for k, v in st["mix"].items():
            setattr(self.sched.mix, k, v)
        return st["pt"]

    def stagnated(self, chk) -> bool:
        if self.stagnate is None or self.run.localised:
            return False
        self.spread.append(chk.fw_gap)
        K = self.stagnate
        if len(self.spread) > K and min(self.spread[-K:]) >= STAGNATION * min(self.spread[:-K]):
            self.spread = []
            return True
        return False

    def iterate(self, pt, dump_at: int | None = None, path: str | None = None):
        """The loop from ``pt`` to a stop, or to check ``dump_at`` (saved to ``path``)."""
        run, sched, prob, status = self.run, self.sched, self.run.prob, None
        while status is None:
            if run.checks == dump_at:
                with open(path, "wb") as fh:
                    pickle.dump(self.state(pt), fh, protocol=5)
                return pt, None
            chk, rec = run.check(pt)
            status = _stop(run, pt, chk, rec)
            if status is not None:
                break
            gate = chk.fw_gap <= sched.fw_share * chk.fy_gap or self.stalled
            if self.stagnated(chk) or gate:
                sched.update(run, chk, rec, self.fy_last)
                self.fy_last = chk.fy_gap
                X = run.retired(pt.X)  # the spectral start's dead directions, as the solver
                pt = evaluate(prob, X, run.beta, run.rho, pt.LX if X is pt.X else None)
            else:
                # the solver's step and pockets; alm_outer.fw_step is looked up at each
                # call (``multifw`` replaces it)
                pt = evaluate(prob, alm_outer.frank_wolfe(run, pt, chk), run.beta, run.rho)
            pt, self.stalled = alm_outer._inner_round(run, pt, 0.1 * sched.fw_share * chk.fy_gap)
            status = run.out_of_budget()
            if status is not None:
                chk, rec = run.check(pt)
                status = _stop(run, pt, chk, rec, final=True) or run.certify_kept() or status
        return pt, status


def spectrum_line(prob, pt, chk) -> str:
    """Where the bottom of G = M(β̃) lies against the factor at a check (``--spectrum``):
    λ, V's level, the Ritz values of G in span V (lowest, highest), the highest quotient of
    V's heavy principal directions (``HEAVY_SHARE``; each direction's own Rayleigh
    quotient, the diagonal of the Ritz matrix in V's principal basis), the block's lowest
    value, and the room between the last two (positive: every block vector's value lies
    above every heavy direction's quotient).
    One product with G (``dual_times``, not counted in the run's products)."""
    X = np.asarray(pt.X, dtype=np.float64)
    ev, Q = np.linalg.eigh(X.T @ X) if X.shape[1] else (np.zeros(0), None)
    keep = ev > alm_inner.RANGE_RTOL * max(ev[-1], 0.0) if ev.size else ev > 0
    if not keep.any():  # no factor yet (or an all-zero one)
        return f"spectrum  width {X.shape[1]}  lambda {chk.lam:.6f}"
    ev, Q = ev[keep], Q[:, keep]
    P = X @ Q  # V's principal directions, P's columns orthogonal with norms² ev
    H = P.T @ prob.dual_times(P) / np.sqrt(np.outer(ev, ev))
    ritz = np.linalg.eigvalsh((H + H.T) / 2)
    heavy = ev >= HEAVY_SHARE * ev.mean()
    top = float(np.diag(H)[heavy].max())
    low = float(chk.block_values.min()) if chk.block_values.size else math.nan
    return (
        f"spectrum  width {X.shape[1]}  lambda {chk.lam:.6f}  level {chk.level:.6f}  "
        f"span V [{ritz[0]:.6f}, {ritz[-1]:.6f}]  heavy max {top:.6f}  "
        f"block lowest {low:.6f}  room {low - top:+.2e}"
    )


def install_spectrum(lines: list) -> None:
    """``--spectrum``: each check's :func:`spectrum_line` appended to ``lines`` and
    printed on stderr as it comes."""
    plain = alm_outer.fw_check

    def check(prob, pt, *a):
        chk = plain(prob, pt, *a)
        lines.append(spectrum_line(prob, pt, chk))
        print(lines[-1], file=sys.stderr, flush=True)
        return chk

    alm_outer.fw_check = check


def install_step(cg) -> None:
    """The solver's Newton round with the step ``cg(nt, x, grad, Δ, max_iter)`` (η, the
    model's decrease, whether η reached the boundary, η's length in the region's norm)."""
    plain = alm_newton.newton

    def newton(*args, keep_scratch=False):
        return plain(*args, step=cg, keep_scratch=keep_scratch)

    alm_outer.newton = newton


def numbered(variant: str, name: str) -> str | None:
    """The number of the variant's part NAME-NUMBER (the first one), or None."""
    parts = [p for p in variant.split("+") if p.startswith(name + "-")]
    return parts[0].split("-")[1] if parts else None


def install_variant_step(variant: str) -> None:
    """The variant's step or round (``rows-κ``, ``rowprec``, ``rowmask-k``, ``hubrows-k``),
    the step looked up at each call (so that a log's wrapper of it is seen)."""
    rows = numbered(variant, "rows")
    if rows is not None:
        kappa = float(rows)
        install_step(lambda *a: npkl_region_proto.region_cg(*a, kappa))
    if "rowprec" in variant.split("+"):
        install_step(lambda *a: npkl_step_proto.preconditioned_cg(*a, rows=True))
    hubs = numbered(variant, "hubrows")
    if hubs is not None:
        k = int(hubs)

        def newton(*args, keep_scratch=False):
            return npkl_hub_rows_proto.newton_without_hubs(*args, keep_scratch=keep_scratch, k=k)

        alm_outer.newton = newton
    kinks = numbered(variant, "kinkrows")
    if kinks is not None:
        npkl_kink_rows_proto.install(int(kinks), VARIANT_STATS)
    masks = numbered(variant, "rowmask")
    if masks is not None:
        k = int(masks)
        install_step(lambda *a: npkl_step_proto.preconditioned_cg(*a, mask=k))


def run_variant(f, args) -> dict:
    """One run from the start, to ``--dump-at`` (saved), or from ``--resume``: its summary."""
    install_check_threads()
    steps = numbered(args.variant, "newton")
    if steps is not None:
        alm_outer.NEWTON_STEPS = int(steps)
    install_variant_step(args.variant)
    iters = numbered(args.variant, "checkit")
    if iters is not None:  # N at every size (the solver's own count grows above 20,000)
        alm_inner.check_iterations = lambda n, N=int(iters): N
    if "multifw" in args.variant.split("+"):
        npkl_round_proto.install("multi-fw", VARIANT_STATS)
    cg = numbered(args.variant, "cgmax")
    if cg is not None:
        alm_newton.CG_MAX = int(cg)
    o = LowRankALMOptions(
        gap_tol=1e-3,
        time_limit=args.time_limit,
        inner="fista" if "fista" in args.variant.split("+") else "hybrid",
        pockets="pockets" in args.variant.split("+"),
        pocket_blocks="noblocks" not in args.variant.split("+"),
        tail_rounds="tailround" in args.variant.split("+"),
        # a resumed run restores its factor: no start is drawn to be thrown away
        spectral_start=0 if args.resume else int(numbered(args.variant, "spectral") or 0),
        progress=args.progress,
    )
    with threadpool_limits(limits=1, user_api="blas"):
        run = _Run(f, o, _rank_cap(f, o))
        loop = Loop(run, Schedule(run), args.variant)
        if args.resume is None:
            pt = evaluate(run.prob, run.X0, run.beta, run.rho)
        else:
            with open(args.resume, "rb") as fh:
                pt = loop.restore(pickle.load(fh), args.time_limit)
        t = time.perf_counter()
        pt, status = loop.iterate(pt, args.dump_at, args.state)
    if status is None:
        return {"dumped_at": run.checks, "elapsed_s": round(run.elapsed(), 1)}
    iv = run.best[0] if run.best else None
    return {
        "variant": args.variant,
        "status": str(status),
        "products": run.prob.products,
        "checks": run.checks,
        "updates": run.updates,
        "wall_s": round(time.perf_counter() - t, 1),
        "elapsed_s": round(run.elapsed(), 1),
        "certified_gap": None if iv is None else iv.width,
        "lower_label": None if iv is None else iv.lower_label,
        "answer_check": run.answer_check,
        "pockets": run.pockets,
        "pockets_s": round(run.pockets_s, 1),
        "blocks": run.blocks,
        "blocks_s": round(run.blocks_s, 1),
        **VARIANT_STATS,
    }


def _known_variant(v: str) -> bool:
    """``plain``, ``rowprec``, ``fista``, ``multifw``, ``pockets``, ``tailround``, ``blocks``,
    ``noblocks``, or NAME-NUMBER for the numbered variants (``checkit``'s a whole number of
    iterations, ``spectral``'s the width of the solver's spectral start)."""
    name, _, number = v.partition("-")
    if not number:
        return v in (
            "plain",
            "rowprec",
            "fista",
            "multifw",
            "pockets",
            "tailround",
            "blocks",
            "noblocks",
        )
    if name in ("checkit", "cgmax", "spectral"):
        return number.isdigit() and int(number) > 0
    try:
        float(number)
    except ValueError:
        return False
    return name in ("newton", "stagnate", "rows", "rowmask", "hubrows", "kinkrows", "checkit")


def parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=3000)
    p.add_argument("--instance", help="a pickled instance (else npkl_scale.instance(n))")
    p.add_argument("--dump-at", type=int, help="run to this check and save the state")
    p.add_argument("--state", help="where --dump-at saves the state")
    p.add_argument("--resume", help="a saved state to continue from")
    p.add_argument(
        "--variant",
        default="plain",
        help="plain, fista, newton-S, stagnate-K, rows-κ, rowprec, rowmask-k, hubrows-k, "
        "kinkrows-k, checkit-N, cgmax-N, multifw, pockets, tailround, spectral-K (join by +)",
    )
    p.add_argument("--time-limit", type=float, default=600.0)
    p.add_argument("--log-steps", action="store_true")
    p.add_argument("--spectrum", action="store_true", help="each check's spectrum_line")
    p.add_argument("--quiet", action="store_true", help="no progress line per check")
    args = p.parse_args(argv)
    unknown = [v for v in args.variant.split("+") if not _known_variant(v)]
    if unknown:  # a misspelt variant would otherwise run (and be measured as) the plain loop
        p.error(f"unknown variant {', '.join(unknown)} (see --help)")
    if args.dump_at is not None and args.resume is not None:
        p.error("give at most one of --dump-at (with --state) and --resume")
    if args.dump_at is not None and not args.state:
        p.error("--dump-at needs --state")
    args.progress = None if args.quiet else _alm_progress
    return args


def main(argv=None) -> int:
    args = parse(argv)
    if args.instance and os.path.exists(args.instance):
        with open(args.instance, "rb") as fh:
            f = pickle.load(fh)
    else:
        f = instance(args.n)
    log: list = []
    if args.log_steps:
        npkl_step_log.install(log)
    if args.spectrum:
        install_spectrum([])
    out = run_variant(f, args)
    for r in log:
        print(npkl_step_log.step_line(r), file=sys.stderr)
    print(json.dumps(out, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
