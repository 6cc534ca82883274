"""A randomised lower bound on λ_min of a large sparse symmetric matrix, with its failure
probability stated: the certificate's lower end where no proof is affordable (label
``probable``, never ``proof``).

**The bound** (Kuczyński & Woźniakowski, "Estimating the largest eigenvalue by the power
and Lanczos algorithms with a random start", SIAM J. Matrix Anal. Appl. 13(4), 1992,
Theorem 4.2): for a symmetric positive semidefinite n×n matrix P and k ≥ 2 steps of
Lanczos from a start drawn uniformly on the unit sphere, the largest Ritz value θ_k obeys

    Prob{ θ_k < (1 − ε)·λ_max(P) } ≤ 1.648·√n·exp(−√ε·(2k − 1))     for every ε ∈ (0, 1).

Applied to P = cI − A with c ≥ λ_max(A) (Gershgorin's row bound, rounded up), λ_max(P) =
c − λ_min(A), so with probability at least 1 − δ

    λ_min(A) ≥ c − θ_k / (1 − ε),    ε = ( ln(1.648·√n / δ) / (2k − 1) )².

The bound's distance below the true λ_min is at most (c − λ_min)·ε/(1 − ε): it tightens as
1/k², whatever the spectrum's clustering near λ_min (a cluster of K's rank at an NPKL
optimum, docs/npkl.md §3, which is what defeats a Ritz value's residual bound).
:func:`randomized_min_eig` runs the plain three-term recurrence (:mod:`.lanczos`, O(n)
memory: no basis is kept) in chunks of ``CHUNK`` steps until the bound is within ``target``
of the Ritz value, or ``max_steps``.

**What it is not.** The theorem is about exact arithmetic and a truly uniform start (here
a Gaussian vector from NumPy's generator, normalised).  In floating point the recurrence
loses orthogonality; its Ritz values then repeat (ghost copies), which never raises θ_k
above λ_max(P) by more than O(u·‖P‖) (Paige), added to the bound below.  The failure
probability δ is the theorem's, conditional on those assumptions: a ``probable`` bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .lanczos import Lanczos
from .rounding import UNIT_ROUNDOFF, abs_row_sum_max, up

#: the constant of Kuczyński–Woźniakowski's Theorem 4.2
KW_CONSTANT = 1.648
#: default failure probability of the bound
FAILURE_PROBABILITY = 1e-9
#: Lanczos steps between two looks at the bound
CHUNK = 200
#: default step cap
MAX_STEPS = 20_000


@dataclass(frozen=True)
class RandomizedBound:
    """λ_min(A) ≥ ``lower`` except with probability ``failure_probability``.

    ``ritz``: the Lanczos estimate of λ_min (c − θ_k, an upper estimate of it in exact
    arithmetic); ``shift``: c; ``epsilon``: the theorem's ε at ``steps``; ``note``: how it
    was obtained, in one sentence."""

    lower: float
    ritz: float
    steps: int
    failure_probability: float
    epsilon: float
    shift: float
    note: str
    lanczos: Lanczos | None = field(default=None, repr=False, compare=False)  # ritz_vector's

    def ritz_vector(self) -> np.ndarray:
        """The unit Ritz vector of ``ritz``, rebuilt by a second pass of the recurrence
        (``steps`` − 1 more products: asked for only where it is used)."""
        if self.lanczos is None:
            raise ValueError("this bound kept no Lanczos run")
        return self.lanczos.ritz_vector()


def kw_epsilon(n: int, steps: int, failure_probability: float) -> float:
    """The ε of Theorem 4.2 at which the failure probability is ``failure_probability``."""
    if steps < 2:
        return 1.0
    root = math.log(KW_CONSTANT * math.sqrt(n) / failure_probability) / (2 * steps - 1)
    return min(1.0, root * root)


def steps_for(n: int, epsilon: float, failure_probability: float) -> int:
    """Lanczos steps after which Theorem 4.2's ε is at most ``epsilon``."""
    return int(
        math.ceil(
            (math.log(KW_CONSTANT * math.sqrt(n) / failure_probability) / math.sqrt(epsilon) + 1)
            / 2
        )
    )


def upper_shift(A) -> float:
    """c ≥ λ_max(A): Gershgorin's largest absolute row sum, rounded up."""
    return up(abs_row_sum_max(A) * (1 + 4 * UNIT_ROUNDOFF)) + np.finfo(float).tiny


def randomized_min_eig(
    A,
    target: float = 0.0,
    failure_probability: float = FAILURE_PROBABILITY,
    max_steps: int = MAX_STEPS,
    min_steps: int = CHUNK,
    seed: int | None = None,
    shift: float | None = None,
) -> RandomizedBound:
    """λ_min(A) ≥ ``lower`` with probability ≥ 1 − ``failure_probability`` (module
    docstring), for a symmetric A (sparse, dense, or anything with ``@`` and ``shape``;
    ``shift`` ≥ λ_max(A) must then be given).  Lanczos runs until ritz − lower ≤ ``target``
    (0: run ``max_steps``) or ``max_steps``; a fresh random start each call (``seed``).
    The run is kept for :meth:`RandomizedBound.ritz_vector`."""
    n = A.shape[0]
    if not 0.0 < failure_probability < 1.0:
        raise ValueError("failure_probability must lie in (0, 1)")
    c = upper_shift(A) if shift is None else float(shift)
    lan = Lanczos(A, c, np.random.default_rng(seed).standard_normal(n))
    while True:
        todo = min(max(min_steps - lan.steps, CHUNK), max_steps - lan.steps)
        lan.run(max(todo, 0))
        k = lan.steps
        theta = lan.theta()
        eps = kw_epsilon(n, k, failure_probability)
        # ghosts and rounding: θ exceeds λ_max(P) by at most O(u·k·‖P‖) (Paige)
        slack = 8 * UNIT_ROUNDOFF * k * 2 * abs(c)
        lower = c - (theta + slack) / (1.0 - eps) if eps < 1.0 else -math.inf
        ritz = c - theta
        if lan.broke or k >= max_steps or (target > 0 and ritz - lower <= target):
            break
    note = (
        f"Kuczyński–Woźniakowski bound after {k} Lanczos steps from a random start: "
        f"holds except with probability {failure_probability:.0e} (ε = {eps:.2e})"
    )
    return RandomizedBound(float(lower), float(ritz), k, failure_probability, eps, c, note, lan)


def as_operator(A):
    """A sparse or dense matrix as something :func:`randomized_min_eig` multiplies."""
    return A.tocsr() if sp.issparse(A) else np.asarray(A, dtype=float)
