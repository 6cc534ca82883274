"""Pairwise side information: must-links S (T_ij = +1) and cannot-links D (T_ij = −1).

docs/npkl.md §1: pairs are validated (no i == j, indices in range, labels ±1, never
the same pair with both labels), duplicates merged, and stored once per unordered pair
with i < j.  The symmetrised matrix is T = Σ T_ij (e_i e_jᵀ + e_j e_iᵀ)/2, so that
tr(TK) = Σ_{pairs once} T_ij K_ij.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from networkx.utils import UnionFind

from ..errors import InvalidDataError, InvalidParameterError


@dataclass(frozen=True)
class PairwiseConstraints:
    """Validated pairs: ``i < j`` (int arrays of length m), ``t`` in {−1, +1}, over n points."""

    n: int
    i: np.ndarray
    j: np.ndarray
    t: np.ndarray

    @property
    def m(self) -> int:
        return int(self.i.size)

    @classmethod
    def from_arrays(cls, pairs, labels, n: int) -> PairwiseConstraints:
        """Validate, canonicalise (i < j), merge duplicates; reject contradictions."""
        P = np.asarray(pairs)
        y = np.asarray(labels)
        if P.ndim != 2 or P.shape[1] != 2:
            raise InvalidDataError(
                f"pairs must be an (m, 2) array of indices; got shape {P.shape}."
            )
        if y.shape != (P.shape[0],):
            raise InvalidDataError(
                f"labels must have one entry per pair: {P.shape[0]} pairs, "
                f"labels of shape {y.shape}."
            )
        return cls.from_columns(P[:, 0], P[:, 1], y, n)

    @classmethod
    def from_columns(cls, i, j, labels, n: int) -> PairwiseConstraints:
        """:meth:`from_arrays` on the three columns (no (m, 2) copy): every index checked in
        its own type before any cast, so 1e19 or 2⁶⁴ − 1 is out of range, never wrapped.
        Holds about :data:`PAIR_BYTES` bytes a pair at its peak, the columns included."""
        n = int(n)
        i, j = _checked_index(np.asarray(i), np.asarray(j), n)
        t = _checked_labels(np.asarray(labels))
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        del i, j
        same = lo == hi
        if same.any():
            k = int(np.flatnonzero(same)[0])
            raise InvalidDataError(f"pair ({lo[k]}, {hi[k]}) at row {k} links a point to itself.")
        del same
        order = np.lexsort((t, hi, lo))
        lo, hi, t = lo[order], hi[order], t[order]
        del order
        first = np.ones(lo.size, dtype=bool)  # the first row of each pair, sorted by label
        first[1:] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
        last = np.ones(lo.size, dtype=bool)  # and its last: both labels if they differ
        last[:-1] = first[1:]
        clash = t[first] != t[last]
        if clash.any():
            k = int(np.flatnonzero(clash)[0])
            a, b = lo[first][k], hi[first][k]
            raise InvalidDataError(
                f"pair ({a}, {b}) is given both as a must-link and as a cannot-link."
            )
        return cls(n=n, i=lo[first], j=hi[first], t=t[first])

    @classmethod
    def from_labels(
        cls, y, ratio: float = 0.7, seed: int | None = 0, max_pairs: int | None = None
    ) -> PairwiseConstraints:
        """The paper protocol (seed 000 §6.1, after Xing et al. 2002).

        Draw random pairs of distinct points and label them by their classes until the
        must-link graph has at most ``ratio · n`` connected components (components are
        tracked with networkx's union–find).  Cannot-links drawn on the way are kept.
        """
        y = np.asarray(y)
        n = y.size
        if not 0.0 < float(ratio) <= 1.0:
            raise InvalidParameterError(
                "The 'ratio' parameter of from_labels must be a float in the range (0, 1]. "
                f"Got {ratio!r} instead."
            )
        if n < 2:
            raise InvalidDataError("at least two labelled points are needed to draw pairs.")
        target = max(int(np.ceil(ratio * n)), len(np.unique(y)))
        rng = np.random.default_rng(seed)
        uf = UnionFind(range(n))
        components = n
        seen: dict[tuple[int, int], float] = {}
        limit = max_pairs if max_pairs is not None else n * (n - 1) // 2
        while components > target and len(seen) < limit:
            a, b = rng.choice(n, size=2, replace=False)
            a, b = (int(a), int(b)) if a < b else (int(b), int(a))
            if (a, b) in seen:
                continue
            same = bool(y[a] == y[b])
            seen[(a, b)] = 1.0 if same else -1.0
            if same and uf[a] != uf[b]:
                uf.union(a, b)
                components -= 1
        P = np.array(list(seen.keys()), dtype=np.int64).reshape(-1, 2)
        return cls.from_arrays(P, np.array(list(seen.values())), n)

    @classmethod
    def sample(
        cls, y, m: int, seed: int | None = 0, must_link_only: bool = False
    ) -> PairwiseConstraints:
        """m distinct random pairs labelled by class agreement (must-links only if asked)."""
        y = np.asarray(y)
        n = y.size
        same = np.unique(y, return_counts=True)[1]
        available = int((same * (same - 1) // 2).sum()) if must_link_only else n * (n - 1) // 2
        if not 0 < m <= available:
            raise InvalidParameterError(
                f"The 'm' parameter of sample must be an int in [1, {available}]. "
                f"Got {m!r} instead."
            )
        rng = np.random.default_rng(seed)
        seen: set[tuple[int, int]] = set()
        while len(seen) < m:
            a, b = rng.integers(0, n, 2)
            if a != b and (not must_link_only or y[a] == y[b]):
                seen.add((int(min(a, b)), int(max(a, b))))
        P = np.array(sorted(seen), dtype=np.int64)
        return cls.from_arrays(P, np.where(y[P[:, 0]] == y[P[:, 1]], 1.0, -1.0), n)

    def as_array(self) -> np.ndarray:
        """(m, 2) index array of the pairs."""
        return np.column_stack([self.i, self.j])

    def to_csv(self, path: str) -> None:
        """Write the pairs as ``kernelsdp solve npkl --pairs`` reads them
        (:func:`kernelsdp.data.files.read_pairs_csv`): the header ``i,j,label``, then one row
        per pair with label +1 or -1; whole or not at all (:mod:`kernelsdp.atomic`)."""
        from ..atomic import write_atomically

        def write(tmp: str) -> None:
            rows = np.column_stack([self.i, self.j, self.t.astype(np.int64)])
            np.savetxt(tmp, rows, fmt="%d", delimiter=",", header="i,j,label", comments="")

        write_atomically(path, write, suffix=".csv")

    def matrix(self) -> sp.csr_matrix:
        """Symmetrised T = Σ T_ij (e_i e_jᵀ + e_j e_iᵀ)/2, sparse (2m entries)."""
        return self.weighted_matrix(self.t)

    def weighted_matrix(self, w: np.ndarray) -> sp.csr_matrix:
        """Σ w_ij (e_i e_jᵀ + e_j e_iᵀ)/2 for one weight per pair (sparse)."""
        w = np.asarray(w, dtype=float) / 2.0
        rows = np.concatenate([self.i, self.j])
        cols = np.concatenate([self.j, self.i])
        return sp.csr_matrix((np.concatenate([w, w]), (rows, cols)), shape=(self.n, self.n))

    def subset(self, mask: np.ndarray) -> PairwiseConstraints:
        mask = np.asarray(mask, dtype=bool)
        return PairwiseConstraints(self.n, self.i[mask], self.j[mask], self.t[mask])


#: bytes a pair that :meth:`PairwiseConstraints.from_columns` holds at its peak, its int64
#: columns and float labels included: the columns (24), the ordered pair (16), the sort
#: order and lexsort's own index (16), the sorted copies (24) and the masks (3), rounded up
#: (tests/test_bad_inputs.py measures it with tracemalloc)
PAIR_BYTES = 96


def _checked_index(i: np.ndarray, j: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The index columns as int64, after checking in their own dtype that every index is an
    integer in [0, n) (a float or a uint64 is compared before it is cast)."""
    for col in (i, j):
        if col.dtype.kind not in "iuf":
            raise InvalidDataError(f"pair indices must be integers; got {col.dtype} values.")
        if col.dtype.kind == "f" and col.size:
            if not np.isfinite(col).all():
                raise InvalidDataError("pairs contain NaN or infinite indices.")
            if (col != np.round(col)).any():
                raise InvalidDataError("pair indices must be integers.")
    outside = (i < 0) | (i >= n) | (j < 0) | (j >= n)
    if outside.any():
        k = int(np.flatnonzero(outside)[0])
        a, b = (x.item() for x in (i[k], j[k]))
        raise InvalidDataError(
            f"pair index out of range: row {k} is ({a}, {b}) but there are "
            f"only n = {n} points (indices 0..{n - 1})."
        )
    return i.astype(np.int64, copy=False), j.astype(np.int64, copy=False)


def _checked_labels(y: np.ndarray) -> np.ndarray:
    """The labels as floats, each +1 or -1."""
    if y.dtype.kind not in "biuf":
        raise InvalidDataError(f"pair labels must be +1 or -1; got {y.dtype} values.")
    t = y.astype(float)
    if np.isnan(t).any():
        k = int(np.flatnonzero(np.isnan(t))[0])
        raise InvalidDataError(f"pair labels contain NaN (row {k}).")
    bad = (t != 1.0) & (t != -1.0)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise InvalidDataError(
            f"pair labels must be +1 (must-link) or -1 (cannot-link); "
            f"row {k} has label {y[k].item()!r}."
        )
    return t
