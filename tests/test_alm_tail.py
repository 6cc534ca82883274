"""The low-rank ALM's tail rounds (issue #30, thirty-seventh pass,
:mod:`kernelsdp.solvers.alm_tail`, option ``tail_rounds``): the FW gap's lower bound never
exceeds the FW gap and equals it at the bottom eigenvector, FY is the check's, the Newton
round's stop hook ends a round where it says and changes nothing where absent, tail rounds
follow spread checks in the tail only, a run with them follows the plain path to the first
tail check and certifies an interval that meets the plain solver's, and the rule's products
with M are counted with the eigensolver's."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import load_benchmark, uci_trace_npkl

import kernelsdp.solvers.alm_outer as alm_outer
from kernelsdp.errors import InvalidParameterError
from kernelsdp.solvers import alm_tail, solve
from kernelsdp.solvers.alm_inner import evaluate
from kernelsdp.solvers.alm_newton import _Newton, newton
from kernelsdp.solvers.alm_problem import ScaledNPKL
from kernelsdp.solvers.alm_tail import TAIL_FROM, fw_lower_bound, in_tail, stop_rule
from kernelsdp.solvers.low_rank_alm import LOCALISED


def _state():
    """60 wine points, hinge, double; multipliers in the box, a point on the sphere of
    [V; σ] with ‖V‖_F = 0.9."""
    prob = ScaledNPKL(uci_trace_npkl("wine", 60, "hinge"), np.float64)
    beta = -np.random.default_rng(5).uniform(0.0, prob.C, prob.m) * prob.t
    V = np.random.default_rng(6).standard_normal((prob.n, 4))
    V *= 0.9 / np.linalg.norm(V)
    Z = np.vstack([V, np.zeros((1, 4))])
    Z[-1, 0] = np.sqrt(1 - 0.81)
    return prob, beta, 2.0, _Newton(prob, beta, 2.0).at(Z)


def test_the_lower_bound_is_below_the_fw_gap_and_exact_at_the_bottom():
    prob, beta, rho, x = _state()
    M = prob.dual_matrix(x.bt).toarray()
    lam, E = np.linalg.eigh(M)
    vgv = float(np.sum(x.X * (M @ x.X)))
    fw = prob.a * (vgv - min(lam[0], 0.0))  # the FW gap with the exact λ_min
    assert lam[0] < 0  # the bound's min(·, 0) is not what makes it hold
    rng = np.random.default_rng(7)
    for v in [E[:, 1], E[:, 5], rng.standard_normal(prob.n)]:
        lb, _ = fw_lower_bound(prob, x, v / np.linalg.norm(v))
        assert lb < fw - 1e-9 * abs(fw)
    lb, fy = fw_lower_bound(prob, x, E[:, 0])
    assert np.isclose(lb, fw, rtol=1e-10)
    assert lam[-1] > 0  # above 0 the vertex bounds nothing: min(·, 0) keeps a·⟨V, MV⟩
    assert np.isclose(fw_lower_bound(prob, x, E[:, -1])[0], prob.a * vgv, rtol=1e-10)
    assert np.isclose(fy, prob.fenchel_young(x.w, x.bt) / prob.scale, rtol=1e-12)
    assert fy > 0


def test_the_stop_rule_compares_the_bound_with_a_share_of_fy(monkeypatch):
    prob, beta, rho, x = _state()
    _, E = np.linalg.eigh(prob.dual_matrix(x.bt).toarray())
    fw, fy = fw_lower_bound(prob, x, E[:, 0])
    counts: dict = {}
    monkeypatch.setattr(alm_tail, "TAIL_SHARE", fw / fy * 1.001)
    assert stop_rule(prob, E[:, 0], counts)(None, x, 1)
    monkeypatch.setattr(alm_tail, "TAIL_SHARE", fw / fy * 0.999)
    assert not stop_rule(prob, E[:, 0], counts)(None, x, 1)
    assert counts == {"products": 2, "stopped": 1}


def test_the_stop_hook_ends_the_round_and_changes_nothing_when_absent():
    prob, beta, rho, x = _state()
    pt = evaluate(prob, x.X.copy(), beta, rho)
    plain = newton(prob, pt, beta, rho, 0.2, 4, 0.0)
    same = newton(prob, pt, beta, rho, 0.2, 4, 0.0, stop=lambda nt, x, steps: False)
    np.testing.assert_array_equal(plain[0].X, same[0].X)
    assert plain[2] == same[2] and plain[2]["steps"] == 4
    asked = []
    one = newton(prob, pt, beta, rho, 0.2, 4, 0.0, stop=lambda nt, x, s: asked.append(s) or True)
    assert one[2]["steps"] == 1 and asked == [1]  # asked before the second step only
    assert one[0].value < pt.value
    deep = newton(prob, pt, beta, rho, 0.2, 1, 0.0, cg_max=2)
    assert deep[2]["hessians"] <= 2 < plain[2]["hessians"]


def test_tail_rounds_follow_spread_checks_in_the_tail_only():
    assert in_tail(False, TAIL_FROM) and in_tail(False, 1e-4)
    assert not in_tail(False, 2 * TAIL_FROM)
    assert not in_tail(True, 1e-4)  # a hub's pocket


@pytest.fixture(scope="module")
def instance():
    # at 600 points a spread vertex is carried by fewer than LOCALISED nodes: no tail there
    return load_benchmark("npkl_scale").instance(1500)


def _first_tail_check(history) -> int:
    """The index of the first check after which a tail round may come."""
    checks = [h for h in history if "fw_gap" in h]
    for k, h in enumerate(checks):
        pocket = h["vertex_participation"] < LOCALISED and h["lambda"] < 0
        if h["estimated_gap"] <= TAIL_FROM and not pocket:
            return k
    raise AssertionError("no check in the tail")


def test_a_run_with_tail_rounds_certifies_and_meets_the_plain_interval(instance):
    plain = solve(instance, "low-rank-alm")
    r = solve(instance, "low-rank-alm", tail_rounds=True)
    assert plain.info["tail_rounds"] == 0
    assert r.info["tail_rounds"] > 0 and r.info["tail_stopped"] > 0
    # the same path, float for float, up to the first check in the tail; then another
    keys = ("products", "estimated_gap", "rank", "eig_products")
    k = _first_tail_check(plain.history)
    assert k == _first_tail_check(r.history)
    mine = [[h[key] for key in keys] for h in r.history if "fw_gap" in h]
    its = [[h[key] for key in keys] for h in plain.history if "fw_gap" in h]
    assert mine[: k + 1] == its[: k + 1]
    assert mine[k + 1][0] != its[k + 1][0]
    assert r.info["products"] != plain.info["products"]
    assert r.info["certificate"].lower_label == "proof"
    assert r.info["relative_gap"] <= 1e-3
    assert r.lower_bound <= plain.upper_bound and plain.lower_bound <= r.upper_bound


def test_the_option_is_checked_and_the_benchmark_names_it():
    with pytest.raises(InvalidParameterError):
        solve(uci_trace_npkl("wine", 30, "hinge"), "low-rank-alm", tail_rounds="yes")
    assert load_benchmark("npkl_scale")._variant_options("tail") == {"tail_rounds": True}


def test_the_rule_s_products_are_counted_with_the_eigensolver_s(instance, monkeypatch):
    real, asked = alm_outer.stop_rule, []

    def uncounted(prob, vertex, counts):
        stop = real(prob, vertex, {})  # the same decisions, its products not passed on

        def ask(nt, x, steps):
            asked.append(steps)
            return stop(nt, x, steps)

        return ask

    counted = solve(instance, "low-rank-alm", tail_rounds=True)
    monkeypatch.setattr(alm_outer, "stop_rule", uncounted)
    r = solve(instance, "low-rank-alm", tail_rounds=True)
    assert r.info["products"] == counted.info["products"] and asked  # the same path
    assert counted.info["eig_products"] - r.info["eig_products"] == len(asked)
