"""benchmarks/npkl_kink_rows_proto.py (issue #30, twenty-fourth pass): a failing step's
rows are frozen only where its pairs' model error sits, a round without a failing step is
the solver's own, and a round with one retries at the same radius and still lowers φ."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import load_benchmark, scaled_hinge_state

from kernelsdp.solvers import alm_newton
from kernelsdp.solvers.alm_inner import evaluate


@pytest.fixture(scope="module")
def proto():
    return load_benchmark("npkl_kink_rows_proto")


def _state(r: int = 3, scale: float = 0.05):
    return scaled_hinge_state(r, scale)


def _at(prob, beta, rho, V):
    nt = alm_newton._Newton(prob, beta, rho)
    Z = np.vstack([V, np.zeros((1, V.shape[1]))])
    Z[-1, 0] = np.sqrt(max(0.0, 1.0 - np.sum(V * V)))
    return nt, nt.at(Z)


def _hub(prob) -> int:
    return int(np.argmax(np.bincount(np.concatenate([prob.i, prob.j]), minlength=prob.n)))


def _errors(proto, nt, x, known) -> np.ndarray:
    return proto.npkl_step_log.pair_errors(nt, x, known[2])[0]


def _explained(proto, nt, x, known) -> float:
    """A model decrease whose shortfall the pairs' error explains exactly."""
    return (x.value - known[0]) + float(_errors(proto, nt, x, known).sum()) / nt.prob.scale


def test_a_hubs_far_move_freezes_the_hub_and_its_partners(proto):
    prob, beta, rho, V = _state()
    nt, x = _at(prob, beta, rho, V)
    h = _hub(prob)
    Y = V.copy()
    Y[h] *= 40.0  # its pair values move across the hinge's whole band
    known = nt.value(Y)
    hook = proto.KinkRows(k=10)
    rows = hook.rows(nt, x, known, _explained(proto, nt, x, known))
    partners = set(prob.j[prob.i == h]) | set(prob.i[prob.j == h]) | {h}
    assert rows is not None and h in rows
    assert set(rows) <= partners


def test_an_error_spread_over_many_rows_or_unexplained_freezes_nothing(proto):
    prob, beta, rho, V = _state()
    nt, x = _at(prob, beta, rho, V)
    Y = V * 30.0  # every pair moves: the error is spread over every node
    known = nt.value(Y)
    assert proto.KinkRows(k=2).rows(nt, x, known, _explained(proto, nt, x, known)) is None
    h = _hub(prob)
    Y = V.copy()
    Y[h] *= 40.0
    known = nt.value(Y)
    err = float(_errors(proto, nt, x, known).sum()) / prob.scale
    # a shortfall the pairs explain less than half of: some other failure, not the kinks
    model = (x.value - known[0]) + 3.0 * abs(err) + 1.0
    assert proto.KinkRows(k=10).rows(nt, x, known, model) is None


def test_a_round_without_a_failing_step_is_the_solvers_own(proto):
    prob, beta, rho, V = _state()
    pt = evaluate(prob, V, beta, rho)
    args = (prob, pt, beta, rho, 1e-3, 4, 1e-12)  # a small radius: every step passes
    plain, d0, i0 = alm_newton.newton(*args)
    stats: dict = {}
    kink, d1, i1 = proto.newton_kink_rows(*args, k=10, stats=stats)
    assert stats == {} and i0 == i1 and d0 == d1
    np.testing.assert_array_equal(plain.X, kink.X)


def test_a_round_with_failing_steps_retries_and_lowers_phi(proto):
    prob, beta, rho, V = _state(scale=0.15)
    pt = evaluate(prob, V, beta, rho)
    stats: dict = {}
    out, _, info = proto.newton_kink_rows(
        prob, pt, beta, rho, alm_newton.DELTA_MAX, 4, 1e-12, k=10, stats=stats
    )
    assert out.value <= pt.value and info["steps"] > 0
    assert stats.get("retries", 0) + stats.get("declined", 0) > 0
    assert stats.get("retries", 0) <= proto.RETRIES


def test_kinkradius_cuts_the_rows_radius_and_relaxes_it_round_by_round(proto):
    """``kinkradius-k``: a failing step's rows get the weight CUT (their radius a quarter),
    carried to the next round through ``memory``, and each round's start relaxes every
    weight by RELAX until it is 1 again and the round is the solver's own."""
    prob, beta, rho, V = _state()
    nt, x = _at(prob, beta, rho, V)
    h = _hub(prob)
    Y = V.copy()
    Y[h] *= 40.0
    known = nt.value(Y)
    memory: dict = {}
    hook = proto.KinkRows(10, None, memory, proto.CUT)
    assert hook.retry(nt, x, known, _explained(proto, nt, x, known))
    assert memory["weights"][h, 0] == pytest.approx(proto.CUT)
    assert memory["weights"][-1, 0] == 1.0  # the slack row is never cut
    relaxed = proto.KinkRows(10, None, memory, proto.CUT).weights
    assert relaxed[h, 0] == pytest.approx(proto.CUT * proto.RELAX)
    assert proto.KinkRows(10, None, memory, proto.CUT).weights is None  # back at 1
    assert memory["weights"] is None
