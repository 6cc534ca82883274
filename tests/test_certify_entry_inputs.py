"""The certificate's entry layer under user input that once crashed (the adversarial run of
benchmarks/certificate_adversary.py): every case ends in a certificate or in one typed
KernelSDPError, never in a bare numpy/CVXPY traceback, and never in a false "certified"."""

import cvxpy as cp
import numpy as np
import pytest

import kernelsdp
from kernelsdp.certificate import conic_certificate
from kernelsdp.certificate.canonical import solve_canonical
from kernelsdp.certificate.solved_problem import solved_canonical


# ----- cones whose CVXPY dual is a list of parts ------------------------------------------
def _multi_part_problems():
    x = cp.Variable(2)
    yield "soc", cp.Problem(cp.Minimize(np.array([3.0, 4.0]) @ x), [cp.SOC(cp.Constant(2.0), x)])
    X, t = cp.Variable((3, 2)), cp.Variable(2)
    obj = cp.sum(t) - cp.sum(X[0]) - 2 * cp.sum(X[1]) + cp.sum(X[2])
    yield "soc_axis0", cp.Problem(cp.Minimize(obj), [cp.SOC(t, X, axis=0), t <= 3])
    X, t = cp.Variable((2, 3)), cp.Variable(2)
    obj = cp.sum(t) - cp.sum(X[:, 0]) - 2 * cp.sum(X[:, 1]) + 3 * cp.sum(X[:, 2])
    yield "soc_axis1", cp.Problem(cp.Minimize(obj), [cp.SOC(t, X, axis=1), t <= 3])
    x, s = cp.Variable(3), cp.Variable()
    cons = [cp.SOC(s, x), cp.SOC(cp.Constant(1.0), x[1:] - 1), x[0] >= -5]
    yield "soc_two", cp.Problem(cp.Minimize(s + x[0]), cons)
    u, v = cp.Variable(), cp.Variable()
    yield "soc_scalar", cp.Problem(cp.Maximize(u - 0.5 * v), [cp.SOC(v, u), v <= 2])
    a, b, c = cp.Variable(2), cp.Variable(2), cp.Variable(2)
    cons = [cp.ExpCone(a, b, c), b == np.array([1.0, 2.0]), a >= np.array([0.5, -1.0])]
    yield "exp", cp.Problem(cp.Minimize(cp.sum(c) + a[0]), cons)


@pytest.mark.parametrize("name,problem", list(_multi_part_problems()))
def test_certify_solved_multi_part_duals_match_own_solve(name, problem):
    """certify(problem) on a model solved by the user reads an SOC's [t, X] (axis 0 and 1,
    several cones) and an ExpCone's three parts into the canonical rows: the same y, and so
    the same certificate, as kernelsdp's own solve of that problem."""
    own = solve_canonical(problem, "CLARABEL")  # the user's variables get its values too
    read = solved_canonical(problem)
    assert read.y is not None
    np.testing.assert_allclose(read.y, own.y, rtol=1e-12, atol=1e-12)
    mine = kernelsdp.certify(problem)
    ref = conic_certificate(own, mine.tol, resolve=False)
    assert mine.verdict == ref.verdict, name
    if name.startswith("soc"):
        assert mine.verdict == "certified optimality", name
        assert mine.lower <= problem.value <= mine.upper
    assert (mine.lower_label, mine.upper_label) == (ref.lower_label, ref.upper_label)
    assert mine.lower == pytest.approx(ref.lower, rel=1e-12, abs=1e-12)
    assert mine.upper == pytest.approx(ref.upper, rel=1e-12, abs=1e-12)


def test_certify_solved_soc_after_users_own_solve():
    """The reproducer: an SOCP the user solved with problem.solve — certified, the optimum
    −10 inside the interval."""
    x = cp.Variable(2)
    p = cp.Problem(cp.Minimize(np.array([3.0, 4.0]) @ x), [cp.SOC(cp.Constant(2.0), x)])
    p.solve(solver="CLARABEL")
    c = kernelsdp.certify(p)
    assert c.passed and c.lower <= -10.0 <= c.upper
