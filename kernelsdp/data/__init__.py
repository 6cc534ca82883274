"""Problem data: pairwise constraints, graph Laplacians, bundled data sets."""

from .datasets import DATASETS, chessboard, double_spiral, load, xor
from .graph import knn_laplacian, mutual_knn_graph, normalized_laplacian, validate_laplacian
from .pairs import PairwiseConstraints

__all__ = [
    "DATASETS",
    "PairwiseConstraints",
    "chessboard",
    "double_spiral",
    "knn_laplacian",
    "load",
    "mutual_knn_graph",
    "normalized_laplacian",
    "validate_laplacian",
    "xor",
]
