"""Extreme eigenvalues of sparse symmetric matrices: the one λ_min / λ_max helper.

Every certificate in kernelsdp that needs λ_min (NPKL's dual function, ADMM's gap, verify)
or λ_max (NPKL's unboundedness test) calls :func:`extreme_eigenvalue`:

- n ≤ ``DENSE_MAX_N``: dense LAPACK on the densified matrix (measured faster than
  ARPACK's start-up there);
- above: ARPACK (implicitly restarted Lanczos, ``scipy.sparse.linalg.eigsh``) on the
  matrix, or on an operator when a low-rank term c·UUᵀ is added (never densified), warm
  started from ``v0`` when the caller has a nearby eigenvector (:class:`LowestEigenpair`),
  else from a fixed-seed vector (the same matrix gets the same answer);
- ARPACK's value is its Ritz value θ moved by the residual norm ‖Mx − θx‖ away from the
  spectrum (θ − ‖r‖ for λ_min), so it errs on the safe side of the eigenvalue it found;
- should ARPACK not converge, it is run once more on a basis twice as wide
  (``LANCZOS_BASES``); then Gershgorin's disc bound stands in: weaker, but on the safe side (a
  lower bound on λ_min, an upper bound on λ_max), so a certificate built on it stays
  valid.  The returned ``method`` says which one ran.

**The Lanczos basis is 40 vectors, not ARPACK's 20** (``LANCZOS_BASES``).  Near an optimum of an
eigenvalue problem the extreme eigenvalue is a cluster: NPKL's dual g(β) = B·λ_min(M(β)) −
Σh* is maximised where λ_min(M) has the multiplicity of K's rank (complementarity:
M·K = λ_min·K), so the better the multipliers, the tighter the cluster.  A 20-vector basis
cannot resolve 18 (n = 3,000) to 48 (n = 20,000) nearly equal eigenvalues.  Measured on
M(β) from ADMM's multipliers (two-Gaussian problem, hinge, tr K ≤ n), 20 random starts
each: n = 3,000 at a certified gap of 1e-5 (18 eigenvalues within 1e-7 of λ_min), 20
vectors failed 11 of 20 times and took 16 s a call, 40 vectors never failed and took
0.10 s; at gap 1e-4, 6.1 s against 0.11 s; n = 20,000 at gap 1e-3, 3.75 s against 1.29 s
(60 vectors 1.23 s, 100 1.67 s).  A failure used to fall to Gershgorin's bound, which
failed the from-scratch certificate of a correct answer (lower bound −3,671 where the
optimum is 1,004.81).  ``benchmarks/certificate_cost.py --part lambda-min`` measures both
bases side by side, and ADMM's iterations to a tight gap with each (its gap checks call
this function): n = 3,000, certified gap 1e-5, 3,864 iterations in 24.7 s against 11,028
in 97.0 s on ARPACK's default basis; at the answer, 0 of 5 starts failed at 0.10 s a call
against 5 of 5 at 17.3 s.

Measured on NPKL's M(β) from the digits' 5-NN graph: n = 400, dense 12 ms / ARPACK 1 ms;
n = 1,500, dense 185 ms / ARPACK 2 ms (both agree to 1e-15).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

#: at or below this n the eigenvalue comes from dense LAPACK
DENSE_MAX_N = 400
#: relative accuracy asked of ARPACK
ARPACK_TOL = 1e-10
#: Lanczos basis sizes (ARPACK's ncv; its default is 20), tried in turn while ARPACK does
#: not converge: see the module docstring
LANCZOS_BASES = (40, 80)
#: words of n that one λ_min holds at most (the widest basis, its work vectors and v0),
#: for the memory formulas of the solvers that call it
LANCZOS_WORDS_PER_ROW = max(LANCZOS_BASES) + 5
#: the seed of the start vector when the caller has none
START_SEED = 0


@dataclass(frozen=True)
class Extreme:
    """An extreme eigenvalue, its eigenvector (None from the fallback) and the method."""

    value: float
    vector: np.ndarray | None
    method: str  # "dense" | "arpack" | "gershgorin"


def gershgorin(M, which: str, lowrank: np.ndarray | None = None, coef: float = 0.0) -> float:
    """Gershgorin's bound: ≤ λ_min (which='SA') or ≥ λ_max (which='LA') of M + coef·UUᵀ."""
    M = sp.csr_matrix(M)
    d = M.diagonal()
    radius = np.asarray(abs(M).sum(axis=1)).ravel() - np.abs(d)
    extra = 0.0 if lowrank is None else coef * float(np.sum(lowrank * lowrank))  # ≥ |λ(cUUᵀ)|
    if which == "SA":
        return float(np.min(d - radius)) + min(0.0, extra)
    return float(np.max(d + radius)) + max(0.0, extra)


def extreme_eigenvalue(
    M,
    which: str = "SA",
    lowrank: np.ndarray | None = None,
    coef: float = 0.0,
    v0: np.ndarray | None = None,
    tol: float = ARPACK_TOL,
) -> Extreme:
    """λ_min (``which='SA'``) or λ_max (``'LA'``) of the symmetric M + coef·UUᵀ.

    ``M`` is sparse or dense (n × n); ``lowrank`` is U (n × r) or None.
    """
    if which not in ("SA", "LA"):
        raise ValueError(f"which must be 'SA' or 'LA', got {which!r}")
    n = M.shape[0]
    if n <= DENSE_MAX_N:
        D = M.toarray() if sp.issparse(M) else np.array(M, dtype=float)
        if lowrank is not None and coef:
            D = D + coef * (lowrank @ lowrank.T)
        w, V = np.linalg.eigh((D + D.T) / 2)
        k = 0 if which == "SA" else -1
        return Extreme(float(w[k]), V[:, k], "dense")
    op = M
    if lowrank is not None and coef:
        U = lowrank

        def mv(x):
            return M @ x + coef * (U @ (U.T @ x))

        op = spla.LinearOperator((n, n), matvec=mv, dtype=float)
    if v0 is None:
        v0 = np.random.default_rng(START_SEED).standard_normal(n)
    for ncv in LANCZOS_BASES:
        try:
            w, V = spla.eigsh(op, k=1, which=which, v0=v0, tol=tol, ncv=min(ncv, n - 1))
        except spla.ArpackNoConvergence:
            continue
        x = V[:, 0]
        # some eigenvalue lies within ‖r‖ of the Ritz value θ (which is ≥ λ_min, ≤ λ_max);
        # moved by ‖r‖ away from the spectrum it stays on the safe side of the extreme one
        # it converged to (ARPACK_TOL makes ‖r‖ ≤ 1e-10·|θ|: B·‖r‖ of a dual bound)
        residual = float(np.linalg.norm(op @ x - w[0] * x))
        return Extreme(float(w[0]) + (-residual if which == "SA" else residual), x, "arpack")
    return Extreme(gershgorin(M, which, lowrank, coef), None, "gershgorin")


def lowest_eigenvalue(M, lowrank: np.ndarray | None = None, coef: float = 0.0) -> float:
    """λ_min(M + coef·UUᵀ) (a lower bound on it when ARPACK fails)."""
    return extreme_eigenvalue(M, "SA", lowrank, coef).value


def largest_eigenvalue(M) -> float:
    """λ_max(M) (an upper bound on it when ARPACK fails)."""
    return extreme_eigenvalue(M, "LA").value


class LowestEigenpair:
    """λ_min of a sequence of nearby matrices M(β), each ARPACK run started from the previous
    eigenvector (what an iterative solver's certificate needs every few iterations)."""

    def __init__(self):
        self.vector: np.ndarray | None = None

    def __call__(self, M) -> float:
        e = extreme_eigenvalue(M, "SA", v0=self.vector)
        self.vector = e.vector if e.method == "arpack" else None
        return e.value
