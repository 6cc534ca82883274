"""Random malformed files fed to every reader: each answer is a typed KernelSDPError (or
a successful read), never another exception (issue #13's property test).  Issue #29 adds
.npz files whose members declare any shape, dtype and sparse layout (priced before any
allocation, under a small KERNELSDP_MEMORY_GIB, measured by tracemalloc), pairs CSVs
checked against an oracle of the strict grammar, and sweep specs of any key, type, range
and size read in bounded time.  SDPA files: tests/test_fuzz_sdpa.py."""

import io
import json
import os
import re
import warnings
import zipfile
from datetime import timedelta

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernelsdp.data.files import load_npz, read_laplacian_npz, read_pairs_csv
from kernelsdp.data.sdpa import read_sdpa
from kernelsdp.errors import KernelSDPError
from kernelsdp.formulations import FORMULATIONS
from kernelsdp.runs import ResultsStore

FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def _npy(array) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()


def _mutate(data: bytes, flips: list[tuple[int, int]], cut: int | None) -> bytes:
    b = bytearray(data)
    for pos, val in flips:
        if b:
            b[pos % len(b)] = val
    return bytes(b[:cut] if cut is not None else b)


small_arrays = st.sampled_from(
    [
        np.eye(3),
        np.arange(6).reshape(3, 2),
        np.array([[0, 1], [2, 0]]),
        np.array([1.0, -1.0]),
        np.array("csr"),
        np.array([3, 3]),
        np.array([], dtype=float),
        np.full((2, 2), np.nan),
        np.array([b"csr", b"csr"]),
        np.array(b"\xff\xfe"),
        np.array(b"coo"),
    ]
)
keys = st.sampled_from(
    [
        "L",
        "pairs",
        "labels",
        "Q",
        "X",
        "y",
        "kernels",
        "examples",
        "data",
        "indices",
        "indptr",
        "format",
        "shape",
        "L_data",
        "L_indices",
        "L_indptr",
        "L_shape",
        "gamma",
        "ramps",
        "C",
        "B",
    ]
)


@st.composite
def npz_bytes(draw):
    z = io.BytesIO()
    with zipfile.ZipFile(z, "w") as f:
        for k, a in draw(st.dictionaries(keys, small_arrays, max_size=6)).items():
            f.writestr(k + ".npy", _npy(a))
    flips = draw(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=4))
    cut = draw(st.one_of(st.none(), st.integers(0, 400)))
    return _mutate(z.getvalue(), flips, cut)


def _typed_or_ok(call):
    try:
        call()
    except KernelSDPError:
        pass
    except FileNotFoundError:
        pytest.fail("a file that exists was reported missing")


@FUZZ
@given(data=npz_bytes())
def test_npz_readers_and_every_formulation(tmp_path, data):
    path = tmp_path / "f.npz"
    path.write_bytes(data)

    def every_key():
        archive = load_npz(str(path))
        for k in archive:
            archive[k]

    _typed_or_ok(every_key)
    _typed_or_ok(lambda: read_laplacian_npz(str(path)))
    for entry in FORMULATIONS.values():
        _typed_or_ok(
            lambda entry=entry: entry.cls.from_npz(load_npz(str(path)), **dict(entry.fixed))
        )


@FUZZ
@given(
    text=st.one_of(
        st.text(alphabet=st.sampled_from('ij,label0123456789-.+e \n\r"x'), max_size=80),
        st.binary(max_size=60).map(lambda b: b.decode("latin-1")),
    ),
    raw=st.booleans(),
)
def test_pairs_csv_reader(tmp_path, text, raw):
    path = tmp_path / "p.csv"
    path.write_bytes(text.encode("latin-1" if raw else "utf-8", errors="replace"))
    _typed_or_ok(lambda: read_pairs_csv(str(path), n=5))
    path.write_text("i,j,label\n" + text, encoding="utf-8", errors="replace")
    _typed_or_ok(lambda: read_pairs_csv(str(path), n=5))


GOOD_SDPA = "2\n1\n2\n1.0 1.0\n0 1 1 1 1.0\n1 1 1 1 1.0\n2 1 2 2 1.0\n"


@FUZZ
@given(
    flips=st.lists(st.tuples(st.integers(0, 200), st.sampled_from(b'0-9.e+ \n"*,{}x')), max_size=5),
    cut=st.one_of(st.none(), st.integers(0, 60)),
)
def test_sdpa_reader(tmp_path, flips, cut):
    path = tmp_path / "p.dat-s"
    path.write_bytes(_mutate(GOOD_SDPA.encode(), flips, cut))
    _typed_or_ok(lambda: read_sdpa(str(path)))


@FUZZ
@given(data=st.binary(max_size=300))
def test_results_store_reader(tmp_path, data):
    path = tmp_path / "r.sqlite"
    path.write_bytes(data)

    def use():
        store = ResultsStore(path)
        store.records("study")

    _typed_or_ok(use)


# ----- issue #29: declared shapes, dtypes and sparse formats; pairs against an oracle; specs
DECLARED = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
#: the memory kernelsdp may plan while fuzzing: what a file declares beyond it is refused
FUZZ_MEMORY_GIB = 0.25
DESCRS = ["<f8", "<f4", "<i8", "<i4", "<u8", "|b1", "<c16", "<U3", "|S3", "|V8", "<M8[s]", "|O"]
DIMS = [0, 1, 2, 3, 30, 2**31, 4_000_000_000, 10**12]


def _declaring(shape, descr: str) -> bytes:
    """A .npy member whose header declares ``shape`` and ``descr`` but stores 16 bytes."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": descr, "fortran_order": False, "shape": tuple(shape)}
    )
    return b"\x93NUMPY\x01\x00" + header.getvalue()[8:] + b"\0" * 16


_SHAPES = st.one_of(
    st.sampled_from(
        [
            [3, 3],
            [30.7, 30.2],
            [-1, 3],
            [3],
            [3, 3, 3],
            [2**31, 2**31],
            [4_000_000_000] * 2,
            [10**12] * 2,
            [2**63 - 1] * 2,
            [1e19] * 2,
        ]
    ),
    st.lists(st.integers(0, 6), min_size=2, max_size=2),
)
_DTYPES = ["int64", "int32", "uint64", "float64", "float32", "bool", "complex128"]


@st.composite
def declared_npz(draw):
    """A small matrix saved as scipy.sparse.save_npz writes it (csr, csc or coo) and as
    NPKL's L_ keys, then one declaration changed: the shape (huge, fractional, negative,
    not two numbers), a member's dtype (complex, bool, unsigned) or a member replaced by a
    header declaring any shape and dtype (object, void, datetime, 10¹² entries)."""
    n = draw(st.integers(1, 4))
    A = sp.random(n, n, density=0.6, random_state=draw(st.integers(0, 9)), format="csr")
    A = (A + A.T + n * sp.eye(n)).tocsr()
    fmt = draw(st.sampled_from(["csr", "csc", "coo"]))
    M = A.asformat(fmt)
    arrays = {"format": np.array(fmt), "shape": np.array(M.shape), "data": M.data}
    arrays.update(
        {"row": M.row, "col": M.col} if fmt == "coo" else {"indices": M.indices, "indptr": M.indptr}
    )
    arrays.update(
        {
            "L_data": A.data,
            "L_indices": A.indices,
            "L_indptr": A.indptr,
            "L_shape": np.array(A.shape),
            "pairs": np.array([[0, n]]),
            "labels": np.array([1.0]),
        }
    )
    members = {k: _npy(v) for k, v in arrays.items()}
    key = draw(st.sampled_from(sorted(arrays)))
    change = draw(st.sampled_from(["shape", "dtype", "declared", "none"]))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if change == "shape":
            shape_key = draw(st.sampled_from(["shape", "L_shape"]))
            members[shape_key] = _npy(
                np.array(draw(_SHAPES)).astype(
                    draw(st.sampled_from(["int64", "uint64", "float64", "bool"]))
                )
            )
        elif change == "dtype" and arrays[key].dtype.kind in "biuf":
            members[key] = _npy(arrays[key].astype(draw(st.sampled_from(_DTYPES))))
        elif change == "declared":
            shape = draw(st.lists(st.sampled_from(DIMS), min_size=0, max_size=2))
            members[key] = _declaring(shape, draw(st.sampled_from(DESCRS)))
    z = io.BytesIO()
    with zipfile.ZipFile(z, "w") as f:
        for k, b in members.items():
            f.writestr(k + ".npy", b)
    return z.getvalue()


@DECLARED
@given(data=declared_npz())
def test_npz_declarations_are_priced_before_allocation(tmp_path, monkeypatch, data):
    """Every answer is a typed error or a read, nothing is dropped with a warning (complex
    data), and no reader allocates what the file declares beyond the memory limit."""
    import tracemalloc

    from kernelsdp.formulations.npkl import NPKL

    monkeypatch.setenv("KERNELSDP_MEMORY_GIB", str(FUZZ_MEMORY_GIB))
    path = tmp_path / "d.npz"
    path.write_bytes(data)

    def every_key():
        archive = load_npz(str(path))
        for k in archive:
            archive[k]

    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", np.exceptions.ComplexWarning)
            _typed_or_ok(every_key)
            _typed_or_ok(lambda: read_laplacian_npz(str(path)))
            _typed_or_ok(lambda: NPKL.from_npz(load_npz(str(path))))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < FUZZ_MEMORY_GIB * 2**30


N_POINTS = 10


def _mostly(good: st.SearchStrategy, odd: st.SearchStrategy, one_in: int = 4):
    """``good``, and ``odd`` one time in about ``one_in`` (hypothesis's draws are not
    uniform: the simplest integer, 0, picks ``good``)."""
    return st.integers(0, one_in - 1).flatmap(lambda k: odd if k == one_in - 1 else good)


def _index_text(i: int) -> st.SearchStrategy:
    return st.sampled_from([str(i), f"+{i}", f" {i}", f"{i} ", f"00{i}"])


def _label_text(t: int) -> st.SearchStrategy:
    return st.sampled_from(["1", "+1", "1.0", "1e0", " 1 "] if t > 0 else ["-1", "-1.", " -1 "])


@st.composite
def _good_row(draw) -> list[str]:
    """A valid pair; its label a function of the pair, so repeats never contradict."""
    i, j = draw(st.lists(st.integers(0, N_POINTS - 1), min_size=2, max_size=2, unique=True))
    t = 1 if (i + j) % 3 else -1
    return [draw(_index_text(i)), draw(_index_text(j)), draw(_label_text(t))]


@st.composite
def _bad_row(draw) -> list[str]:
    """A row the grammar or the pair rules refuse."""
    i, j, t = draw(_good_row())
    how = draw(st.sampled_from(["index", "label", "fields", "self", "contradiction"]))
    if how == "index":
        bad = draw(
            st.one_of(
                st.integers(N_POINTS, 10**25).map(str),
                st.sampled_from(
                    ["-1", "1.5", "3.0", "1e19", "1_0", "\uff11", "", "x", "0x1", "nan"]
                ),
            )
        )
        return [bad, j, t]
    if how == "label":
        return [i, j, draw(st.sampled_from(["0", "2", "nan", "inf", "", "1_0", "one"]))]
    if how == "fields":
        return draw(st.lists(st.just(i), min_size=1, max_size=4).filter(lambda r: len(r) != 3))
    if how == "self":
        return [i, i, t]
    return [i, j, "-1" if float(t) > 0 else "1"]  # the same pair with the other label


_ROWS = st.tuples(
    st.lists(_mostly(_good_row(), st.just([])), min_size=1, max_size=10),
    _mostly(st.just([]), _bad_row().map(lambda r: [r]), 2),
    st.randoms(),
).map(lambda t: t[2].sample(t[0] + t[1], len(t[0]) + len(t[1])))
_STRICT_INT = re.compile(r" *[+-]?[0-9]+ *\Z")
_STRICT_FLOAT = re.compile(r" *[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)? *\Z")


def _expected_pairs(rows: list[list[str]]):
    """The pairs the strict grammar of docs/npkl.md §1 reads from ``rows`` (None: an error)."""
    seen: dict[tuple[int, int], float] = {}
    for row in rows:
        if not row:
            continue
        if len(row) != 3 or not all(_STRICT_INT.match(c) for c in row[:2]):
            return None
        i, j = int(row[0]), int(row[1])
        if not (_STRICT_FLOAT.match(row[2]) and float(row[2]) in (1.0, -1.0)):
            return None
        if not (0 <= i < N_POINTS and 0 <= j < N_POINTS) or i == j:
            return None
        key = (min(i, j), max(i, j))
        if seen.setdefault(key, float(row[2])) != float(row[2]):
            return None
    return seen or None


@DECLARED
@given(rows=_ROWS, newline=st.sampled_from(["\n", "\r\n"]), bom=st.booleans())
def test_pairs_csv_reads_exactly_its_strict_grammar(tmp_path, rows, newline, bom):
    """A file of valid rows reads as exactly its pairs; any other is one typed error."""
    path = tmp_path / "p.csv"
    text = newline.join(["i,j,label"] + [",".join(r) for r in rows]) + newline
    path.write_bytes(("\ufeff" if bom else "").encode() + text.encode("utf-8"))
    expected = _expected_pairs(rows)
    if expected is None:
        with pytest.raises(KernelSDPError):
            read_pairs_csv(str(path), n=N_POINTS)
    else:
        p = read_pairs_csv(str(path), n=N_POINTS)
        assert dict(zip(zip(p.i.tolist(), p.j.tolist()), p.t.tolist())) == expected


_ODD = st.one_of(
    st.integers(-(10**20), 10**20).map(str),
    st.floats().map(repr),
    st.text("abc", max_size=4).map(json.dumps),
    st.sampled_from(
        [
            "true",
            "1979-05-27T07:32:00Z",
            "{ a = 1 }",
            "[[1], [2]]",
            "[]",
            '"nosuch"',
            "0",
            "-1",
            "nan",
            "inf",
            "1e308",
        ]
    ),
)
_PLAUSIBLE = {
    "formulation": st.just('"npkl"'),
    "solver": st.sampled_from(['"admm"', '"clarabel"']),
    "dataset": st.just('"iris"'),
    "n_points": st.integers(10, 40).map(str),
    "loss": st.sampled_from(['"hinge"', '"l2"', '"linear"']),
    "capacity": st.just('"trace"'),
    "C": st.floats(0.1, 10).map(repr),
    "B": st.floats(1, 100).map(repr),
    "rank": st.integers(1, 20).map(str),
    "max_iter": st.integers(1, 10**9).map(str),
    "tol": st.floats(1e-9, 1e-2).map(repr),
    "seed": st.integers(0, 99).map(str),
    "k": st.integers(1, 9).map(str),
    "colour": _ODD,
}


@st.composite
def _toml_value(draw, key: str) -> str:
    """A plausible value of ``key`` (or, one time in four, an odd one), alone or in a list
    of up to 40 (several lists multiply past MAX_UNITS)."""
    one = _mostly(_PLAUSIBLE.get(key, _ODD), _ODD, 8)
    if draw(st.booleans()):
        return draw(one)
    return "[" + ", ".join(draw(st.lists(one, min_size=1, max_size=40))) + "]"


@st.composite
def sweep_specs(draw) -> str:
    """A sweep spec as TOML text: plausible and odd keys, types, ranges and grid sizes."""
    lines = [f"study = {draw(_mostly(st.just(json.dumps('fuzz')), _ODD, 8))}"]
    if draw(st.booleans()):
        lines.append(f"out = {draw(_mostly(st.just(json.dumps('res')), _ODD))}")
    keys = ["formulation", "solver", "dataset", "n_points"] + draw(
        st.lists(st.sampled_from(sorted(_PLAUSIBLE)), unique=True, max_size=5)
    )
    lines += ["[grid]"] + [f"{k} = {draw(_toml_value(k))}" for k in dict.fromkeys(keys)]
    for table in draw(
        st.lists(st.sampled_from(["options.admm", "cluster"]), unique=True, max_size=2)
    ):
        keys = ["jobs", "backend", "mpi"] if table == "cluster" else ["rank", "max_iter", "tol"]
        lines += [f"[{table}]"] + [
            f"{k} = {draw(_toml_value(k))}"
            for k in draw(st.lists(st.sampled_from(keys), unique=True, max_size=2))
        ]
    return "\n".join(lines) + "\n"


@settings(
    max_examples=40,
    deadline=timedelta(seconds=10),
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    text=sweep_specs(),
    flips=st.lists(st.tuples(st.integers(0, 10**4), st.integers(0, 255)), max_size=2),
    cut=st.one_of(st.none(), st.integers(0, 400)),
)
def test_sweep_specs_read_or_refuse_in_bounded_time(tmp_path, text, flips, cut):
    """Every spec — any key, type, range or grid size, bytes flipped or cut — is a Spec or
    one typed error, within the deadline (grids past MAX_UNITS are refused unexpanded)."""
    from kernelsdp.sweep import read_spec
    from kernelsdp.sweep.summary import check_out

    path = tmp_path / "s.toml"
    path.write_bytes(_mutate(text.encode(), flips, cut))
    try:
        spec = read_spec(str(path))
    except KernelSDPError as exc:
        assert "\n" not in str(exc)
        return
    assert spec.units and len(spec.units) <= 10_000
    _typed_or_ok(lambda: check_out(spec.study, os.path.join(str(tmp_path), spec.out)))
