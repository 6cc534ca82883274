"""How the CLI reads a problem: bundled data sets, a Laplacian with a pairs CSV, a
``--problem FILE.npz``; and how it resolves a solver name for a problem."""

from __future__ import annotations

import csv
import zipfile

import numpy as np
import scipy.sparse as sp

from ..data import PairwiseConstraints, load
from ..errors import InvalidDataError, SolverUnavailableError
from ..formulations import get_formulation
from ..formulations.npkl import NPKL
from ..solvers import prepare


def _read_pairs(path: str, n: int) -> PairwiseConstraints:
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    if not rows or [c.strip().lower() for c in rows[0]] != ["i", "j", "label"]:
        raise InvalidDataError(f"{path}: the first line must be the header 'i,j,label'.")
    try:
        data = np.array([[float(c) for c in r] for r in rows[1:] if r], dtype=float)
    except ValueError as exc:
        raise InvalidDataError(f"{path}: every row must hold three numbers ({exc}).") from None
    if data.size == 0 or data.ndim != 2 or data.shape[1] != 3:
        raise InvalidDataError(f"{path}: expected rows 'i,j,label' with three numbers each.")
    return PairwiseConstraints.from_arrays(data[:, :2], data[:, 2], n)


def _load_npz(path: str) -> dict[str, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as z:
            if not hasattr(z, "files"):
                raise InvalidDataError(f"{path}: expected a .npz archive of named arrays.")
            return {k: z[k] for k in z.files}
    except FileNotFoundError:
        raise
    except ValueError as exc:
        if "pickle" in str(exc):  # NumPy's hint would suggest allow_pickle: never here
            raise InvalidDataError(f"{path}: holds an object array; kernelsdp reads plain "
                                   "numeric arrays only and never unpickles.") from None
        raise InvalidDataError(f"{path}: not a plain .npz of arrays ({exc}).") from None
    except (OSError, zipfile.BadZipFile) as exc:
        raise InvalidDataError(f"{path}: not a plain .npz of arrays ({exc}).") from None


def build_problem(args):
    entry = get_formulation(args.formulation)
    if not issubclass(entry.cls, NPKL):
        if not args.problem:
            raise InvalidDataError(f"{args.formulation} is read from --problem FILE.npz; see "
                                   f"'kernelsdp solve {args.formulation} --help' for its keys.")
        extra = {k: getattr(args, k, None) for k in getattr(entry.cls, "CLI_OPTIONS", {})}
        return entry.cls.from_npz(_load_npz(args.problem), **extra)
    params = {"loss": args.loss, "capacity": args.capacity, "C": args.C, "B": args.B}
    for key, value in entry.fixed.items():
        if params.get(key) not in (None, value):
            raise InvalidDataError(f"{args.formulation} fixes {key} = {value!r}; "
                                   f"got --{key} {params[key]}.")
        params[key] = value
    params = {k: v for k, v in params.items() if v is not None}
    sources = [s for s in ("problem", "laplacian", "dataset") if getattr(args, s)]
    if len(sources) != 1:
        raise InvalidDataError("give exactly one problem input: --problem FILE.npz, "
                               "--laplacian L.npz with --pairs pairs.csv, or --dataset NAME.")
    if args.problem:
        return _active(entry.cls.from_npz(_load_npz(args.problem), **params), args)
    if args.laplacian:
        if not args.pairs:
            raise InvalidDataError("--laplacian needs --pairs pairs.csv (header i,j,label).")
        try:
            L = sp.load_npz(args.laplacian)
        except FileNotFoundError:
            raise
        except (ValueError, OSError, KeyError, zipfile.BadZipFile) as exc:
            raise InvalidDataError(f"{args.laplacian}: not a scipy.sparse .npz ({exc}).") from None
        if L.ndim != 2 or L.shape[0] != L.shape[1]:
            raise InvalidDataError(f"the Laplacian must be square; got shape {L.shape}.")
        return _active(entry.cls(L=L, pairs=_read_pairs(args.pairs, L.shape[0]), **params), args)
    X, y = load(args.dataset)
    if args.n_points and args.n_points < len(y):
        keep = np.random.default_rng(args.seed).choice(len(y), args.n_points, replace=False)
        X, y = X[np.sort(keep)], y[np.sort(keep)]
    pairs = PairwiseConstraints.from_labels(y, ratio=args.ratio, seed=args.seed)
    return _active(entry.cls.from_points(X, pairs, k=args.k, **params), args)


def _active(f: NPKL, args) -> NPKL:
    """Restrict to the active pairs when --active-points is given (margins from Prop. 1)."""
    if args.active_points is None:
        return f
    from dataclasses import replace

    from ..solvers.active import select_active
    from ..solvers.proposition1 import ClosedForm
    ll = ClosedForm().solve(replace(f, loss="linear", capacity="frobenius"))
    return select_active(f, ll.kernel, args.active_points)


def checked_solver(f, name: str):
    """The named solver, after the supports check (solvers.prepare) and its availability."""
    s = prepare(f, name)
    ok, reason = s.availability()
    if not ok:
        raise SolverUnavailableError(f"solver {name!r} is unavailable: {reason}")
    return s


