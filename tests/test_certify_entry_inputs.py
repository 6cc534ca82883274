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
from kernelsdp.errors import InvalidDataError


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
    a, b, c = cp.Variable(2), cp.Variable(2), cp.Variable(2)
    cons = [cp.PowCone3D(a, b, c, [0.3, 0.6]), a <= 1, b <= np.array([2.0, 3.0])]
    yield "pow", cp.Problem(cp.Maximize(cp.sum(c)), cons)


@pytest.mark.parametrize("name,problem", list(_multi_part_problems()))
def test_certify_solved_multi_part_duals_match_own_solve(name, problem):
    """certify(problem) on a model solved by the user reads an SOC's [t, X] (axis 0 and 1,
    several cones) and an ExpCone's or PowCone3D's three parts into the canonical rows: the
    same y, and so the same certificate, as kernelsdp's own solve of that problem."""
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


# ----- an objective scaled by 2^900 -------------------------------------------------------
def _theta_c5(t: float):
    X = cp.Variable((5, 5), symmetric=True)
    cons = [cp.trace(X) == 1, X >> 0] + [X[i, (i + 1) % 5] == 0 for i in range(5)]
    return cp.Problem(cp.Maximize(t * cp.sum(X)), cons), X


def test_certify_objective_times_2_to_900_no_overflow():
    """θ(C₅) with its objective × 2⁹⁰⁰ and the unscaled solution's duals × 2⁹⁰⁰ (the same KKT
    point): the scaled correction's metric once squared 1e4·max|y| as a Python float
    (OverflowError).  Now a certificate, and a proof only around √5·2⁹⁰⁰."""
    from kernelsdp.certificate.correction import _scaled_columns

    p, X = _theta_c5(1.0)
    p.solve(solver="CLARABEL")
    t = 2.0**900
    q, Y = _theta_c5(t)
    Y.value = X.value
    for c, d in zip(q.constraints, p.constraints):
        c.save_dual_value(t * d.dual_value)
    q._status = cp.OPTIMAL
    with np.errstate(over="ignore", invalid="ignore"):  # reported measures may overflow
        cert = kernelsdp.certify(q)
    truth = np.sqrt(5.0) * t
    ref = kernelsdp.certify(p)  # the same KKT point unscaled: the same verdict and labels
    assert cert.verdict == ref.verdict and cert.lower_label == ref.lower_label == "proof"
    assert cert.upper_label == ref.upper_label == "proof"
    assert cert.lower == pytest.approx(ref.lower * t, rel=1e-9)
    assert cert.upper == pytest.approx(ref.upper * t, rel=1e-9)
    for end, label in ((cert.lower, cert.lower_label), (cert.upper, cert.upper_label)):
        assert label != "proof" or np.isfinite(end)
    if cert.lower_label == "proof":
        assert cert.lower <= truth * (1 + 1e-12)
    if cert.upper_label == "proof":
        assert cert.upper >= truth * (1 - 1e-12)
    # the metric is taken up to a power of two: y and y·2⁹⁰⁰ give the same bits
    form = solved_canonical(p).form
    y = solved_canonical(p).y
    np.testing.assert_array_equal(_scaled_columns(form, y * t), _scaled_columns(form, y))


# ----- NaN and inf in the point given ------------------------------------------------------
def _small_sdp():
    X = cp.Variable((3, 3), symmetric=True, name="X")
    p = cp.Problem(cp.Minimize(cp.trace(X)), [X >> 0, X[0, 0] == 1])
    p.solve(solver="CLARABEL")
    return p, X


@pytest.mark.parametrize("what", ["nan value", "inf dual", "nan soc dual"])
def test_certify_solved_refuses_non_finite_values(what):
    """NaN or inf in a variable's value or a constraint's dual: one typed line naming it
    (it was numpy's LinAlgError "Eigenvalues did not converge")."""
    if what == "nan soc dual":
        x = cp.Variable(2)
        p = cp.Problem(cp.Minimize(np.array([3.0, 4.0]) @ x), [cp.SOC(cp.Constant(2.0), x)])
        p.solve(solver="CLARABEL")
        p.constraints[0].dual_variables[1].save_value(np.array([[np.nan], [1.0]]))
        match = r"dual value of constraint #0 \(SOC\) has 1 of 2 entries not finite \(NaN\)"
    else:
        p, X = _small_sdp()
        if what == "nan value":
            X.save_value(np.full((3, 3), np.nan))
            match = r"value of the variable X has 9 of 9 entries not finite \(NaN\)"
        else:
            p.constraints[0].save_dual_value(np.full((3, 3), np.inf))
            match = r"dual value of constraint #0 \(PSD\) has 9 of 9 entries not finite \(inf\)"
    with pytest.raises(InvalidDataError, match=match) as err:
        kernelsdp.certify(p)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("what", ["x", "y", "s"])
def test_certify_conic_refuses_non_finite_vectors(what):
    p, _ = _small_sdp()
    data, chain, _ = p.get_problem_data("CLARABEL")
    raw = chain.solve_via_data(p, data, False, False, {})
    v = {"x": raw.x.copy(), "y": raw.z.copy(), "s": raw.s.copy()}
    v[what][1] = -np.inf
    with pytest.raises(InvalidDataError, match=rf"certify_conic: {what} has 1 of"):
        kernelsdp.certify_conic(data, v["x"], v["y"], v["s"], solver="CLARABEL")
    # the same vectors as lists of floats, finite: certified
    cert = kernelsdp.certify_conic(data, list(raw.x), list(raw.z), solver="CLARABEL")
    assert cert.passed


def test_certify_conic_sdpa_refuses_a_non_finite_block():
    from test_external_solvers import LP, LP_SDPA

    from kernelsdp.data.sdpa_solution import parse_sdpa_output

    sol = parse_sdpa_output(LP_SDPA, LP)
    Y = [np.array(b, dtype=float) for b in sol.Y]
    Y[-1].flat[0] = np.nan
    with pytest.raises(InvalidDataError, match=r"y's block \d+ has 1 of"):
        kernelsdp.certify_conic(LP, sol.x, Y, sol.slack)


# ----- mixed-integer problems ----------------------------------------------------------------
MIP_SOURCE = """import cvxpy as cp
def problem():
    z = cp.Variable(integer=True, name="z")
    b = cp.Variable(2, boolean=True, name="b")
    return cp.Problem(cp.Minimize(z + cp.sum(b)), [z >= 0.5, b[0] + b[1] >= 1])
"""


def _mip():
    namespace = {}
    exec(MIP_SOURCE, namespace)
    return namespace["problem"]()


def test_certify_refuses_a_mixed_integer_problem():
    """A MIP solved by HiGHS: certify(problem) was CVXPY's SolverError from building the
    conic form; certify_conic on its data certified the relaxation's point — an upper end
    "proven" from a point that need not be integral.  Both now refuse, one typed line."""
    from kernelsdp.errors import UnsupportedProblemError

    p = _mip()
    if "HIGHS" in cp.installed_solvers():
        p.solve(solver="HIGHS")
    with pytest.raises(UnsupportedProblemError, match=r"integer or boolean variables \(z, b\)"):
        kernelsdp.certify(p)
    data = p.get_problem_data("HIGHS" if "HIGHS" in cp.installed_solvers() else "SCIPY")[0]
    ones = (np.ones(data["c"].size), np.ones(data["b"].size))
    with pytest.raises(UnsupportedProblemError, match="integer or boolean"):
        kernelsdp.certify_conic(data, *ones, solver="CLARABEL")


def test_cli_certify_refuses_a_mixed_integer_file(capsys, tmp_path):
    from kernelsdp.cli import main

    (tmp_path / "mip.py").write_text(MIP_SOURCE)
    code = main(["certify", str(tmp_path / "mip.py"), "--allow-python"])
    _, err = capsys.readouterr()
    assert code == 2 and "no conic certificate" in err and err.count("\n") == 1


# ----- problems solved as infeasible or unbounded --------------------------------------------
@pytest.mark.parametrize("sense", [cp.Minimize, cp.Maximize])
def test_certify_solved_infeasible_checks_the_farkas_ray_cvxpy_keeps(sense):
    """Solved as infeasible, a problem has no values but CVXPY keeps the solver's Farkas ray
    in the constraints' duals: certify(problem) checks it (it said "no values yet — solve it
    first", after a solve)."""
    x = cp.Variable(2)
    p = cp.Problem(sense(cp.sum(x)), [x >= 1, cp.sum(x) <= 1])
    p.solve(solver="CLARABEL")
    assert p.status == cp.INFEASIBLE
    assert kernelsdp.certify(p).verdict == "certified infeasibility"
    p.constraints[0].save_dual_value(np.array([1.0, -1.0]))  # not a ray: not certified
    assert not kernelsdp.certify(p).passed


def test_certify_solved_unbounded_or_unsolved_says_what_can_certify_it():
    x = cp.Variable(2, name="x")
    p = cp.Problem(cp.Minimize(cp.sum(x)), [x <= 1])
    with pytest.raises(InvalidDataError, match="has not been solved"):
        kernelsdp.certify(p)
    p.solve(solver="CLARABEL")
    cert = kernelsdp.certify(p)
    assert not cert.passed and cert.verdict == "no point"
    assert "solved as unbounded" in cert.note and "verify(problem" in cert.note
    assert "certify_conic(data, ray, None" in cert.note


# ----- certify_conic on a Maximize's data without problem= -----------------------------------
def test_certify_conic_without_problem_says_it_is_the_canonical_minimisation():
    """θ(C₅) is a Maximize; its conic data are the minimisation of −f.  Without problem=
    the interval is −f's — and the note now says so; with problem= it is mapped back."""
    from kernelsdp.certificate.external import CANONICAL_SENSE_NOTE

    p, _ = _theta_c5(1.0)
    data, chain, _ = p.get_problem_data("CLARABEL")
    raw = chain.solve_via_data(p, data, False, False, {})
    theta = np.sqrt(5.0)
    mapped = kernelsdp.certify_conic(data, raw.x, raw.z, solver="CLARABEL", problem=p)
    assert mapped.rigorous and mapped.lower <= theta <= mapped.upper
    assert CANONICAL_SENSE_NOTE not in mapped.note
    canonical = kernelsdp.certify_conic(data, raw.x, raw.z, solver="CLARABEL")
    assert canonical.rigorous and canonical.lower <= -theta <= canonical.upper
    assert CANONICAL_SENSE_NOTE in canonical.note and "−objective" in canonical.note


@pytest.mark.parametrize("solver", ["CLARABEL", "SCS"])
def test_the_canonical_form_s_own_variables_are_filled_from_their_rows(solver):
    """sum_squares and quad_form of an expression add a variable t = expr and its equality
    rows, with no user value or dual: t is read off those rows, their multipliers off
    stationarity, and the point proven as any other (optimum 25/3)."""
    a = np.array([1.0, 2.0, 4.0])
    for objective in (
        lambda x: cp.sum_squares(2 * x - a),
        lambda x: cp.quad_form(2 * x, np.eye(3)) - 4 * a @ x + a @ a,
    ):
        x = cp.Variable(3)
        p = cp.Problem(cp.Minimize(objective(x)), [cp.sum(x) == 1])
        p.solve(solver=solver)
        c = kernelsdp.certify(p)
        assert c.lower_label == "proof" and c.upper_label == "proof"
        assert c.lower <= 25 / 3 <= c.upper


@pytest.mark.parametrize("solver", ["CLARABEL", "SCS"])
def test_a_norm_s_epigraph_is_filled_at_its_least_value(solver):
    """min ‖2x − a‖ s.t. Σx = 1 (optimum √(25/3)): the t CVXPY adds heads one second-order
    cone and nothing else — t = ‖2x − a‖, and the cone's multipliers from stationarity."""
    a = np.array([1.0, 2.0, 4.0])
    x = cp.Variable(3)
    p = cp.Problem(cp.Minimize(cp.norm(2 * x - a)), [cp.sum(x) == 1])
    p.solve(solver=solver)
    c = kernelsdp.certify(p)
    assert c.lower_label == "proof" and c.upper_label == "proof"
    assert c.lower <= np.sqrt(25 / 3) <= c.upper


def test_an_epigraph_no_rule_determines_is_still_refused():
    """max's epigraph t ≥ 2xᵢ − aᵢ sits in ℝ₊ rows: not filled, refused in one line."""
    from kernelsdp.errors import UnsupportedProblemError

    x = cp.Variable(3)
    p = cp.Problem(cp.Minimize(cp.max(2 * x - np.array([1.0, 2.0, 4.0]))), [cp.sum(x) == 1])
    p.solve(solver="CLARABEL")
    with pytest.raises(UnsupportedProblemError, match="do not determine"):
        kernelsdp.certify(p)
