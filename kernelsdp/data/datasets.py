"""Bundled data sets (CSV, see csv/PROVENANCE.md) and the papers' synthetic sets.

``load(name)`` returns (X, y) with X standardised per feature (zero mean, unit variance;
constant features left at 0), the preprocessing every reproduction uses before building
the k-NN graph.  ``DATASETS`` is the ordered registry of names.
"""

from __future__ import annotations

from importlib import resources

import numpy as np

from ..errors import UnknownNameError


def chessboard(n: int = 100, cells: int = 4, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Uniform points in [0, cells)², label = parity of the cell (seed 000 Table 1, 100 × 2)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, cells, size=(n, 2))
    y = (np.floor(X[:, 0]) + np.floor(X[:, 1])).astype(int) % 2
    return X, y


def double_spiral(
    n: int = 100, turns: float = 2.0, noise: float = 0.05, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaved spirals in 3-D (seed 000 Table 1, 100 × 3).

    Our construction: arm c ∈ {0, 1} has points (t cos(t + cπ), t sin(t + cπ), t/(2π·turns))
    for t uniform in [π/2, 2π·turns], plus Gaussian noise of the given size.
    """
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    t = rng.uniform(np.pi / 2, 2 * np.pi * turns, size=n)
    X = np.column_stack(
        [t * np.cos(t + np.pi * y), t * np.sin(t + np.pi * y), t / (2 * np.pi * turns)]
    )
    X = X + noise * rng.standard_normal(X.shape) * np.array([1.0, 1.0, 0.1])
    return X, y


def xor(n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Uniform points in [−1, 1]², label 1 where x₁x₂ > 0 (seed 002's XOR illustration)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2))
    return X, (X[:, 0] * X[:, 1] > 0).astype(int)


#: seed 004 §5.1: the transformation applied to the data, and the inverse to be learned
MONOTONE = {
    "linear": (lambda u: u, "x"),
    "logarithmic": (np.log, "exp(x)"),
    "quadratic": (np.square, "sqrt(x)"),
}


def hyperplane_transformed(
    n: int = 600, transform: str = "quadratic", margin: float = 0.05, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Points in [0.05, 1]² on both sides of the hyperplane u₁ + u₂ = 1.05 with a margin
    (our construction of seed 004 §5.1), labels ±1, then transformed featurewise by
    ``transform`` (linear, logarithmic or quadratic): learning the inverse makes them
    linearly separable again."""
    rng = np.random.default_rng(seed)
    out = np.empty((0, 2))
    while len(out) < n:
        u = rng.uniform(0.05, 1.0, size=(2 * n, 2))
        out = np.vstack([out, u[np.abs(u.sum(axis=1) - 1.05) / np.sqrt(2) > margin]])
    u = out[:n]
    y = np.where(u.sum(axis=1) > 1.05, 1, -1)
    return MONOTONE[transform][0](u), y


_CSV = ("iris", "wine", "glass", "heart", "sonar", "soybean", "ionosphere", "a1a")
_SYNTHETIC = {"chessboard": chessboard, "double-spiral": double_spiral, "xor": xor}

#: Ordered registry of every loadable name.
DATASETS: tuple[str, ...] = ("chessboard", "double-spiral", "xor") + _CSV


def _read_csv(name: str) -> tuple[np.ndarray, np.ndarray]:
    text = resources.files("kernelsdp.data").joinpath("csv", f"{name}.csv").read_text()
    arr = np.loadtxt(text.splitlines(), delimiter=",", skiprows=1)
    return arr[:, :-1], arr[:, -1].astype(int)


def standardize(X: np.ndarray) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def load(name: str, standardized: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) for a registered data set name."""
    if name in _SYNTHETIC:
        X, y = _SYNTHETIC[name]()
    elif name in _CSV:
        X, y = _read_csv(name)
    else:
        raise UnknownNameError(f"unknown data set {name!r}; choose one of {', '.join(DATASETS)}.")
    return (standardize(X) if standardized else X), y
