"""benchmarks/npkl_rank_need.py (issue #30, twentieth pass): the factor is rotated without
changing K, the truncation curve ends at no excess and falls to it, the ε-ranks are read off
it, the fit recovers a known exponent, and one small size's row is consistent."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import load_benchmark


@pytest.fixture(scope="module")
def need():
    return load_benchmark("npkl_rank_need")


def test_the_ordered_factor_is_the_same_kernel_with_its_eigenvalues_largest_first(need):
    U = np.random.default_rng(0).standard_normal((40, 5)) * [3.0, 1.0, 0.1, 2.0, 0.5]
    Us, eigs = need.ordered_factor(U)
    np.testing.assert_allclose(Us @ Us.T, U @ U.T, atol=1e-10)
    np.testing.assert_allclose(eigs, np.linalg.eigvalsh(U @ U.T)[::-1][:5], rtol=1e-10)
    norms = np.sum(Us**2, axis=0)
    assert np.all(np.diff(norms) <= 1e-12) and np.allclose(norms, eigs)


def test_the_numerical_rank_counts_eigenvalues_above_the_relative_tolerance(need):
    tol = need.RANK_RTOL
    assert need.numerical_rank(np.array([1.0, 0.5, 2 * tol, 0.5 * tol, 0.0])) == 3
    assert need.numerical_rank(np.array([])) == 0


def test_the_epsilon_ranks_are_the_first_widths_at_or_below_each_excess(need):
    curve = [(1, 0.5), (2, 2e-2), (3, 1e-2), (4, 5e-4), (5, 2e-4), (6, 0.0)]
    assert need.epsilon_ranks(curve) == {"0.01": 3, "0.001": 4, "0.0001": 6}
    assert need.epsilon_ranks([(1, 0.5)]) == {"0.01": None, "0.001": None, "0.0001": None}


def test_the_power_fit_recovers_a_known_exponent(need):
    ns = [3000, 20000, 100000]
    a, b = need.power_fit(ns, [0.3 * n**0.5 for n in ns])
    assert b == pytest.approx(0.5, abs=1e-9)
    assert np.exp(a) * 1e6**b == pytest.approx(300, rel=1e-9)


def test_one_small_size_is_certified_and_its_full_width_has_no_excess(need):
    row = need.measure(need.instance(400), 1e-3, [], 0)
    assert row["status"] == "optimal" and row["certified_gap"] <= 1e-3
    assert 1 <= row["rank"] <= row["width"]
    excess = list(row["excess_at"].values())
    assert abs(excess[-1]) <= 1e-9  # U itself: P(U_k) at k = width is P
    ranks = [k for k in row["truncation_eps_rank"].values() if k is not None]
    assert ranks == sorted(ranks) and all(k <= row["width"] for k in ranks)


def test_the_prediction_is_printed_and_labelled_an_estimate(need, monkeypatch, capsys):
    argv = ["npkl_rank_need.py", "--n", "600", "300", "--predict", "2000"]
    monkeypatch.setattr("sys.argv", argv)
    assert need.main() == 0
    out = capsys.readouterr().out.splitlines()
    sizes = [ln.split(":")[0].split() for ln in out if ln.startswith("n =")]
    assert sizes == [["n", "=", "300"], ["n", "=", "600"]]  # smallest first: the fit's last
    last = out[-1]
    assert last.startswith("extrapolated to n = 2,000") and last.endswith("not measurements")
