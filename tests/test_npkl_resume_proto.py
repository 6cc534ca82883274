"""benchmarks/npkl_resume_proto.py (issue #30, twenty-second pass): a run saved at a check
and resumed ends count for count where the uninterrupted run ends, each step variant
resumes in its own steps and certifies, and the stagnation rule fires only when the spread
checks' FW gap has stopped falling; ``spectral-K`` is the solver's spectral start."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from conftest import load_benchmark

import kernelsdp.solvers.alm_inner as alm_inner
import kernelsdp.solvers.alm_newton as alm_newton
import kernelsdp.solvers.alm_outer as alm_outer
from kernelsdp.solvers import solve


@pytest.fixture(scope="module")
def proto():
    return load_benchmark("npkl_resume_proto")


@pytest.fixture()
def restored(monkeypatch):
    """The check's thread patch and the steps a round come back after the test."""
    for name in ("fw_check", "fw_step", "NEWTON_STEPS", "newton"):
        monkeypatch.setattr(alm_outer, name, getattr(alm_outer, name))
    monkeypatch.setattr(alm_inner, "check_iterations", alm_inner.check_iterations)
    monkeypatch.setattr(alm_newton, "CG_MAX", alm_newton.CG_MAX)


def _args(proto, *argv):
    return proto.parse(["--n", "3000", "--time-limit", "600", "--quiet", *argv])


def test_a_resumed_run_ends_where_the_uninterrupted_one_does(proto, restored, tmp_path):
    f = load_benchmark("npkl_scale").instance(3000)
    whole = proto.run_variant(f, _args(proto))
    state = str(tmp_path / "state.pkl")
    # after check 6's round the trust radius is 0.098, not the start's π/16: a state that
    # lost it would take other steps (at checks 8 and later it is π/16 again)
    assert proto.run_variant(f, _args(proto, "--dump-at", "6", "--state", state))["dumped_at"] == 6
    resumed = proto.run_variant(f, _args(proto, "--resume", state))
    assert whole["status"] == "Termination.OPTIMAL" and whole["checks"] > 6
    for key in ("status", "products", "checks", "updates", "certified_gap", "answer_check"):
        assert resumed[key] == whole[key], key
    # and the prototype's copy of the loop is the solver's: the same run through solve()
    # (from K = 0, as the prototype starts without its variant spectral-K)
    r = solve(f, "low-rank-alm", gap_tol=1e-3, inner="hybrid", spectral_start=0)
    assert (r.info["products"], r.info["checks"]) == (whole["products"], whole["checks"])
    assert r.info["relative_gap"] == whole["certified_gap"]


def test_spectral_runs_the_solver_s_spectral_start(proto, restored):
    f = load_benchmark("npkl_scale").instance(3000)
    out = proto.run_variant(f, _args(proto, "--variant", "spectral-32"))
    r = solve(f, "low-rank-alm", gap_tol=1e-3, inner="hybrid", spectral_start=32)
    assert out["status"] == "Termination.OPTIMAL"
    assert (r.info["products"], r.info["checks"]) == (out["products"], out["checks"])
    plain = solve(f, "low-rank-alm", gap_tol=1e-3, inner="hybrid")
    assert out["products"] != plain.info["products"]  # the option reached the solver


@pytest.mark.parametrize("variant", ["rowprec", "hubrows-20", "kinkrows-20"])
def test_a_step_variant_resumes_in_its_own_steps_and_certifies(proto, restored, tmp_path, variant):
    """The twenty-third and twenty-fourth passes' steps (the row weights; the hubs' row pass
    with the frozen rows; the failing steps' rows frozen) replace the solver's round and
    certify from the same state (the row cap's and the frozen rows' CG are tested in their
    prototypes' files)."""
    f = load_benchmark("npkl_scale").instance(3000)
    state = str(tmp_path / "state.pkl")
    proto.run_variant(f, _args(proto, "--dump-at", "6", "--state", state))
    plain = alm_outer.newton
    out = proto.run_variant(f, _args(proto, "--resume", state, "--variant", variant))
    assert alm_outer.newton is not plain
    assert out["status"] == "Termination.OPTIMAL" and out["certified_gap"] <= 1e-3


def test_checkit_runs_the_checks_longer_from_the_same_state(proto, restored, tmp_path):
    """``checkit-N`` (twenty-fifth pass) gives every check N LOBPCG iterations: from the
    same state its run is not the plain one (the checks' counts differ), and it certifies."""
    f = load_benchmark("npkl_scale").instance(3000)
    state = str(tmp_path / "state.pkl")
    proto.run_variant(f, _args(proto, "--dump-at", "6", "--state", state))
    plain = proto.run_variant(f, _args(proto, "--resume", state))
    counted = []
    check = alm_outer.fw_check
    alm_outer.fw_check = lambda *a: counted.append(alm_inner.check_iterations(10**6)) or check(*a)
    longer = proto.run_variant(f, _args(proto, "--resume", state, "--variant", "checkit-24"))
    assert counted and set(counted) == {24}
    assert longer["status"] == "Termination.OPTIMAL" and longer["certified_gap"] <= 1e-3
    assert (longer["products"], longer["checks"]) != (plain["products"], plain["checks"])


def test_multifw_takes_the_seventeenth_pass_step_from_the_same_state(proto, restored, tmp_path):
    """``multifw`` replaces the solver's Frank–Wolfe step in the resumed loop (looked up
    at each call) and certifies."""
    f = load_benchmark("npkl_scale").instance(3000)
    state = str(tmp_path / "state.pkl")
    proto.run_variant(f, _args(proto, "--dump-at", "6", "--state", state))
    before = proto.VARIANT_STATS.get("steps", 0)
    out = proto.run_variant(f, _args(proto, "--resume", state, "--variant", "checkit-24+multifw"))
    assert out["status"] == "Termination.OPTIMAL" and out["certified_gap"] <= 1e-3
    assert proto.VARIANT_STATS["steps"] > before


def test_cgmax_gives_the_newton_steps_a_deeper_krylov_space_from_the_same_state(
    proto, restored, tmp_path
):
    """``newton-2+cgmax-24`` (the seventeenth pass's ``cg24``, thirty-third pass at 10⁶)
    sets the steps' CG cap for the resumed run: its path is not the plain one, and it
    certifies."""
    f = load_benchmark("npkl_scale").instance(3000)
    state = str(tmp_path / "state.pkl")
    proto.run_variant(f, _args(proto, "--dump-at", "6", "--state", state))
    plain = proto.run_variant(f, _args(proto, "--resume", state))
    deeper = proto.run_variant(f, _args(proto, "--resume", state, "--variant", "newton-2+cgmax-24"))
    assert alm_newton.CG_MAX == 24 and alm_outer.NEWTON_STEPS == 2
    assert deeper["status"] == "Termination.OPTIMAL" and deeper["certified_gap"] <= 1e-3
    assert (deeper["products"], deeper["checks"]) != (plain["products"], plain["checks"])


def test_the_spectrum_line_reads_the_ritz_values_of_span_v_and_the_room_above_them(proto):
    """On a diagonal G the Ritz values in span V are V's coordinates' entries, whatever
    rotation V carries (V·O spans the same space with the same principal directions), a
    direction carrying 1e-6 of the weight is not heavy, and the room is the block's lowest
    value less the heavy directions' highest quotient."""
    d = np.array([-0.5, -0.4, -0.1, 0.3, 0.7])
    prob = SimpleNamespace(dual_times=lambda Y: d[:, None] * Y)
    X = np.zeros((5, 3))
    X[0, 0], X[1, 1], X[2, 2] = 2.0, 1.0, 1e-3  # weights 4, 1, 1e-6: the last is light
    O = np.linalg.qr(np.random.default_rng(1).standard_normal((3, 3)))[0]
    chk = SimpleNamespace(lam=-0.5, level=-0.48, block_values=np.array([0.7, -0.2]))
    line = proto.spectrum_line(prob, SimpleNamespace(X=X @ O), chk)
    assert "width 3" in line and "span V [-0.500000, -0.100000]" in line
    assert "heavy max -0.400000" in line and "block lowest -0.200000" in line
    assert "room +2.00e-01" in line
    for empty in (np.zeros((5, 0)), np.zeros((5, 2))):
        out = proto.spectrum_line(prob, SimpleNamespace(X=empty), chk)
        assert out == f"spectrum  width {empty.shape[1]}  lambda -0.500000"


def test_spectrum_prints_a_line_a_check_with_lambda_below_span_v(proto, restored):
    """``--spectrum`` on a 3,000 run: one line per check; the check's λ (Rayleigh–Ritz on
    [V, W] ⊇ span V) is at most span V's lowest Ritz value, and V's level lies in span V's
    range."""
    f = load_benchmark("npkl_scale").instance(3000)
    lines: list = []
    proto.install_spectrum(lines)
    out = proto.run_variant(f, _args(proto))
    assert out["status"] == "Termination.OPTIMAL" and len(lines) == out["checks"]
    for line in lines[1:]:  # the first check is at K = 0
        words = line.replace("[", "").replace(",", "").replace("]", "").split()
        lam, level = float(words[4]), float(words[6])
        low, high = float(words[9]), float(words[10])
        assert lam <= low + 1e-9 and low - 1e-9 <= level <= high + 1e-9, line


def test_a_misspelt_variant_is_refused_not_run_as_the_plain_loop(proto, capsys):
    with pytest.raises(SystemExit) as e:
        proto.parse(["--variant", "hubrow-100"])
    assert e.value.code == 2 and "unknown variant hubrow-100" in capsys.readouterr().err
    assert proto.parse(["--variant", "hubrows-100+newton-8"]).variant == "hubrows-100+newton-8"
    assert proto.parse(["--variant", "fista+kinkrows-50"]).variant == "fista+kinkrows-50"
    assert proto.parse(["--variant", "checkit-24+multifw"]).variant == "checkit-24+multifw"
    assert proto.parse(["--variant", "newton-2+cgmax-24"]).variant == "newton-2+cgmax-24"
    assert proto.parse(["--variant", "spectral-64"]).variant == "spectral-64"
    for wrong in ("checkit-2.5", "cgmax-2.5", "cgmax-0", "spectral-2.5"):
        with pytest.raises(SystemExit):
            proto.parse(["--variant", wrong])


def test_the_stagnation_rule_fires_once_the_spread_checks_stop_falling(proto):
    run = SimpleNamespace(localised=False)
    loop = proto.Loop.__new__(proto.Loop)
    loop.run, loop.spread, loop.stagnate = run, [], 3
    falling = [1.0, 0.8, 0.6, 0.4, 0.3]
    assert not any(loop.stagnated(SimpleNamespace(fw_gap=g)) for g in falling)
    flat = [0.31, 0.29, 0.3]  # none below 0.9 × 0.3 over the last three
    assert [loop.stagnated(SimpleNamespace(fw_gap=g)) for g in flat] == [False, False, True]
    assert loop.spread == []  # the memory starts again after an update
    run.localised = True  # a hub's pocket is not a spread check
    assert not loop.stagnated(SimpleNamespace(fw_gap=5.0)) and loop.spread == []
