"""Issue #30's twenty-third pass: each Newton step of ``low-rank-alm``'s rounds logged with
where its quadratic model fails (``npkl_resume_proto.py --log-steps``).

For each step: the radius, CG iterations, whether η reached the boundary, the model's
decrease and φ's, their ratio; η's length, the share of its squared length on its 100
heaviest rows and its participation ratio (Σ‖η_i‖²)²/Σ‖η_i‖⁴ (how many rows carry it); and
at the trial point, the pair part of the model's error,

    Σ_p [e_p(w_p + Δw_p) − e_p(w_p) − β̃_p·Δw_p − ½β̃'_p·Δw_p²] / S,

with Δw the pair values' exact change (the model is exact on each piece of the envelope, so
this is what crossing the hinge's kinks costs), the largest |Δw_p|, and the share of that
error's absolute value on the ten nodes that carry most of it.  The solver's truncated CG
and the prototypes' (``npkl_region_proto.region_cg``, ``npkl_step_proto.preconditioned_cg``)
are wrapped, whichever the variant uses.
"""

from __future__ import annotations

import math

import npkl_region_proto
import npkl_step_proto
import numpy as np

from kernelsdp.solvers import alm_newton

#: the rows of η's head (its share of η's squared length) and the nodes of the error's
TOP_ROWS, TOP_NODES = 100, 10


def step_shape(eta: np.ndarray) -> dict:
    """η's length, its head's share over TOP_ROWS rows and its rows' participation ratio."""
    e = np.einsum("ij,ij->i", eta[:-1], eta[:-1], dtype=np.float64)
    total = float(e.sum())
    head = float(np.sort(e)[-TOP_ROWS:].sum())
    return {
        "length": math.sqrt(total),
        "head": head / max(total, 1e-300),
        "rows": total * total / max(float((e * e).sum()), 1e-300),
    }


def pair_errors(nt, x, w_trial: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's part of the model's error at the trial point, S times the module
    docstring's terms, and the pair values' change Δw."""
    p = nt.prob
    dw = np.asarray(w_trial, dtype=np.float64) - x.w
    err = (
        p.envelope_terms(x.w + dw, nt.beta, nt.rho)[0]
        - p.envelope_terms(x.w, nt.beta, nt.rho)[0]
        - x.bt * dw
        - 0.5 * (x.slope / p.B) * dw * dw
    )
    return err, dw


def node_errors(p, err: np.ndarray) -> np.ndarray:
    """Σ_{p ∋ i} |err_p| at each node i."""
    return np.bincount(p.i, np.abs(err), p.n) + np.bincount(p.j, np.abs(err), p.n)


def kink_error(nt, x, w_trial: np.ndarray) -> dict:
    """The pair part of the model's error at the trial point (module docstring)."""
    p = nt.prob
    err, dw = pair_errors(nt, x, w_trial)
    nodes = node_errors(p, err)
    return {
        "kink_error": float(err.sum() / p.scale),
        "max_dw": float(np.abs(dw).max(initial=0.0)),
        "nodes_share": float(np.sort(nodes)[-TOP_NODES:].sum() / max(nodes.sum(), 1e-300)),
    }


def install(log: list) -> None:
    """Each step's record appended to ``log`` (module docstring)."""
    plain_cg, plain_value = alm_newton.truncated_cg, alm_newton._Newton.value
    region_cg, pcg = npkl_region_proto.region_cg, npkl_step_proto.preconditioned_cg
    pending = {}

    def record(nt, x, eta, model, boundary, delta, hessians):
        log.append(
            {"delta": delta, "cg": hessians, "boundary": boundary, "model": model,
             "phi": x.value, **step_shape(eta)}
        )  # fmt: skip
        pending.update(nt=nt, x=x)

    def cg(nt, x, grad, delta, max_iter):
        before = nt.hessians
        eta, model, boundary = plain_cg(nt, x, grad, delta, max_iter)
        record(nt, x, eta, model, boundary, delta, nt.hessians - before)
        return eta, model, boundary

    def wrapped(step):
        def run(nt, x, grad, delta, max_iter, *args, **kwargs):
            before = nt.hessians
            eta, model, boundary, length = step(nt, x, grad, delta, max_iter, *args, **kwargs)
            record(nt, x, eta, model, boundary, delta, nt.hessians - before)
            return eta, model, boundary, length

        return run

    def value(self, X, slot=0):
        out = plain_value(self, X, slot)
        if pending.get("nt") is self:
            x = pending.pop("x")
            pending.pop("nt")
            log[-1].update(trial=out[0], **kink_error(self, x, out[2]))
        return out

    alm_newton.truncated_cg, alm_newton._Newton.value = cg, value
    npkl_region_proto.region_cg = wrapped(region_cg)
    npkl_step_proto.preconditioned_cg = wrapped(pcg)


def step_line(r: dict) -> str:
    """One step's record as a line."""
    actual = r["phi"] - r.get("trial", math.nan)
    where = "boundary" if r["boundary"] else "interior"
    return (
        f"  radius {r['delta']:.2e}  cg {r['cg']:2d}  {where:<8}  model {r['model']:.3e}"
        f"  actual {actual:.3e}  ratio {actual / max(r['model'], 1e-300):7.3f}"
        f"  length {r['length']:.1e}  head {r['head']:.3f}  rows {r['rows']:9.0f}"
        f"  kink error {r.get('kink_error', math.nan):.2e}  max Δw {r.get('max_dw', math.nan):.1e}"
        f"  on {TOP_NODES} nodes {r.get('nodes_share', math.nan):.2f}"
    )
