"""NPKL with the trace capacity by a low-rank augmented Lagrangian with Frank–Wolfe steps
(issue #30), after HALLaR (Monteiro, Sujanani & Cifuentes, arXiv:2401.12490).

    min tr(LK) + Σ_p h(K_p)   s.t.  K ⪰ 0,  tr K ≤ B          (docs/npkl.md §2; h = C·ℓ)

**Outer loop** (an inexact augmented Lagrangian in the pair values, the method of
multipliers of Rockafellar 1976): with multipliers β and penalty ρ, approximately minimise
Φ_ρ(K; β) = tr(LK) + Σ_p e_p(K_p) over the spectraplex {K ⪰ 0, tr K ≤ B}, the pair values
eliminated in closed form (:mod:`.alm_problem`: e_p is each loss's Moreau envelope, its
derivative β̃ = prox_{ρh*}(β + ρK_p) stays in the domain of h*, for the hinge
α̃ = clip(α + ρ(1 − T·K_p), 0, C)), then set β ← β̃ — mixed with the last ``anderson``
updates by Anderson acceleration (:mod:`.alm_anderson`, projected onto the domain of h*;
0: the plain update).

**Inner loop** (HALLaR's hybrid low-rank method, :mod:`.alm_inner`): K = B·VVᵀ, ‖V‖_F ≤ 1;
accelerated projected gradient on V at a fixed width, then a Frank–Wolfe check (the
bottom eigenvectors of M(β̃) = ∇Φ outside span V), a Frank–Wolfe step with an exact line
search that adds the vertex (and the block's other descent directions as small seeds),
and a thin SVD that drops dead columns.  The width grows by Frank–Wolfe and shrinks by
the SVD; the iterate is warm-started from the last one across outer iterations.

**Three inner methods** (option ``inner``).  ``"fista"``: the accelerated projected gradient
above.  ``"newton"`` (:mod:`.alm_newton`): trust-region Newton steps with truncated
conjugate gradients on the sphere of [V; σ] (the ball with a slack row), ``NEWTON_STEPS``
of them between two checks; one Hessian product costs one product with L and two with the
pairs.  Conjugate gradients resolve the cluster at the bottom of M(β̃)'s spectrum, whose
spread shrinks with n, in a few iterations where FISTA needs the inverse of the spread
(docs/npkl.md §7, eighth pass).  ``"hybrid"``: FISTA's steps after a check whose vertex
is a hub's localised pocket (``LOCALISED``), Newton's otherwise — the Newton steps drain a
hub that a Frank–Wolfe step filled, and the next check finds its pocket again; FISTA's keep
it (docs/npkl.md §7, thirteenth pass: at n = 10⁶ and a 3,000 s limit its own interval's
width was 2.7e-2, where ``"newton"`` left 1.5 after 3,859 s).  Not the default: at
n ≤ 100,000 it takes about as long with up to 2× the products.

**The Newton steps' CG preconditioned by the step before** (option ``lmp_pairs``,
:mod:`.alm_lmp`, docs/npkl.md §7, thirty-fourth pass).  The pairs (d, H·d) of one step's
truncated CG precondition the next step's (Morales & Nocedal's automatic preconditioning,
by Gratton, Sartenaer & Tshimanga's limited-memory preconditioner), so the round's Krylov
space goes on from step to step instead of starting afresh; kept where the memory formula
with them fits.  Off by default: fewer products in sum at every size measured, but at
n = 100,000 1.33× the time (each CG iteration reads the kept arrays twice) and 1.8× the
memory.

**The pockets' rows** (:mod:`.alm_rows`, docs/npkl.md §7, twenty-eighth pass).  The run
keeps the rows that carried each hub's pocket (the fewest that hold ``POCKET_SHARE`` of
its vertex, if at most ``POCKET_ROWS`` do) and, before every round of Newton steps, sets
each of them to its exact minimiser with the other rows fixed: one Gauss–Seidel sweep in
the point's arrays, no product with L or the pairs.  The Newton steps no longer drain a
hub the Frank–Wolfe step filled, so its pocket does not come back check after check: at
n = 100,000 (seed 4) 41 checks instead of 59, 8,509 eigensolver products instead of
14,061, 2,861 products instead of 3,466, 197.5 s instead of 356 s.

**The check's vertex refined** (:mod:`.alm_vertex`, docs/npkl.md §7, twenty-ninth pass).
The check's LOBPCG works orthogonal to V, so the coupling of V and its complement while
the inner problem is inexact escapes it: at n = 10⁶ its Ritz value sat 7.6e-4 above the
bottom of M(β̃), a spread vector, and the estimated gap read 2.4e-3 low.  The Lanczos
recurrence from the check's vertex (two passes, O(n) memory) finds that bottom in a few
hundred products; the labelled interval never depended on the check's λ.

**The hubs' pockets in bulk** (option ``pockets``, off by default; :mod:`.alm_pockets`,
docs/npkl.md §7, thirty-first pass).  After each Frank–Wolfe step, local eigenproblems of
M(β̃) on the 2-hop neighbourhoods of the nodes near V's level find the pockets below it,
packed into at most four columns and line-searched in.  Over five seeds it moved the
products to the certified 1e-3 by −3 %, −4 % and +2 % at n = 3,000, 20,000 and 100,000,
and a 100,000 solve took longer.

**The hubs' pockets as blocks** (option ``pocket_blocks``, on by default; :mod:`.alm_blocks`,
docs/npkl.md §7, forty-third and forty-fourth passes).  Before each check the pockets below
V's level are found as above, and each is solved as a PSD block on its support with the
trace priced at that level, so that the block's own eigenvalue reaches the level (a pocket
line-searched in along one vector does not: its hub's multipliers move with it).  The
blocks are packed into at most four new columns, kept where the subproblem's value fell.
Over five seeds 3.0 %, 1.1 % and 6.1 % fewer products to the certified 1e-3 at n = 3,000,
20,000 and 100,000, though the ratio across n at seed 1 rose to 2.05 (without, 1.94 at
worst); the two 10⁶ hours with it certified 3.27e-3 and 4.80e-3 (without, 5.68e-3 and
7.90e-3).

**The tail's rounds** (option ``tail_rounds``, off by default; :mod:`.alm_tail`, docs/npkl.md
§7, thirty-seventh pass).  After a spread check at an estimated gap of at most 1e-2, the
round's steps take up to 24 CG iterations and the round ends once a lower bound on the FW
gap is at most half of FY.  At n = 100,000 (seed 3) the plain round left FW above FY at 7 of
16 spread checks from an estimated 3.5e-2, so no update came; from the first spread check at
≤ 1e-2 the tail took 5 checks with these rounds where the plain one took 10 (seed 1's plain
tail updated at every check).  Over five seeds it took 14.5 % fewer products at n = 3,000,
0.4 % fewer at 20,000 and 4.6 % fewer at 100,000 (docs/measurements.md), but the products
ratio across n grew to 2.02–2.16× at every seed, since the small sizes gained most.

**The spectral start** (option ``spectral_start``, on by default since the forty-first pass;
:mod:`.alm_start`, docs/npkl.md §7). The factor starts as the lowest k = 128 eigenvectors of
M at K = 0 (every hinge pair active) instead of K = 0, and the start's directions that die
are retired at the multiplier updates (below 1e-4 of the largest, at most as many as the
start kept). Over five seeds the products to the certified 1e-3 fell by 13 %, 26 % and 19 %
at n = 3,000, 20,000 and 100,000, their ratio across n 1.56–1.92× at every seed (from K = 0
1.68–2.11×), the factor about as wide as from K = 0 by the end or narrower (the fortieth
pass's start, unretired, stayed 1.8–3.4× as wide and took 1.92× the time at 20,000); by the
clock it is slower at 20,000 and 100,000 (1.14–1.25×), within the bars. ``spectral_start=0``
starts from K = 0 as before.

**The inner tolerance is tied to the Frank–Wolfe gap.**  At every check the gap splits
exactly as P(K) − D(β̃) = FW + FY: the subproblem's Frank–Wolfe gap
FW = tr(M(β̃)K) − B·min(0, λ_min) and the Fenchel–Young gap FY = Σ h(K_p) + h*(β̃_p) −
β̃_pK_p, which only the multipliers can close.  The inner loop stops once
FW ≤ ``FW_SHARE``·FY; the multipliers are then updated.  **Penalty schedule**: when an
outer iteration did not cut FY to ``FY_PROGRESS`` of its last value, ``SLOW_UPDATES`` times
in a row, ρ doubles (at most ``RHO_MAX``·C).  ρ is in K's units (ρ₀ = ``rho``·C), the
iterate in the scaled units of :mod:`.alm_problem`, so no constant depends on n.

**Stopping and the certificate.**  Every check gives P(K) and the dual estimate D(β̃) with
the Ritz value; once their gap is below ``gap_tol`` the labelled interval of
:mod:`.alm_certificate` is computed in double (upper: a proof; lower: ``proof`` by
:func:`kernelsdp.linalg.verified.verified_min_eig` up to ``verify_max_n``, else the
``probable`` randomised Lanczos bound), and the solve stops when its width is within
``gap_tol``.  An interval that fails because its Lanczos bound ends below 0 and below
the check's λ by more than the bound's slack hands its Ritz vector to the next check, first
in LOBPCG's warm block (:func:`.alm_outer.with_direction`; thirty-third pass: at
n = 100,000 a path's checks read λ −0.4403 from check 50 to 75 while every interval's
Lanczos found −0.4417 to −0.4418, and its intervals stayed 5.06–5.36e-3 wide at estimates
down to 3.6e-5).  At a limit the last point is certified the same way, and the status
says which limit; when an earlier check's estimated gap was below that interval's width,
the point of the lowest estimate so far (kept all along: :class:`.alm_outer.Kept`) is
certified too and the narrower interval is the answer (at n = 10⁶ the last point was a
hub's pocket, its estimate 0.9 where a check before read 1.7e-2).  The result's
``info["certificate"]`` is that :class:`~kernelsdp.certificate.Certificate`; ``duals`` hold
β̃ and λ for the NPKL certificate from scratch.

**Precision.**  ``precision="single"`` keeps the iterate and its products (V, L, the pair
pattern) in float32 — half the memory traffic; every sum is accumulated in double, and the
pair multipliers, the check's Rayleigh–Ritz pencil and vertex and the certificate are
computed in double.  The check's LOBPCG block (and the spectral start's) is in the iterate's
precision, constrained against an orthonormal basis of span V computed in double
(forty-second pass: at 10⁶ SciPy's LOBPCG in double was 26.5 s of a 38.7 s check).

**Polish** (``polish_at`` > 0, hinge only; off by default): once a check's estimated
gap is at most ``polish_at``, primal–dual active-set Newton steps from the point
(:mod:`.alm_polish`), each certified by the same labelled interval; the solve stops at the
first within ``gap_tol``, else the ALM goes on from its own point.  Measured (docs/npkl.md
§7, fourth pass): it certifies gaps the float32 iteration stalls above (n = 3,000: 1e-4 in
2.5 s, where the ALM stops at 2.4e-4 and ADMM takes 11.5 s), but at n = 20,000 it is slower
to 1e-3 than the ALM (77 s against 29 s) and closes only linearly once its sets settle.

**Warm start** (:class:`.alm_outer.Start`, the ``start`` of :func:`.alm_outer.solve_alm`;
not an option): a factor U, multipliers β and optionally ρ and ℓ replace K = 0, β = 0;
the answer is certified from scratch as ever.  The multilevel start of :mod:`.alm_coarse`
(the problem restricted to graph aggregates, prolonged) fills it; measured (docs/npkl.md
§7, sixth pass), it does not pay on ``npkl_scale.py``'s instance.

**Memory** (:func:`memory_bytes_for`), in words of the iterate (w bytes) for a factor of
width s (at most ``rank`` plus the check's block k) over n points and m pairs: the
gradient loop holds ``APG_ARRAYS`` n×s arrays and two m×s row gathers; the check holds
``CHECK_ARRAYS`` n×(s + k) arrays in double plus LOBPCG's blocks (at n ≥ 300,000 also
the vertex's refinement, ``REFINE_VECTORS`` n-vectors, :mod:`.alm_vertex`); the certificate the
factor in double and row chunks; all along, the kept point (a copy of the factor and
its check's multipliers), L and the pair pattern in the iterate's
precision and M(β)'s fixed pattern in double (24 + w bytes per entry with its sum and the
maps into it, built once and written in place at each check), and the Newton steps' CG
pairs where they are kept (4·``lmp_pairs`` arrays of (n + 1)×s) — plus the largest phase
(with ``spectral_start`` k, the start's LOBPCG is one: ``alm_start.START_ARRAYS`` n×k
arrays of the iterate's precision, and in single ``START_DOUBLE`` n×k doubles for its
products, counted at the option's width even where a caller's warm start replaces it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import tolerances
from ..declarations import option
from ..errors import InvalidParameterError
from ..formulations.npkl import NPKL
from ..limits import memory_limit
from ..linalg.randomized_bound import FAILURE_PROBABILITY
from ..result import Result
from .admm.factor_steps import default_rank
from .alm_certificate import CHUNK as CERT_CHUNK
from .alm_inner import BLOCK, refines_vertex
from .alm_start import SPECTRAL_START, START_ARRAYS, START_DOUBLE, start_width
from .alm_vertex import REFINE_VECTORS
from .base import Solver

#: trust-region Newton steps between two Frank–Wolfe checks (``inner="newton"``): measured
#: with CG_MAX 8 / 12 at n = 20,000 (products, checks): 2 steps 1,439 / 1,511 products but 40
#: checks; 3 steps 2,038 / 1,939 (37 / 29 checks); 4 steps with 12 CG iterations 2,109 and 26
#: checks, the fastest (17.8 s against 19.0-27.2 s, FISTA 24.5 s beside it); 6 steps 2,967
NEWTON_STEPS = 4
#: pairs (d, H·d) of one truncated CG that precondition the next, as measured (:mod:`.alm_lmp`,
#: option ``lmp_pairs``, off by default; thirty-fourth pass, docs/npkl.md §7): over five seeds
#: 8 %, 5 % and 8 % fewer products in sum at n = 3,000, 20,000 and 100,000 (the ratio across n
#: at most 1.94×, where the plain steps' reach 2.11×), but at 100,000 1.33× the time and 1.3 GiB
#: more (seed 4, alone): each CG iteration reads the 2·8 kept arrays twice
LMP_PAIRS = 8
#: the inner loop ends when the Frank–Wolfe gap is at most this share of the FY gap (0.5
#: until the tenth pass: at n = 100,000 the FW gap rested at 0.6-0.9 of FY for checks on
#: end while the width grew, and 3 updates came in the first 38 checks; with 1.0 and
#: FY_PROGRESS 0.9 the hinge's products at n = 3,000 / 20,000 / 100,000 went 1,563 / 2,109 /
#: 3,567 -> 1,740 / 2,237 / 3,325, and squared hinge, l1 and l2 took 0-24 % fewer at
#: 3,000 and 20,000; docs/npkl.md §7)
FW_SHARE = 1.0
#: a check's vertex carried by fewer nodes than this (its participation ratio), below 0 and
#: V's level, is a hub's pocket (docs/npkl.md §7, tenth pass): ``inner="hybrid"`` then takes
#: FISTA's steps, which keep a hub filled where the Newton steps drain it (thirteenth pass)
LOCALISED = 200
#: ρ doubles after an outer iteration that left FY above this share of its last value
#: (0.5 until the seventh pass: ρ then doubled to 4·C, where one update costs 500-800
#: products against about 130-300 at ρ = C; with 0.75 and Anderson memory 3, n = 20,000
#: took 3,168 products to the certified 1e-3 against 4,850, docs/npkl.md §7; 0.9 since the
#: tenth pass: with FW_SHARE 1.0 an update cuts FY by less, and 0.75 doubled ρ to 2C at
#: n = 100,000, after which the gap closed more slowly: 3,317 products at check 60, gap 2.7e-3)
FY_PROGRESS = 0.9
#: ρ doubles only after this many updates in a row each left FY above FY_PROGRESS of the
#: last (1 until the fourteenth pass: at n = 100,000 the FY gap crept back up during a run
#: of a hub's localised checks, one update read as slow and ρ doubled to 2C at seeds 1 and
#: 2, after which every check took its full Newton round: 4,715 and 4,441 products; with 2,
#: ρ stays at C there and they take 3,544 and 3,246, seed 0's 3,325 and the smaller sizes,
#: where ρ never doubled, unchanged; docs/npkl.md §7)
SLOW_UPDATES = 2
#: the multipliers are updated anyway after an inner round whose gradient steps stopped as
#: stationary within this many iterations (the FW gap cannot fall below FW_SHARE·FY there)
STALLED_BELOW = 3
#: ρ's cap, in units of C
RHO_MAX = 64.0
#: the widest default factor (Pataki's bound is 1,548 at n = 10⁶; the optima met are far
#: narrower: 17, 37-48 and about 108 at n = 3,000, 20,000, 100,000)
RANK_CAP = 256
#: the labelled interval is computed once the estimated gap is below this share of gap_tol
CERTIFY_AT = 0.8
#: after a labelled interval wider than gap_tol, the next is computed once the estimated
#: gap is below this share of the failed one's (0.7 cost n = 20,000 four seconds in 33)
RETRY_AT = 0.85
#: Newton steps of one polish (:mod:`.alm_polish`); the ALM goes on if they do not certify
POLISH_STEPS = 12
#: a Newton step is certified once at most this share of the kink pairs (or this many)
#: changed set after it (n = 20,000: 1,831, 870, 172, 29, 16, ... moves; each interval
#: there costs a randomised λ_min bound, 1-5 s)
POLISH_SETTLED = 1e-3
POLISH_SETTLED_MOVES = 2
#: the polish's n×s double arrays (U, S·U, MINRES's work vectors and the products) and its
#: m×s row gathers (the kink pairs' rows of U and of the step), counted in the code
POLISH_ARRAYS = 16
POLISH_GATHERS = 4
#: n×s arrays of the gradient loop beyond the point (the candidate and its L·X, the
#: extrapolated Y and L·Y, the gradient, the step and its temporaries, the previous point)
#: and m-vectors of the pair values (the envelope's temporaries), measured by tracemalloc
APG_ARRAYS = 12
PAIR_VECTORS = 12
#: the Newton inner steps' n×s arrays (the point [V; σ], its gradient, the truncated CG's
#: step, model gradient, residual, direction and Hessian product, a product's temporary, the
#: trial point's L·V and gradient) and m×s row gathers (the point's two, a direction's two),
#: measured by tracemalloc (0.99 of the peak formula at n = 6,000, s = 24, in double; 0.98
#: in single, where the check's phase is the larger)
NEWTON_ARRAYS = 11
NEWTON_GATHERS = 4
#: what the Newton round adds when it keeps its scratch arrays (``keep_scratch``): one n×s
#: array, no gathers, and in single precision the trial point's cast to double with its L·V
#: in double (``SCRATCH_DOUBLE`` n×s double arrays).  Twenty-first pass: 3 arrays and 2
#: gathers; since the twenty-second the rows are gathered in place into kept arrays (no
#: buffered copy) and the point and the trial point take turns in two kept buffers, never
#: more than the fresh arrays they replace.  tracemalloc at n = 6,000, s = 24: 0.94–0.99 of
#: the formula with them (tests/test_low_rank_alm.py)
SCRATCH_ARRAYS = 1
SCRATCH_DOUBLE = 2
#: n×s double arrays of the check (G·V, [V, W] and [G·V, G·W]); in single precision the
#: formula adds one more: V's double copy until the forty-second pass, now LOBPCG's
#: float32 basis of span V (4·n·s bytes fewer than counted: left as a margin)
CHECK_ARRAYS = 3


@dataclass(frozen=True)
class LowRankALMOptions:
    gap_tol: float = option(
        tolerances.LOW_RANK_ALM_GAP_TOL,
        low=0.0,
        open_low=True,
        help="certified relative gap to stop at",
    )
    max_iter: int = option(
        20_000,
        low=1,
        help="gradient iterations (FISTA) or gradient and Hessian products (Newton), all outer "
        "loops together",
    )
    time_limit: float | None = option(None, low=0.0, open_low=True, help="wall-clock limit, s")
    rank: int | None = option(
        None, low=1, help=f"widest factor (default min(Pataki's bound, {RANK_CAP}))"
    )
    rho: float = option(1.0, low=0.0, open_low=True, help="starting penalty, in units of C")
    anderson: int = option(
        3,
        low=0,
        high=20,
        help="memory of the Anderson acceleration of the multiplier update (alm_anderson); "
        "0: the plain update",
    )
    inner: str = option(
        "newton",
        choices=("fista", "newton", "hybrid"),
        help="the subproblem's method between FW checks: accelerated projected gradient, "
        "trust-region Newton with truncated CG (alm_newton), or hybrid: FISTA after a check "
        "that found a hub's localised pocket, Newton otherwise",
    )
    inner_iterations: int = option(20, low=1, help="gradient iterations between FW checks")
    precision: str = option(
        "single",
        choices=("single", "double"),
        help="the iterate's arithmetic (the certificate is double)",
    )
    reorder: bool = option(True, help="reverse Cuthill-McKee order of the graph")
    verify_max_n: int = option(
        4000,
        low=0,
        help="largest n whose lambda_min is verified "
        "(a proof); above it the randomised bound (probable)",
    )
    failure_probability: float = option(
        FAILURE_PROBABILITY,
        low=0.0,
        high=0.5,
        open_low=True,
        help="of the randomised lambda_min bound",
    )
    seed: int = option(0, low=0, help="seed of the eigen-solvers' random starts")
    polish_at: float = option(
        0.0,
        low=0.0,
        high=1.0,
        help="hinge only: from this estimated gap on, primal-dual active-set Newton "
        "steps (alm_polish), each certified; 0: never",
    )
    pockets: bool = option(
        False,
        help="after each FW step, the hubs' pockets below V's level found by local "
        "eigenproblems and line-searched in, packed into a few columns (alm_pockets)",
    )
    pocket_blocks: bool = option(
        True,
        help="before each check, the hubs' pockets below V's level found by local "
        "eigenproblems and each solved as a PSD block on its support, packed into a few "
        "columns, kept where the subproblem's value fell (alm_blocks)",
    )
    tail_rounds: bool = option(
        False,
        help="Newton inner: in the tail (a spread check at an estimated gap of at most "
        "1e-2), steps of up to 24 CG iterations, the round ended once a lower bound on the FW "
        "gap is at most half of FY (alm_tail)",
    )
    lmp_pairs: int = option(
        0,
        low=0,
        high=64,
        help="Newton inner: pairs of one step's conjugate gradients kept to precondition the "
        f"next step's (alm_lmp), where they fit in memory; measured with {LMP_PAIRS}; "
        "0: unpreconditioned",
    )
    spectral_start: int = option(
        SPECTRAL_START,
        low=0,
        high=RANK_CAP,
        help="without a warm start: the factor starts as the lowest this many eigenvectors "
        "of M at K = 0 (alm_start), equal weights on the whole trace, at most the rank cap "
        "and n/5, and the ones that die are retired; 0: K = 0",
    )
    progress: Callable[[dict], None] | None = option(None, help="called at every FW check")


def memory_bytes_for(
    n: int,
    m: int,
    nnz_L: int,
    rank: int,
    word: int = 4,
    verify_max_n: int = 0,
    polish: bool = False,
    anderson: int = 3,
    inner: str = "fista",
    keep_scratch: bool = False,
    pairs: int = 0,
    start: int = 0,
) -> int:
    """The module docstring's peak, in bytes: what stays (the point V and L·V, the check's
    block and vertex, L and the pair pattern, M(β)'s pattern in double, the pair indices
    in two orders, the multipliers and Anderson's history) plus the largest phase (the
    gradient loop or the Newton steps, by ``inner``; the check, the certificate, Anderson's
    update; the vertex's refinement where the check makes it; a dense verified λ_min below
    ``verify_max_n``; the Newton polish when asked: double n×s arrays, kink-pair gathers,
    S and the kink pattern); ``keep_scratch``: the
    Newton rounds keep their scratch arrays (``SCRATCH_ARRAYS``, ``SCRATCH_DOUBLE``);
    ``pairs``: the Newton steps keep that many CG pairs (:func:`.alm_lmp.pairs_bytes`, a
    buffer the solve holds from its first round on); ``start``: the spectral start's block
    (:mod:`.alm_start`, ``START_ARRAYS`` n×start arrays of the word and ``START_DOUBLE``
    doubles in single precision, before the factor exists)."""
    from .alm_anderson import vectors
    from .alm_lmp import pairs_bytes

    s, k = rank, BLOCK
    kept, mixing = vectors(anderson)
    sparse = (nnz_L + 2 * m) * (word + 4)
    dual = (nnz_L + 2 * m) * (24 + word)  # M(β)'s fixed pattern in double, its sum, maps
    # V, L·V and the kept point (alm_outer.Kept: V's copy and its check's β̃)
    stays = word * 3 * n * s + 8 * n * (k + 2) + sparse + dual + 8 * (11 + kept) * m + 16 * n
    loop = word * (APG_ARRAYS * n * s + 2 * m * s) + 8 * PAIR_VECTORS * m
    if inner in ("newton", "hybrid"):  # hybrid: the larger of the two loops
        arrays = NEWTON_ARRAYS + (SCRATCH_ARRAYS if keep_scratch else 0)
        steps = word * (arrays * n * s + NEWTON_GATHERS * m * s) + 8 * PAIR_VECTORS * m
        steps += 8 * SCRATCH_DOUBLE * n * s if keep_scratch and word == 4 else 0
        loop = max(loop, steps) if inner == "hybrid" else steps
        stays += 12 * nnz_L if word == 4 else 0  # L's double copy for the ratio test
        # the pocket rows' pair index (alm_rows.PairIndex, int64); a sweep works in the
        # point's arrays, and its pair values' gathers are fewer than the round's
        stays += 32 * m + 8 * (n + 1)
        stays += pairs_bytes(n, s, pairs, word)
    check = 8 * ((CHECK_ARRAYS + (word == 4)) * n * s + 14 * n * k)
    check += 8 * REFINE_VECTORS * n if refines_vertex(n) else 0  # the vertex's Lanczos refinement
    cert_rows, cert_pairs = min(n, CERT_CHUNK), min(m, CERT_CHUNK)
    cert = 8 * (2 * n * s + 2 * cert_rows * s + 3 * cert_pairs * s + 8 * n) + 12 * (nnz_L + 2 * m)
    dense = 4 * 8 * n * n if n <= verify_max_n else 0
    newton = polish_bytes(n, m, nnz_L, s) if polish else 0
    # the spectral start's LOBPCG in the iterate's precision, its products in double
    start_phase = (word * START_ARRAYS + (8 * START_DOUBLE if word == 4 else 0)) * n * start
    return stays + max(loop, check, cert, dense, newton, start_phase, 8 * (mixing - kept) * m)


def polish_bytes(n: int, m: int, nnz_L: int, rank: int) -> int:
    """The Newton polish's own peak (:mod:`.alm_polish`, in double): ``POLISH_ARRAYS``
    n×s arrays, ``POLISH_GATHERS`` row gathers of the kink pairs (counted as if every
    pair were at the kink), the pair sets, and S = M(β) with the kink pattern (CSR, its
    row blocks and the slot map).  tracemalloc: 0.95 of it at n = 6,000, s = 24, with the
    gathers counted at the kink pairs actually met."""
    s = rank
    return 8 * (POLISH_ARRAYS * n * s + POLISH_GATHERS * m * s + 12 * m) + 32 * (nnz_L + 2 * m)


class LowRankALM(Solver):
    """HALLaR-type low-rank augmented Lagrangian for NPKL with tr K ≤ B (module docstring)."""

    name = "low-rank-alm"
    kind = "iterative"
    ACCEPTS = {NPKL: {"loss": ("hinge", "squared-hinge", "l2", "l1"), "capacity": ("trace",)}}
    REFUSALS = {
        ("capacity", "none"): "every iterate's certificate needs tr K <= B",
        ("capacity", "frobenius"): "the Frank-Wolfe vertex is the trace ball's",
    }
    Options = LowRankALMOptions
    objective_tol = tolerances.LOW_RANK_ALM_GAP_TOL
    certificate_tol = tolerances.LOW_RANK_ALM_GAP_TOL

    def memory_bytes(self, f: NPKL, options: LowRankALMOptions) -> int:
        return _memory(f, options, _rank_cap(f, options))

    def run(self, f: NPKL, options: LowRankALMOptions) -> Result:
        from .alm_outer import solve_alm

        if options.polish_at > 0 and f.loss != "hinge":
            raise InvalidParameterError(
                f"The 'polish_at' option of {self.name} must be 0 for the {f.loss} loss "
                f"(the Newton polish is the hinge's). Got {options.polish_at!r} instead."
            )
        return solve_alm(self.name, f, options, _rank_cap(f, options))


def _memory(
    f: NPKL, o: LowRankALMOptions, cap: int, keep_scratch: bool = False, pairs: int = 0
) -> int:
    return memory_bytes_for(
        f.n,
        f.pairs.m,
        f.L.nnz,
        cap,
        4 if o.precision == "single" else 8,
        o.verify_max_n,
        o.polish_at > 0,
        o.anderson,
        o.inner,
        keep_scratch,
        pairs,
        start_width(f.n, o.spectral_start, cap),
    )


def scratch_fits(f: NPKL, o: LowRankALMOptions, width: int) -> bool:
    """Whether a Newton round at this width may keep its scratch arrays (:mod:`.alm_newton`):
    the memory formula with them, at the round's width, within
    :func:`kernelsdp.limits.memory_limit`.  The solve is refused only by the formula without
    them at the rank cap, so a size that fits runs either way, with the same arithmetic and
    fewer page faults where they are kept (at n = 10⁶ and the default cap 256 the formula
    with them is 23.7 GiB, but at the widths met there, about 100, far less)."""
    return _memory(f, o, width, keep_scratch=True) <= memory_limit()


def pairs_fit(f: NPKL, o: LowRankALMOptions, width: int) -> bool:
    """Whether a Newton round at this width may precondition its CG by the step before
    (:mod:`.alm_lmp`): the memory formula with ``lmp_pairs`` pairs and the scratch arrays
    as :func:`scratch_fits` decides, at the round's width, within
    :func:`kernelsdp.limits.memory_limit`.  As with the scratch arrays the solve is refused
    only by the formula without them; where they do not fit the round runs unpreconditioned
    (at n = 10⁶, width 150 and 8 pairs they take 18 GiB)."""
    keep = scratch_fits(f, o, width)
    return _memory(f, o, width, keep_scratch=keep, pairs=o.lmp_pairs) <= memory_limit()


def _rank_cap(f: NPKL, o: LowRankALMOptions) -> int:
    cap = min(default_rank(f.pairs.m), RANK_CAP) if o.rank is None else o.rank
    return max(1, min(cap, f.n - BLOCK - 2))


__all__ = ["LowRankALM", "LowRankALMOptions", "memory_bytes_for", "polish_bytes"]
