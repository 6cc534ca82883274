"""KKT residuals of an NPKL solution, computed independently of the solver.

With one multiplier β_ij per pair (the dual of z_ij = K_ij), λ for the capacity and Z
for K ⪰ 0, the Lagrangian of NPKL (seed 000 eq. 4 [+ eq. 5]) is

    tr(M(β) K) − Σ h*(β_ij) − tr(ZK) + λ (cap(K) − B),   M(β) = L + Σ β_ij E_ij,

(h* the loss conjugates of :mod:`kernelsdp.formulations.losses`), so

- stationarity in K: Z = M + 2λK (Frobenius), M + λI (trace), M (none); when the solver
  returns its own Z, ‖M + ∂cap − Z‖ is checked and Z's PSD-ness is read off the solver's Z,
  otherwise Z is derived from this equation;
- dual feasibility: Z ⪰ 0, λ ≥ 0, β in the domain of h*;
- complementarity: tr(ZK) = 0, λ (B − cap(K)) = 0;
- stationarity in z: the Fenchel–Young gap Σ h(K_ij) + h*(β_ij) − β_ij K_ij = 0;
- the dual value g(β) = min_{K ⪰ 0, cap ≤ B} tr(MK) − Σ h*(β) closes the duality gap.

Only (K, β, λ[, Z]) are read from the solver; everything else is recomputed here.  Large n
never densifies: K stays a factor, M is sparse, and λ_min(Z) uses ARPACK on an operator.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..formulations.losses import LOSSES
from ..formulations.npkl import NPKL
from ..result import KernelFactor
from ..linalg.positive_part import positive_eigenpairs

#: above this n, eigenvalues are computed by ARPACK on operators instead of densely
DENSE_VERIFY_N = 2000


def _min_eig(op_matrix, lowrank: KernelFactor | None = None, coef: float = 0.0) -> float:
    """λ_min(M + coef·UUᵀ) for sparse M and an optional low-rank term."""
    n = op_matrix.shape[0]
    if n <= DENSE_VERIFY_N:
        Z = op_matrix.toarray() if sp.issparse(op_matrix) else np.asarray(op_matrix)
        if lowrank is not None and coef:
            Z = Z + coef * lowrank.dense()
        return float(np.linalg.eigvalsh(Z)[0])
    U = lowrank.U if lowrank is not None else None

    def mv(x):
        y = op_matrix @ x
        if U is not None and coef:
            y = y + coef * (U @ (U.T @ x))
        return y

    op = spla.LinearOperator((n, n), matvec=mv, dtype=float)
    return float(spla.eigsh(op, k=1, which="SA", return_eigenvectors=False, tol=1e-8)[0])


def _min_eig_kernel(kernel: KernelFactor) -> float:
    """Smallest eigenvalue of K = UUᵀ (0 whenever rank < n)."""
    if kernel.rank < kernel.n:
        return 0.0
    return float(np.linalg.eigvalsh(kernel.U.T @ kernel.U)[0])


def dual_value(f: NPKL, beta: np.ndarray) -> float:
    """g(β) = min_{K ⪰ 0, cap(K) ≤ B} tr(M(β)K) − Σ h*(β); −inf when unbounded below."""
    M = f.dual_matrix(beta)
    conj = float(np.sum(LOSSES[f.loss].conjugate(beta, f.pairs.t, f.C)))
    if f.capacity == "frobenius":
        neg = positive_eigenpairs((-M).tocsr())  # ‖M₋‖_F = ‖(−M)₊‖_F
        inner = -math.sqrt(f.B) * neg.frobenius
    else:
        lo = _min_eig(M)
        # without capacity, g is −inf as soon as M ⋡ 0; that violation is reported as
        # dual infeasibility, and the gap is read at the feasible value (inner = 0)
        inner = f.B * min(0.0, lo) if f.capacity == "trace" else 0.0
    return inner - conj


def npkl_residuals(f: NPKL, kernel: KernelFactor, duals: dict[str, Any],
                   raw_min_eig: float | None = None) -> dict[str, float | None]:
    """All residuals, relative where a scale is natural.  Missing duals give None entries."""
    P = f.pairs
    z = kernel.entries(P.i, P.j)
    primal = f.objective(kernel)
    obj_scale = 1.0 + abs(primal)
    cap_value = f.capacity_value(kernel)
    out: dict[str, float | None] = {
        "objective": primal,
        "primal_min_eig_K": raw_min_eig if raw_min_eig is not None else _min_eig_kernel(kernel),
        "primal_capacity_violation": (max(0.0, cap_value - f.B) / max(1.0, f.B)
                                      if f.capacity != "none" else 0.0),
    }
    beta = duals.get("beta")
    if beta is None:
        out.update({k: None for k in ("dual_min_eig_Z", "dual_infeasibility", "complementarity",
                                      "capacity_complementarity", "stationarity_fenchel_young",
                                      "stationarity_Z", "dual_objective", "duality_gap",
                                      "relative_duality_gap")})
        return out
    beta = np.asarray(beta, dtype=float)
    lam = float(duals.get("lam", 0.0) or 0.0)
    loss = LOSSES[f.loss]
    M = f.dual_matrix(beta)
    m_scale = 1.0 + float(abs(M).max())
    Zs = duals.get("Z")
    if Zs is not None and f.n <= DENSE_VERIFY_N:
        # the solver's own Z: check it, and check stationarity M + ∂cap − Z = 0 separately
        Zs = np.asarray(Zs, dtype=float)
        Zk = M.toarray() + (2 * lam * kernel.dense() if f.capacity == "frobenius"
                            else lam * np.eye(f.n) if f.capacity == "trace" else 0.0)
        Zmin = float(np.linalg.eigvalsh((Zs + Zs.T) / 2)[0])
        trZK = kernel.trace_product(Zs)
        stat_Z = float(np.linalg.norm(Zk - Zs)) / (1.0 + float(np.linalg.norm(Zk)))
    else:
        # Z derived from stationarity (so that residual is zero by construction)
        stat_Z = None
        if f.capacity == "frobenius":
            Zmin = _min_eig(M, kernel, 2 * lam)
            trZK = kernel.trace_product(M) + 2 * lam * kernel.frobenius_sq()
        elif f.capacity == "trace":
            Zmin = _min_eig(M) + lam
            trZK = kernel.trace_product(M) + lam * kernel.trace()
        else:
            Zmin = _min_eig(M)
            trZK = kernel.trace_product(M)
    fy = loss.value(z, P.t, f.C) + loss.conjugate(beta, P.t, f.C) - beta * z
    g = dual_value(f, beta)
    out.update({
        "dual_min_eig_Z": Zmin,
        "dual_infeasibility": max(max(0.0, -Zmin) / m_scale, max(0.0, -lam),
                                  float(np.max(loss.domain_violation(beta, P.t, f.C), initial=0.0))),
        "complementarity": abs(trZK) / obj_scale,
        "capacity_complementarity": (abs(lam * (f.B - cap_value)) / obj_scale
                                     if f.capacity != "none" else 0.0),
        "stationarity_fenchel_young": float(np.sum(fy)) / obj_scale,
        "stationarity_Z": stat_Z,
        "dual_objective": g,
        "duality_gap": primal - g,
        "relative_duality_gap": (primal - g) / max(1.0, abs(primal)),
    })
    return out


#: residuals that must be ≤ tol for a solution to pass (signed ones by magnitude)
CHECKED = ("primal_capacity_violation", "dual_infeasibility", "complementarity",
           "capacity_complementarity", "stationarity_fenchel_young", "relative_duality_gap")


def failures(res: dict[str, float | None], tol: float) -> list[str]:
    """Names of the checked residuals that exceed tol (PSD of K relative to its scale)."""
    bad = [k for k in CHECKED if res.get(k) is None or not (abs(res[k]) <= tol)]
    if res.get("stationarity_Z") is not None and not res["stationarity_Z"] <= tol:
        bad.append("stationarity_Z")
    if res.get("primal_min_eig_K") is not None and res["primal_min_eig_K"] < -tol:
        bad.append("primal_min_eig_K")
    return bad
