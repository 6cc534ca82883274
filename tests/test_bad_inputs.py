"""Issue #13's written list of bad inputs: each one is a single readable line on stderr,
exit code 2, no traceback, and no file in the folder created, changed or removed.

Every row is (id, argv, the message it must say).  ``{d}`` is the folder of good and bad
files made by ``folder``; the good ones (L.npz, pairs.csv, q.npz, s.npz, t.npz) solve."""

import hashlib
import io
import os
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

from kernelsdp.cli import main

BAD = [
    # --- NPKL: where the problem comes from
    ("no input", "solve npkl --solver clarabel", "exactly one problem input"),
    (
        "two inputs",
        "solve npkl --dataset iris --laplacian {d}/L.npz --pairs {d}/pairs.csv",
        "exactly one",
    ),
    ("laplacian without pairs", "solve npkl --laplacian {d}/L.npz", "needs --pairs"),
    ("missing file", "solve npkl --laplacian {d}/nope.npz --pairs {d}/pairs.csv", "No such file"),
    ("folder as a file", "solve npkl --laplacian {d} --pairs {d}/pairs.csv", "a folder"),
    ("empty .npz", "solve npkl --problem {d}/empty.npz", "lacks the Laplacian"),
    ("C stored as an array", "solve npkl --problem {d}/C_array.npz", "'C'"),
    (".npy renamed .npz", "solve npkl --problem {d}/renamed.npz", "not a .npz archive"),
    ("text as .npz", "solve npkl --problem {d}/text.npz", "not a .npz archive"),
    ("object array", "solve npkl --problem {d}/pickled.npz", "never unpickles"),
    (
        "huge declared array",
        "solve npkl --problem {d}/huge.npz",
        r"74\.5 GiB.*KERNELSDP_MAX_ARRAY_GIB",
    ),
    (
        "truncated archive",
        "solve npkl --problem {d}/truncated.npz",
        "not a .npz archive|truncated|corrupt",
    ),
    ("malformed CSR", "solve npkl --laplacian {d}/badcsr.npz --pairs {d}/pairs.csv", "CSR"),
    ("non-square Laplacian", "solve npkl --laplacian {d}/rect.npz --pairs {d}/pairs.csv", "square"),
    ("NaN in Laplacian", "solve npkl --laplacian {d}/nan_L.npz --pairs {d}/pairs.csv", "finite"),
    (
        "asymmetric Laplacian",
        "solve npkl --laplacian {d}/asym_L.npz --pairs {d}/pairs.csv",
        "symmetric",
    ),
    (
        "Laplacian not PSD",
        "solve npkl --laplacian {d}/neg_L.npz --pairs {d}/pairs.csv",
        "positive semidefinite",
    ),
    (
        "Laplacian barely not PSD, no capacity",
        "solve npkl --laplacian {d}/tiny_neg_L.npz --pairs {d}/pairs.csv "
        "--loss l2 --capacity none --solver admm",
        "λ_min",
    ),
    (
        "Laplacian format array",
        "solve npkl --laplacian {d}/fmt2.npz --pairs {d}/pairs.csv",
        "format",
    ),
    ("pairs not UTF-8", "solve npkl --laplacian {d}/L.npz --pairs {d}/latin1.csv", "UTF-8"),
    (
        "pairs header",
        "solve npkl --laplacian {d}/L.npz --pairs {d}/noheader.csv",
        "header 'i,j,label'",
    ),
    (
        "pair index out of range",
        "solve npkl --laplacian {d}/L.npz --pairs {d}/outofrange.csv",
        "range|index",
    ),
    ("pair label 2", "solve npkl --laplacian {d}/L.npz --pairs {d}/label2.csv", "label"),
    (
        "pair of a point with itself",
        "solve npkl --laplacian {d}/L.npz --pairs {d}/self.csv",
        "itself|distinct|i == j|same point",
    ),
    (
        "pair not a number",
        "solve npkl --laplacian {d}/L.npz --pairs {d}/words.csv",
        "three numbers",
    ),
    (
        "fractional pair index",
        "solve npkl --laplacian {d}/L.npz --pairs {d}/fraction.csv",
        "integer",
    ),
    # --- NPKL parameters and data-set flags
    ("negative C", "solve npkl --dataset iris --C -1", r"'C' parameter .* range \(0, inf\)"),
    ("NaN C", "solve npkl --dataset iris --C nan", "'C' parameter"),
    ("zero B", "solve npkl --dataset iris --B 0", "'B' parameter"),
    ("unknown loss", "solve npkl --dataset iris --loss foo", "invalid choice"),
    ("zero points", "solve npkl --dataset iris --n-points 0", "n_points"),
    ("too many points", "solve npkl --dataset iris --n-points 1000", "has 150 points"),
    ("negative seed", "solve npkl --dataset iris --seed -1", "'seed'"),
    ("zero neighbours", "solve npkl --dataset iris --k 0", "'k'"),
    (
        "--k with a given Laplacian",
        "solve npkl --laplacian {d}/L.npz --pairs {d}/pairs.csv --k 7",
        "--k",
    ),
    ("ratio out of range", "solve npkl --dataset iris --ratio 1.5", "ratio"),
    ("zero active points", "solve npkl --dataset iris --active-points 0", "active"),
    # --- solvers and their options
    ("unknown solver", "solve npkl --dataset iris --solver nosuch", "nosuch"),
    (
        "solver refusing the loss",
        "solve npkl --dataset iris --loss linear --capacity trace --solver admm",
        "admm",
    ),
    (
        "option the solver lacks",
        "solve npkl --dataset iris --solver clarabel --rank 5",
        "'rank' option is not an option",
    ),
    ("zero iterations (scs)", "solve npkl --dataset iris --solver scs --max-iter 0", "max_iter"),
    (
        "negative tol",
        "solve npkl --dataset iris --loss hinge --solver saddle-point --tol -1",
        "'tol'",
    ),
    (
        "zero iterations (saddle)",
        "solve npkl --dataset iris --loss hinge --solver saddle-point --max-iter 0",
        "max_iter",
    ),
    (
        "negative time limit",
        "solve npkl --dataset iris --solver clarabel --time-limit -5",
        "time_limit",
    ),
    # --- output files
    (
        "--out is the input",
        "solve npkl --laplacian {d}/L.npz --pairs {d}/pairs.csv --out {d}/L.npz",
        "input",
    ),
    (
        "--out exists",
        "solve npkl --laplacian {d}/L.npz --pairs {d}/pairs.csv --out {d}/old.npz",
        "--force",
    ),
    ("--out empty", "solve npkl --laplacian {d}/L.npz --pairs {d}/pairs.csv --out=", "--out"),
    (
        "--out under a file",
        "solve npkl --laplacian {d}/L.npz --pairs {d}/pairs.csv --out {d}/pairs.csv/K.npz",
        "not a folder",
    ),
    (
        "--out in a missing folder",
        "solve npkl --laplacian {d}/L.npz --pairs {d}/pairs.csv --out {d}/no/K.npz",
        "no such folder",
    ),
    (
        "--out not .npz",
        "solve npkl --laplacian {d}/L.npz --pairs {d}/pairs.csv --out {d}/K.txt",
        ".npz",
    ),
    # --- the other formulations
    ("StQP key missing", "solve stqp --problem {d}/s.npz", "lacks the key.* Q"),
    ("StQP Q with inf", "solve stqp --problem {d}/q_inf.npz", "finite"),
    ("StQP Q not square", "solve stqp --problem {d}/q_rect.npz", "square|\\(d, d\\)"),
    ("spectral gamma zero", "solve spectral-metric --problem {d}/s.npz --gamma 0", "gamma"),
    ("spectral gamma NaN", "solve spectral-metric --problem {d}/s.npz --gamma nan", "gamma"),
    (
        "spectral gamma as an array",
        "solve spectral-metric --problem {d}/s_gamma.npz",
        "'gamma' must hold one number",
    ),
    (
        "spectral landmarks zero",
        "solve spectral-metric --problem {d}/s.npz --n-landmarks 0",
        "n_landmarks",
    ),
    ("TLA zero ramps", "solve mwc-tla --problem {d}/t.npz --ramps 0", "ramps"),
    ("TLA huge ramps", "solve mwc-tla --problem {d}/t.npz --ramps 100000", "GiB"),
    ("TLA one class", "solve mwc-tla --problem {d}/t_oneclass.npz", "class"),
    # --- verify, certify, reproduce
    ("verify without solvers", "verify npkl --dataset iris --solvers ,", "at least one solver"),
    (
        "verify unknown second solver",
        "verify npkl --dataset iris --solvers clarabel,nosuch",
        "nosuch",
    ),
    (
        "verify too large",
        "verify npkl --dataset iris --solvers npkl-closed-form,clarabel --n-points 150 --k 0",
        "'k'",
    ),
    ("certify missing", "certify {d}/nope.dat-s", "(?i)no such file"),
    ("certify malformed SDPA", "certify {d}/bad.dat-s", "line"),
    ("certify negative tol", "certify {d}/bad.dat-s --tol -1", "tol"),
    ("certify a folder of one bad file, JSON", "certify {d}/badfolder --json", "line"),
    ("reproduce unknown", "reproduce nosuch", "unknown paper"),
    ("sweep missing spec", "sweep {d}/nope.toml", "cannot read the sweep spec"),
    ("sweep not TOML", "sweep {d}/pairs.csv", "not valid TOML"),
    ("sweep zero jobs", "sweep {d}/sweep.toml --jobs 0", "'n_jobs' parameter"),
    ("sweep unknown solver", "sweep {d}/sweep_nosuch.toml", "unknown solver 'nosuch'"),
    # --- issue #29: memory priced from what a file declares, numbers parsed strictly
    (
        "COO declaring 4e9 x 4e9",
        "solve npkl --laplacian {d}/coo_huge.npz --pairs {d}/pairs.csv",
        r"4,000,000,000 × 4,000,000,000 sparse matrix .* GiB; the limit is",
    ),
    (
        "CSR shape of floats",
        "solve npkl --laplacian {d}/frac_shape.npz --pairs {d}/pairs.csv",
        r"shape must be two non-negative integers; got float64 \[30\.7, 30\.2\]",
    ),
    (
        "CSR L_shape of floats",
        "solve npkl --problem {d}/frac_L_shape.npz",
        "two non-negative integers",
    ),
    (
        "complex CSR data",
        "solve npkl --laplacian {d}/complex_L.npz --pairs {d}/pairs.csv",
        "complex numbers",
    ),
    (
        "pair index 1e19",
        "solve npkl --laplacian {d}/L.npz --pairs {d}/index_1e19.csv",
        "line 2: pair indices must be integers; got '1e19'",
    ),
    (
        "pair index of 20 digits",
        "solve npkl --laplacian {d}/L.npz --pairs {d}/index_20digits.csv",
        "line 2: pair index 10000000000000000000 is out of range",
    ),
    (
        "pair index 1_000",
        "solve npkl --laplacian {d}/L.npz --pairs {d}/index_underscore.csv",
        "line 3: every row must hold three numbers",
    ),
    (
        "pair index 1e19 in a .npz",
        "solve npkl --problem {d}/pairs_1e19.npz",
        r"out of range: row 0 is \(0\.0, 1e\+19\)",
    ),
    (
        "pair index 2**64-1 in a .npz",
        "solve npkl --problem {d}/pairs_uint64.npz",
        "out of range: row 0 is \\(0, 18446744073709551615\\)",
    ),
    (
        "--max-iter 1e21 (clarabel)",
        "solve npkl --dataset iris --solver clarabel --max-iter 1000000000000000000000",
        r"'max_iter' option of clarabel .*\[1, 1e\+09\]",
    ),
    (
        "--max-iter 1e21 (scs)",
        "solve npkl --dataset iris --solver scs --max-iter 1000000000000000000000",
        r"'max_iter' option of scs .*\[1, 1e\+09\]",
    ),
    (
        "sweep out names a file",
        "sweep {d}/sweep_out_file.toml",
        "is a file, not a folder.*Nothing was run",
    ),
    (
        "sweep out under a file",
        "sweep {d}/sweep_out_under_file.toml",
        "pairs.csv is a file, not a folder",
    ),
    ("sweep spec not UTF-8", "sweep {d}/sweep_latin1.toml", r"not UTF-8 text \(byte \d+\)"),
]


def _npz(path, **arrays):
    np.savez(path, **arrays)


@pytest.fixture
def folder(tmp_path, iris_small):
    d = tmp_path
    L, pairs, _ = iris_small
    n = L.shape[0]
    sp.save_npz(d / "L.npz", L)
    rows = ["i,j,label"] + [f"{i},{j},{int(t)}" for i, j, t in zip(pairs.i, pairs.j, pairs.t)]
    (d / "pairs.csv").write_text("\n".join(rows) + "\n")
    (d / "old.npz").write_bytes(b"an earlier result")
    np.savez(
        d / "C_array.npz",
        L=L.toarray(),
        pairs=np.c_[pairs.i, pairs.j],
        labels=pairs.t,
        C=np.array([1.0, 2.0]),
    )
    with zipfile.ZipFile(d / "empty.npz", "w"):
        pass
    np.save(d / "renamed.npy", np.eye(3))
    os.replace(d / "renamed.npy", d / "renamed.npz")
    (d / "text.npz").write_text("not an archive\n")
    np.savez(
        d / "pickled.npz", L=np.array([{"a": 1}], dtype=object), allow_pickle=True
    ) if "allow_pickle" in np.savez.__doc__ else None
    if not (d / "pickled.npz").exists():
        np.savez(d / "pickled.npz", L=np.array([{"a": 1}], dtype=object))
    # a 1 KB archive whose header declares a 10⁵ × 10⁵ float64 array (74.5 GiB)
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (100_000, 100_000)}
    )
    with zipfile.ZipFile(d / "huge.npz", "w") as z:
        z.writestr("L.npy", b"\x93NUMPY\x01\x00" + header.getvalue()[8:] + b"\0" * 64)
    good = (d / "L.npz").read_bytes()
    (d / "truncated.npz").write_bytes(good[: len(good) // 2])
    np.savez(
        d / "badcsr.npz",
        data=np.ones(3),
        indices=np.array([0, 99, 1]),
        indptr=np.array([0, 1, 2, 3] + [3] * (n - 2)),
        format=np.array("csr"),
        shape=np.array([n, n]),
    )
    sp.save_npz(d / "rect.npz", sp.csr_matrix(np.ones((n, n + 1))))
    bad = L.toarray()
    bad[0, 0] = np.nan
    sp.save_npz(d / "nan_L.npz", sp.csr_matrix(bad))
    bad = L.toarray()
    bad[0, 1] += 0.5
    sp.save_npz(d / "asym_L.npz", sp.csr_matrix(bad))
    sp.save_npz(d / "neg_L.npz", (L - 3 * sp.eye(n)).tocsr())
    sp.save_npz(d / "tiny_neg_L.npz", (L - 5e-9 * sp.eye(n)).tocsr())
    np.savez(
        d / "fmt2.npz",
        data=L.data,
        indices=L.indices,
        indptr=L.indptr,
        format=np.array([b"csr", b"csr"]),
        shape=np.array(L.shape),
    )
    (d / "latin1.csv").write_bytes("i,j,label\n0,1,1\n# caf\xe9\n".encode("latin-1"))
    (d / "noheader.csv").write_text("0,1,1\n")
    (d / "outofrange.csv").write_text(f"i,j,label\n0,{n + 5},1\n")
    (d / "label2.csv").write_text("i,j,label\n0,1,2\n")
    (d / "self.csv").write_text("i,j,label\n3,3,1\n")
    (d / "words.csv").write_text("i,j,label\n0,one,1\n")
    (d / "fraction.csv").write_text("i,j,label\n0,1.5,1\n")
    rng = np.random.default_rng(0)
    Q = rng.standard_normal((4, 4))
    _npz(d / "q.npz", Q=Q + Q.T)
    _npz(d / "q_inf.npz", Q=np.full((3, 3), np.inf))
    _npz(d / "q_rect.npz", Q=np.ones((1, 5)))
    X = rng.standard_normal((30, 3))
    y = np.repeat([-1, 1], 15)
    _npz(d / "s.npz", X=X, pairs=np.array([[0, 1], [2, 20], [3, 4]]), labels=np.array([1, -1, 1]))
    _npz(d / "t.npz", X=X, y=y)
    _npz(
        d / "s_gamma.npz",
        X=X,
        pairs=np.array([[0, 1], [3, 4]]),
        labels=np.array([1, 1]),
        gamma=np.ones(3),
    )
    _npz(d / "t_oneclass.npz", X=X, y=np.ones(30, int))
    (d / "sweep.toml").write_text(
        'study = "t"\n[grid]\nformulation = ["npkl"]\nsolver = ["clarabel"]\n'
        'dataset = ["iris"]\nn_points = [20]\n'
    )
    (d / "sweep_nosuch.toml").write_text(
        (d / "sweep.toml").read_text().replace("clarabel", "nosuch")
    )
    _issue_29_files(d, L, pairs)
    (d / "bad.dat-s").write_text("2\n1\n3\n1.0 2.0\n0 1 1 1 oops\n")
    (d / "badfolder").mkdir()
    (d / "badfolder" / "bad.dat-s").write_text("2\n1\n3\n1.0 2.0\n0 1 1 1 oops\n")
    return d


def _issue_29_files(d, L, pairs):
    n = L.shape[0]
    np.savez(
        d / "coo_huge.npz",
        data=np.ones(3),
        row=np.arange(3),
        col=np.arange(3),
        format=np.array("coo"),
        shape=np.array([4_000_000_000] * 2),
    )
    np.savez(
        d / "frac_shape.npz",
        data=L.data,
        indices=L.indices,
        indptr=L.indptr,
        format=np.array("csr"),
        shape=np.array([30.7, 30.2]),
    )
    np.savez(
        d / "frac_L_shape.npz",
        L_data=L.data,
        L_indices=L.indices,
        L_indptr=L.indptr,
        L_shape=np.array([n + 0.7, n + 0.2]),
        pairs=np.c_[pairs.i, pairs.j],
        labels=pairs.t,
    )
    np.savez(
        d / "complex_L.npz",
        data=L.data * (1 + 1e-3j),
        indices=L.indices,
        indptr=L.indptr,
        format=np.array("csr"),
        shape=np.array(L.shape),
    )
    (d / "index_1e19.csv").write_text("i,j,label\n0,1e19,1\n")
    (d / "index_20digits.csv").write_text("i,j,label\n0,10000000000000000000,1\n")
    (d / "index_underscore.csv").write_text("i,j,label\n0,1,1\n0,1_000,1\n")
    dense = L.toarray()
    np.savez(d / "pairs_1e19.npz", L=dense, pairs=np.array([[0.0, 1e19]]), labels=np.ones(1))
    np.savez(
        d / "pairs_uint64.npz",
        L=dense,
        pairs=np.array([[0, 2**64 - 1]], dtype=np.uint64),
        labels=np.ones(1),
    )
    spec = (d / "sweep.toml").read_text()
    (d / "sweep_out_file.toml").write_text(f'out = "{d}/pairs.csv"\n' + spec)
    (d / "sweep_out_under_file.toml").write_text(f'out = "{d}/pairs.csv/res"\n' + spec)
    (d / "sweep_latin1.toml").write_bytes(("# caf\xe9\n" + spec).encode("latin-1"))


def _snapshot(d):
    return {
        p: hashlib.sha256(open(os.path.join(r, p), "rb").read()).hexdigest()
        for r, _, fs in os.walk(d)
        for p in fs
    }


@pytest.mark.parametrize("argv, message", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_is_one_line_and_exit_2(folder, capsys, argv, message):
    before = _snapshot(folder)
    args = argv.replace("{d}", str(folder)).split()
    with pytest.raises(SystemExit) as stop:  # argparse's own errors (exit 2) arrive this way
        raise SystemExit(main(args))
    out, err = capsys.readouterr()
    assert stop.value.code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kernelsdp: error: "), err
    assert "Traceback" not in err
    import re

    assert re.search(message, lines[0]), lines[0]
    assert _snapshot(folder) == before


def test_the_list_is_long_enough():
    assert len(BAD) >= 40 and len({b[0] for b in BAD}) == len(BAD)


def test_ctrl_c_is_one_line_and_exit_130(capsys, monkeypatch):
    import kernelsdp.cli as cli

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setitem(cli.COMMANDS, "solvers", interrupted)
    assert main(["solvers"]) == 130
    err = capsys.readouterr().err
    assert err == "kernelsdp: interrupted; nothing was written.\n"


def test_interrupted_run_says_what_was_kept(capsys, monkeypatch, tmp_path):
    import kernelsdp.cli as cli
    from kernelsdp.runs import ResultsStore, run_units

    def study(args):
        def unit(u):
            if u["x"] == 2:
                raise KeyboardInterrupt
            return {"y": u["x"]}

        run_units(
            "demo", [{"x": x} for x in range(4)], unit, store=ResultsStore(tmp_path / "s.sqlite")
        )

    monkeypatch.setitem(cli.COMMANDS, "solvers", study)
    assert main(["solvers"]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "interrupted: 2 of 4 units of 'demo' kept in" in err[0]


def test_a_full_disk_names_the_users_file(folder, capsys, monkeypatch):
    import errno

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", full)
    before = _snapshot(folder)
    code = main(
        [
            "solve",
            "npkl",
            "--laplacian",
            f"{folder}/L.npz",
            "--pairs",
            f"{folder}/pairs.csv",
            "--loss",
            "linear",
            "--capacity",
            "frobenius",
            "--out",
            f"{folder}/K.npz",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(
        f"kernelsdp: error: cannot write {folder}/K.npz: No space left"
    )
    assert ".kernelsdp-" not in err and _snapshot(folder) == before


def _damaged_store(path):
    import sqlite3

    from kernelsdp.runs import ResultsStore

    ResultsStore(path)
    with sqlite3.connect(path) as db:
        db.executemany(
            "INSERT INTO runs VALUES ('s', ?, ?, 0, NULL)",
            [(f'{{"x":{x}}}', '{"v":"' + "y" * 200 + '"}') for x in range(200)],
        )
    with open(path, "r+b") as fh:  # a leaf page of the runs table
        fh.seek(4096 * 10)
        fh.write(b"\xa5" * 4096)


@pytest.mark.parametrize(
    "store, message",
    [
        (
            "empty",
            r"not a kernelsdp results store \(an empty file \(0 bytes\)\); it was left as it is: "
            r"`kernelsdp sweep --fresh`",
        ),
        ("damaged", r"the results store is damaged: database disk image is malformed"),
        ("text", r"not a kernelsdp results store \(not an SQLite database\)"),
    ],
)
def test_a_sweep_on_a_store_that_is_not_one_is_one_line_and_runs_nothing(
    folder, capsys, monkeypatch, store, message
):
    """Issue #29: a store truncated to 0 bytes is not silently a new one, and a damaged page
    (sqlite3.DatabaseError) is one line, not a traceback; nothing runs, nothing changes."""
    import kernelsdp.sweep as sweep_module

    path = folder / "store.sqlite"
    {
        "empty": lambda: path.write_bytes(b""),
        "damaged": lambda: _damaged_store(path),
        "text": lambda: path.write_text("results\n"),
    }[store]()
    monkeypatch.setenv("KERNELSDP_STORE", str(path))
    monkeypatch.setattr(sweep_module, "run_unit", lambda unit: pytest.fail("a unit ran"))
    before = _snapshot(folder)
    assert main(["sweep", f"{folder}/sweep.toml"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("kernelsdp: error: ")
    import re

    assert re.search(message, err[0]), err[0]
    assert _snapshot(folder) == before


def test_a_store_in_an_unwritable_folder_is_one_line_that_says_so(folder, capsys, monkeypatch):
    ro = folder / "ro"
    ro.mkdir()
    real = os.access
    # root writes anywhere: the folder is unwritable to os.access as well as to its mode
    monkeypatch.setattr(
        os,
        "access",
        lambda p, mode: False if os.fspath(p) == str(ro) and mode & os.W_OK else real(p, mode),
    )
    ro.chmod(0o500)
    monkeypatch.setenv("KERNELSDP_STORE", str(ro / "r.sqlite"))
    try:
        assert main(["sweep", f"{folder}/sweep.toml"]) == 2
    finally:
        ro.chmod(0o700)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the folder" in err[0] and "is not writable" in err[0], err
    assert "not a kernelsdp results store" not in err[0] and list(ro.iterdir()) == []


def test_sweep_fresh_sets_an_empty_store_aside_and_says_so(folder, capsys, monkeypatch):
    import kernelsdp.sweep as sweep_module

    path = folder / "store.sqlite"
    path.write_bytes(b"")
    monkeypatch.setenv("KERNELSDP_STORE", str(path))
    monkeypatch.chdir(folder)
    monkeypatch.setattr(
        sweep_module, "run_unit", lambda unit: {"status": "optimal", "passed": True}
    )
    assert main(["sweep", f"{folder}/sweep.toml", "--fresh"]) == 0
    err = capsys.readouterr().err
    assert "was not a results store; it is kept as" in err
    aside = [p for p in os.listdir(folder) if p.startswith("store.sqlite.invalid-")]
    assert len(aside) == 1 and os.path.getsize(folder / aside[0]) == 0
