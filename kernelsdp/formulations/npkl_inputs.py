"""How an NPKL problem is given (its ``INPUTS`` and ``from_inputs``): exactly one of a
``problem`` file (``.npz``), a ``laplacian`` (``.npz``) with its ``pairs`` (CSV), or a
bundled ``dataset`` (mutual k-NN Laplacian, pairs by the connected-components protocol of
seed 000 §6.1); its parameters (the NPKL dataclass's fields); and the active constraint
selection of seed 000 §3.2.4 as a reduction of the problem.  Declarations only: the
command line and sweeps derive their flags and keys from them."""

from __future__ import annotations

from typing import Any

from ..declarations import File, Input
from .base import DATASET, N_POINTS, PROBLEM, RATIO, SEED, SOURCES, WITH_DATASET, dataset_points

LAPLACIAN = Input(
    "laplacian",
    File,
    metavar="L.npz",
    source="laplacian",
    needs=("pairs",),
    group=SOURCES,
    help="graph Laplacian (scipy.sparse.save_npz)",
)
PAIRS = Input(
    "pairs",
    File,
    metavar="pairs.csv",
    only_with="laplacian",
    group=SOURCES,
    help="constraints, header i,j,label (label ±1)",
)
K = Input(
    "k",
    int,
    default=5,
    low=1,
    only_with="dataset",
    group=WITH_DATASET,
    unit="neighbours",
    help="neighbours of the mutual k-NN graph",
)
ACTIVE_POINTS = Input(
    "active_points",
    int,
    low=1,
    unit="points",
    metavar="K",
    group="reduction",
    help="active constraint selection (seed 000 §3.2.4): keep only the pairs "
    "touching the K points of smallest margin under the linear-loss "
    "kernel",
)

INPUTS = (PROBLEM, LAPLACIAN, PAIRS, DATASET, K, RATIO, SEED, N_POINTS, ACTIVE_POINTS)


def from_inputs(cls, values: dict[str, Any]):
    """The NPKL problem that checked inputs describe (``Formulation.check_inputs``)."""
    params = cls.given_parameters(values)
    if values.get("problem") is not None:
        from ..data.files import load_npz

        f = cls.from_npz(load_npz(values["problem"]), **params)
    elif values.get("laplacian") is not None:
        from ..data.files import read_laplacian_npz, read_pairs_csv

        L = read_laplacian_npz(values["laplacian"])
        f = cls(L=L, pairs=read_pairs_csv(values["pairs"], L.shape[0]), **params)
    else:
        from ..data import PairwiseConstraints

        X, y = dataset_points(values)
        pairs = PairwiseConstraints.from_labels(y, ratio=values["ratio"], seed=values["seed"])
        f = cls.from_points(X, pairs, k=values["k"], **params)
    if values.get("active_points") is None:
        return f
    from .active import active_subproblem

    return active_subproblem(f, values["active_points"])
