"""The shrunk re-solve by CSDP (issue #26's cost bar): where it runs, what it returns is the
point Clarabel's re-solve returns for the same shrunk problem, and a certificate that uses
it proves what the re-solve is there to prove.  The point is never trusted — the proofs of
:mod:`kernelsdp.certificate.ends` check it — so these tests pin that it is the right point
(the mapping of SDPA's blocks and of ε back onto the canonical rows), not that it is safe."""

import shutil

import networkx as nx
import numpy as np
import pytest

from kernelsdp.certificate import conic_certificate, perturbed, resolve_csdp, solve_canonical
from kernelsdp.certificate.cones import blocks_min_eig
from kernelsdp.data.sdp_instances import lovasz_theta, theta_sdpa, theta_value

needs_csdp = pytest.mark.skipif(
    shutil.which("csdp") is None, reason="csdp not installed (apt-get install coinor-csdp)"
)
#: the re-solves run at perturbed.RESOLVE_TOL; their points agree to about its square root
#: (an interior-point method's point converges as the square root of its gap)
AGREE_RTOL = 1e-6


def _theta_c5():
    return solve_canonical(theta_sdpa(nx.cycle_graph(5)).to_cvxpy(), "CLARABEL")


def test_csdp_re_solves_only_sdpa_s_own_form_past_the_size_where_it_pays(monkeypatch):
    sdpa_form = _theta_c5().form  # one PSD block, free x: SDPA's own form
    modelled = solve_canonical(lovasz_theta(nx.cycle_graph(5)), "CLARABEL").form  # equalities
    assert resolve_csdp.scaling_entries(sdpa_form) == 15**2
    monkeypatch.setattr(resolve_csdp, "CSDP_FROM_ENTRIES", 0)
    monkeypatch.setattr(resolve_csdp.shutil, "which", lambda name: "/usr/bin/" + name)
    assert resolve_csdp.csdp_resolves(sdpa_form)
    assert not resolve_csdp.csdp_resolves(modelled)  # ± rows for equalities: no interior
    monkeypatch.setattr(resolve_csdp, "CSDP_FROM_ENTRIES", 15**2 + 1)
    assert not resolve_csdp.csdp_resolves(sdpa_form)  # Clarabel is cheaper at this size
    monkeypatch.setattr(resolve_csdp, "CSDP_FROM_ENTRIES", 0)
    m = sdpa_form.c.size
    monkeypatch.setattr(resolve_csdp, "CSDP_MEMORY_BYTES", 16 * m**2 - 1)
    assert not resolve_csdp.csdp_resolves(sdpa_form)  # its Schur complement would not fit
    monkeypatch.setattr(resolve_csdp, "CSDP_MEMORY_BYTES", 16 * m**2)
    assert resolve_csdp.csdp_resolves(sdpa_form)
    monkeypatch.setattr(resolve_csdp, "CSDP_FROM_ENTRIES", 0)
    monkeypatch.setattr(resolve_csdp.shutil, "which", lambda name: None)
    assert not resolve_csdp.csdp_resolves(sdpa_form)  # not installed: Clarabel


@needs_csdp
def test_csdp_and_clarabel_return_the_same_shrunk_point():
    """Both sides shrunk by 1e-3 (normalised units): CSDP's x and y = w + ε_d·e* are
    Clarabel's, y is stationary for the original c, and both points keep their room."""
    form, _, _ = perturbed.normalized(_theta_c5().form)
    eps_p, eps_d = 1e-3, 1e-3
    by_csdp = resolve_csdp.shrink_and_solve_csdp(form, eps_p, eps_d, perturbed.RESOLVE_TOL)
    by_clarabel = perturbed._shrink_and_solve(form, eps_p, eps_d)
    assert by_csdp is not None and by_clarabel is not None and by_csdp.solver == "CSDP"
    scale = 1 + abs(form.objective(by_clarabel.x))
    assert abs(form.objective(by_csdp.x) - form.objective(by_clarabel.x)) <= AGREE_RTOL * scale
    for got in (by_csdp, by_clarabel):
        assert np.allclose(form.A.T @ got.y, form.c, atol=AGREE_RTOL)
        s = form.A @ got.x + form.b
        assert blocks_min_eig(form, s) >= eps_p * (1 - AGREE_RTOL)
        assert blocks_min_eig(form, got.y, dual=True) >= eps_d * (1 - AGREE_RTOL)
    assert np.allclose(by_csdp.y, by_clarabel.y, atol=AGREE_RTOL * np.abs(by_clarabel.y).max())


@needs_csdp
@pytest.mark.parametrize("entries_from", [0, 10**12])
def test_the_re_solve_by_either_solver_proves_an_interval_around_theta(monkeypatch, entries_from):
    """θ(C₅) as SDPA's primal at tol 1e-9: the returned point's interval is wider, so the
    one re-solve runs (by CSDP when forced from 0 entries, else by Clarabel) and its point
    proves both ends around √5."""
    monkeypatch.setattr(resolve_csdp, "CSDP_FROM_ENTRIES", entries_from)
    sol = _theta_c5()
    cert = conic_certificate(sol, 1e-9)
    without = conic_certificate(sol, 1e-9, resolve=False)
    solver = "CSDP" if entries_from == 0 else "Clarabel"
    assert f"re-solved by {solver}" in cert.note
    assert cert.lower_label == cert.upper_label == "proof"
    assert cert.lower <= theta_value(5) <= cert.upper
    assert cert.upper - cert.lower < without.upper - without.lower


@pytest.mark.parametrize("perturb", [True, False])
def test_csdp_s_parameter_file_carries_the_objective_perturbation_switch(tmp_path, perturb):
    """``perturb_objective=False`` (the re-solve's) writes ``perturbobj=0`` into CSDP's
    param.csdp; the default leaves CSDP's own (on)."""
    from kernelsdp.solvers.external_sdp import ExternalOptions, ExternalSDPSolver

    options = ExternalOptions(tol=1e-10, max_iter=40, perturb_objective=perturb)
    argv = ExternalSDPSolver("csdp")._argv(str(tmp_path), "p.dat-s", "p.sol", options)
    lines = (tmp_path / "param.csdp").read_text().split()
    assert argv[0] == "csdp" and "maxiter=40" in lines and "axtol=1.000000e-10" in lines
    assert ("perturbobj=0" in lines) is not perturb
