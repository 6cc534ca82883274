"""NPKL's own certificate, on a kernel factor: scalable, and the same for every solver.

With one multiplier β_ij per pair (the dual of z_ij = K_ij), λ for the capacity and Z for
K ⪰ 0, the Lagrangian of NPKL (seed 000 eq. 4 [+ eq. 5]; docs/npkl.md §3–4) is

    tr(M(β) K) − Σ h*(β_ij) − tr(ZK) + λ (cap(K) − B),   M(β) = L + Σ β_ij E_ij,

(h* the loss conjugates of :mod:`.losses`).  From (K, β, λ[, Z]) alone:

- the interval: upper = P(K), the objective at the returned kernel; lower = g(Π(β)), the
  dual function :meth:`NPKL.dual_value` at the multipliers projected onto the domain of
  h* — a lower bound for *every* β, so the interval is rigorous with a capacity.  Without
  one (seed 001's problem (1)), lower = min(u, B̄·min(0, λ_min M(β̃)) − Σh*(β̃)) from the
  a-priori bound tr ΠKΠ ≤ B̄ at the level u = min(P(0), P(K)) and the repaired
  multipliers β̃ (:mod:`.npkl_trace_bound`, docs/npkl.md §6) — rigorous too, for the four
  losses bounded below (the linear one keeps the estimate −Σh*, rigorous only if M ⪰ 0);
- primal: K ⪰ 0 (a factor is PSD by construction; a dense solver's K is checked through
  its smallest eigenvalue), cap(K) ≤ B;
- dual: Z ⪰ 0 with Z = M + 2λK (Frobenius), M + λI (trace), M (none) — derived from this
  stationarity, or, when the solver returns its own Z, checked against it — λ ≥ 0, β in
  the domain of h*.  (Frobenius above ``DENSE_MAX_N``: Z ⪰ 0 is not tested — sparse plus
  low rank, its λ_min took 47 minutes at n = 20,000 — and the bound, which needs no Z,
  certifies alone);
- complementarity tr(ZK) = 0, λ(B − cap(K)) = 0, and the Fenchel–Young gap
  Σ h(K_ij) + h*(β_ij) − β_ij K_ij = 0 (stationarity in z).

Nothing is densified for large n: K stays a factor, M is sparse, and every λ_min comes from
:mod:`kernelsdp.linalg.extreme` (Lanczos on M + c·UUᵀ as an operator).
"""

from __future__ import annotations

import numpy as np

from ..certificate import ESTIMATE, OPTIMALITY, PROOF, Certificate, feasibility_only
from ..linalg.extreme import DENSE_MAX_N, lowest_eigenvalue
from .losses import LOSSES
from .npkl_trace_bound import BOUNDED_LOSSES, certified_lower_bound


def _primal(f, kernel, raw_min_eig: float | None) -> dict[str, float]:
    lam_K = raw_min_eig if raw_min_eig is not None else (
        0.0 if kernel.rank < kernel.n else float(np.linalg.eigvalsh(kernel.U.T @ kernel.U)[0]))
    scale = 1.0 + max(kernel.trace(), 0.0)
    cap = f.capacity_value(kernel)
    return {"primal_psd": max(0.0, -lam_K) / scale,
            "primal_capacity": (max(0.0, cap - f.B) / max(1.0, f.B)
                                if f.capacity != "none" else 0.0)}


def npkl_certificate(f, result, tol: float) -> Certificate:
    """The certificate of an NPKL result (``f``: the :class:`~.npkl.NPKL` declaration) from its kernel factor and its duals β, λ[, Z]."""
    kernel = result.kernel
    primal = f.objective(kernel)
    measures: dict[str, float | None] = _primal(f, kernel, result.info.get("raw_min_eig_K"))
    beta = result.duals.get("beta")
    if beta is None:
        return feasibility_only(tol, measures, primal)
    P, loss = f.pairs, LOSSES[f.loss]
    beta_raw = np.asarray(beta, dtype=float)
    # everything below is read at the multipliers projected onto the domain of h*, where
    # g is a valid bound; how far the solver's own β were from that domain is reported
    beta = loss.project(beta_raw, P.t, f.C)
    lam = float(result.duals.get("lam", 0.0) or 0.0)
    z = kernel.entries(P.i, P.j)
    bounded = None
    if f.capacity == "none" and f.loss in BOUNDED_LOSSES:
        # the a-priori bound stands in for a capacity: β̃ repaired, λ̄ its trace multiplier
        p_zero = f.value_at_zero()
        bounded = certified_lower_bound(f, beta_raw, min(p_zero, primal))
        beta, lam = bounded["beta"], max(0.0, -bounded["lambda_min"])
    M = f.dual_matrix(beta)
    obj_scale = 1.0 + abs(primal)
    m_scale = 1.0 + float(abs(M).max())
    cap_value = f.capacity_value(kernel)
    Zs = result.duals.get("Z")
    stat_Z, spectrum = None, None
    if Zs is not None and f.n <= DENSE_MAX_N:
        # the solver's own Z: check it, and stationarity M + ∂cap − Z = 0 separately
        Zs = np.asarray(Zs, dtype=float)
        Zk = M.toarray() + (2 * lam * kernel.dense() if f.capacity == "frobenius"
                            else lam * np.eye(f.n) if f.capacity == "trace" else 0.0)
        Zmin = float(np.linalg.eigvalsh((Zs + Zs.T) / 2)[0])
        trZK = kernel.trace_product(Zs)
        stat_Z = float(np.linalg.norm(Zk - Zs)) / (1.0 + float(np.linalg.norm(Zk)))
    elif f.capacity == "frobenius":
        # Z = M + 2λK is sparse plus low rank; its λ_min on an operator was measured at
        # 2,797 s for n = 20,000 (Lanczos crawls through M's cluster near 0).  The bound
        # g(β) = −√B‖M₋‖_F − Σh* needs no Z, so above DENSE_MAX_N Z ⪰ 0 is not tested: the
        # interval's width alone certifies the answer there
        Zmin = (lowest_eigenvalue(M, kernel.U, 2 * lam) if f.n <= DENSE_MAX_N else 0.0)
        trZK = kernel.trace_product(M) + 2 * lam * kernel.frobenius_sq()
    elif bounded is not None:  # Z = M(β̃) + λ̄Π, Π: off the free null directions of L
        spectrum = bounded["lambda_min"]
        Zmin = spectrum + lam
        trZK = kernel.trace_product(M) + lam * _traced_off_free(kernel, bounded["bound"].free)
    else:  # one Lanczos λ_min of M serves Z ⪰ 0 and the dual function
        spectrum = lowest_eigenvalue(M)
        Zmin = spectrum + (lam if f.capacity == "trace" else 0.0)
        trZK = kernel.trace_product(M) + (lam * kernel.trace() if f.capacity == "trace" else 0.0)
    fy = loss.value(z, P.t, f.C) + loss.conjugate(beta, P.t, f.C) - beta * z
    measures.update({
        "dual_infeasibility": max(max(0.0, -Zmin) / m_scale, max(0.0, -lam),
                                  float(np.max(loss.domain_violation(beta_raw, P.t, f.C),
                                               initial=0.0))),
        "complementarity": abs(trZK) / obj_scale,
        "capacity_complementarity": (abs(lam * (f.B - cap_value)) / obj_scale
                                     if f.capacity != "none" else 0.0),
        "stationarity_fenchel_young": float(np.sum(fy)) / obj_scale,
    })
    if stat_Z is not None:
        measures["stationarity_Z"] = stat_Z
    if bounded is not None:
        tb = bounded["bound"]
        measures["capacity_complementarity"] = lam * abs(
            tb.B - _traced_off_free(kernel, tb.free)) / obj_scale
        measures["free_direction_residual"] = bounded["repair_residual"]
        return Certificate(OPTIMALITY, tol, float(bounded["lower"]), primal, PROOF, measures,
                           note=f"rigorous lower bound: no capacity; a-priori tr ΠKΠ ≤ "
                                f"{tb.B:.4g} ({tb.describe()['free_directions']} free null "
                                "directions of L; docs/npkl.md §6)")
    lower = f.dual_value(beta, spectrum)
    rigorous = bool(np.isfinite(lower))
    note = "rigorous lower bound: the dual function at the projected multipliers"
    if not rigorous:  # no capacity and M(β) ⋡ 0: report the estimate −Σh*(β)
        lower = -float(np.sum(loss.conjugate(beta, P.t, f.C)))
        note = "estimate: without a capacity g(β) is −inf unless M(β) ⪰ 0"
    return Certificate(OPTIMALITY, tol, float(lower), primal, PROOF if rigorous else ESTIMATE,
                       measures, note=note)


def _traced_off_free(kernel, free) -> float:
    """tr(ΠKΠ) = tr K − Σ_w ‖Uᵀw‖² over the orthonormal free null directions w of L."""
    total = kernel.trace()
    for idx, V in free:
        total -= float(np.sum((V.T @ kernel.U[idx]) ** 2))
    return total
