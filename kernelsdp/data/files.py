"""Reading a user's problem files, safely: a ``.npz`` of named arrays (never unpickled), a
pairs CSV with the header ``i,j,label``, a Laplacian saved by ``scipy.sparse.save_npz``.
Every malformed file is an :class:`InvalidDataError` naming the file."""

from __future__ import annotations

import csv
import zipfile

import numpy as np
import scipy.sparse as sp

from ..errors import InvalidDataError
from .pairs import PairwiseConstraints


def load_npz(path: str) -> dict[str, np.ndarray]:
    """The arrays of a ``.npz`` archive (object arrays refused: nothing is unpickled)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            if not hasattr(z, "files"):
                raise InvalidDataError(f"{path}: expected a .npz archive of named arrays.")
            return {k: z[k] for k in z.files}
    except FileNotFoundError:
        raise
    except ValueError as exc:
        if "pickle" in str(exc):  # NumPy's hint would suggest allow_pickle: never here
            raise InvalidDataError(f"{path}: holds an object array; kernelsdp reads plain "
                                   "numeric arrays only and never unpickles.") from None
        raise InvalidDataError(f"{path}: not a plain .npz of arrays ({exc}).") from None
    except (OSError, zipfile.BadZipFile) as exc:
        raise InvalidDataError(f"{path}: not a plain .npz of arrays ({exc}).") from None


def read_pairs_csv(path: str, n: int) -> PairwiseConstraints:
    """Pairs from a CSV with the header ``i,j,label`` (label ±1) over n points."""
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    if not rows or [c.strip().lower() for c in rows[0]] != ["i", "j", "label"]:
        raise InvalidDataError(f"{path}: the first line must be the header 'i,j,label'.")
    try:
        data = np.array([[float(c) for c in r] for r in rows[1:] if r], dtype=float)
    except ValueError as exc:
        raise InvalidDataError(f"{path}: every row must hold three numbers ({exc}).") from None
    if data.size == 0 or data.ndim != 2 or data.shape[1] != 3:
        raise InvalidDataError(f"{path}: expected rows 'i,j,label' with three numbers each.")
    return PairwiseConstraints.from_arrays(data[:, :2], data[:, 2], n)


def read_laplacian_npz(path: str) -> sp.csr_matrix:
    """A square sparse matrix saved by ``scipy.sparse.save_npz``."""
    try:
        L = sp.load_npz(path)
    except FileNotFoundError:
        raise
    except (ValueError, OSError, KeyError, zipfile.BadZipFile) as exc:
        raise InvalidDataError(f"{path}: not a scipy.sparse .npz ({exc}).") from None
    if L.ndim != 2 or L.shape[0] != L.shape[1]:
        raise InvalidDataError(f"the Laplacian must be square; got shape {L.shape}.")
    return L.tocsr()
