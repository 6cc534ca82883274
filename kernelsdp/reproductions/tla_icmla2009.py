"""Seed 004 — Howard & Jebara, "Transformation learning via kernel alignment" (ICMLA 2009):
Table 1 (synthetic monotone transformations), the relaxation's honesty on an instance
where the untightened MWC-TLA loses monotonicity, a plot of the learned transformation
against the true inverse, and the running-time scaling of Figure 3.

Protocol (seed 004 §5.1; our choices *):
- 600 points in [0.05, 1]² on both sides of u₁ + u₂ = 1.05 with margin 0.05*, transformed
  featurewise by linear / log / square; the inverses to learn are x, exp(x), √x;
  200 training / 200 validation / 200 test points; 10 repetitions (``--quick``: 2);
- J = 10 truncated ramps per feature, knots at quantiles (eq. 14);
- SVM (SVC, kernel="precomputed") on the learned kernel, C picked on the validation split
  from {0.1, 1, 10, 100, 1000}*; test error in %;
- KA (eq. 8), MWC-TLA (eq. 13, tightened with M ≥ 0, and untightened), NC-TLA (eq. 11)
  and LMTL (eq. 2, C = 1*) all train on the paper's 200 training points.  NC-TLA and
  LMTL hold n-sized semidefinite blocks: NC-TLA is solved exactly at J size through the
  Schur complement (``schur-reduced``: the block says ‖K_M‖_F ≤ 1), LMTL by extragradient
  on its saddle point (§5.3: the paper's own method for LMTL at scale); both certified
  (``--block-n 60 --block-solver scs`` is our earlier reading, 60 points by SCS);
- Figure 3 (§5.4): seconds to a classifier on the square-root task, SVM training included
  as the paper's times include it ("the alignment SDP as well as ... a simple dual SVM"):
  ramps + SDP, then libsvm's dual SVC (linear kernel on the learned features Φ = R·φ(x),
  M = RᵀR, C = 1) for every method; the claims (little dependence on n, far faster than
  LMTL and NC-TLA) get a verdict from those times;
- data: the paper's synthetic task is generated here (§5.1).  Its Corel histograms
  (Table 2) and WebKB pages (Table 3) are not available offline: not reproduced, and no
  stand-in is claimed for them.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
from sklearn.svm import SVC

from kernelsdp.data.datasets import MONOTONE, hyperplane_transformed
from kernelsdp.data.ramps import RampBasis
from kernelsdp.formulations import KA, LMTL, MWCTLA, NCTLA
from kernelsdp.formulations.tla import mixture_kernel
from kernelsdp.solvers import get_solver, solve

PAPER = {
    "LMTL": (0.20, 0.20, 0.35, 0.25),
    "KA": (12.55, 11.95, 12.20, 12.23),
    "NC-TLA": (6.75, 6.30, 8.65, 7.23),
    "MWC-TLA": (0.15, 0.05, 0.35, 0.18),
}
METHODS = ("LMTL", "KA", "NC-TLA", "MWC-TLA", "MWC-TLA (untightened)")
N_TRAIN = 200
C_GRID = (0.1, 1.0, 10.0, 100.0, 1000.0)
#: the block formulations' solvers: the structured ones (default) and the earlier reading
BLOCK_SOLVERS = {
    "fast": {"NC-TLA": "schur-reduced", "LMTL": "extragradient"},
    "scs": {"NC-TLA": "scs", "LMTL": "scs"},
}
OUT = "out"
#: LMTL's extragradient stops at this certified relative gap here (its default, 1e-6, costs
#: up to 14,000 iterations on one draw: measured 1.0–27 s at n = 200; the test error does
#: not move at 1e-4)
EXTRAGRADIENT_TOL = 1e-4


def test_error(basis, M, X, y, tr, va, te) -> float:
    Ktr = mixture_kernel(basis, M, X[tr])
    best, best_err = None, np.inf
    for C in C_GRID:
        svm = SVC(kernel="precomputed", C=C).fit(Ktr, y[tr])
        err = np.mean(svm.predict(mixture_kernel(basis, M, X[va], X[tr])) != y[va])
        if err < best_err:
            best, best_err = svm, err
    return 100 * float(np.mean(best.predict(mixture_kernel(basis, M, X[te], X[tr])) != y[te]))


def run_unit(unit: dict) -> dict:
    """One repetition of one method on one transformation: its test error and certificate."""
    X, y = hyperplane_transformed(600, unit["transform"], seed=unit["seed"])
    tr, va, te = (
        np.arange(N_TRAIN),
        np.arange(N_TRAIN, 2 * N_TRAIN),
        np.arange(2 * N_TRAIN, 3 * N_TRAIN),
    )
    basis = RampBasis.fit(X[tr], unit["J"])
    method, fit = unit["method"], tr
    if method in ("NC-TLA", "LMTL"):
        fit = tr[: unit["block_n"]]
        f = (NCTLA if method == "NC-TLA" else LMTL).from_data(X[fit], y[fit], basis=basis)
        solver = BLOCK_SOLVERS[unit["block_solver"]][method]
    elif method == "KA":
        f, solver = KA.from_data(X[tr], y[tr], basis=basis), "clarabel"
    else:
        tight = method == "MWC-TLA"
        f = MWCTLA.from_data(X[tr], y[tr], basis=basis, tightened=tight)
        solver = "clarabel" if tight else "mwc-tla-top-eigenvector"
    opts = {"tol": EXTRAGRADIENT_TOL} if solver == "extragradient" else {}
    t = time.perf_counter()
    r = solve(f, solver, **opts)
    seconds = time.perf_counter() - t
    cert = f.certificate(r, opts.get("tol", get_solver(type(f), solver).certificate_tol))
    M = np.diag(r.primal["m"]) if method == "KA" else r.primal.get("M")
    err = test_error(basis, M, X, y, fit, va, te) if r.ok else float("nan")
    rank = int(np.sum(np.linalg.eigvalsh(M) > 1e-6 * max(np.abs(M).max(), 1e-300))) if r.ok else -1
    return {
        "error": err,
        "solver": solver,
        "seconds": seconds,
        "certified": cert.passed,
        "termination": r.termination.value,
        "rank_M": rank,
        "monotone": bool(r.info.get("monotone", True)),
        "n_fit": len(fit),
    }


def table1(reps: int, block_n: int, block_solver: str) -> list[dict]:
    from kernelsdp.runs import ResultsStore, run_units

    units = [
        {
            "transform": t,
            "seed": s,
            "method": m,
            "J": 10,
            "block_n": block_n,
            "block_solver": block_solver,
            "eg_tol": EXTRAGRADIENT_TOL,
        }
        for t in MONOTONE
        for s in range(reps)
        for m in METHODS
    ]
    summary = run_units("tla-table1", units, run_unit, desc="seed 004 Table 1")
    csv, js = ResultsStore(summary.store_path).export("tla-table1", OUT, summary.records)
    res = summary.records
    cols = list(MONOTONE)
    print(
        f"Table 1: test error %  (ours mean ± std | paper), {reps} repetitions; "
        f"every learned kernel certified: {all(r['certified'] for r in res)} "
        f"({summary.ran} units run, {summary.skipped} from the store)"
    )
    print(
        f"{'method':<24}"
        + "".join(f"{MONOTONE[t][1]:>22}" for t in cols)
        + f"{'avg':>16}  solver, seconds"
    )
    for m in METHODS:
        cells, avgs = [], []
        rows = [r for r in res if r["method"] == m]
        for k, t in enumerate(cols):
            v = [r["error"] for r in rows if r["transform"] == t]
            avgs.append(np.nanmean(v))
            p = f"| {PAPER[m][k]:5.2f}" if m in PAPER else "|   -  "
            cells.append(f"{np.nanmean(v):6.2f} ± {np.nanstd(v):5.2f} {p}")
        pa = f"| {PAPER[m][3]:5.2f}" if m in PAPER else "|   -  "
        print(
            f"{m:<24}" + "".join(f"{c:>22}" for c in cells) + f"{np.mean(avgs):8.2f} {pa}  "
            f"{rows[0]['solver']}, {np.mean([r['seconds'] for r in rows]):.2f}s "
            f"on n = {rows[0]['n_fit']}"
        )
    print(f"(exported: {csv}, {js})")
    return res


def explain(res: list[dict]) -> None:
    """The measured cause beside every average more than 3 points from the paper's."""
    print("\nWhy the averages differ from the paper's by more than 3 points (measured here):")
    said = False
    for m, p in PAPER.items():
        rows = [r for r in res if r["method"] == m]
        ours = np.nanmean([r["error"] for r in rows])
        if abs(ours - p[3]) <= 3:
            continue
        said = True
        ranks = sorted({r["rank_M"] for r in rows})
        mono = np.mean([r["monotone"] for r in rows])
        if m == "KA":
            why = (
                "KA mixes kernels, not transformations: M is diagonal (rank of M "
                f"{ranks}), so Σ m_i φ_i(x)ᵀφ_i(x') cannot express one monotone map of x; "
                "the paper's 12% is the same failure, ours is larger or smaller with the data draw"
            )
        elif m == "NC-TLA":
            why = (
                f"the norm-constrained optimum has rank of M {ranks} and a monotone leading "
                f"eigenvector in {100 * mono:.0f}% of runs: ‖K_M‖_F ≤ 1 rewards alignment, not a "
                "monotone inverse; the paper reports it poor too (7.2%)"
            )
        else:
            why = f"rank of M {ranks}, monotone in {100 * mono:.0f}% of runs"
        print(f"  {m:<8} ours {ours:5.2f} vs paper {p[3]:5.2f}: {why}.")
    if not said:
        print("  none: every method's average is within 3 points of the paper's.")


def honesty_demo() -> None:
    """A non-monotone labelling: the untightened optimum mixes signs, the DNN one cannot."""
    rng = np.random.default_rng(7)
    X = rng.uniform(0, 1, (400, 1))
    y = np.where(np.abs(X[:, 0] - 0.5) < 0.2, 1.0, -1.0)
    print("\nHonesty of the relaxation (non-monotone labels: y = +1 iff |x − 0.5| < 0.2):")
    for tight, solver in (
        (False, "mwc-tla-top-eigenvector"),
        (False, "clarabel"),
        (True, "clarabel"),
    ):
        f = MWCTLA.from_data(X, y, J=10, tightened=tight)
        r = solve(f, solver)
        i = r.info
        print(
            f"  {'tightened M >= 0' if tight else 'as printed (eq. 13)':<20} {solver:<24} bound "
            f"{r.objective:10.4f}  rank M {i['rank_M']}  ||M - mm'|| {i['M_minus_mmT']:.3f}  "
            f"|m| {i['norm_m']:.3f}  negative weights {i['negative_weights']}/{f.n}  "
            f"monotone {i['monotone']}"
        )
    print(
        "  As printed, m = 0 is feasible and the optimum is lambda_max(Q) with M = vv': the "
        "mixing weights v change sign, so the transformation is not monotone; M >= 0 restores it."
    )


def plot_transformation(path: str) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y = hyperplane_transformed(600, "quadratic", seed=0)
    basis = RampBasis.fit(X[:200], 10)
    r = solve(MWCTLA.from_data(X[:200], y[:200], basis=basis, tightened=True), "clarabel")
    w = np.array(r.info["weights"])
    t = np.linspace(X[:, 0].min(), X[:, 0].max(), 300)
    g = basis.transform_1d(t, 0, w)
    true = np.sqrt(t)
    norm = lambda v: (v - v.min()) / (v.max() - v.min())
    fig, ax = plt.subplots(figsize=(5.5, 4))
    ax.plot(t, norm(true), "k--", label="true inverse √x (scaled)")
    ax.plot(t, norm(g), "tab:red", label="learned Σ_j w_j φ_j(x) (scaled)")
    for z in basis.knots[:, 0]:
        ax.axvline(z, color="0.85", lw=0.6, zorder=0)
    ax.set_xlabel("x (feature 1 after squaring)")
    ax.set_ylabel("transformed value")
    ax.set_title("MWC-TLA (tightened): learned transformation")
    ax.legend(loc="lower right")
    fig.tight_layout()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fig.savefig(path + ".tmp.png", dpi=110)
    os.replace(path + ".tmp.png", path)
    plt.close(fig)
    return path


def svm_features(basis, M: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Explicit features Φ(x) = vec(R φ(x)) with M = RᵀR, so Φ(x)·Φ(x') = Σ_ij M_ij
    φ_i(x)ᵀφ_j(x'): the learned kernel as an n × (J·d) matrix, never n × n."""
    w, V = np.linalg.eigh((M + M.T) / 2)
    R = (V * np.sqrt(np.maximum(w, 0.0))).T
    return np.einsum("ij,ajd->aid", R, basis(X)).reshape(len(X), -1)


def time_to_classifier(cls, solver: str, n: int) -> tuple[float, float]:
    """(seconds to learn the transformation: ramps + SDP, seconds to train the SVM on it).
    §5.4: 'The running time for the alignment-based algorithms include the running time for
    the alignment SDP as well as the running time for a simple dual SVM'; ours is libsvm's
    dual (SVC, linear kernel on the learned features, C = 1), for every method."""
    X, y = hyperplane_transformed(n, "quadratic", seed=1)
    t = time.perf_counter()
    f = cls.from_data(X, y, J=10, tightened=True) if cls is MWCTLA else cls.from_data(X, y, J=10)
    r = solve(f, solver, **({"tol": EXTRAGRADIENT_TOL} if solver == "extragradient" else {}))
    learn = time.perf_counter() - t
    t = time.perf_counter()
    SVC(kernel="linear", C=1.0).fit(svm_features(f.basis, r.primal["M"], X), y)
    return learn, time.perf_counter() - t


def _slope(pts) -> float:
    """Least-squares slope of log(seconds) against log(n)."""
    n, sec = np.log([p[0] for p in pts]), np.log([max(p[1], 1e-6) for p in pts])
    return float(np.polyfit(n, sec, 1)[0]) if len(pts) > 1 else float("nan")


def scaling(path: str, quick: bool) -> list[str]:
    """Figure 3 with SVM training included; returns the claim verdict lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes_fast = [50, 100, 200] if quick else [100, 200, 400, 800, 1600]
    sizes_scs = [20, 40] if quick else [20, 40, 80]
    sizes_mwc = [100, 1_000, 10_000] if quick else [100, 1_000, 10_000, 100_000]
    runs = {
        "LMTL (extragradient)": (LMTL, "extragradient", sizes_fast),
        "NC-TLA (schur-reduced)": (NCTLA, "schur-reduced", sizes_fast),
        "LMTL (SCS, full SDP)": (LMTL, "scs", sizes_scs),
        "NC-TLA (SCS, full SDP)": (NCTLA, "scs", sizes_scs),
        "MWC-TLA (Clarabel)": (MWCTLA, "clarabel", sizes_mwc),
    }
    times: dict[str, list[tuple[int, float, float]]] = {k: [] for k in runs}
    for name, (cls, solver, sizes) in runs.items():
        for n in sizes:
            times[name].append((n, *time_to_classifier(cls, solver, n)))
    print(
        "\nFigure 3 (ours): seconds to a classifier = learn the transformation (ramps + SDP) + "
        "train the SVM (libsvm dual), square-root task"
    )
    for name, pts in times.items():
        print(f"  {name:<24} " + "  ".join(f"n={n}: {a + b:.2f}s ({b:.2f} SVM)" for n, a, b in pts))
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for name, pts in times.items():
        ax.loglog([p[0] for p in pts], [p[1] + p[2] for p in pts], "o-", label=name)
    ax.set_xlabel("training points n")
    ax.set_ylabel("seconds, SVM training included")
    ax.legend(fontsize=8)
    ax.set_title("Seed 004, Figure 3: running time vs training size (SDP + SVM)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path + ".tmp.png", dpi=110)
    os.replace(path + ".tmp.png", path)
    plt.close(fig)
    print(f"  plot written to {path}")
    return scaling_claims(times)


def scaling_claims(times: dict) -> list[str]:
    """§5.4/§6's claims on the times measured side by side: MWC-TLA's time depends little on
    n (log-log slope of its total time), and it is far faster than LMTL and NC-TLA."""
    mwc = times["MWC-TLA (Clarabel)"]
    total = [(n, a + b) for n, a, b in mwc]
    sdp = [(n, a) for n, a, _ in mwc]
    slope, slope_sdp = _slope(total), _slope(sdp)
    out = [
        f"  MWC-TLA 'very little dependence on the training set size': time ~ n^{slope:.2f} with "
        f"the SVM (n^{slope_sdp:.2f} for ramps + SDP alone) over n = {total[0][0]}..{total[-1][0]}"
        f" -> {'holds' if slope < 0.5 else 'does not hold'} with the SVM included "
        "(bar: slope < 0.5)"
    ]
    mine = {n: a + b for n, a, b in mwc}
    for other in times:
        if other.startswith("MWC"):
            continue
        theirs = {n: a + b for n, a, b in times[other]}
        shared = sorted(set(theirs) & set(mine))
        # no shared size: their largest n against our smallest, which has at least as many points
        n, m = (shared[-1], shared[-1]) if shared else (max(theirs), min(mine))
        if m < n:
            continue
        ratio = theirs[n] / mine[m]
        at = f"n = {n}" if n == m else f"n = {n} against MWC-TLA at n = {m} (more points)"
        out.append(
            f"  MWC-TLA against {other} at {at}: {ratio:.1f}x faster -> 'orders of magnitude "
            f"faster' {'holds' if ratio >= 100 else 'does not hold'} here (bar: >= 100x)"
        )
    return out


#: what seed 004 has and this module does not run, with the reason (issue #31)
NOT_REPRODUCED = (
    ("Table 2 (Corel image histograms)", "the Corel images are not available offline"),
    ("Table 3 (WebKB pages)", "WebKB is not available offline"),
    (
        "Figure 3's SeDuMi/Yalmip and Mosek times",
        "those solvers are not available; ours are "
        "Clarabel, SCS, the structured solvers and libsvm, on this machine",
    ),
)


def main(quick: bool = False, block_n: int = N_TRAIN, block_solver: str = "fast") -> int:
    from .readings import not_reproduced_lines

    reps = 2 if quick else 10
    print(__doc__.split("\n\n")[0].replace("\n", " "))
    print(
        f"mode: {'quick' if quick else 'full'}; {reps} repetitions; NC-TLA and LMTL on "
        f"{block_n} training points by {', '.join(BLOCK_SOLVERS[block_solver].values())}."
    )
    print(
        "Data: the synthetic task of §5.1, generated here. Corel (Table 2) and WebKB (Table 3) "
        "are not available offline and are not reproduced.\n"
    )
    explain(table1(reps, block_n, block_solver))
    honesty_demo()
    print(
        "\nlearned transformation plot: "
        f"{plot_transformation(os.path.join(OUT, 'tla_transformation.png'))}"
    )
    claims = scaling(os.path.join(OUT, "tla_scaling.png"), quick)
    print("\nTiming claims, SVM training included (measured in this run):")
    for line in claims:
        print(line)
    print()
    for line in not_reproduced_lines(NOT_REPRODUCED):
        print(line)
    return 0


if __name__ == "__main__":  # block_n and block_solver: main(block_n=..., block_solver=...)
    sys.exit(main(quick="--quick" in sys.argv))
