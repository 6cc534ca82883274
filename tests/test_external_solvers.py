"""Certifying answers kernelsdp did not compute (issue #26 §3): CSDP's and SDPA's solution
files, raw conic vectors (certify_conic), and CSDP and SDPA run as solvers.  The readers,
the sign mapping (checked against Clarabel) and the SDPA writer are tested on small files
written here; the runs of the programs are skipped where they are not installed."""

import json
import shutil

import cvxpy as cp
import networkx as nx
import numpy as np
import pytest

from kernelsdp.certificate import conic_certificate
from kernelsdp.certificate.canonical import solve_canonical
from kernelsdp.certificate.external import (
    canonical_of,
    certify_conic,
    certify_sdpa_solution,
    sdpa_layout,
)
from kernelsdp.certificate.sdpa_layout import sdpa_of_form
from kernelsdp.cli import main
from kernelsdp.data import sdp_instances as S
from kernelsdp.data.sdpa import parse_sdpa
from kernelsdp.data.sdpa_solution import (
    detect_format,
    parse_csdp_solution,
    parse_sdpa_output,
    read_solution,
)
from kernelsdp.errors import InvalidDataError, UnsupportedProblemError
from kernelsdp.result import Termination
from kernelsdp.solvers.external_sdp import ExternalSDPSolver, _run_killable

CSDP = shutil.which("csdp") is not None
SDPA = shutil.which("sdpa") is not None
needs_csdp = pytest.mark.skipif(not CSDP, reason="csdp not installed (apt-get install coinor-csdp)")
needs_sdpa = pytest.mark.skipif(not SDPA, reason="sdpa not installed (apt-get install sdpa)")

# min x1 + x2 s.t. [[x1, 1], [1, x2]] ⪰ 0, x1 ≥ 1, x2 ≥ 2: x = (1, 2), and — the matrix
# being positive definite there — the dual Y = 0 on the matrix block, (1, 1) on the diagonal
LP = parse_sdpa(S.LP_BLOCK_SDPA, "lp.dat-s")
LP_CSDP = """1.0 2.0
1 1 1 1 1.0
1 1 1 2 1.0
1 1 2 2 2.0
2 2 1 1 1.0
2 2 2 2 1.0
"""
LP_SDPA = """SDPA start
phase.value  = pdOPT
objValPrimal = +3.00000000000000000e+00
objValDual   = +3.00000000000000000e+00
xVec =
{+1.00000000000000000e+00,+2.00000000000000000e+00}
xMat =
{
{ {+1.00000000000000000e+00,+1.00000000000000000e+00 },
  {+1.00000000000000000e+00,+2.00000000000000000e+00 }   }
{+0.00000000000000000e+00,+0.00000000000000000e+00}
}
yMat =
{
{ {+0.00000000000000000e+00,+0.00000000000000000e+00 },
  {+0.00000000000000000e+00,+0.00000000000000000e+00 }   }
{+1.00000000000000000e+00,+1.00000000000000000e+00}
}
    main loop time = 0.001
"""


def mapping_ok(cert, tol: float = 1e-6) -> bool:
    """The point and multipliers fit the canonical form: feasibility, stationarity, dual
    cones and the gap within tol (a wrong sign or scale of the mapping fails one of them;
    the interval's proofs are the certificate layer's)."""
    m = cert.measures
    return cert.kind == "optimality" and all(
        abs(m[k]) <= tol
        for k in ("primal_equalities", "primal_cones", "stationarity", "dual_cones", "duality_gap")
    )


# ----- readers ---------------------------------------------------------------------------
def test_csdp_and_sdpa_files_read_the_same_answer():
    a = parse_csdp_solution(LP_CSDP, LP, "lp.sol")
    b = parse_sdpa_output(LP_SDPA, LP, "lp.out")
    assert a.status is None and b.status == cp.OPTIMAL and b.objectives == (3.0, 3.0)
    assert b.digits is None and a.finite and b.finite
    for u, v in zip(a.x, b.x):
        assert u == v
    for P, Q in zip(a.Y + a.slack, b.Y + b.slack):
        P = P.toarray() if hasattr(P, "toarray") else P
        assert np.array_equal(P, Q)
    assert np.array_equal(a.slack[0].toarray(), [[1, 1], [1, 2]])  # the mirrored (2, 1)


@pytest.mark.parametrize(
    "text",
    [
        LP_CSDP,
        LP_CSDP.replace("\n", "\r\n"),
        "\n\n" + LP_CSDP.replace("1 1 1 2 1.0", "1 1 2 1 +1.0e0") + "\n\n",
        LP_CSDP.rstrip("\n"),
    ],
)
def test_csdps_own_files_take_the_array_reader_and_read_as_the_strict_one(text, monkeypatch):
    import kernelsdp.data.sdpa_solution as reader

    taken = []
    fast = reader._csdp_entries_fast
    monkeypatch.setattr(
        reader, "_csdp_entries_fast", lambda b, p: taken.append(fast(b, p)) or taken[-1]
    )
    a = parse_csdp_solution(text, LP, "lp.sol")
    assert taken and taken[-1] is not None  # CSDP's own layout is read as arrays
    monkeypatch.setattr(reader, "_csdp_entries_fast", lambda b, p: None)
    b = parse_csdp_solution(text, LP, "lp.sol")
    assert np.array_equal(a.x, b.x)
    for P, Q in zip(a.Y + a.slack, b.Y + b.slack):
        P, Q = (M.toarray() if hasattr(M, "toarray") else M for M in (P, Q))
        assert np.array_equal(P, Q)


def test_csdp_exit_codes_and_sdpa_phases_are_statuses():
    assert parse_csdp_solution(LP_CSDP, LP, "lp.sol", exit_code=1).status == cp.UNBOUNDED
    assert parse_csdp_solution(LP_CSDP, LP, "lp.sol", exit_code=2).status == cp.INFEASIBLE
    assert parse_csdp_solution(LP_CSDP, LP, "lp.sol", exit_code=7).status == cp.SOLVER_ERROR
    for phase, status in [
        ("dUNBD", cp.INFEASIBLE),
        ("pUNBD", cp.UNBOUNDED),
        ("pdFEAS", cp.OPTIMAL_INACCURATE),
        ("noINFO", cp.USER_LIMIT),
    ]:
        assert parse_sdpa_output(LP_SDPA.replace("pdOPT", phase), LP).status == status


def test_sdpa_default_print_precision_is_reported():
    short = LP_SDPA.replace("+1.00000000000000000e+00", "+1.000e+00")
    assert parse_sdpa_output(short, LP).digits == 4


@pytest.mark.parametrize(
    "text, where",
    [
        ("1.0\n", "expected the 2 entries of y"),
        ("1.0 2.0 3.0\n", "expected the 2 entries of y"),
        ("1.0 x\n", "expected the 2 entries of y"),
        ("1.0 2.0\n3 1 1 1 1.0\n", "line 2: matrix 3"),
        ("1.0 2.0\n1 3 1 1 1.0\n", "block 3 out of range"),
        ("1.0 2.0\n1 2 1 2 1.0\n", "outside block 2 \\(diagonal"),
        ("1.0 2.0\n1 1 1 3 1.0\n", "outside block 1"),
        ("1.0 2.0\n1 1 1 1 1.0\n1 1 1 1 2.0\n", "line 3: entry \\(1, 1, 1, 1\\) was already"),
        ("1.0 2.0\n1 1 1 2 1.0\n1 1 2 1 2.0\n", "line 3: entry \\(1, 1, 1, 2\\) was already"),
        ("1.0 2.0\n1 1 1 1\n", "line 2: expected the 5 numbers"),
        ("1.0 2.0\n1 1 1 1 1_0\n", "'1_0' is not a number"),
        ("1.0 2.0\n1 1 1.5 1 1\n", "an index must be an integer"),
        ("", "empty"),
    ],
)
def test_malformed_csdp_files_are_one_line(text, where):
    with pytest.raises(InvalidDataError, match=where) as info:
        parse_csdp_solution(text, LP, "bad.sol")
    assert "\n" not in str(info.value) and str(info.value).startswith("bad.sol")


@pytest.mark.parametrize(
    "change, where",
    [
        (("phase.value  = pdOPT\n", ""), "no 'phase.value ='"),
        (("yMat =", "zMat ="), "no 'yMat ='"),
        (("{+1.00000000000000000e+00,+2.00000000000000000e+00}", "{+1.0e+00}"), "xVec has 1"),
        (
            ("{+1.00000000000000000e+00,+1.00000000000000000e+00}\n}", "{+1.0,+1.0}\n{1}\n}"),
            "yMat has 3 blocks",
        ),
        (("  {+1.00000000000000000e+00,+2.00000000000000000e+00 }", "  {+1.0}"), "row 2 has 1"),
        (("{+1.00000000000000000e+00,+1.00000000000000000e+00}\n}", "{+1.0,+1.0}\n"), "a '}' is"),
        (("{+0.00000000000000000e+00,+0.00000000000000000e+00}\n}", "{0x1,0}\n}"), "'0x1'"),
    ],
)
def test_malformed_sdpa_outputs_are_one_line(change, where):
    text = LP_SDPA.replace(*change)
    assert text != LP_SDPA
    with pytest.raises(InvalidDataError, match=where) as info:
        parse_sdpa_output(text, LP, "bad.out")
    assert "\n" not in str(info.value)


def test_non_finite_points_are_read_and_give_no_point():
    sol = parse_csdp_solution(LP_CSDP.replace("1.0 2.0", "nan -nan"), LP)
    assert not sol.finite
    cert, _ = certify_sdpa_solution(LP, sol)
    assert cert.kind == "no point" and not cert.passed


def test_format_is_detected(tmp_path):
    (tmp_path / "a.sol").write_text(LP_CSDP)
    (tmp_path / "b.out").write_text(LP_SDPA)
    assert detect_format(str(tmp_path / "a.sol")) == "csdp"
    assert detect_format(str(tmp_path / "b.out")) == "sdpa"
    assert read_solution(str(tmp_path / "b.out"), LP).fmt == "sdpa"
    with pytest.raises(InvalidDataError, match="no such file|cannot be read"):
        read_solution(str(tmp_path / "none.sol"), LP)


# ----- the sign mapping, against Clarabel ----------------------------------------------------
def test_mapped_solution_files_agree_with_clarabel_in_sign_and_value():
    ref = solve_canonical(LP.to_cvxpy(), "CLARABEL")
    layout = sdpa_layout(LP)
    for sol in (parse_csdp_solution(LP_CSDP, LP), parse_sdpa_output(LP_SDPA, LP)):
        cert, can = certify_sdpa_solution(layout, sol)
        assert np.allclose(can.x, ref.x, atol=1e-7) and np.allclose(can.y, ref.y, atol=1e-7)
        assert np.allclose(can.y, [1, 1, 0, 0, 0])  # nonneg rows first: y = diag Y ≥ 0
        assert mapping_ok(cert) and cert.passed, cert.failed
        assert cert.measures["stationarity"] == 0 and cert.measures["duality_gap"] == 0
        assert cert.lower == pytest.approx(3.0, rel=1e-9) and cert.upper == pytest.approx(3.0)
    flipped = parse_csdp_solution(LP_CSDP.replace("2 2 1 1 1.0", "2 2 1 1 -1.0"), LP)
    bad, _ = certify_sdpa_solution(layout, flipped, claim=cp.OPTIMAL)
    assert not mapping_ok(bad) and not bad.passed
    assert bad.measures["stationarity"] > 0.1 and bad.measures["dual_cones"] > 0.1


def test_a_csdp_sol_is_read_as_the_certificate_its_normalisation_shows():
    # primal infeasible: [[x, 0], [0, -1]] ⪰ 0.  Y = e2e2ᵀ: F_1•Y = 0, F_0•Y = 1
    P = parse_sdpa(S.PRIMAL_INFEASIBLE_SDPA, "inf.dat-s")
    sol = parse_csdp_solution("0.0\n2 1 2 2 1.0\n", P)
    cert, can = certify_sdpa_solution(P, sol)
    assert cert.kind == "infeasibility" and cert.passed, cert.failed
    assert "read as infeasible" in cert.note
    # unbounded: min -x s.t. [[x, 0], [0, 1]] ⪰ 0; x = 1 is a ray with cᵀx = -1
    P = parse_sdpa(S.DUAL_INFEASIBLE_SDPA, "unb.dat-s")
    cert, can = certify_sdpa_solution(P, parse_csdp_solution("1.0\n1 1 1 1 1.0\n", P))
    assert cert.kind == "unboundedness" and cert.passed, cert.failed


WRITABLE = [
    lambda: S.lovasz_theta(nx.cycle_graph(5)),  # Maximize, equalities, PSD
    lambda: _socp(),  # second-order cones, a lifted square
    lambda: S.maxcut_sdp(nx.cycle_graph(4)),
]  # PSD and equalities


def _blocks(layout, x_ext: np.ndarray) -> list:
    """SDPA's F(x) block by block: matrices, or vectors for diagonal blocks."""
    ext = np.r_[-1.0, x_ext]
    return [
        (F @ ext).reshape(n, n, order="F") if n > 0 else F @ ext
        for n, F in zip(layout.sdpa.blocks, layout.sdpa.F)
    ]


@pytest.mark.parametrize("make", WRITABLE)
def test_the_sdpa_writer_keeps_the_canonical_form(make):
    form = canonical_of(make(), use_quad_obj=False)[0]
    layout = sdpa_of_form(form)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(layout.sdpa.m)  # the soc trees' inner nodes too: any value
    assert np.allclose(layout.s(_blocks(layout, x)), form.A @ x[: form.c.size] + form.b)
    assert np.array_equal(layout.sdpa.c[: form.c.size], form.c)
    assert not layout.sdpa.c[form.c.size :].any()
    assert [p.kind for p in layout.parts].count("soc") == sum(b.kind == "soc" for b in form.blocks)


@pytest.mark.parametrize("make", WRITABLE)
def test_the_dual_map_is_the_adjoint_of_the_writer(make):
    # for every Y: Σ_b ⟨F_i, Y_b⟩ = (Aᵀ y)_i on x's columns and Σ_b ⟨F_0, Y_b⟩ = −bᵀy, with
    # y = layout.y(Y): stationarity and the dual value carry over, whatever the sign conventions
    form = canonical_of(make(), use_quad_obj=False)[0]
    layout = sdpa_of_form(form)
    rng = np.random.default_rng(1)
    Y = [
        (lambda M: M + M.T)(rng.standard_normal((n, n))) if n > 0 else rng.standard_normal(-n)
        for n in layout.sdpa.blocks
    ]
    y = layout.y(Y)
    FY = sum(F.T @ np.ravel(Yb, order="F") for F, Yb in zip(layout.sdpa.F, Y))
    n = form.c.size
    assert np.allclose(FY[1 : n + 1], form.A.T @ y)
    assert FY[0] == pytest.approx(-(form.b @ y))


def test_clarabels_duals_are_sdpas_dual_in_the_written_problem():
    problem = S.lovasz_theta(nx.cycle_graph(5))
    sol = solve_canonical(problem, "CLARABEL")
    layout = sdpa_of_form(sol.form)
    Y = []
    for part in layout.parts:  # SDPA's Y from Clarabel's y, a right inverse of layout.y
        y = sol.y[part.block.rows]
        Y.append(
            part.block.matrix(y, dual=True)
            if part.kind == "psd"
            else np.r_[np.maximum(y, 0), np.maximum(-y, 0)]
        )
    assert np.allclose(layout.y(Y), sol.y, atol=1e-12)
    FY = sum(F[:, 1:].T @ np.ravel(Yb, order="F") for F, Yb in zip(layout.sdpa.F, Y))
    assert np.allclose(FY, layout.sdpa.c, atol=1e-7)  # SDPA's dual equality F_i•Y = c_i
    F0Y = sum(
        F[:, 0].toarray().ravel() @ np.ravel(Yb, order="F") for F, Yb in zip(layout.sdpa.F, Y)
    )
    assert pytest.approx(-S.theta_value(5), rel=1e-7) == F0Y  # the dual value, minimised


def test_the_writer_refuses_cones_sdpa_cannot_hold():
    x = cp.Variable(3)
    problem = cp.Problem(cp.Minimize(-cp.sum(cp.log(x))), [cp.sum(x) == 1])
    with pytest.raises(UnsupportedProblemError, match="exp cones"):
        sdpa_of_form(canonical_of(problem)[0])


def _socp():
    x = cp.Variable(3, name="x")
    a = np.array([1.0, 2.0, -0.5])
    return cp.Problem(cp.Minimize(cp.sum_squares(x - a) + cp.norm(x, 2)), [cp.sum(x) == 1])


# ----- certify_conic on raw solver vectors -----------------------------------------------
@pytest.mark.parametrize("solver", ["CLARABEL", "SCS"])
def test_certify_conic_takes_a_solvers_raw_vectors(solver):
    problem = S.lovasz_theta(nx.cycle_graph(7))
    data, chain, inverse = problem.get_problem_data(solver)
    raw = chain.solve_via_data(
        problem, data, False, False, {"eps_abs": 1e-9, "eps_rel": 1e-9} if solver == "SCS" else {}
    )
    x, y, s = (raw.x, raw.z, raw.s) if solver == "CLARABEL" else (raw["x"], raw["y"], raw["s"])
    cert = certify_conic(data, x, y, s, solver=solver, problem=problem)
    assert mapping_ok(cert), cert.measures
    assert cert.measures["slack_mismatch"] < 1e-6 and "slack_mismatch" in cert.reported
    assert cert.lower - 1e-6 <= S.theta_value(7) <= cert.upper + 1e-6  # a Maximize, mapped
    ref = conic_certificate(
        solve_canonical(
            problem, solver, **({"eps_abs": 1e-9, "eps_rel": 1e-9} if solver == "SCS" else {})
        ),
        1e-6,
    )
    assert cert.lower == pytest.approx(ref.lower, rel=1e-6)
    wrong = certify_conic(data, x, -np.asarray(y), solver=solver, problem=problem)
    assert not wrong.passed and wrong.measures["stationarity"] > 0.1  # a wrong sign shows


def test_certify_conic_needs_the_solver_and_takes_sdpa_problems():
    problem = S.lovasz_theta(nx.cycle_graph(5))
    data = problem.get_problem_data("CLARABEL")[0]
    with pytest.raises(Exception, match="solver="):
        certify_conic(data, np.zeros(data["c"].size), np.zeros(data["b"].size))
    sol = parse_sdpa_output(LP_SDPA, LP)
    cert = certify_conic(LP, sol.x, sol.Y, sol.slack)
    assert cert.lower == pytest.approx(3.0) and cert.measures["slack_mismatch"] == 0


# ----- kernelsdp certify FILE --solution SOL -----------------------------------------------
@pytest.fixture
def files(tmp_path):
    (tmp_path / "lp.dat-s").write_text(S.LP_BLOCK_SDPA)
    (tmp_path / "lp.sol").write_text(LP_CSDP)
    (tmp_path / "lp.out").write_text(LP_SDPA)
    (tmp_path / "bad.sol").write_text("1.0 2.0\n1 1 1 1 1.0\n1 1 1 1 1.0\n")
    return tmp_path


def run(capsys, *argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("sol, fmt", [("lp.sol", None), ("lp.out", None), ("lp.sol", "csdp")])
def test_certify_solution_files_from_the_cli(capsys, files, sol, fmt):
    extra = ["--solution-format", fmt] if fmt else []
    code, out, err = run(
        capsys, "certify", files / "lp.dat-s", "--solution", files / sol, "--json", *extra
    )
    row = json.loads(out)["solvers"][0]
    assert code in (0, 1) and err == ""
    assert code == (0 if row["passed"] else 1)
    assert row["solver"] == ("csdp-file" if sol.endswith(".sol") else "sdpa-file")
    assert row["claimed"] == ("none" if sol.endswith(".sol") else "optimal")
    assert row["lower"] == pytest.approx(3.0) and row["upper"] == pytest.approx(3.0)
    assert row["solve_time_s"] == 0.0
    code, out, _ = run(capsys, "certify", files / "lp.dat-s", "--solution", files / sol, *extra)
    assert "lp.dat-s" in out and row["solver"] in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["lp.dat-s", "--solution", "bad.sol"], "line 3: entry \\(1, 1, 1, 1\\) was already"),
        (["lp.dat-s", "--solution", "none.sol"], "none.sol"),
        (["lp.dat-s", "--solution", "lp.out", "--solution-format", "csdp"], "expected the 2"),
        (["lp.dat-s", "--solution", "lp.sol", "--solution-format", "mosek"], "invalid choice"),
        (["lp.dat-s", "--solution", "lp.sol", "--solvers", "clarabel"], "without solving"),
        ([".", "--solution", "lp.sol"], "takes the .dat-s file"),
    ],
)
def test_certify_solution_user_errors_are_one_line(capsys, files, monkeypatch, args, message):
    monkeypatch.chdir(files)
    code, out, err = run(capsys, "certify", *args)
    assert code == 2 and err.count("\n") == 1 and err.startswith("kernelsdp: error:"), err
    assert __import__("re").search(message, err), err


# ----- the programs as solvers ---------------------------------------------------------------
def test_missing_programs_are_unavailable_with_the_install_hint(monkeypatch, capsys):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    for program, package in [("csdp", "coinor-csdp"), ("sdpa", "sdpa")]:
        s = ExternalSDPSolver(program)
        ok, reason = s.availability()
        assert not ok and f"apt-get install {package}" in reason
        r = s.solve(_as_f(S.lovasz_theta(nx.cycle_graph(5))))
        assert r.termination == Termination.SOLVER_UNAVAILABLE and package in r.message
    code, out, _ = run(capsys, "solvers")
    assert code == 0 and "csdp" in out and "coinor-csdp" in out and "sdpa" in out
    code, _, err = run(capsys, "certify", "x.dat-s", "--solvers", "csdp")
    assert code == 2 and "unavailable" in err and err.count("\n") == 1


def _as_f(problem):
    from kernelsdp.formulations.cvxpy_problem import CvxpyProblem

    return CvxpyProblem(problem)


def test_a_program_past_its_time_limit_is_killed_with_its_group(tmp_path):
    code, log = _run_killable(["sh", "-c", "sleep 30 & sleep 30; echo never"], str(tmp_path), 0.5)
    assert code is None and "never" not in log


@pytest.mark.parametrize(
    "program", [pytest.param("csdp", marks=needs_csdp), pytest.param("sdpa", marks=needs_sdpa)]
)
@pytest.mark.parametrize("name", ["theta-C7", "theta-C9-sdpa", "maxcut-K6", "lp-block-sdpa"])
def test_programs_solve_and_their_answers_are_certified(program, name):
    inst = next(i for i in S.conformance_instances() if i.name == name)
    r = ExternalSDPSolver(program).solve(_as_f(inst.problem))
    cert = conic_certificate(r.canonical, 1e-6)
    assert r.solver == program and r.canonical.solver == program
    assert mapping_ok(cert), (cert.failed, cert.measures)
    assert (
        cert.lower - 1e-6 * abs(inst.optimum)
        <= inst.optimum
        <= cert.upper + 1e-6 * abs(inst.optimum)
    )
    assert r.objective == pytest.approx(inst.optimum, rel=1e-6)
    values = [v.value for v in inst.problem.variables()]
    assert all(v is not None for v in values)  # the user's variables were given values


@needs_csdp
@pytest.mark.parametrize(
    "name, kind",
    [("primal-infeasible-sdpa", "infeasibility"), ("dual-infeasible-sdpa", "unboundedness")],
)
def test_csdps_infeasibility_certificates_are_checked(name, kind):
    inst = next(i for i in S.conformance_instances() if i.name == name)
    r = ExternalSDPSolver("csdp").solve(_as_f(inst.problem))
    cert = conic_certificate(r.canonical, 1e-6)
    assert r.termination.value == inst.expect and cert.kind == kind and cert.passed


@needs_csdp
def test_csdp_on_a_socp_with_a_quadratic_objective():
    problem = _socp()
    ref = problem.solve(solver="CLARABEL")
    r = ExternalSDPSolver("csdp").solve(_as_f(problem))
    cert = conic_certificate(r.canonical, 1e-6)
    assert mapping_ok(cert) and cert.lower - 1e-6 <= ref <= cert.upper + 1e-6


@needs_csdp
def test_certify_runs_csdp_beside_clarabel(capsys, tmp_path):
    (tmp_path / "lp.dat-s").write_text(S.LP_BLOCK_SDPA)
    code, out, err = run(
        capsys, "certify", tmp_path / "lp.dat-s", "--solvers", "csdp,clarabel", "--json"
    )
    rows = json.loads(out)["solvers"]
    assert [r["solver"] for r in rows] == ["csdp", "clarabel"] and "Traceback" not in err
    assert all(r["lower"] == pytest.approx(3.0, rel=1e-6) for r in rows)


def test_programs_refuse_exponential_cones_with_a_typed_error():
    x = cp.Variable(3)
    problem = cp.Problem(cp.Minimize(-cp.sum(cp.log(x))), [cp.sum(x) == 1])
    with pytest.raises(UnsupportedProblemError, match="exp cones"):
        ExternalSDPSolver("csdp").solve(_as_f(problem)) if CSDP else sdpa_of_form(
            canonical_of(problem)[0]
        )
