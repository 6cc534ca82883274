"""Linear equalities eliminated from a Shor-type lifting (facial reduction).

Every lifted point of A x = b satisfies E Y = 0 with E = [−b, A] (the lifted equality and
its products with x), so Y ⪰ 0 is singular: the model has no strictly feasible point, which
costs interior-point solvers accuracy and leaves the certificate's primal end unproven.  The
face {Y ⪰ 0 : E Y = 0} is {T W Tᵀ : W ⪰ 0} for any T whose columns span the null space of E
(Borwein & Wolkowicz, J. Math. Anal. Appl. 83, 1981; for SDP relaxations, Zhao, Karisch,
Rendl & Wolkowicz, J. Comb. Optim. 2, 1998).  Here T is chosen with an identity block:
[1; x] = T [1; z] with z the non-pivot coordinates of a column-pivoted QR of A, so that
W = [[1, zᵀ], [z, Z]] is itself a Shor matrix of those coordinates and its diagonal carries
their bounds.  On the simplex (A = 1ᵀ, b = 1) every entry of T is 0 or ±1, exactly; for
other data T carries the rounding of one triangular solve (A T[1; z] = b to ~1e-16
relative), the size of the rounding of the model's own data.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import qr, solve_triangular

from ..errors import InvalidDataError
from .qcqp import QCQP

#: |R_ii| below this times |R_00| counts as a dependent column of A (rank deficiency)
RANK_RTOL = 1e-10
#: A x0 = b must hold to this, relative to 1 + |b|, or the equalities have no solution
CONSISTENCY_RTOL = 1e-9


def equality_basis(q: QCQP) -> tuple[np.ndarray, np.ndarray] | None:
    """(T, free): [1; x] = T [1; z] spans {x : A x = b}, z = x[free]; None without A."""
    if q.A is None:
        return None
    A, b, d = q.A, q.b, q.d
    weight = np.ones(d)
    weight[q.integer] = 1e-3  # pivot on continuous variables where the data allow
    Qm, R, piv = qr(A * weight, mode="economic", pivoting=True)
    diag = np.abs(np.diag(R))
    rank = int(np.sum(diag > RANK_RTOL * max(diag[0] if diag.size else 0.0, 1e-300)))
    B, free = piv[:rank], np.sort(piv[rank:])
    R11 = R[:rank, :rank] / weight[B][None, :]  # undo the weights on the pivots
    rhs = Qm[:, :rank].T @ b
    coef = solve_triangular(R11, np.c_[rhs, (Qm[:, :rank].T @ A)[:, free]], lower=False)
    x0 = np.zeros(d)
    x0[B] = coef[:, 0]
    if np.max(np.abs(A @ x0 - b), initial=0.0) > CONSISTENCY_RTOL * (1 + np.max(np.abs(b))):
        raise InvalidDataError("the linear equalities A x = b have no solution.")
    T = np.zeros((d + 1, free.size + 1))
    T[0, 0] = 1.0
    T[1:, 0] = x0
    T[B + 1, 1:] = -coef[:, 1:]
    T[free + 1, 1 + np.arange(free.size)] = 1.0
    return T, free
