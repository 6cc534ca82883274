"""Random malformed files fed to every reader: each answer is a typed KernelSDPError (or
a successful read), never another exception (issue #13's property test)."""

import io
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernelsdp.data.files import load_npz, read_laplacian_npz, read_pairs_csv
from kernelsdp.data.sdpa import read_sdpa
from kernelsdp.errors import KernelSDPError
from kernelsdp.formulations import FORMULATIONS
from kernelsdp.runs import ResultsStore

FUZZ = settings(max_examples=40, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


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


small_arrays = st.sampled_from([np.eye(3), np.arange(6).reshape(3, 2), np.array([[0, 1], [2, 0]]),
                                np.array([1.0, -1.0]), np.array("csr"), np.array([3, 3]),
                                np.array([], dtype=float), np.full((2, 2), np.nan),
                                np.array([b"csr", b"csr"]), np.array(b"\xff\xfe"), np.array(b"coo")])
keys = st.sampled_from(["L", "pairs", "labels", "Q", "X", "y", "kernels", "examples", "data",
                        "indices", "indptr", "format", "shape", "L_data", "L_indices", "L_indptr",
                        "L_shape", "gamma", "ramps", "C", "B"])


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
        _typed_or_ok(lambda: entry.cls.from_npz(load_npz(str(path)), **dict(entry.fixed)))


@FUZZ
@given(text=st.one_of(
    st.text(alphabet=st.sampled_from("ij,label0123456789-.+e \n\r\"x"), max_size=80),
    st.binary(max_size=60).map(lambda b: b.decode("latin-1"))),
    raw=st.booleans())
def test_pairs_csv_reader(tmp_path, text, raw):
    path = tmp_path / "p.csv"
    path.write_bytes(text.encode("latin-1" if raw else "utf-8", errors="replace"))
    _typed_or_ok(lambda: read_pairs_csv(str(path), n=5))
    path.write_text("i,j,label\n" + text, encoding="utf-8", errors="replace")
    _typed_or_ok(lambda: read_pairs_csv(str(path), n=5))


GOOD_SDPA = "2\n1\n2\n1.0 1.0\n0 1 1 1 1.0\n1 1 1 1 1.0\n2 1 2 2 1.0\n"


@FUZZ
@given(flips=st.lists(st.tuples(st.integers(0, 200), st.sampled_from(b"0-9.e+ \n\"*,{}x")), max_size=5),
       cut=st.one_of(st.none(), st.integers(0, 60)))
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
