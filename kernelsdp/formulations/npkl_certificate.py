"""NPKL's own certificate, on a kernel factor: scalable, and the same for every solver.

With one multiplier β_ij per pair (the dual of z_ij = K_ij), λ for the capacity and Z for
K ⪰ 0, the Lagrangian of NPKL (seed 000 eq. 4 [+ eq. 5]; docs/npkl.md §3–4) is

    tr(M(β) K) − Σ h*(β_ij) − tr(ZK) + λ (cap(K) − B),   M(β) = L + Σ β_ij E_ij,

(h* the loss conjugates of :mod:`.losses`).  From (K, β, λ[, Z]) alone:

- the interval: upper = P(K), the objective at the returned kernel, a proof with its
  rounding bounded (:mod:`.npkl_proof`); lower = g(Π(β)), the dual function
  :meth:`NPKL.dual_value` at the multipliers projected onto the domain of h*, a lower bound
  for *every* β — a proof where λ_min(M(β)) is verified (:mod:`.npkl_proof` says up to
  which n), an estimate labelled so beyond.  Without a capacity (seed 001's problem (1)),
  lower = min(u, B̄·min(0, λ_min M(β̃)) − Σh*(β̃)) from the a-priori bound tr ΠKΠ ≤ B̄ at
  the level u = min(P(0), P(K)) and the repaired multipliers β̃ (:mod:`.npkl_trace_bound`,
  docs/npkl.md §6) — valid in exact arithmetic for the four losses bounded below, but B̄ is
  computed in floating point without a rounding analysis: labelled an estimate;
- primal: K ⪰ 0 (a factor is PSD by construction; a dense solver's K is checked through
  its smallest eigenvalue), cap(K) ≤ B;
- dual: Z ⪰ 0 with Z = M + 2λK (Frobenius), M + λI (trace), M (none) — derived from this
  stationarity, or, when the solver returns its own Z, checked against it — λ ≥ 0, β in
  the domain of h*.  (Frobenius above ``DENSE_MAX_N``: Z ⪰ 0 is not tested — sparse plus
  low rank, its λ_min took 47 minutes at n = 20,000 — and the bound, which needs no Z,
  certifies alone);
- complementarity tr(ZK) = 0, λ(B − cap(K)) = 0, and the Fenchel–Young gap
  Σ h(K_ij) + h*(β_ij) − β_ij K_ij = 0 (stationarity in z) — reported beside the interval;
  only the kernel's own feasibility (PSD, capacity) is judged with it.

Nothing is densified for large n: K stays a factor, M is sparse, and every λ_min comes from
:mod:`kernelsdp.linalg.extreme` (Lanczos on M + c·UUᵀ as an operator).
"""

from __future__ import annotations

import numpy as np

from ..certificate import ESTIMATE, OPTIMALITY, PROOF, Certificate, feasibility_only
from ..linalg.extreme import DENSE_MAX_N, lowest_eigenvalue
from .losses import LOSSES
from .npkl_proof import proven_dual_value, proven_upper
from .npkl_trace_bound import BOUNDED_LOSSES, certified_lower_bound

#: the measures judged beside the interval: the kernel's own feasibility
JUDGED = ("primal_psd", "primal_capacity")


def _primal(f, kernel, raw_min_eig: float | None) -> dict[str, float]:
    lam_K = (
        raw_min_eig
        if raw_min_eig is not None
        else (
            0.0 if kernel.rank < kernel.n else float(np.linalg.eigvalsh(kernel.U.T @ kernel.U)[0])
        )
    )
    scale = max(kernel.trace(), 1e-300)
    cap = f.capacity_value(kernel)
    return {
        "primal_psd": max(0.0, -lam_K) / scale,
        "primal_capacity": (max(0.0, cap - f.B) / f.B if f.capacity != "none" else 0.0),
    }


def _scale(f, kernel, beta) -> float:
    """The objective's own size: |tr(LK)| + Σ|h(K_ij)| + Σ|h*(β_ij)|."""
    P, loss = f.pairs, LOSSES[f.loss]
    z = kernel.entries(P.i, P.j)
    out = abs(kernel.trace_product(f.L)) + float(np.sum(np.abs(loss.value(z, P.t, f.C))))
    if beta is not None:
        out = max(out, float(np.sum(np.abs(loss.conjugate(beta, P.t, f.C)))))
    return out


def npkl_certificate(f, result, tol: float) -> Certificate:
    """The certificate of an NPKL result (``f``: the :class:`~.npkl.NPKL` declaration) from
    its kernel factor and its duals β, λ[, Z]."""
    kernel = result.kernel
    measures: dict[str, float | None] = _primal(f, kernel, result.info.get("raw_min_eig_K"))
    upper, up_label, up_why = proven_upper(f, kernel)
    beta = result.duals.get("beta")
    if beta is None:
        return feasibility_only(tol, measures, upper, label=up_label, why=up_why)
    P, loss = f.pairs, LOSSES[f.loss]
    beta_raw = np.asarray(beta, dtype=float)
    # everything below is read at the multipliers projected onto the domain of h*, where
    # g is a valid bound; how far the solver's own β were from that domain is reported
    beta = loss.project(beta_raw, P.t, f.C)
    lam = float(result.duals.get("lam", 0.0) or 0.0)
    bounded = None
    if f.capacity == "none" and f.loss in BOUNDED_LOSSES:
        # the a-priori bound stands in for a capacity: β̃ repaired, λ̄ its trace multiplier
        bounded = certified_lower_bound(f, beta_raw, min(f.value_at_zero(), upper))
        beta, lam = bounded["beta"], max(0.0, -bounded["lambda_min"])
    M = f.dual_matrix(beta)
    lower, lo_label, lo_why, spectrum = (
        (bounded["lower"], ESTIMATE, "", bounded["lambda_min"])
        if bounded is not None
        else proven_dual_value(f, beta, M)
    )
    measures.update(_dual_measures(f, result, kernel, beta, beta_raw, lam, M, bounded, spectrum))
    note = "lower bound: the dual function at the projected multipliers"
    if bounded is not None:
        tb = bounded["bound"]
        lo_why = (
            "the a-priori bound tr ΠKΠ ≤ B̄ (docs/npkl.md §6) is computed in floating "
            "point without a rounding analysis"
        )
        note = (
            f"lower bound: no capacity; a-priori tr ΠKΠ ≤ {tb.B:.4g} "
            f"({tb.describe()['free_directions']} free null directions of L; docs/npkl.md §6)"
        )
    elif not np.isfinite(lower):  # no capacity and M(β) ⋡ 0: report the estimate −Σh*(β)
        lower, lo_label = -float(np.sum(loss.conjugate(beta, P.t, f.C))), ESTIMATE
        lo_why = "without a capacity g(β) is −inf unless M(β) ⪰ 0"
    elif lo_label != PROOF:
        lo_why = f"λ_min(M(β)) is not verified: {lo_why}"
    return Certificate(
        OPTIMALITY,
        tol,
        float(lower),
        upper,
        lo_label,
        measures,
        tuple(k for k in measures if k not in JUDGED),
        note=note,
        upper_label=up_label,
        lower_why=lo_why,
        upper_why=up_why,
        scale=_scale(f, kernel, beta),
    )


def _dual_measures(f, result, kernel, beta, beta_raw, lam, M, bounded, spectrum) -> dict:
    """Dual feasibility, complementarity and the Fenchel–Young gap (reported)."""
    P, loss = f.pairs, LOSSES[f.loss]
    z = kernel.entries(P.i, P.j)
    primal = f.objective(kernel)
    obj_scale = max(abs(primal), _scale(f, kernel, beta), 1e-300)
    m_scale = max(float(abs(M).max()) if M.nnz else 0.0, 1e-300)
    cap_value = f.capacity_value(kernel)
    Zs = result.duals.get("Z")
    out: dict = {}
    if Zs is not None and f.n <= DENSE_MAX_N:
        Zs = np.asarray(Zs, dtype=float)
        Zk = M.toarray() + (
            2 * lam * kernel.dense()
            if f.capacity == "frobenius"
            else lam * np.eye(f.n)
            if f.capacity == "trace"
            else 0.0
        )
        Zmin = float(np.linalg.eigvalsh((Zs + Zs.T) / 2)[0])
        trZK = kernel.trace_product(Zs)
        out["stationarity_Z"] = float(np.linalg.norm(Zk - Zs)) / max(
            float(np.linalg.norm(Zk)), 1e-300
        )
    elif f.capacity == "frobenius":
        Zmin = lowest_eigenvalue(M, kernel.U, 2 * lam) if f.n <= DENSE_MAX_N else 0.0
        trZK = kernel.trace_product(M) + 2 * lam * kernel.frobenius_sq()
    elif bounded is not None:  # Z = M(β̃) + λ̄Π, Π: off the free null directions of L
        Zmin = bounded["lambda_min"] + lam
        trZK = kernel.trace_product(M) + lam * _traced_off_free(kernel, bounded["bound"].free)
    else:
        Zmin = spectrum + (lam if f.capacity == "trace" else 0.0)
        trZK = kernel.trace_product(M) + (lam * kernel.trace() if f.capacity == "trace" else 0.0)
    fy = loss.value(z, P.t, f.C) + loss.conjugate(beta, P.t, f.C) - beta * z
    out.update(
        {
            "dual_infeasibility": max(
                max(0.0, -Zmin) / m_scale,
                max(0.0, -lam),
                float(np.max(loss.domain_violation(beta_raw, P.t, f.C), initial=0.0)),
            ),
            "complementarity": abs(trZK) / obj_scale,
            "capacity_complementarity": (
                abs(lam * (f.B - cap_value)) / obj_scale if f.capacity != "none" else 0.0
            ),
            "stationarity_fenchel_young": float(np.sum(fy)) / obj_scale,
        }
    )
    if bounded is not None:
        tb = bounded["bound"]
        out["capacity_complementarity"] = (
            lam * abs(tb.B - _traced_off_free(kernel, tb.free)) / obj_scale
        )
        out["free_direction_residual"] = bounded["repair_residual"]
    return out


def _traced_off_free(kernel, free) -> float:
    """tr(ΠKΠ) = tr K − Σ_w ‖Uᵀw‖² over the orthonormal free null directions w of L."""
    total = kernel.trace()
    for idx, V in free:
        total -= float(np.sum((V.T @ kernel.U[idx]) ** 2))
    return total
