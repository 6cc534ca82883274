"""Issue #30's sixteenth pass, a timeboxed prototype: the hub blocks that the eleventh to
fifteenth passes pointed to, and a local multiplier step, measured beside the plain
``low-rank-alm`` on ``npkl_scale.py``'s instance (two Gaussians, mutual 5-NN graph,
m = 1.2n, hinge, C = 1, tr K ≤ B = n).

**Hub blocks** (``hub-blocks``).  The kernel is held as K = B·(VVᵀ + Σ_h P_h W_h P_hᵀ):
a check whose vertex is localised (fewer than ``LOCALISED`` nodes, below V's level) and
whose top node no block covers opens a block on that node's ``HOPS``-hop neighbourhood N_h
in M(β)'s pattern, with W_h = 0, instead of the Frank–Wolfe step into V.  Before each round
of the solver's inner steps, a *block phase* minimises the augmented Lagrangian over
(u, W) with V's direction fixed,

    K(u, W) = B·(u·V₀V₀ᵀ + Σ_h P_h W_h P_hᵀ),  u ≥ 0,  W_h ⪰ 0,  u‖V₀‖² + Σ tr W_h ≤ 1,

which is convex (linear in u and W): projected gradient with backtracking in the metric
ℓ_u·du² + ℓ_W·‖dW‖² (:func:`project_blocks`: each W_h's eigenvalues and u onto the
capped set, one multiplier found by bisection), at most ``BLOCK_ITERATIONS`` iterations.
Its work is O(m) and the blocks' small eigendecompositions, no n×s product.  Between
block phases the solver's own steps run on Ṽ = V/√(1 − τ) (τ = Σ tr W_h) with the blocks'
pair values as a fixed offset: the scaled problem's B and a become B(1 − τ) and B(1 − τ)/s.
The check's primal, dual estimate and Frank–Wolfe gap gain the blocks' terms, and the
labelled interval is computed at the folded factor [√B(1−τ)·Ṽ, √B·P_h Q_h Λ_h^½] (K
itself): every row is certified from scratch as ``low-rank-alm`` is.  ``hub-blocks+fw``
opens the block and takes the solver's Frank–Wolfe step as well.

**Local multiplier step** (``local-update``).  After the Frank–Wolfe step of a localised
check, the multipliers of the pairs with an end on the vertex's support (its entries above
``LOCAL_RTOL`` of the largest) take their prox value β̃ at the new point — the method of
multipliers' update on those pairs only.  Any β̃ is in dom h*, so the certificate is
untouched.

    python benchmarks/npkl_hub_blocks_proto.py --quick          # n = 3,000 only
    python benchmarks/npkl_hub_blocks_proto.py --sizes 3000 20000 100000 --seeds 0 1 2

Measured (docs/measurements.md, "Sixteenth pass"): the blocks fill during the localised
phase (τ up to 0.03 at 3,000) and are empty again by the tail at every size and seed —
the pockets come from the multipliers' path, not from the optimum.  ``hub-blocks`` doubled
the products at 20,000 (4,995 against 2,546 at seed 0: 60 blocks from 62 localised
checks); ``hub-blocks+fw`` stayed within the seeds' spread at 3,000 and 20,000;
``local-update`` was 7–12 % cheaper there and 4–7 % dearer at 100,000 (3,591 against
3,467 and 3,331 against 3,100 at seeds 0 and 1).  Not adopted.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np
from npkl_polish_proto import (
    checked_methods,
    installed_row,
    run_over_seeds,
    seeds_arguments,
)

import kernelsdp.solvers.alm_outer as alm_outer
from kernelsdp.solvers.alm_blocks import pairs_inside
from kernelsdp.solvers.alm_certificate import interval
from kernelsdp.solvers.alm_inner import Point, _dot, evaluate, participation
from kernelsdp.solvers.low_rank_alm import LOCALISED  # a vertex on fewer nodes is localised

METHODS = ("low-rank-alm", "hub-blocks", "hub-blocks+fw", "local-update")
#: a block's nodes: this many steps around its hub in M(β)'s pattern
HOPS = 2
#: projected-gradient iterations of one block phase, and its relative stopping change
BLOCK_ITERATIONS = 20
BLOCK_RTOL = 1e-10
#: a vertex's support for ``local-update``: its entries above this share of the largest
LOCAL_RTOL = 1e-2


class HubBlocks:
    """The blocks W_h (K/B units, the scaled problem's order) beside the factor, and the
    scaled problem's view of them: its pair entries gain the blocks' values (an offset)."""

    def __init__(self, prob):
        self.prob, self.B = prob, prob.B
        self.N, self.W, self.L, self.sel, self.li, self.lj = [], [], [], [], [], []
        self.offset = np.zeros(prob.m)  # B·Σ_h W_h at each pair (K's units)
        self.tau = 0.0
        self.covered = np.zeros(prob.n, dtype=bool)
        self.stats = {"blocks": 0, "nodes": 0, "phases": 0, "iterations": 0, "s": 0.0}
        self.stats |= {"max_tau": 0.0, "final_tau": 0.0}
        plain = type(prob).pair_entries.__get__(prob)
        prob.pair_entries = lambda V, out=None: plain(V, out) + self.offset / prob.B

    def open(self, h: int) -> None:
        """A block W_h = 0 on h's ``HOPS``-hop neighbourhood."""
        p, M = self.prob, self.prob.M
        N = np.array([h])
        for _ in range(HOPS):
            N = np.unique(np.concatenate([M.indices[M.indptr[k] : M.indptr[k + 1]] for k in N]))
        sel, li, lj = pairs_inside(p, N)  # W is symmetric: the ends' order does not matter
        self.N.append(N)
        self.W.append(np.zeros((len(N), len(N))))
        self.L.append(p.L[N][:, N].toarray().astype(np.float64))
        self.sel.append(sel)
        self.li.append(li)
        self.lj.append(lj)
        self.covered[N] = True
        self.stats["blocks"] += 1
        self.stats["nodes"] += len(N)

    def pair_values(self, Ws: list) -> np.ndarray:
        """B·Σ_h W_h at each pair."""
        c = np.zeros(self.prob.m)
        for W, sel, li, lj in zip(Ws, self.sel, self.li, self.lj):
            np.add.at(c, sel, self.B * W[li, lj])
        return c

    def gradients(self, bt: np.ndarray) -> list:
        """∂/∂W_h of the augmented Lagrangian over s: (B/s)·(L_h + Σ_p β̃_p E_p)."""
        s, out = self.prob.scale, []
        for Lh, sel, li, lj in zip(self.L, self.sel, self.li, self.lj):
            G = Lh.copy()
            np.add.at(G, (li, lj), 0.5 * bt[sel])
            np.add.at(G, (lj, li), 0.5 * bt[sel])
            out.append(G * (self.B / s))
        return out

    def set(self, Ws: list) -> None:
        """New blocks: the offset, τ, and the scaled problem's B and a for Ṽ."""
        p = self.prob
        self.W, self.offset = Ws, self.pair_values(Ws)
        self.tau = float(sum(np.trace(W) for W in Ws))
        p.B = self.B * max(1.0 - self.tau, 1e-9)
        p.a = p.B / p.scale
        self.stats["max_tau"] = max(self.stats["max_tau"], self.tau)
        self.stats["final_tau"] = self.tau

    def columns(self) -> np.ndarray:
        """Σ_h P_h W_h P_hᵀ as Z·Zᵀ (K/B units, the scaled problem's order)."""
        parts = []  # (nodes, their rows of the block's factor Q·Λ^½ on its range)
        for N, W in zip(self.N, self.W):
            mu, Q = np.linalg.eigh(W)
            keep = mu > 1e-14 * max(mu[-1], 1e-300)
            parts.append((N, Q[:, keep] * np.sqrt(mu[keep])))
        Z = np.zeros((self.prob.n, sum(F.shape[1] for _, F in parts)))
        col = 0
        for N, F in parts:
            Z[N, col : col + F.shape[1]] = F
            col += F.shape[1]
        return Z


def project_blocks(u: float, Ws: list, c0: float, lu: float, lw: float):
    """(u, W) onto u ≥ 0, W_h ⪰ 0, c0·u + Σ tr W_h ≤ 1 in the metric lu·du² + lw·‖dW‖²:
    u − θ·c0/lu and each eigenvalue − θ/lw, clipped at 0, with θ ≥ 0 the least that fits."""
    eigs = [np.linalg.eigh((W + W.T) / 2) for W in Ws]

    def at(theta: float):
        uu = max(u - theta * c0 / lu, 0.0)
        mus = [np.maximum(mu - theta / lw, 0.0) for mu, _ in eigs]
        return uu, mus, c0 * uu + sum(float(m.sum()) for m in mus)

    uu, mus, total = at(0.0)
    if total > 1.0:
        lo, hi = 0.0, 1.0
        while at(hi)[2] > 1.0:
            hi *= 2.0
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if at(mid)[2] > 1.0 else (lo, mid)
        uu, mus, total = at(hi)
    return uu, [(Q * m) @ Q.T for (_, Q), m in zip(eigs, mus)]


def block_phase(run, pt, blocks: HubBlocks):
    """Projected gradient in (u, W) at V's direction fixed (module docstring); returns the
    point Ṽ after it, in the scaled problem's new terms."""
    t0 = time.perf_counter()
    p, beta, rho, s, B = run.prob, run.beta, run.rho, run.prob.scale, blocks.B
    keep = 1.0 - blocks.tau
    X = np.asarray(pt.X, dtype=np.float64)
    w0 = pt.w - blocks.offset  # the factor's part of the pair values
    l0, c0 = keep * _dot(pt.X, pt.LX), keep * _dot(X, X)  # ⟨V₀, LV₀⟩, ‖V₀‖²

    def value(u: float, Ws: list):
        env, bt = p.envelope(u * w0 + blocks.pair_values(Ws), beta, rho)
        lap = u * l0 + sum(float(np.sum(Lh * W)) for Lh, W in zip(blocks.L, Ws))
        return B * lap / s + env / s, bt

    u, Ws = 1.0, [W.copy() for W in blocks.W]
    f, bt = value(u, Ws)
    lu = max(rho * float(w0 @ w0) / s, 1e-12) / 8  # the envelope's curvature is at most ρ
    lw = rho * B * B / (2 * s) / 8
    it = 0
    while it < BLOCK_ITERATIONS:
        it += 1
        gu, gW = (B * l0 + float(bt @ w0)) / s, blocks.gradients(bt)
        lu, lw = 0.9 * lu, 0.9 * lw
        for _ in range(40):
            un, Wn = project_blocks(u - gu / lu, [W - g / lw for W, g in zip(Ws, gW)], c0, lu, lw)
            dW = [a - b for a, b in zip(Wn, Ws)]
            fn, btn = value(un, Wn)
            lin = gu * (un - u) + sum(float(np.sum(g * d)) for g, d in zip(gW, dW))
            quad = 0.5 * (lu * (un - u) ** 2 + lw * sum(float(np.sum(d * d)) for d in dW))
            if fn <= f + lin + quad + 1e-12 * abs(f):
                break
            lu, lw = 2 * lu, 2 * lw
        done = abs(fn - f) <= BLOCK_RTOL * abs(f)
        u, Ws, f, bt = un, Wn, fn, btn
        if done:
            break
    blocks.set(Ws)
    scale = math.sqrt(u * keep / max(1.0 - blocks.tau, 1e-9))  # Ṽ = √u·V₀/√(1 − τ)
    blocks.stats["phases"] += 1
    blocks.stats["iterations"] += it
    blocks.stats["s"] += time.perf_counter() - t0
    return evaluate(p, (X * scale).astype(p.dtype), beta, rho)


def with_blocks(chk, blocks: HubBlocks):
    """The check's primal, dual estimate and Frank–Wolfe gap with the blocks' terms
    (``blocks.prob.M`` is the check's M(β̃)): P gains B·Σ⟨L_h, W_h⟩/s, the dual's λ term
    is B·min(λ, 0)/s (not B(1 − τ)·…), and the FW gap ⟨M, K⟩/s − B·min(λ, 0)/s."""
    prob = blocks.prob
    if not blocks.N:
        return chk
    s, lam, M = prob.scale, min(chk.lam, 0.0), prob.M
    gw = sum(float(np.sum(M[N][:, N].toarray() * W)) for N, W in zip(blocks.N, blocks.W))
    lw = sum(float(np.sum(Lh * W)) for Lh, W in zip(blocks.L, blocks.W))
    chk.primal += blocks.B * lw / s
    chk.dual_estimate += (blocks.B - prob.B) / s * lam
    chk.fw_gap += blocks.B * gw / s - (blocks.B - prob.B) / s * lam
    return chk


def folded_factor(blocks: HubBlocks, X: np.ndarray) -> np.ndarray:
    """U with UUᵀ = K = B(1 − τ)·ṼṼᵀ + B·Σ_h P_h W_h P_hᵀ, in the caller's order."""
    p = blocks.prob
    return np.hstack([p.to_original(X), math.sqrt(blocks.B) * blocks.columns()[p.rank_of]])


def localised(chk) -> bool:
    return participation(chk.vertex) < LOCALISED and chk.lam < min(chk.level, 0.0)


def install_blocks(with_fw: bool, log: dict) -> None:
    """``hub-blocks`` (``with_fw``: ``hub-blocks+fw``) in this process."""
    plain_init, plain_check = alm_outer._Run.__init__, alm_outer.fw_check
    plain_step, plain_round = alm_outer.fw_step, alm_outer._inner_round
    state = {}

    def init(self, *a, **kw):
        plain_init(self, *a, **kw)
        state["blocks"] = HubBlocks(self.prob)
        log.update(state["blocks"].stats)

    def check(prob, pt, beta, rho, warm, seed):
        return with_blocks(plain_check(prob, pt, beta, rho, warm, seed), state["blocks"])

    def step(prob, pt, chk, beta, rho):
        bl = state["blocks"]
        if localised(chk):
            h = int(np.argmax(np.abs(chk.vertex)))
            if not bl.covered[h]:
                bl.open(h)
                if not with_fw:
                    return pt.X
        if not bl.N:
            return plain_step(prob, pt, chk, beta, rho)
        c = bl.offset  # the step scales V's part of K only: the blocks stay
        envelope = prob.envelope
        prob.envelope = lambda w, b, r: envelope(w + c, b, r)
        try:
            return plain_step(prob, Point(pt.X, pt.LX, pt.w - c, pt.value), chk, beta, rho)
        finally:
            del prob.envelope

    def inner_round(run, pt, tol):
        if state["blocks"].N:
            pt = block_phase(run, pt, state["blocks"])
        log.update(state["blocks"].stats)
        return plain_round(run, pt, tol)

    def interval_at(self, X, beta, lam, target, max_steps, salt=0, find_missed=False):
        o, U = self.o, folded_factor(state["blocks"], X)
        seed = o.seed + 7919 * self.checks + salt
        return interval(
            self.f,
            U,
            beta,
            lam,
            target,
            o.verify_max_n,
            o.failure_probability,
            seed,
            max_steps,
            find_missed,
        )

    alm_outer._Run.__init__, alm_outer.fw_check = init, check
    alm_outer.fw_step, alm_outer._inner_round = step, inner_round
    alm_outer._Run.interval_at = interval_at
    alm_outer._Run.certify_kept = lambda self: None  # a kept factor predates the blocks


def install_local_update(log: dict) -> None:
    """``local-update`` in this process."""
    plain_step, plain_round = alm_outer.fw_step, alm_outer._inner_round
    pending: list = []
    log.update(updates=0, pairs=0)

    def step(prob, pt, chk, beta, rho):
        X = plain_step(prob, pt, chk, beta, rho)
        if localised(chk):
            v = np.abs(chk.vertex)
            support = v > LOCAL_RTOL * v.max()
            pending.append(np.flatnonzero(support[prob.i] | support[prob.j]))
        return X

    def inner_round(run, pt, tol):
        if pending:
            sel = pending.pop()
            _, bt = run.prob.envelope(pt.w, run.beta, run.rho)
            run.beta = run.beta.copy()
            run.beta[sel] = bt[sel]
            log["updates"] += 1
            log["pairs"] += len(sel)
            pt = evaluate(run.prob, pt.X, run.beta, run.rho, pt.LX)
        return plain_round(run, pt, tol)

    alm_outer.fw_step, alm_outer._inner_round = step, inner_round


def _install(method: str, log: dict) -> None:
    if method == "local-update":
        install_local_update(log)
    else:
        install_blocks(method.endswith("+fw"), log)


def variant_row(method: str, n: int, args) -> dict:
    return installed_row(_install, method, n, args)


def main() -> int:
    ap = seeds_arguments(__doc__, METHODS)
    args = ap.parse_args()
    methods = checked_methods(ap, args, METHODS)
    run_over_seeds(__file__, args, methods, variant_row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
