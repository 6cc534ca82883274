import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelsdp.data import (
    DATASETS,
    PairwiseConstraints,
    knn_laplacian,
    load,
    mutual_knn_graph,
    normalized_laplacian,
    validate_laplacian,
)
from kernelsdp.errors import InvalidDataError, InvalidParameterError, UnknownNameError


@pytest.mark.parametrize(
    "pairs, labels, match",
    [
        ([[0, 0]], [1], "itself"),
        ([[0, 5]], [1], "out of range"),
        ([[-1, 2]], [1], "out of range"),
        ([[0, 1]], [2], "label"),
        ([[0, 1]], [0], "label"),
        ([[0, 1], [1, 0]], [1, -1], "both"),
        ([[0, np.nan]], [1], "NaN"),
        ([[0, 1]], [np.nan], "NaN"),
        ([[0, 1, 2]], [1], "shape"),
        ([[0, 1]], [1, 1], "one entry per pair"),
    ],
)
def test_bad_pairs_are_rejected(pairs, labels, match):
    with pytest.raises(InvalidDataError, match=match):
        PairwiseConstraints.from_arrays(
            np.array(pairs, dtype=float), np.array(labels, dtype=float), 5
        )


def test_pairs_are_canonical_merged_and_symmetrised():
    P = PairwiseConstraints.from_arrays([[3, 1], [1, 3], [0, 2]], [1, 1, -1], 4)
    assert P.m == 2 and list(P.i) == [0, 1] and list(P.j) == [2, 3] and list(P.t) == [-1, 1]
    T = P.matrix().toarray()
    assert np.allclose(T, T.T) and T[1, 3] == 0.5 and T[0, 2] == -0.5
    K = np.arange(16.0).reshape(4, 4)
    K = K + K.T
    assert np.isclose(np.trace(T @ K), -K[0, 2] + K[1, 3])  # each pair counted once


@given(
    st.lists(
        st.tuples(st.integers(0, 9), st.integers(0, 9), st.sampled_from([-1, 1])),
        min_size=1,
        max_size=30,
    )
)
@settings(max_examples=60, deadline=None)
def test_pair_order_and_orientation_do_not_matter(rows):
    rows = [(a, b, t) for a, b, t in rows if a != b]
    # keep one label per unordered pair so there is no contradiction
    label = {}
    for a, b, t in rows:
        label.setdefault((min(a, b), max(a, b)), t)
    rows = [(a, b, label[(min(a, b), max(a, b))]) for a, b, t in rows]
    if not rows:
        return
    arr = np.array(rows)
    P1 = PairwiseConstraints.from_arrays(arr[:, :2], arr[:, 2], 10)
    flipped = arr[::-1][:, [1, 0, 2]]
    P2 = PairwiseConstraints.from_arrays(flipped[:, :2], flipped[:, 2], 10)
    assert (P1.matrix() != P2.matrix()).nnz == 0 and P1.m == len(label)


def test_components_protocol_reaches_target():
    _, y = load("iris")
    P = PairwiseConstraints.from_labels(y, ratio=0.7, seed=3)
    import networkx as nx

    G = nx.Graph()
    G.add_nodes_from(range(len(y)))
    G.add_edges_from(zip(P.i[P.t > 0], P.j[P.t > 0]))
    assert nx.number_connected_components(G) <= int(np.ceil(0.7 * len(y)))
    assert np.all((y[P.i] == y[P.j]) == (P.t > 0))
    with pytest.raises(InvalidParameterError):
        PairwiseConstraints.from_labels(y, ratio=0)


def test_mutual_knn_laplacian_is_sparse_symmetric_and_psd():
    X, _ = load("wine")
    S = mutual_knn_graph(X, 5)
    assert sp.issparse(S) and (S != S.T).nnz == 0 and S.diagonal().sum() == 0
    assert S.sum(axis=1).max() <= 5  # mutual neighbours are a subset of the k nearest
    L = knn_laplacian(X, 5)
    w = np.linalg.eigvalsh(L.toarray())
    assert w.min() > -1e-10 and w.max() < 2 + 1e-10


def test_mutual_knn_graph_links_k_others_as_the_paper_defines():
    """Eq. 3: i ~ j iff each is among the other's k nearest *other* points.  Checked
    against distances computed here (random points: no ties); the earlier graph counted a
    point as its own neighbour and so kept only k - 1 others."""
    X = np.random.default_rng(3).standard_normal((60, 3))
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    for k in (1, 5):
        near = np.zeros_like(D, dtype=bool)
        np.put_along_axis(near, np.argsort(D, axis=1)[:, :k], True, axis=1)
        assert np.array_equal(mutual_knn_graph(X, k).toarray() > 0, near & near.T)


def test_isolated_point_gets_identity_row():
    S = sp.csr_matrix(np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]], dtype=float))
    L = normalized_laplacian(S).toarray()
    assert np.allclose(L[2], [0, 0, 1]) and np.allclose(L[:2, :2], [[1, -1], [-1, 1]])


@pytest.mark.parametrize(
    "bad, match",
    [
        (np.array([[1.0, 2.0], [0.0, 1.0]]), "symmetric"),
        (np.ones((2, 3)), "square"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), "NaN"),
    ],
)
def test_bad_laplacian(bad, match):
    with pytest.raises(InvalidDataError, match=match):
        validate_laplacian(bad)


def test_datasets_load():
    shapes = {
        "iris": (150, 4),
        "wine": (178, 13),
        "glass": (214, 9),
        "heart": (270, 13),
        "sonar": (208, 60),
        "soybean": (47, 35),
        "ionosphere": (351, 34),
        "chessboard": (100, 2),
        "double-spiral": (100, 3),
        "xor": (200, 2),
        "a1a": (1605, 123),
    }
    for name in DATASETS:
        X, y = load(name)
        assert X.shape == shapes[name] and y.shape == (X.shape[0],) and np.all(np.isfinite(X))
    with pytest.raises(UnknownNameError):
        load("protein")


def test_sample_pairs():
    _, y = load("iris")
    P = PairwiseConstraints.sample(y, 40, seed=1, must_link_only=True)
    assert P.m == 40 and np.all(P.t > 0) and np.all(y[P.i] == y[P.j])
    Q = PairwiseConstraints.sample(y, 60, seed=1)
    assert Q.m == 60 and np.all((y[Q.i] == y[Q.j]) == (Q.t > 0))
    with pytest.raises(InvalidParameterError):
        PairwiseConstraints.sample(y, 10**6)


def test_brute_force_knn_graph_is_the_k_d_tree_graph(monkeypatch):
    """Large n in 6+ dimensions searches by brute force (data.graph.mutual_knn_graph): on
    points without distance ties it must give exactly the graph of scikit-learn's default."""
    import kernelsdp.data.graph as graph

    X = np.random.default_rng(3).standard_normal((400, 8))
    tree = graph.mutual_knn_graph(X, 5)
    monkeypatch.setattr(graph, "BRUTE_FORCE_FROM_N", 100)
    brute = graph.mutual_knn_graph(X, 5)
    assert tree.nnz > 0 and (tree != brute).nnz == 0
    monkeypatch.setattr(graph, "TREE_AGAIN_FROM_N", 300)  # past it: the tree, on every core
    assert (graph.mutual_knn_graph(X, 5) != tree).nnz == 0
