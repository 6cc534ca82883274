"""The subproblem of the low-rank augmented Lagrangian by a Riemannian trust-region Newton
method (:mod:`.low_rank_alm`, option ``inner="newton"``; issue #30, eighth pass):

    min φ_ρ(V) = a·⟨V, LV⟩ + (1/s)·Σ_p e_p(B·z_p(V))   over ‖V‖_F ≤ 1        (:mod:`.alm_problem`)

**Why.**  Measured at a fixed (β, ρ) of the n = 20,000 run, FISTA (:func:`.alm_inner.apg`)
took 5,035 products to bring φ within 1e-8 of its minimum; this method 922 products, and
its point was lower.  The slow directions are not smooth on the graph (their Rayleigh
quotient in L is L's average), so a graph preconditioner would not reach them: they are
the weight moved inside the cluster of M(β̃)'s bottom eigenvalues, whose spread shrinks
with n (the pre-check's eigengap).  Conjugate gradients resolve a cluster in a few
iterations whatever its spread; a first-order method needs the inverse of the spread.

**The manifold.**  The ball ‖V‖_F ≤ 1 is the unit sphere of x = [V; σ] with a slack row
σ ∈ ℝ^{1×r} (as :mod:`.burer_monteiro`): the cost does not read σ.  Trust regions after
Absil, Baker & Gallivan (2007) with Steihaug–Toint's truncated conjugate gradients
(Absil, Mahony & Sepulchre 2008, §7.3): the retraction (x + η)/‖x + η‖, the Riemannian
gradient P_x(g) and Hessian P_x(∇²φ[ξ]) − ⟨x, g⟩·ξ on the tangent space.

**The Euclidean Hessian** along Ξ (V's part; σ's is 0):

    ∇²φ[Ξ] = 2a·(LΞ + P(β̃)Ξ + P(δβ̃)V),   δβ̃_p = β̃'(w_p)·B·(v_i·ξ_j + ξ_i·v_j),

with P(β) = Σ β_p E_p (:meth:`.ScaledNPKL.set_multipliers`) and β̃' the derivative of the
envelope's gradient β̃(w) = prox_{ρh*}(β + ρw) (:meth:`.ScaledNPKL.envelope`).  Every
loss's prox is piecewise linear, so β̃' is piecewise constant: it is read off one
difference of β̃ at w ± ``SLOPE_STEP``·(1 + |w|), exact on each linear piece (a pair within
that step of a kink gets a value between its two slopes: a generalized Hessian's).  One
Hessian product costs one product with L and two with the pairs, plus two row gathers of
Ξ (V's rows are gathered once per point); a trust-region step one more product with L
(the trial value) and one with the pairs (its gradient, when accepted).

**Arithmetic.**  Products in the iterate's precision, except the values that the
trust-region test compares: φ in double (L·V from L's double entries, the pair values
accumulated in double), with the regularisation of Absil et al. (1000·eps·max(1, |φ|)) plus
what rounding the trial point to the iterate's precision can move φ by (:func:`_rounding`).
A rejected step cuts the radius to a quarter of the step's length, not of the radius (an
interior step would otherwise come back the same).  A step rejected by its value alone,
within that allowance (a ratio that leaves the radius), ends the round: the same point and
radius would give the same step (nineteenth pass).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from scipy.linalg import get_blas_funcs

from ..linalg.row_blocks import on_threads
from .alm_inner import Point, _dot
from .alm_problem import THREADED_PAIRS_FROM, ScaledNPKL, gather_rows

#: β̃'s slope is read off β̃(w ± h)/2h with h = SLOPE_STEP·(1 + |w|)
SLOPE_STEP = 1e-7
#: the truncated CG's stopping rule ‖r‖ ≤ ‖r₀‖·min(‖r₀‖^θ, κ) (superlinear: θ = 1)
CG_KAPPA, CG_THETA = 0.1, 1.0
#: conjugate-gradient iterations of one trust-region step at most
CG_MAX = 12
#: the trust radius's cap (the sphere's geodesic scale) and the ratio test's thresholds
DELTA_MAX = math.pi / 2
ACCEPT, SHRINK_BELOW, GROW_ABOVE = 0.1, 0.25, 0.75
#: the two m×s gather buffers of a round (the Hessian's and the trial values')
_TAKES = ("take_lo", "take_hi")


@dataclass
class _At:
    """The point x = [X; σ] (one (n+1)×r array, X its first n rows) with what the steps
    reuse: φ, L·X, the pair values w, β̃, β̃'·B, the Euclidean gradient G (X's part), ⟨x, g⟩
    and X's rows gathered in the pairs' sorted order; ``slot``: which of the round's two
    point buffers (:meth:`_Newton.work`) holds Z and L·X (a trial point is made in the
    other)."""

    Z: np.ndarray
    LX: np.ndarray
    w: np.ndarray
    value: float
    slope: np.ndarray
    bt: np.ndarray
    G: np.ndarray
    gx: float
    rows: tuple[np.ndarray, np.ndarray]
    slot: int = 0

    @property
    def X(self) -> np.ndarray:
        return self.Z[:-1]


class _Newton:
    """φ_ρ, its gradient and Hessian products at fixed (β, ρ) on the sphere of [V; σ]."""

    def __init__(self, prob: ScaledNPKL, beta: np.ndarray, rho: float, keep: bool = False):
        self.prob, self.beta, self.rho = prob, beta, rho
        self.hessians = 0
        self.keep = keep  # scratch arrays kept for the round (:meth:`work`)
        self._work: dict[str, np.ndarray] = {}

    def work(self, name: str, shape: tuple[int, ...], dtype) -> np.ndarray:
        """A named scratch array, made at its first use and kept for the rest of the round
        (the width is fixed within a round): n×s arrays made fresh at every Hessian product
        paid for their first touch in page faults (n = 100,000: 16.5 s of a 298 s solve in
        np.zeros_like alone; n = 20,000: 480,000 minor faults, 241,000 with the arrays kept
        for the round and 556,000 with them dropped after each truncated CG; docs/npkl.md
        §7, twenty-first pass).  Its contents are whatever the last user left.  Without
        ``keep`` (the memory formula with them kept does not fit at the round's width:
        :func:`.low_rank_alm.scratch_fits`) each request is a fresh array, as before."""
        if not self.keep:
            return np.empty(shape, dtype=dtype)
        a = self._work.get(name)
        if a is None or a.shape != shape or a.dtype != dtype:
            a = self._work[name] = np.empty(shape, dtype=dtype)
        return a

    def value(self, X: np.ndarray, slot: int = 0) -> tuple[float, np.ndarray, np.ndarray]:
        """(φ, L·X, w) at X, φ in double whatever the iterate's precision (L·X from L's
        double entries, returned in the iterate's): in single precision the trust-region
        test compared float32 rounding once the steps' decrease fell below it, rejected
        every step, and the radius collapsed (n = 20,000: 2,438 checks at the iteration
        limit, gap 1.8e-2).  L·X in the iterate's precision is written into the point buffer
        ``slot``."""
        p = self.prob
        if X.dtype == np.float64:
            X64, LX = X, p.times_L_double(X)
        else:  # one cast serves the product and the inner product (twenty-second pass)
            X64 = self.work("x_double", X.shape, np.float64)
            np.copyto(X64, X)
            LX = p.times_L_double(X64, self.work("lx_double", X.shape, np.float64))
        shape = (p.m, X.shape[1])  # the Hessian's gather buffers serve the pair values
        w = p.B * p.pair_entries(X, tuple(self.work(k, shape, X.dtype) for k in _TAKES))
        env, _ = p.envelope(w, self.beta, self.rho)
        value = p.a * _dot(X64, LX) + env / p.scale
        if LX.dtype != p.dtype:  # astype's cast, into the slot's buffer
            out = self.work(f"lx{slot}", X.shape, p.dtype)
            np.copyto(out, LX)
            LX = out
        return value, LX, w

    def at(self, Z: np.ndarray, known=None, slot: int = 0) -> _At:
        """The point with its gradient (``known``: φ, L·X, w already computed), Z and L·X
        in the point buffer ``slot``.  Its gradient and rows are written over the last
        point's (a round reads only its current point's)."""
        p, X = self.prob, Z[:-1]
        value, LX, w = self.value(X, slot) if known is None else known
        _, bt = p.envelope(w, self.beta, self.rho)
        h = SLOPE_STEP * (1.0 + np.abs(w))
        _, up = p.envelope(w + h, self.beta, self.rho)
        _, down = p.envelope(w - h, self.beta, self.rho)
        slope = p.B * (up - down) / (2.0 * h)
        p.set_multipliers(bt)
        G = p.times_pairs(X, self.work("point_gradient", X.shape, X.dtype))
        G += LX
        G *= 2.0 * p.a
        return _At(Z, LX, w, value, slope, bt, G, _dot(X, G), self._rows(X), slot)

    def _rows(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """X's rows gathered in the pairs' sorted order (lower and upper index), the two
        gathers on two threads when the pairs are many (``take`` releases the GIL)."""
        p = self.prob
        shape = (p.m, X.shape[1])
        lo, hi = self.work("rows_lo", shape, X.dtype), self.work("rows_hi", shape, X.dtype)
        gathers = (
            lambda: gather_rows(X, p.gather_lo, lo),
            lambda: gather_rows(X, p.gather_hi, hi),
        )
        return tuple(on_threads(gathers, p.m >= THREADED_PAIRS_FROM))

    def pair_derivative(self, x: _At, Xi: np.ndarray) -> np.ndarray:
        """δz_p = v_i·ξ_j + ξ_i·v_j for every pair (the pairs' order), on two threads when
        the pairs are many (as :meth:`.ScaledNPKL.pair_entries`)."""
        p = self.prob
        lo, hi = x.rows
        shape = (p.m, Xi.shape[1])
        take_lo, take_hi = (self.work(k, shape, Xi.dtype) for k in _TAKES)
        halves = (
            lambda: _rowdot_rows(lo, Xi, p.gather_hi, take_hi),
            lambda: _rowdot_rows(hi, Xi, p.gather_lo, take_lo),
        )
        a, b = on_threads(halves, p.m >= THREADED_PAIRS_FROM)
        dz = np.empty(p.m)
        dz[p.gather] = a + b
        return dz

    def hessian(self, x: _At, xi: np.ndarray) -> np.ndarray:
        """The Riemannian Hessian along the tangent ξ ((n+1)×r): P_x([∇²φ[Ξ]; 0]) − ⟨x, g⟩ξ,
        with ∇²φ[Ξ] = 2a·(LΞ + P(β̃)Ξ + P(δβ̃)V): one product with L, two with the pairs.
        The result is a scratch array of the round (:meth:`work`), valid until the next call."""
        p = self.prob
        self.hessians += 1
        Xi = xi[:-1]
        dz = self.pair_derivative(x, Xi)
        H = self.work("hessian", xi.shape, xi.dtype)
        H[-1] = 0
        E = H[:-1]
        T = self.work("pairs_product", Xi.shape, Xi.dtype)
        p.times_L(Xi, E)
        p.set_multipliers(x.bt)
        E += p.times_pairs(Xi, T)
        p.set_multipliers(x.slope * dz)
        E += p.times_pairs(x.X, T)
        E *= 2.0 * p.a
        _axpy(-x.gx, xi, H)
        return _tangent(x, H)


def _rounding(x: _At, dtype) -> float:
    """How far φ can move when the trial point is rounded to the iterate's precision:
    eps·Σ|G|·|X| ≤ eps·‖G‖·‖X‖, twice (the point and the trial; the norms, not the
    entries, so that no n×r temporary is made).  The ratio test's regularisation takes it:
    in float32 a step whose predicted decrease lies below it was judged by rounding, and
    every such rejection cut the radius by 4 (n = 3,000: 1e-8 predicted, −1e-9 measured at
    φ ≈ 0.28; docs/npkl.md §7, fourteenth pass)."""
    eps = float(np.finfo(dtype).eps)
    if eps <= np.finfo(np.float64).eps:
        return 0.0
    return 2.0 * eps * math.sqrt(_dot(x.G, x.G) * _dot(x.X, x.X))


def _rowdot_rows(
    rows: np.ndarray, Xi: np.ndarray, other: np.ndarray, buf: np.ndarray | None = None
) -> np.ndarray:
    """⟨rows_p, Ξ_{other_p}⟩ per pair (Ξ's rows gathered, into ``buf`` when given),
    accumulated in double."""
    return np.einsum("ij,ij->i", rows, gather_rows(Xi, other, buf), dtype=np.float64)


# ----- tangent vectors: (n+1)×r arrays, in place ---------------------------------------
def _axpy(alpha: float, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """v += α·u in place (BLAS axpy, no temporary)."""
    axpy = get_blas_funcs("axpy", (u, v))
    axpy(u.ravel(), v.ravel(), a=alpha)
    return v


def _tangent(x: _At, u: np.ndarray) -> np.ndarray:
    """P_x(u) = u − ⟨u, x⟩x, in place."""
    return _axpy(-_dot(u, x.Z), x.Z, u)


def _to_boundary(ee: float, ed: float, dd: float, delta: float) -> float:
    """τ ≥ 0 with ‖η + τd‖ = Δ, from ⟨η, η⟩, ⟨η, d⟩ and ⟨d, d⟩."""
    return (-ed + math.sqrt(max(ed * ed + dd * (delta * delta - ee), 0.0))) / max(dd, 1e-300)


def truncated_cg(nt: _Newton, x: _At, grad: np.ndarray, delta: float, max_iter: int):
    """Steihaug–Toint: an approximate minimiser η of the model ⟨g, η⟩ + ½⟨η, Hη⟩ within
    ‖η‖ ≤ Δ, with at most ``max_iter`` Hessian products (0: the steepest step to the
    boundary); returns (η, the model's decrease, whether η reached the boundary)."""
    rr = _dot(grad, grad)
    r0 = math.sqrt(rr)
    if max_iter == 0:  # the budget's last iteration: a gradient step to the boundary, the
        # model linear (no Hessian product left)
        return grad * (-delta / max(r0, 1e-300)), delta * r0, True
    eta = nt.work(f"z{1 - x.slot}", grad.shape, grad.dtype)  # returned: the trial point,
    eta.fill(0)  # in the point buffer that the current point does not hold
    Heta, r, d = (nt.work(k, grad.shape, grad.dtype) for k in ("cg_Heta", "cg_r", "cg_d"))
    Heta.fill(0)
    np.copyto(r, grad)
    np.negative(r, out=d)
    boundary = False
    for _ in range(max_iter):
        Hd = nt.hessian(x, d)
        dHd = _dot(d, Hd)
        alpha = rr / dHd if dHd > 0 else math.inf
        ee, ed, dd = _dot(eta, eta), _dot(eta, d), _dot(d, d)
        if dHd <= 0 or ee + 2 * alpha * ed + alpha * alpha * dd >= delta * delta:
            tau = _to_boundary(ee, ed, dd, delta)
            _axpy(tau, d, eta)
            _axpy(tau, Hd, Heta)
            boundary = True
            break
        _axpy(alpha, d, eta)
        _axpy(alpha, Hd, Heta)
        _tangent(x, _axpy(alpha, Hd, r))  # re-projected against drift
        rr_new = _dot(r, r)
        if math.sqrt(rr_new) <= r0 * min(r0**CG_THETA, CG_KAPPA):
            break
        d *= rr_new / rr
        d -= r
        rr = rr_new
    decrease = -(_dot(grad, eta) + 0.5 * _dot(eta, Heta))
    return eta, decrease, boundary


def _frobenius_step(nt: _Newton, x: _At, grad: np.ndarray, delta: float, max_iter: int):
    """:func:`truncated_cg` with its step's Frobenius length (``newton``'s default step)."""
    eta, model, boundary = truncated_cg(nt, x, grad, delta, max_iter)
    return eta, model, boundary, math.sqrt(_dot(eta, eta))


def newton(
    prob: ScaledNPKL,
    pt: Point,
    beta: np.ndarray,
    rho: float,
    delta: float,
    max_steps: int,
    tol: float,
    deadline: float | None = None,
    budget: int | None = None,
    step=None,
    keep_scratch: bool = False,
    retry=None,
    stop=None,
    cg_max: int | None = None,
) -> tuple[Point, float, dict]:
    """Trust-region steps from ``pt`` (module docstring): at most ``max_steps``, until the
    Riemannian gradient's norm is ≤ ``tol``, a step rejected within the rounding allowance,
    the deadline or ``budget`` iterations (steps and Hessian products, as the solver's
    ``max_iter``); Δ is carried between calls.  Returns (the last point, Δ, counts).
    ``step(nt, x, grad, Δ, max_iter)`` → (η, the model's decrease, whether η reached the
    boundary, η's length in the region's norm): :func:`truncated_cg` in the Frobenius ball
    by default; the #30 prototypes' (benchmarks/npkl_*_proto.py) give other regions, and
    ``retry(nt, x, known, model)``, called where the ratio test would shrink Δ (``known``:
    the trial's φ, L·X, w): True when it changed ``step``'s region, so Δ is tried again.
    ``keep_scratch``: the round keeps its scratch arrays (:meth:`_Newton.work`);
    ``stop(nt, x, steps)``, asked before each step but the first: True ends the round there
    (the tail's rounds, :mod:`.alm_tail`); ``cg_max``: CG iterations of a step at most
    (``CG_MAX`` when None)."""
    n, r = pt.X.shape
    if r == 0:
        return pt, delta, {"iterations": 0, "steps": 0, "hessians": 0, "accepted": 0}
    nt = _Newton(prob, beta, rho, keep_scratch)
    Z = nt.work("z0", (n + 1, r), prob.dtype)
    Z[-1] = 0
    Z[:-1] = pt.X
    Z[-1, 0] = math.sqrt(max(0.0, 1.0 - _dot(pt.X, pt.X)))
    x = nt.at(Z)  # φ again in double (the caller's is in the iterate's precision)
    steps = accepted = 0
    delta = min(delta, DELTA_MAX)
    budget = math.inf if budget is None else budget
    cg_max = CG_MAX if cg_max is None else cg_max
    rest = 0
    while steps < max_steps and (deadline is None or time.perf_counter() < deadline):
        cg_step = int(min(cg_max, budget - steps - nt.hessians - 1))
        if cg_step < 0:
            break
        grad = nt.work("gradient", Z.shape, Z.dtype)
        grad[-1] = 0
        grad[:-1] = x.G
        grad = _tangent(x, grad)
        if math.sqrt(_dot(grad, grad)) <= tol:
            # stationary: this gradient is the round's one iteration (max_iter bounds it)
            rest = 1 if steps == 0 else 0
            break
        if stop is not None and steps > 0 and stop(nt, x, steps):
            break
        steps += 1
        eta, model, boundary, length = (step or _frobenius_step)(nt, x, grad, delta, cg_step)
        eta += x.Z
        eta *= 1.0 / math.sqrt(_dot(eta, eta))  # the retraction
        trial = 1 - x.slot
        known = nt.value(eta[:-1], trial)
        reg = 1e3 * np.finfo(float).eps * max(1.0, abs(x.value)) + _rounding(x, prob.dtype)
        ratio = (x.value - known[0] + reg) / (max(model, 0.0) + reg)
        before = delta
        retried = ratio < SHRINK_BELOW and retry is not None and retry(nt, x, known, model)
        if ratio < SHRINK_BELOW and not retried:
            # below the step taken, not the radius: an interior step would come back the same
            delta = min(delta, length) / 4.0
        elif ratio > GROW_ABOVE and boundary:
            delta = min(2.0 * delta, DELTA_MAX)
        if ratio > ACCEPT and known[0] <= x.value:
            x, accepted = nt.at(eta, known, trial), accepted + 1
        elif delta == before and not retried:
            # rejected by the value alone, its decrease within the rounding allowance: the
            # same point and radius would give this step again (n = 20,000: 11 such repeats)
            break
    return Point(x.X, x.LX, x.w, x.value), delta, _counts(nt, steps, rest, accepted)


def _counts(nt: _Newton, steps: int, rest: int, accepted: int) -> dict:
    """A round's counts: iterations (Hessian products, steps and a stationary round's one
    gradient), steps, Hessian products and accepted steps."""
    iterations = nt.hessians + steps + rest
    return {"iterations": iterations, "steps": steps, "hessians": nt.hessians, "accepted": accepted}
