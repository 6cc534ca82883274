"""Transformation learning via kernel alignment (seed 004; docs/tla.md).

Base transformations φ_1..φ_J (truncated ramps, :mod:`kernelsdp.data.ramps`); the learned
kernel is k(x, x') = Σ_ij M_ij φ_i(x)ᵀφ_j(x') (M = mmᵀ for a single transformation).
With Q_ij = (φ_i(X)ᵀy)ᵀ(φ_j(X)ᵀy) = ⟨φ_iᵀφ_j, yyᵀ⟩:

- **MWC-TLA** (eq. 13) is the Shor relaxation of its nonconvex original (eq. 12)
  max mᵀQm s.t. m ≥ 0, 1ᵀm ≤ 1, ‖m‖² ≤ 1, built by :func:`kernelsdp.relaxations.shor`:
  max ⟨M, Q⟩ s.t. [[1, mᵀ], [m, M]] ⪰ 0, m ≥ 0, 1ᵀm ≤ 1, tr M ≤ 1.  Its size is J only.
  As printed, m = 0 is feasible, so the optimum is λ_max(Q) with M = vvᵀ and v may mix
  ramps with both signs (a non-monotone transformation).  ``tightened=True`` adds the
  doubly-nonnegative cut M ≥ 0 (``shor(..., dnn=True)``): the leading eigenvector of an
  elementwise-nonnegative M is nonnegative (Perron–Frobenius), so the transformation it
  recovers is monotone.
- **NC-TLA** (eq. 11): max ⟨M, Q⟩ s.t. tr A ≤ 1, [[A, K_M], [K_M, I_n]] ⪰ 0,
  [[1, mᵀ], [m, M]] ⪰ 0, m ≥ 0, with K_M = Σ M_ij φ_iφ_jᵀ (n × n): its conic model is
  refused above ``BLOCK_MAX_N`` points with the memory it would need; the block says
  exactly ‖K_M‖_F ≤ 1, so ``schur-reduced`` (solvers/tla_reduced.py) solves it at J size.
- **LMTL** (eq. 2): the large-margin SDP, min t over M, m, t, λ, v ≥ 0, δ ≥ 0 with
  [[Y K_M Y, 1 + v − δ + λy], [·ᵀ, t − 2Cδᵀ1]] ⪰ 0 and the same [[1, mᵀ], [m, M]] ⪰ 0,
  m ≥ 0, 1ᵀm ≤ 1, tr M ≤ 1: an (n+1)-block, refused above ``BLOCK_MAX_N`` for conic
  solvers; ``extragradient`` (solvers/extragradient.py) solves its saddle point
  min_M max_α 2·1ᵀα − αᵀY K_M Yα in O(nJD) per step, certified by the SVM dual bound
  (from α) and the SVM primal bound (from M).
- **KA** (eq. 8): max qᵀm s.t. mᵀSm ≤ 1, m ≥ 0 with base kernels K_i = φ_iφ_iᵀ,
  q_i = ⟨K_i, yyᵀ⟩, S_ij = ⟨K_i, K_j⟩ (a convex QCQP; S is a Gram matrix).

**Certificates.**  A conic solve of any of the four is certified by the generic conic
certificate, mapped to the objective reported here (``objective_map``: KA and MWC-TLA are
solved in rescaled units).  MWC-TLA has its own, for any solver: ⟨M, Q⟩ ≤ λ_max(Q)·tr M ≤
max(λ_max(Q), 0) for every feasible M (M ⪰ 0, tr M ≤ 1), so [⟨M, Q⟩, λ_max(Q)₊] is a
rigorous interval — tight for the untightened relaxation (the closed form), a valid but
loose bound for the tightened one.  A point with no conic solve behind it and no such bound
(KA, NC-TLA, LMTL from elsewhere) has its feasibility checked and reads "feasibility only".
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np

from ..certificate import ESTIMATE, OPTIMALITY, Certificate, feasibility_only
from ..data.ramps import RampBasis, kernel_gram, label_alignment, validate_labels
from ..declarations import Input, parameter
from ..errors import InvalidParameterError, TooLargeError
from ..relaxations import QCQP, numerical_rank, relax
from ..tolerances import EIG_ZERO_RTOL
from ..validation import check_choice
from .base import (
    DATASET,
    N_POINTS,
    PROBLEM,
    SEED,
    CvxpyModel,
    Formulation,
    dataset_points,
    require_keys,
    scalar_key,
)
from .tla_proof import lmtl_lower, lmtl_upper, mwc_ends

#: NC-TLA and LMTL hold an n-sized PSD block; above this n they are refused.
BLOCK_MAX_N = 400
SIGN_TOL = 1e-6

_NPZ = {
    "X": "(n, D) training points",
    "y": "(n,) labels ±1",
    "ramps (optional)": "ramps per feature J (default 10; flag --ramps)",
}


def mixture_kernel(
    basis, M: np.ndarray, XA: np.ndarray, XB: np.ndarray | None = None
) -> np.ndarray:
    """Σ_ij M_ij φ_i(XA) φ_j(XB)ᵀ (for evaluation on modest n)."""
    FA = basis(XA)
    FB = FA if XB is None else basis(XB)
    return np.einsum("aid,ij,bjd->ab", FA, M, FB, optimize=True)


def weights_report(m: np.ndarray, M: np.ndarray) -> dict[str, Any]:
    """The relaxation's honesty: rank of M, ‖M − mmᵀ‖_F, signs of the recovered weights."""
    rank, w = numerical_rank(M)
    vals, vecs = np.linalg.eigh((M + M.T) / 2)
    v = vecs[:, -1] * np.sqrt(max(vals[-1], 0.0))
    v = v if v.sum() >= 0 else -v
    scale = max(float(np.abs(v).max()), 1e-300)
    return {
        "rank_M": rank,
        "M_minus_mmT": float(np.linalg.norm(M - np.outer(m, m))),
        "weights": [float(x) for x in v],
        "negative_weights": int(np.sum(v < -SIGN_TOL * scale)),
        "monotone": bool(np.all(v >= -SIGN_TOL * scale)),
        "norm_m": float(np.linalg.norm(m)),
    }


@dataclass
class _TLA(Formulation):
    Q: np.ndarray
    basis: Any = field(default=None, repr=False)
    n_points: int = 0

    NPZ_KEYS: ClassVar[dict[str, str]] = _NPZ
    #: a .npz or a data set (one class against the rest), and the number of ramps
    INPUTS: ClassVar[tuple[Input, ...]] = (
        PROBLEM,
        DATASET,
        N_POINTS,
        SEED,
        Input(
            "ramps",
            int,
            low=1,
            file_key="ramps",
            help="ramps per feature J (default 10; overrides the file's)",
        ),
    )
    #: whether the lifted point must satisfy 1ᵀm ≤ 1 and tr M ≤ 1 (not in NC-TLA, eq. 11)
    BOUNDED_MIXING: ClassVar[bool] = True

    @property
    def n(self) -> int:
        return int(self.Q.shape[0])

    @classmethod
    def from_npz(cls, arrays, **params):
        require_keys(arrays, ("X", "y"), cls.name)
        J = params.pop("ramps", None)
        if J is None:
            J = scalar_key(arrays, "ramps", cls.name, int) if "ramps" in arrays else 10
        extra = {k: v for k, v in params.items() if v}
        return cls.from_data(arrays["X"], arrays["y"], J=J, **extra)

    @classmethod
    def from_dataset(cls, values):
        """A bundled data set, its first class (in sorted order) labelled +1 and the others
        −1 (seed 004's problems are binary)."""
        X, y = dataset_points(values)
        y = np.where(y == np.unique(y)[0], 1.0, -1.0)
        extra = {k: v for k, v in cls.given_parameters(values).items() if v}
        return cls.from_data(X, y, J=values.get("ramps") or 10, **extra)

    maximize: ClassVar[bool] = True

    def describe(self) -> dict[str, Any]:
        return {"formulation": self.name, "J": self.n, "n": self.n_points}

    def feasibility(self, m: np.ndarray, M: np.ndarray | None) -> dict[str, float]:
        """Feasibility of (m, M): λ_min([[1, mᵀ], [m, M]]) ≥ 0, m ≥ 0 [, 1ᵀm ≤ 1, tr M ≤ 1]."""
        m = np.asarray(m, dtype=float)
        out = {"negativity_m": float(max(0.0, -m.min()))}
        if M is None:
            return out
        M = np.asarray(M, dtype=float)
        Y = np.block([[np.ones((1, 1)), m[None]], [m[:, None], M]])
        out["lifted_psd"] = float(max(0.0, -np.linalg.eigvalsh((Y + Y.T) / 2)[0]))
        if self.BOUNDED_MIXING:
            out["trace_violation"] = float(max(0.0, np.trace(M) - 1.0))
            out["sum_violation"] = float(max(0.0, m.sum() - 1.0))
        return out

    def certificate(self, result, tol: float) -> Certificate:
        if result.canonical is not None:
            return super().certificate(result, tol)
        measures = self.feasibility(result.primal["m"], result.primal.get("M"))
        return feasibility_only(tol, measures, result.objective, maximize=self.maximize)


@dataclass
class MWCTLA(_TLA):
    tightened: bool = parameter(False, "add the DNN cut M >= 0 (the same as --relaxation dnn)")
    relaxation: str | None = parameter(
        None, "shor (eq. 13 as printed) or dnn (tightened)", ("shor", "dnn")
    )
    name: ClassVar[str] = "mwc-tla"

    def __post_init__(self) -> None:
        if self.tightened and self.relaxation == "shor":
            raise InvalidParameterError(
                "mwc-tla: tightened means relaxation 'dnn'; got tightened with relaxation 'shor'."
            )
        if self.relaxation is None:
            self.relaxation = "dnn" if self.tightened else "shor"
        self.relaxation = check_choice(self.relaxation, "relaxation", self.name, ("shor", "dnn"))
        self.tightened = self.relaxation == "dnn"

    @classmethod
    def from_data(
        cls, X, y, J: int = 10, basis=None, tightened: bool = False, relaxation: str | None = None
    ) -> MWCTLA:
        X = np.asarray(X, dtype=float)
        y = validate_labels(y, len(X))
        basis = basis or RampBasis.fit(X, J)
        return cls(
            Q=label_alignment(basis, X, y),
            basis=basis,
            n_points=len(X),
            tightened=tightened,
            relaxation=relaxation,
        )

    @property
    def psd_dim(self) -> int:
        return self.n + 1

    def original(self) -> QCQP:
        """Eq. 12 as a minimisation: min −mᵀQm s.t. m ≥ 0, 1ᵀm ≤ 1, mᵀm ≤ 1 (redundant).

        Q is divided by max|Q_ij| (the maximiser does not change; at n = 10⁶ the entries of
        Q reach 1e9 and Clarabel then reported the problem unbounded); objectives are
        reported as ⟨M, Q⟩ with the unscaled Q."""
        J = self.n
        scale = max(float(np.abs(self.Q).max()), 1e-300)
        return QCQP.build(
            -self.Q / scale,
            G=np.ones((1, J)),
            h=[1.0],
            inequalities=[(np.eye(J), None, -1.0)],
            nonneg=True,
        )

    def objective(self, M) -> float:
        return float(np.sum(self.Q * np.asarray(M)))

    def objective_map(self) -> tuple[float, float]:
        return -max(float(np.abs(self.Q).max()), 1e-300), 0.0  # the model: min −⟨M, Q/scale⟩

    def certificate(self, result, tol: float) -> Certificate:
        """The generic certificate of a conic solve; otherwise [⟨M, Q⟩, λ_max(Q)₊]."""
        if result.canonical is not None:
            return super().certificate(result, tol)
        m, M = result.primal["m"], result.primal["M"]
        measures = self.feasibility(m, M)
        if self.tightened:
            measures["negativity_M"] = float(max(0.0, -np.asarray(M).min()))
        (lo, lo_lab, lo_why), (top, up_lab, up_why) = mwc_ends(self.Q, M, m)
        if self.tightened:  # M ≥ 0 entrywise is not proven for the factor
            lo_lab, lo_why = ESTIMATE, "the tightened model's M ≥ 0 is not proven"
        return Certificate(
            OPTIMALITY,
            tol,
            lo,
            top,
            lo_lab,
            measures,
            (),  # (m, M)'s own
            note="upper bound λ_max(Q)₊ (M ⪰ 0, tr M ≤ 1)",
            upper_label=up_lab,
            lower_why=lo_why,
            upper_why=up_why,
        )

    def build(self) -> CvxpyModel:
        rel = relax(self.original(), self.relaxation)
        return CvxpyModel(rel.problem, {"Y": rel.Y}, {}, relaxation=rel)

    def from_cvxpy(self, model: CvxpyModel) -> dict[str, Any]:
        m, M = model.relaxation.solution()
        rep = weights_report(m, M)
        return {
            "objective": self.objective(M),
            "primal": {"m": m, "M": M},
            "info": {**rep, "tightened": self.tightened},
        }


@dataclass
class NCTLA(_TLA):
    F: np.ndarray = field(default=None, repr=False)  # (n, J, D) φ of the training points
    y: np.ndarray = field(default=None, repr=False)
    name: ClassVar[str] = "nc-tla"
    BOUNDED_MIXING: ClassVar[bool] = False

    @classmethod
    def from_data(cls, X, y, J: int = 10, basis=None):
        X = np.asarray(X, dtype=float)
        y = validate_labels(y, len(X))
        basis = basis or RampBasis.fit(X, J)
        return cls(Q=label_alignment(basis, X, y), basis=basis, n_points=len(X), F=basis(X), y=y)

    @property
    def psd_dim(self) -> int:
        return 2 * self.n_points

    def objective(self, M) -> float:
        return float(np.sum(self.Q * np.asarray(M)))

    def original_alignment(self, m) -> float:
        """Eq. 9, the nonconvex original that eq. 11 relaxes: the alignment
        ⟨K_m, yyᵀ⟩ / (‖K_m‖_F ‖yyᵀ‖_F) of K_m = Ψ_mΨ_mᵀ, Ψ_m = Σ_i m_i φ_i(X) (n × D),
        computed from D × D products (no n × n matrix)."""
        Psi = np.einsum("njd,j->nd", self.F, np.asarray(m, dtype=float))
        num = float(np.sum((Psi.T @ self.y) ** 2))
        den = float(np.linalg.norm(Psi.T @ Psi)) * len(self.y)
        return num / den if den > 0 else 0.0

    def _KM(self, M):
        n, J, D = self.F.shape
        Psi = self.F.reshape(n, J * D)  # column index j·D + d
        return Psi @ cp.kron(M, np.eye(D)) @ Psi.T

    def kernel_gram(self) -> np.ndarray:
        """P = ΨᵀΨ (JD × JD, Ψ = [φ_1(X) … φ_J(X)] of n × JD), in O(n (JD)²): every norm of
        K_M = Ψ(M ⊗ I_D)Ψᵀ is computed from it, ‖K_M‖²_F = tr((M⊗I)P(M⊗I)P)."""
        n, J, D = self.F.shape
        Psi = self.F.reshape(n, J * D)
        return Psi.T @ Psi

    def kernel_norm(self, M, P: np.ndarray | None = None) -> float:
        """‖K_M‖_F without the n × n matrix (eq. 11's block [[A, K],[K, I]] ⪰ 0 with
        tr A ≤ 1 says exactly ‖K_M‖_F ≤ 1: A ⪰ K² by the Schur complement)."""
        P = self.kernel_gram() if P is None else P
        D = self.F.shape[2]
        MP = np.kron(np.asarray(M, dtype=float), np.eye(D)) @ P
        return float(np.sqrt(max(np.sum(MP * MP.T), 0.0)))

    def certificate(self, result, tol: float) -> Certificate:
        """A conic solve's certificate; a Schur-reduced solve (solvers/tla_reduced.py) is
        certified on its J-sized model, and its point is checked in eq. 11 itself:
        M ⪰ 0 and ‖K_M‖_F ≤ 1 (A = K_M² completes it)."""
        cert = super().certificate(result, tol)
        if result.info.get("reduction") == "schur" and result.canonical is not None:
            M = np.asarray(result.primal["M"], dtype=float)
            extra = {
                "psd_M": float(max(0.0, -np.linalg.eigvalsh((M + M.T) / 2)[0])),
                "kernel_norm_violation": max(0.0, self.kernel_norm(M) - 1.0),
            }
            cert = replace(cert, measures={**cert.measures, **extra})
        return cert

    def build(self) -> CvxpyModel:
        J, n = self.n, self.n_points
        _refuse(self.name, n, 2 * n)
        Y = cp.Variable((J + 1, J + 1), symmetric=True)
        m, M = Y[1:, 0], Y[1:, 1:]
        A = cp.Variable((n, n), symmetric=True)
        K = self._KM(M)
        cons = [
            Y >> 0,
            Y[0, 0] == 1,
            m >= 0,
            cp.trace(A) <= 1,
            cp.bmat([[A, K], [K, np.eye(n)]]) >> 0,
        ]
        prob = cp.Problem(cp.Maximize(cp.sum(cp.multiply(self.Q, M))), cons)
        return CvxpyModel(prob, {"Y": Y}, {})

    def from_cvxpy(self, model: CvxpyModel) -> dict[str, Any]:
        Yv = np.asarray(model.variables["Y"].value)
        m, M = Yv[1:, 0], (Yv[1:, 1:] + Yv[1:, 1:].T) / 2
        rep = weights_report(m, M)
        rep["original_alignment"] = self.original_alignment(np.maximum(rep["weights"], 0.0))
        return {"objective": self.objective(M), "primal": {"m": m, "M": M}, "info": rep}


@dataclass
class LMTL(NCTLA):
    C: float = 1.0
    name: ClassVar[str] = "lmtl"
    BOUNDED_MIXING: ClassVar[bool] = True
    maximize: ClassVar[bool] = False  # min t (eq. 2)

    @classmethod
    def from_data(cls, X, y, J: int = 10, basis=None, C: float = 1.0):
        f = NCTLA.from_data.__func__(cls, X, y, J, basis)
        f.C = float(C)
        return f

    def from_cvxpy(self, model: CvxpyModel) -> dict[str, Any]:
        out = NCTLA.from_cvxpy(self, model)
        out["info"]["alignment"] = out["objective"]
        out["objective"] = float(model.variables["t"].value)  # eq. 2's own objective
        return out

    @property
    def psd_dim(self) -> int:
        return self.n_points + 1

    def objective(self, M) -> float:  # reported: the alignment ⟨M, Q⟩ of the learned M
        return float(np.sum(self.Q * np.asarray(M)))

    # -- eq. 2 as a saddle point: t* = min_M ω_C(K_M), the SVM dual value of K_M ---------
    def mixed_gradient(self, alpha) -> np.ndarray:
        """G(α) = [φ_1ᵀ(y∘α), …, φ_Jᵀ(y∘α)] (D × J): αᵀY K_M Y α = ⟨M, GᵀG⟩, O(nJD)."""
        return np.einsum("njd,n->dj", self.F, self.y * np.asarray(alpha, dtype=float))

    def svm_dual_bound(self, alpha) -> float:
        """Lower bound on eq. 2 from any α with 0 ≤ α ≤ C, yᵀα = 0 (Lanckriet et al.'s ω_C):
        min over M ⪰ 0, tr M ≤ 1 of 2·1ᵀα − ⟨M, G(α)ᵀG(α)⟩ = 2·1ᵀα − σ_max(G(α))².
        (m never enters the objective and m = 0 is feasible, so eq. 2's M ranges over the
        spectraplex {M ⪰ 0, tr M ≤ 1}.)"""
        G = self.mixed_gradient(alpha)
        return float(2 * np.sum(alpha) - np.linalg.norm(G, 2) ** 2)

    def features(self, M) -> np.ndarray:
        """B (n × rD) with K_M = BBᵀ, from M = RRᵀ (positive eigenpairs of M)."""
        w, V = np.linalg.eigh((np.asarray(M, dtype=float) + np.asarray(M).T) / 2)
        keep = w > EIG_ZERO_RTOL * max(float(w.max()), 1e-300)
        R = V[:, keep] * np.sqrt(w[keep])
        return np.einsum("njd,jk->nkd", self.F, R).reshape(self.n_points, -1)

    def svm_primal_bound(self, M, alpha) -> float:
        """Upper bound on eq. 2 at M: the soft-margin SVM primal ‖w‖² + 2C Σ(1 − y_i(B_iw + b))₊
        at w = Bᵀ(y∘α) and its best b (weak duality: ≥ ω_C(K_M) ≥ t*).  Exact at the optimum
        α of K_M; it is a feasible t of eq. 2."""
        B = self.features(M)
        w = B.T @ (self.y * np.asarray(alpha, dtype=float))
        s = B @ w
        return float(w @ w + 2 * self.C * _best_bias_hinge(s, self.y))

    def certificate(self, result, tol: float) -> Certificate:
        """A conic solve: the generic certificate.  A saddle-point solve (duals ``alpha``):
        [svm_dual_bound(α), svm_primal_bound(M, α_M)] (α_M: primal ``alpha_M``, the point
        that built the SVM primal w; any α gives a valid upper bound), with M's and α's
        feasibility."""
        if result.canonical is not None or "alpha" not in result.duals:
            return _TLA.certificate(self, result, tol)
        M, a = (
            np.asarray(result.primal["M"], dtype=float),
            np.asarray(result.duals["alpha"], dtype=float),
        )
        scale = 1.0 + float(np.abs(a).sum())
        measures = {
            "psd_M": float(max(0.0, -np.linalg.eigvalsh((M + M.T) / 2)[0])),
            "trace_violation": float(max(0.0, np.trace(M) - 1.0)),
            "alpha_box": float(max(0.0, -a.min(), a.max() - self.C)) / scale,
            "alpha_equality": abs(float(self.y @ a)) / scale,
        }
        aM = np.asarray(result.primal.get("alpha_M", a), dtype=float)  # the α that built w
        lo, lo_lab, lo_why = lmtl_lower(self, a)
        hi, up_lab, up_why = lmtl_upper(self, M, aM)
        return Certificate(
            OPTIMALITY,
            tol,
            lo,
            hi,
            lo_lab,
            measures,
            ("alpha_box", "alpha_equality"),  # the duals: reported; M's judged
            note="SVM dual bound (α) and SVM primal bound (M)",
            upper_label=up_lab,
            lower_why=lo_why,
            upper_why=up_why,
            scale=2 * float(np.sum(np.abs(a))),
        )

    def build(self) -> CvxpyModel:
        J, n, y = self.n, self.n_points, self.y
        _refuse(self.name, n, n + 1)
        Y = cp.Variable((J + 1, J + 1), symmetric=True)
        m, M = Y[1:, 0], Y[1:, 1:]
        t, lam = cp.Variable(), cp.Variable()
        v, delta = cp.Variable(n, nonneg=True), cp.Variable(n, nonneg=True)
        YKY = cp.multiply(np.outer(y, y), self._KM(M))
        u = cp.reshape(1 + v - delta + lam * y, (n, 1), order="F")
        corner = cp.reshape(t - 2 * self.C * cp.sum(delta), (1, 1), order="F")
        cons = [
            Y >> 0,
            Y[0, 0] == 1,
            m >= 0,
            cp.sum(m) <= 1,
            cp.trace(M) <= 1,
            cp.bmat([[YKY, u], [u.T, corner]]) >> 0,
        ]
        prob = cp.Problem(cp.Minimize(t), cons)
        return CvxpyModel(prob, {"Y": Y, "t": t}, {})


@dataclass
class KA(_TLA):
    S: np.ndarray = field(default=None, repr=False)
    q: np.ndarray = field(default=None, repr=False)
    name: ClassVar[str] = "ka"

    @classmethod
    def from_data(cls, X, y, J: int = 10, basis=None) -> KA:
        X = np.asarray(X, dtype=float)
        y = validate_labels(y, len(X))
        basis = basis or RampBasis.fit(X, J)
        S, q = kernel_gram(basis, X, y)
        return cls(Q=np.diag(q), basis=basis, n_points=len(X), S=S, q=q)

    @property
    def psd_dim(self) -> int:
        return 0

    def objective(self, m) -> float:
        return float(self.q @ np.asarray(m))

    def objective_map(self) -> tuple[float, float]:
        # the model maximises (q/‖q‖_∞)ᵀm' with m' = √σ·m
        return max(float(np.abs(self.q).max()), 1e-300) / np.sqrt(self._sigma()), 0.0

    def feasibility(self, m, M=None) -> dict[str, float]:
        m = np.asarray(m, dtype=float)
        return {
            "negativity_m": float(max(0.0, -m.min())),
            "quadratic_violation": float(max(0.0, m @ self.S @ m - 1.0)),
        }

    def _sigma(self) -> float:
        return max(float(np.abs(self.S).max()), 1e-300)

    def build(self) -> CvxpyModel:
        # solved in m' = √σ·m with S/σ and q/‖q‖ (σ = max S_ij): same maximiser, sane scale
        m = cp.Variable(self.n, nonneg=True)
        S = (self.S + self.S.T) / (2 * self._sigma())
        qn = self.q / max(float(np.abs(self.q).max()), 1e-300)
        prob = cp.Problem(cp.Maximize(qn @ m), [cp.quad_form(m, cp.psd_wrap(S)) <= 1])
        return CvxpyModel(prob, {"m": m}, {})

    def from_cvxpy(self, model: CvxpyModel) -> dict[str, Any]:
        m = np.asarray(model.variables["m"].value, dtype=float) / np.sqrt(self._sigma())
        return {"objective": self.objective(m), "primal": {"m": m, "M": np.diag(m)}}


def _best_bias_hinge(s: np.ndarray, y: np.ndarray) -> float:
    """min_b Σ_i (1 − y_i(s_i + b))₊: convex, piecewise linear; its minimum lies at a
    breakpoint b = y_i − s_i.  O(n log n): sort the breakpoints, sweep the slopes."""
    bps = y - s
    order = np.argsort(bps)
    b = bps[order]
    yo = y[order]
    # at b → −∞ the active terms are those with y = +1 (1 − s − b > 0); slope = −#(y=+1)
    # crossing breakpoint b_i: a y=+1 term switches off (+1), a y=−1 term switches on (+1)
    slope = -np.sum(y > 0) + np.cumsum(np.ones_like(yo))
    k = int(np.searchsorted(slope, 0.0))  # first breakpoint where the slope turns ≥ 0
    k = min(k, len(b) - 1)
    return float(np.maximum(0.0, 1 - y * (s + b[k])).sum())


def _refuse(name: str, n: int, block: int) -> None:
    if n > BLOCK_MAX_N:
        t = block * (block + 1) // 2
        raise TooLargeError(
            f"{name} holds a {block}×{block} semidefinite block for n = {n} points: "
            f"an interior-point solve needs about {48 * t * t / 2**30:.0f} GiB and a "
            f"first-order one about {80 * block * block / 2**30:.1f} GiB plus "
            f"O({block}³) work per iteration; limit n <= {BLOCK_MAX_N}. Use mwc-tla, "
            "whose size depends on the number of ramps only."
        )
