"""Issue #30's thirty-ninth pass: does an algebraic-multigrid preconditioner make the
Frank–Wolfe check's LOBPCG converge in fewer iterations, and does it pay?

The issue names it: warm-started LOBPCG "with a block of 8–16 and, if it pays, an
algebraic-multigrid preconditioner on L + σI (pyamg)". Beside each check of
``low-rank-alm``'s own path on ``npkl_scale.py``'s instance (the path is not touched), the
check's LOBPCG is run again from the check's own warm start, off span V, for N iterations,
and Rayleigh–Ritz on [V, W] gives its λ (as the check does), with

- ``none``: no preconditioner (the solver's check runs ``check_iterations(n)`` of these);
- ``amg-M``: a V-cycle for M(β̃) − σI, σ = λ_check − 0.05·|λ_check|, its smoothed-
  aggregation hierarchy (pyamg) built at every check, since M(β̃) changes with β̃. σ is read
  from the check's own result, which a solver would not have before its LOBPCG (it would
  take the last check's); where the check missed the bottom σ lies above λ_min and
  M(β̃) − σI is indefinite (the V-cycle still positive definite in the cases looked at);
- ``amg-L``: a V-cycle for L + τI (τ = 0.5 in the scaled units, where L's diagonal is 1),
  built once: the issue's form, without the pairs.

Each λ is printed as its excess over λ_min(M(β̃)) (ARPACK to 1e-10 from the check's vertex),
with the seconds of the setups and of the iterations summed over the checks. The V-cycle is
:class:`BlockVCycle`: pyamg's hierarchy, one symmetric Gauss–Seidel sweep before and after
the coarse correction (pyamg's C++ sweep, column by column), a dense pseudo-inverse at the
coarsest level; symmetric, as LOBPCG's preconditioner must be. (pyamg's own
``aspreconditioner``, its default hierarchy with Gauss–Seidel smoothing, took 1.46 s on a
block of eight for L + 0.5·I at n = 100,000, where this V-cycle took 0.21 s.) It needs
pyamg: ``pip install 'kernelsdp[amg]'``.

    python benchmarks/npkl_check_amg.py --n 100000 --seed 3
    python benchmarks/npkl_check_amg.py --n 1000000 --checks 6 --plain 12,21,42 \\
        --variants none,amg-M

Measured (docs/measurements.md, "Thirty-ninth pass"; seed 3): in the body of the path a
V-cycle iteration is worth several plain ones — at 100,000 the excess summed over checks
1–23 is 0.204 for the solver's 12 plain iterations, 0.085 for 24, 0.146 for three V-cycle
iterations and 0.060 for four — but a check then takes 3.9 s (three) or 4.4 s (four)
against 1.2 s (12 plain) and 2.3 s (24 plain), the hierarchy's setup 1.6 s of it; at 10⁶
the setup took 181 s a check (21 plain iterations and the Ritz step: 24 s), and four V-cycle
iterations read λ less well than the solver's 21 plain ones. From the tail's first checks on every
variant reads the check's λ. ``amg-L`` reads λ worse than no preconditioner (at 100,000:
2.44 with three iterations against 1.19 for six plain): M's bottom is shaped by the pairs,
and a V-cycle for L alone smooths it away.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from npkl_scale import instance

import kernelsdp.solvers.alm_inner as alm_inner
import kernelsdp.solvers.alm_outer as alm_outer
from kernelsdp.solvers import solve

#: the variants and their LOBPCG iterations (module docstring)
VARIANTS = {"none": (6, 12, 24), "amg-M": (2, 3, 4), "amg-L": (2, 3, 4)}
#: σ below the check's λ, as a share of |λ|, for ``amg-M``; τ of ``amg-L``
SHIFT_SHARE, TAU = 0.05, 0.5


class BlockVCycle:
    """One V-cycle of pyamg's smoothed-aggregation hierarchy for an SPD A, applied to an
    n×k block: symmetric Gauss–Seidel before and after the coarse correction."""

    def __init__(self, A: sp.csr_matrix, max_coarse: int = 300):
        import pyamg

        ml = pyamg.smoothed_aggregation_solver(
            sp.csr_matrix(A), max_coarse=max_coarse, improve_candidates=None
        )
        self.A = [lv.A.tocsr() for lv in ml.levels]
        self.P = [lv.P.tocsr() for lv in ml.levels[:-1]]
        self.R = [lv.R.tocsr() for lv in ml.levels[:-1]]
        C = self.A[-1].toarray()
        self.coarse = np.linalg.pinv((C + C.T) / 2)

    def _sweeps(self, A: sp.csr_matrix, x: np.ndarray, b: np.ndarray) -> np.ndarray:
        """A symmetric Gauss–Seidel sweep (forward, then backward) on each column."""
        from pyamg import amg_core

        n = A.shape[0]
        for c in range(b.shape[1]):
            xc, bc = np.ascontiguousarray(x[:, c]), np.ascontiguousarray(b[:, c])
            for rows in ((0, n, 1), (n - 1, -1, -1)):
                amg_core.gauss_seidel(A.indptr, A.indices, A.data, xc, bc, *rows)
            x[:, c] = xc
        return x

    def _cycle(self, level: int, b: np.ndarray) -> np.ndarray:
        if level == len(self.A) - 1:
            return self.coarse @ b
        A = self.A[level]
        x = self._sweeps(A, np.zeros_like(b), b)
        x += self.P[level] @ self._cycle(level + 1, self.R[level] @ (b - A @ x))
        return self._sweeps(A, x, b)

    def __call__(self, B: np.ndarray) -> np.ndarray:
        B = np.asarray(B, dtype=np.float64)
        return self._cycle(0, B.reshape(B.shape[0], -1)).reshape(B.shape)

    def operator(self) -> spla.LinearOperator:
        n = self.A[0].shape[0]
        return spla.LinearOperator((n, n), matvec=self, matmat=self, dtype=np.float64)


def ritz_min(M, X: np.ndarray, W: np.ndarray) -> float:
    """The least Rayleigh–Ritz value of M on [X, W] (the check's own pencil)."""
    Q = np.hstack([X, W])
    return float(alm_inner.ritz_pairs(Q, M @ Q)[0][0])


def start_block(n: int, X: np.ndarray, warm, seed: int) -> np.ndarray:
    """The check's LOBPCG start: its warm block, off span X (as ``alm_inner.fw_check`` in
    double; in single the check's block is float32)."""
    W0 = alm_inner._start_block(n, min(alm_inner.BLOCK, n - X.shape[1] - 1), warm, seed)
    return alm_inner.off_span(X, W0)


def preconditioner(name: str, prob, M, lam: float, cache: dict):
    """The variant's LinearOperator (None for ``none``); ``amg-L``'s is built once."""
    I = sp.identity(prob.n, format="csr")
    if name == "amg-M":
        sigma = lam - SHIFT_SHARE * abs(lam)
        return BlockVCycle((M - sigma * I).tocsr()).operator()
    if name == "amg-L":
        if "L" not in cache:
            cache["L"] = BlockVCycle((prob.L.astype(np.float64) + TAU * I).tocsr()).operator()
        return cache["L"]
    return None


def compare(prob, pt, warm, seed: int, chk, cache: dict, variants: dict = VARIANTS) -> dict:
    """At one check: the reference λ_min(M(β̃)) and each variant's excess and seconds (NaN
    where LOBPCG refused its start)."""
    M = prob.M.copy()  # M(β̃), as the check left it
    X = np.asarray(pt.X, dtype=np.float64)
    W0, Y = start_block(prob.n, X, warm, seed), alm_inner.range_basis(X)
    ref = float(spla.eigsh(M, k=1, which="SA", v0=chk.vertex, tol=1e-10)[0][0])
    row = {"lam": chk.lam, "ref": ref, "width": X.shape[1]}
    for name, iterations in variants.items():
        t = time.perf_counter()
        T = preconditioner(name, prob, M, chk.lam, cache)
        row[f"{name} setup s"] = time.perf_counter() - t
        for N in iterations:
            t = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    _, W = spla.lobpcg(
                        M, W0.copy(), Y=Y, M=T, largest=False, maxiter=N, tol=alm_inner.CHECK_TOL
                    )
                row[f"{name} {N}"] = ritz_min(M, X, W) - ref
            except ValueError:  # dependent start or constraints (the check then redraws)
                row[f"{name} {N}"] = float("nan")
            row[f"{name} {N} s"] = time.perf_counter() - t
    return row


def traced(
    n: int, seed: int, checks: int | None = None, problem=None, variants: dict = VARIANTS
) -> tuple[list[dict], object]:
    """The solve of ``problem`` (default ``npkl_scale.instance(n)``) with every check
    compared (its path unchanged), stopped after ``checks`` compared checks (None: to the
    certified 1e-3); returns the rows and the result (None when stopped)."""
    rows: list[dict] = []
    cache: dict = {}
    check = alm_outer.fw_check

    class _Enough(Exception):
        pass

    def compared(prob, pt, beta, rho, warm, s):
        chk = check(prob, pt, beta, rho, warm, s)
        if pt.X.shape[1] and prob.n > alm_inner.DENSE_CHECK_N:
            row = compare(prob, pt, warm, s, chk, cache, variants)
            rows.append({"check": len(rows) + 1, **row})
            if checks is not None and len(rows) >= checks:
                raise _Enough
        return chk

    alm_outer.fw_check = compared
    try:
        f = instance(n) if problem is None else problem
        r = solve(f, "low-rank-alm", gap_tol=1e-3, seed=seed)
    except _Enough:
        r = None
    finally:
        alm_outer.fw_check = check
    return rows, r


def table(rows: list[dict], variants: dict = VARIANTS) -> str:
    cols = [f"{v}:{'/'.join(map(str, its))}" for v, its in variants.items()]
    out = [
        " check width  λ_min(M)   check's excess | " + " | ".join(cols) + "   (excess over λ_min)"
    ]
    for r in rows:
        parts = ["/".join(f"{r[f'{v} {N}']:.0e}" for N in its) for v, its in variants.items()]
        out.append(
            f"{r['check']:>6} {r['width']:>5} {r['ref']:>9.4f}  {r['lam'] - r['ref']:>9.1e}      | "
            + " | ".join(parts)
        )
    for v, its in variants.items():
        secs = ", ".join(f"{N}: {sum(r[f'{v} {N} s'] for r in rows):.2f} s" for N in its)
        out.append(f"{v}: setup {sum(r[f'{v} setup s'] for r in rows):.2f} s; iterations {secs}")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=3000, help="points (npkl_scale.py's instance)")
    ap.add_argument("--seed", type=int, default=3, help="the solver's seed")
    ap.add_argument("--checks", type=int, help="stop after this many checks (default: all)")
    ap.add_argument("--plain", help="plain iterations compared, e.g. 12,21,42 (default 6,12,24)")
    ap.add_argument("--variants", help="a comma-separated subset of " + ", ".join(VARIANTS))
    args = ap.parse_args(argv)
    variants = dict(VARIANTS)  # the module's table stays as declared
    if args.plain:
        variants["none"] = tuple(int(k) for k in args.plain.split(","))
    if args.variants:
        keep = args.variants.split(",")
        unknown = set(keep) - set(variants)
        if unknown:
            ap.error(f"unknown variants: {', '.join(sorted(unknown))}")
        variants = {v: variants[v] for v in keep}
    rows, _ = traced(args.n, args.seed, args.checks, variants=variants)
    print(f"n = {args.n:,}, seed {args.seed}, {len(rows)} checks")
    print(table(rows, variants))
    return 0


if __name__ == "__main__":
    sys.exit(main())
