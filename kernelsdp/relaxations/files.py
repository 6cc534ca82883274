"""QCQPs from files: a ``.npz`` of arrays, or the box-QP text format.

**.npz** (keys; only ``P`` is required, any other key is an error):

    P (d, d)        objective xᵀPx + qᵀx + r (symmetric)
    q (d,), r ()    its linear and constant terms
    lb, ub          bounds: a number or (d,) (±inf allowed)
    A (k, d), b (k,)     A x = b
    G (m, d), h (m,)     G x <= h
    Pi (p, d, d), qi (p, d), ri (p,)   quadratic inequalities xᵀPᵢx + qᵢᵀx + rᵢ <= 0
    Pe (s, d, d), qe (s, d), re (s,)   quadratic equalities
    binary, spin    indices of {0, 1} and of ±1 variables
    maximize ()     1 for a maximisation (default 0)

**Box-QP text** (Vandenbussche & Nemhauser 2005; Burer's BoxQP_instances): whitespace-
separated numbers, n, then the n entries of c, then the n×n entries of Q, row by row; the
problem is ½xᵀQx + cᵀx over 0 ≤ x ≤ 1 (published as a *maximisation*: pass
``maximize=True`` to reproduce the published optima).
"""

from __future__ import annotations

import os

import numpy as np

from ..errors import InvalidDataError
from .qcqp import QCQP

#: the keys of a QCQP .npz file (``kernelsdp relax --help`` prints them)
NPZ_KEYS = {
    "P": "(d, d) objective matrix, symmetric: xᵀPx + qᵀx + r (required)",
    "q": "(d,) linear term",
    "r": "() constant term",
    "lb": "() or (d,) lower bounds (-inf allowed)",
    "ub": "() or (d,) upper bounds (inf allowed)",
    "A": "(k, d)",
    "b": "(k,): A x = b",
    "G": "(m, d)",
    "h": "(m,): G x <= h",
    "Pi": "(p, d, d)",
    "qi": "(p, d)",
    "ri": "(p,): xᵀPᵢx + qᵢᵀx + rᵢ <= 0",
    "Pe": "(s, d, d)",
    "qe": "(s, d)",
    "re": "(s,): quadratic equalities",
    "binary": "indices of {0, 1} variables",
    "spin": "indices of ±1 variables",
    "maximize": "() 1 for a maximisation (default 0)",
}


def _triples(arrays, P: str, q: str, r: str, d: int) -> list[tuple]:
    if P not in arrays:
        if q in arrays or r in arrays:
            raise InvalidDataError(f"key {q!r} or {r!r} given without {P!r}.")
        return []
    Ps = np.asarray(arrays[P], dtype=float)
    if Ps.ndim == 2:
        Ps = Ps[None]
    k = Ps.shape[0]
    qs = np.asarray(arrays[q], dtype=float).reshape(k, d) if q in arrays else np.zeros((k, d))
    rs = np.asarray(arrays[r], dtype=float).reshape(k) if r in arrays else np.zeros(k)
    return list(zip(Ps, qs, rs))


def read_npz(path: str, maximize: bool | None = None) -> QCQP:
    """The QCQP of a .npz file (module docstring); ``maximize`` overrides its key."""
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError) as exc:
        raise InvalidDataError(f"{path}: not a readable .npz file ({exc}).") from None
    unknown = sorted(set(arrays) - set(NPZ_KEYS))
    if unknown or "P" not in arrays:
        raise InvalidDataError(
            f"{path}: "
            + (f"unknown keys {unknown}; " if unknown else "no key 'P'; ")
            + f"keys are {', '.join(NPZ_KEYS)}."
        )
    P = np.asarray(arrays["P"], dtype=float)
    d = P.shape[0] if P.ndim == 2 else 0
    try:
        ineq = _triples(arrays, "Pi", "qi", "ri", d)
        eq = _triples(arrays, "Pe", "qe", "re", d)
    except ValueError as exc:
        raise InvalidDataError(
            f"{path}: quadratic constraints of the wrong shape ({exc})."
        ) from None
    get = arrays.get
    sense = bool(np.asarray(get("maximize", 0)).item()) if maximize is None else maximize
    return QCQP.build(
        P,
        get("q"),
        float(np.asarray(get("r", 0.0)).item()),
        inequalities=ineq,
        equalities=eq,
        A=get("A"),
        b=get("b"),
        G=get("G"),
        h=get("h"),
        lb=get("lb"),
        ub=get("ub"),
        binary=get("binary"),
        spin=get("spin"),
        maximize=sense,
    )


def read_boxqp(path: str, maximize: bool = False) -> QCQP:
    """½xᵀQx + cᵀx over [0, 1]ⁿ from the text format "n, then c, then Q"."""
    try:
        with open(path, encoding="utf-8") as fh:
            tokens = fh.read().split()
        values = np.array([float(t) for t in tokens])
    except UnicodeDecodeError:
        raise InvalidDataError(f"{path}: not a text file.") from None
    except ValueError as exc:
        raise InvalidDataError(f"{path}: not a box-QP text file (n, c, Q): {exc}.") from None
    if values.size < 1 or values[0] != int(values[0]) or values[0] < 1:
        raise InvalidDataError(f"{path}: the first number must be the dimension n >= 1.")
    n = int(values[0])
    if values.size != 1 + n + n * n:
        raise InvalidDataError(
            f"{path}: n = {n} needs {n} entries of c and {n * n} of Q "
            f"({1 + n + n * n} numbers); found {values.size}."
        )
    c, Q = values[1 : 1 + n], values[1 + n :].reshape(n, n)
    return QCQP.build(Q / 2, c, 0.0, lb=0.0, ub=1.0, maximize=maximize)


def read_qcqp(path: str, maximize: bool | None = None) -> QCQP:
    """A .npz QCQP, else the box-QP text format; ``maximize`` as in the readers."""
    if not os.path.isfile(path):
        raise InvalidDataError(f"{path}: no such file.")
    if path.endswith(".npz"):
        return read_npz(path, maximize)
    return read_boxqp(path, bool(maximize))
