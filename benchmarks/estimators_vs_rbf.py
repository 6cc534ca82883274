"""The learned kernel in scikit-learn: NPKLKernelLearning vs an RBF kernel, on every bundled
data set, at the same tuning budget.

For each data set and outer split (stratified, 30 % held out; 1 split with --quick, 5
without) an ``SVC(kernel="precomputed")`` is tuned by 3-fold inner cross-validation on the
training points over 16 settings and scored on the held-out points:

- rbf: the RBF kernel, gamma ∈ {0.1, 0.3, 1, 3} / n_features × SVC C ∈ {0.1, 1, 10, 100};
- npkl-transductive: NPKL (SimpleNPKL, linear loss, the closed form) over all the points'
  k-NN graph (the semi-supervised setting of seed 000: held-out points are unlabelled, not
  unseen), pairs drawn from the training labels only; (NPKL C, k) ∈ {0.1, 1} × {5, 10} × SVC C;
- npkl-harmonic / npkl-nystrom: NPKL on the training points only, held-out points through
  the out-of-sample extension (kernelsdp/estimators/out_of_sample.py); same grid;
- npkl-all-pairs: as npkl-transductive, but the learner gets every pair the training labels
  imply (the supervised setting, not the protocol's few) and the kernel is normalised to
  unit diagonal (k(a, b)/√(k(a, a)k(b, b))) before the SVC; same grid;
- npkl-sqhinge: as npkl-all-pairs without the normalisation, squared hinge loss (the
  saddle-point solver), C = 1, (B/n², k) ∈ {0.01, 0.1} × {5, 10}: at B = 1 the entries are
  O(1/n), every margin T_ij K_ij < 1, the hinge loss is exactly the linear one and the
  squared hinge nearly so (iris: kernels 3 % apart), so B is tuned where margins can be met;
- npkl-nystrom-all-pairs: NPKL on the training points only with every pair their labels
  imply, held-out points through the Nyström extension (inductive); grid as NPKL_GRID.

The bundled data sets are already standardised (kernelsdp.data.load), so a k-NN graph on
standardised features is the one every method uses.

Inner folds draw their pairs from their own training labels, never from the fold they score.
Also per data set: ``cross_val_score`` of the pair learner end to end on index pairs (3
folds, C = 0.1), against the majority label's accuracy, and whether every final solve's
certificate passed.  ``--ratio`` sets the pair protocol (seed 000's 0.7 by default; the RBF
SVC sees every training label, a smaller ratio gives the pair learner more of them).  Units
go through kernelsdp.runs (out/results.sqlite; a re-run resumes).

``--protocol scarce`` runs the label-scarce, transductive protocol instead (few labels,
every point in the graph, the unlabelled points scored; benchmarks/estimators_protocols.py),
``--labels-per-class`` labelled points of each class (5 by default); study
estimators-vs-rbf-scarce-v1.  ``--first-split K`` uses draws K … K + splits − 1 (the draw is
in each unit's key: stored draws are neither mixed in nor re-used), ``--methods`` a subset
of the methods (rbf first), e.g. the pre-registered confirmation of npkl-hinge-sym on
draws that played no part in choosing it:

    python benchmarks/estimators_vs_rbf.py [--quick] [--fresh] [--ratio 0.7]
    python benchmarks/estimators_vs_rbf.py --protocol scarce [--labels-per-class 5] \\
        [--quick|--splits 5]
    python benchmarks/estimators_vs_rbf.py --protocol scarce --splits 10 --first-split 10 \\
        --methods rbf,npkl-hinge-sym
"""

from __future__ import annotations

import argparse
import sys
import time

import estimators_protocols as scarce
import numpy as np
from estimators_protocols import GAMMA_SCALES, SVC_C, unit_diagonal
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import StratifiedKFold, cross_val_score, train_test_split
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from kernelsdp.data import DATASETS, PairwiseConstraints, load
from kernelsdp.estimators import NPKLKernelLearning
from kernelsdp.runs import ResultsStore, run_units

#: NPKL's (C, n_neighbors of the k-NN graph), four settings as the RBF kernel has four widths
NPKL_GRID = ((0.1, 5), (1.0, 5), (0.1, 10), (1.0, 10))
#: npkl-sqhinge's (B / n², n_neighbors), C = 1
SQHINGE_GRID = ((0.01, 5), (0.1, 5), (0.01, 10), (0.1, 10))
METHODS = (
    "rbf",
    "npkl-transductive",
    "npkl-harmonic",
    "npkl-nystrom",
    "npkl-all-pairs",
    "npkl-sqhinge",
    "npkl-nystrom-all-pairs",
)
GRIDS = {"rbf": GAMMA_SCALES, "npkl-sqhinge": SQHINGE_GRID}


def all_pairs(y_fit: np.ndarray, fit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair among the points ``fit`` (indices into X) with its ±1 label from y_fit."""
    i, j = np.triu_indices(len(fit), 1)
    return np.column_stack([fit[i], fit[j]]), np.where(y_fit[i] == y_fit[j], 1.0, -1.0)


def kernels(method: str, param, X, y, fit, ev, seed: int, ratio: float = 0.7):
    """(K[fit, fit], K[ev, fit], certified) for one kernel setting, learned from y[fit] only
    (pairs by the protocol at this ``ratio``)."""
    if method == "rbf":
        g = param / X.shape[1]
        return rbf_kernel(X[fit], gamma=g), rbf_kernel(X[ev], X[fit], gamma=g), True
    if method == "npkl-transductive":
        P = PairwiseConstraints.from_labels(y[fit], ratio=ratio, seed=seed)
        idx = fit[P.as_array()]  # pairs among the training points, indices into all of X
        est = NPKLKernelLearning(
            C=param[0], n_neighbors=param[1], preprocessor=X, random_state=seed
        ).fit(idx, P.t)
        U = est.embedding_
        return U[fit] @ U[fit].T, U[ev] @ U[fit].T, est.certificate_.passed
    if method in ("npkl-all-pairs", "npkl-sqhinge"):
        idx, t = all_pairs(y[fit], fit)
        if method == "npkl-all-pairs":
            est = NPKLKernelLearning(C=param[0], n_neighbors=param[1], preprocessor=X)
        else:
            est = NPKLKernelLearning(
                loss="squared-hinge",
                C=1.0,
                B=param[0] * len(X) ** 2,
                n_neighbors=param[1],
                preprocessor=X,
            )
        est.fit(idx, t)
        U = unit_diagonal(est.embedding_) if method == "npkl-all-pairs" else est.embedding_
        return U[fit] @ U[fit].T, U[ev] @ U[fit].T, est.certificate_.passed
    if method == "npkl-nystrom-all-pairs":
        idx, t = all_pairs(y[fit], np.arange(len(fit)))  # indices into X[fit]
        est = NPKLKernelLearning(
            C=param[0], n_neighbors=param[1], extension="nystrom", preprocessor=X[fit]
        ).fit(idx, t)
        return (
            est.learned_kernel(X[fit]),
            est.learned_kernel(X[ev], X[fit]),
            est.certificate_.passed,
        )
    ext = method.split("-")[1]
    est = NPKLKernelLearning(
        C=param[0], n_neighbors=param[1], extension=ext, ratio=ratio, random_state=seed
    )
    est.fit(X[fit], y[fit])
    return est.learned_kernel(X[fit]), est.learned_kernel(X[ev], X[fit]), est.certificate_.passed


def tuned_accuracy(
    method: str, X, y, tr, te, seed: int, ratio: float = 0.7
) -> tuple[float, dict, bool]:
    """Inner 3-fold CV over the 16 settings on tr, then the best one scored on te."""
    grid = GRIDS.get(method, NPKL_GRID)
    inner = StratifiedKFold(3, shuffle=True, random_state=seed)
    scores = np.zeros((len(grid), len(SVC_C)))
    for a, b in inner.split(tr, y[tr]):
        for gi, p in enumerate(grid):
            Kf, Ke, _ = kernels(method, p, X, y, tr[a], tr[b], seed, ratio)
            for ci, c in enumerate(SVC_C):
                scores[gi, ci] += (
                    SVC(kernel="precomputed", C=c).fit(Kf, y[tr[a]]).score(Ke, y[tr[b]])
                )
    gi, ci = np.unravel_index(np.argmax(scores), scores.shape)
    Kf, Ke, certified = kernels(method, grid[gi], X, y, tr, te, seed, ratio)
    acc = SVC(kernel="precomputed", C=SVC_C[ci]).fit(Kf, y[tr]).score(Ke, y[te])
    return float(acc), {"param": grid[gi], "svc_C": SVC_C[ci]}, certified


def run_unit(unit: dict) -> dict:
    """One data set and one outer split: every method's held-out accuracy."""
    X, y = load(unit["dataset"])
    seed = unit["split"]
    tr, te = train_test_split(np.arange(len(y)), test_size=0.3, stratify=y, random_state=seed)
    out: dict = {"n": len(y), "d": X.shape[1]}
    with threadpool_limits(1):  # small dense eigenproblems: BLAS threads only contend
        for m in METHODS:
            t = time.perf_counter()
            acc, best, cert = tuned_accuracy(m, X, y, tr, te, seed, unit["ratio"])
            out[m] = {
                "accuracy": acc,
                **best,
                "certified": cert,
                "seconds": time.perf_counter() - t,
            }
        if seed == 0:  # the pair learner end to end, on index pairs (metric-learn's convention)
            P = PairwiseConstraints.from_labels(y, ratio=unit["ratio"], seed=0)
            cv = cross_val_score(NPKLKernelLearning(C=0.1, preprocessor=X), P.as_array(), P.t, cv=3)
            out["pair_cv"] = float(cv.mean())
            out["pair_majority"] = float(max(np.mean(P.t > 0), np.mean(P.t < 0)))
    return out


def report(rows: dict, methods: tuple[str, ...], extra=None) -> None:
    """One line per data set (mean accuracy over its units), then each learned kernel's wins
    and ties against rbf; ``extra(records)`` adds columns."""
    wins = dict.fromkeys(methods[1:], 0)
    ties = dict.fromkeys(methods[1:], 0)
    for name, rs in rows.items():
        acc = {m: float(np.mean([r[m]["accuracy"] for r in rs])) for m in methods}
        for m in methods[1:]:
            tie = bool(np.isclose(acc[m], acc["rbf"]))
            wins[m] += (acc[m] > acc["rbf"]) and not tie
            ties[m] += tie
        cert = all(r[m]["certified"] for r in rs for m in methods[1:])
        print(
            f"{name:14s} {rs[0]['n']:4d} "
            + " ".join(f"{acc[m]:18.3f}" for m in methods)
            + (extra(rs) if extra else "")
            + ("" if cert else "  (uncertified solve)")
        )
    for m in methods[1:]:
        print(
            f"{m} beats rbf on {wins[m]} of {len(rows)} (ties {ties[m]}, "
            f"behind on {len(rows) - wins[m] - ties[m]})"
        )


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="one outer split per data set")
    ap.add_argument(
        "--splits",
        type=int,
        default=5,
        help="outer splits (draws of labelled points) per data set without --quick",
    )
    ap.add_argument(
        "--fresh",
        action="store_true",
        help="forget stored units of this study (scarce protocol: this run's units only)",
    )
    ap.add_argument(
        "--protocol",
        choices=("seventy", "scarce"),
        default="seventy",
        help="seventy: 70 %% of the points labelled, 30 %% held out (default); "
        "scarce: few labels, transductive (estimators_protocols.py)",
    )
    ap.add_argument(
        "--labels-per-class", type=int, default=5, help="scarce protocol: labelled points per class"
    )
    ap.add_argument(
        "--ratio",
        type=float,
        default=0.7,
        help="pair protocol: draw pairs until ratio·n must-link components (seed 000 "
        "§6.1: 0.7; smaller gives more pairs, nearer the labels the RBF SVC sees)",
    )
    ap.add_argument(
        "--first-split",
        type=int,
        default=0,
        help="scarce protocol: the first draw; draws first … first + splits − 1",
    )
    ap.add_argument(
        "--methods",
        default=",".join(scarce.SCARCE_METHODS),
        help="scarce protocol: comma-separated methods, rbf first (default: all)",
    )
    return ap


def scarce_units(a) -> list[dict]:
    """The scarce protocol's units for parsed arguments ``a``."""
    splits = 1 if a.quick else a.splits
    return scarce.units(
        DATASETS, splits, a.labels_per_class, a.first_split, tuple(a.methods.split(","))
    )


def main() -> int:
    ap = parser()
    a = ap.parse_args()
    if a.splits < 1 or a.labels_per_class < 2 or a.first_split < 0:
        ap.error(
            "--splits must be at least 1, --labels-per-class at least 2 and "
            "--first-split at least 0"
        )
    if a.protocol == "seventy" and (a.first_split or a.methods != parser().get_default("methods")):
        ap.error("--first-split and --methods apply to --protocol scarce only")
    splits = 1 if a.quick else a.splits
    if a.protocol == "scarce":
        return main_scarce(a, splits)
    units = [
        {"dataset": d, "split": s, "quick": a.quick, "ratio": a.ratio}
        for d in DATASETS
        for s in range(splits)
    ]
    summary = run_units(
        "estimators-vs-rbf-v5", units, run_unit, fresh=a.fresh, desc="estimators vs rbf"
    )
    rows = {}
    for r in summary.records:
        rows.setdefault(r["dataset"], []).append(r)
    print(
        f"SVC(kernel='precomputed'), held-out accuracy (mean over {splits} split(s)), "
        f"16 settings tuned by inner 3-fold CV for every kernel; pairs at ratio {a.ratio}"
    )
    print(
        f"{'data set':14s} {'n':>4s} "
        + " ".join(f"{m:>18s}" for m in METHODS)
        + f" {'pair CV':>8s} {'majority':>8s}"
    )

    def pair_columns(rs):
        first = next(r for r in rs if "pair_cv" in r)
        return f" {first['pair_cv']:8.3f} {first['pair_majority']:8.3f}"

    report(rows, METHODS, pair_columns)
    print(
        f"store: {summary.store_path} (study estimators-vs-rbf-v5; {summary.ran} units run, "
        f"{summary.skipped} reused)"
    )
    return 0


def main_scarce(a, splits: int) -> int:
    """The label-scarce, transductive protocol (estimators_protocols.py)."""
    study = "estimators-vs-rbf-scarce-v1"
    try:
        units = scarce_units(a)
    except ValueError as exc:
        print(f"--methods: {exc}", file=sys.stderr)
        return 2
    if a.fresh:  # this run's units only: other draws of the study stay stored
        store = ResultsStore()
        for u in units:
            store.forget(study, u)
    summary = run_units(study, units, scarce.run_unit, desc="scarce vs rbf")
    rows = {}
    for r in summary.records:
        rows.setdefault(r["dataset"], []).append(r)
    methods = tuple(a.methods.split(","))
    print(
        f"SVC(kernel='precomputed'), transductive accuracy on the unlabelled points (mean over "
        f"draws {a.first_split}–{a.first_split + splits - 1}), {a.labels_per_class} labels per "
        "class; 16 settings tuned by inner 3-fold CV on the labelled points for every kernel"
    )
    print(
        f"{'data set':14s} {'n':>4s} "
        + " ".join(f"{m:>18s}" for m in methods)
        + f" {'labelled':>8s} {'uncert.':>7s}"
        + "".join(f" {'draws w/t/l':>12s}" for _ in methods[1:])
    )

    def counts(rs):
        inner = sum(r[m]["inner_uncertified"] for r in rs for m in methods[1:])
        draws = "".join(f" {'/'.join(map(str, scarce.per_draw(rs, m))):>12s}" for m in methods[1:])
        return f" {rs[0]['n_labelled']:8d} {inner:7d}" + draws

    report(rows, methods, counts)
    print(
        f"store: {summary.store_path} (study {study}; {summary.ran} units run, "
        f"{summary.skipped} reused)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
