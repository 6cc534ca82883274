"""``moment2``: the order-2 moment relaxation of a QCQP (J. B. Lasserre, "Global optimization
with polynomials and the problem of moments", SIAM J. Optim. 11, 2001; M. Laurent, "Sums of
squares, moment matrices and optimization over polynomials", 2009, §4–6).

A moment y_γ stands for x^γ, |γ| ≤ 4 (y₀ = 1); L(p) = Σ p_γ y_γ.  The model is

    min L(f)   s.t.  M₂(y) = [y_{α+β}]_{|α|,|β| ≤ 2} ⪰ 0                  (moment matrix)
                     M₁(g y) = [L(g x^{α+β})]_{|α|,|β| ≤ 1} ⪰ 0          (each g ≥ 0 below)
                     L(h x^α) = 0 for |α| ≤ 4 − deg h                     (each h = 0)
                     L(gᵢgⱼ) ≥ 0 for each pair of linear constraints      (RLT, so ⊇ shor+rlt)

with g every quadratic inequality −(xᵀPx + qᵀx + r), linear inequality, bound, and
(x_i − l_i)(u_i − x_i) on a finite box; h every equality, x_i² − x_i (binary), x_i² − 1 (±1).
Its value is at least Shor+RLT's; it is exact when M₂(y*) has rank one (or, more generally,
a flat extension: Curto & Fialkow 1996), e.g. MaxCut on graphs with no K₅ minor (the
order-2 relaxation implies the triangle inequalities; Barahona & Mahjoub 1986, Laurent
2003).

The moment matrix is one symmetric variable M of side s = C(d+2, 2), tied to y by one sparse
equality (the index of each entry computed once, vectorised: a monomial with exponents
e ≤ 4 is coded Σ e_i 5^i, so that a product of monomials is a sum of codes).  Above
``MOMENT_MAX_D`` variables it is refused: the interior-point cost grows as s⁶ (the dense
scaling block of the s×s cone).  Measured with Clarabel on random box QPs (2026-11-25, this
2-core machine under a load of 10-15): d = 6: 0.3 s, 8: 1.6 s, 10: 8.9 s, 12: 130 s; the
certificate of the answer took longer than the solve at d ≥ 8 (64 s at d = 10).
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from math import comb

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from . import boundedness as bd
from .base import Lifting
from .lifting import Relaxation
from .qcqp import QCQP, Quadratic
from .shor_family import outwards, rlt_matrix

#: the largest number of variables moment2 accepts (s = 91, 1820 moments)
MOMENT_MAX_D = 12
#: exponents are at most 4 < 5, so codes add without carries
BASE = 5


class Monomials:
    """The monomials of degree ≤ 4 in d variables, graded (1, x₁…x_d, x₁², x₁x₂, …)."""

    def __init__(self, d: int):
        self.d = d
        self.weights = BASE ** np.arange(d, dtype=np.int64)
        groups = [list(combinations_with_replacement(range(d), k)) for k in range(5)]
        self.codes = np.array(
            [sum(int(self.weights[i]) for i in c) for g in groups for c in g], dtype=np.int64
        )
        self.count = np.cumsum([len(g) for g in groups])  # monomials of degree ≤ k
        self._order = np.argsort(self.codes)
        self._sorted = self.codes[self._order]

    def index(self, codes: np.ndarray) -> np.ndarray:
        pos = np.searchsorted(self._sorted, codes)
        return self._order[pos]

    def basis(self, k: int) -> np.ndarray:
        """Codes of the monomials of degree ≤ k."""
        return self.codes[: self.count[k]]

    def exponents(self, codes: np.ndarray) -> np.ndarray:
        """(len(codes), d) exponent vectors."""
        return (codes[:, None] // self.weights[None, :]) % BASE

    def quadratic(self, f: Quadratic) -> tuple[np.ndarray, np.ndarray]:
        """(codes, coefficients) of xᵀPx + qᵀx + r."""
        i, j = np.triu_indices(self.d)
        coef = np.where(i == j, f.P[i, j], 2 * f.P[i, j])
        codes = np.r_[0, self.weights, self.weights[i] + self.weights[j]]
        return codes, np.r_[f.r, f.q, coef]

    def linear(self, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(codes, coefficients) of c₀ + Σ c_{i+1} x_i."""
        return np.r_[0, self.weights], np.asarray(c, dtype=float)


def localizing(mono: Monomials, g: tuple[np.ndarray, np.ndarray]) -> sp.csr_matrix:
    """Rows a + n·b of vec_F(M₁(g y)) as a sparse map of y (n = d + 1)."""
    b1 = mono.basis(1)
    n = b1.size
    codes, coef = g
    keep = coef != 0
    codes, coef = codes[keep], coef[keep]
    a, b, t = np.meshgrid(np.arange(n), np.arange(n), np.arange(codes.size), indexing="ij")
    rows = (a + n * b).ravel()
    cols = mono.index((b1[a] + b1[b] + codes[t]).ravel())
    return sp.csr_matrix((coef[t.ravel()], (rows, cols)), shape=(n * n, mono.codes.size))


def shifted(mono: Monomials, h: tuple[np.ndarray, np.ndarray], degree: int) -> sp.csr_matrix:
    """Rows L(h x^α) for every |α| ≤ 4 − degree, as a sparse map of y."""
    codes, coef = h
    keep = coef != 0
    codes, coef = codes[keep], coef[keep]
    alphas = mono.basis(4 - degree)
    a, t = np.meshgrid(np.arange(alphas.size), np.arange(codes.size), indexing="ij")
    cols = mono.index((alphas[a] + codes[t]).ravel())
    return sp.csr_matrix((coef[t.ravel()], (a.ravel(), cols)), shape=(alphas.size, mono.codes.size))


def _polynomials(q: QCQP, mono: Monomials):
    """(inequalities g ≥ 0, equalities (h, degree)) as coded polynomials."""
    ineq = [mono.quadratic(Quadratic(-c.P, -c.q, -c.r)) for c in q.inequalities]
    C, _ = q.linear_rows()
    ineq += [mono.linear(c) for c in C]
    both = np.isfinite(q.lb) & np.isfinite(q.ub)
    both[q.integer] = False
    d = q.d
    for i in np.flatnonzero(both):  # (x_i − l)(u − x_i) = −x_i² + (l + u)x_i − lu
        P, lin = np.zeros((d, d)), np.zeros(d)
        P[i, i], lin[i] = -1.0, q.lb[i] + q.ub[i]
        ineq.append(mono.quadratic(Quadratic(P, lin, -q.lb[i] * q.ub[i])))
    eq = [(mono.quadratic(c), 1 if c.is_linear else 2) for c in q.equalities]
    eq += [(mono.linear(e), 1) for e in q.equality_rows()]
    for idx, lin in ((q.binary, -1.0), (q.spin, 0.0)):
        for i in idx:  # x_i² − x_i = 0, x_i² − 1 = 0
            P, qq = np.zeros((d, d)), np.zeros(d)
            P[i, i], qq[i] = 1.0, lin
            eq.append((mono.quadratic(Quadratic(P, qq, -1.0 if lin == 0.0 else 0.0)), 2))
    return ineq, eq


def _a_priori(q: QCQP, mono: Monomials, M) -> tuple[dict, dict]:
    """M_aa = L(x^{2α}) ≤ Π_i max(l_i², u_i²)^{α_i} over the implied box."""
    lo, hi = bd.implied_box(q)
    bnd = np.minimum(bd.square_bound(lo, hi), bd.shor_diagonal(q))
    exps = mono.exponents(mono.basis(2))
    with np.errstate(invalid="ignore"):
        diag = np.prod(np.where(exps > 0, bnd[None, :] ** exps, 1.0), axis=1)
    fin = np.flatnonzero(np.isfinite(diag))
    if not fin.size:
        return {}, {}
    return (
        {"a_priori_diagonal": [cp.diag(M)[fin] <= outwards(diag[fin])]},
        {
            "a_priori_diagonal": f"M_aa = L(x^2α) <= Π max(l², u²)^α for {fin.size} of "
            f"{diag.size} diagonal entries (a trace bound on M₂)"
        },
    )


def moment2(q: QCQP) -> Relaxation:
    """The order-2 moment relaxation of q (module docstring)."""
    mono = Monomials(q.d)
    b2 = mono.basis(2)
    s, m = b2.size, mono.codes.size
    M = cp.Variable((s, s), symmetric=True, name="M")
    y = cp.Variable(m, name="y")
    a, b = np.triu_indices(s)
    cons: dict[str, list] = {
        "homogenising": [y[0] == 1],
        "psd": [M >> 0],
        "moment_structure": [cp.vec(M, order="F")[a + s * b] == y[mono.index(b2[a] + b2[b])]],
    }
    ineq, eq = _polynomials(q, mono)
    n = q.d + 1
    cons["localizing"] = [cp.reshape(localizing(mono, g) @ y, (n, n), order="F") >> 0 for g in ineq]
    if eq:
        cons["moment_equalities"] = [sp.vstack([shifted(mono, h, k) for h, k in eq]) @ y == 0]
    if q.linear_rows()[0].shape[0]:
        cons["rlt_products"] = [rlt_matrix(q) @ cp.vec(M[:n, :n], order="F") >= 0]
    extra, said = _a_priori(q, mono, M)
    cons.update(extra)
    cons = {k: v for k, v in cons.items() if v}
    codes, coef = mono.quadratic(q.objective)
    c = np.zeros(m)
    np.add.at(c, mono.index(codes), coef)
    sense = cp.Maximize if q.maximize else cp.Minimize
    problem = cp.Problem(sense(c @ y), [x for g in cons.values() for x in g])
    return Relaxation("moment2", q, problem, M, False, cons, said)


class Moment2(Lifting):
    name = "moment2"
    label = "moment2"

    def accepts(self, qcqp: QCQP) -> str | None:
        d = qcqp.d
        if d > MOMENT_MAX_D:
            s = comb(d + 2, 2)
            return (
                f"takes at most {MOMENT_MAX_D} variables (its moment matrix is "
                f"{s}×{s} here, {comb(d + 4, 4)} moments); use shor+rlt"
            )
        return None

    def bounded(self, qcqp: QCQP) -> str | None:
        diag = np.minimum(bd.shor_diagonal(qcqp), bd.rlt_diagonal(qcqp))
        return bd.unbounded_reason(qcqp, diag, self.label, "add bounds (lb=, ub=)")

    def apply(self, qcqp: QCQP) -> Relaxation:
        return moment2(qcqp)
