"""Reading a user's problem files, safely: a ``.npz`` of named arrays, a pairs CSV with the
header ``i,j,label`` (:mod:`.pairs_csv`), a Laplacian saved by ``scipy.sparse.save_npz``.

A ``.npz`` is opened as the zip archive it is and each array's ``.npy`` header is read
before its data: an array is loaded only when a formulation asks for its key, never
unpickled (object dtypes are refused from the header, and so are complex ones, whose
imaginary part a real model would drop), and refused when its declared size exceeds the
per-array budget ``KERNELSDP_MAX_ARRAY_GIB`` (default :data:`DEFAULT_MAX_ARRAY_GIB`) or,
with the arrays already read, the memory limit ``KERNELSDP_MEMORY_GIB``
(:func:`kernelsdp.limits.check_memory`), so a 1 KB file declaring a 10⁵ × 10⁵ array costs
nothing.  A sparse matrix is checked the same way from the shape it declares (two
integers, parsed strictly: ``[30.7, 30.2]`` is refused, not truncated) and its stored
entries, before it is built: a COO file declaring 4·10⁹ × 4·10⁹ is refused with the GiB its
row pointers would take (:func:`sparse_bytes`).  Every malformed file is an
:class:`InvalidDataError` naming the file (a size over the limit: :class:`TooLargeError`)."""

from __future__ import annotations

import collections.abc
import math
import os
import zipfile

import numpy as np
import scipy.sparse as sp

from ..errors import InvalidDataError
from ..limits import check_memory
from .pairs_csv import read_pairs_csv  # noqa: F401  (read here by callers)

#: the largest array (GiB) read from a user's file unless KERNELSDP_MAX_ARRAY_GIB says more
DEFAULT_MAX_ARRAY_GIB = 4.0
#: dtype kinds read from a file: booleans, integers, reals, and byte or text strings (names)
READ_KINDS = "biufSU"
#: bytes a CSR matrix built here takes per stored entry (float64 value, int64 column) and
#: per row (int64 pointer)
CSR_ENTRY_BYTES, CSR_ROW_BYTES = 16, 8
#: CSR-sized arrays held at once while a user's Laplacian is built and validated: the file's
#: arrays, the matrix built from them, Lᵀ, |L − Lᵀ| and (L + Lᵀ)/2
#: (:func:`kernelsdp.data.graph.validate_laplacian`)
LAPLACIAN_COPIES = 5


def max_array_gib() -> float:
    raw = os.environ.get("KERNELSDP_MAX_ARRAY_GIB")
    if raw is None:
        return DEFAULT_MAX_ARRAY_GIB
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not (value > 0 and math.isfinite(value)):
        raise InvalidDataError(
            f"KERNELSDP_MAX_ARRAY_GIB must be a positive number of GiB; got {raw!r}."
        )
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
        raise InvalidDataError(
            f"{path}: the array {key!r} is not a readable .npy ({exc})."
        ) from None
    if dtype.hasobject:
        raise InvalidDataError(
            f"{path}: the array {key!r} holds Python objects; kernelsdp reads "
            "plain numeric arrays only and never unpickles."
        )
    if dtype.kind == "c":
        raise InvalidDataError(
            f"{path}: the array {key!r} holds complex numbers ({dtype}); "
            "kernelsdp reads real arrays (the imaginary part would be lost)."
        )
    if dtype.kind not in READ_KINDS:
        raise InvalidDataError(
            f"{path}: the array {key!r} holds {dtype} values; kernelsdp reads "
            "numbers and names only."
        )
    nbytes = math.prod(shape) * dtype.itemsize
    budget = max_array_gib()
    if nbytes / 2**30 > budget:
        raise InvalidDataError(
            f"{path}: the array {key!r} declares shape {tuple(shape)} {dtype}, "
            f"{nbytes / 2**30:.1f} GiB, over the {budget:g} GiB budget for one array; raise it "
            "with KERNELSDP_MAX_ARRAY_GIB=N if this machine has the memory."
        )
    check_memory(nbytes, f"{path}: the array {key!r} (shape {tuple(shape)} {dtype})")
    return shape, dtype


class NpzArchive(collections.abc.Mapping):
    """The arrays of a ``.npz``, read lazily: headers checked at open, data on first access."""

    def __init__(self, path: str):
        self.path = os.fspath(path)
        if os.path.isdir(self.path):
            raise InvalidDataError(f"{self.path}: is a folder, not a .npz file.")
        self._declared: dict[str, tuple[tuple, np.dtype]] = {}
        try:
            with zipfile.ZipFile(self.path) as z:
                members = [m for m in z.namelist() if m.endswith(".npy")]
                for m in members:
                    with z.open(m) as fh:
                        self._declared[m[:-4]] = _header(fh, self.path, m[:-4])
        except (FileNotFoundError, InvalidDataError):
            raise
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
            raise InvalidDataError(
                f"{self.path}: not a .npz archive of named arrays ({exc})."
            ) from None
        self._members = {m[:-4]: m for m in members}
        self._cache: dict[str, np.ndarray] = {}

    def declared(self, key: str) -> tuple[tuple, np.dtype]:
        """(shape, dtype) of an array as its header declares them, without reading it."""
        if key not in self._declared:
            raise KeyError(key)
        return self._declared[key]

    def nbytes(self, key: str) -> int:
        shape, dtype = self.declared(key)
        return math.prod(shape) * dtype.itemsize

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in self._members:
            raise KeyError(key)
        if key not in self._cache:
            held = sum(a.nbytes for a in self._cache.values())
            check_memory(
                held + self.nbytes(key),
                f"{self.path}: the array {key!r} with the "
                f"{held / 2**30:.2f} GiB of arrays read before it",
            )
            try:
                with zipfile.ZipFile(self.path) as z, z.open(self._members[key]) as fh:
                    self._cache[key] = np.lib.format.read_array(fh, allow_pickle=False)
            except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
                raise InvalidDataError(
                    f"{self.path}: the array {key!r} cannot be read ({exc})."
                ) from None
        return self._cache[key]

    def __iter__(self):
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)


def load_npz(path: str) -> NpzArchive:
    """The arrays of a ``.npz`` archive, checked before loading (see the module docstring)."""
    return NpzArchive(path)


def declared_shape(value, where: str) -> tuple[int, int]:
    """A matrix's shape as a file stores it: two non-negative integers in an integer array
    (a float shape such as ``[30.7, 30.2]`` is refused, never truncated)."""
    a = np.asarray(value)
    if a.size != 2 or a.dtype.kind not in "iu":
        shown = np.array2string(a.ravel()[:4], separator=", ") + (" ..." if a.size > 4 else "")
        raise InvalidDataError(
            f"{where}: the matrix shape must be two non-negative integers; got {a.dtype} {shown}."
        )
    rows, cols = (int(v) for v in a.ravel())
    if min(rows, cols) < 0:
        raise InvalidDataError(
            f"{where}: the matrix shape must be two non-negative integers; got ({rows}, {cols})."
        )
    return rows, cols


def sparse_bytes(shape: tuple[int, int], nnz: int) -> int:
    """Bytes of a CSR matrix of this shape and number of stored entries, built here."""
    return CSR_ENTRY_BYTES * nnz + CSR_ROW_BYTES * (max(shape) + 1)


def check_sparse(shape: tuple[int, int], nnz: int, where: str, copies: int = 1) -> None:
    """Refuse, before building it, a sparse matrix whose ``copies`` would exceed the limit."""
    check_memory(
        copies * sparse_bytes(shape, nnz),
        f"{where}: the {shape[0]:,} × {shape[1]:,} sparse matrix it declares "
        f"({nnz:,} stored entries{', built and validated' if copies > 1 else ''})",
    )


def _real_entries(kind: str, where: str) -> None:
    if kind == "c":
        raise InvalidDataError(
            f"{where}: the matrix holds complex numbers; kernelsdp reads "
            "real matrices (the imaginary part would be lost)."
        )
    if kind not in "biuf":
        raise InvalidDataError(f"{where}: the matrix entries must be numbers.")


def csr_from_arrays(
    data, indices, indptr, shape, where: str, copies: int = LAPLACIAN_COPIES
) -> sp.csr_matrix:
    """A CSR matrix from its three arrays and shape: the shape parsed strictly, the entries
    real, the index arrays integers of the right lengths, the memory checked (``copies``
    of the matrix: a Laplacian is validated next), every index checked (full check)."""
    shape = declared_shape(shape, where)
    data, indices, indptr = np.asarray(data), np.asarray(indices), np.asarray(indptr)
    _real_entries(data.dtype.kind, where)
    if indices.dtype.kind not in "iu" or indptr.dtype.kind not in "iu":
        raise InvalidDataError(
            f"{where}: malformed CSR arrays (indices and indptr must be "
            f"integers; got {indices.dtype} and {indptr.dtype})."
        )
    if data.ndim != 1 or indices.shape != data.shape or indptr.shape != (shape[0] + 1,):
        raise InvalidDataError(
            f"{where}: malformed CSR arrays (data {data.shape}, indices {indices.shape} and "
            f"indptr {indptr.shape} for shape {shape}: indptr needs {shape[0] + 1:,} entries)."
        )
    check_sparse(shape, data.size, where, copies)
    try:
        M = sp.csr_matrix((data.astype(float, copy=False), indices, indptr), shape=shape)
        M.check_format(full_check=True)
    except (ValueError, TypeError, IndexError, OverflowError) as exc:
        raise InvalidDataError(f"{where}: malformed CSR arrays ({exc}).") from None
    return M


_SCIPY_KEYS = {
    "csr": ("data", "indices", "indptr"),
    "csc": ("data", "indices", "indptr"),
    "coo": ("data", "row", "col"),
}


def _sparse_format(z: NpzArchive, path: str) -> str:
    if "format" not in z or "shape" not in z:
        raise InvalidDataError(
            f"{path}: not a scipy.sparse .npz (save it with "
            "scipy.sparse.save_npz; the keys format and shape are missing)."
        )
    fmt = z["format"]
    try:
        fmt = (
            (fmt.item().decode() if fmt.dtype.kind == "S" else str(fmt.item()))
            if fmt.size == 1
            else "?"
        )
    except UnicodeDecodeError:
        fmt = "?"
    if fmt not in _SCIPY_KEYS:
        raise InvalidDataError(f"{path}: sparse format {fmt!r} is not read here; save it as csr.")
    missing = [k for k in _SCIPY_KEYS[fmt] if k not in z]
    if missing:
        raise InvalidDataError(f"{path}: a {fmt} matrix needs the keys " + ", ".join(missing) + ".")
    return fmt


def _coo(z: NpzArchive, shape: tuple[int, int], path: str) -> sp.csr_matrix:
    entries = z.declared("data")[0]
    if any(z.declared(k)[1].kind not in "iu" for k in ("row", "col")):
        raise InvalidDataError(f"{path}: malformed COO arrays (row and col must be integers).")
    if len(entries) != 1 or z.declared("row")[0] != entries or z.declared("col")[0] != entries:
        raise InvalidDataError(
            f"{path}: malformed COO arrays (data, row and col must be vectors of one length)."
        )
    try:
        return sp.coo_matrix(
            (z["data"].astype(float, copy=False), (z["row"], z["col"])), shape=shape
        ).tocsr()
    except (ValueError, TypeError, IndexError, OverflowError) as exc:
        raise InvalidDataError(f"{path}: malformed COO arrays ({exc}).") from None


def read_laplacian_npz(path: str) -> sp.csr_matrix:
    """A square sparse matrix saved by ``scipy.sparse.save_npz`` (csr, csc or coo), read
    through :class:`NpzArchive`: its shape parsed strictly, its entries real, the memory of
    building and validating it checked from the declared sizes before any entry is read
    (:data:`LAPLACIAN_COPIES`), and every index checked."""
    z = NpzArchive(path)
    fmt = _sparse_format(z, path)
    if z.declared("shape")[0] not in ((2,), (1, 2), (2, 1)):
        raise InvalidDataError(
            f"{path}: the matrix shape must be two non-negative integers; "
            f"got an array of shape {z.declared('shape')[0]}."
        )
    shape = declared_shape(z["shape"], path)
    _real_entries(z.declared("data")[1].kind, path)
    check_sparse(shape, math.prod(z.declared("data")[0]), path, LAPLACIAN_COPIES)
    if fmt == "coo":
        L = _coo(z, shape, path)
    elif fmt == "csc":
        L = csr_from_arrays(z["data"], z["indices"], z["indptr"], np.array(shape[::-1]), path)
        L = L.T.tocsr()
    else:
        L = csr_from_arrays(z["data"], z["indices"], z["indptr"], np.array(shape), path)
    if L.shape[0] != L.shape[1]:
        raise InvalidDataError(f"{path}: the Laplacian must be square; got shape {L.shape}.")
    return L
