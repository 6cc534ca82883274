"""Issue #30's thirty-eighth pass: where a Frank–Wolfe check's gap lies, in span V or
outside it, check by check along ``low-rank-alm``'s own path on ``npkl_scale.py``'s
instance.

At a check with factor V (‖V‖_F ≤ 1), Ritz value λ and FW = a·(⟨V, MV⟩ − min(λ, 0)),
let λ_V be the least Ritz value of M(β̃) in span V. Then exactly

    FW = a·(⟨V, MV⟩ − λ_V‖V‖²)  +  a·‖V‖²·(λ_V − min(λ, 0))  +  a·(1 − ‖V‖²)·(−min(λ, 0))
         in span V                 outside span V                  the trace's slack

The first part is V's weight on its own directions above their bottom, which only
re-weighting V can remove; the second is a direction V lacks, which a Frank–Wolfe step
brings in. Printed beside them: the vertex's squared share in span V and the step t that
the check's Frank–Wolfe line search returned (0 where the check updated the multipliers
instead, or where λ ≥ 0 and the step adds no vertex). The extra work
(one product of M with V, an s×s eigenproblem) is not counted in the products.

    python benchmarks/npkl_fw_split.py --n 100000 --seed 3

Measured (docs/measurements.md, "Thirty-eighth pass"): at 100,000, seed 3, from check 25
(the first spread check after the pockets) to the end the vertex lay in span V (share
0.996–1.000), the part outside was at most 1.9e-5 of a FW gap of 3.2e-3 down to 1.0e-4,
and the seven Frank–Wolfe steps there took t ≤ 1.2e-3; at 3,000 the same from check 13.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from npkl_core_proto import gram_basis
from npkl_scale import FROM_ZERO, instance

import kernelsdp.solvers.alm_inner as alm_inner
import kernelsdp.solvers.alm_outer as alm_outer
from kernelsdp.solvers import solve


def split(prob, pt, chk) -> dict:
    """The three parts of the check's FW gap (module docstring), the vertex's share in
    span V and λ_V, in the scaled problem's units."""
    X = np.asarray(pt.X, dtype=np.float64)
    prob.dual_matrix(chk.beta_tilde)
    GX = prob.dual_times(X)
    # an orthonormal basis of span V and M·B, directions down to 1e-5 of the largest
    # singular value: the threshold the docs' figures were measured with (the core's 1e-7
    # also keeps the faintest seed columns, which lower only the tiny part outside: at
    # 3,000, seed 3, its largest in the tail 3.8e-7 instead of 6.2e-7)
    B, GB, _ = gram_basis(X, GX, keep_above=1e-5)
    H = B.T @ GB
    lam_v = float(np.linalg.eigvalsh((H + H.T) / 2)[0])
    vv, vgv, low = float(np.sum(X * X)), float(np.sum(X * GX)), min(chk.lam, 0.0)
    return {
        "in_span": prob.a * (vgv - lam_v * vv),
        "outside": prob.a * vv * (lam_v - low),
        "slack": prob.a * (1.0 - vv) * (-low),
        "share": float(np.sum((B.T @ chk.vertex) ** 2)),
        "lam_v": lam_v,
    }


def traced(n: int, seed: int) -> tuple[list[dict], object]:
    """The solve with every check split (the solver's own path: the split reads, never
    writes, the point) and each Frank–Wolfe step's t."""
    rows: list[dict] = []
    check, step = alm_outer.fw_check, alm_outer.fw_step

    def split_check(prob, pt, beta, rho, warm, s):
        chk = check(prob, pt, beta, rho, warm, s)
        rows.append({"fw": chk.fw_gap, "fy": chk.fy_gap, "t": 0.0, "lam": chk.lam})
        if pt.X.shape[1]:
            rows[-1].update(split(prob, pt, chk))
        return chk

    def step_with_t(prob, pt, chk, beta, rho):
        searched = []
        line_search = alm_inner.exact_step

        def recorded(phi, xatol):
            searched.append(line_search(phi, xatol))
            return searched[-1]

        alm_inner.exact_step = recorded  # the step's own line search, read as it returns
        try:
            V = step(prob, pt, chk, beta, rho)
        finally:
            alm_inner.exact_step = line_search
        if chk.lam < 0 and searched:
            rows[-1]["t"] = searched[-1]
        return V

    alm_outer.fw_check, alm_outer.fw_step = split_check, step_with_t
    try:
        r = solve(instance(n), "low-rank-alm", gap_tol=1e-3, seed=seed, **FROM_ZERO)
    finally:
        alm_outer.fw_check, alm_outer.fw_step = check, step
    return rows, r


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=3000, help="points (npkl_scale.py's instance)")
    ap.add_argument("--seed", type=int, default=0, help="the solver's seed")
    args = ap.parse_args(argv)
    rows, r = traced(args.n, args.seed)
    checks = [h for h in r.history if "fw_gap" in h]
    info = r.info
    print(f"n = {args.n:,}, seed {args.seed}: {info['products']} products, {info['checks']} checks")
    print(" check products  vertex on   FW        in span   outside   slack     FY        share  t")
    for h, d in zip(checks, rows):
        if "in_span" not in d:
            continue
        print(
            f"{h['check']:>6} {h['products']:>8} {h['vertex_participation']:>10.0f}  "
            f"{d['fw']:.2e}  {d['in_span']:.2e}  {d['outside']:.2e}  {d['slack']:+.1e}  "
            f"{d['fy']:.2e}  {d['share']:.3f}  {d['t']:.1e}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
