"""Issue #30's twenty-third pass, a prototype: the Newton round with the hubs' rows taken
out of its steps and solved row by row instead (``npkl_resume_proto.py --variant
hubrows-k``; nothing in the package).

*Why.*  Logged from the n = 10⁶ run's state at check 44, every Newton step that failed the
ratio test was carried by 16–52 of the 10⁶ rows (31–83 % of its squared length on 100),
and 84–99 % of its pairs' model error sat on ten nodes, whose pair values B·v_i·v_j moved
by up to 20, across the hinge's whole band (C/ρ = 0.5).  A pair at either end of the box
has no curvature in the model, so a hub whose pairs sit there looks cheap to move.
Freezing the k = 100 rows of largest gradient in the truncated CG (``rowmask-100``,
npkl_step_proto.py) made every step pass (ratios 0.93–1.0) and the radius grow from
2.5e-2 to 4.9e-2, and two multiplier updates came in ten minutes where the plain loop had
none; but the frozen hubs then held the labelled interval at 0.16 (a pocket below the
checks' level).

*What.*  Each round, before its Newton steps: the k rows of largest gradient
G = 2a·(L·V + P(β̃)·V) (one product with the pairs), each minimised exactly over its own
row with the others fixed, in turn (Gauss–Seidel), by a semismooth Newton method on the
convex

    ψ_i(v) = a·(L_ii·‖v‖² + 2v·c_i) − μ‖v‖² + (1/S)·Σ_{p∋i} e_p(B·v·v_{j(p)}),

c_i = Σ_{k≠i} L_ik v_k, μ = ⟨V, G⟩/2 the sphere's multiplier when ‖V‖ = 1 (else 0), e_p
the envelope at (β, ρ) — an s-dimensional problem with the row's few pairs, whose
Hessian 2(aL_ii − μ)I + (B²/S)·Σ β̃'_p v_j v_jᵀ is exact on each piece, and whose line
search sees every kink.  V is scaled back into the ball, and the Newton steps follow with
those rows' weights ``npkl_step_proto.MASKED`` in the preconditioned CG, and those of the k
rows of each step's own largest gradient (with the hubs' rows alone frozen, the failing
steps moved to their partners: 2–25 rows carried them).

    python benchmarks/npkl_resume_proto.py --n 1000000 --resume st.pkl --variant hubrows-100

Measured (docs/measurements.md, "Twenty-third pass"; n = 10⁶ from check 44): ten minutes
certified 1.35e-2 (plain 1.98e-2), and to the hour's end (3,728 s in all) 1.04e-2 (lower
end probable; estimate 6.2e-3), after 4,999 products and 16 updates, where the twentieth
pass's plain run ended at 1.94e-2 after 3,414 s.  Not adopted: at 3,000, resumed from
check 6 with k = 20, it took 13,608 products and 93 checks (the plain run 1,591).
"""

from __future__ import annotations

import npkl_step_proto
import numpy as np

from kernelsdp.solvers import alm_newton, alm_rows
from kernelsdp.solvers.alm_inner import evaluate


def _index(prob) -> alm_rows.PairIndex:
    """The solver's :class:`kernelsdp.solvers.alm_rows.PairIndex` of the problem (since the
    twenty-eighth pass), built once and kept on it."""
    if getattr(prob, "_hub_rows_index", None) is None:
        prob._hub_rows_index = alm_rows.PairIndex(prob)
    return prob._hub_rows_index


def pair_index(prob) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(pointer, pair, partner): the pairs at row i are pair[pointer[i]:pointer[i + 1]],
    their other rows partner[...]."""
    index = _index(prob)
    return index.pointer, index.pair, index.partner


def hub_rows(prob, pt, beta: np.ndarray, rho: float, k: int) -> tuple[np.ndarray, float]:
    """The k rows of largest Euclidean gradient and ⟨V, G⟩ (one product with the pairs)."""
    _, bt = prob.envelope(pt.w, beta, rho)
    prob.set_multipliers(bt)
    G = prob.times_pairs(pt.X, np.empty_like(pt.X))
    G += pt.LX
    G *= 2.0 * prob.a
    g = np.einsum("ij,ij->i", G, G, dtype=np.float64)
    rows = np.argpartition(g, -k)[-k:]
    return rows[np.argsort(-g[rows])], float(np.einsum("ij,ij->", pt.X, G, dtype=np.float64))


def solve_row(prob, X, i: int, beta, rho: float, mu: float) -> None:
    """Row i of X (double) minimising ψ_i (module docstring), in place: the solver's row
    minimiser (:mod:`kernelsdp.solvers.alm_rows`, its ν = −μ)."""
    X[i] = alm_rows.row_minimiser(prob, X, i, beta, rho, -mu, _index(prob))


def newton_without_hubs(
    prob, pt, beta, rho, delta, max_steps, tol, deadline=None, budget=None,
    keep_scratch=False, k=100,
):  # fmt: skip
    """``hubrows-k``: :func:`kernelsdp.solvers.alm_newton.newton`'s round (its arguments up
    to ``budget``; the step is this round's own) after the row pass on the k hubs' rows,
    those rows nearly frozen in its steps (module docstring)."""
    n = pt.X.shape[0]
    if pt.X.shape[1] == 0 or n <= k:
        return alm_newton.newton(
            prob, pt, beta, rho, delta, max_steps, tol, deadline, budget, None, keep_scratch
        )
    rows, vg = hub_rows(prob, pt, beta, rho, k)
    X = np.asarray(pt.X, dtype=np.float64).copy()
    norm2 = float(np.einsum("ij,ij->", X, X))
    mu = min(vg / 2.0, 0.0) if norm2 > 1.0 - 1e-6 else 0.0
    for i in rows:
        solve_row(prob, X, int(i), beta, rho, mu)
    norm2 = float(np.einsum("ij,ij->", X, X))
    if norm2 > 1.0:
        X /= np.sqrt(norm2)
    pt = evaluate(prob, X.astype(prob.dtype), beta, rho)
    weights = np.ones((n + 1, 1), dtype=prob.dtype)
    weights[rows, 0] = npkl_step_proto.MASKED

    def cg(nt, x, grad, delta, max_iter):
        # and the k rows of the step's own largest gradient: after the pass the hubs'
        # partners carry it (a mask fixed at the round's start left steps on 2–25 rows)
        w = np.minimum(weights, npkl_step_proto.mask_weights(grad, k))
        return npkl_step_proto.preconditioned_cg(nt, x, grad, delta, max_iter, weights=w)

    return alm_newton.newton(
        prob, pt, beta, rho, delta, max_steps, tol, deadline, budget, cg, keep_scratch
    )
