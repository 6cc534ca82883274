"""Seed 003 — Mukherjee, Singh, Peng & Hinrichs, "Learning Kernels for variants of
Normalized Cuts: Convex Relaxations and Applications" (CVPR 2010 poster).

The paper's experiments (Caltech-101 with many feature kernels, ADNI brain images) cannot
be run offline: neither data set is available.  This module runs the experiment in the
form we can, on bundled two-class problems, with the paper's claims as the things to check:
learned weights beat the uniform average and are competitive with the best single kernel,
and kernels added as noise get weight ≈ 0 ("kernel selection, if many features are
uninformative").

Protocol (our choices, *):
- data: standardised features; 50/50 stratified train/test split per repetition*;
- base kernels (d = 16)*: RBF on all features at widths {0.5, 1, 2}·√D, per-feature RBF
  on the first 8 features, and 5 *noise* kernels — RBF on Gaussian noise columns that are
  independent of the labels; every kernel has unit diagonal;
- training examples: 10 random subsets of 40 training points with their partitions;
- weights: SDP₁ by Clarabel + the paper's rounding (√diag, normalised) polished on its
  face, for kernels rescaled to unit mean intra-class mass (see NCutMKL); the exact
  StQP optimum (the oracle, d ≤ 16) is reported beside it;
- baselines: the uniform average of the 16 kernels, and the best single kernel (chosen on
  the training examples by the N-cut ratio objective);
- measures on the test points: normalized-cut value of the true partition under the
  kernel (lower is better), SVM accuracy (SVC, kernel="precomputed", C = 1, trained on
  the training points; every kernel scaled to unit mean diagonal first), spectral
  clustering pairwise accuracy
  (SpectralClustering(affinity="precomputed"));
- 5 repetitions (``--quick``: 1 repetition, 2 data sets).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from scipy.linalg import null_space
from sklearn.cluster import SpectralClustering
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

from kernelsdp.data import load
from kernelsdp.evaluation import pairwise_cluster_accuracy
from kernelsdp.formulations import NCutMKL
from kernelsdp.solvers import solve

#: the poster's only numbers: ADNI (accuracy %, AUC).  ADNI is not available offline, so no
#: column of ours stands beside them (a demonstration prints no paper column on other data):
#: they appear in the list of what is not reproduced
PAPER_ADNI = {"learned": (84.61, 0.9149), "2-norm MKL": (83.61, 0.9130), "uniform": (83.44, 0.9114)}
#: what seed 003 has and this module does not run, with the reason (issue #31)
NOT_REPRODUCED = (
    (
        "ADNI experiment (learned 84.61 % / AUC 0.9149, 2-norm MKL 83.61 / 0.9130, uniform "
        "83.44 / 0.9114)",
        "ADNI brain images are not available offline; the stand-in tasks "
        "above carry no paper column",
    ),
    ("Caltech-101 experiments", "not available offline"),
    ("2-norm MKL baseline", "not implemented here"),
)
#: two-class tasks on bundled data: name -> (data set, classes kept)
TASKS = {
    "heart": ("heart", None),
    "sonar": ("sonar", None),
    "ionosphere": ("ionosphere", None),
    "iris 1-vs-2": ("iris", (1, 2)),
    "wine 0-vs-1": ("wine", (0, 1)),
}
N_NOISE = 5
STUDY = "ncut-kernels-v2"  # v2: each run records whether the learned kernel is the best single one


def _rbf(Z: np.ndarray, width: float) -> np.ndarray:
    sq = (Z * Z).sum(1)
    return np.exp(-np.maximum(sq[:, None] + sq[None] - 2 * Z @ Z.T, 0) / (2 * width**2))


def base_kernels(X: np.ndarray, noise: np.ndarray) -> tuple[list[np.ndarray], list[str]]:
    D = X.shape[1]
    Ks, names = [], []
    for w in (0.5, 1.0, 2.0):
        Ks.append(_rbf(X, w * np.sqrt(D)))
        names.append(f"rbf-all-{w}")
    for f in range(min(8, D)):
        Ks.append(_rbf(X[:, [f]], 1.0))
        names.append(f"rbf-feature-{f}")
    for j in range(noise.shape[1]):
        Ks.append(_rbf(noise[:, [j]], 1.0))
        names.append(f"noise-{j}")
    return Ks, names


def ncut_value(K: np.ndarray, y: np.ndarray) -> float:
    """Σ_t cut(V_t, V̄_t) / assoc(V_t, V) of the true partition."""
    total = 0.0
    for c in np.unique(y):
        inside = y == c
        assoc = K[inside].sum()
        total += K[np.ix_(inside, ~inside)].sum() / assoc
    return float(total)


def evaluate(K: np.ndarray, tr: np.ndarray, te: np.ndarray, y: np.ndarray, seed: int) -> dict:
    K = K / np.mean(np.diag(K))  # unit mean diagonal: an SVM with fixed C is not scale-invariant
    Kte = K[np.ix_(te, te)]
    svm = SVC(kernel="precomputed", C=1.0).fit(K[np.ix_(tr, tr)], y[tr])
    acc = float(np.mean(svm.predict(K[np.ix_(te, tr)]) == y[te]))
    auc = float(roc_auc_score(y[te], svm.decision_function(K[np.ix_(te, tr)])))
    sc = SpectralClustering(2, affinity="precomputed", random_state=seed).fit_predict(Kte)
    return {
        "ncut": ncut_value(Kte, y[te]),
        "svm": 100 * acc,
        "auc": auc,
        "cluster": 100 * pairwise_cluster_accuracy(y[te], sc),
    }


def simplex_curvature(Q: np.ndarray) -> np.ndarray:
    """Eigenvalues of Q on the simplex's directions 1⊥ (BᵀQB, B an orthonormal basis of 1⊥).
    All negative: αᵀQα is concave on the simplex, so every minimum is a vertex — one kernel."""
    B = null_space(np.ones((1, len(Q))))
    return np.linalg.eigvalsh(B.T @ Q @ B)


def run_task(name: str, seed: int) -> dict:
    data, keep = TASKS[name]
    X, y = load(data)
    if keep is not None:
        m = np.isin(y, keep)
        X, y = X[m], (y[m] == keep[1]).astype(int)
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal((len(y), N_NOISE))
    Ks, names = base_kernels(X, noise)
    tr, te = train_test_split(np.arange(len(y)), test_size=0.5, stratify=y, random_state=seed)
    examples = [
        (s, y[s]) for s in (rng.choice(tr, min(40, len(tr)), replace=False) for _ in range(10))
    ]
    f = NCutMKL.from_kernels(Ks, examples)
    t = time.perf_counter()
    r = solve(f, "clarabel")
    sdp_s = time.perf_counter() - t
    exact = solve(f, "exact")
    alpha = r.primal["alpha"]
    single = int(np.argmin([f.ratio_objective(np.eye(len(Ks))[l]) for l in range(len(Ks))]))
    combos = {
        "learned": sum(a * K for a, K in zip(f.raw_weights(alpha), Ks)),
        "uniform": sum(Ks) / len(Ks),
        "best single": Ks[single],
    }
    out = {k: evaluate(K, tr, te, y, seed) for k, K in combos.items()}
    noisy = [i for i, nm in enumerate(names) if nm.startswith("noise")]
    curv = simplex_curvature(f.Q)
    ex = exact.primal["alpha"]
    l = int(np.argmax(ex))
    others = np.delete(np.arange(len(Ks)), l)
    margin = float(np.min(f.Q[l, others] - f.Q[l, l]))  # d/dt of the surrogate along e_l → e_k, / 2
    learned_support = np.flatnonzero(alpha > 1e-6 * alpha.max())
    out["info"] = {
        "negative_curvature": int(np.sum(curv < 0)),
        "directions": len(curv),
        "learned_is_best_single": bool(learned_support.tolist() == [single]),
        "vertex_margin": margin / abs(f.Q[l, l]),
        "exact_support": int(np.sum(ex > 1e-9 * ex.max())),
        "learned_support": int(np.sum(alpha > 1e-6 * alpha.max())),
        "theorem1_condition": bool(r.info["theorem1_condition"]),
        "ratio_learned": f.ratio_objective(alpha),
        "ratio_uniform": f.ratio_objective(np.full(len(Ks), 1 / len(Ks))),
        "ratio_single": f.ratio_objective(np.eye(len(Ks))[single]),
        "noise_weight": float(alpha[noisy].sum()),
        "bound": r.lower_bound,
        "rounded": r.objective,
        "exact": exact.objective,
        "rank": r.info["rank"],
        "sdp_s": sdp_s,
        "single": names[single],
        "top": [names[i] for i in np.argsort(alpha)[::-1][:3] if alpha[i] > 1e-3],
    }
    return out


def run_unit(unit: dict) -> dict:
    """One repetition of one task (a unit of the results store)."""
    return run_task(unit["task"], unit["seed"])


def _fmt(v, kind):
    return (
        f"{np.mean(v):>8.3f}±{np.std(v):<5.3f}"
        if kind in ("ncut", "auc")
        else f"{np.mean(v):>8.1f}±{np.std(v):<5.1f}"
    )


def main(quick: bool = False) -> int:
    from kernelsdp.runs import ResultsStore, run_units

    from .readings import not_reproduced_lines

    reps = 1 if quick else 5
    tasks = list(TASKS)[:2] if quick else list(TASKS)
    print(__doc__.split("\n\n")[0].replace("\n", " "))
    print(
        "Data: Caltech-101 and ADNI are not available offline; the bundled two-class UCI tasks "
        "below are a demonstration on other data, so no paper column stands beside them (the "
        "poster's ADNI numbers are in the closing list). 2-norm MKL is not implemented here."
    )
    print(
        f"mode: {'quick' if quick else 'full'}; {reps} repetition(s); d = 16 kernels "
        f"({N_NOISE} noise).\n"
    )
    units = [{"task": t, "seed": s, "d": 16, "noise": N_NOISE} for t in tasks for s in range(reps)]
    summary = run_units(STUDY, units, run_unit, desc="seed 003")
    csv, js = ResultsStore(summary.store_path).export(STUDY, "out", summary.records)
    print(
        f"{'task':<14}{'kernel':<13}{'test N-cut':>15}{'SVM acc %':>15}{'AUC':>15}"
        f"{'cluster acc %':>15}"
    )
    for name in tasks:
        runs = [r for r in summary.records if r["task"] == name]
        for k in ("learned", "uniform", "best single"):
            print(
                f"{name:<14}{k:<13}"
                + "".join(
                    _fmt([r[k][m] for r in runs], m) for m in ("ncut", "svm", "auc", "cluster")
                )
            )
        info = [r["info"] for r in runs]
        mean = lambda key, info=info: float(np.mean([i[key] for i in info]))
        vm = min(i["vertex_margin"] for i in info)
        if max(i["exact_support"] for i in info) > 1 or vm <= 0:
            print(
                f"{'':<14}the exact optimum is not a strict vertex in every run (support "
                f"{mean('exact_support'):.1f}, vertex margin {vm:.3g}): no collapse to explain."
            )
        else:
            print(
                f"{'':<14}why one kernel: at the exact optimum's vertex e_l, mixing in any "
                f"other kernel k raises the surrogate αᵀQα at the rate 2(Q_lk − Q_ll) ≥ "
                f"{vm:.3g}·|Q_ll| > 0 (a strict KKT vertex; {mean('negative_curvature'):.1f} of "
                f"{info[0]['directions']} simplex directions have negative curvature, so the "
                f"interior holds no minimum either); exact support "
                f"{mean('exact_support'):.1f}, learned support {mean('learned_support'):.1f}; "
                f"best single {info[0]['single']}, top learned {info[0]['top']}."
            )
        print(
            f"{'':<14}training N-cut ratio Σ û·α/v̂·α: learned {mean('ratio_learned'):.4g}, "
            f"uniform {mean('ratio_uniform'):.4g}, best single {mean('ratio_single'):.4g} — "
            "the learned weights win the criterion they optimise; SVM accuracy is not that "
            "criterion."
        )
        print(
            f"{'':<14}noise kernels' weight {mean('noise_weight'):.2e}; SDP1 bound "
            f"{mean('bound'):.4g}, rounded {mean('rounded'):.4g}, exact {mean('exact'):.4g}; "
            f"Theorem 1's hypothesis (Z* > 0) held in {sum(i['theorem1_condition'] for i in info)}"
            f"/{len(info)} runs; SDP1 {mean('sdp_s'):.2f}s",
            flush=True,
        )
    print(f"(exported: {csv}, {js})")
    same = [r["info"]["learned_is_best_single"] for r in summary.records]
    print(
        f"\nSummary: the learned kernel equals the best single kernel (all weight on the kernel "
        f"the N-cut ratio picks alone) in {sum(same)} of {len(same)} runs"
        + (
            " — every run: on these tasks the SDP selects one kernel, it does not combine them"
            if all(same)
            else ""
        )
        + "."
    )
    print()
    for line in not_reproduced_lines(NOT_REPRODUCED):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(quick="--quick" in sys.argv))
