"""NPKL — non-parametric kernel learning from pairwise constraints (seed 000 eq. 4).

    min_{K ⪰ 0}  tr(LK) + C Σ_{(i,j) ∈ Ω, once} ℓ(K_ij; T_ij)   [+ capacity]

with the losses of :mod:`.losses` and capacity ``none`` | ``trace`` (tr K ≤ B) |
``frobenius`` (tr KK ≤ B, seed 000 eq. 5).  **SimpleNPKL** (seed 000 eq. 6 and eq. 9) is
this same declaration with the Frobenius capacity; the registry exposes it under both
names.  Linear loss without capacity is unbounded as soon as C·T − L has a positive
eigenvalue: that is refused when the problem is constructed, before any solver runs.
Hinge and squared hinge without capacity are accepted with an :class:`IllPosedWarning`:
the one-sided losses let K grow along near-null directions of L, and the generic solvers
were measured to stop inaccurately there (relative disagreement 1e-3 to 1e-2).

The CVXPY model carries one auxiliary vector z = (K_ij)_{pairs} tied to K by equality
constraints; their multipliers β are the per-pair duals every verify check reads.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ..data.graph import knn_laplacian, validate_laplacian
from ..data.pairs import PairwiseConstraints
from ..declarations import parameter
from ..errors import IllPosedWarning, InvalidDataError, UnboundedProblemError
from ..linalg.extreme import largest_eigenvalue, lowest_eigenvalue
from ..linalg.positive_part import positive_eigenpairs
from ..result import KernelFactor
from ..validation import check_choice, check_positive
from . import npkl_inputs
from .base import CvxpyModel, Formulation, require_keys, scalar_key
from .losses import LOSSES
from .npkl_certificate import npkl_certificate

CAPACITIES = ("none", "trace", "frobenius")


@dataclass
class NPKL(Formulation):
    """Validated NPKL data: sparse Laplacian L (n×n), pairs, loss, capacity, C, B."""

    L: sp.csr_matrix
    pairs: PairwiseConstraints
    loss: str = parameter("linear", "pair loss (docs/npkl.md §2)", tuple(LOSSES))
    capacity: str = parameter(
        "frobenius", "capacity constraint: none, tr K <= B, tr KK <= B", CAPACITIES
    )
    C: float = parameter(1.0, "loss weight C > 0", low=0.0, open_low=True, file_key="C")
    B: float = parameter(1.0, "capacity bound B > 0", low=0.0, open_low=True, file_key="B")

    name: ClassVar[str] = "npkl"
    NPZ_KEYS: ClassVar[dict[str, str]] = {
        "L": "dense (n, n) graph Laplacian; or, instead, the CSR arrays below",
        "L_data, L_indices, L_indptr, L_shape": (
            "sparse Laplacian in CSR form "
            "(as scipy.sparse.save_npz writes data/indices/indptr/shape, prefixed L_)"
        ),
        "pairs": "(m, 2) integer point indices of the constrained pairs",
        "labels": "(m,) +1 for a must-link, -1 for a cannot-link",
        "C, B (optional)": "scalars; command-line flags take precedence",
    }

    def __post_init__(self) -> None:
        owner = "NPKL"  # SimpleNPKL is this declaration with capacity frobenius
        self.L = validate_laplacian(self.L)
        self.loss = check_choice(self.loss, "loss", owner, tuple(LOSSES))
        self.capacity = check_choice(self.capacity, "capacity", owner, CAPACITIES)
        self.C = check_positive(self.C, "C", owner)
        self.B = check_positive(self.B, "B", owner)
        if self.pairs.n != self.L.shape[0]:
            raise InvalidDataError(
                f"the pairs index {self.pairs.n} points but the Laplacian is "
                f"{self.L.shape[0]}×{self.L.shape[1]}."
            )
        if self.pairs.m == 0:
            raise InvalidDataError("at least one pairwise constraint is needed.")
        if self.loss == "linear" and self.capacity == "none":
            top = largest_eigenvalue(self.C * self.pairs.matrix() - self.L)
            if top > 1e-9:
                raise UnboundedProblemError(
                    "NPKL with linear loss and no capacity constraint is unbounded here "
                    f"(C·T − L has the positive eigenvalue {top:.4g}); add --capacity trace "
                    "or --capacity frobenius."
                )
        if self.loss in ("hinge", "squared-hinge") and self.capacity == "none":
            warnings.warn(
                f"NPKL with {self.loss} loss and no capacity may not attain its optimum: the "
                "loss is one-sided, so K can grow along near-null directions of L; conic "
                "solvers then stop inaccurately. Consider --capacity trace or frobenius.",
                IllPosedWarning,
                stacklevel=3,
            )

    # ----- construction -------------------------------------------------------------
    #: a .npz, a Laplacian with pairs, or a data set; the active selection (npkl_inputs)
    INPUTS = npkl_inputs.INPUTS

    @classmethod
    def from_inputs(cls, values: dict[str, Any]) -> NPKL:
        return npkl_inputs.from_inputs(cls, values)

    @classmethod
    def from_points(cls, X: np.ndarray, pairs: PairwiseConstraints, k: int = 5, **params) -> NPKL:
        """Laplacian of the mutual k-NN graph of X (seed 000 §4.1), then NPKL."""
        return cls(L=knn_laplacian(X, k), pairs=pairs, **params)

    @classmethod
    def from_npz(cls, arrays: dict[str, np.ndarray], **params) -> NPKL:
        csr = ("L_data", "L_indices", "L_indptr", "L_shape")
        if "L" in arrays:
            L = arrays["L"]
        elif not any(k in arrays for k in csr):
            raise InvalidDataError(
                f"the problem file for {cls.name} lacks the Laplacian: give "
                "the key L (dense n×n) or the keys "
                + ", ".join(csr)
                + f" (CSR); see 'kernelsdp solve {cls.name} --help'."
            )
        else:
            require_keys(arrays, csr, cls.name)
            from ..data.files import csr_from_arrays

            L = csr_from_arrays(
                arrays["L_data"],
                arrays["L_indices"],
                arrays["L_indptr"],
                arrays["L_shape"],
                "the problem file's L_ arrays",
            )
        require_keys(arrays, ("pairs", "labels"), cls.name)
        for key in ("C", "B"):
            if key in arrays and params.get(key) is None:
                params[key] = scalar_key(arrays, key, cls.name)
        params = {k: v for k, v in params.items() if v is not None}
        L = validate_laplacian(L)
        pairs = PairwiseConstraints.from_arrays(arrays["pairs"], arrays["labels"], L.shape[0])
        return cls(L=L, pairs=pairs, **params)

    @property
    def n(self) -> int:
        return int(self.L.shape[0])

    def describe(self) -> dict[str, Any]:
        return {
            "formulation": self.name,
            "n": self.n,
            "m": self.pairs.m,
            "loss": self.loss,
            "capacity": self.capacity,
            "C": self.C,
            "B": self.B,
            "nnz_L": int(self.L.nnz),
        }

    # ----- the declaration ----------------------------------------------------------
    def build(self) -> CvxpyModel:
        """CVXPY model of eq. 4 (+ eq. 5 when the capacity is Frobenius)."""
        n, P = self.n, self.pairs
        K = cp.Variable((n, n), symmetric=True, name="K")
        z = cp.Variable(P.m, name="z")
        Lc = self.L.tocoo()
        objective = Lc.data @ K[Lc.row, Lc.col] + LOSSES[self.loss].expr(z, P.t, self.C)
        cons = {"psd": K >> 0, "link": K[P.i, P.j] == z}
        if self.capacity == "trace":
            cons["capacity"] = cp.trace(K) <= self.B
        elif self.capacity == "frobenius":
            cons["capacity"] = cp.sum_squares(K) <= self.B
        problem = cp.Problem(cp.Minimize(objective), list(cons.values()))
        return CvxpyModel(problem, {"K": K, "z": z}, cons)

    def from_cvxpy(self, model: CvxpyModel) -> dict[str, Any]:
        K = np.asarray(model.variables["K"].value, dtype=float)
        w, V = np.linalg.eigh((K + K.T) / 2)  # once: the factor and the PSD residual
        kernel = KernelFactor.from_eigh(w, V)
        info = {"raw_min_eig_K": float(w[0])}
        duals: dict[str, Any] = {}
        link = model.constraints["link"].dual_value
        if link is not None:
            # CVXPY's Lagrangian adds y·(K_ij − z); our β multiplies K_ij: same sign.
            duals["beta"] = np.asarray(link, dtype=float).ravel()
        cap = model.constraints.get("capacity")
        duals["lam"] = (
            float(np.ravel(cap.dual_value)[0])
            if cap is not None and cap.dual_value is not None
            else 0.0
        )
        Z = model.constraints["psd"].dual_value
        if Z is not None:
            duals["Z"] = np.asarray(Z, dtype=float)
        return {"kernel": kernel, "duals": duals, "info": info}

    # ----- evaluation on a factor -----------------------------------------------------
    def pair_values(self, kernel: KernelFactor) -> np.ndarray:
        return kernel.entries(self.pairs.i, self.pairs.j)

    def objective(self, kernel: KernelFactor) -> float:
        z = self.pair_values(kernel)
        return kernel.trace_product(self.L) + float(
            np.sum(LOSSES[self.loss].value(z, self.pairs.t, self.C))
        )

    def value_at_zero(self) -> float:
        """P(0), the objective at K = 0 (feasible under every capacity): an a-priori level
        that every optimum lies below."""
        return float(np.sum(LOSSES[self.loss].value(np.zeros(self.pairs.m), self.pairs.t, self.C)))

    def capacity_value(self, kernel: KernelFactor) -> float:
        if self.capacity == "trace":
            return kernel.trace()
        if self.capacity == "frobenius":
            return kernel.frobenius_sq()
        return 0.0

    def certificate(self, result, tol: float):
        """NPKL's own certificate on the kernel factor (:mod:`.npkl_certificate`), for every
        solver, generic or fast."""
        return npkl_certificate(self, result, tol)

    def dual_matrix(self, beta: np.ndarray) -> sp.csr_matrix:
        """M(β) = L + Σ β_ij (e_i e_jᵀ + e_j e_iᵀ)/2 — the Lagrangian's linear term in K."""
        return (self.L + self.pairs.weighted_matrix(beta)).tocsr()

    # ----- the dual function: one formula for ADMM, the saddle point and verify ---------
    def dual_spectrum(self, beta: np.ndarray) -> float:
        """The spectral quantity g(β) needs: λ_min(M(β)) (trace, none) or ‖M(β)₋‖_F
        (Frobenius; = ‖(−M)₊‖_F, from the positive part of −M)."""
        M = self.dual_matrix(beta)
        if self.capacity == "frobenius":
            return positive_eigenpairs((-M).tocsr()).frobenius
        return lowest_eigenvalue(M)

    def dual_value(self, beta: np.ndarray, spectrum: float | None = None) -> float:
        """The dual function (docs/npkl.md §3), valid for every β in the domain of h*:

            g(β) = min_{K ⪰ 0, cap(K) ≤ B} tr(M(β)K) − Σ h*(β_ij)
                 = B·min(0, λ_min(M))  − Σ h*(β)     (trace:     tr K ≤ B)
                 = −√B·‖M₋‖_F          − Σ h*(β)     (Frobenius: tr KK ≤ B)
                 = −Σ h*(β) if M ⪰ 0, else −inf      (none)

        so g(β) ≤ the optimum, for any β.  ``spectrum`` is :meth:`dual_spectrum` when the
        caller already has it (the saddle point from its K-step, ADMM from its warm-started
        Lanczos); it is computed here otherwise."""
        beta = np.asarray(beta, dtype=float)
        if spectrum is None:
            spectrum = self.dual_spectrum(beta)
        conj = float(np.sum(LOSSES[self.loss].conjugate(beta, self.pairs.t, self.C)))
        if self.capacity == "frobenius":
            return -np.sqrt(self.B) * spectrum - conj
        if self.capacity == "trace":
            return self.B * min(0.0, spectrum) - conj
        return -conj if spectrum >= 0 else -np.inf


def simple_npkl(**kw) -> NPKL:
    """SimpleNPKL = NPKL with tr(KK) ≤ B (seed 000 eq. 5); the same declaration."""
    kw["capacity"] = "frobenius"
    return NPKL(**kw)
