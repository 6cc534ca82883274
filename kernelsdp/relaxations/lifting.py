"""A lifted convex model of a QCQP, with its maps: solve it with one named solver, read its
proven bound, its multipliers and its point, and recover points of the QCQP.

The lifted matrix Y is [[1, xᵀ], [x, X]] (Shor's form, and the top-left block of the
moment matrix) or, for the homogenised simplex lifting, Z ≈ xxᵀ itself.
:meth:`Relaxation.solve` runs one solver (``kernelsdp.solvers``) on ``problem`` and
certifies the answer (``kernelsdp.verify.certify``); :attr:`Relaxation.bound` is then the
certificate's **proven** end — the lower end of a minimisation, the upper end of a
maximisation (``Certificate.proven_bound``) — or None when the certificate does not prove
it.  The point's value (:attr:`Relaxation.value`) is reported beside it and never stands in
for it.  Everything after a solve (bound, multipliers, recovery) reads that one solve, kept
as a snapshot, whatever else later solves the same ``problem``.

**Multipliers.**  The lifted row of each constraint of the QCQP carries that constraint's
Lagrange multiplier: Shor's relaxation is the dual of the Lagrangian dual
L(x, λ, μ) = f(x) + Σλᵢgᵢ(x) + Σμⱼhⱼ(x) (λ ≥ 0; for a maximisation f − Σλᵢgᵢ − …),
and the multiplier of Y ⪰ 0 is the matrix of L (Shor 1987; Boyd & Vandenberghe, Convex
Optimization §5.2.4, §B.1).  :meth:`Relaxation.multipliers` returns them by constraint
group, in CVXPY's sign convention (≥ 0 for an inequality).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cvxpy as cp
import numpy as np

from ..errors import InvalidParameterError, UnknownNameError
from .qcqp import QCQP

#: constraint groups that are constraints of the QCQP itself (their duals are its multipliers)
QCQP_GROUPS = (
    "quadratic_inequalities",
    "quadratic_equalities",
    "linear_equalities",
    "linear_inequalities",
    "lower_bounds",
    "upper_bounds",
    "binary",
    "spin",
)


@dataclass
class Solved:
    """One solve of a relaxation: the solver, what it said (CVXPY's status), the point's value
    (reported, never a bound), the certificate, and a snapshot of the lifted point and the
    duals."""

    solver: str
    status: str
    value: float | None
    certificate: Any
    Y: np.ndarray | None
    duals: dict[str, list]
    time_s: float
    #: the solver's own time (CVXPY's canonicalisation and the certificate excluded)
    solve_time_s: float = 0.0


@dataclass
class Relaxation:
    """A lifted convex model of a QCQP, with handles to read its solution."""

    name: str
    qcqp: QCQP
    problem: cp.Problem
    Y: cp.Variable
    homogeneous: bool = False
    constraints: dict[str, list] = field(default_factory=dict)
    #: redundant rows stated so that the certificate finds a-priori bounds: group → what
    a_priori: dict[str, str] = field(default_factory=dict)
    solved: Solved | None = None

    # ----- one solve, certified ---------------------------------------------------------------
    def solve(
        self, solver: str = "clarabel", time_limit: float | None = None, **options
    ) -> Relaxation:
        """Solve the lifted model with the named CVXPY conic solver (clarabel, scs, mosek, …)
        through the canonical path (:func:`kernelsdp.certificate.solve_canonical`) and
        certify the answer at ``CERTIFY_TOL``; ``options`` are the solver's own CVXPY
        keywords; returns self.  (The relaxations sit below the solver registry: they read
        the solvers' option names from :mod:`kernelsdp.certificate.backends`.)"""
        from .. import tolerances
        from ..certificate import conic_certificate, no_point, solve_canonical
        from ..certificate.backends import backend, option_names

        name = solver.upper()
        if name not in cp.installed_solvers():
            raise UnknownNameError(
                f"unknown or uninstalled solver {solver!r} for a relaxation; "
                f"installed: {', '.join(s.lower() for s in cp.installed_solvers())}."
            )
        opts = {**backend(name).defaults, **option_names(name, time_limit=time_limit), **options}
        t0 = time.perf_counter()
        try:
            sol = solve_canonical(self.problem, name, **opts)
        except cp.error.SolverError as exc:  # the solver failed outright: a status, no point
            sol, status = None, f"solver_error: {exc}"
        elapsed = time.perf_counter() - t0
        if sol is None:
            cert, value = no_point(tolerances.CERTIFY_TOL, status), None
        else:
            status = sol.status
            cert = conic_certificate(sol, tolerances.CERTIFY_TOL)
            value = None if sol.x is None else sol.form.sense * sol.form.objective(sol.x)
        usable = sol is not None and sol.x is not None and self.Y.value is not None
        Y = np.array(self.Y.value, dtype=float) if usable else None
        duals = {
            k: [
                None if c.dual_value is None else np.array(c.dual_value, dtype=float) for c in group
            ]
            for k, group in self.constraints.items()
        }
        self.solved = Solved(
            solver.lower(),
            status,
            value,
            cert,
            Y,
            duals,
            elapsed,
            0.0 if sol is None else sol.solve_time_s,
        )
        return self

    @property
    def solver(self) -> str | None:
        return None if self.solved is None else self.solved.solver

    @property
    def certificate(self):
        return None if self.solved is None else self.solved.certificate

    @property
    def bound(self) -> float | None:
        """The certificate's proven end (lower for a minimisation, upper for a maximisation)
        of the last :meth:`solve`; None before a solve or when it is not a proof."""
        if self.solved is None:
            return None
        return self.solved.certificate.proven_bound(self.qcqp.maximize)

    @property
    def value(self) -> float | None:
        """The lifted model's value at the solver's point: reported, never a bound."""
        return None if self.solved is None else self.solved.value

    # ----- the lifted point -------------------------------------------------------------------
    def lifted_matrix(self, current: bool = False) -> np.ndarray | None:
        """Y of the last :meth:`solve` (``current``: whatever ``Y`` holds now)."""
        if current or self.solved is None:
            return None if self.Y.value is None else np.array(self.Y.value, dtype=float)
        return self.solved.Y

    def solution(self, current: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(x, X): first and second moments of the lifted point.  For the homogeneous form
        x = √diag Z and X = Z."""
        Y = self.lifted_matrix(current)
        if Y is None:
            raise InvalidParameterError(
                f"relaxation {self.name!r} has no lifted point: "
                "call solve() first (or its solver returned none)."
            )
        Y = (Y + Y.T) / 2
        if self.homogeneous:
            return np.sqrt(np.maximum(np.diag(Y), 0.0)), Y
        d = self.qcqp.d
        return Y[1 : d + 1, 0].copy(), Y[1 : d + 1, 1 : d + 1].copy()

    def multipliers(self) -> dict[str, np.ndarray]:
        """The QCQP's Lagrange multipliers read from the lifted duals of the last solve:
        group → one value per constraint (see the module docstring for the signs)."""
        if self.solved is None:
            raise InvalidParameterError("multipliers come from a solve: call solve() first.")
        out = {}
        for k in QCQP_GROUPS:
            vals = self.solved.duals.get(k)
            if vals and all(v is not None for v in vals):
                out[k] = np.concatenate([np.ravel(v) for v in vals])
        return out

    # ----- back to the QCQP -------------------------------------------------------------------
    def recover(
        self,
        *,
        draws: int = 64,
        seed: int = 0,
        polish: bool = True,
        keep: int = 8,
        feasible: Callable | None = None,
        refine: Callable | None = None,
        current: bool = False,
    ):
        """Points of the QCQP from the lifted point (:func:`.recovery.recover`): the last
        :meth:`solve`'s, after a Clarabel solve if there was none; ``current=True`` rounds
        what ``Y`` holds now (a solve run elsewhere, e.g. by a formulation's solver)."""
        from .recovery import recover

        if self.solved is None and not current:
            self.solve()
        return recover(
            self,
            draws=draws,
            seed=seed,
            polish=polish,
            keep=keep,
            feasible=feasible,
            refine=refine,
            current=current,
        )

    def invert(self, feasible: Callable | None = None, polish: Callable | None = None):
        """(point, value, tightness report): :meth:`recover`'s best point, for callers of the
        first version (``polish`` there is a problem-specific refinement)."""
        rec = self.recover(feasible=feasible, refine=polish)
        best = rec.best
        return (
            (None if best is None else best.x),
            (None if best is None else best.value),
            rec.report,
        )
