"""A nonconvex quadratically constrained quadratic program (QCQP), the input of a lifting.

    min (or max)  xᵀP₀x + q₀ᵀx + r₀                  (the textbook convention: no factor 2)
    s.t.          xᵀPᵢx + qᵢᵀx + rᵢ ≤ 0              (quadratic inequalities)
                  xᵀPⱼx + qⱼᵀx + rⱼ = 0              (quadratic equalities)
                  A x = b,  G x ≤ h,  lb ≤ x ≤ ub
                  x_i ∈ {0, 1} (i ∈ binary),  x_i ∈ {−1, 1} (i ∈ spin)

Every matrix must be square and symmetric (a non-symmetric P is an error, not silently
replaced by (P + Pᵀ)/2: xᵀPx reads the same, but a P given by mistake would go unnoticed).
A binary or ±1 declaration also narrows the variable's box to [0, 1] or [−1, 1]; an empty
box (lb > ub, a binary variable whose box holds neither 0 nor 1) is an error.

``value(x)`` and ``violation(x)`` evaluate a point of the original problem: what rounding
produces and what the tightness report measures.  A quadratic written in CVXPY is read by
:func:`kernelsdp.relaxations.cvxpy_input.from_cvxpy` (``QCQP.build`` passes an expression
on to it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InvalidDataError
from .cvxpy_input import bound_vector, build_arguments

#: relative asymmetry max|P − Pᵀ| / max(1, max|P|) accepted as rounding (then symmetrised)
SYMMETRY_RTOL = 1e-10


@dataclass(frozen=True)
class Quadratic:
    """xᵀPx + qᵀx + r."""

    P: np.ndarray
    q: np.ndarray
    r: float = 0.0

    def __call__(self, x: np.ndarray) -> float:
        x = np.asarray(x, dtype=float)
        return float(x @ self.P @ x + self.q @ x + self.r)

    def gradient(self, x: np.ndarray) -> np.ndarray:
        """2Px + q."""
        return 2.0 * self.P @ np.asarray(x, dtype=float) + self.q

    @property
    def is_linear(self) -> bool:
        return not np.any(self.P)


def _square_symmetric(P, d: int | None, what: str) -> np.ndarray:
    P = np.asarray(P, dtype=float)
    if P.ndim != 2 or P.shape[0] != P.shape[1] or (d is not None and P.shape[0] != d):
        want = "square" if d is None else f"a {d}×{d}"
        raise InvalidDataError(f"{what}: P must be {want} matrix; got shape {P.shape}.")
    if not np.all(np.isfinite(P)):
        raise InvalidDataError(f"{what}: P has NaN or infinite entries.")
    asym = float(np.max(np.abs(P - P.T), initial=0.0))
    if asym > SYMMETRY_RTOL * max(1.0, float(np.max(np.abs(P), initial=0.0))):
        raise InvalidDataError(
            f"{what}: P is not symmetric (max |P - Pᵀ| = {asym:.3g}); "
            "pass (P + Pᵀ)/2, which has the same xᵀPx."
        )
    return (P + P.T) / 2


def _quadratic(P, q, r, d: int, what: str) -> Quadratic:
    P = _square_symmetric(P, d, what)
    q = np.zeros(d) if q is None else np.asarray(q, dtype=float).ravel()
    if q.shape != (d,) or not np.all(np.isfinite(q)):
        raise InvalidDataError(f"{what}: the linear term q must be {d} finite numbers.")
    r = float(r)
    if not np.isfinite(r):
        raise InvalidDataError(f"{what}: the constant r must be finite.")
    return Quadratic(P, q, r)


def _linear(M, v, d: int, what: str):
    if M is None and v is None:
        return None, None
    if M is None or v is None:
        raise InvalidDataError(f"{what}: give both the matrix and the right-hand side.")
    M = np.atleast_2d(np.asarray(M, dtype=float))
    v = np.asarray(v, dtype=float).ravel()
    if M.ndim != 2 or M.shape[1] != d or v.shape != (M.shape[0],):
        raise InvalidDataError(
            f"{what}: expected a (k, {d}) matrix and k right-hand sides; "
            f"got {M.shape} and {v.shape}."
        )
    if not (np.all(np.isfinite(M)) and np.all(np.isfinite(v))):
        raise InvalidDataError(f"{what}: NaN or infinite entries.")
    return M, v


def _indices(v, d: int, what: str) -> np.ndarray:
    """True → all, None/False → none, else indices (or a 0/1 mask of length d)."""
    if v is None or v is False:
        return np.zeros(0, dtype=int)
    if v is True:
        return np.arange(d)
    a = np.asarray(v).ravel()
    if a.dtype == bool:
        if a.size != d:
            raise InvalidDataError(f"{what}: a mask must have {d} entries; got {a.size}.")
        return np.flatnonzero(a)
    if a.size and (not np.all(np.equal(np.mod(a, 1), 0)) or a.min() < 0 or a.max() >= d):
        raise InvalidDataError(f"{what}: indices must be integers in 0..{d - 1}.")
    return np.unique(a.astype(int))


def _declared_box(lb, ub, binary, spin):
    """Narrow the box by the declarations; refuse an empty one."""
    if np.intersect1d(binary, spin).size:
        raise InvalidDataError(
            f"a variable is declared both binary and ±1: {np.intersect1d(binary, spin).tolist()}."
        )
    for idx, (lo, hi), kind in ((binary, (0.0, 1.0), "binary"), (spin, (-1.0, 1.0), "±1")):
        for i in idx:
            if not (lb[i] <= lo <= ub[i] or lb[i] <= hi <= ub[i]):
                raise InvalidDataError(
                    f"empty box: x[{i}] is {kind} but its bounds "
                    f"[{lb[i]:g}, {ub[i]:g}] hold neither {lo:g} nor {hi:g}."
                )
            lb[i], ub[i] = max(lb[i], lo), min(ub[i], hi)
    bad = np.flatnonzero((lb > ub) | (lb == np.inf) | (ub == -np.inf))
    if bad.size:
        i = int(bad[0])
        raise InvalidDataError(
            f"empty box: lb[{i}] = {lb[i]:g} > ub[{i}] = {ub[i]:g}"
            + (f" ({bad.size} variables in all)" if bad.size > 1 else "")
            + "."
        )
    return lb, ub


@dataclass
class QCQP:
    objective: Quadratic
    inequalities: list[Quadratic] = field(default_factory=list)
    equalities: list[Quadratic] = field(default_factory=list)
    A: np.ndarray | None = None
    b: np.ndarray | None = None
    G: np.ndarray | None = None
    h: np.ndarray | None = None
    lb: np.ndarray | None = None
    ub: np.ndarray | None = None
    binary: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    spin: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    maximize: bool = False
    #: derived data computed once (the LP-implied box of :mod:`.boundedness`)
    cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        d = self.d
        self.lb = np.full(d, -np.inf) if self.lb is None else self.lb
        self.ub = np.full(d, np.inf) if self.ub is None else self.ub

    @property
    def d(self) -> int:
        return int(self.objective.P.shape[0])

    @property
    def sense(self) -> float:
        """+1 for a minimisation, −1 for a maximisation."""
        return -1.0 if self.maximize else 1.0

    @property
    def nonneg(self) -> bool:
        """x ≥ 0 holds for every variable (lb ≥ 0)."""
        return bool(np.all(self.lb >= 0))

    @property
    def integer(self) -> np.ndarray:
        """Indices declared binary or ±1."""
        return np.union1d(self.binary, self.spin).astype(int)

    @classmethod
    def build(
        cls,
        P,
        q=None,
        r=0.0,
        *,
        inequalities=(),
        equalities=(),
        A=None,
        b=None,
        G=None,
        h=None,
        lb=None,
        ub=None,
        binary=None,
        spin=None,
        nonneg=False,
        maximize=False,
        constraints=(),
    ) -> QCQP:
        """Validate the data of min (max) xᵀPx + qᵀx + r; quadratic constraints are (P, q, r)
        triples meaning xᵀPx + qᵀx + r ≤ 0 (= 0); ``lb``/``ub`` are numbers or vectors;
        ``binary``/``spin`` are True (every variable) or indices; ``nonneg=True`` is lb = 0.
        ``P`` may instead be a CVXPY expression in one vector variable, with ``constraints``
        CVXPY constraints in the same variable (:func:`.cvxpy_input.from_cvxpy`)."""
        import cvxpy as cp

        keywords = {
            "inequalities": inequalities,
            "equalities": equalities,
            "A": A,
            "b": b,
            "G": G,
            "h": h,
            "lb": lb,
            "ub": ub,
            "binary": binary,
            "spin": spin,
            "nonneg": nonneg,
        }
        if isinstance(P, cp.Expression):
            if q is not None or r != 0.0:
                raise InvalidDataError(
                    "a CVXPY objective carries its own linear and constant "
                    "terms: do not pass q or r with it."
                )
            return cls.build(**build_arguments(P, constraints, maximize=maximize, **keywords))
        if constraints:
            raise InvalidDataError(
                "constraints= takes CVXPY constraints, with a CVXPY "
                "objective; with matrices use A, b, G, h, inequalities."
            )
        P0 = _square_symmetric(P, None, "objective")
        d = P0.shape[0]
        if d < 1:
            raise InvalidDataError("the objective matrix must be at least 1×1.")
        lb = bound_vector(lb, d, -np.inf, "lb")
        if nonneg:
            lb = np.maximum(lb, 0.0)
        ub = bound_vector(ub, d, np.inf, "ub")
        binary, spin = _indices(binary, d, "binary"), _indices(spin, d, "spin")
        lb, ub = _declared_box(lb, ub, binary, spin)
        A, b = _linear(A, b, d, "A x = b")
        G, h = _linear(G, h, d, "G x <= h")
        return cls(
            _quadratic(P0, q, r, d, "objective"),
            [_quadratic(*c, d, f"inequality {k}") for k, c in enumerate(inequalities)],
            [_quadratic(*c, d, f"equality {k}") for k, c in enumerate(equalities)],
            A,
            b,
            G,
            h,
            lb,
            ub,
            binary,
            spin,
            bool(maximize),
        )

    # ----- points ---------------------------------------------------------------------------
    def value(self, x: np.ndarray) -> float:
        return self.objective(np.asarray(x, dtype=float))

    def better(self, a: float, b: float) -> bool:
        """a is strictly better than b in this problem's sense."""
        return a < b if not self.maximize else a > b

    def violations(self, x: np.ndarray) -> dict[str, float]:
        """The largest violation of each kind of constraint at x (0 when satisfied)."""
        x = np.asarray(x, dtype=float)
        out = {
            "quadratic_inequalities": max([max(0.0, c(x)) for c in self.inequalities], default=0.0),
            "quadratic_equalities": max([abs(c(x)) for c in self.equalities], default=0.0),
            "bounds": float(
                max(np.max(self.lb - x, initial=0.0), np.max(x - self.ub, initial=0.0))
            ),
            "binary": float(np.max(np.abs(x[self.binary] * (1 - x[self.binary])), initial=0.0)),
            "spin": float(np.max(np.abs(x[self.spin] ** 2 - 1), initial=0.0)),
        }
        if self.A is not None:
            out["linear_equalities"] = float(np.max(np.abs(self.A @ x - self.b)))
        if self.G is not None:
            out["linear_inequalities"] = float(np.max(np.maximum(self.G @ x - self.h, 0.0)))
        return out

    def violation(self, x: np.ndarray) -> float:
        """Largest constraint violation of x (0 when feasible)."""
        return max(self.violations(x).values())

    # ----- linear rows, homogenised -----------------------------------------------------------
    def linear_rows(self) -> tuple[np.ndarray, list[str]]:
        """(C, labels): every linear inequality as a row c with cᵀ[1; x] ≥ 0 — the rows of
        G x ≤ h (h − Gx ≥ 0), then each finite bound (x_i − lb_i ≥ 0, ub_i − x_i ≥ 0)."""
        d = self.d
        rows, labels = [], []
        if self.G is not None:
            rows.append(np.column_stack([self.h, -self.G]))
            labels += [f"G[{k}]" for k in range(self.G.shape[0])]
        for side, v, sign in (("lb", self.lb, 1.0), ("ub", self.ub, -1.0)):
            idx = np.flatnonzero(np.isfinite(v))
            R = np.zeros((idx.size, d + 1))
            R[:, 0] = -sign * v[idx]
            R[np.arange(idx.size), idx + 1] = sign
            rows.append(R)
            labels += [f"{side}[{i}]" for i in idx]
        return (np.vstack(rows) if rows else np.zeros((0, d + 1))), labels

    def equality_rows(self) -> np.ndarray:
        """E with E[1; x] = 0 ⇔ A x = b (E = [−b, A]); (0, d + 1) when there is none."""
        if self.A is None:
            return np.zeros((0, self.d + 1))
        return np.column_stack([-self.b, self.A])

    def describe(self) -> dict:
        return {
            "d": self.d,
            "maximize": self.maximize,
            "quadratic_inequalities": len(self.inequalities),
            "quadratic_equalities": len(self.equalities),
            "linear_equalities": 0 if self.A is None else int(self.A.shape[0]),
            "linear_inequalities": 0 if self.G is None else int(self.G.shape[0]),
            "finite_bounds": int(np.isfinite(self.lb).sum() + np.isfinite(self.ub).sum()),
            "binary": int(self.binary.size),
            "spin": int(self.spin.size),
        }


def from_cvxpy(objective, constraints=(), *, maximize: bool = False, **keywords) -> QCQP:
    """The QCQP of a CVXPY objective and CVXPY constraints (:func:`.cvxpy_input.build_arguments`);
    ``keywords`` are those of :meth:`QCQP.build`."""
    return QCQP.build(**build_arguments(objective, constraints, maximize=maximize, **keywords))
