"""Seed 002 — Yeung, Chang & Dai, "A scalable kernel-based algorithm for semi-supervised
metric learning", IJCAI 2007: Figure 1 (XOR illustration) and Table 1 (J vs number of
landmarks), plus the same measure on bundled real data.

The seed's text is garbled: its numbers for Table 1 and for ISOLET/MNIST are not
recoverable, so there is no paper column to print; the ablation states the paper's
qualitative claim beside each data set and says whether it holds.  The claims: the
kernel methods separate XOR where RCA cannot; the landmark version approaches the full
one as m grows; learned metrics beat the Euclidean and RBF-feature-space metrics on real
data.

Protocol (docs/spectral_metric.md and our choices, *):
- RBF base kernel, γ = 1/median squared distance*; eigenvalues kept above 1e-3·λ₁*;
- similar pairs drawn at random among same-class points*; J = d_B / d_W with squared
  distances (larger is better), on held-out points embedded out of sample;
- Figure 1: 200 XOR training points, 40 similar pairs, 200 new points; 2-D embeddings =
  the two leading learned coordinates (RCA: its 2-D linear map);
- Table 1 (every size ours*: the seed's numbers for Table 1 are garbled out): 2,000 XOR
  points, 100 similar pairs, m ∈ {all S points, 100, 200, 400, 800} landmarks asked, 10
  random runs (``--quick``: 1), J on 1,000 new points.  Every point of S must be a
  landmark, so an asked m below |S| runs m = |S| (100 pairs touch ~188 points): the table
  prints the m each row ran, and states the trend of J against it, whatever it is;
- the paper's iterative extension (re-learn with the learned kernel, neighbourhoods fixed)
  is not implemented: its number of iterations is garbled out of the seed (not reproduced);
- real data: digits (scikit-learn, 1,797 × 64) and the bundled UCI sets, 50/50 split,
  similar pairs = 5·(#classes) per run from the training half*, 10 runs (quick: 1);
- ablation (digits, Heart, Glass, Sonar): the eigenvalue cut (1e-3·λ₁ vs none) and the
  similar pairs per class (5, 25, 100) varied one at a time, beside the base kernel's own
  KPCA with and without the cut; 5 splits (quick: 1).
"""

from __future__ import annotations

import os
import sys

import numpy as np
from sklearn.datasets import load_digits
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import train_test_split

from kernelsdp.data import PairwiseConstraints, load, xor
from kernelsdp.data.spectral_basis import median_gamma
from kernelsdp.metric import RCA, SpectralMetricLearning, class_separation
from kernelsdp.metric.baselines import feature_space_separation

FIGURE = os.path.join("out", "spectral_metric_xor.png")


def similar_pairs(y, m: int, seed: int = 0) -> np.ndarray:
    return PairwiseConstraints.sample(y, m, seed, must_link_only=True).as_array()


def measures(X, y, Xn, yn, P, m=None, seed=0) -> dict[str, float]:
    """J of every metric on the new points."""
    g = median_gamma(X)
    out = {
        "Euclidean": class_separation(Xn, yn),
        "RBF feature space": feature_space_separation(rbf_kernel(Xn, gamma=g), yn),
        "RCA": class_separation(RCA().fit(X, P).transform(Xn), yn),
        "K_beta (full)": class_separation(
            SpectralMetricLearning(gamma=g).fit(X, pairs=P).transform(Xn), yn
        ),
    }
    if m is not None:
        est = SpectralMetricLearning(gamma=g, n_landmarks=m, random_state=seed).fit(X, pairs=P)
        out[f"K~_beta (m={m})"] = class_separation(est.transform(Xn), yn)
    return out


def figure(path: str = FIGURE) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y = xor(200)
    P = similar_pairs(y, 40)
    Xn, yn = xor(200, seed=1)
    g = median_gamma(X)
    rca = RCA().fit(X, P)
    full = SpectralMetricLearning(gamma=g).fit(X, pairs=P)
    land = SpectralMetricLearning(gamma=g, n_landmarks=100).fit(X, pairs=P)
    rbf = SpectralMetricLearning(gamma=g).fit(X, pairs=P)
    rbf.beta_ = np.sqrt(rbf.basis_.lam)  # β_r = √λ_r: the base kernel's own KPCA
    panels = [
        ("(a) data and similarity constraints", X, y, P),
        ("(b) new points", Xn, yn, None),
        ("(c) RCA", rca.transform(Xn), yn, None),
        ("(d) RBF (kernel PCA)", rbf.transform(Xn), yn, None),
        ("(e) K_β", full.transform(Xn), yn, None),
        ("(f) K̃_β, 100 landmarks", land.transform(Xn), yn, None),
    ]
    fig, axes = plt.subplots(2, 3, figsize=(12, 8))
    for k, (ax, (title, Z, lab, pairs)) in enumerate(zip(axes.ravel(), panels)):
        if Z.shape[1] > 2:
            order = np.argsort(np.var(Z, axis=0))[::-1][:2]  # two leading learned coordinates
            Z = Z[:, order]
        if pairs is not None:
            for n, (i, j) in enumerate(pairs):
                ax.plot(
                    Z[[i, j], 0],
                    Z[[i, j], 1],
                    "-",
                    color="0.6",
                    lw=0.7,
                    label="similar pair (S)" if n == 0 else None,
                )
        for c, colour in zip(np.unique(lab), ("tab:blue", "tab:red")):
            ax.scatter(Z[lab == c, 0], Z[lab == c, 1], c=colour, s=10, label=f"class {c}")
        ax.set_title(
            f"{title}\nJ = {class_separation(Z, lab):.2f}" if pairs is None else title, fontsize=10
        )
        xl, yl = (
            ("x₁", "x₂")
            if k < 2
            else ("RCA coordinate 1", "RCA coordinate 2")
            if k == 2
            else ("embedding coordinate 1", "embedding coordinate 2")
        )
        ax.set_xlabel(xl, fontsize=9)
        ax.set_ylabel(yl, fontsize=9)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=7, loc="best")
    fig.suptitle(
        "XOR (seed 002, Figure 1): 200 training points, 40 similar pairs, 200 new points; "
        "J = d_B / d_W on the new points (larger is better)",
        fontsize=11,
    )
    fig.tight_layout()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=110)
    os.replace(tmp, path)
    plt.close(fig)
    return path


def table1(runs: int) -> dict[str, list[float]]:
    print(
        "\nTable 1 (ours; sizes our choice*): J on 1,000 new XOR points, 2,000 training points, "
        f"100 similar pairs; mean ± std over {runs} runs; m = landmarks each row ran"
    )
    ms = ["S only", 100, 200, 400, 800]
    rows: dict[str, list[float]] = {}
    ran_m: dict[str, list[int]] = {}
    for r in range(runs):
        X, y = xor(2000, seed=100 + r)
        Xn, yn = xor(1000, seed=200 + r)
        P = similar_pairs(y, 100, seed=r)
        base = None
        for m in ms:
            mm = np.unique(P).size if m == "S only" else max(int(m), np.unique(P).size)
            res = (
                measures(X, y, Xn, yn, P, m=mm, seed=r)
                if base is None
                else {
                    f"K~_beta (m={mm})": class_separation(
                        SpectralMetricLearning(n_landmarks=mm, random_state=r)
                        .fit(X, pairs=P)
                        .transform(Xn),
                        yn,
                    )
                }
            )
            if base is None:
                base = res
                for k in ("Euclidean", "RBF feature space", "RCA", "K_beta (full)"):
                    rows.setdefault(k, []).append(res[k])
            key = [k for k in res if k.startswith("K~")][0]
            rows.setdefault(f"K~_beta, m = {m}", []).append(res[key])
            ran_m.setdefault(f"K~_beta, m = {m}", []).append(mm)
    for k, v in rows.items():
        ran = (
            f"   (ran m = {np.mean(ran_m[k]):.0f}"
            + (f", asked {k.split('= ')[1]})" if k.split("= ")[1] != "S only" else ": |S|)")
            if k in ran_m
            else ""
        )
        print(f"  {k:<26} {np.mean(v):7.3f} ± {np.std(v):.3f}{ran}")
    print(
        "  "
        + landmark_trend(
            {k: (np.mean(ran_m[k]), np.mean(v), np.std(v)) for k, v in rows.items() if k in ran_m}
        )
    )
    return rows


def landmark_trend(points: dict) -> str:
    """The trend of mean J against the m each row ran (row → (m, mean J, std J)), stated
    whatever it is; rows that ran the same m are one point.  The paper: 'using more
    landmarks generally gives better results'."""
    by_m: dict[int, list[tuple[float, float]]] = {}
    for m, mean, std in points.values():
        by_m.setdefault(int(round(m)), []).append((mean, std))
    ms = sorted(by_m)
    js = [float(np.mean([j for j, _ in by_m[m]])) for m in ms]
    steps = np.sign(np.diff(js))
    trend = (
        "rises with m at every step"
        if len(js) > 1 and np.all(steps > 0)
        else "falls with m at every step"
        if len(js) > 1 and np.all(steps < 0)
        else "has no monotone trend in m"
    )
    spread = max(s for v in by_m.values() for _, s in v)
    return (
        f"trend: J {trend} ({', '.join(f'm {m}: {j:.3f}' for m, j in zip(ms, js))}; "
        f"largest std {spread:.3f}) -> the paper's 'more landmarks generally give better "
        f"results' "
        f"{'holds' if js[-1] > js[0] and trend.startswith('rises') else 'does not hold'} here"
    )


def real_data(runs: int) -> None:
    print(
        f"\nReal data (ours): J on the held-out half; mean ± std over {runs} runs "
        "(ISOLET and MNIST numbers of the paper are not recoverable from the seed)"
    )
    sets = {"digits": load_digits(return_X_y=True)}
    for name in ("iris", "wine", "glass", "heart", "sonar", "ionosphere", "soybean"):
        sets[name] = load(name)
    print(
        f"  {'data set':<12}{'Euclidean':>12}{'RBF':>12}{'RCA':>12}{'K_beta':>12}{'K~_beta':>12}"
        "   learned > Euclidean? (K_beta, K~_beta)"
    )
    held = 0
    for name, (X, y) in sets.items():
        X = np.asarray(X, float)
        vals: dict[str, list[float]] = {}
        for r in range(runs):
            tr, te = train_test_split(np.arange(len(y)), test_size=0.5, stratify=y, random_state=r)
            P = similar_pairs(y[tr], 5 * len(np.unique(y)), seed=r)
            m = min(len(tr), max(np.unique(P).size, len(tr) // 3))
            res = measures(X[tr], y[tr], X[te], y[te], P, m=m, seed=r)
            for k, v in res.items():
                vals.setdefault(k.split(" (m=")[0], []).append(v)
        e, full, land = (np.mean(vals[k]) for k in ("Euclidean", "K_beta (full)", "K~_beta"))
        held += full > e and land > e
        print(
            f"  {name:<12}"
            + "".join(f"{np.mean(v):12.3f}" for v in vals.values())
            + f"   {'yes' if full > e else 'no'}, {'yes' if land > e else 'no'}",
            flush=True,
        )
    print(
        f"  claim 'learned metric better than Euclidean' (both learned kernels above Euclidean): "
        f"holds on {held} of {len(sets)} data sets"
    )


#: the ablation's rows: (label, what is learned, eigenvalue cut, similar pairs per class)
ABLATION = (
    ("RBF KPCA, no cut", "kpca", 1e-10, 5),
    ("RBF KPCA, cut 1e-3", "kpca", 1e-3, 5),
    ("K_beta, no cut, 5/class", "kbeta", 1e-10, 5),
    ("K_beta, cut 1e-3, 5/class", "kbeta", 1e-3, 5),
    ("K_beta, cut 1e-3, 25/class", "kbeta", 1e-3, 25),
    ("K_beta, cut 1e-3, 100/class", "kbeta", 1e-3, 100),
)


def ablation_unit(unit: dict) -> dict:
    """J of one ablation row on one data set and split: the eigenvalue cut and the number of
    similar pairs varied one at a time around the method as run (cut 1e-3, 5 pairs/class)."""
    X, y = _dataset(unit["data"])
    tr, te = train_test_split(
        np.arange(len(y)), test_size=0.5, stratify=y, random_state=unit["seed"]
    )
    classes = len(np.unique(y))
    P = similar_pairs(y[tr], unit["pairs_per_class"] * classes, seed=unit["seed"])
    g = median_gamma(X[tr])
    est = SpectralMetricLearning(gamma=g, eig_rtol=unit["eig_rtol"]).fit(X[tr], pairs=P)
    if unit["learn"] == "kpca":
        est.beta_ = np.sqrt(est.basis_.lam)  # β_r = √λ_r: the base kernel itself, cut
    return {
        "J": class_separation(est.transform(X[te]), y[te]),
        "p": int(est.basis_.lam.size),
        "J_euclidean": class_separation(X[te], y[te]),
        "pairs": int(len(P)),
    }


def _dataset(name: str):
    if name == "digits":
        X, y = load_digits(return_X_y=True)
        return np.asarray(X, float), y
    X, y = load(name)
    return np.asarray(X, float), y


def ablation(runs: int, sets=("digits", "heart", "glass", "sonar")) -> None:
    from kernelsdp.runs import ResultsStore, run_units

    units = [
        {
            "data": d,
            "seed": r,
            "row": label,
            "learn": learn,
            "eig_rtol": cut,
            "pairs_per_class": ppc,
        }
        for d in sets
        for r in range(runs)
        for label, learn, cut, ppc in ABLATION
    ]
    summary = run_units("spectral-metric-ablation", units, ablation_unit, desc="seed 002 ablation")
    csv, js = ResultsStore(summary.store_path).export(
        "spectral-metric-ablation", "out", summary.records
    )
    print(
        f"\nAblation (ours): J on the held-out half, mean over {runs} split(s); "
        "one factor at a time around the method as run (cut 1e-3·λ₁, 5 similar pairs per "
        "class). The paper's numbers are not recoverable from the seed; its claim is "
        "'learned metric > Euclidean'."
    )
    print(f"  {'row':<30}" + "".join(f"{d:>12}" for d in sets) + "   p (kept eigenvalues)")
    recs = summary.records
    mean = lambda d, row, key="J": float(
        np.mean([r[key] for r in recs if r["data"] == d and r["row"] == row])
    )
    print(
        f"  {'Euclidean':<30}"
        + "".join(f"{mean(d, ABLATION[0][0], 'J_euclidean'):12.3f}" for d in sets)
    )
    for label, *_ in ABLATION:
        print(
            f"  {label:<30}"
            + "".join(f"{mean(d, label):12.3f}" for d in sets)
            + "   "
            + ", ".join(f"{mean(d, label, 'p'):.0f}" for d in sets)
        )
    print("  what moves J, measured (differences of the rows above, per data set):")
    for d in sets:
        e = mean(d, ABLATION[0][0], "J_euclidean")
        cut = mean(d, "RBF KPCA, cut 1e-3") - mean(d, "RBF KPCA, no cut")
        learn = mean(d, "K_beta, cut 1e-3, 5/class") - mean(d, "RBF KPCA, cut 1e-3")
        pairs = mean(d, "K_beta, cut 1e-3, 100/class") - mean(d, "K_beta, cut 1e-3, 5/class")
        as_run = mean(d, "K_beta, cut 1e-3, 5/class")
        learned = [lab for lab, learn, *_ in ABLATION if learn == "kbeta"]
        beat = sum(mean(d, lab) > e for lab in learned)
        print(
            f"    {d:<8} cut alone {cut:+.3f}; re-weighting (K_beta vs its own cut KPCA) "
            f"{learn:+.3f}; 5 -> 100 pairs/class {pairs:+.3f}; learned K_beta as run "
            f"{as_run:.3f} vs Euclidean {e:.3f}: claim {'holds' if as_run > e else 'fails'} "
            f"({beat} of {len(learned)} learned rows beat Euclidean; RBF KPCA rows learn "
            f"nothing and are not counted)"
        )
    print(f"  (exported: {csv}, {js})")


#: what seed 002 has and this module does not run, with the reason (issue #31)
NOT_REPRODUCED = (
    (
        "Table 1's published J values",
        "garbled out of the seed's text: our Table 1 has no paper "
        "column and its sizes are our choice",
    ),
    (
        "the iterative extension (the learned kernel fed back, neighbourhoods kept)",
        "not implemented: the seed gives one sentence and its number of iterations is garbled out",
    ),
    (
        "ISOLET and MNIST experiments",
        "not bundled offline; scikit-learn's digits and bundled UCI "
        "sets are run instead, with no paper column",
    ),
    ("Figure 1 as a number", "the figure is qualitative; ours prints J on each panel instead"),
)


def main(quick: bool = False) -> int:
    from .readings import not_reproduced_lines

    print(__doc__.split("\n\n")[0].replace("\n", " "))
    path = figure()
    print(f"Figure 1 written to {path}")
    print(
        "Data: the paper's ISOLET and MNIST are not bundled offline; scikit-learn's digits "
        "(8×8 handwritten digits) stands in for MNIST, and bundled UCI sets are added."
    )
    table1(1 if quick else 10)
    real_data(1 if quick else 10)
    ablation(1 if quick else 5)
    print()
    for line in not_reproduced_lines(NOT_REPRODUCED):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(quick="--quick" in sys.argv))
