"""How NPKL is read from the command line (its ``add_cli_arguments`` / ``from_cli``): exactly
one of a ``--problem FILE.npz``, a ``--laplacian L.npz`` with ``--pairs pairs.csv``, or a
bundled ``--dataset`` (mutual k-NN Laplacian, pairs by the connected-components protocol);
its parameters; and the active constraint selection of seed 000 §3.2.4 as a reduction of
the problem."""

from __future__ import annotations

import argparse

import numpy as np

from ..data import DATASETS, PairwiseConstraints, load
from ..data.files import load_npz, read_laplacian_npz, read_pairs_csv
from ..errors import InvalidDataError, InvalidParameterError, check_int
from .base import add_parameter_flags, parameter_values


#: flags that shape a bundled data set's problem, with their defaults
DATASET_FLAGS = {"k": 5, "ratio": 0.7, "seed": 0, "n_points": None}


def add_arguments(p: argparse.ArgumentParser, cls) -> None:
    g = p.add_argument_group("problem input (exactly one)")
    g.add_argument("--problem", metavar="FILE.npz", help="arrays under the keys listed below")
    g.add_argument("--laplacian", metavar="L.npz", help="graph Laplacian (scipy.sparse.save_npz)")
    g.add_argument("--pairs", metavar="pairs.csv", help="constraints, header i,j,label (label ±1)")
    g.add_argument("--dataset", choices=DATASETS, help="bundled data set: mutual k-NN Laplacian, "
                   "pairs drawn by the connected-components protocol")
    g.add_argument("--k", type=int, default=None, help="with --dataset: neighbours of the k-NN graph (default 5)")
    g.add_argument("--ratio", type=float, default=None, help="with --dataset: components / n when drawing pairs (0.7)")
    g.add_argument("--seed", type=int, default=None, help="with --dataset: seed for drawing pairs and subsampling (0)")
    g.add_argument("--n-points", type=int, default=None, help="with --dataset: subsample the data set")
    add_parameter_flags(p, cls)
    g.add_argument("--active-points", type=int, default=None, metavar="K",
                   help="active constraint selection (seed 000 §3.2.4): keep only the pairs "
                        "touching the K points of smallest margin under the linear-loss kernel")


def from_cli(cls, args, fixed: dict):
    """The NPKL problem the arguments describe (``fixed``: what the registry name fixes)."""
    params = parameter_values(cls, args)
    for key, value in fixed.items():
        if params.get(key) not in (None, value):
            raise InvalidDataError(f"{args.formulation} fixes {key} = {value!r}; "
                                   f"got --{key} {params[key]}.")
        params[key] = value
    params = {k: v for k, v in params.items() if v is not None}
    sources = [s for s in ("problem", "laplacian", "dataset") if getattr(args, s)]
    if len(sources) != 1:
        raise InvalidDataError("give exactly one problem input: --problem FILE.npz, "
                               "--laplacian L.npz with --pairs pairs.csv, or --dataset NAME.")
    dataset_flags = [f"--{k.replace('_', '-')}" for k in DATASET_FLAGS if getattr(args, k) is not None]
    if dataset_flags and not args.dataset:
        raise InvalidDataError(", ".join(dataset_flags) + " appl" + ("ies" if len(dataset_flags) == 1 else "y")
                               + " to --dataset only; the given Laplacian and pairs are used as they are.")
    for k, v in DATASET_FLAGS.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    if args.problem:
        f = cls.from_npz(load_npz(args.problem), **params)
    elif args.laplacian:
        if not args.pairs:
            raise InvalidDataError("--laplacian needs --pairs pairs.csv (header i,j,label).")
        L = read_laplacian_npz(args.laplacian)
        f = cls(L=L, pairs=read_pairs_csv(args.pairs, L.shape[0]), **params)
    else:
        X, y = load(args.dataset)
        check_int(args.seed, "seed", "the data set's pairs", low=0)
        if args.n_points is not None:
            check_int(args.n_points, "n_points", args.dataset, low=2)
            if args.n_points > len(y):
                raise InvalidParameterError(f"the data set {args.dataset} has {len(y)} points; "
                                            f"got --n-points {args.n_points}.")
        if args.n_points and args.n_points < len(y):
            keep = np.random.default_rng(args.seed).choice(len(y), args.n_points, replace=False)
            X, y = X[np.sort(keep)], y[np.sort(keep)]
        pairs = PairwiseConstraints.from_labels(y, ratio=args.ratio, seed=args.seed)
        f = cls.from_points(X, pairs, k=args.k, **params)
    if args.active_points is None:
        return f
    from .active import active_subproblem
    return active_subproblem(f, args.active_points)
