"""Trace-bounded NPKL by Burer–Monteiro through pymanopt: the ecosystem's peer of ADMM.

    min_{K ⪰ 0, tr K ≤ B}  tr(LK) + Σ_{(i,j) ∈ Ω} h(K_ij)        (seed 000 eq. 4, trace capacity)

with K = UUᵀ, U ∈ ℝ^{n×r} (Burer & Monteiro 2003).  The inequality tr K ≤ B becomes a
manifold by one slack row: Ũ = [U; s] ∈ ℝ^{(n+1)×r} with ‖Ũ‖_F² = B, a sphere, on which
tr K = B − ‖s‖² ≤ B; every point is feasible.  The cost f(U) = tr(UᵀLU) + Σ h(⟨u_i, u_j⟩)
has the Euclidean gradient 2·M(β)U with β_ij = h'(K_ij) and M(β) = L + Σ β_ij E_ij
(zero on the slack row), and its Hessian along D is 2·M(β)D + Σ h''(K_ij)·(⟨u_i, d_j⟩ +
⟨d_i, u_j⟩)·(e_i u_jᵀ + e_j u_iᵀ); one evaluation of either costs O(r·(nnz(L) + m)).
pymanopt's Riemannian trust regions (``pymanopt.optimizers.TrustRegions`` on
``pymanopt.manifolds.Sphere``, the method Manopt recommends for Burer–Monteiro) minimises
it; nothing n×n is formed.  Measured at n = 2,000 (squared hinge): its conjugate gradient
stalled at a certified gap of 1.1e-3 after 350 iterations, trust regions certified 2e-4
in 30.

**Losses.**  The smooth ones: ℓ2 (h' = C(z − T)) and squared hinge (h' = −C·T·max(0, 1 − Tz)).
Hinge and ℓ1 are not differentiable: a smooth Riemannian method has no gradient to follow
there, so they are refused.

**Certificate.**  The same as every NPKL solver's (:meth:`NPKL.certificate`,
docs/npkl.md §3): the multipliers β_ij = h'(K_ij) of the point, the dual function
g(β) = B·min(0, λ_min(M(β))) − Σ h*(β) (λ_min by Lanczos on the sparse M, warm-started),
and λ = max(0, −λ_min) for the trace.  The run proceeds in chunks of ``check_every``
trust-region iterations and stops when
(P − g)/max(1, |P|) ≤ ``gap_tol``.  The factorisation is non-convex, but a stationary
point with a certified gap is certified: the gap bounds the distance to the optimum
whatever the landscape.  A rank r below the optimum's may stall above the tolerance
(then the status says so: slow progress or the limit reached).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import tolerances
from ..declarations import option
from ..formulations.npkl import NPKL
from ..linalg.extreme import LowestEigenpair
from ..result import KernelFactor, PointStatus, Result, Termination
from .admm.factor_steps import warm_start
from .base import Solver

#: the factor's width unless ``rank`` says otherwise.  Not Pataki's bound on m: measured on
#: Iris (n = 150, ℓ2, trace), r = 14 = Pataki stalled (Riemannian CG) at a 1.5e-3 gap (its step hit
#: its floor) where r = 48 certified 8e-4 in 50 iterations; the optimum had rank 4
RANK_DEFAULT = 48
#: chunks in a row in which neither the gap nor the objective improved before stopping as
#: "slow progress" (the gap alone is a bad signal early: measured at n = 20,000, B·λ_min
#: kept it near 1 for the first 50 iterations while the objective fell)
STALL_CHUNKS = 5


def loss_curvature(loss: str, z: np.ndarray, T: np.ndarray, C: float) -> np.ndarray:
    """h''(z) per pair for the smooth losses (squared hinge: where the hinge is active)."""
    if loss == "l2":
        return np.full_like(z, C)
    return C * (1.0 - T * z > 0)


def loss_derivative(loss: str, z: np.ndarray, T: np.ndarray, C: float) -> np.ndarray:
    """h'(z) per pair for the smooth losses (the multipliers β of the certificate)."""
    if loss == "l2":
        return C * (z - T)
    if loss == "squared-hinge":
        return -C * T * np.maximum(0.0, 1.0 - T * z)
    raise ValueError(loss)


@dataclass(frozen=True)
class BurerMonteiroOptions:
    rank: int | None = option(
        None, low=1, help=f"width r of the factor (default min(n, {RANK_DEFAULT}))"
    )
    gap_tol: float = option(
        tolerances.ADMM_GAP_TOL, low=0.0, open_low=True, help="certified relative gap to stop at"
    )
    max_iter: int = option(2_000, low=1, help="trust-region iteration limit")
    check_every: int = option(5, low=1, help="iterations between certificates")
    time_limit: float | None = option(
        None, low=0.0, open_low=True, help="wall-clock limit, seconds"
    )
    seed: int = option(0, low=0, help="seed of the starting noise")
    progress: Callable[[dict], None] | None = option(None, help="called after each certificate")


class BurerMonteiro(Solver):
    """Burer–Monteiro on the fixed-trace sphere with a slack row, by pymanopt's trust regions."""

    name = "burer-monteiro"
    kind = "iterative"
    ACCEPTS = {NPKL: {"loss": ("l2", "squared-hinge"), "capacity": ("trace",)}}
    REFUSALS = {
        ("loss", "hinge"): "not differentiable: a Riemannian gradient method needs a "
        "smooth cost (use admm)",
        ("loss", "l1"): "not differentiable (use admm)",
        ("loss", "linear"): "use npkl-closed-form or admm",
    }
    Options = BurerMonteiroOptions
    objective_tol = tolerances.ADMM_GAP_TOL
    certificate_tol = tolerances.ADMM_GAP_TOL

    def availability(self) -> tuple[bool, str]:
        try:
            import pymanopt  # noqa: F401
        except ImportError:
            return False, "not installed: pip install 'kernelsdp[peer]' (pymanopt)"
        return True, ""

    def memory_bytes(self, f: NPKL, options: BurerMonteiroOptions) -> int:
        """Twenty-four (n + 1) × r arrays (the point, L·U, the gradient, the inner conjugate
        gradient's vectors, the trial point, with pymanopt's copies of them) and ten
        m-vectors.  Measured with tracemalloc at r = 48: 22–23 arrays' worth at n = 2,000
        and 6,000 (the count of sixteen this used to take was 1.3–1.4× short)."""
        r = self._rank(f, options)
        return 8 * (24 * (f.n + 1) * r + 10 * f.pairs.m)

    @staticmethod
    def _rank(f: NPKL, o: BurerMonteiroOptions) -> int:
        return o.rank if o.rank is not None else min(f.n, RANK_DEFAULT)

    def run(self, f: NPKL, options: BurerMonteiroOptions) -> Result:
        from pymanopt.optimizers import TrustRegions

        o = options
        t0 = time.perf_counter()
        r = self._rank(f, o)
        problem = _SphereCost(f).problem(r)
        V = _start(f, r, o.seed)
        lowest = LowestEigenpair()
        history: list[dict] = []
        done, stalls, best_gap, best_primal = 0, 0, np.inf, np.inf
        termination = Termination.ITERATION_LIMIT
        while True:
            chunk = min(o.check_every, o.max_iter - done)
            left = None if o.time_limit is None else o.time_limit - (time.perf_counter() - t0)
            # no floor on the gradient or the step: the certificate decides when to stop
            optimizer = TrustRegions(
                max_iterations=chunk,
                min_gradient_norm=0.0,
                min_step_size=0.0,
                max_time=left if left is not None else np.inf,
                verbosity=0,
            )
            out = optimizer.run(problem, initial_point=V)
            V, done = out.point, done + max(int(out.iterations), 1)
            kernel, beta, lo, primal, dual, gap = _certify(f, V, lowest)
            rec = {
                "iteration": done,
                "primal": primal,
                "dual": dual,
                "relative_gap": gap,
                "time_s": time.perf_counter() - t0,
                "stop": out.stopping_criterion,
            }
            history.append(rec)
            if o.progress is not None:
                o.progress(rec)
            if gap <= o.gap_tol:
                termination = Termination.OPTIMAL
                break
            improved = gap < 0.999 * best_gap or primal < best_primal - 1e-9 * abs(best_primal)
            stalls = 0 if improved else stalls + 1
            best_gap, best_primal = min(best_gap, gap), min(best_primal, primal)
            if done >= o.max_iter:
                break
            if o.time_limit is not None and time.perf_counter() - t0 >= o.time_limit:
                termination = Termination.TIME_LIMIT
                break
            if stalls >= STALL_CHUNKS:
                termination = Termination.SLOW_PROGRESS
                break
        return Result(
            formulation=f.name,
            solver=self.name,
            termination=termination,
            point=PointStatus.FEASIBLE_POINT,
            objective=primal,
            kernel=kernel,
            duals={"beta": beta, "lam": max(0.0, -lo)},
            solve_time_s=time.perf_counter() - t0,
            iterations=done,
            history=history,
            lower_bound=dual,
            upper_bound=primal,
            info={
                "rank": r,
                "relative_gap": gap,
                "slack": float(f.B - kernel.trace()),
                "last_stop": out.stopping_criterion,
            },
        )


class _SphereCost:
    """f(U) = tr(UᵀLU) + Σ h(⟨u_i, u_j⟩) at Ũ = √B·V for V on the unit sphere of
    ℝ^{(n+1)×r}: cost, Euclidean gradient 2·M(β)U and Hessian, one pass per point (the last
    point's values are kept for the gradient and the Hessian that follow)."""

    def __init__(self, f: NPKL):
        self.f, self.n, self.P = f, f.n, f.pairs
        self.root_B = np.sqrt(f.B)
        self.L = f.L.tocsr()
        self.cache: dict = {}

    def evaluate(self, V: np.ndarray) -> tuple[float, np.ndarray]:
        """(cost, Euclidean gradient) at the unit-sphere point V, Ũ = √B·V (one pass)."""
        cache, f, n, P, root_B = self.cache, self.f, self.n, self.P, self.root_B
        if cache.get("V") is not None and np.array_equal(cache["V"], V):
            return cache["out"]
        U = root_B * V[:n]
        z = np.einsum("ij,ij->i", U[P.i], U[P.j])
        LU = self.L @ U
        beta = loss_derivative(f.loss, z, P.t, f.C)
        cost = float(np.sum(U * LU)) + float(np.sum(LOSS_VALUE[f.loss](z, P.t, f.C)))
        G = np.zeros_like(V)
        G[:n] = 2.0 * LU
        np.add.at(G, P.i, beta[:, None] * U[P.j])  # Σ β_ij E_ij U, each pair both ways
        np.add.at(G, P.j, beta[:, None] * U[P.i])
        G[:n] *= root_B
        cache.update(V=V.copy(), out=(cost, G), U=U, z=z, beta=beta)
        return cost, G

    def hessian(self, V: np.ndarray, D: np.ndarray) -> np.ndarray:
        """The Euclidean Hessian at V applied to the direction D."""
        f, n, P, root_B = self.f, self.n, self.P, self.root_B
        self.evaluate(V)
        U, z, beta = self.cache["U"], self.cache["z"], self.cache["beta"]
        Dn = root_B * D[:n]
        dz = np.einsum("ij,ij->i", U[P.i], Dn[P.j]) + np.einsum("ij,ij->i", Dn[P.i], U[P.j])
        w = loss_curvature(f.loss, z, P.t, f.C) * dz
        H = np.zeros_like(D)
        H[:n] = 2.0 * (self.L @ Dn)
        np.add.at(H, P.i, beta[:, None] * Dn[P.j] + w[:, None] * U[P.j])
        np.add.at(H, P.j, beta[:, None] * Dn[P.i] + w[:, None] * U[P.i])
        H[:n] *= root_B
        return H

    def problem(self, r: int):
        """The pymanopt problem on the sphere of ℝ^{(n+1)×r}."""
        import pymanopt
        from pymanopt.manifolds import Sphere

        manifold = Sphere(self.n + 1, r)

        @pymanopt.function.numpy(manifold)
        def cost(V):
            return self.evaluate(V)[0]

        @pymanopt.function.numpy(manifold)
        def gradient(V):
            return self.evaluate(V)[1]

        @pymanopt.function.numpy(manifold)
        def hessian(V, D):
            return self.hessian(V, D)

        return pymanopt.Problem(
            manifold, cost, euclidean_gradient=gradient, euclidean_hessian=hessian
        )


def _start(f: NPKL, r: int, seed: int) -> np.ndarray:
    """ADMM's warm start on the sphere: tr K = B, with 1 % of the trace kept for the slack
    row."""
    root_B = np.sqrt(f.B)
    X0 = warm_start(f, r, seed)  # tr K = B; keep 1 % of the trace for the slack row
    V = np.vstack([X0 * np.sqrt(0.99), np.full((1, r), np.sqrt(0.01 * f.B / r))]) / root_B
    V /= np.linalg.norm(V)
    return V


def _certify(f: NPKL, V: np.ndarray, lowest: LowestEigenpair):
    """(kernel, β, λ_min(M(β)), P(K), g(β), relative gap) at Ũ = √B·V (docs/npkl.md §3)."""
    U = np.sqrt(f.B) * V[: f.n]
    P = f.pairs
    kernel = KernelFactor(np.ascontiguousarray(U))
    z = kernel.entries(P.i, P.j)
    beta = loss_derivative(f.loss, z, P.t, f.C)
    lo = lowest(f.dual_matrix(beta))
    primal = f.objective(kernel)
    dual = f.dual_value(beta, spectrum=lo)
    return kernel, beta, lo, primal, dual, (primal - dual) / max(1.0, abs(primal))


def _value(loss):
    from ..formulations.losses import LOSSES

    return LOSSES[loss].value


LOSS_VALUE = {name: _value(name) for name in ("l2", "squared-hinge")}
