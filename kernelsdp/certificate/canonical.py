"""A CVXPY problem in its canonical conic form, solved so that the point behind the answer
is kept: the one path by which every generic solver runs.

    (P)  min  ½xᵀPx + cᵀx + d   s.t.  s = Ax + b ∈ K
    (D)  the Lagrangian ½xᵀPx + cᵀx + d − yᵀ(Ax + b), y ∈ K* (y free on the zero cone)

is what ``problem.get_problem_data(solver)`` hands the solver (``data["param_prob"]``, the
program after ``format_constraints``; P = 0 unless the solver takes a quadratic objective).
:func:`solve_canonical` runs ``get_problem_data`` → ``solve_via_data`` → the solver's
``invert`` (which gives x and one dual vector per canonical constraint, in CVXPY's sign
convention, checked above for every row: stationarity reads Px + c − Aᵀy = 0) →
``unpack_results`` (so the user's variables get their values as after ``problem.solve``).
A Maximize problem is canonicalised as the minimisation of −f: ``sense`` = −1 maps back.

For an unbounded problem CVXPY drops the primal ray; it is read from the solver's raw
result (``x`` of Clarabel's and SCS's), where such a field exists.
"""

from __future__ import annotations

import contextlib
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cvxpy as cp
import numpy as np
import scipy.sparse as sp
from cvxpy.constraints import PSD, SOC, ExpCone, NonNeg, PowCone3D, Zero
from cvxpy.constraints.psd import SvecPSD

from ..linalg.rounding import Magnitude, magnitude
from .cones import Block
from .normal_equations import working_matrix


@dataclass
class CanonicalForm:
    """The data of (P): P (or None), c, d, A (CSR), b, the cone blocks, and the sense."""

    c: np.ndarray
    d: float
    A: sp.csr_matrix
    b: np.ndarray
    blocks: list[Block]
    sense: float = 1.0  # −1 when the user's problem is a Maximize
    P: sp.csr_matrix | None = None
    constraint_ids: list[int] = field(default_factory=list)

    @classmethod
    def from_problem_data(cls, data: dict, chain, problem: cp.Problem) -> CanonicalForm:
        prog = data[cp.settings.PARAM_PROB]
        quad = "P" in data
        out = prog.apply_parameters(quad_obj=quad)
        P, (c, d, A, b) = (sp.csr_matrix(out[0]), out[1:]) if quad else (None, out)
        solver = chain.solver
        blocks, ids, row = [], [], 0
        for con in prog.constraints:
            ids.append(con.id)
            blocks.extend(_blocks(con, row, solver))
            row += con.size
        if row != A.shape[0]:  # pragma: no cover - a CVXPY layout we do not know
            raise NotImplementedError(f"canonical rows {A.shape[0]} != constraint sizes {row}")
        sense = -1.0 if isinstance(problem.objective, cp.Maximize) else 1.0
        return cls(
            np.asarray(c, float).ravel(),
            float(np.asarray(d)),
            sp.csr_matrix(A),
            np.asarray(b, float).ravel(),
            blocks,
            sense,
            P,
            ids,
        )

    def derived(self, key: str, make: Callable[[], Any]) -> Any:
        """``make()``, computed once per form and kept under ``key``: what the proofs read
        again and again (Aᵀ with its magnitudes, the scaled form, the Slater checks).  A
        form's data are never changed after it is built — a changed problem is a new form
        (``dataclasses.replace``), which starts with nothing kept."""
        kept = self.__dict__.setdefault("_derived", {})
        if key not in kept:
            kept[key] = make()
        return kept[key]

    def magnitude(self, transposed: bool = False) -> Magnitude:
        """A (or Aᵀ) with |A| and its longest row, for the rounding bounds (kept).  A small A
        (:func:`.normal_equations.is_small`) is kept dense, Aᵀ a view of it: every product
        then counts all its terms (γ of the row's length, never less than the sparse
        count), and a small certificate's dozen products and two conversions cost what
        dense ones do (truss1's certificate 1.80 → 1.55 ms)."""
        D = working_matrix(self)
        if isinstance(D, np.ndarray):
            if transposed:
                return self.derived("AT", lambda: Magnitude(D.T, np.abs(D).T, D.shape[0]))
            return self.derived("A", lambda: magnitude(D))
        if transposed:
            return self.derived("AT", lambda: magnitude(self.A.T))
        return self.derived("A", lambda: magnitude(self.A))

    def objective(self, x: np.ndarray) -> float:
        """½xᵀPx + cᵀx + d (the minimised objective)."""
        return self._half(x) + float(self.c @ x) + self.d

    def dual_objective(self, x: np.ndarray, y: np.ndarray) -> float:
        """d − bᵀy − ½xᵀPx: the Lagrangian's value where it is stationary in x."""
        return self.d - float(self.b @ y) - self._half(x)

    def _half(self, x: np.ndarray) -> float:
        return 0.0 if self.P is None else 0.5 * float(x @ (self.P @ x))


def _blocks(con, start: int, solver) -> list[Block]:
    """The cone blocks of one canonical constraint, in row order."""
    if isinstance(con, Zero):
        return [Block("zero", start, start + con.size)]
    if isinstance(con, NonNeg):
        return [Block("nonneg", start, start + con.size)]
    if isinstance(con, SOC):
        out, r = [], start
        for k in con.cone_sizes():
            out.append(Block("soc", r, r + k))
            r += k
        return out
    if isinstance(con, (SvecPSD, PSD)):
        svec = isinstance(con, SvecPSD)
        n = con._n if svec else int(con.args[0].shape[-1])
        step = n * (n + 1) // 2 if svec else n * n
        return [
            Block(
                "psd",
                r,
                r + step,
                side=n,
                triangle=solver.PSD_TRIANGLE_KIND if svec else None,
                sqrt2=bool(getattr(solver, "PSD_SQRT2_SCALING", False)) if svec else False,
            )
            for r in range(start, start + con.size, step)
        ]
    if isinstance(con, ExpCone):
        order = tuple(solver.EXP_CONE_ORDER or (0, 1, 2))
        return [Block("exp", r, r + 3, order=order) for r in range(start, start + con.size, 3)]
    if isinstance(con, PowCone3D):
        alpha = np.ravel(con.alpha.value)
        return [
            Block("pow3d", start + 3 * k, start + 3 * k + 3, alpha=float(a))
            for k, a in enumerate(alpha)
        ]
    raise NotImplementedError(f"no certificate for the cone {type(con).__name__}")


@dataclass
class CanonicalSolution:
    """What a solver returned, in canonical terms: x, y (stacked in row order), a primal
    ray when the solver reports unboundedness, CVXPY's status, and the timings."""

    form: CanonicalForm
    status: str
    x: np.ndarray | None
    y: np.ndarray | None
    ray: np.ndarray | None = None
    solver: str = ""
    setup_time_s: float = 0.0
    solve_time_s: float = 0.0
    iterations: int | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    #: each user constraint's own violation at the returned point (CVXPY's ``violation()``;
    #: exponential and power cones skipped: CVXPY solves a problem to measure those)
    violations: dict[str, float] = field(default_factory=dict)
    #: certificates already computed for this answer, by (tol, resolve): the solver's status
    #: and verify read the same one instead of proving twice
    cache: dict = field(default_factory=dict, repr=False, compare=False)

    def replace_point(self, x=None, y=None, ray=None) -> CanonicalSolution:
        """A copy with another point (for perturbation tests and what-ifs)."""
        from dataclasses import replace

        return replace(
            self,
            x=self.x if x is None else np.asarray(x, float),
            y=self.y if y is None else np.asarray(y, float),
            ray=self.ray if ray is None else np.asarray(ray, float),
            cache={},
        )


def solve_canonical(
    problem: cp.Problem, solver: str, verbose: bool = False, **options
) -> CanonicalSolution:
    """Solve ``problem`` with the CVXPY solver ``solver`` (a name in ``cp.installed_solvers()``),
    keeping the canonical point; the user's variables and constraints get their values too.

    Raises ``cp.error.SolverError`` when the solver fails outright (no status to read) and
    CVXPY's own errors for a problem it cannot canonicalise (not DCP, unsupported cone).
    """
    t0 = time.perf_counter()
    data, chain, inverse = problem.get_problem_data(solver, solver_opts=dict(options))
    form = CanonicalForm.from_problem_data(data, chain, problem)
    t1 = time.perf_counter()
    # CVXPY's solver interfaces add to the options dict they are given: pass a copy
    raw = chain.solve_via_data(problem, data, False, verbose, dict(options))
    t2 = time.perf_counter()
    sol = chain.solver.invert(raw, inverse[-1])
    prog = data[cp.settings.PARAM_PROB]
    x = sol.primal_vars.get(prog.x.id) if sol.primal_vars else None
    duals = sol.dual_vars or {}
    y = None
    if duals and all(i in duals for i in form.constraint_ids):
        y = np.concatenate(
            [np.ravel(np.asarray(duals[i], dtype=float)) for i in form.constraint_ids]
        )
    ray = None
    if sol.status in (cp.UNBOUNDED, cp.UNBOUNDED_INACCURATE):
        raw_x = getattr(raw, "x", None) if not isinstance(raw, dict) else raw.get("x")
        ray = None if raw_x is None else np.asarray(raw_x, dtype=float).ravel()
    with warnings.catch_warnings():  # "may be inaccurate" is carried by the status
        warnings.simplefilter("ignore", UserWarning)
        # a SolverError is not raised: the status below says the solver failed
        with contextlib.suppress(cp.error.SolverError):
            problem.unpack_results(raw, chain, inverse)
    stats = dict(sol.attr or {})
    return CanonicalSolution(
        form,
        sol.status,
        None if x is None else np.asarray(x, float).ravel(),
        y,
        ray,
        solver.lower(),
        t1 - t0,
        t2 - t1,
        stats.get(cp.settings.NUM_ITERS),
        stats,
        constraint_violations(problem) if x is not None else {},
    )


def constraint_violations(problem: cp.Problem) -> dict[str, float]:
    """``#k Type(shape)`` → the largest violation of the user's constraint k at its value."""
    out = {}
    for k, c in enumerate(problem.constraints):
        if isinstance(c, (ExpCone, PowCone3D, cp.constraints.PowConeND)):
            continue
        try:
            v = c.violation()
        except (ValueError, TypeError):  # no value to measure
            continue
        out[f"#{k} {type(c).__name__}{tuple(c.shape)}"] = float(np.max(v, initial=0.0))
    return out
