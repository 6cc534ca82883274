"""A verdict does not change when the data are scaled (issue #26 §2).

The same answer to the same problem with its objective multiplied by 10⁻⁶ or 10⁶ — and,
for the generic conic problems, with its constraint rows multiplied — gets the same
verdict: the proofs and the widths are relative to the size of what they measure.  The
answer is computed once and mapped exactly (x unchanged; multipliers × t for an objective
× t, ÷ t for rows × t), so what is tested is the certificate, not the solver's own
scale-dependent stop.  Every family with its own certificate, and a set of generic conic
problems; the C = 1e12 NPKL problem of the issue is never "unbounded".
"""

from dataclasses import replace

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from conftest import make_npkl

from kernelsdp import tolerances as tol
from kernelsdp.certificate import conic_certificate, solve_canonical
from kernelsdp.data.datasets import hyperplane_transformed
from kernelsdp.data.sdp_instances import lovasz_theta, maxcut_sdp, theta_sdpa
from kernelsdp.formulations import MWCTLA, NPKL, StQP
from kernelsdp.formulations.spectral_metric import SpectralMetric
from kernelsdp.solvers import default_solver, solve
from kernelsdp.verify import certify, verify

SCALES = (1e-6, 1.0, 1e6)


def _verdict(cert) -> tuple:
    return cert.kind, cert.passed, tuple(sorted(cert.failed)), cert.lower_label, cert.upper_label


def _scaled_results(f, result, t: float):
    """The result of f with its objective × t: multipliers × t, the kernel unchanged."""
    duals = {
        k: (np.asarray(v) * t if isinstance(v, (float, int, np.ndarray)) else v)
        for k, v in result.duals.items()
    }
    obj = None if result.objective is None else result.objective * t
    return replace(result, duals=duals, objective=obj, canonical=None)


@pytest.mark.parametrize(
    "loss,capacity",
    [
        ("linear", "frobenius"),
        ("hinge", "trace"),
        ("squared-hinge", "frobenius"),
        ("l2", "trace"),
        ("l1", "trace"),
    ],
)
@pytest.mark.parametrize("solver", ["default", "clarabel"])
def test_npkl_verdicts_do_not_change_with_the_objective_scale(iris_small, loss, capacity, solver):
    f = make_npkl(iris_small, loss, capacity)
    r = solve(f, default_solver(f).name if solver == "default" else solver)
    got = set()
    for t in SCALES:
        ft = NPKL(L=f.L * t, pairs=f.pairs, loss=loss, capacity=capacity, C=f.C * t, B=f.B)
        got.add(_verdict(certify(ft, _scaled_results(f, r, t))))
    assert len(got) == 1, got


def test_spectral_metric_stqp_and_mwc_verdicts_do_not_change_with_scale():
    d = np.random.default_rng(1).uniform(0.5, 2.0, 8)
    for solver in ("clarabel", "spectral-metric-closed-form"):
        f = SpectralMetric(d=d, c=1.0, nonneg=True)
        r = solve(f, solver)
        got = {
            _verdict(certify(SpectralMetric(d=d * t, c=1.0, nonneg=True), _scaled_results(f, r, t)))
            for t in SCALES
        }
        assert len(got) == 1, (solver, got)
    Q = np.random.default_rng(0).standard_normal((6, 6))
    for solver in ("exact", "local"):
        r = solve(StQP(Q), solver)
        got = {_verdict(certify(StQP(Q * t), _scaled_results(StQP(Q), r, t))) for t in SCALES}
        assert len(got) == 1, (solver, got)
    X, y = hyperplane_transformed(200, "quadratic", seed=0)
    f = MWCTLA.from_data(X, y, J=8)
    r = solve(f, "mwc-tla-top-eigenvector")
    got = {_verdict(certify(replace(f, Q=f.Q * t), _scaled_results(f, r, t))) for t in SCALES}
    assert len(got) == 1, got


def _scaled_solution(sol, t: float, rows):
    """The same canonical answer for the problem with its objective (``rows`` False), every
    row (True) or its first equality row ("one") × t (with a cache of its own: ``replace``
    would share the original's certificates)."""
    form = sol.form
    if rows == "one":
        d = np.ones(form.A.shape[0])
        blk = next((b for b in form.blocks if b.kind in ("zero", "nonneg")), form.blocks[0])
        d[blk.start if blk.kind in ("zero", "nonneg") else blk.rows] = t  # a row, or a block
        new = replace(form, A=sp.diags(d) @ form.A, b=form.b * d)
        return replace(sol, form=new, y=None if sol.y is None else sol.y / d, cache={})
    if rows:
        new = replace(form, A=form.A * t, b=form.b * t)
        return replace(sol, form=new, y=None if sol.y is None else sol.y / t, cache={})
    new = replace(form, c=form.c * t, d=form.d * t, P=None if form.P is None else form.P * t)
    return replace(sol, form=new, y=None if sol.y is None else sol.y * t, cache={})


@pytest.mark.parametrize(
    "make",
    [
        lambda: lovasz_theta(nx.cycle_graph(7)),
        lambda: maxcut_sdp(nx.petersen_graph()),
        lambda: theta_sdpa(nx.cycle_graph(9)).to_cvxpy(),
    ],
    ids=["theta", "maxcut", "theta-sdpa"],
)
@pytest.mark.parametrize("solver", ["CLARABEL", "SCS"])
@pytest.mark.parametrize("rows", [False, True, "one"], ids=["objective", "rows", "one-row"])
def test_generic_conic_verdicts_do_not_change_with_scale(make, solver, rows):
    sol = solve_canonical(make(), solver)
    got = {
        _verdict(conic_certificate(_scaled_solution(sol, t, rows), tol.CERTIFY_TOL)) for t in SCALES
    }
    assert len(got) == 1, got


def test_a_compact_npkl_problem_at_C_1e12_is_never_unbounded(iris_small):
    """The issue's example: the feasible set is compact and the objective ≥ 0."""
    for loss, capacity in (("hinge", "trace"), ("l1", "trace"), ("squared-hinge", "frobenius")):
        f = make_npkl(iris_small, loss, capacity, C=1e12)
        for c in verify(f, ["clarabel"]).checks:
            assert not (c.passed and c.kind == "unboundedness"), (loss, capacity, c.verdict)


def test_npkl_lower_end_above_the_verified_sizes_is_probable_never_proof(iris_small, monkeypatch):
    """Above the sizes a verified λ_min reaches, NPKL's lower end comes from a randomised
    Lanczos bound: labelled 'probable' with its failure probability, never 'proof'."""
    import kernelsdp.formulations.npkl_proof as proof

    f = make_npkl(iris_small, "hinge", "trace")
    r = solve(f, "clarabel")
    assert certify(f, r).lower_label == "proof"
    monkeypatch.setattr(proof, "DENSE_VERIFY_MAX_N", 4)
    monkeypatch.setattr(proof, "SPARSE_VERIFY_MAX_N", 4)
    c = certify(f, r)
    assert c.lower_label == "probable" and "probability" in c.lower_why
    assert not c.passed and "lower_probable" in c.failed
    assert c.lower <= r.objective + 1e-9
