"""The SDPA reader under hostile input (issue #29): declared sizes are priced and refused
before anything is allocated, numbers are read in C's grammar, and every file — drawn by
hypothesis over sizes, counts, numbers, truncation and encodings — ends in a model or one
typed error, fast."""

import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernelsdp.cli import main
from kernelsdp.data.sdpa import declared_bytes, parse_sdpa, read_sdpa
from kernelsdp.errors import InvalidDataError, KernelSDPError, TooLargeError
from kernelsdp.limits import GIB

FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@pytest.fixture
def small_memory(monkeypatch):
    """A 1 GiB machine: what the reader refuses here it refuses before allocating."""
    monkeypatch.setenv("KERNELSDP_MEMORY_GIB", "1")


def _peak(call) -> tuple[Exception | None, int]:
    tracemalloc.start()
    try:
        call()
        err = None
    except Exception as exc:
        err = exc
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return err, peak


@pytest.mark.parametrize(
    "m, sizes, what",
    [
        ("1", "30000", "n = 30000"),  # 6.7 GiB in to_cvxpy before the fix
        ("1", "-1000000000", "n = 1000000000"),  # a diagonal block of 1e9
        ("1", "1000000000", "n = 1000000000"),  # 6.94 EiB
        ("1", "1e18", "n = 1000000000000000000"),  # OverflowError before the fix
        ("1000000000", "2", "m = 1000000000"),  # c and the column pointers
        ("1e18", "2", "m = 1000000000000000000"),
    ],
)
def test_declared_sizes_are_refused_before_allocating(small_memory, m, sizes, what):
    text = f"{m}\n1\n{sizes}\n1\n1 1 1 1 1\n"
    err, peak = _peak(lambda: parse_sdpa(text, "big.dat-s"))
    assert isinstance(err, TooLargeError), err
    msg = str(err)
    assert "\n" not in msg and what in msg and "limit is 1.0 GiB" in msg
    assert "KERNELSDP_MEMORY_GIB" in msg and msg.startswith("big.dat-s")
    assert peak < 200_000  # refused before any array of that size existed


def test_the_block_count_is_priced_before_the_sizes_are_read(small_memory):
    err, peak = _peak(lambda: parse_sdpa("100000\n1000000\n", "many.dat-s"))
    assert isinstance(err, TooLargeError) and "1000000 block(s)" in str(err)
    assert peak < 200_000


def test_declared_bytes_prices_dense_and_sparse():
    sparse, dense = declared_bytes(3, [4, -5])
    assert sparse == 8 * 3 + 8 * 5 * 2
    assert dense == 8 * 4 * (16 + 5)


def test_a_block_that_fits_is_read_and_the_model_keeps_it_sparse():
    n = 2000  # 4·10⁶ rows: the old to_cvxpy densified F₀ (32 MB) before any check
    p = parse_sdpa(f"1\n1\n{n}\n1\n0 1 1 1 1\n1 1 1 1 1\n1 1 {n} {n} 1\n")
    assert p.F[0].nnz == 3 and p.F[0].shape == (n * n, 2)
    err, peak = _peak(p.to_cvxpy)
    assert err is None and peak < 8 * n * n / 4


@pytest.mark.parametrize("token", ["1_000", "1.0D+00", "0x10", "1e5x", "--1", "1..2", "+"])
def test_numbers_outside_cs_grammar_are_refused(token):
    # C readers read 1_000 as 1 and stumble on the rest; Python's float reads 1000
    with pytest.raises(InvalidDataError, match=r"line 4: .* is not a number in the SDPA grammar"):
        parse_sdpa(f"1\n1\n2\n{token}\n1 1 1 1 1\n", "n.dat-s")
    with pytest.raises(InvalidDataError, match="line 5"):
        parse_sdpa(f"1\n1\n2\n1\n1 1 1 1 {token}\n", "n.dat-s")


@pytest.mark.parametrize(
    "token, value",
    [("1000", 1000.0), ("-2.5", -2.5), (".5e-3", 5e-4), ("+3.", 3.0), ("1E+02", 100.0)],
)
def test_numbers_in_cs_grammar_are_read(token, value):
    p = parse_sdpa(f"1 = mDIM\n1 = nBLOCK\n2 = bLOCKsTRUCT\n{{{token}}}\n1 1 1 1 {token}\n")
    assert p.c[0] == value and p.F[0][0, 1] == value


def test_an_entry_line_holds_five_numbers():
    # CSDP's fscanf would read the second five as another entry; Python's reader dropped it
    with pytest.raises(InvalidDataError, match="line 5: expected the 5 numbers"):
        parse_sdpa("1\n1\n2\n1\n1 1 1 1 1 1 1 2 2 1\n")


def test_a_byte_order_mark_and_crlf_are_read(tmp_path):
    path = tmp_path / "bom.dat-s"
    path.write_bytes(b"\xef\xbb\xbf1\r\n1\r\n-2\r\n1\r\n1 1 1 1 1\r\n1 1 2 2 1\r\n")
    p = read_sdpa(str(path))
    assert p.blocks == [-2] and p.F[0].nnz == 2


def test_a_folder_with_one_bad_file_certifies_the_others(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELSDP_MEMORY_GIB", "1")
    (tmp_path / "big.dat-s").write_text("1\n1\n1000000000\n1\n1 1 1 1 1\n")
    (tmp_path / "bad.dat-s").write_text("1\n1\n2\n1_000\n1 1 1 1 1\n")
    (tmp_path / "ok.dat-s").write_text("1\n1\n-1\n1\n0 1 1 1 1\n1 1 1 1 1\n")
    code = main(["certify", str(tmp_path), "--json"])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 2, err
    assert all(ln.startswith("kernelsdp: error: ") for ln in lines)
    assert any("big.dat-s" in ln and "GiB" in ln for ln in lines)
    assert any("bad.dat-s" in ln and "'1_000'" in ln for ln in lines)
    assert "ok.dat-s" in out  # the readable file was solved and reported


# ----- the fuzz -----------------------------------------------------------------------
#: what a token of a well-formed file may be replaced by
BAD = [
    "0",
    "-1",
    "-0",
    "2.5",
    "30000",
    "-1e9",
    "1e9",
    "1e18",
    "1e400",
    "nan",
    "inf",
    "1_000",
    "0x1p3",
    ".",
    "1.0D0",
    "x",
    "99999999999999999999",
    "1e-300",
    "1e308",
    "{",
    "}",
    ",",
]


@st.composite
def sdpa_tokens(draw) -> list[list[str]]:
    """A well-formed file as lines of tokens: m, block count, sizes, c, entries."""
    m = draw(st.integers(1, 3))
    sizes = draw(st.lists(st.sampled_from([1, 2, 3, -1, -2]), min_size=1, max_size=3))
    lines = [
        [str(m), "=", "mDIM"],
        [str(len(sizes))],
        [str(s) for s in sizes],
        [draw(st.sampled_from(["1", "-2.5", "0", ".5e1"])) for _ in range(m)],
    ]
    for _ in range(draw(st.integers(0, 6))):
        b = draw(st.integers(1, len(sizes)))
        n = abs(sizes[b - 1])
        i = draw(st.integers(1, n))
        j = i if sizes[b - 1] < 0 else draw(st.integers(1, n))
        lines.append(
            [
                str(draw(st.integers(0, m))),
                str(b),
                str(i),
                str(j),
                draw(st.sampled_from(["1", "-1", "2.5e-3", "3"])),
            ]
        )
    return lines


@st.composite
def sdpa_text(draw) -> str:
    """A well-formed file with up to three tokens replaced, a line dropped or doubled,
    separators and comments, then possibly truncated."""
    lines = draw(sdpa_tokens())
    for _ in range(draw(st.integers(0, 3))):
        ln = lines[draw(st.integers(0, len(lines) - 1))]
        ln[draw(st.integers(0, len(ln) - 1))] = draw(st.sampled_from(BAD))
    if draw(st.booleans()) and len(lines) > 1:
        k = draw(st.integers(0, len(lines) - 1))
        lines.insert(k, lines[k]) if draw(st.booleans()) else lines.pop(k)
    sep = draw(st.sampled_from([" ", ", ", "\t"]))
    text = "\n".join(['"a comment"'] * draw(st.integers(0, 1)) + [sep.join(ln) for ln in lines])
    text += draw(st.sampled_from(["", "\n", "\r\n"]))
    cut = draw(st.one_of(st.none(), st.none(), st.integers(0, len(text))))
    return text[:cut]


ENCODINGS = st.sampled_from(["utf-8", "utf-8", "utf-16", "latin-1", "utf-8-sig"])


@FUZZ
@given(text=sdpa_text(), encoding=ENCODINGS, junk=st.sampled_from([b"", b"", b"\xff", b"\x00"]))
def test_every_drawn_file_is_a_model_or_one_typed_error(
    tmp_path, small_memory, text, encoding, junk
):
    path = tmp_path / "f.dat-s"
    path.write_bytes(text.encode(encoding, errors="replace") + junk)
    tracemalloc.start()
    try:
        problem = read_sdpa(str(path))
        problem.to_cvxpy()
        assert problem.m >= 1 and len(problem.blocks) == len(problem.F)
        assert all(np.all(np.isfinite(F.data)) for F in problem.F)
    except KernelSDPError as exc:
        assert "\n" not in str(exc) and str(exc)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < 1 * GIB / 4  # nothing close to the declared sizes was allocated
