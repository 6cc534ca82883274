"""NPKL hinge loss with the trace capacity at scale, graph construction included: ADMM
(seed 001) and the low-rank augmented Lagrangian (issue #30) side by side in one run.

The instance: two-Gaussian data in 10 dimensions (``simplenpkl_speed.gaussian_mixture``),
mutual 5-NN Laplacian (scikit-learn's NearestNeighbors), m = 1.2 n random pairs, C = 1,
tr K ≤ B = n (:func:`instance`).

**Side by side** (the default): for each n (3,000, 20,000 and 100,000; ``--quick``: 3,000
and 20,000; ``--n N`` one size, e.g. 10⁶ on request: about 18.5 GiB at the rank cap, so with
``KERNELSDP_MEMORY_GIB=19``: each child's default cap is 60 % of the machine) and each
solver (``--solvers``),
one child process builds the instance, solves it to the certified gap 1e-3, and certifies
the answer again from scratch (the NPKL certificate, in double); it prints iterations,
sparse products (n×s blocks: ADMM two per iteration, with W and Wᵀ; the ALM one with L and
one with the pairs per gradient step, plus backtracking), eigensolves (ADMM's gap checks;
the ALM's Frank–Wolfe checks), time (graph and solve), its own gap and the labels of its
lower end, the width certified from scratch, rank, and the child's peak RSS after the solve
(graph included) and after the certificate from scratch (``+cert``).  Then the bars
of issue #30, each as measured in this run: products within 2× across n, n = 20,000 at
least 5× faster than ADMM, n = 100,000 certified to 1e-3 in ≤ 10 minutes and ≤ 3 GiB, graph
included; and the ALM's gap against time per n (the curve the issue asks for when a bar is
missed), which ``--plot FIG.png`` draws for every run, against time and against products
(:mod:`gap_curves`, which also draws it from the progress lines of a log).  The machine is
shared: compare the ratios, not the absolute times.

    python benchmarks/npkl_scale.py --quick                 # 3,000 and 20,000, both solvers
    python benchmarks/npkl_scale.py                         # and 100,000
    python benchmarks/npkl_scale.py --n 100000 --solvers low-rank-alm --time-limit 600
    KERNELSDP_MEMORY_GIB=19 python benchmarks/npkl_scale.py --n 1000000 --solvers low-rank-alm
    python benchmarks/npkl_scale.py --quick --solvers admm,low-rank-alm:fista,low-rank-alm:newton
    python benchmarks/npkl_scale.py --seeds 0,1,2,3,4 --solvers low-rank-alm,low-rank-alm:lmp
    python benchmarks/npkl_scale.py --quick --seeds 0,1,2,3,4 --solvers low-rank-alm:tail
    python benchmarks/npkl_scale.py --seeds 0,1,2,3,4 --solvers low-rank-alm,low-rank-alm:zero
    python benchmarks/npkl_scale.py --quick --plot gap.png  # every run's curve, drawn

(``low-rank-alm:fista`` and ``low-rank-alm:newton`` pick the ALM's inner steps, FISTA or
trust-region Newton; ``low-rank-alm:lmp`` preconditions the Newton steps' CG by the step
before, the option ``lmp_pairs``; ``low-rank-alm:tail`` takes the tail's rounds, the option
``tail_rounds``; ``low-rank-alm:zero`` starts from K = 0 instead of the bottom of M there,
the option ``spectral_start`` at 0 (the default before the forty-first pass); each variant
gets its own bars.)

**Over seeds** (``--seeds 0,1,2``): each solver's option ``seed`` (the ALM's eigensolvers'
random starts, ADMM's starting noise) takes each value in turn on the same instance, and
the bars are printed for each seed and then for the worst of them — the thirteenth pass
found the products bar met at seed 0 (1.91×) and missed at seeds 1 and 2 (2.94×, 2.60×):
a bar is met when it is met at every seed.

    python benchmarks/npkl_scale.py --solvers low-rank-alm --seeds 0,1,2

**One solver, its stages** (``--stages``; the earlier mode, ADMM at n = 100,000, ``--quick``
20,000): the stages timed, cProfile's top entries, peak RSS; ADMM's options as before:

    python benchmarks/npkl_scale.py --stages --quick
    python benchmarks/npkl_scale.py --stages --n 1000000 --no-profile
    python benchmarks/npkl_scale.py --stages --time-limit 1200   # ADMM stopped at 20 minutes
    python benchmarks/npkl_scale.py --stages --loss linear --n 1000000 --no-profile

``--loss linear`` solves by the trace capacity's closed form (K = B·vvᵀ, one λ_min of
L − C·T) instead of ADMM, which does not take the linear loss.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import io
import json
import os
import pstats
import subprocess
import sys
import time

import gap_curves
from simplenpkl_speed import gaussian_mixture, peak_rss_gib

from kernelsdp.data import PairwiseConstraints, knn_laplacian
from kernelsdp.errors import TooLargeError
from kernelsdp.formulations import NPKL
from kernelsdp.solvers import solve
from kernelsdp.tolerances import LOW_RANK_ALM_GAP_TOL
from kernelsdp.verify import certify

#: the side-by-side run's solvers and sizes
COMPARED = ("admm", "low-rank-alm")
SIZES = (3_000, 20_000, 100_000)
QUICK_SIZES = (3_000, 20_000)
#: issue #30's bars
SAME_PRODUCTS_WITHIN = 2.0
FASTER_AT_20K = 5.0
BAR_100K_S, BAR_100K_GIB = 600.0, 3.0
#: the side-by-side children print their solver's progress on stderr from this size
PROGRESS_FROM = 50_000


def _progress(rec: dict) -> None:
    """One line on stderr every 50 iterations (the run takes minutes at n = 100,000)."""
    gap = rec.get("relative_gap")
    print(
        f"  iteration {rec['iteration']:5d}  {rec['time_s']:7.1f} s  rank {rec['rank']:3d}  "
        f"residuals {max(rec['primal_1'], rec['primal_2']):.1e}  objective "
        f"{rec['primal']:.8g}  gap {gap if gap == gap else float('nan'):.1e}",
        file=sys.stderr,
        flush=True,
    )


#: ``low-rank-alm``'s options for the path the prototypes measured before the forty-first
#: pass: from K = 0 (no spectral start) and without the pockets solved as blocks (the
#: defaults since the forty-first and forty-fourth passes)
FROM_ZERO = {"spectral_start": 0, "pocket_blocks": False}


def instance(n: int, loss: str = "hinge", times: dict | None = None) -> NPKL:
    """The benchmark's problem at size n: two Gaussians in 10-D, mutual 5-NN Laplacian,
    m = 1.2n random pairs, C = 1, tr K ≤ B = n (stages timed into ``times`` if given)."""
    times = {} if times is None else times
    t = time.perf_counter()
    X, y = gaussian_mixture(n)
    times["data"] = time.perf_counter() - t
    t = time.perf_counter()
    L = knn_laplacian(X, 5)
    times["graph (mutual 5-NN Laplacian)"] = time.perf_counter() - t
    t = time.perf_counter()
    pairs = PairwiseConstraints.sample(y, int(1.2 * n), seed=0)
    f = NPKL(L=L, pairs=pairs, loss=loss, capacity="trace", C=1.0, B=float(n))
    times["pairs and problem"] = time.perf_counter() - t
    return f


def stages(
    n: int, loss: str, precision: str = "double", time_limit: float | None = None, **admm
) -> dict:
    times = {}
    f = instance(n, loss, times)
    t = time.perf_counter()
    if loss == "linear":
        r = solve(f, "closed-form", time_limit=time_limit)
    else:
        r = solve(f, "admm", precision=precision, progress=_progress, time_limit=time_limit, **admm)
    times[f"{r.solver} solve"] = time.perf_counter() - t
    t = time.perf_counter()
    cert = certify(f, r)
    times["certificate from scratch"] = time.perf_counter() - t
    gap = r.info.get("relative_gap")
    if gap is None and r.upper_bound is not None and r.lower_bound is not None:  # the closed form
        gap = (r.upper_bound - r.lower_bound) / max(1.0, abs(r.upper_bound))
    return {
        "times": times,
        "solver": r.solver,
        "status": r.termination.value,
        "iterations": r.iterations,
        "rank": r.kernel.rank,
        "gap": float("nan") if gap is None else gap,
        "verdict": cert.verdict,
        "width": cert.width,
        "lower": cert.lower,
        "upper": cert.upper,
        "admm_certificate_s": r.info.get("certificate_s"),
        "nnz_L": int(f.L.nnz),
        "m": f.pairs.m,
    }


def _alm_progress(rec: dict) -> None:
    """One line on stderr at each of the ALM's Frank–Wolfe checks (n = 100,000: about 12
    minutes, and nothing printed before the end without it): the estimated gap as it falls,
    with the multiplier updates so far and the check's λ_min (scaled units), the two terms
    the dual estimate moves with (the 10⁶ run's gap rose with neither recorded), and how
    localised the check's vertex is (its participation ratio: the nodes that carry it) and
    how many of the block's vectors lay below V's level (all of them: the block was
    saturated, more directions of descent than one check brings in), and the Newton steps'
    trust radius (at 100,000 a radius of 0.003 held the FW gap above FY for 22 checks), and
    the FW and FY gaps whose ratio gates the update (the twentieth pass's 10⁶ run went 15
    checks without one, at radii of 3e-4 to 5e-3, and this line did not yet show why)."""
    print(
        f"  check {rec['check']:4d}  {rec['time_s']:7.1f} s  products {rec['products']:6d}  "
        f"rank {rec['rank']:3d}  rho {rec['rho']:6.2f}  updates {rec['multiplier_updates']:3d}  "
        f"lambda {rec['lambda']:.2e}  vertex on {rec['vertex_participation']:7.0f} nodes  "
        f"seeds {rec['seeds']:2d}/{rec['block']:2d}  objective {rec['primal']:.8g}  "
        f"estimated gap {rec['estimated_gap']:.1e}  trust radius {rec['trust_radius']:.1e}  "
        f"FW {rec['fw_gap']:.1e}  FY {rec['fy_gap']:.1e}",
        file=sys.stderr,
        flush=True,
    )


def measure(solver: str, n: int, time_limit: float | None, seed: int = 0) -> dict:
    """One solve at size n in this process (the side-by-side run's child), the solver's
    option ``seed`` at ``seed``, certified again from scratch; the row the parent prints."""
    times: dict = {}
    t0 = time.perf_counter()
    f = instance(n, "hinge", times)
    t = time.perf_counter()
    name, _, variant = solver.partition(":")  # low-rank-alm:fista / :newton / :lmp
    progress = {"low-rank-alm": _alm_progress, "admm": _progress}[name]
    r = solve(
        f,
        name,
        time_limit=time_limit,
        seed=seed,
        progress=progress if n >= PROGRESS_FROM else None,
        **_variant_options(variant),
    )
    times["solve"] = time.perf_counter() - t
    solve_rss = peak_rss_gib()  # before the from-scratch certificate, which has its own needs
    t = time.perf_counter()
    try:
        cert = certify(f, r, LOW_RANK_ALM_GAP_TOL)
        scratch = {"scratch_width": cert.width, "scratch_verdict": cert.verdict}
    except (MemoryError, Exception) as exc:  # the solve's own row still counts
        scratch = {
            "scratch_width": float("nan"),
            "scratch_verdict": f"failed: {type(exc).__name__}: {str(exc)[:160]}",
        }
    times["certificate from scratch"] = time.perf_counter() - t
    own = r.info.get("certificate")
    if name == "low-rank-alm":  # (time, gap, products so far) at each check
        curve = gap_curves.history_curve(r.history)
        products, eig = r.info["products"], r.info["checks"]
    else:  # ADMM's own gap at its checks; two products an iteration
        curve = [
            (h["time_s"], h["relative_gap"], 2 * h["iteration"])
            for h in r.history
            if "relative_gap" in h
        ]
        products, eig = 2 * r.iterations, len(curve)
    return {
        "solver": solver,
        "n": n,
        "seed": seed,
        "m": f.pairs.m,
        "status": r.termination.value,
        "iterations": r.iterations,
        "products": products,
        "eigensolves": eig,
        "graph_s": times["graph (mutual 5-NN Laplacian)"],
        "solve_s": times["solve"],
        "total_s": time.perf_counter() - t0,
        "rank": r.kernel.rank,
        "own_gap": float(r.info.get("relative_gap", float("nan"))),
        "own_lower": None if own is None else own.lower_label,
        **scratch,
        "peak_rss_gib": solve_rss,
        "certificate_rss_gib": peak_rss_gib(),
        "certificate_s": times["certificate from scratch"],
        "curve": curve,
    }


def _cap_memory() -> None:
    """A child's address space is capped at ``KERNELSDP_MEMORY_GIB`` (default: 60 % of the
    machine's): on a shared machine a certificate that outgrows it (a sparse LDLᵀ's fill)
    fails this child instead of swapping out the others.  :func:`kernelsdp.limits.memory_limit`
    reads the cap back, so the solvers' own memory checks refuse, before allocating, what
    the cap would kill mid-solve (the tenth pass's 10⁶ run died of a MemoryError at width
    176 under the 14.1 GiB default cap: the ALM's pre-check had measured its 17.7 GiB at the
    rank cap against the machine's 23.5 GiB)."""
    import resource

    from kernelsdp.limits import MEMORY_ENV, memory_limit

    cap = int(0.6 * memory_limit()) if MEMORY_ENV not in os.environ else memory_limit()
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _variant_options(variant: str) -> dict:
    """The ALM's options for ``low-rank-alm:VARIANT``: ``fista``, ``newton`` or ``hybrid``
    pick its inner steps, ``lmp`` the Newton steps' CG preconditioned by the step before
    (``lmp_pairs``, :mod:`kernelsdp.solvers.alm_lmp`, at its measured ``LMP_PAIRS``),
    ``tail`` the tail's rounds (``tail_rounds``, :mod:`kernelsdp.solvers.alm_tail`),
    ``zero`` from K = 0 without the spectral start (``spectral_start`` 0,
    :mod:`kernelsdp.solvers.alm_start`)."""
    from kernelsdp.solvers.low_rank_alm import LMP_PAIRS

    if variant == "lmp":
        return {"lmp_pairs": LMP_PAIRS}
    if variant == "tail":
        return {"tail_rounds": True}
    if variant == "zero":
        return {"spectral_start": 0}
    return {"inner": variant} if variant else {}


def _child(solver: str, n: int, time_limit: float | None, seed: int = 0) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--child", solver, str(n)]
    cmd += ["--seeds", str(seed)]
    if time_limit is not None:
        cmd += ["--time-limit", str(time_limit)]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=False)
    if out.returncode != 0 or not out.stdout.strip():
        return {"solver": solver, "n": n, "seed": seed, "failed": f"exit code {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def side_by_side(sizes, solvers, time_limit: float | None, seeds=(0,), plot=None) -> int:
    """Each (seed, n, solver) in its own child, one after the other; the table, the bars
    (for each seed, then over all of them), the ALM's gap against time (and, with ``plot``
    a PNG path, every run's gap against time and products drawn there)."""
    rows = []
    print(
        f"{'n':>9} {'solver':<19} {'seed':>4} {'status':<16} {'iter':>6} {'products':>9} "
        f"{'eig':>5} {'graph s':>8} {'solve s':>8} {'own gap':>8} {'lower':>9} {'scratch':>8} "
        f"{'rank':>5} {'RSS GiB':>8} {'+cert':>6}",
        flush=True,
    )
    for seed in seeds:
        for n in sizes:
            for solver in solvers:
                row = _child(solver, n, time_limit, seed)
                rows.append(row)
                _print_row(row)
    for r in rows:
        if str(r.get("scratch_verdict", "")).startswith("failed"):
            print(f"n = {r['n']:,}, {r['solver']}: certificate from scratch {r['scratch_verdict']}")
    ok = [r for r in rows if "failed" not in r]
    verdicts: dict = {}
    for seed in seeds:
        if len(seeds) > 1:
            print(f"-- seed {seed}")
        for bar, met in _bars([r for r in ok if r["seed"] == seed]):
            verdicts.setdefault(bar, []).append(met)
    if len(seeds) > 1:
        for bar, met in verdicts.items():
            print(
                f"{bar}: met at {sum(met)} of {len(met)} seeds -> "
                f"{'met' if all(met) and len(met) == len(seeds) else 'missed'}"
            )
    if plot:
        _plot(ok, plot, len(seeds) > 1)
    return 0


def _plot(rows: list[dict], path: str, with_seed: bool) -> None:
    """Every run's curve in one figure (:mod:`gap_curves`)."""
    curves = {
        f"{r['solver']} n = {r['n']:,}" + (f" seed {r['seed']}" if with_seed else ""): r["curve"]
        for r in rows
    }
    title = "NPKL hinge, tr K <= n: the gap at each check (ALM: estimated; ADMM: its own)"
    gap_curves.plot(curves, path, title)
    print(f"gap against time and products: {path}")


def _print_row(row: dict) -> None:
    n, solver, seed = row["n"], row["solver"], row["seed"]
    if "failed" in row:
        print(f"{n:>9,} {solver:<19} {seed:>4} failed: {row['failed']}", flush=True)
        return
    print(
        f"{n:>9,} {solver:<19} {seed:>4} {row['status']:<16} {row['iterations']:>6} "
        f"{row['products']:>9} {row['eigensolves']:>5} {row['graph_s']:>8.1f} "
        f"{row['solve_s']:>8.1f} {row['own_gap']:>8.1e} {str(row['own_lower']):>9} "
        f"{row['scratch_width']:>8.1e} {row['rank']:>5} {row['peak_rss_gib']:>8.2f} "
        f"{row['certificate_rss_gib']:>6.2f}",
        flush=True,
    )


def _bars(rows: list[dict]) -> list[tuple[str, bool]]:
    """Issue #30's bars, from these rows only (one seed's): for each variant of the ALM in
    the run (``low-rank-alm``, ``low-rank-alm:fista``, ``low-rank-alm:newton``); returns
    (the bar, met) for each bar printed."""
    variants = dict.fromkeys(r["solver"] for r in rows if r["solver"].startswith("low-rank-alm"))
    admm = {r["n"]: r for r in rows if r["solver"] == "admm"}
    out = []
    for variant in variants:
        alm = {r["n"]: r for r in rows if r["solver"] == variant}
        out += _variant_bars(variant, alm, admm)
    return out


def _variant_bars(variant: str, alm: dict, admm: dict) -> list[tuple[str, bool]]:
    out = []
    done = {n: r for n, r in alm.items() if r["status"] == "optimal"}
    if len(done) >= 2:
        p = [r["products"] for r in done.values()]
        bar = (
            f"bar ({variant}), products within {SAME_PRODUCTS_WITHIN:g}x across n = "
            f"{', '.join(f'{n:,}' for n in done)}"
        )
        out.append((bar, max(p) <= SAME_PRODUCTS_WITHIN * min(p) and len(done) == len(alm)))
        print(f"{bar}: {max(p) / min(p):.2f}x -> {'met' if out[-1][1] else 'missed'}")
        _body_and_tail(variant, done)
    if 20_000 in alm and 20_000 in admm:
        a, b = alm[20_000], admm[20_000]
        ratio = b["solve_s"] / a["solve_s"]
        ok = ratio >= FASTER_AT_20K and a["status"] == "optimal" and b["status"] == "optimal"
        bar = f"bar ({variant}), n = 20,000 at least {FASTER_AT_20K:g}x faster than ADMM (gap 1e-3)"
        out.append((bar, ok))
        print(
            f"{bar}: ADMM {b['solve_s']:.1f} s / ALM {a['solve_s']:.1f} s = {ratio:.2f}x -> "
            f"{'met' if ok else 'missed'}"
        )
    if 100_000 in alm:
        r = alm[100_000]
        ok = (
            r["status"] == "optimal"
            and r["total_s"] <= BAR_100K_S
            and r["peak_rss_gib"] <= BAR_100K_GIB
        )
        bar = (
            f"bar ({variant}), n = 100,000 certified 1e-3 in <= {BAR_100K_S:.0f} s and "
            f"<= {BAR_100K_GIB:g} GiB, graph included"
        )
        out.append((bar, ok))
        print(
            f"{bar}: {r['status']}, {r['total_s']:.0f} s, {r['peak_rss_gib']:.2f} GiB -> "
            f"{'met' if ok else 'missed'}"
        )
    for n, r in alm.items():
        pts = r["curve"][:: max(1, len(r["curve"]) // 12)] + r["curve"][-1:]
        gaps = "  ".join(f"{p[0]:.0f}s:{p[1]:.1e}" for p in pts)
        print(f"{variant} gap against time, n = {n:,}: {gaps}")
    return out


def _body_and_tail(variant: str, done: dict) -> None:
    """Not a bar: the products to an estimated 3e-3 (the body, :data:`gap_curves.MILESTONES`)
    and from there to the certified gap (the tail) at each n, and the body's ratio across n:
    which of the two grows with n."""
    gap = gap_curves.MILESTONES[-1]
    body = {n: gap_curves.products_to(r["curve"], gap) for n, r in done.items()}
    parts = "  ".join(
        f"{n:,}: {b} + {r['products'] - b}" if b is not None else f"{n:,}: never"
        for (n, r), b in zip(done.items(), body.values())
    )
    reached = [b for b in body.values() if b is not None]
    ratio = f"{max(reached) / min(reached):.2f}x" if len(reached) == len(body) else "n/a"
    print(f"{variant} products to an estimated {gap:.0e}, then to certified: {parts}; body {ratio}")


def _seeds(text: str) -> tuple[int, ...] | None:
    """``--seeds``' values (None when one is not an integer ≥ 0)."""
    try:
        seeds = tuple(int(v) for v in text.split(","))
    except ValueError:
        return None
    return seeds if seeds and min(seeds) >= 0 else None


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="the smaller sizes (see above)")
    ap.add_argument("--n", type=int, default=None)
    ap.add_argument("--stages", action="store_true", help="one solver's stages, profiled")
    ap.add_argument(
        "--solvers",
        default=",".join(COMPARED),
        help="side by side: these solvers (low-rank-alm:fista or :newton picks its inner "
        "steps, :lmp its CG preconditioned by the step before, :tail the tail's rounds, "
        ":zero from K = 0 without the spectral start)",
    )
    ap.add_argument("--child", nargs=2, metavar=("SOLVER", "N"), help=argparse.SUPPRESS)
    ap.add_argument(
        "--seeds",
        default="0",
        metavar="S,S,...",
        help="side by side: the solvers' option seed, each value in turn (bars per seed)",
    )
    ap.add_argument(
        "--loss", default="hinge", choices=("hinge", "squared-hinge", "l2", "l1", "linear")
    )
    ap.add_argument("--no-profile", action="store_true", help="time the stages only")
    ap.add_argument(
        "--precision",
        default="double",
        choices=("single", "double"),
        help="ADMM's arithmetic (the certificates are double either way)",
    )
    ap.add_argument("--top", type=int, default=25, help="profile entries to print")
    ap.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="S",
        help="stop ADMM after S seconds (its point is still certified and reported)",
    )
    ap.add_argument(
        "--rank-start",
        type=int,
        default=None,
        metavar="R",
        help="ADMM's starting width (default 32; profile at the final width with it)",
    )
    ap.add_argument("--rank", type=int, default=None, metavar="R", help="ADMM's width cap")
    ap.add_argument(
        "--plot", metavar="FIG.png", help="side by side: every run's gap curve drawn here"
    )
    a = ap.parse_args()
    if a.child:
        _cap_memory()
        try:
            row = measure(a.child[0], int(a.child[1]), a.time_limit, int(a.seeds))
        except TooLargeError as exc:  # the solver's refusal before allocating: one line
            print(f"{a.child[0]} at n = {int(a.child[1]):,}: {exc}", file=sys.stderr, flush=True)
            return 2
        print(json.dumps(row), flush=True)
        return 0
    if a.plot:  # refused now, not after the runs (minutes to hours) have been measured
        problem = gap_curves.output_problem(a.plot)
        if a.stages:
            problem = "--plot draws the side-by-side runs, not --stages"
        elif importlib.util.find_spec("matplotlib") is None:
            problem = "--plot needs matplotlib (pip install matplotlib)"
        if problem:
            print(f"npkl_scale: {problem.replace('--out', '--plot')}")
            return 2
    if not a.stages:
        sizes = [a.n] if a.n else (QUICK_SIZES if a.quick else SIZES)
        seeds = _seeds(a.seeds)
        if seeds is None:
            print(f"npkl_scale: --seeds takes integers >= 0 (e.g. 0,1,2), not {a.seeds!r}")
            return 2
        if "low-rank-alm:start" in a.solvers.split(","):  # the fortieth pass's variant
            print(
                "npkl_scale: low-rank-alm:start is gone: the spectral start is low-rank-alm's "
                "default since the forty-first pass (low-rank-alm:zero starts from K = 0)"
            )
            return 2
        return side_by_side(sizes, a.solvers.split(","), a.time_limit, seeds, a.plot)
    admm = {k: v for k, v in (("rank_start", a.rank_start), ("rank", a.rank)) if v is not None}
    n = a.n or (20_000 if a.quick else 100_000)
    prof = None if a.no_profile else cProfile.Profile()
    t0 = time.perf_counter()
    if prof is not None:
        prof.enable()
    try:
        out = stages(n, a.loss, a.precision, a.time_limit, **admm)
    except KeyboardInterrupt:
        print(
            f"npkl_scale: interrupted after {time.perf_counter() - t0:.0f} s (peak RSS "
            f"{peak_rss_gib():.2f} GiB); --time-limit stops ADMM with its point certified",
            file=sys.stderr,
        )
        return 130
    if prof is not None:
        prof.disable()
    total = time.perf_counter() - t0
    print(
        f"NPKL {a.loss}, trace B = n, n = {n:,}, m = {out['m']:,}, nnz(L) = {out['nnz_L']:,}, "
        + (
            "the closed form"
            if out["solver"] == "npkl-closed-form"
            else f"ADMM in {a.precision} precision"
        )
    )
    for name, s in out["times"].items():
        print(f"  {name:<32}{s:9.1f} s  ({100 * s / total:4.1f} %)")
    print(f"  {'total':<32}{total:9.1f} s  (bar at n = 100,000: 300 s)")
    own = (
        ""
        if out["admm_certificate_s"] is None
        else f" (its own certificates: {out['admm_certificate_s']:.1f} s)"
    )
    print(
        f"{out['solver']}: {out['status']}, {out['iterations']} iterations, rank {out['rank']}, "
        f"its gap {out['gap']:.2e}{own}; certified from scratch: {out['verdict']}, interval "
        f"[{out['lower']:.8g}, {out['upper']:.8g}], width {out['width']:.1e}"
    )
    print(f"peak RSS {peak_rss_gib():.2f} GiB (bar at n = 100,000: 4 GiB)")
    if prof is not None:
        for key in ("cumulative", "tottime"):
            buf = io.StringIO()
            pstats.Stats(prof, stream=buf).sort_stats(key).print_stats(a.top)
            text = buf.getvalue()
            print(f"\n== profile, top {a.top} by {key} ==")
            print(text[text.find("   ncalls") :].rstrip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
