"""Reading a user's problem files, safely: a ``.npz`` of named arrays, a pairs CSV with the
header ``i,j,label``, a Laplacian saved by ``scipy.sparse.save_npz``.

A ``.npz`` is opened as the zip archive it is and each array's ``.npy`` header is read
before its data: an array is loaded only when a formulation asks for its key, never
unpickled (object dtypes are refused from the header), and refused when its declared size
exceeds the per-array budget ``KERNELSDP_MAX_ARRAY_GIB`` (default
:data:`DEFAULT_MAX_ARRAY_GIB`), so a 1 KB file declaring a 10⁵ × 10⁵ array costs nothing.
Every malformed file is an :class:`InvalidDataError` naming the file."""

from __future__ import annotations

import collections.abc
import csv
import math
import os
import zipfile

import numpy as np
import scipy.sparse as sp

from ..errors import InvalidDataError
from .pairs import PairwiseConstraints

#: the largest array (GiB) read from a user's file unless KERNELSDP_MAX_ARRAY_GIB says more
DEFAULT_MAX_ARRAY_GIB = 4.0


def max_array_gib() -> float:
    raw = os.environ.get("KERNELSDP_MAX_ARRAY_GIB")
    if raw is None:
        return DEFAULT_MAX_ARRAY_GIB
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not (value > 0 and math.isfinite(value)):
        raise InvalidDataError(f"KERNELSDP_MAX_ARRAY_GIB must be a positive number of GiB; got {raw!r}.")
    return value


def _header(fh, path: str, key: str):
    """(shape, dtype) from a ``.npy`` member's header, refusing objects and oversize arrays."""
    fmt = np.lib.format
    try:
        version = fmt.read_magic(fh)
        reader = {(1, 0): fmt.read_array_header_1_0, (2, 0): fmt.read_array_header_2_0}.get(version)
        if reader is None:
            raise ValueError(f"unsupported .npy version {version}")
        shape, _, dtype = reader(fh)
    except (ValueError, OSError, SyntaxError, TypeError, zipfile.BadZipFile, EOFError) as exc:
        raise InvalidDataError(f"{path}: the array {key!r} is not a readable .npy ({exc}).") from None
    if dtype.hasobject:
        raise InvalidDataError(f"{path}: the array {key!r} holds Python objects; kernelsdp reads "
                               "plain numeric arrays only and never unpickles.")
    gib = math.prod(shape) * dtype.itemsize / 2**30
    budget = max_array_gib()
    if gib > budget:
        raise InvalidDataError(
            f"{path}: the array {key!r} declares shape {tuple(shape)} {dtype}, {gib:.1f} GiB, over "
            f"the {budget:g} GiB budget for one array; raise it with KERNELSDP_MAX_ARRAY_GIB=N "
            "if this machine has the memory.")
    return shape, dtype


class NpzArchive(collections.abc.Mapping):
    """The arrays of a ``.npz``, read lazily: headers checked at open, data on first access."""

    def __init__(self, path: str):
        self.path = os.fspath(path)
        if os.path.isdir(self.path):
            raise InvalidDataError(f"{self.path}: is a folder, not a .npz file.")
        try:
            with zipfile.ZipFile(self.path) as z:
                members = [m for m in z.namelist() if m.endswith(".npy")]
                for m in members:
                    with z.open(m) as fh:
                        _header(fh, self.path, m[:-4])
        except FileNotFoundError:
            raise
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
            raise InvalidDataError(f"{self.path}: not a .npz archive of named arrays ({exc}).") from None
        self._members = {m[:-4]: m for m in members}
        self._cache: dict[str, np.ndarray] = {}

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in self._members:
            raise KeyError(key)
        if key not in self._cache:
            try:
                with zipfile.ZipFile(self.path) as z, z.open(self._members[key]) as fh:
                    self._cache[key] = np.lib.format.read_array(fh, allow_pickle=False)
            except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
                raise InvalidDataError(f"{self.path}: the array {key!r} cannot be read ({exc}).") from None
        return self._cache[key]

    def __iter__(self):
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)


def load_npz(path: str) -> NpzArchive:
    """The arrays of a ``.npz`` archive, checked before loading (see the module docstring)."""
    return NpzArchive(path)


def csr_from_arrays(data, indices, indptr, shape, where: str) -> sp.csr_matrix:
    """A CSR matrix from its three arrays and shape, every index checked (full check)."""
    try:
        shape = tuple(int(s) for s in np.asarray(shape).ravel())
        if len(shape) != 2 or min(shape) < 0:
            raise ValueError(f"shape {shape} is not two sizes")
        M = sp.csr_matrix((np.asarray(data, dtype=float), np.asarray(indices), np.asarray(indptr)),
                          shape=shape)
        M.check_format(full_check=True)
    except (ValueError, TypeError, IndexError, OverflowError) as exc:
        raise InvalidDataError(f"{where}: malformed CSR arrays ({exc}).") from None
    return M


def read_pairs_csv(path: str, n: int) -> PairwiseConstraints:
    """Pairs from a UTF-8 CSV with the header ``i,j,label`` (label ±1) over n points."""
    if os.path.isdir(path):
        raise InvalidDataError(f"{path}: is a folder, not a CSV file.")
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
    except UnicodeDecodeError as exc:
        raise InvalidDataError(f"{path}: not UTF-8 text (byte {exc.start}); save the CSV as UTF-8.") from None
    except csv.Error as exc:
        raise InvalidDataError(f"{path}: not a readable CSV ({exc}).") from None
    if not rows or [c.strip().lower() for c in rows[0]] != ["i", "j", "label"]:
        raise InvalidDataError(f"{path}: the first line must be the header 'i,j,label'.")
    try:
        data = np.array([[float(c) for c in r] for r in rows[1:] if r], dtype=float)
    except ValueError as exc:
        raise InvalidDataError(f"{path}: every row must hold three numbers ({exc}).") from None
    if data.size == 0 or data.ndim != 2 or data.shape[1] != 3:
        raise InvalidDataError(f"{path}: expected rows 'i,j,label' with three numbers each.")
    return PairwiseConstraints.from_arrays(data[:, :2], data[:, 2], n)


_SCIPY_KEYS = {"csr": ("data", "indices", "indptr"), "csc": ("data", "indices", "indptr"),
               "coo": ("data", "row", "col")}


def read_laplacian_npz(path: str) -> sp.csr_matrix:
    """A square sparse matrix saved by ``scipy.sparse.save_npz`` (csr, csc or coo), read
    through :class:`NpzArchive` and with every index checked."""
    z = NpzArchive(path)
    if "format" not in z or "shape" not in z:
        raise InvalidDataError(f"{path}: not a scipy.sparse .npz (save it with "
                               "scipy.sparse.save_npz; the keys format and shape are missing).")
    fmt = z["format"]
    try:
        fmt = (fmt.item().decode() if fmt.dtype.kind == "S" else str(fmt.item())) if fmt.size == 1 else "?"
    except UnicodeDecodeError:
        fmt = "?"
    if fmt not in _SCIPY_KEYS:
        raise InvalidDataError(f"{path}: sparse format {fmt!r} is not read here; save it as csr.")
    missing = [k for k in _SCIPY_KEYS[fmt] if k not in z]
    if missing:
        raise InvalidDataError(f"{path}: a {fmt} matrix needs the keys " + ", ".join(missing) + ".")
    if fmt == "coo":
        try:
            shape = tuple(int(s) for s in z["shape"])
            L = sp.coo_matrix((z["data"], (z["row"], z["col"])), shape=shape).tocsr()
        except (ValueError, TypeError, IndexError) as exc:
            raise InvalidDataError(f"{path}: malformed COO arrays ({exc}).") from None
    else:
        shape = tuple(np.asarray(z["shape"]).ravel()[::-1]) if fmt == "csc" else z["shape"]
        L = csr_from_arrays(z["data"], z["indices"], z["indptr"], shape, path)
        L = L.T.tocsr() if fmt == "csc" else L
    if L.ndim != 2 or L.shape[0] != L.shape[1]:
        raise InvalidDataError(f"{path}: the Laplacian must be square; got shape {L.shape}.")
    return L
