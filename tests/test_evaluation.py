import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelsdp.evaluation import kernel_kmeans, pairwise_cluster_accuracy
from kernelsdp.result import KernelFactor


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=2, max_size=25))
@settings(max_examples=50, deadline=None)
def test_pairwise_accuracy_matches_its_definition(pairs):
    a, b = np.array(pairs).T
    n = len(a)
    agree = sum((a[i] == a[j]) == (b[i] == b[j]) for i, j in itertools.combinations(range(n), 2))
    assert np.isclose(pairwise_cluster_accuracy(a, b), agree / (n * (n - 1) / 2))


def test_kernel_kmeans_recovers_blocks():
    y = np.repeat([0, 1, 2], 10)
    U = np.eye(3)[y] + 0.01 * np.random.default_rng(0).standard_normal((30, 3))
    pred = kernel_kmeans(KernelFactor(U), 3)
    assert pairwise_cluster_accuracy(y, pred) == 1.0
