"""The standard quadratic program (StQP) of seed 003, and its SDP₁ relaxation.

    min αᵀQα   s.t.  1ᵀα = 1, α ≥ 0          (nonconvex unless Q is copositive-PSD)

The nonconvex problem is declared once here (``original()``, a QCQP); its convex CVXPY model
is the relaxation named by the ``relaxation`` parameter (:mod:`kernelsdp.relaxations`):
``sdp1`` (default), the doubly nonnegative relaxation SDP₁ (min tr(QZ) s.t. 1ᵀZ1 = 1,
Z ⪰ 0, Z ≥ 0), or ``dnn``, the same cone in Shor's inhomogeneous form (with Xa = x; its
bound equals SDP₁'s).  Plain ``shor`` is refused: its model is unbounded whenever Q has a
negative direction orthogonal to 1.  A generic conic solver therefore returns the
relaxed bound (the result's ``lower_bound``) and a rounded feasible α whose value is the result's
objective; the exact and local solvers work on Q directly.

``face_point(S)`` solves the KKT system of the problem restricted to the face
{α ≥ 0, α_i = 0 for i ∉ S}: Q_SS α_S = μ1, 1ᵀα_S = 1.  ``global_minimum`` enumerates
every face with it (the exact solver, and the certificate's exact lower bound for
d ≤ ``EXACT_MAX_D``); rounding polishes its point with it (docs/ncut_stqp.md).

**Certificate** (:meth:`StQP.certificate`): the interval [lower, αᵀQα] for the returned α
on the simplex, where lower is the largest of (i) the exact minimum by face enumeration
(d ≤ ``EXACT_MAX_D``: a proof by exhaustion, computed by the certificate itself), (ii) the
SDP₁ bound of this result's own conic solve, when its generic certificate makes it
rigorous, and (iii) for larger d without one, the SDP₁ bound of a fresh Clarabel solve,
certified the same way.  A point passes only when its value meets that bound: a local
minimum, or a rounding of a relaxation that is not tight, is a feasible point, not a
certified optimum.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..certificate import (
    ESTIMATE,
    OPTIMALITY,
    PROOF,
    Certificate,
    conic_certificate,
    solve_canonical,
)
from ..certificate.simple_sets import corrected_quadratic_up
from ..declarations import Input, parameter
from ..errors import InvalidDataError, TooLargeError
from ..linalg.rounding import down
from ..relaxations import QCQP, relax, to_simplex
from ..validation import check_choice
from .base import (
    DATASET,
    N_POINTS,
    PROBLEM,
    SEED,
    WITH_DATASET,
    CvxpyModel,
    Formulation,
    require_keys,
)

#: a face solution counts as interior when all its entries exceed this
FACE_TOL = 1e-12
#: the liftings whose model of the standard QP is bounded (see the module docstring)
BOUNDED_LIFTINGS = ("sdp1", "dnn")
#: face enumeration visits 2^d − 1 faces: above this d it is refused
EXACT_MAX_D = 16
#: an entry of Z* counts as positive (Theorem 1 of seed 003) above this times max |Z*|
POSITIVE_RTOL = 1e-6


def elementwise_positive(Z: np.ndarray) -> bool:
    """Seed 003, Theorem 1's hypothesis: Z* > 0 elementwise (each entry above POSITIVE_RTOL
    times the largest), under which the rounding √diag Z* solves the StQP."""
    Z = np.asarray(Z, dtype=float)
    return bool(np.min(Z) > POSITIVE_RTOL * max(float(np.max(np.abs(Z))), 1e-300))


#: how a StQP is built from a data set: the N-cut surrogate of seed 003 (ncut_mkl.py)
N_EXAMPLES = Input(
    "n_examples",
    int,
    default=10,
    low=2,
    only_with="dataset",
    group=WITH_DATASET,
    help="random training examples (subsets of points) of the N-cut ratios",
)
EXAMPLE_SIZE = Input(
    "example_size",
    int,
    default=40,
    low=2,
    unit="points",
    only_with="dataset",
    group=WITH_DATASET,
    help="points per example",
)


@dataclass
class StQP(Formulation):
    Q: np.ndarray
    relaxation: str = parameter(
        "sdp1",
        "the convex lifting solved by a conic solver (docs/ncut_stqp.md §2)",
        BOUNDED_LIFTINGS,
    )

    name: ClassVar[str] = "stqp"
    relaxed_model: ClassVar[bool] = True
    NPZ_KEYS: ClassVar[dict[str, str]] = {"Q": "(d, d) matrix (symmetrised as (Q + Qᵀ)/2)"}
    #: a Q file, or the N-cut surrogate's Q from a data set (seed 003, ncut_mkl.py)
    INPUTS: ClassVar[tuple[Input, ...]] = (
        PROBLEM,
        DATASET,
        N_POINTS,
        SEED,
        N_EXAMPLES,
        EXAMPLE_SIZE,
    )

    def __post_init__(self) -> None:
        Q = np.asarray(self.Q, dtype=float)
        if Q.ndim != 2 or Q.shape[0] != Q.shape[1] or Q.shape[0] < 1:
            raise InvalidDataError(f"Q must be a square matrix; got shape {Q.shape}.")
        if not np.all(np.isfinite(Q)):
            raise InvalidDataError("Q contains NaN or infinite entries.")
        self.Q = (Q + Q.T) / 2
        self.relaxation = check_choice(self.relaxation, "relaxation", self.name, BOUNDED_LIFTINGS)

    @classmethod
    def from_dataset(cls, values) -> StQP:
        """The Q of N-cut kernel learning on a bundled data set (:class:`NCutMKL`)."""
        from .ncut_mkl import NCutMKL

        return cls(Q=NCutMKL.from_dataset(values).Q, **cls.given_parameters(values))

    @classmethod
    def from_npz(cls, arrays, **params) -> StQP:
        require_keys(arrays, ("Q",), cls.name)
        return cls(Q=arrays["Q"], **{k: v for k, v in params.items() if v is not None})

    @property
    def n(self) -> int:
        return int(self.Q.shape[0])

    @property
    def d(self) -> int:
        return self.n

    def describe(self) -> dict[str, Any]:
        return {"formulation": self.name, "d": self.d}

    def objective(self, alpha) -> float:
        a = np.asarray(alpha, dtype=float)
        return float(a @ self.Q @ a)

    # ----- the relaxation ---------------------------------------------------------------
    def original(self) -> QCQP:
        """The declared nonconvex problem: min αᵀQα s.t. 1ᵀα = 1, α ≥ 0."""
        return QCQP.build(self.Q, A=np.ones((1, self.d)), b=[1.0], nonneg=True)

    def build(self) -> CvxpyModel:
        rel = relax(self.original(), self.relaxation)
        return CvxpyModel(
            rel.problem,
            {"Y": rel.Y},
            {k: v[0] for k, v in rel.constraints.items() if v},
            relaxation=rel,
        )

    def from_cvxpy(self, model: CvxpyModel) -> dict[str, Any]:
        """Round back to the simplex (each scheme, polished on its face) and report; the point
        is the one this solve left in the model (``current=True``)."""
        rel = model.relaxation
        rec = rel.recover(feasible=to_simplex, refine=self.polish, current=True)
        alpha, rep = rec.best.x, rec.report
        return {
            "objective": self.objective(alpha),
            "primal": {"alpha": alpha},
            "info": {
                "tightness": rep.to_dict(),
                "rank": rep.rank,
                "rounding": rep.rounding,
                "relaxation": self.relaxation,
                "theorem1_condition": elementwise_positive(rel.lifted_matrix(current=True)),
            },
        }

    # ----- faces --------------------------------------------------------------------------
    def face_point(self, support) -> np.ndarray | None:
        """The stationary point of the face with this support, if unique and interior."""
        S = np.asarray(support, dtype=int)
        k = S.size
        M = np.zeros((k + 1, k + 1))
        M[:k, :k] = self.Q[np.ix_(S, S)]
        M[:k, k] = -1.0
        M[k, :k] = 1.0
        rhs = np.zeros(k + 1)
        rhs[k] = 1.0
        try:
            sol = np.linalg.solve(M, rhs)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(sol)) or np.min(sol[:k]) <= FACE_TOL:
            return None
        alpha = np.zeros(self.d)
        alpha[S] = sol[:k]
        return alpha

    def polish(self, alpha: np.ndarray, rtol: float = 1e-4) -> np.ndarray:
        """The face point on α's (numerical) support, when it exists and is better."""
        a = np.asarray(alpha, dtype=float)
        support = np.flatnonzero(a > rtol * a.max())
        p = self.face_point(support)
        return p if p is not None and self.objective(p) <= self.objective(a) else a

    def global_minimum(self) -> tuple[np.ndarray, int]:
        """(α*, faces visited): the best interior stationary point over all 2^d − 1 faces.
        The global minimum lies in the relative interior of some face, where it is
        stationary; a face whose system is singular attains its value on a smaller face."""
        d = self.d
        if d > EXACT_MAX_D:
            raise TooLargeError(
                f"the exact StQP oracle enumerates 2^d faces; d = {d} exceeds "
                f"its limit d <= {EXACT_MAX_D}. Use --solver local or a conic "
                "solver (SDP1 bound + rounding)."
            )
        best, best_val, faces = None, np.inf, 0
        for k in range(1, d + 1):
            for S in itertools.combinations(range(d), k):
                faces += 1
                a = self.face_point(S)
                if a is not None and self.objective(a) < best_val:
                    best, best_val = a, self.objective(a)
        return best, faces

    def certificate(self, result, tol: float) -> Certificate:
        """[best proven lower bound, αᵀQα] (see the module docstring): the upper end is the
        value of an exact simplex point near α, rounded up; the lower end is the SDP₁ bound
        of a conic certificate where its lower end is a proof.  The face enumeration's
        minimum (d ≤ EXACT_MAX_D) is exact in exact arithmetic, but its 2^d linear solves
        round without a bound: it is an estimate, used only where no proof is at hand."""
        a = np.asarray(result.primal["alpha"], dtype=float)
        measures = {
            "simplex_violation": max(abs(a.sum() - 1.0), max(0.0, -float(a.min()))),
            "kkt_violation": self.kkt_violation(a),
        }
        upper, why = corrected_quadratic_up(self.Q, a, 1.0, nonneg=True)
        up_label = PROOF if not why else ESTIMATE
        proofs, estimates = self._lower_bounds(result, tol)
        if proofs:
            (lower, how), label, lo_why = max(proofs), PROOF, ""
            # a proof weaker than the exhaustive estimate is still the one the label covers
        elif estimates:
            (lower, how), label = max(estimates), ESTIMATE
            lo_why = how + ": not a proof in floating point"
        else:
            return Certificate(
                OPTIMALITY,
                tol,
                None,
                upper,
                ESTIMATE,
                measures,
                ("kkt_violation",),
                note="no lower bound could be certified",
                upper_label=up_label,
                upper_why=why,
                lower_why="no lower bound",
            )
        return Certificate(
            OPTIMALITY,
            tol,
            lower,
            upper,
            label,
            measures,
            ("kkt_violation",),
            note="lower bound: " + how,
            upper_label=up_label,
            upper_why=why,
            lower_why=lo_why,
            scale=float(np.abs(a) @ np.abs(self.Q) @ np.abs(a)),
        )

    def _lower_bounds(self, result, tol: float) -> tuple[list, list]:
        """([(bound, how)] proven, [(bound, how)] estimates)."""
        proofs, estimates = [], []
        conic = [result.canonical] if result.canonical is not None else []
        if self.d <= EXACT_MAX_D:
            alpha, faces = self.global_minimum()
            estimates.append((self.objective(alpha), f"exact minimum over {faces} faces"))
        scales = [1.0] * len(conic)
        if not conic:  # a fresh SDP₁ solve of Q/max|Q| (Clarabel's tolerances are absolute:
            # the bound must not depend on Q's scale), mapped back below
            s = max(float(np.abs(self.Q).max()), 1e-300)
            conic.append(solve_canonical(StQP(self.Q / s).build().problem, "CLARABEL"))
            scales.append(s)
            scales = scales[-1:]
        for sol, s in zip(conic, scales):
            c = conic_certificate(sol, tol)
            if c.lower is None:
                continue
            bound = down(c.lower * s) if s != 1.0 else c.lower
            if c.lower_label == PROOF:
                proofs.append((bound, f"SDP1 bound of a {sol.solver} solve (proof)"))
            else:
                estimates.append((bound, f"SDP1 bound of a {sol.solver} solve (estimate)"))
        return proofs, estimates

    def kkt_violation(self, alpha: np.ndarray) -> float:
        """max_i (μ − (Qα)_i)₊ over the simplex, μ = αᵀQα: 0 at a KKT point."""
        g = self.Q @ alpha
        mu = float(alpha @ g)
        return float(max(0.0, np.max(mu - g))) / max(1.0, float(np.abs(self.Q).max()))
