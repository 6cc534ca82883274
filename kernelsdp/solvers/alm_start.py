"""The spectral start of the low-rank augmented Lagrangian (:mod:`.low_rank_alm`, option
``spectral_start``, the default since the forty-first pass; issue #30, fortieth pass,
docs/npkl.md §7).

**Why.**  From K = 0 the factor is built by the Frank–Wolfe checks, about one direction a
check, and the count to an estimated gap of 1e-2 (the "body") is where the products grow
with n: 975 / 1,213 / 1,916 / 2,406 at n = 3,000 / 20,000 / 100,000 / 10⁶ (seed 0, the
thirty-second pass).  At K = 0 every hinge pair is active (β̃ = the prox at zero pair
values), and the bottom of M(β̃₀) is a set of medium-localised directions (at n = 20,000
the lowest 64 eigenvectors have participation 43 to 1,368 nodes), where the checks add
about one direction a check.  A random orthonormal start of width 64 does not help
(n = 3,000 and 20,000, seed 0: 1,627 and 2,276 products against 1,591 and 2,177).

**What.**  The factor starts as the lowest ``k`` eigenvectors of M(β̃₀) (LOBPCG, a random
block drawn with the solver's seed, ``START_ITERATIONS`` iterations: the directions need not
be converged), those with a negative Ritz value kept, with equal weights on the whole trace
(K = B·QQᵀ/k′ over the k′ kept, ‖V‖_F = 1 in the scaled problem).  The multipliers start
at zero as from K = 0.  The start's products with M are the eigensolver's (counted with the
checks'); the certificate is untouched: the start only moves the iterate.  The block is in the
iterate's precision (its memory: ``START_ARRAYS``; in float32 the start took 1.78 s at
n = 20,000, k = 128, against 3.49 s in double, one BLAS thread, and its Ritz values agreed
to 7 digits, but the path moves: n = 100,000 seed 1 took 2,634 products against 2,447).

**Its columns retired** (:func:`retire`, the forty-first pass). Most of the start's
directions are not the optimum's (the factor ends at rank 18 / 41–44 at n = 3,000 / 20,000
against a start of 84 / 128): the gradient steps shrink them geometrically, but the thin SVD
after a Frank–Wolfe step drops only what is below ``SHRINK_RTOL`` (1e-7), and the tail takes
no Frank–Wolfe step, so the factor kept the start's width to the end (1.8–3.4× that from
K = 0; n = 20,000: 32.1 s against 16.7 s). At each multiplier update (the subproblem solved
to its tolerance) the directions below ``RETIRE_RTOL`` of the largest are dropped, at most
as many in all as the start had: a direction the optimum needs but holds below that share is
dropped at most that often before the default's 1e-7 takes over (a share of 1e-2 without the
budget cycled at n = 3,000: the checks re-added the 17th direction and the thin SVD dropped
it). Not after a Frank–Wolfe step, whose new direction starts small. Any factor with ‖V‖_F ≤
1 is feasible, so the certificate is untouched.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse.linalg as spla

from .alm_inner import counted_operator, gram_eigh, rotated
from .alm_problem import ScaledNPKL

#: the start's width, the option's default (the fortieth pass: 64 moved n = 100,000's count
#: by −3 % over five seeds, within the path's spread, 128 by more; retired, 128 took
#: 13 % / 26 % / 19 % fewer products at n = 3,000 / 20,000 / 100,000 than K = 0)
SPECTRAL_START = 128
#: LOBPCG iterations of the start (n = 20,000, seed 0, k = 64: 5 iterations 1,642 products,
#: 10 iterations 1,848, 30 1,634, to convergence at 1e-4 (171) 1,699; at 100,000, seed 0,
#: 40 iterations 2,527 against 3,046 with 5: one seed each, not a rule)
START_ITERATIONS = 5
#: LOBPCG's tolerance (the iteration cap ends it first)
START_TOL = 1e-4
#: n×k arrays of the iterate's precision the start holds at its peak (LOBPCG's X, R, P and
#: their products with M, its Rayleigh–Ritz blocks), and ``START_DOUBLE`` n×k doubles
#: besides in single precision (the product with M is taken in double); tracemalloc at
#: n = 6,000, k = 24 to 128: 15.3–15.8 in double, 16.4–16.8 float32 words in single (at
#: 10⁶, k = 128, in double, the fortieth pass's run peaked at 17.2 GiB RSS)
START_ARRAYS = 16
START_DOUBLE = 1
#: the start's directions retired below this share of the factor's largest (the Gram
#: eigenvalues of VᵀV). n = 100,000, seeds 0 / 1, in double: 1e-3 (at the updates) left rank
#: 71 / 78 at the end (from K = 0: 84 at seed 3, 155 at seed 1) and took 2,514 / 2,758
#: products, 1e-4 2,299 / 2,447 (the start unretired: 2,124 / 2,066; from K = 0 2,841 /
#: 2,632): the optimum's smallest directions at 10⁵ lie below 1e-3 of its largest. 1e-2
#: cycled without the budget, and a gate on φ refused every drop
RETIRE_RTOL = 1e-4


def start_width(n: int, k: int, cap: int) -> int:
    """The start's block: k, at most the rank cap (84 at n = 3,000: the option's value is
    capped there), and at most n/5 (below n = 5k SciPy's LOBPCG falls back to a dense
    eigensolver, n² memory) — 0 when nothing is left."""
    return max(0, min(k, cap, n // 5))


def spectral_start(
    prob: ScaledNPKL, beta: np.ndarray, rho: float, k: int, seed: int
) -> tuple[np.ndarray, int]:
    """(X₀, products): the scaled factor (n×k', prob's order and dtype, ‖X₀‖_F = 1; n×0
    when M(β̃₀) has no negative Ritz value) and the columns multiplied by M, counted as
    LOBPCG asks for them (8k with five iterations: its start and its last Rayleigh–Ritz
    step ask too) (module docstring)."""
    n = prob.n
    _, bt = prob.envelope(np.zeros(prob.m), beta, rho)
    prob.dual_matrix(bt)
    op = counted_operator(prob.dual_operator(), n, prob.dtype)
    W0 = np.random.default_rng(seed).standard_normal((n, k)).astype(prob.dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # not converged: by design
        theta, Q = spla.lobpcg(op, W0, largest=False, maxiter=START_ITERATIONS, tol=START_TOL)
    keep = np.flatnonzero(np.asarray(theta) < 0.0)  # NaN (a failed block): none kept
    X = Q[:, keep] / np.sqrt(max(len(keep), 1))
    return X.astype(prob.dtype), op.columns


def retire(X: np.ndarray, budget: int) -> tuple[np.ndarray, int]:
    """(the factor, the budget left): the thin SVD of X (as :func:`.alm_inner.shrink`) with
    the directions below ``RETIRE_RTOL`` of the largest dropped, the smallest first and at
    most ``budget`` of them; X itself when none is (module docstring)."""
    if budget <= 0 or X.shape[1] == 0:
        return X, budget
    ev, Q = gram_eigh(X)
    below = int(np.count_nonzero(ev <= RETIRE_RTOL * max(ev[-1], 1e-300)))
    drop = min(below, budget)
    if drop == 0:
        return X, budget
    return rotated(X, Q[:, drop:][:, ::-1]), budget - drop
