"""metric-learn's input conventions for pairs, read into kernelsdp's (points, pairs).

A pair learner's ``X`` is one of

- index pairs, an (n_pairs, 2) integer array, with ``preprocessor=P`` the (n, d) points
  they index (metric-learn's ``preprocessor`` given as an array);
- pair features, an (n_pairs, 2, d) array, each pair as its two points (metric-learn's
  "tuples"); the points are the distinct rows, found with ``np.unique``;
- points, an (n, d) array with class labels ``y`` (no preprocessor): pairs are drawn from
  the labels by the paper protocol — so that the learner also works in a plain
  scikit-learn ``Pipeline`` and passes scikit-learn's estimator checks.

Pair labels are +1 (similar, must-link) and −1 (dissimilar, cannot-link), as in metric-learn.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_array

from ..errors import InvalidDataError


def array_ndim(X) -> int:
    """X's dimension (array-likes that forbid np.ndim included; sparse counts as 2)."""
    return 2 if hasattr(X, "tocsr") else np.asarray(X).ndim


def as_points(X, name: str = "preprocessor") -> np.ndarray:
    """A finite 2-D float array of points (NaN, inf, complex and sparse input refused)."""
    try:
        return check_array(X, dtype=np.float64, ensure_min_samples=2, input_name=name)
    except ValueError as exc:
        raise InvalidDataError(str(exc)) from None


def is_pair_input(X, preprocessor) -> bool:
    """True when ``X`` holds pairs (index pairs with a preprocessor, or a 3-D array)."""
    return preprocessor is not None or array_ndim(X) == 3


def read_pairs(X, preprocessor) -> tuple[np.ndarray, np.ndarray]:
    """(points (n, d), index pairs (m, 2)) from metric-learn's pair input."""
    if preprocessor is not None:
        points = as_points(preprocessor)
        P = np.asarray(X)
        if P.ndim != 2 or P.shape[1] != 2:
            raise InvalidDataError(
                "with a preprocessor, pairs must be an (n_pairs, 2) array "
                f"of point indices; got shape {P.shape}."
            )
        if P.size == 0:
            raise InvalidDataError("no pairs given (0 sample(s)).")
        if not np.issubdtype(P.dtype, np.integer):
            Pf = P.astype(float)
            if not np.all(np.isfinite(Pf)) or np.any(Pf != np.round(Pf)):
                raise InvalidDataError("pair indices must be integers.")
            P = Pf.astype(np.int64)
        if P.min() < 0 or P.max() >= len(points):
            raise InvalidDataError(
                f"pair index out of range: the preprocessor has {len(points)} points."
            )
        return points, P.astype(np.int64)
    T = check_array(X, dtype=np.float64, allow_nd=True, input_name="pairs")
    if T.ndim != 3 or T.shape[1] != 2:
        raise InvalidDataError(
            "pairs must be an (n_pairs, 2, n_features) array, or index pairs "
            f"with preprocessor=points; got shape {T.shape}."
        )
    points, inverse = np.unique(T.reshape(-1, T.shape[2]), axis=0, return_inverse=True)
    return points, inverse.reshape(-1, 2).astype(np.int64)


def pair_labels(y, m: int) -> np.ndarray:
    """y as ±1 floats, one per pair."""
    if y is None:
        raise InvalidDataError(
            "fitting on pairs requires y to be passed, but the target y is "
            "None (give +1 for a similar pair, -1 for a dissimilar one)."
        )
    t = np.asarray(y, dtype=float).ravel()
    if t.shape != (m,):
        raise InvalidDataError(
            f"y must have one label per pair: {m} pairs, y of shape {np.shape(y)}."
        )
    if not np.all(np.isin(t, (-1.0, 1.0))):
        raise InvalidDataError("pair labels must be +1 (similar) or -1 (dissimilar).")
    return t
