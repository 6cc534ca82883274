"""The Shor-type liftings of a QCQP — Shor, RLT, Shor+RLT, DNN — built by one function.

Forward map x ↦ Y = [[1, xᵀ], [x, xxᵀ]], relaxed: Y₀₀ = 1, X = Y[1:, 1:] free of
X = xxᵀ, so that every quadratic xᵀPx + qᵀx + r becomes the linear ⟨P, X⟩ + qᵀx + r.
The pieces, by constraint group (``Relaxation.constraints``):

- ``psd``: Y ⪰ 0 (W ⪰ 0 with equalities; Shor 1987) — Shor, Shor+RLT, DNN;
- the QCQP's own constraints, lifted: quadratic (in)equalities, ``A x = b``, ``G x ≤ h``,
  bounds, ``binary`` (x_i² = x_i ↦ X_ii = x_i), ``spin`` (x_i² = 1 ↦ X_ii = 1);
- linear equalities: with Y ⪰ 0 they are eliminated, Y = T W Tᵀ with W ⪰ 0 on the face
  {E Y = 0} (:mod:`.reduction`), which holds A x = b and A X = b xᵀ (the lifted squared
  equality (aᵀx − β)² = 0, without which the lifted simplex QP is unbounded) by
  construction and leaves the model strictly feasible; without Y ⪰ 0 (the RLT LP) they stay
  rows, ``linear_equalities`` and ``equality_products`` A X = b xᵀ;
- ``bound_products`` (Shor): (x_i − l_i)(u_i − x_i) ≥ 0 ↦ X_ii ≤ (l_i + u_i)x_i − l_iu_i,
  for each variable with both bounds finite (diag(X) ≤ x on [0, 1]ⁿ, as in the SDP
  relaxation of box QPs of Vandenbussche & Nemhauser 2005 and Anstreicher 2009);
- ``rlt_products`` (RLT): every pairwise product of the linear inequalities and bounds,
  (hᵢ − gᵢᵀx)(hⱼ − gⱼᵀx) ≥ 0 ↦ cᵢᵀYcⱼ ≥ 0 (Sherali & Adams 1990; Sherali & Tuncbilek 1992;
  McCormick 1976 on a box), one sparse matrix (cᵢ ⊗ cⱼ rows) built once;
- ``dnn``: Y ≥ 0 elementwise (x ≥ 0 needed; Burer 2009), the entries not stated already;
- ``a_priori_*``: redundant rows that state bounds the model implies, so that the
  certificate (:mod:`kernelsdp.certificate.bounds`) finds them — ``a_priori_diagonal``
  X_ii ≤ max(l_i², u_i²) (an a-priori trace bound on the PSD block), and for the LP
  (RLT without Y ⪰ 0) ``a_priori_box``, every Y_ab between the products of the bounds.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ..limits import check_memory
from . import boundedness as bd
from .lifting import Relaxation
from .qcqp import QCQP, Quadratic
from .reduction import equality_basis

#: a-priori rows are stated this much (relative) outside the bound they state: the bound is
#: computed in floating point (a square, a product) and must not cut off a feasible point
A_PRIORI_PAD = 1e-12


def outwards(v: np.ndarray) -> np.ndarray:
    """v moved up by A_PRIORI_PAD·(1 + |v|): a computed upper bound made safe."""
    return v + A_PRIORI_PAD * (1.0 + np.abs(v))


def lifted(quad: Quadratic, x, X):
    """⟨P, X⟩ + qᵀx + r: the linearisation of xᵀPx + qᵀx + r."""
    return cp.sum(cp.multiply(quad.P, X)) + quad.q @ x + quad.r


def _own_constraints(q: QCQP, x, X, reduced: bool) -> dict[str, list]:
    cons: dict[str, list] = {
        "quadratic_inequalities": [lifted(c, x, X) <= 0 for c in q.inequalities],
        "quadratic_equalities": [lifted(c, x, X) == 0 for c in q.equalities],
    }
    if q.A is not None and not reduced:  # else Y = T W Tᵀ meets them by construction
        cons["linear_equalities"] = [q.A @ x == q.b]
        cons["equality_products"] = [
            np.reshape(q.b, (-1, 1)) @ cp.reshape(x, (1, q.d), order="F") == q.A @ X
        ]
    if q.G is not None:
        cons["linear_inequalities"] = [q.G @ x <= q.h]
    lo, hi = np.flatnonzero(np.isfinite(q.lb)), np.flatnonzero(np.isfinite(q.ub))
    if lo.size:
        cons["lower_bounds"] = [x[lo] >= q.lb[lo]]
    if hi.size:
        cons["upper_bounds"] = [x[hi] <= q.ub[hi]]
    if q.binary.size:
        cons["binary"] = [cp.diag(X)[q.binary] == x[q.binary]]
    if q.spin.size:
        cons["spin"] = [cp.diag(X)[q.spin] == 1]
    return cons


def _bound_products(q: QCQP, x, X) -> list:
    both = np.isfinite(q.lb) & np.isfinite(q.ub)
    both[q.integer] = False  # X_ii = x_i or X_ii = 1 already
    i = np.flatnonzero(both)
    if not i.size:
        return []
    l, u = q.lb[i], q.ub[i]
    return [cp.diag(X)[i] <= cp.multiply(l + u, x[i]) - l * u]


def _dnn_rows(q: QCQP, Y, rlt: bool) -> list:
    """Y ≥ 0 without the rows the model states already: Y₀₀ = 1, Y₀ⱼ = x_j ≥ lb_j ≥ 0 (the
    bounds), and with RLT each X_ij whose two bounds are x ≥ 0 (the product is that row).
    A repeated row splits its multiplier between the copies, which the certificate's dual
    correction then has to put back into the cone."""
    n = q.d + 1
    a, b = np.triu_indices(n, k=0)
    keep = (a > 0) & (b > 0)
    if rlt:
        zero = np.r_[False, q.lb == 0]
        keep &= ~(zero[a] & zero[b])
    if not keep.any():
        return []
    return [cp.vec(Y, order="F")[(a + n * b)[keep]] >= 0]


def rlt_matrix(q: QCQP) -> sp.csr_matrix:
    """The rows cᵢ ⊗ cⱼ (i ≤ j) acting on vec(Y) (column-major): cᵢᵀYcⱼ for every pair of
    linear inequalities and bounds (:meth:`QCQP.linear_rows`)."""
    C = sp.csr_matrix(q.linear_rows()[0])
    m = C.shape[0]
    nnz = np.diff(C.indptr).astype(float)
    check_memory(
        40.0 * (nnz.sum() ** 2) / 2,
        f"the RLT products of {m} linear constraints",
        "use shor, or fewer linear constraints",
    )
    K = sp.kron(C, C, format="csr")  # row p·m + r is c_p ⊗ c_r: c_rᵀ Y c_p on vec_F(Y)
    p, r = np.divmod(np.arange(m * m), m)
    return K[np.flatnonzero(r <= p)]


def _a_priori(
    q: QCQP, Y, W, coords: np.ndarray, diagonal: np.ndarray, box: bool
) -> tuple[dict, dict]:
    """Redundant rows the certificate can read: W_jj ≤ the bound of X_ii for the coordinate
    i = coords[j − 1] that W's diagonal holds (W = Y without equalities), and (``box``) every
    Y_ab between the extreme products of the implied bounds."""
    cons, said = {}, {}
    j = np.flatnonzero(np.isfinite(diagonal[coords]) & ~np.isin(coords, q.spin))
    if j.size:  # (X_ii = 1 is stated already for a ±1 variable)
        cons["a_priori_diagonal"] = [cp.diag(W)[j + 1] <= outwards(diagonal[coords[j]])]
        said["a_priori_diagonal"] = (
            f"X_ii <= max(lb_i², ub_i²) on the diagonal of "
            f"{W.name()} for {j.size} of {q.d} variables (a trace "
            "bound on the PSD block)"
        )
    if box:
        lo, hi = bd.implied_box(q)
        lo1, hi1 = np.r_[1.0, lo], np.r_[1.0, hi]
        with np.errstate(invalid="ignore"):
            prods = np.stack([np.multiply.outer(a, b) for a in (lo1, hi1) for b in (lo1, hi1)])
        L, U = prods.min(axis=0), prods.max(axis=0)
        n = q.d + 1
        a, b = np.triu_indices(n)
        finite = np.isfinite(lo1) & np.isfinite(hi1)
        # a fixed entry (Y₀₀ = 1, a variable with lb = ub) is no box: two rows L = U would
        # leave the model no strictly feasible point, which the certificate's primal side needs
        keep = finite[a] & finite[b] & (U[a, b] > L[a, b])
        idx = (a + n * b)[keep]
        if idx.size:
            vec = cp.vec(Y, order="F")[idx]
            cons["a_priori_box"] = [
                vec >= -outwards(-L[a, b][keep]),
                vec <= outwards(U[a, b][keep]),
            ]
            said["a_priori_box"] = f"box rows on {idx.size} entries of Y (products of the bounds)"
    return cons, said


def shor_family(
    q: QCQP,
    name: str,
    *,
    psd: bool = True,
    rlt: bool = False,
    dnn: bool = False,
    diagonal: np.ndarray | None = None,
) -> Relaxation:
    """The lifted model with the named pieces (module docstring); ``diagonal`` are the X_ii
    bounds this model implies (stated as ``a_priori_diagonal``)."""
    d = q.d
    basis = equality_basis(q) if psd else None
    if basis is None:
        Y = W = cp.Variable((d + 1, d + 1), symmetric=True, name="Y")
        coords = np.arange(d)
    else:  # Y = T W Tᵀ: the face of A x = b (reduction.py)
        T, coords = basis
        W = cp.Variable((coords.size + 1, coords.size + 1), symmetric=True, name="W")
        Y = T @ W @ T.T
    x, X = Y[1:, 0], Y[1:, 1:]
    cons: dict[str, list] = {"homogenising": [W[0, 0] == 1]}
    if psd:
        cons["psd"] = [W >> 0]
    cons.update(_own_constraints(q, x, X, reduced=basis is not None))
    if rlt:
        cons["rlt_products"] = [rlt_matrix(q) @ cp.vec(Y, order="F") >= 0]
    elif psd:
        cons["bound_products"] = _bound_products(q, x, X)
    if dnn:
        cons["dnn"] = _dnn_rows(q, Y, rlt)
    extra, said = _a_priori(
        q, Y, W, coords, bd.shor_diagonal(q) if diagonal is None else diagonal, box=rlt and not psd
    )
    if basis is not None:
        said["reduced"] = (
            f"A x = b eliminated: Y = T W Tᵀ with W of side {coords.size + 1} "
            "(no strictly feasible point otherwise)"
        )
    cons.update(extra)
    cons = {k: v for k, v in cons.items() if v}
    sense = cp.Maximize if q.maximize else cp.Minimize
    problem = cp.Problem(sense(lifted(q.objective, x, X)), [c for g in cons.values() for c in g])
    return Relaxation(name, q, problem, Y, False, cons, said)
