"""One result type for every solver, generic or fast.

The status has two levels, as in MathOptInterface: *why the solver stopped*
(:class:`Termination`) and *how to read the returned point* (:class:`PointStatus`).
An iterative solver that stops at its iteration limit with a usable kernel reports
``ITERATION_LIMIT`` + ``NEARLY_FEASIBLE_POINT`` (or ``FEASIBLE_POINT``); a solver that
could not run reports ``SOLVER_UNAVAILABLE`` + ``NO_POINT`` and a message saying why.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .intervals import relative_width


# str + Enum, not StrEnum: StrEnum would change str()/format() of a member from
# 'Termination.OPTIMAL' to 'optimal', and messages format members (behaviour kept)
class Termination(str, enum.Enum):  # noqa: UP042 (StrEnum changes str() of a member)
    """Why the solver stopped."""

    OPTIMAL = "optimal"
    LOCALLY_SOLVED = "locally_solved"
    ALMOST_OPTIMAL = "almost_optimal"
    ITERATION_LIMIT = "iteration_limit"
    TIME_LIMIT = "time_limit"
    SLOW_PROGRESS = "slow_progress"  # stopped short of its tolerance, no limit reached
    #: the solver claimed an optimum, or an infeasibility/unboundedness, that the certificate
    #: computed from its own point, duals or ray does not confirm
    UNCERTIFIED = "uncertified"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    NUMERICAL_ERROR = "numerical_error"
    SOLVER_UNAVAILABLE = "solver_unavailable"


class PointStatus(str, enum.Enum):  # noqa: UP042 (as Termination: str() kept)
    """How to read the returned primal point."""

    FEASIBLE_POINT = "feasible_point"
    NEARLY_FEASIBLE_POINT = "nearly_feasible_point"
    INFEASIBLE_POINT = "infeasible_point"
    NO_POINT = "no_point"


@dataclass(frozen=True)
class KernelFactor:
    """A PSD kernel stored as a factor: K = U Uᵀ with U of shape (n, r).

    Nothing downstream needs K densely: entries, traces and products are computed from
    U.  ``dense()`` forms the n×n array on request only.
    """

    U: np.ndarray

    @property
    def n(self) -> int:
        return int(self.U.shape[0])

    @property
    def rank(self) -> int:
        return int(self.U.shape[1])

    def entries(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """K_ij for index arrays i, j (O(len(i)·r))."""
        return np.einsum("ij,ij->i", self.U[i], self.U[j])

    def trace(self) -> float:
        return float(np.sum(self.U * self.U))

    def frobenius_sq(self) -> float:
        """tr(KK) = ‖UᵀU‖_F² (O(n r²))."""
        G = self.U.T @ self.U
        return float(np.sum(G * G))

    def trace_product(self, M) -> float:
        """tr(M K) = tr(Uᵀ M U) for a dense or sparse symmetric M."""
        return float(np.sum(self.U * (M @ self.U)))

    def dense(self) -> np.ndarray:
        return self.U @ self.U.T

    @classmethod
    def from_eigh(cls, w: np.ndarray, V: np.ndarray, rtol: float = 1e-10) -> KernelFactor:
        """Factor from an eigen-decomposition, dropping eigenvalues ≤ rtol·max|λ|."""
        scale = max(float(np.max(np.abs(w))), 1e-300) if w.size else 1.0
        keep = w > rtol * scale
        return cls(V[:, keep] * np.sqrt(w[keep]))

    @classmethod
    def from_dense(cls, K: np.ndarray, rtol: float = 1e-10) -> KernelFactor:
        """Factor a (numerically) PSD matrix, dropping eigenvalues ≤ rtol·max|λ|."""
        K = np.asarray(K, dtype=float)
        return cls.from_eigh(*np.linalg.eigh((K + K.T) / 2), rtol=rtol)


@dataclass
class Result:
    """What every solver returns.

    Attributes
    ----------
    formulation, solver : registry names.
    termination, point : the two-level status.
    objective : the formulation's objective at the returned point (None without a point).
    kernel : the learned kernel as a :class:`KernelFactor` (None where there is none).
    primal : other primal values by name (StQP: ``alpha``, the simplex weights).
    duals : dual values where known, keyed by the formulation's names
        (NPKL: ``beta`` per-pair multipliers, ``lam`` capacity multiplier, ``Z`` the PSD
        multiplier when the solver computed it densely).
    setup_time_s, solve_time_s : wall-clock seconds spent building and solving.
    iterations : iterations of the solver (interior-point or fast method).
    history : one dict per iteration for iterative solvers (objective, gap, step, ...).
    info : anything else worth reporting (eigen method, rank, block sizes, ...).
    message : a readable sentence when something went wrong.
    lower_bound, upper_bound : the objective interval the solver *claims* (its own dual
        bound and its point's value; a relaxation's bound and its rounded value).  A claim,
        not a certificate: :func:`kernelsdp.verify.certify` recomputes its own.
    canonical : the canonical conic point of a generic solve (x, y, ray; see
        :mod:`kernelsdp.certificate.canonical`), from which the generic certificate is
        computed; None for fast solvers.
    certificate : the :class:`~kernelsdp.certificate.Certificate` of this result once it is
        certified (``kernelsdp solve`` and the estimators certify what they return): its
        interval's ends with their labels, proof or estimate, travel with the result.
    """

    formulation: str
    solver: str
    termination: Termination
    point: PointStatus
    objective: float | None = None
    kernel: KernelFactor | None = None
    primal: dict[str, Any] = field(default_factory=dict)
    duals: dict[str, Any] = field(default_factory=dict)
    setup_time_s: float = 0.0
    solve_time_s: float = 0.0
    iterations: int | None = None
    history: list[dict[str, float]] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    lower_bound: float | None = None
    upper_bound: float | None = None
    canonical: Any = field(default=None, repr=False)
    certificate: Any = field(default=None, repr=False)

    @property
    def gap(self) -> float | None:
        """The claimed interval's relative width (upper − lower) / (1 + |lower| + |upper|)."""
        if self.lower_bound is None or self.upper_bound is None:
            return None
        return relative_width(self.lower_bound, self.upper_bound)

    @property
    def ok(self) -> bool:
        """True when the point can be used as a solution."""
        return self.point in (PointStatus.FEASIBLE_POINT, PointStatus.NEARLY_FEASIBLE_POINT)

    @classmethod
    def failure(
        cls, formulation: str, solver: str, termination: Termination, message: str, **kw
    ) -> Result:
        """The one factory for results without a usable point."""
        return cls(
            formulation=formulation,
            solver=solver,
            termination=termination,
            point=PointStatus.NO_POINT,
            objective=None,
            message=message,
            **kw,
        )

    def summary(self) -> dict[str, Any]:
        """A JSON-ready summary (the CLI's ``--json`` output of ``solve``)."""
        return {
            "formulation": self.formulation,
            "solver": self.solver,
            "status": self.termination.value,
            "point": self.point.value,
            "objective": self.objective,
            "lower_bound": self.lower_bound,
            "upper_bound": self.upper_bound,
            "gap": self.gap,
            "setup_time_s": self.setup_time_s,
            "solve_time_s": self.solve_time_s,
            "iterations": self.iterations,
            "rank": None if self.kernel is None else self.kernel.rank,
            **{k: [float(x) for x in np.ravel(v)] for k, v in self.primal.items()},
            "n": None if self.kernel is None else self.kernel.n,
            "message": self.message,
            "info": {
                k: v
                for k, v in self.info.items()
                if isinstance(v, (int, float, str, bool)) or v is None
            },
            **(
                {}
                if self.certificate is None
                else {"certificate": _certificate_summary(self.certificate)}
            ),
        }


def _certificate_summary(c) -> dict[str, Any]:
    """The certificate's interval, each end's label and reason, and its verdict."""
    return {
        "lower": c.lower,
        "upper": c.upper,
        "lower_label": c.lower_label,
        "upper_label": c.upper_label,
        "lower_why": c.lower_why,
        "upper_why": c.upper_why,
        "width": c.width,
        "tol": c.tol,
        "verdict": c.verdict,
        "passed": c.passed,
    }
