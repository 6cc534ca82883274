"""Generic conic solvers through CVXPY (Clarabel by default, SCS, MOSEK, ...).

The list is CVXPY's own: every solver in ``cvxpy``'s conic table whose supported
constraints include the PSD and second-order cones, ordered with Clarabel first (our
default) and then in CVXPY's order.  What kernelsdp knows of each is declared once, in
``BACKENDS`` (:class:`~kernelsdp.certificate.backends.Backend`, declared beside the
canonical solve): its kind, its own names for the common options, the
accuracy asked of it, whether it is an extra of this package; ``PROBES`` how to probe that it can
run.  A solver that is not installed is listed only if it is an extra (MOSEK), so that
``kernelsdp solvers`` says why it is off.  MOSEK's licence is probed for real (a tiny task
is optimised): installed-but-unlicensed shows as unavailable with MOSEK's own message, and
never crashes a solve.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field

import cvxpy as cp
from cvxpy.constraints import PSD, SOC
from cvxpy.constraints.psd import SvecPSD
from cvxpy.reductions.solvers import defines

from .. import tolerances as tol
from ..certificate import conic_certificate, solve_canonical
from ..certificate.backends import BACKENDS, backend, option_names
from ..declarations import option
from ..errors import InvalidDataError, InvalidParameterError
from ..formulations.base import Formulation
from ..result import PointStatus, Result, Termination
from .base import Solver

#: Interior-point SDP solvers hold a dense scaling block of (n(n+1)/2)² entries; measured
#: for Clarabel on NPKL: 1.4 GB at n = 100.  Bytes ≈ INTERIOR_POINT_BYTES_PER_ENTRY·t².
INTERIOR_POINT_BYTES_PER_ENTRY = 48
#: generic solvers are refused above this even on a larger machine (their time grows as
#: t³: a solve that needs more would not finish in a working day)
GENERIC_MEMORY_LIMIT = 8 * 2**30


@dataclass(frozen=True)
class ConicOptions:
    verbose: bool = option(False, help="the solver's own log")
    time_limit: float | None = option(
        None, low=0.0, open_low=True, help="wall-clock limit, seconds"
    )
    max_iter: int | None = option(
        None,
        low=1,
        high=10**9,
        help="iteration limit (at most 1e9: Clarabel takes a u32, MOSEK an int32)",
    )
    tol: float | None = option(
        None, low=0.0, open_low=True, help="the solver's gap and feasibility tolerances"
    )
    solver_options: dict = field(
        default_factory=dict,
        metadata={"help": "any other keyword of the CVXPY solver interface, passed as is"},
    )


_STATUS = {
    cp.OPTIMAL: (Termination.OPTIMAL, PointStatus.FEASIBLE_POINT),
    cp.OPTIMAL_INACCURATE: (Termination.ALMOST_OPTIMAL, PointStatus.NEARLY_FEASIBLE_POINT),
    cp.USER_LIMIT: (Termination.ITERATION_LIMIT, PointStatus.NEARLY_FEASIBLE_POINT),
    cp.INFEASIBLE: (Termination.INFEASIBLE, PointStatus.NO_POINT),
    cp.INFEASIBLE_INACCURATE: (Termination.INFEASIBLE, PointStatus.NO_POINT),
    cp.UNBOUNDED: (Termination.UNBOUNDED, PointStatus.NO_POINT),
    cp.UNBOUNDED_INACCURATE: (Termination.UNBOUNDED, PointStatus.NO_POINT),
}


def sdp_capable(cvxpy_name: str) -> bool:
    cls = defines.SOLVER_MAP_CONIC.get(cvxpy_name)
    if cls is None:
        return False
    cons = set(cls.SUPPORTED_CONSTRAINTS)
    return bool(cons & {PSD, SvecPSD}) and SOC in cons


@functools.cache
def _mosek_licence() -> tuple[bool, str]:
    try:
        import mosek
    except ImportError:
        return False, "not installed: " + BACKENDS["MOSEK"].extra
    try:
        with mosek.Env() as env, env.Task(0, 0) as task:
            task.appendvars(1)
            task.putvarbound(0, mosek.boundkey.lo, 0.0, 0.0)
            task.putcj(0, 1.0)
            task.optimize()
        return True, ""
    except Exception as exc:  # mosek.Error: licence missing/expired; anything else alike
        return False, f"installed but not usable (licence): {str(exc).strip().splitlines()[0]}"


#: how to probe that an installed extra can run (MOSEK: its licence, for real)
PROBES = {"MOSEK": _mosek_licence}


class ConicSolver(Solver):
    """One CVXPY conic solver, called on the formulation's own CVXPY model."""

    accepts_every_formulation = True  # every formulation is declared in CVXPY
    Options = ConicOptions

    def __init__(self, cvxpy_name: str):
        self.cvxpy_name = cvxpy_name
        self.name = cvxpy_name.lower()
        self.backend = backend(cvxpy_name)
        first_order = self.backend.kind == "first-order"
        self.kind = self.backend.kind
        self.objective_tol = (
            tol.OBJECTIVE_RTOL_FIRST_ORDER if first_order else tol.OBJECTIVE_RTOL_EXACT
        )
        self.certificate_tol = (
            tol.KKT_TOL_FIRST_ORDER if first_order else tol.KKT_TOL_INTERIOR_POINT
        )

    def availability(self) -> tuple[bool, str]:
        if self.cvxpy_name not in cp.installed_solvers():
            return False, f"not installed: {self.backend.extra or 'pip install ' + self.name}"
        probe = PROBES.get(self.cvxpy_name)
        return probe() if probe else (True, "")

    memory_cap = GENERIC_MEMORY_LIMIT

    def memory_bytes(self, formulation: Formulation, options=None) -> int:
        """The scaling block (interior point) or ten n×n arrays (SCS) of the PSD block, over a
        floor of 16 vectors of the problem's size (a problem without a PSD block)."""
        n = formulation.psd_dim
        t = n * (n + 1) // 2
        floor = 8 * 16 * max(int(formulation.n), 1)
        if self.kind == "first-order":
            return floor + 8 * 10 * n * n
        return floor + INTERIOR_POINT_BYTES_PER_ENTRY * t * t

    def run(self, formulation: Formulation, options: ConicOptions) -> Result:
        """Solve the formulation's CVXPY model through its canonical form, keeping the point
        (x, y) for the certificate; the common options go under the solver's own names."""
        ok, reason = self.availability()
        if not ok:
            return Result.failure(
                formulation.name,
                self.name,
                Termination.SOLVER_UNAVAILABLE,
                f"solver {self.name!r} is unavailable: {reason}",
            )
        # the size was checked before this call (Solver.memory_bytes, refuse_if_too_large)
        t0 = time.perf_counter()
        model = formulation.build()
        t1 = time.perf_counter()
        sol = self._solve(formulation, model, options)
        if isinstance(sol, Result):  # the solver failed outright
            sol.setup_time_s, sol.solve_time_s = t1 - t0, time.perf_counter() - t1
            return sol
        times = {
            "setup_time_s": t1 - t0 + sol.setup_time_s,
            "solve_time_s": time.perf_counter() - t1 - sol.setup_time_s,
        }
        termination, point = _STATUS.get(
            sol.status, (Termination.NUMERICAL_ERROR, PointStatus.NO_POINT)
        )
        if point is PointStatus.NO_POINT:
            return self._no_point(formulation, sol, termination, times)
        return self._answer(formulation, model, options, sol, times)

    def _solve(self, formulation: Formulation, model, options: ConicOptions):
        """The canonical solution, or a failed Result when the solver fails outright; a
        user's option or data CVXPY cannot take is a typed error."""
        opts = {
            **self.backend.defaults,
            **common_options(self.cvxpy_name, options),
            **options.solver_options,
        }
        try:
            return solve_canonical(model.problem, self.cvxpy_name, verbose=options.verbose, **opts)
        except TypeError as exc:
            if not _is_option_error(exc):
                raise
            raise InvalidParameterError(f"{self.name} rejected an option: {exc}") from None
        except (ValueError, cp.error.DCPError) as exc:  # NaN data, a parameter without value
            raise InvalidDataError(
                f"CVXPY cannot hand this problem to {self.name}: {exc}"
            ) from None
        except cp.error.SolverError as exc:
            return Result.failure(
                formulation.name,
                self.name,
                Termination.NUMERICAL_ERROR,
                f"solver {self.name!r} failed: {exc}. Try another solver, or "
                "solve with verbose=True for more information.",
            )

    def _no_point(
        self, formulation: Formulation, sol, termination: Termination, times: dict
    ) -> Result:
        """Infeasible, unbounded or no answer: the claim stands only with its certificate."""
        message = f"{self.name} reports {sol.status}."
        if termination in (Termination.INFEASIBLE, Termination.UNBOUNDED):
            # one named tolerance judges: the same certificate verify reads (cached)
            cert = conic_certificate(sol, tol.CERTIFY_TOL)  # its Farkas vector or ray
            if not cert.passed:
                termination = Termination.UNCERTIFIED
                message = (
                    f"{self.name} reports {sol.status}, but its "
                    f"{cert.kind} certificate fails: {', '.join(cert.failed)}"
                )
        return Result.failure(
            formulation.name,
            self.name,
            termination,
            message,
            iterations=sol.iterations,
            canonical=sol,
            **times,
        )

    def _answer(
        self, formulation: Formulation, model, options: ConicOptions, sol, times: dict
    ) -> Result:
        """A point: its status from its certificate, its values read back."""
        limit = None
        if options.max_iter is not None and (sol.iterations or 0) >= options.max_iter:
            limit = Termination.ITERATION_LIMIT
        elif options.time_limit is not None and sol.solve_time_s >= options.time_limit:
            limit = Termination.TIME_LIMIT
        termination, point, message = honest_status(sol, tol.CERTIFY_TOL, limit)
        read = formulation.from_cvxpy(model)
        a, b = formulation.objective_map()
        value = sol.form.sense * sol.form.objective(sol.x)
        claimed = sorted(a * v + b for v in (value, _dual_objective(sol)))
        objective = read.get("objective", a * value + b)
        if formulation.relaxed_model:  # [relaxation's bound, value of the rounded point]
            claimed = [claimed[0], objective]
        return Result(
            formulation=formulation.name,
            solver=self.name,
            termination=termination,
            point=point,
            objective=objective,
            kernel=read.get("kernel"),
            primal=read.get("primal", {}),
            duals=read.get("duals", {}),
            iterations=sol.iterations,
            lower_bound=claimed[0],
            upper_bound=claimed[1],
            canonical=sol,
            message=message,
            **times,
            info={
                "cvxpy_status": sol.status,
                "solver_time_s": sol.stats.get(cp.settings.SOLVE_TIME),
                **read.get("info", {}),
            },
        )


def _is_option_error(exc: TypeError) -> bool:
    """A TypeError from a CVXPY solver interface about an unknown setting or keyword."""
    text = str(exc).lower()
    return any(w in text for w in ("unrecognized", "unexpected keyword", "setting", "option"))


def honest_status(
    sol, tol_: float, limit: Termination | None = None
) -> tuple[Termination, PointStatus, str]:
    """Termination and point status from the generic certificate, not the solver's word
    (:func:`status_from_certificate` on ``conic_certificate(sol, tol_)``)."""
    return status_from_certificate(sol, conic_certificate(sol, tol_), tol_, limit)


def status_from_certificate(
    sol, cert, tol_: float, limit: Termination | None = None
) -> tuple[Termination, PointStatus, str]:
    """The one rule for every solver whose answer has a generic certificate.

    "optimal" stands only when the solver says so *and* the certificate passes at the one
    named tolerance (``CERTIFY_TOL``); else "almost optimal" when what fails is only the
    interval (an end not proven, or wider than tol), "uncertified" when the point itself is
    infeasible or two proofs cross — the failing terms named in the message; an
    inaccurate stop or a user limit is "almost optimal" only when the certificate passes,
    else the limit it reached (``limit``: the options' iteration or time limit; CVXPY's
    user limit) or "slow progress".  The point is feasible when err1, err2 ≤ tol, nearly
    feasible up to √tol, infeasible beyond (measured, not claimed)."""
    primal = max(
        cert.measures.get("primal_equalities", 0.0) or 0.0,
        cert.measures.get("primal_cones", 0.0) or 0.0,
    )
    point = (
        PointStatus.FEASIBLE_POINT
        if primal <= tol_
        else PointStatus.NEARLY_FEASIBLE_POINT
        if primal <= tol_**0.5
        else PointStatus.INFEASIBLE_POINT
    )
    if sol.status == cp.OPTIMAL:
        if cert.passed:
            return Termination.OPTIMAL, point, ""
        near = set(cert.failed) <= {"interval_width", *cert.label_failures()}
        return (
            Termination.ALMOST_OPTIMAL if near else Termination.UNCERTIFIED,
            point,
            f"{sol.solver} reported optimal, but its certificate does not pass at tol "
            f"{tol_:g}: {', '.join(cert.failed)}",
        )
    if cert.passed:
        return Termination.ALMOST_OPTIMAL, point, ""
    stop = limit or (
        Termination.ITERATION_LIMIT if sol.status == cp.USER_LIMIT else Termination.SLOW_PROGRESS
    )
    return (
        stop,
        point,
        f"{sol.solver} stopped ({sol.status}) short of a certified optimum: "
        f"{', '.join(cert.failed)}",
    )


def _dual_objective(sol) -> float:
    """The dual objective the solver's multipliers claim, in the user's sense (the primal
    value when there are none)."""
    f, x = sol.form, sol.x
    return f.sense * (f.objective(x) if sol.y is None else f.dual_objective(x, sol.y))


def common_options(cvxpy_name: str, o: ConicOptions) -> dict:
    """time_limit, max_iter and tol under the solver's own option names
    (:func:`kernelsdp.certificate.backends.option_names`)."""
    return option_names(cvxpy_name, o.time_limit, o.max_iter, o.tol)


def generic_solvers() -> list[ConicSolver]:
    """Clarabel first, then CVXPY's conic order; installed SDP solvers plus the extras."""
    installed = set(cp.installed_solvers())
    names = [
        s for s in defines.CONIC_SOLVERS if sdp_capable(s) and (s in installed or backend(s).extra)
    ]
    names.sort(key=lambda s: s != "CLARABEL")  # stable: Clarabel first, rest in CVXPY order
    return [ConicSolver(s) for s in names]
