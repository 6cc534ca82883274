"""Low-rank NPKL by ADMM (seed 001, Hu & Kwok; updates corrected in docs/npkl.md §5).

    min tr(ZL) + Σ_Ω (λ/2)·ℓ̃(Z_ij; T_ij)   s.t.  tr Z ≤ B,  Z = XᵀY,  X = Y,  X, Y ∈ ℝ^{r×n}

is NPKL (seed 000 eq. 4) with K = XᵀX and λ = C: each unordered pair is one term of NPKL,
so each of its two ordered entries here carries λ/2 (same value at symmetric Z).
Augmented Lagrangian (seed 001 eq. 5; multipliers A for Z = XᵀY, H for X = Y):

    tr(ZL) + λℓ + A•(Z − XᵀY) + (α/2)‖Z − XᵀY‖² + H•(X − Y) + (β/2)‖X − Y‖².

**Steps** (seed eqs. 6–8, re-derived by setting each block's gradient to zero), with the
trace capacity tr K ≤ B kept by the factor steps as the ball ‖X‖_F² ≤ B (and ‖Y‖_F² ≤ B):

- X: −Y(A + α(Z − XᵀY))ᵀ + H + β(X − Y) + μX = 0  ⇒  (βI + αYYᵀ + μI) X = Y(A + αZ + βI)ᵀ − H
  (the seed calls the r×r matrix "A^k"; it is not the multiplier), with μ ≥ 0 the ball's
  multiplier: μ = 0 if that X has ‖X‖² ≤ B, else the root of ‖X(μ)‖² = B, a secular
  equation in the eigenbasis of YYᵀ (``factor_steps.ball_step``: r×r work, no extra pass over n);
- Y: −X(A + α(Z − XᵀY)) − H − β(X − Y) + μY = 0  ⇒  (βI + αXXᵀ + μI) Y = X(A + αZ + βI) + H,
  with the new X and its own μ;
- Z, entrywise, with S = XᵀY (the seed's "X L X" is a typo) and c = S − (A + L)/α:
  off Ω, z = c; on Ω, z = argmin (λ/2)ℓ̃(z) + (α/2)(z − c)², i.e. with λ' = λ/2
  ℓ2: z = (αc + λ'T)/(α + λ');  hinge: θ = clip(α(1 − Tc)/T², 0, λ'), z = c + θT/α;
  squared hinge: θ = max(α(1 − Tc)/(T² + α/λ'), 0), z = c + θT/α (the seed's λ + T² is
  wrong); ℓ1: z = T + soft_{λ'/α}(c − T);
- A += α(Z − XᵀY);  H += β(X − Y).

The seed has no capacity.  Kept instead on the diagonal of Z (projecting Σ z_ii ≤ B), the
trace's multiplier moves by α/n per unit of violation per step: measured at n = 5,000,
tr K started at 1.6 B and took 400 iterations to come down.  In the factor steps it is
exact at every iterate, every returned K is feasible, and the iterations to tolerance
fell by 10–40 % (UCI fixtures, digits, n = 5,000).

**Implicit Z.**  Off Ω the Z-step gives z = c, so A becomes −L there after one step and
stays: we start from A⁰ = −L (the seed's A⁰ = 0 reaches it after one iteration).  Then
Z = XᵀY + E with E and A + L supported on Q = Ω ∪ Ωᵀ, and the X/Y right-hand sides need
only W = A + αE = −L + (A + L + αE)|_Q, a sparse matrix on supp(L) ∪ Q
(:mod:`.pattern`).  Nothing n×n is
formed.  **Memory** of one iteration, in words w of the iteration's precision (8 bytes in
double, 4 in single), with N = 3rn + 2q words of state (X, Y, H; A, E on the q = 2m
ordered pairs) and p = ``anderson`` pairs: the iterate and its image (2N), the Anderson
residual buffers (3N) and its history (2pN numbers, float32 by default whatever the
precision: ``history_precision`` below), two n×r work arrays and the four m×r row
gathers (2rn + 2qr), the pair vectors of the Z-step and its temporaries (12q) and the r×r
matrices (4r²); in double, whatever the precision: P(K)'s L·X and X∘(L·X) (2rn, 3rn in
single with X's copy) and the Lanczos vectors of λ_min (``linalg.extreme.LANCZOS_WORDS_PER_ROW``
words of n: its widest basis); W and Wᵀ with their indices
and the map between them (3w + 16 bytes per entry of supp(L) ∪ Q), the pairs' positions,
Lq, Tq (2w + 16 bytes each) and L's copy (12 bytes per entry).  ``iteration_memory_bytes``
adds these up: tracemalloc's peak measured 0.96–1.00 of it from n = 3,000 to 20,000 in
both precisions (tests/test_admm.py holds it to 10 %), and at n = 100,000, r = 108 it gives
3.2 GiB against a peak RSS of 3.65 GiB (which includes the interpreter and the graph; 4.5
against 4.7 with a double history).  Cost per iteration O(r²n + r·(nnz(L) + m)).  The
learned kernel is K = XᵀX, returned as the factor Xᵀ.

**Rank.**  ``rank`` (default: the largest r with r(r+1)/2 ≤ m, seed 001 §4 after Pataki)
bounds the factor's width.  The iteration starts ``rank_start`` wide (default
min(rank, ``RANK_START``)) and widens by max(4, r/2) columns, up to ``rank``, while K has
no spare direction: K's smallest eigenvalue above ``factor_steps.RANK_SATURATION`` of its
largest (``factor_steps.widen``; the new columns are the lowest eigenvectors of M(β),
the directions in which the certificate says K should grow).  Saturation is judged
every ``check_every`` iterations once the residuals are below ``GROW_GATE`` (or
``GROW_PATIENCE`` iterations have passed), and not within ``GROW_COOLDOWN`` iterations
of the last widening.  ``rank_start=rank`` is the seed's fixed-rank algorithm.  The
optima met here have far lower rank than Pataki's bound (17–45 against 68–218 for
n = 2,000–20,000) and an iteration costs O(r²n): at n = 20,000 the solve went from
1,464 s at the fixed rank 218 to about 100 s.

**Penalties.**  Eqs. 15–16 (double α when Δprimal₁ > 10Δdual, halve it when Δdual >
10Δprimal₁; the same for β with Δprimal₂), with the residuals of eq. 14 relative to ‖X‖
(‖X‖² for Z).  The seed floors both at 1.5; in absolute units that floor was measured to
let hinge and ℓ1 diverge (trace capacity, 4 UCI fixtures).  Here the floors are the
problem's own scale, and the run starts there: β₀ = 3g with g = max(max|L_ij|, λ/2), the
size of one entry of the objective's gradient, and α₀ = β₀/‖X⁰‖₂², so that αYYᵀ ≈ βI in
the X-step: measured, β/α ≈ λ_max(K) is what keeps X and Y together (β = α diverges on
digits; β/α = 100 converges).

**Anderson acceleration** (type II, Walker & Ni 2011) of the fixed-point map
(X, Y, H, A, E) ↦ one ADMM step, with ``anderson`` pairs of differences, restarted when
a penalty changes and whenever the fixed-point residual grows (a restart-on-increase
safeguard).  Measured on the UCI fixtures: hinge and ℓ1 went from > 20,000 iterations to
90–240; on digits (n = 1,797) restarting on any increase rather than a tenfold one took
the four losses from 1,570–2,090 iterations to 830–1,880.

**Capacities.**  ``trace`` (tr K ≤ B, the ball above) and ``none``, the seed's own
problem (1).  Without a bound the plain dual −Σh*(β) is valid only if M(β) ⪰ 0 exactly,
which multipliers of a first-order method never are (a slightly indefinite M gave "gaps" of
−3 % on 40 Iris points, ℓ2).  So ``none`` is certified by the a-priori bound tr ΠKΠ ≤ B̄
derived from the data (:mod:`kernelsdp.formulations.npkl_trace_bound`, docs/npkl.md §6)
with the repaired multipliers; when eq. 14's residuals are met and that certified gap
stalls (``STALL_CHECKS``), the free null directions of L are first added as columns
(``factor_steps.free_columns``, at most ``MAX_ESCAPES`` times), then the stop reads
``locally_solved`` with the interval in the message — never "optimal" on residuals alone.
The optimum of (1) may also need a rank above Pataki's r: the widening stops at ``rank``,
and the gap says what that cost.  A Frobenius bound couples every entry of the implicit Z
and is refused (SimpleNPKL's solvers handle it).

**Precision.**  ``precision="single"`` runs the iteration (state, W, Anderson history, work
arrays) in float32: half the memory and half the memory traffic, and single-precision BLAS.
P(K), the pair multipliers and every certificate are computed in double from a double copy
of the point, so a single-precision answer is certified exactly as a double one is; the
r×r eigenproblems of the ball step stay in double.  It is not the default: measured on the
two-Gaussian problem (hinge), an iteration costs half or less, but more are needed as n
grows: n = 5,000, 822 iterations at 28 ms against 783 at 60 ms in double; n = 20,000,
2,352 at 66 ms against 1,418 at 109 ms (an Anderson history kept in double: 2,430), so
the same time to the certified gap, in 0.42 GiB instead of 0.59.
``history_precision="single"`` (the default) keeps only the Anderson differences in
float32, each formed in the iteration's precision before it is rounded, so it keeps seven
digits of its own size (:mod:`kernelsdp.linalg.anderson`): the iterate and every certificate
stay in double.  Measured at n = 20,000 (``benchmarks/admm_speed.py --part history``, one run):
1,357 iterations against 1,446 with a double history, 57 s against 61, peak RSS 0.51 GiB
against 0.62; it removes 4pN bytes, 1.3 GB at n = 100,000, r = 108.

**Stopping.**  The residuals of eq. 14 below ``tol`` *and* the relative duality gap below
``gap_tol``: the per-pair multipliers β_ij = −(A_ij + A_ji + 2L_ij) (stationarity of the
Z-step: (λ/2)∂ℓ̃(z_ij) = −(A_ij + L_ij)) give the dual bound g(β) = B·min(0, λ_min(M(β))) −
Σ h*(β_ij), valid for every β, with M(β) = L + Σβ_ij E_ij.
The factorisation is non-convex, so the residuals alone can stop far from the optimum
(measured: 29 % off at tolerance 1e-4); the gap cannot.  It is evaluated only once the
residuals pass, then spaced by ``certificate_spacing.check_spacing``: never closer than
``check_every`` iterations nor than one λ_min costs (ARPACK, restarted from the last
eigenvector; tens of iterations' worth at large n), further apart while the gap's rate
says tolerance is far.

The loop is :class:`~kernelsdp.solvers.admm.run.ADMMRun`, a state object whose methods are
these steps; the constants named above (``GROW_GATE``, ``STALL_CHECKS``, ``MAX_ESCAPES``, the
starting penalties) are defined there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from ... import tolerances
from ...declarations import option
from ...formulations.npkl import NPKL
from ...linalg.anderson import BLOCK
from ...linalg.extreme import LANCZOS_WORDS_PER_ROW
from ...result import Result
from ...tolerances import ADMM_GAP_TOL, ADMM_RESIDUAL_TOL
from ..base import Solver
from .factor_steps import DENSE_N, default_rank
from .run import ADMMRun

#: below this n·r the iteration runs on one BLAS thread (see ``run``)
SINGLE_THREAD_BELOW = 5_000_000
#: the factor starts this wide (at most ``rank``) and grows while saturated
#: (``factor_steps.widen``)
RANK_START = 32


def iteration_memory_bytes(
    n: int, r: int, m: int, nnz_L: int, anderson: int = 5, word: int = 8, history_word: int = 4
) -> int:
    """The module docstring's memory of one iteration, in bytes (``word``: 8 in double
    precision, 4 in single; ``history_word``: that of the Anderson differences)."""
    q = 2 * m
    state = 3 * r * n + 2 * q
    words = (2 + 3) * state + 2 * r * n + 2 * q * r + 12 * q + 4 * r * r
    history = 2 * anderson * state * history_word
    in_double = 8 * (r * n * (2 if word == 8 else 3) + LANCZOS_WORDS_PER_ROW * n)  # P(K), λ_min
    if history_word != word:  # or the mixing's blocks (anderson.BLOCK), never both at once
        in_double = max(in_double, 8 * (anderson + 1) * min(BLOCK, state))
    pattern = (nnz_L + q) * (3 * word + 16) + q * (2 * word + 16) + 12 * nnz_L + 12 * (n + 1)
    return word * words + history + in_double + pattern


@dataclass(frozen=True)
class ADMMOptions:
    rank: int | None = option(
        None,
        low=1,
        help="largest width r of the factor (default: the largest r with r(r+1)/2 <= m)",
    )
    rank_start: int | None = option(
        None,
        low=1,
        help=f"starting width, widened while saturated "
        f"(default min(r, {RANK_START}); r: the seed's fixed rank)",
    )
    tol: float = option(
        ADMM_RESIDUAL_TOL, low=0.0, open_low=True, help="eq. 14 residuals to stop at"
    )
    gap_tol: float = option(
        ADMM_GAP_TOL, low=0.0, open_low=True, help="certified relative gap to stop at"
    )
    max_iter: int = option(5000, low=1, help="iteration limit")
    time_limit: float | None = option(
        None, low=0.0, open_low=True, help="wall-clock limit, seconds"
    )
    anderson: int = option(5, low=0, help="Anderson pairs (0: plain ADMM)")
    check_every: int = option(25, low=1, help="iterations between saturation checks")
    seed: int = option(0, low=0, help="seed of the starting noise")
    precision: str = option(
        "double",
        choices=("double", "single"),
        help="arithmetic of the iteration (single: half the memory "
        "traffic; every certificate is still computed in double)",
    )
    history_precision: str = option(
        "single",
        choices=("double", "single"),
        help="Anderson's differences (single: half the history's "
        "memory; each difference keeps 7 digits of its own size)",
    )
    progress: Callable[[dict], None] | None = option(None, help="called every 50 iterations")


class ADMM(Solver):
    """Algorithm 1 of seed 001 for NPKL with losses ℓ2, hinge, squared hinge, ℓ1."""

    name = "admm"
    kind = "iterative"
    ACCEPTS = {
        NPKL: {"loss": ("l2", "hinge", "squared-hinge", "l1"), "capacity": ("trace", "none")}
    }
    REFUSALS = {
        ("capacity", "frobenius"): "tr KK <= B couples every entry of the implicit Z: use "
        "npkl-closed-form or saddle-point",
    }
    Options = ADMMOptions
    # the KKT residuals of a feasible point sum to its duality gap, which ADMM stops on
    objective_tol = tolerances.ADMM_GAP_TOL
    certificate_tol = tolerances.ADMM_GAP_TOL

    def memory_bytes(self, f: NPKL, options: ADMMOptions) -> int:
        """One iteration at the widest factor it may reach (``rank``, default Pataki's
        bound) plus the dense warm start below ``factor_steps.DENSE_N``."""
        r = default_rank(f.pairs.m) if options.rank is None else options.rank
        warm = 3 * 8 * f.n * f.n if f.n <= DENSE_N else 0
        dtype, history_dtype = _dtypes(options)
        return (
            iteration_memory_bytes(
                f.n, r, f.pairs.m, f.L.nnz, options.anderson, dtype.itemsize, history_dtype.itemsize
            )
            + warm
        )

    def run(self, f: NPKL, options: ADMMOptions) -> Result:
        o = options
        r = default_rank(f.pairs.m) if o.rank is None else o.rank
        r0 = min(r, RANK_START) if o.rank_start is None else min(r, o.rank_start)
        # measured on this 2-core machine: at n = 1,797, r = 65 one BLAS thread takes 7.5 ms
        # per iteration and two 40 ms (small r×r solves and GEMMs do not share well); at
        # n = 20,000, r = 218 one thread took 0.98 s and two 1.2 s.  Judged at the starting
        # width (the cap r is Pataki's bound, 489 at n = 100,000, where two BLAS threads
        # beside another busy process took 2.4 s per iteration against 0.64 s on one)
        threads = 1 if f.n * r0 < SINGLE_THREAD_BELOW else None
        with threadpool_limits(limits=threads, user_api="blas"):
            return ADMMRun(f, o, r, r0, *_dtypes(o)).solve(self.name)


def _dtypes(o: ADMMOptions) -> tuple[np.dtype, np.dtype]:
    """The iteration's dtype and the Anderson history's (float32 if either asks single)."""
    dtype = np.dtype(np.float32 if o.precision == "single" else np.float64)
    return dtype, (np.dtype(np.float32) if o.history_precision == "single" else dtype)
