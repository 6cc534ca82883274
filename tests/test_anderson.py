"""Anderson mixing (kernelsdp.linalg.anderson): a float32 history must not limit accuracy."""

import numpy as np
import pytest

from kernelsdp.linalg import anderson
from kernelsdp.linalg.anderson import Anderson

#: the fixed-point residual asked, relative to the fixed point: four orders of magnitude
#: below float32's rounding, reachable only if each stored difference keeps its own digits
FIXED_POINT_RTOL = 1e-11


def _iterations_to_tolerance(history_dtype, max_iter=600) -> int | None:
    """g(v) = d∘v + b with d in [0, 0.99): plain iteration needs about 2,500 steps; the
    state spans three and a bit mixing blocks (shrunk to 1,000 entries to keep it fast),
    so the block boundaries are exercised."""
    rng = np.random.default_rng(0)
    size = 3 * anderson.BLOCK + 17
    d, b = rng.uniform(0.0, 0.99, size), rng.standard_normal(size)
    target = np.linalg.norm(b / (1 - d))
    accel = Anderson(5, size, np.float64, history_dtype)
    v, g = np.zeros(size), np.empty(size)
    for it in range(1, max_iter + 1):
        np.multiply(d, v, out=g)
        g += b
        if np.linalg.norm(g - v) <= FIXED_POINT_RTOL * target:
            return it
        v = accel.next_point(v, g)
    return None


@pytest.fixture(scope="module")
def iterations():
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(anderson, "BLOCK", 1000)
        return {dt: _iterations_to_tolerance(dt) for dt in (np.float64, np.float32)}


@pytest.mark.parametrize("history_dtype", [np.float64, np.float32])
def test_history_in_either_precision_reaches_a_double_precision_fixed_point(
    iterations, history_dtype
):
    assert iterations[history_dtype] is not None


def test_a_float32_history_costs_few_extra_iterations(iterations):
    double, single = iterations[np.float64], iterations[np.float32]
    assert double < 400  # mixing works at all (measured 351): plain iteration needs about 2,500
    assert single <= 1.25 * double


def test_a_float32_history_takes_half_the_memory():
    a64, a32 = Anderson(5, 1000, np.float64), Anderson(5, 1000, np.float64, np.float32)
    assert a32.dF.nbytes + a32.dG.nbytes == (a64.dF.nbytes + a64.dG.nbytes) // 2
    assert a32.f.dtype == a32.g_prev.dtype == np.float64  # the residuals stay in the state's
