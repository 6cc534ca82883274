"""Issue #30's pre-check: how hard is NPKL's hinge optimum for a first-order method, per n?

On ADMM's answer (the two-Gaussian instance of ``npkl_scale.py``: mutual 5-NN graph,
m = 1.2n pairs, hinge, C = 1, tr K ≤ B = n), solved to a certified gap of 1e-3 or stopped
at ``--time-limit``, it measures

- the **eigengap** of S = L − A*(α) = M(β) at the multipliers (α = −βT, projected onto
  [0, C]): the r lowest eigenvalues form a cluster (complementarity puts range(K) in the
  eigenspace of λ_min), and λ_{r+1} − λ_r is how strongly the dual separates the optimum's
  face from the rest; the spread λ_r − λ_1 says how far the point is from that cluster;
- the **pairs at the hinge's kink** (|1 − T K_ij| ≤ ``KINK_TOL``, and the multipliers
  strictly inside (0, C)), against r(r+1)/2: the free multipliers that must make λ_min's
  multiplicity r (an r-fold eigenvalue is r(r+1)/2 − 1 conditions on S).

r is K's numerical rank (eigenvalues above ``RANK_RTOL`` of the largest).  The r + ``EXTRA``
lowest eigenvalues come from ARPACK on the sparse S (no n×n object).

    python benchmarks/npkl_precheck.py --n 3000 20000
    python benchmarks/npkl_precheck.py --n 100000 --time-limit 900 --save /tmp/admm_100k.npz
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
import scipy.sparse.linalg as spla
from npkl_scale import instance

from kernelsdp.solvers import solve

#: a pair is at the kink when |1 − T K_ij| is at most this (K_ij is O(1) here: B = n)
KINK_TOL = 1e-3
#: multipliers count as strictly inside the box when in (ε·C, (1 − ε)·C)
INSIDE_TOL = 1e-3
#: K's numerical rank: eigenvalues of K above this fraction of its largest
RANK_RTOL = 1e-3
#: eigenvalues of S computed beyond K's rank
EXTRA = 12
#: above this n the spectrum is split (see lowest_eigenvalues)
ARPACK_MAX_N = 30_000


def spectrum_at(f, U: np.ndarray, beta: np.ndarray) -> dict:
    """The pre-check's numbers at the point (U, β) of ``f``."""
    P = f.pairs
    t = P.t
    alpha = np.clip(-beta * t, 0.0, f.C)
    S = f.dual_matrix(-alpha * t)
    kev = np.linalg.eigvalsh(U.T @ U)[::-1]
    r = int(np.sum(kev > RANK_RTOL * kev[0]))
    t0 = time.perf_counter()
    w = lowest_eigenvalues(S, U, r)
    eig_s = time.perf_counter() - t0
    z = np.einsum("ij,ij->i", U[P.i], U[P.j])
    margin = 1.0 - t * z
    kink = int(np.sum(np.abs(margin) <= KINK_TOL))
    inside = int(np.sum((alpha > INSIDE_TOL * f.C) & (alpha < (1 - INSIDE_TOL) * f.C)))
    return {
        "n": f.n,
        "m": P.m,
        "rank": r,
        "K_eigs_top": kev[:3].tolist(),
        "K_eig_r": float(kev[r - 1]),
        "K_eig_r_plus_1": float(kev[r]) if r < kev.size else 0.0,
        "lambda_1": float(w[0]),
        "lambda_r": float(w[r - 1]),
        "lambda_r_plus_1": float(w[r]),
        "eigengap": float(w[r] - w[r - 1]),
        "cluster_spread": float(w[r - 1] - w[0]),
        "lowest": w.tolist(),
        "pairs_at_kink": kink,
        "multipliers_inside": inside,
        "r(r+1)/2": r * (r + 1) // 2,
        "violated": int(np.sum(margin > KINK_TOL)),
        "eigsh_s": eig_s,
    }


def lowest_eigenvalues(S, U: np.ndarray, r: int) -> np.ndarray:
    """The r + ``EXTRA`` lowest eigenvalues of S: ARPACK up to ``ARPACK_MAX_N``; above, the
    Ritz values of S on span U (the cluster: range K) and LOBPCG's ``EXTRA`` lowest on its
    orthogonal complement (ARPACK for 120 eigenvalues at n = 100,000 ran past 20 minutes).
    The split ignores the coupling between the two: an estimate at a point off the optimum."""
    n = S.shape[0]
    k = min(r + EXTRA, n - 2)
    if n <= ARPACK_MAX_N:
        return np.sort(
            spla.eigsh(
                S,
                k=k,
                which="SA",
                tol=1e-8,
                ncv=min(n - 1, max(2 * k + 1, 40)),
                v0=np.random.default_rng(0).standard_normal(n),
            )[0]
        )
    Q = np.linalg.qr(U)[0]
    inside = np.linalg.eigvalsh(Q.T @ (S @ Q))
    X0 = np.random.default_rng(0).standard_normal((n, EXTRA))
    X0 -= Q @ (Q.T @ X0)
    out = spla.lobpcg(S, X0, Y=Q, largest=False, maxiter=200, tol=1e-6)[0]
    return np.sort(np.concatenate([inside, out]))


def run(n: int, time_limit: float | None, save: str | None, gap_tol: float) -> dict:
    f = instance(n)
    t0 = time.perf_counter()
    r = solve(f, "admm", time_limit=time_limit, gap_tol=gap_tol, max_iter=20_000)
    solve_s = time.perf_counter() - t0
    U, beta = r.kernel.U, np.asarray(r.duals["beta"])
    if save:
        np.savez(
            save,
            U=U,
            beta=beta,
            status=r.termination.value,
            iterations=r.iterations,
            gap=np.nan if r.info.get("relative_gap") is None else r.info["relative_gap"],
            seconds=solve_s,
            objective=r.objective,
        )
    out = spectrum_at(f, U, beta)
    out.update(
        admm_status=r.termination.value,
        admm_iterations=r.iterations,
        admm_gap=r.info.get("relative_gap"),
        admm_s=solve_s,
        objective=r.objective,
    )
    return out


def from_saved(n: int, path: str) -> dict:
    """The pre-check at a point saved by ``--save`` (no ADMM run)."""
    d = np.load(path, allow_pickle=False)  # a saved file must never run code when read
    out = spectrum_at(instance(n), d["U"], d["beta"])
    out.update(
        {f"admm_{k}": d[k].item() for k in ("status", "iterations", "gap", "seconds") if k in d}
    )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--n", type=int, nargs="+", default=[3000, 20000])
    ap.add_argument("--time-limit", type=float, default=None, metavar="S")
    ap.add_argument("--save", default=None, help="write ADMM's U and beta here (one n only)")
    ap.add_argument("--load", default=None, help="a point saved by --save (one n only)")
    ap.add_argument(
        "--gap-tol",
        type=float,
        default=1e-3,
        help="ADMM's certified gap (the eigengap needs the cluster resolved: 1e-5)",
    )
    a = ap.parse_args()
    for n in a.n:
        out = from_saved(n, a.load) if a.load else run(n, a.time_limit, a.save, a.gap_tol)
        lowest = out.pop("lowest")
        print(json.dumps(out), flush=True)
        print("  lowest eigenvalues of S:", " ".join(f"{x:.6g}" for x in lowest), flush=True)
        print(
            f"n = {n:,}: rank {out['rank']}, eigengap λ_(r+1) − λ_r = {out['eigengap']:.3e} "
            f"(spread λ_r − λ_1 = {out['cluster_spread']:.2e}); pairs at the kink "
            f"{out['pairs_at_kink']:,}, multipliers inside (0, C) {out['multipliers_inside']:,},"
            f" r(r+1)/2 = {out['r(r+1)/2']:,}; ADMM {out.get('admm_status', '?')} after "
            f"{out.get('admm_iterations', '?')} iterations, gap {out.get('admm_gap')}",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
