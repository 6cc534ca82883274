"""CSDP and SDPA, the SDPA-format interior-point programs, as kernelsdp solvers: a second
opinion from code that is neither CVXPY's nor Clarabel's.

A run takes the formulation's CVXPY model in its canonical form (the default solver's,
:func:`kernelsdp.certificate.external.canonical_of`, a quadratic objective lifted to a
second-order cone), writes it as an SDPA file
(:func:`kernelsdp.certificate.sdpa_layout.sdpa_of_form`: equalities as ± diagonal rows,
second-order cones as arrow matrices; exponential and power cones are refused with
:class:`~kernelsdp.errors.UnsupportedProblemError`), runs the program in a temporary folder
under the time limit, reads its solution file (:mod:`kernelsdp.data.sdpa_solution`) with
the status the program reported (CSDP's exit code, SDPA's ``phase.value``), maps it back
to the canonical (x, y) and certifies that, as for every generic solver.  Neither program
has a time limit of its own: past ``time_limit`` the process group is killed and the
answer is "time limit", with no point.

The programs are found on ``PATH`` (Debian and Ubuntu: ``apt-get install coinor-csdp``,
``apt-get install sdpa``); without them the solvers are listed as unavailable with that
hint.  Parameters: CSDP reads ``param.csdp`` from the folder it runs in (``axtol``,
``atytol``, ``objtol`` ← ``tol``, ``maxiter``, ``perturbobj`` ← ``perturb_objective``;
CSDP's defaults 1e-8, 100 and on otherwise);
SDPA gets a full parameter file with its defaults (epsilonStar, epsilonDash 1e-7,
maxIteration 100) and ``%+.17e`` print formats in place of its four-digit default, so that
the point it prints can be certified.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import types
import warnings
from dataclasses import dataclass

import cvxpy as cp
import numpy as np
from cvxpy.reductions.solvers.conic_solvers.clarabel_conif import CLARABEL

from .. import tolerances as tol
from ..certificate import Certificate, conic_certificate
from ..certificate.canonical import CanonicalSolution, constraint_violations
from ..certificate.external import (
    canonical_of,
    canonical_solution,
    certify_sdpa_solution,
    sdpa_layout,
)
from ..certificate.sdpa_layout import SDPALayout, sdpa_of_form
from ..data.sdpa import read_sdpa, write_sdpa
from ..data.sdpa_solution import read_csdp_solution, read_sdpa_output, read_solution
from ..declarations import option
from ..errors import InvalidDataError, KernelSDPError
from ..formulations.base import Formulation
from ..formulations.cvxpy_problem import CvxpyProblem
from ..result import Result, Termination
from ..tolerances import CERTIFY_TOL
from .base import Solver
from .conic import (
    GENERIC_MEMORY_LIMIT,
    INTERIOR_POINT_BYTES_PER_ENTRY,
    honest_status,
    status_from_certificate,
)

#: the largest iteration limit both programs take (a C int)
MAX_ITER_CAP = 2**31 - 1
#: SDPA's parameter file: its defaults (SDPA 7.3 ``param.sdpa``), full-precision printing
SDPA_PARAMS = """\
{max_iter}\tunsigned int maxIteration;
{tol:.1E}\tdouble 0.0 < epsilonStar;
1.0E2\tdouble 0.0 < lambdaStar;
2.0\tdouble 1.0 < omegaStar;
-1.0E5\tdouble lowerBound;
1.0E5\tdouble upperBound;
0.1\tdouble 0.0 <= betaStar <  1.0;
0.2\tdouble 0.0 <= betaBar  <  1.0, betaStar <= betaBar;
0.9\tdouble 0.0 < gammaStar  <  1.0;
{tol:.1E}\tdouble 0.0 < epsilonDash;
%+.17e\tchar*  xPrint   (default %+8.3e,   NOPRINT skips printout)
%+.17e\tchar*  XPrint   (default %+8.3e,   NOPRINT skips printout)
%+.17e\tchar*  YPrint   (default %+8.3e,   NOPRINT skips printout)
%+.17e\tchar*  infPrint (default %+10.16e, NOPRINT skips printout)
"""
#: CVXPY's status → Clarabel's word for it, to unpack an external point through CVXPY's chain
_CLARABEL_WORD = {v: k for k, v in reversed(list(CLARABEL.STATUS_MAP.items()))}
_NO_POINT = {
    cp.INFEASIBLE: Termination.INFEASIBLE,
    cp.INFEASIBLE_INACCURATE: Termination.INFEASIBLE,
    cp.UNBOUNDED: Termination.UNBOUNDED,
    cp.UNBOUNDED_INACCURATE: Termination.UNBOUNDED,
}


@dataclass(frozen=True)
class ExternalOptions:
    verbose: bool = option(False, help="the program's own log on stderr")
    time_limit: float | None = option(
        None, low=0.0, open_low=True, help="wall-clock limit, seconds (the program is killed)"
    )
    max_iter: int | None = option(None, low=1, high=MAX_ITER_CAP, help="iteration limit")
    tol: float | None = option(
        None, low=0.0, open_low=True, help="the program's gap and feasibility tolerances"
    )
    perturb_objective: bool = option(
        True,
        help="CSDP's perturbobj (its default): C perturbed slightly for a stable start; "
        "off, the exact objective (a certificate's re-solve: SDPLIB truss5's proven lower "
        "end 20× closer)",
    )


@dataclass
class Run:
    """What one run of a program left: its solution (or None), exit code, log and time."""

    layout: SDPALayout
    status: str
    x: np.ndarray | None = None
    y: np.ndarray | None = None
    ray: np.ndarray | None = None
    seconds: float = 0.0
    message: str = ""


class ExternalSDPSolver(Solver):
    """One SDPA-format program (``csdp`` or ``sdpa``) on the formulation's CVXPY model."""

    #: any formulation's CVXPY model whose cones SDPA's format holds (others refused in run)
    accepts_every_formulation = True
    ACCEPTS = {Formulation: {}}
    Options = ExternalOptions
    kind = "interior-point"
    objective_tol = tol.OBJECTIVE_RTOL_EXACT
    certificate_tol = tol.KKT_TOL_INTERIOR_POINT
    memory_cap = GENERIC_MEMORY_LIMIT
    memory_advice = "use a fast solver for this size."
    INSTALL = {"csdp": "apt-get install coinor-csdp", "sdpa": "apt-get install sdpa"}

    def __init__(self, program: str):
        self.name = program
        self.program = program

    def availability(self) -> tuple[bool, str]:
        if shutil.which(self.program) is None:
            return (
                False,
                f"not installed: {self.INSTALL[self.program]} (the {self.program} "
                "program is not on PATH)",
            )
        return True, ""

    def memory_bytes(self, formulation: Formulation, options=None) -> int:
        """A dense Schur complement of (n(n+1)/2)² entries, as the CVXPY interior-point
        solvers' (:data:`~kernelsdp.solvers.conic.INTERIOR_POINT_BYTES_PER_ENTRY`)."""
        n = formulation.psd_dim
        t = n * (n + 1) // 2
        return 8 * 16 * max(int(formulation.n), 1) + INTERIOR_POINT_BYTES_PER_ENTRY * t * t

    def run(self, formulation: Formulation, options: ExternalOptions) -> Result:
        ok, reason = self.availability()
        if not ok:
            return Result.failure(
                formulation.name,
                self.name,
                Termination.SOLVER_UNAVAILABLE,
                f"solver {self.name!r} is unavailable: {reason}",
            )
        t0 = time.perf_counter()
        model = formulation.build()
        try:
            form, _, chain, inverse = canonical_of(model.problem, use_quad_obj=False)
        except (ValueError, cp.error.DCPError) as exc:
            raise InvalidDataError(
                f"CVXPY cannot hand this problem to {self.name}: {exc}"
            ) from None
        layout = sdpa_of_form(form, formulation.name)
        t1 = time.perf_counter()
        run = self.execute(layout, options)
        sol = CanonicalSolution(
            form,
            run.status,
            run.x,
            run.y,
            run.ray,
            self.name,
            t1 - t0,
            run.seconds,
            stats={"message": run.message},
        )
        if sol.x is not None and sol.y is not None:
            _unpack(model.problem, chain, inverse, sol)
            sol.violations = constraint_violations(model.problem)
        return external_result(formulation, model, sol, self.certificate_tol, options, run.message)

    def execute(self, layout: SDPALayout, options: ExternalOptions) -> Run:
        """Write the problem, run the program under the time limit, read its answer."""
        with tempfile.TemporaryDirectory(prefix=f"kernelsdp-{self.program}-") as d:
            path = os.path.join(d, "problem.dat-s")
            with open(path, "w") as fh:
                fh.write(write_sdpa(layout.sdpa))
            out = os.path.join(d, "problem.sol" if self.program == "csdp" else "problem.out")
            argv = self._argv(d, path, out, options)
            t0 = time.perf_counter()
            code, log = _run_killable(argv, d, options.time_limit)
            seconds = time.perf_counter() - t0
            if options.verbose and log:
                sys.stderr.write(log)
            if code is None:
                return Run(
                    layout,
                    cp.USER_LIMIT,
                    seconds=seconds,
                    message=f"{self.name} killed at the time limit ({options.time_limit:g} s)",
                )
            if not os.path.exists(out):
                return Run(
                    layout,
                    cp.SOLVER_ERROR,
                    seconds=seconds,
                    message=f"{self.name} exited with code {code} and wrote no solution: "
                    f"{_last_line(log)}",
                )
            try:
                sol = (
                    read_csdp_solution(out, layout.sdpa, code)
                    if self.program == "csdp"
                    else read_sdpa_output(out, layout.sdpa)
                )
            except KernelSDPError as exc:  # the program's file, not the user's: a failure
                return Run(
                    layout,
                    cp.SOLVER_ERROR,
                    seconds=seconds,
                    message=f"{self.name}'s solution could not be read: {exc}",
                )
        can = canonical_solution(layout, sol, sol.status or cp.SOLVER_ERROR, self.name)
        return Run(layout, can.status, can.x, can.y, can.ray, seconds, sol.claim)

    def _argv(self, folder: str, path: str, out: str, o: ExternalOptions) -> list[str]:
        if self.program == "csdp":
            lines = [f"{k}={o.tol:.6e}" for k in ("axtol", "atytol", "objtol")] if o.tol else []
            lines += [f"maxiter={o.max_iter}"] if o.max_iter else []
            lines += [] if o.perturb_objective else ["perturbobj=0"]
            with open(os.path.join(folder, "param.csdp"), "w") as fh:
                fh.write("\n".join(lines + ["printlevel=1"]) + "\n")
            return ["csdp", path, out]
        params = os.path.join(folder, "param.sdpa")
        with open(params, "w") as fh:
            fh.write(SDPA_PARAMS.format(max_iter=o.max_iter or 100, tol=o.tol or 1e-7))
        return ["sdpa", "-ds", path, "-o", out, "-p", params]


def _run_killable(argv: list[str], cwd: str, limit: float | None) -> tuple[int | None, str]:
    """(exit code, log) of the program, or (None, log) when it was killed at ``limit``: it
    runs in its own process group, and the whole group is killed."""
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    try:
        log, _ = proc.communicate(timeout=limit)
        return proc.returncode, log
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        log, _ = proc.communicate()
        return None, log
    finally:
        if proc.poll() is None:  # an exception (Ctrl-C) while it ran
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _last_line(log: str) -> str:
    lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
    return lines[-1][:200] if lines else "(no output)"


def _unpack(problem: cp.Problem, chain, inverse, sol: CanonicalSolution) -> None:
    """Give the user's variables and constraints their values, through CVXPY's own chain
    (Clarabel's inversion of a result holding the external x and y)."""
    word = _CLARABEL_WORD.get(sol.status)
    if word is None or sol.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE, cp.USER_LIMIT):
        return
    raw = types.SimpleNamespace(
        status=word,
        x=sol.x,
        z=sol.y,
        s=None,
        iterations=None,
        solve_time=sol.solve_time_s,
        obj_val=float(sol.form.c @ sol.x),
    )
    # "may be inaccurate" is carried by the status; a CVXPY whose Clarabel inversion reads
    # other fields leaves the values unset
    with (
        warnings.catch_warnings(),
        contextlib.suppress(cp.error.SolverError, AttributeError, KeyError),
    ):
        warnings.simplefilter("ignore", UserWarning)
        problem.unpack_results(raw, chain, inverse)


def external_result(
    formulation: Formulation,
    model,
    sol: CanonicalSolution,
    tol_: float,
    options: ExternalOptions | None = None,
    message: str = "",
    cert: Certificate | None = None,
) -> Result:
    """The :class:`Result` of an external answer, its status from the certificate
    (:func:`kernelsdp.solvers.conic.honest_status`'s rule; ``cert``: one already computed,
    as for a solution file, which is then never re-solved)."""
    name, setup, solve_s = sol.solver, sol.setup_time_s, sol.solve_time_s
    info = {"cvxpy_status": sol.status, "program": message}
    if sol.status in _NO_POINT or sol.x is None:
        termination = _NO_POINT.get(sol.status, Termination.NUMERICAL_ERROR)
        text = f"{name} reports {sol.status}" + (f" ({message})" if message else "") + "."
        if sol.status == cp.USER_LIMIT and options is not None and options.time_limit:
            termination = Termination.TIME_LIMIT
        if termination in (Termination.INFEASIBLE, Termination.UNBOUNDED):
            cert = cert or conic_certificate(sol, tol_)
            if not cert.passed:
                termination = Termination.UNCERTIFIED
                text = (
                    f"{text[:-1]}, but its {cert.kind} certificate fails: {', '.join(cert.failed)}"
                )
        return Result.failure(
            formulation.name,
            name,
            termination,
            text,
            setup_time_s=setup,
            solve_time_s=solve_s,
            canonical=sol,
            info=info,
        )
    limit = Termination.ITERATION_LIMIT if sol.status == cp.USER_LIMIT else None
    termination, point, text = (
        honest_status(sol, tol_, limit)
        if cert is None
        else status_from_certificate(sol, cert, tol_, limit)
    )
    read = formulation.from_cvxpy(model) if model is not None else {}
    a, b = formulation.objective_map()
    f = sol.form
    value = f.sense * f.objective(sol.x)
    dual = f.sense * (f.dual_objective(sol.x, sol.y) if sol.y is not None else f.objective(sol.x))
    claimed = sorted(a * v + b for v in (value, dual))
    return Result(
        formulation=formulation.name,
        solver=name,
        termination=termination,
        point=point,
        objective=read.get("objective", a * value + b),
        kernel=read.get("kernel"),
        primal=read.get("primal", {}),
        duals=read.get("duals", {}),
        setup_time_s=setup,
        solve_time_s=solve_s,
        lower_bound=claimed[0],
        upper_bound=claimed[1],
        canonical=sol,
        message=text,
        info=info,
    )


def certify_solution_file(
    problem_path: str,
    solution_path: str,
    fmt: str | None = None,
    tol_: float = CERTIFY_TOL,
    claim: str | None = None,
) -> tuple[Result, Certificate, float]:
    """(result, certificate, seconds to certify) of an SDPA-format solver's solution file for
    the SDPA file ``problem_path`` — read, mapped and certified, never solved
    (:func:`kernelsdp.certificate.external.certify_sdpa_solution`)."""
    sdpa = read_sdpa(problem_path)
    sol = read_solution(solution_path, sdpa, fmt)
    t0 = time.perf_counter()
    model = sdpa.to_cvxpy()
    cert, can = certify_sdpa_solution(sdpa_layout(sdpa, model), sol, tol_, claim)
    seconds = time.perf_counter() - t0
    can.solver = f"{sol.fmt}-file"
    f = CvxpyProblem(model, label=os.path.basename(problem_path))
    result = external_result(f, None, can, tol_, message=sol.claim, cert=cert)
    result.info["cvxpy_status"] = sol.status or "none"
    return result, cert, seconds


def external_solvers() -> list[ExternalSDPSolver]:
    """CSDP and SDPA, in that order (listed whether or not installed)."""
    return [ExternalSDPSolver("csdp"), ExternalSDPSolver("sdpa")]
