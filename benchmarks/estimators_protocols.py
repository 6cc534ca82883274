"""The label-scarce, transductive protocol of benchmarks/estimators_vs_rbf.py (``--protocol
scarce``): seed 000 §6's semi-supervised setting, few labels and every point in the graph.

For each data set and split, ``labels_per_class`` points of each class are labelled (drawn
at random, at most all but one of a class); every other point is unlabelled and is what is
scored (transductive accuracy).  The RBF SVC is trained on the labelled points only; the
learned kernels are learned over *all* the points' k-NN graph with every pair the labelled
points imply (no label of an unlabelled point is ever read).  Both are tuned with the same
budget, 4 kernel settings × SVC C ∈ {0.1, 1, 10, 100}, by 3-fold stratified CV on the
labelled points only (an inner fold's kernel is learned from its own training labels and
scored on its held-out labelled points), then refit on every labelled point:

- rbf: gamma ∈ {0.1, 0.3, 1, 3} / n_features;
- npkl-linear: SimpleNPKL (linear loss, tr KK ≤ 1, the closed form) on seed 000's mutual
  k-NN graph, kernel normalised to unit diagonal; (C, k) ∈ {0.1, 1} × {5, 10};
- npkl-hinge: NPKL, hinge loss, tr K ≤ n by ADMM (a kernel of rank up to the number of
  labelled points, not the closed form's ≈ one per class) on the mutual graph;
  (C, k) ∈ {1, 10} × {5, 10};
- npkl-linear-sym / npkl-hinge-sym: the same on the symmetric k-NN graph (every point
  linked to its k nearest), which is connected where the mutual one leaves unlabelled
  components that no constraint reaches (their rows of K are 0).

Measured (``--protocol scarce --splits 10``, 5 labels per class): npkl-hinge-sym beats rbf
on 5 of 10 (ties 1), npkl-linear and npkl-hinge on 3, npkl-linear-sym on 2; at 10 labels
per class (5 draws) the best, npkl-hinge-sym, on 4.  npkl-hinge-sym was picked after
seeing those draws; fixed before draws 10–19 (``--first-split 10 --methods
rbf,npkl-hinge-sym``) it beats rbf on 4 of 10 (ties 0), not the 5 it was picked on.
README.md has the numbers.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from kernelsdp.data import load
from kernelsdp.data.graph import GRAPH_REVISION
from kernelsdp.estimators import NPKLKernelLearning

SVC_C = (0.1, 1.0, 10.0, 100.0)
GAMMA_SCALES = (0.1, 0.3, 1.0, 3.0)
#: (C, n_neighbors) of the linear loss and of the hinge loss, four settings each
LINEAR_GRID = ((0.1, 5), (1.0, 5), (0.1, 10), (1.0, 10))
HINGE_GRID = ((1.0, 5), (10.0, 5), (1.0, 10), (10.0, 10))
SCARCE_METHODS = ("rbf", "npkl-linear", "npkl-hinge", "npkl-linear-sym", "npkl-hinge-sym")
#: ADMM's wall-clock limit per solve (a solve stopped by it is kept, and counted uncertified)
ADMM_TIME_LIMIT = 30.0


def labelled_points(y: np.ndarray, per_class: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(labelled, unlabelled) indices: ``per_class`` random points of each class (all but
    one of a smaller class), stratified, the rest unlabelled."""
    rng = np.random.default_rng(seed)
    lab = [
        rng.choice(members, min(per_class, len(members) - 1), replace=False)
        for members in (np.flatnonzero(y == c) for c in np.unique(y))
    ]
    lab = np.sort(np.concatenate(lab))
    return lab, np.setdiff1d(np.arange(len(y)), lab)


def pairs_of(y: np.ndarray, fit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair among the points ``fit`` (indices into X), +1 same class, −1 not."""
    i, j = np.triu_indices(len(fit), 1)
    return np.column_stack([fit[i], fit[j]]), np.where(y[fit[i]] == y[fit[j]], 1.0, -1.0)


def unit_diagonal(U: np.ndarray) -> np.ndarray:
    """Rows scaled to unit norm: K_ab / √(K_aa K_bb) (a zero row stays zero)."""
    norm = np.linalg.norm(U, axis=1)
    return U / np.where(norm > 0, norm, 1.0)[:, None]


def graph_of(method: str) -> str:
    """The k-NN graph a learned-kernel method builds (data.graph.KNN_GRAPHS)."""
    return "symmetric" if method.endswith("-sym") else "mutual"


def learner(method: str, param, n: int) -> NPKLKernelLearning:
    graph = graph_of(method)
    if method.startswith("npkl-linear"):
        return NPKLKernelLearning(C=param[0], n_neighbors=param[1], graph=graph)
    return NPKLKernelLearning(
        loss="hinge",
        capacity="trace",
        B=float(n),
        C=param[0],
        n_neighbors=param[1],
        graph=graph,
        solver="admm",
        solver_options={"time_limit": ADMM_TIME_LIMIT},
    )


def kernels(method: str, param, X, y, fit, ev):
    """(K[fit, fit], K[ev, fit], certified): a kernel setting learned from y[fit] only."""
    if method == "rbf":
        g = param / X.shape[1]
        return rbf_kernel(X[fit], gamma=g), rbf_kernel(X[ev], X[fit], gamma=g), True
    est = learner(method, param, len(X)).set_params(preprocessor=X)
    est.fit(*pairs_of(y, fit))
    U = est.embedding_
    if method.startswith("npkl-linear"):
        U = unit_diagonal(U)
    return U[fit] @ U[fit].T, U[ev] @ U[fit].T, bool(est.certificate_.passed)


def tuned_accuracy(method: str, X, y, lab, unl, seed: int) -> dict:
    """Inner 3-fold CV over the 16 settings on the labelled points, the best one refit on
    all of them and scored on the unlabelled ones."""
    grid = {"rbf": GAMMA_SCALES, "npkl-linear": LINEAR_GRID, "npkl-linear-sym": LINEAR_GRID}.get(
        method, HINGE_GRID
    )
    inner = StratifiedKFold(3, shuffle=True, random_state=seed)
    scores = np.zeros((len(grid), len(SVC_C)))
    inner_uncertified = 0
    for a, b in inner.split(lab, y[lab]):
        for gi, p in enumerate(grid):
            Kf, Ke, cert = kernels(method, p, X, y, lab[a], lab[b])
            inner_uncertified += not cert
            for ci, c in enumerate(SVC_C):
                scores[gi, ci] += (
                    SVC(kernel="precomputed", C=c).fit(Kf, y[lab[a]]).score(Ke, y[lab[b]])
                )
    gi, ci = np.unravel_index(np.argmax(scores), scores.shape)
    Kf, Ke, cert = kernels(method, grid[gi], X, y, lab, unl)
    acc = SVC(kernel="precomputed", C=SVC_C[ci]).fit(Kf, y[lab]).score(Ke, y[unl])
    return {
        "accuracy": float(acc),
        "param": grid[gi],
        "svc_C": SVC_C[ci],
        "certified": cert,
        "inner_uncertified": int(inner_uncertified),
    }


def units(
    datasets,
    splits: int,
    labels_per_class: int,
    first_split: int = 0,
    methods: tuple[str, ...] = SCARCE_METHODS,
) -> list[dict]:
    """The study's units: every data set × draws ``first_split`` … ``first_split + splits − 1``
    (the draw is the seed of the labelled points and of the inner folds, and part of the
    unit's key, so draws already stored are never counted again as new ones).  A subset of
    the methods is named in the unit (its record holds only those); all of them, the
    default, keeps the keys the study was first stored under.  A method on the mutual graph
    puts the graph's revision in the key (data.graph.GRAPH_REVISION)."""
    unknown = [m for m in methods if m not in SCARCE_METHODS]
    if unknown or not methods or methods[0] != "rbf" or len(set(methods)) != len(methods):
        raise ValueError(
            f"methods must start with 'rbf' and list each of {SCARCE_METHODS} at "
            f"most once. Got {methods!r} instead."
        )
    extra = {} if tuple(methods) == SCARCE_METHODS else {"methods": list(methods)}
    if any(graph_of(m) == "mutual" for m in methods[1:]):
        extra["graph_revision"] = (
            GRAPH_REVISION  # records on the mutual graph of revision 1 are stale
        )
    return [
        {"dataset": d, "split": s, "labels_per_class": labels_per_class, **extra}
        for d in datasets
        for s in range(first_split, first_split + splits)
    ]


def per_draw(records: list[dict], method: str) -> tuple[int, int, int]:
    """(won, tied, lost): the draws on which ``method``'s accuracy beats rbf's, equals it,
    falls behind it."""
    won = tied = 0
    for r in records:
        tie = bool(np.isclose(r[method]["accuracy"], r["rbf"]["accuracy"]))
        tied += tie
        won += (r[method]["accuracy"] > r["rbf"]["accuracy"]) and not tie
    return won, tied, len(records) - won - tied


def run_unit(unit: dict) -> dict:
    """One data set, one draw of labelled points: each of the unit's methods' (default:
    every method's) transductive accuracy."""
    X, y = load(unit["dataset"])
    lab, unl = labelled_points(y, unit["labels_per_class"], unit["split"])
    out: dict = {"n": len(y), "d": X.shape[1], "n_labelled": len(lab)}
    with threadpool_limits(1):  # small dense eigenproblems: BLAS threads only contend
        for m in unit.get("methods", SCARCE_METHODS):
            t = time.perf_counter()
            out[m] = {
                **tuned_accuracy(m, X, y, lab, unl, unit["split"]),
                "seconds": time.perf_counter() - t,
            }
    return out
