"""Issue #31: every reproduction's summary ends with its 'not reproduced' list, and
``kernelsdp reproduce NAME --quick`` prints it; the claim checks read what they claim.

The quick modes are cut to one small piece each (monkeypatched) so the suite stays fast:
what is tested is the path from the CLI to the closing list, and the checks themselves on
small stored numbers."""

import numpy as np
import pytest

from kernelsdp.cli import main as cli


def _closing_list(text: str, items) -> list[str]:
    """The lines from 'Not reproduced (' to the end: exactly the header and one per item."""
    tail = text[text.rindex("Not reproduced (") :].strip().splitlines()
    assert tail[0].startswith(f"Not reproduced ({len(items)} items)")
    assert len(tail) == 1 + len(items)
    for line, (what, why) in zip(tail[1:], items):
        assert line == f"  - {what}: {why}" and why
    return tail


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KERNELSDP_STORE", str(tmp_path / "results.sqlite"))
    return tmp_path


def test_simplenpkl_quick_ends_with_its_list(in_tmp, monkeypatch, capsys):
    from kernelsdp.reproductions import simplenpkl_adult, simplenpkl_figures
    from kernelsdp.reproductions import simplenpkl_icml2009 as sn

    monkeypatch.setattr(sn, "PAPER", {"iris": sn.PAPER["iris"]})
    monkeypatch.setattr(simplenpkl_adult, "table4", lambda **kw: [])
    monkeypatch.setattr(simplenpkl_figures, "figure1", lambda **kw: "")
    monkeypatch.setattr(simplenpkl_figures, "figure2", lambda **kw: "")
    assert cli(["reproduce", "simplenpkl", "--quick"]) == 0
    text = capsys.readouterr().out
    _closing_list(text, sn.NOT_REPRODUCED)
    assert "Table 4, rows a2a-a5a" in text and "Protein" in text
    assert "moves in" in text and "not qualified" in text  # quick: 2 repetitions per reading


def test_flexible_npkl_quick_ends_with_its_list(in_tmp, monkeypatch, capsys):
    from kernelsdp.reproductions import flexible_npkl_admm as fl
    from kernelsdp.reproductions.flexible_npkl_readings import NOT_REPRODUCED

    full = fl.units_for
    monkeypatch.setattr(
        fl,
        "units_for",
        lambda quick: [
            u for u in full(True) if u["dataset"] == "iris" and u["seed"] == 0 and u["loss"] == "HL"
        ],
    )
    assert cli(["reproduce", "flexible-npkl", "--quick"]) == 0
    text = capsys.readouterr().out
    _closing_list(text, NOT_REPRODUCED)
    assert "BCD rows" in text and "'ADMM is more efficient than' S-NPKL" in text


def test_spectral_metric_quick_ends_with_its_list(in_tmp, monkeypatch, capsys):
    from kernelsdp.reproductions import spectral_metric_ijcai2007 as sm

    for name in ("table1", "real_data", "ablation"):
        monkeypatch.setattr(sm, name, lambda runs: None)
    monkeypatch.setattr(sm, "figure", lambda path=None: "out/x.png")
    assert cli(["reproduce", "spectral-metric", "--quick"]) == 0
    text = capsys.readouterr().out
    _closing_list(text, sm.NOT_REPRODUCED)
    assert "iterative extension" in text


def test_ncut_quick_prints_no_paper_column_and_ends_with_its_list(in_tmp, monkeypatch, capsys):
    from kernelsdp.reproductions import ncut_kernels_cvpr2010 as nc

    monkeypatch.setattr(nc, "TASKS", {"iris 1-vs-2": ("iris", (1, 2))})
    assert cli(["reproduce", "ncut-kernels", "--quick"]) == 0
    text = capsys.readouterr().out
    _closing_list(text, nc.NOT_REPRODUCED)
    table = text[: text.index("Summary:")]
    header = next(line for line in table.splitlines() if line.startswith("task "))
    assert "84.61" not in table and "0.9149" not in table and "paper" not in header
    assert "equals the best single kernel" in text and " of 1 runs" in text


def test_tla_quick_ends_with_its_list(in_tmp, monkeypatch, capsys):
    from kernelsdp.reproductions import tla_icmla2009 as tla

    monkeypatch.setattr(tla, "table1", lambda reps, block_n, block_solver: [])
    monkeypatch.setattr(tla, "explain", lambda res: None)
    monkeypatch.setattr(tla, "honesty_demo", lambda: None)
    monkeypatch.setattr(tla, "plot_transformation", lambda path: path)
    monkeypatch.setattr(tla, "scaling", lambda path, quick: ["  a verdict"])
    assert cli(["reproduce", "tla", "--quick"]) == 0
    text = capsys.readouterr().out
    _closing_list(text, tla.NOT_REPRODUCED)
    assert "Timing claims, SVM training included" in text


def test_landmark_trend_is_stated_whatever_it_is():
    from kernelsdp.reproductions.spectral_metric_ijcai2007 import landmark_trend

    falling = {
        "S only": (188, 1.69, 0.01),
        "m = 100": (188, 1.69, 0.01),
        "m = 200": (200, 1.65, 0.01),
        "m = 400": (400, 1.72, 0.01),
        "m = 800": (800, 1.55, 0.01),
    }
    text = landmark_trend(falling)
    assert "no monotone trend" in text and "m 188: 1.690" in text and "does not hold" in text
    assert text.count("m 188") == 1  # rows that ran the same m are one point
    rising = {"a": (100, 1.0, 0.0), "b": (200, 1.1, 0.0), "c": (400, 1.2, 0.0)}
    text = landmark_trend(rising)
    assert "rises with m at every step" in text and "holds here" in text


def test_tla_svm_features_give_the_learned_kernel_and_claims_read_the_times():
    from kernelsdp.data.datasets import hyperplane_transformed
    from kernelsdp.data.ramps import RampBasis
    from kernelsdp.formulations.tla import mixture_kernel
    from kernelsdp.reproductions.tla_icmla2009 import scaling_claims, svm_features

    X, _ = hyperplane_transformed(30, "quadratic", seed=0)
    basis = RampBasis.fit(X, 4)
    A = np.random.default_rng(0).standard_normal((4, 4))
    M = A @ A.T
    Phi = svm_features(basis, M, X)
    assert Phi.shape == (30, 8)
    assert np.allclose(Phi @ Phi.T, mixture_kernel(basis, M, X), atol=1e-9)
    times = {
        "MWC-TLA (Clarabel)": [(100, 0.1, 0.0), (10_000, 0.2, 0.2)],
        "LMTL (extragradient)": [(100, 1.0, 0.0), (200, 3.0, 0.0)],
        "LMTL (SCS, full SDP)": [(40, 30.0, 0.0)],
    }
    lines = scaling_claims(times)
    assert "n^0.30" in lines[0] and "holds" in lines[0]
    assert "at n = 100: 10.0x faster" in lines[1] and "does not hold" in lines[1]
    assert "n = 40 against MWC-TLA at n = 100" in lines[2] and "300.0x" in lines[2]
    assert "holds" in lines[2]
