"""Spectral kernel re-weighting (seed 002; docs/spectral_metric.md): a QP in β.

    min_β  J_S(β) = βᵀ D_S β    s.t.  1ᵀβ = c   [β ≥ 0, optional]

with d_r = (1/|S|) Σ_{(i,j)∈S} ((e_i − e_j)ᵀ v_r)² over the similar pairs only (v_r the
basis vectors of :mod:`kernelsdp.data.spectral_basis`, W v_αr for the landmark version) and
c = Σ_r √λ_r, so that β_r = √λ_r (the base kernel) is feasible.  A d_r = 0 is raised to
``D_FLOOR``·max d (docs/spectral_metric.md §1).  The closed form
β* = c D⁻¹1 / 1ᵀD⁻¹1 is positive, so it also solves the β ≥ 0 variant.
The learned kernel is K_β = Σ β_r² (basis_r)(basis_r)ᵀ: the factor basis·diag(β).

**Certificate**, for any solver returning β and the multiplier ρ of 1ᵀβ = c: the dual
function g(ρ) = min_β βᵀDβ − ρ(1ᵀβ − c) = ρc − Σ_r ψ(ρ)/(4d_r), with ψ(ρ) = ρ² (β free) or
(ρ₊)² (β ≥ 0), bounds the optimum below for every ρ; the interval is [g(ρ), βᵀDβ], with the
equality, sign and stationarity (2Dβ = ρ1, or its complementary form) residuals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np

from .. import tolerances as tol
from ..certificate import ESTIMATE, OPTIMALITY, PROOF, Certificate, feasibility_only
from ..certificate.simple_sets import corrected_quadratic_up
from ..data.spectral_basis import (
    EIG_RTOL,
    SpectralBasis,
    choose_landmarks,
    full_basis,
    landmark_basis,
    median_gamma,
    validate_points_pairs,
)
from ..declarations import Input
from ..errors import InvalidDataError, InvalidParameterError
from ..linalg.rounding import down, gamma, up
from ..result import KernelFactor
from ..validation import check_int, check_positive
from .base import (
    DATASET,
    N_POINTS,
    PROBLEM,
    RATIO,
    SEED,
    CvxpyModel,
    Formulation,
    dataset_points,
    require_keys,
)

D_FLOOR = 1e-12


@dataclass
class SpectralMetric(Formulation):
    d: np.ndarray
    c: float
    nonneg: bool = False
    basis: np.ndarray | None = None  # (n, p) coordinates of the training points
    spectral: SpectralBasis | None = field(default=None, repr=False)  # to embed new points

    name: ClassVar[str] = "spectral-metric"
    #: small and well conditioned: an interior-point answer must meet the closed form to
    #: SPECTRAL_QP_RTOL (issue #6's bar); SCS's objective keeps its first-order tolerance
    TOLERANCES: ClassVar[dict[str, tuple[float, float]]] = {
        "interior-point": (tol.SPECTRAL_QP_RTOL, tol.SPECTRAL_QP_KKT_TOL_INTERIOR_POINT),
        "first-order": (tol.OBJECTIVE_RTOL_FIRST_ORDER, tol.SPECTRAL_QP_KKT_TOL_INTERIOR_POINT),
    }
    NPZ_KEYS: ClassVar[dict[str, str]] = {
        "X": "(n, D) points",
        "pairs": "(m, 2) point indices of the constrained pairs",
        "labels": "(m,) +1 similar / -1 dissimilar; only +1 pairs enter J_S",
        "gamma, n_landmarks, n_neighbors (optional)": "RBF width (default 1/median sq. distance), "
        "landmarks (default: the full version), neighbours (10)",
    }

    def __post_init__(self) -> None:
        d = np.asarray(self.d, dtype=float).ravel()
        if d.size == 0 or not np.all(np.isfinite(d)) or np.any(d < 0):
            raise InvalidDataError("D_S must be a non-empty vector of finite, nonnegative entries.")
        self.d = np.maximum(d, D_FLOOR * max(float(d.max()), 1e-300))
        self.c = float(self.c)

    @classmethod
    def from_basis(
        cls, coords: np.ndarray, lam: np.ndarray, similar: np.ndarray, nonneg: bool = False
    ) -> SpectralMetric:
        """D_S from the basis coordinates of the points in the similar pairs (eq. for d_r)."""
        diff = coords[similar[:, 0]] - coords[similar[:, 1]]
        return cls(
            d=np.mean(diff**2, axis=0), c=float(np.sum(np.sqrt(lam))), nonneg=nonneg, basis=coords
        )

    #: a .npz or a data set (pairs drawn as for NPKL), and the base kernel's options (each
    #: overrides the file's key of the same name)
    INPUTS: ClassVar[tuple[Input, ...]] = (
        PROBLEM,
        DATASET,
        N_POINTS,
        SEED,
        RATIO,
        Input(
            "gamma",
            float,
            low=0.0,
            open_low=True,
            file_key="gamma",
            help="RBF width (default 1/median squared distance)",
        ),
        Input(
            "n_landmarks",
            int,
            low=1,
            unit="points",
            file_key="n_landmarks",
            help="landmarks of the approximate basis (default: the full version)",
        ),
        Input(
            "n_neighbors",
            int,
            low=1,
            file_key="n_neighbors",
            help="neighbours of each point among the landmarks (default 10)",
        ),
    )
    KERNEL_OPTIONS: ClassVar[tuple[str, ...]] = ("gamma", "n_landmarks", "n_neighbors")

    @classmethod
    def from_points(
        cls,
        X,
        pairs,
        labels=None,
        gamma=None,
        n_landmarks=None,
        n_neighbors=10,
        reg=1e-3,
        eig_rtol=EIG_RTOL,
        nonneg=False,
        seed=0,
    ) -> SpectralMetric:
        """Basis (full, or with ``n_landmarks``) of the RBF kernel on X, then D_S from the
        similar pairs (label +1; all pairs when ``labels`` is None)."""
        X, P = validate_points_pairs(X, pairs)
        if labels is not None:
            lab = np.asarray(labels, dtype=float).ravel()
            if lab.shape != (len(P),) or not np.all(np.isin(lab, (-1.0, 1.0))):
                raise InvalidDataError("labels must be one ±1 per pair.")
            P = P[lab > 0]
        if len(P) == 0:
            raise InvalidDataError("no similar (+1) pair: J_S is built from similar pairs only.")
        if not isinstance(n_neighbors, (int, np.integer)) or n_neighbors < 1:
            raise InvalidParameterError(
                f"The 'n_neighbors' parameter of SpectralMetric must be an "
                f"int >= 1. Got {n_neighbors!r} instead."
            )
        gamma = (
            median_gamma(X, seed=seed)
            if gamma is None
            else check_positive(gamma, "gamma", "SpectralMetric")
        )
        if n_landmarks is not None:
            check_int(n_landmarks, "n_landmarks", "SpectralMetric")
        if n_landmarks is None:
            spectral = full_basis(X, gamma, eig_rtol)
        else:
            marks = choose_landmarks(len(X), P, int(n_landmarks), seed=seed)
            spectral = landmark_basis(X, gamma, marks, n_neighbors, reg, eig_rtol)
        f = cls.from_basis(spectral.train_coordinates(), spectral.lam, P, nonneg=nonneg)
        f.spectral = spectral
        return f

    @classmethod
    def from_npz(cls, arrays, **params) -> SpectralMetric:
        require_keys(arrays, ("X", "pairs", "labels"), cls.name)
        opts = cls.file_values(arrays, {k: v for k, v in params.items() if k in cls.KERNEL_OPTIONS})
        return cls.from_points(arrays["X"], arrays["pairs"], arrays["labels"], **opts)

    @classmethod
    def from_dataset(cls, values) -> SpectralMetric:
        """A bundled data set, pairs drawn from its classes by NPKL's protocol (seed 000
        §6.1), the similar ones entering D_S."""
        from ..data.pairs import PairwiseConstraints

        X, y = dataset_points(values)
        pairs = PairwiseConstraints.from_labels(y, ratio=values["ratio"], seed=values["seed"])
        opts = {k: values[k] for k in cls.KERNEL_OPTIONS if values.get(k) is not None}
        return cls.from_points(
            X, np.column_stack([pairs.i, pairs.j]), pairs.t, seed=values["seed"], **opts
        )

    @property
    def n(self) -> int:
        return int(self.d.size)

    @property
    def psd_dim(self) -> int:
        return 0  # a diagonal QP: no semidefinite block

    def describe(self) -> dict[str, Any]:
        return {"formulation": self.name, "p": int(self.d.size), "c": self.c, "nonneg": self.nonneg}

    def objective(self, beta) -> float:
        b = np.asarray(beta, dtype=float)
        return float(b @ (self.d * b))

    def build(self) -> CvxpyModel:
        beta = cp.Variable(self.d.size, name="beta")
        cons = {"sum": cp.sum(beta) == self.c}
        if self.nonneg:
            cons["nonneg"] = beta >= 0
        problem = cp.Problem(
            cp.Minimize(cp.sum(cp.multiply(self.d, cp.square(beta)))), list(cons.values())
        )
        return CvxpyModel(problem, {"beta": beta}, cons)

    def from_cvxpy(self, model: CvxpyModel) -> dict[str, Any]:
        beta = np.asarray(model.variables["beta"].value, dtype=float)
        return {
            "primal": {"beta": beta},
            "kernel": self.kernel(beta),
            # CVXPY's Lagrangian adds y·(1ᵀβ − c): stationarity 2Dβ + y = 0, so ρ = −y
            "duals": {"rho": -float(np.ravel(model.constraints["sum"].dual_value)[0])},
        }

    def dual_value(self, rho: float) -> float:
        """g(ρ) = ρc − Σ_r ψ(ρ)/(4 d_r): a lower bound on the optimum for every ρ."""
        psi = max(rho, 0.0) ** 2 if self.nonneg else rho**2
        return float(rho * self.c - psi * np.sum(1.0 / (4.0 * self.d)))

    def certificate(self, result, tol: float) -> Certificate:
        """[g(ρ), βᵀDβ] with the KKT residuals of β (see the module docstring): both ends
        proofs — g(ρ) rounded down, and the value of an exact point of the constraint row
        near β rounded up (:mod:`kernelsdp.certificate.simple_sets`)."""
        beta = np.asarray(result.primal["beta"], dtype=float)
        measures = {
            "equality_violation": abs(beta.sum() - self.c) / max(abs(self.c), 1e-300),
            "negativity": (
                float(np.max(np.maximum(-beta, 0.0))) / max(abs(self.c), 1e-300)
                if self.nonneg
                else 0.0
            ),
        }
        upper, why = corrected_quadratic_up(self.d, beta, self.c, self.nonneg)
        up_label = PROOF if not why else ESTIMATE
        rho = result.duals.get("rho")
        if rho is None:
            return feasibility_only(tol, measures, upper, label=up_label, why=why)
        nu = 2 * self.d * beta - rho
        if self.nonneg:  # ν ≥ 0 and ν_r β_r = 0
            stat = max(
                float(np.max(np.maximum(-nu, 0.0))),
                float(np.max(np.abs(nu * beta))) / max(self.c, 1e-300),
            )
        else:
            stat = float(np.max(np.abs(nu)))
        measures["stationarity"] = stat / max(abs(rho), 1e-300)
        rho = float(rho)
        lower = self.dual_value(rho)
        psi = max(rho, 0.0) ** 2 if self.nonneg else rho**2
        err = gamma(self.d.size + 6) * (
            abs(rho * self.c) + psi * float(np.sum(1.0 / (4.0 * self.d)))
        )
        return Certificate(
            OPTIMALITY,
            tol,
            down(lower - up(err)),
            upper,
            PROOF,
            measures,
            ("stationarity",),
            note="lower bound: the dual function g(ρ)",
            upper_label=up_label,
            upper_why=why,
            scale=float(np.sum(self.d * beta * beta)),
        )

    def kernel(self, beta) -> KernelFactor | None:
        return None if self.basis is None else KernelFactor(self.basis * np.asarray(beta)[None])

    def closed_form(self) -> np.ndarray:
        inv = 1.0 / self.d
        return self.c * inv / inv.sum()
