"""Certify answers kernelsdp did not compute: an external solver's vectors on raw conic data,
and the solution files of the SDPA-format solvers (CSDP, SDPA).  Nothing here solves: the
certificate is :func:`.conic_certificate` of the given point, after the point is mapped
into the canonical form (:mod:`.canonical`: s = Ax + b ∈ K, stationarity Px + c − Aᵀy = 0).

Never a solve: :func:`.conic_certificate` runs with ``resolve=False`` (no re-solve with the
cones shrunk; an end that the returned point's boundary stops says so).

- :func:`certify_conic` takes what ``problem.get_problem_data(solver)`` returned and that
  solver's own (x, y[, s]) in its convention — Clarabel's and SCS's  min cᵀx  s.t.
  Ax + s = b, s ∈ K,  with  Aᵀy + c = 0, y ∈ K*  — which is the canonical pair with
  A_canonical = −A (checked on the data, not assumed), so x, y and s carry over as they
  are; or an :class:`~kernelsdp.data.sdpa.SDPAProblem` with SDPA's x and dual blocks Y.
- :func:`certify_sdpa_solution` takes an SDPA problem and a solution file read by
  :mod:`kernelsdp.data.sdpa_solution`, mapped by :mod:`.sdpa_layout` onto the canonical form
  of ``problem.to_cvxpy()`` — the same form, and so the same certificate, as a Clarabel
  solve of that file.

The claim checked is the one the solver states (SDPA's ``phase.value``, CSDP's exit code):
optimal → the optimality certificate of (x, y); infeasible → Y is a Farkas ray; unbounded →
x is a primal ray.  A CSDP ``.sol`` read alone states nothing: it is read as an optimal
answer, and — only when that certificate fails — as the infeasibility or unboundedness
certificate CSDP writes in its normalisation (tr(F_0 Y) = 1, resp. cᵀx = −1); the first
that passes is kept (a passing Farkas or ray certificate proves its claim whoever states it).
"""

from __future__ import annotations

import dataclasses
import types

import cvxpy as cp
import numpy as np
import scipy.sparse as sp
from cvxpy.reductions.solvers import defines

from ..data.sdpa import SDPAProblem
from ..data.sdpa_solution import SDPASolution
from ..errors import InvalidDataError, InvalidParameterError, UnsupportedProblemError
from ..tolerances import CERTIFY_TOL
from .canonical import CanonicalForm, CanonicalSolution
from .conic import conic_certificate
from .sdpa_layout import SDPALayout, layout_of_model
from .solved_problem import check_finite, refuse_mixed_integer
from .verdict import Certificate

#: the canonical form every SDPA model is certified in (the default solver's layout)
FORM_SOLVER = "CLARABEL"
#: |tr(F_0 Y) − 1|, |cᵀx + 1| up to which a CSDP .sol is also read as CSDP's normalised
#: infeasibility or unboundedness certificate (CSDP scales them to exactly 1 and −1)
CSDP_NORMALISATION_TOL = 1e-6
#: the note of a certificate of raw conic data certified without ``problem=``
CANONICAL_SENSE_NOTE = (
    "the interval is the canonical minimisation's, as the data state it (no problem= given: "
    "for a Maximize model it bounds −objective; pass problem= to map it back)"
)
POINT_STATUSES = (
    cp.OPTIMAL,
    cp.OPTIMAL_INACCURATE,
    cp.USER_LIMIT,
    cp.SOLVER_ERROR,
    cp.settings.INFEASIBLE_OR_UNBOUNDED,
)
RAY_STATUSES = {
    cp.INFEASIBLE: "infeasible",
    cp.INFEASIBLE_INACCURATE: "infeasible",
    cp.UNBOUNDED: "unbounded",
    cp.UNBOUNDED_INACCURATE: "unbounded",
}


def canonical_of(problem: cp.Problem, solver: str = FORM_SOLVER, **solver_opts):
    """(form, data, chain, inverse): ``problem``'s canonical form as ``solver`` receives it."""
    data, chain, inverse = problem.get_problem_data(solver, solver_opts=solver_opts)
    return CanonicalForm.from_problem_data(data, chain, problem), data, chain, inverse


def sdpa_layout(sdpa: SDPAProblem, model: cp.Problem | None = None) -> SDPALayout:
    """The layout of an SDPA file's blocks in the canonical form of its CVXPY model
    (``model``: ``sdpa.to_cvxpy()`` when already built)."""
    form = canonical_of(model if model is not None else sdpa.to_cvxpy())[0]
    return layout_of_model(sdpa, form)


def canonical_solution(
    layout: SDPALayout, sol: SDPASolution, status: str, solver: str = ""
) -> CanonicalSolution:
    """The canonical answer of an SDPA-format solution under the claim ``status``."""
    name = solver or sol.fmt
    if not sol.finite:
        return CanonicalSolution(
            layout.form,
            cp.SOLVER_ERROR,
            None,
            None,
            solver=name,
            stats={"note": "the file's point has entries that are not finite"},
        )
    x, y = layout.x(sol.x), layout.y(sol.Y)
    kind = RAY_STATUSES.get(status)
    if kind == "infeasible":
        return CanonicalSolution(layout.form, status, None, y, solver=name)
    if kind == "unbounded":
        return CanonicalSolution(layout.form, status, None, None, ray=x, solver=name)
    return CanonicalSolution(layout.form, status, x, y, solver=name)


def _readings(layout: SDPALayout, sol: SDPASolution) -> list[str]:
    """The claims a CSDP .sol without a status is read as, in order (module docstring)."""
    out = [cp.OPTIMAL]
    if not sol.finite:
        return out
    y = layout.y(sol.Y)
    if abs(-float(layout.form.b @ y) - 1.0) <= CSDP_NORMALISATION_TOL:  # tr(F_0 Y) = 1
        out.append(cp.INFEASIBLE)
    if abs(float(layout.form.c @ layout.x(sol.x)) + 1.0) <= CSDP_NORMALISATION_TOL:
        out.append(cp.UNBOUNDED)
    return out


def certify_sdpa_solution(
    sdpa: SDPAProblem | SDPALayout,
    sol: SDPASolution,
    tol: float = CERTIFY_TOL,
    claim: str | None = None,
) -> tuple[Certificate, CanonicalSolution]:
    """The certificate of a solution file of ``sdpa`` (and the canonical answer it is of),
    under ``claim`` (a CVXPY status), else the file's own, else CSDP's readings."""
    layout = sdpa if isinstance(sdpa, SDPALayout) else sdpa_layout(sdpa)
    claims = [claim or sol.status] if (claim or sol.status) else _readings(layout, sol)
    first = None
    for status in claims:
        can = canonical_solution(layout, sol, status)
        cert = conic_certificate(can, tol, resolve=False)
        if cert.passed:
            return _noted(cert, sol, status, len(claims) > 1), can
        first = first or (cert, can)
    return _noted(first[0], sol, claims[0], len(claims) > 1), first[1]


def _noted(cert: Certificate, sol: SDPASolution, status: str, inferred: bool) -> Certificate:
    notes = [cert.note] if cert.note else []
    if inferred:
        notes.append(f"read as {status} (a CSDP .sol states no status)")
    if sol.digits is not None:
        notes.append(
            f"the file prints {sol.digits} significant digits: no certificate is "
            f"finer than about 1e-{max(sol.digits - 1, 1)} (print with %+.17e)"
        )
    return dataclasses.replace(cert, note="; ".join(notes))


# ----- raw conic data ----------------------------------------------------------------------
def _form_of_data(data: dict, solver: str | None, problem: cp.Problem | None) -> CanonicalForm:
    """The canonical form of a ``get_problem_data`` dict, checked to be in the convention
    Ax + s = b that :func:`certify_conic` reads (A_canonical = −A, b the same)."""
    if cp.settings.PARAM_PROB not in data:
        raise InvalidDataError(
            "certify_conic needs the dict problem.get_problem_data(solver) "
            "returns (it has no 'param_prob')."
        )
    if problem is not None:
        refuse_mixed_integer(problem, "certify_conic")
    if len(data.get(cp.settings.BOOL_IDX, ())) or len(data.get(cp.settings.INT_IDX, ())):
        raise UnsupportedProblemError(
            "certify_conic: the data have integer or boolean variables: a mixed-integer "
            "problem has no conic certificate (its duals bound only the continuous relaxation)."
        )
    if solver is None:
        raise InvalidParameterError(
            "certify_conic needs solver=, the CVXPY solver name the "
            "data were built for (its PSD layout and sign convention)."
        )
    inst = defines.SOLVER_MAP_CONIC.get(str(solver).upper())
    if inst is None:
        raise InvalidParameterError(f"{solver!r} is not a CVXPY conic solver.")
    chain = types.SimpleNamespace(solver=inst)
    stub = problem if problem is not None else types.SimpleNamespace(objective=None)
    form = CanonicalForm.from_problem_data(data, chain, stub)
    A, b = data.get(cp.settings.A), data.get(cp.settings.B)
    if (
        A is None
        or b is None
        or A.shape != form.A.shape
        or _largest(A + form.A) > 1e-14 * (1.0 + _largest(form.A))
        or not np.allclose(b, form.b, rtol=1e-14, atol=0.0)
    ):
        raise UnsupportedProblemError(
            f"certify_conic reads the convention Ax + s = b, s ∈ K "
            f"(Clarabel, SCS); {solver}'s data are in another."
        )
    return form


def _largest(M) -> float:
    M = sp.csr_matrix(M)
    return float(abs(M).max()) if M.nnz else 0.0


def _slack_mismatch(form: CanonicalForm, x: np.ndarray, s: np.ndarray) -> float:
    ref = form.A @ x + form.b
    return float(np.linalg.norm(ref - s)) / (1.0 + float(np.linalg.norm(ref)))


def _check_given_finite(x, y, s) -> None:
    """A typed refusal naming the vector (or SDPA block) that has a NaN or an inf."""
    for name, v in (("x", x), ("y", y), ("s", s)):
        if v is None:
            continue
        try:
            check_finite(np.asarray(v, dtype=float), name, where="certify_conic")
            continue
        except ValueError as exc:  # SDPA's blocks: a list of matrices of several sizes
            if isinstance(exc, InvalidDataError) or not isinstance(v, (list, tuple)):
                raise
        for k, blk in enumerate(v):
            check_finite(np.asarray(blk, dtype=float), f"{name}'s block {k + 1}", "certify_conic")


def certify_conic(
    data,
    x,
    y,
    s=None,
    tol: float = CERTIFY_TOL,
    *,
    solver: str | None = None,
    problem: cp.Problem | None = None,
    status: str = cp.OPTIMAL,
) -> Certificate:
    """The certificate of an external solver's answer on raw conic data, without a solve.

    ``data``: the dict ``problem.get_problem_data(solver)`` returned, with ``solver`` its
    CVXPY name (x, y, s in that solver's convention, see the module docstring), or an SDPA
    problem (x: SDPA's x, y: the
    list of SDPA's dual blocks Y, s: the slack blocks F(x), all in SDPA's terms).
    ``status``: the claim — optimal (x and y), infeasible (y a Farkas ray), unbounded (x a
    ray).  ``s``, when given, is compared with Ax + b and the difference reported as
    ``slack_mismatch`` (shown, not judged).

    The data are a minimisation whatever the model was: CVXPY states a Maximize of f as the
    minimisation of −f, and the dict does not say which it was.  ``problem`` (the model
    the data came from) maps the interval back to the model's objective; without it the
    interval is the canonical minimisation's — for a Maximize, −f's: [−upper, −lower] of
    the model — and the certificate's note says so (:data:`CANONICAL_SENSE_NOTE`)."""
    _check_given_finite(x, y, s)
    if isinstance(data, SDPAProblem):
        layout = sdpa_layout(data)
        sol = SDPASolution(
            np.asarray(x, float),
            list(s) if s is not None else [],
            list(y),
            "external",
            data.name,
            status,
        )
        cert, can = certify_sdpa_solution(layout, sol, tol, status)
        s_vec = layout.s(s) if s is not None else None
    else:
        form = _form_of_data(data, solver, problem)
        x = None if x is None else np.asarray(x, float).ravel()
        y = None if y is None else np.asarray(y, float).ravel()
        for v, n, what in ((x, form.c.size, "x"), (y, form.A.shape[0], "y")):
            if v is not None and v.size != n:
                raise InvalidDataError(f"{what} has {v.size} entries; the data have {n}.")
        kind = RAY_STATUSES.get(status)
        can = CanonicalSolution(
            form,
            status,
            None if kind else x,
            None if kind == "unbounded" else y,
            ray=x if kind == "unbounded" else None,
            solver=str(solver),
        )
        cert = conic_certificate(can, tol, resolve=False)
        if problem is None and (cert.lower is not None or cert.upper is not None):
            cert = dataclasses.replace(
                cert, note="; ".join(n for n in (cert.note, CANONICAL_SENSE_NOTE) if n)
            )
        s_vec = None if s is None else np.asarray(s, float).ravel()
    if s_vec is not None and can.x is not None:
        m = dict(cert.measures, slack_mismatch=_slack_mismatch(can.form, can.x, s_vec))
        cert = dataclasses.replace(cert, measures=m, reported=(*cert.reported, "slack_mismatch"))
    return cert
