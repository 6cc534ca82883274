"""NPKL's proof pieces at sizes where an n² count would not fit (kernelsdp/formulations/
npkl_proof.py; the issue-30 benchmark found the certificate asking for 74.3 GiB at n = 10⁵)."""

from __future__ import annotations

import tracemalloc
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp

from kernelsdp.data.pairs import PairwiseConstraints
from kernelsdp.formulations.npkl_proof import assembly_error
from kernelsdp.linalg.rounding import gamma


def test_assembly_error_counts_pairs_per_entry_in_memory_linear_in_n_and_m():
    """At n = 10⁶ the most pairs on one entry of M(β) is counted from the m pairs' keys: the
    peak is a few arrays of length n (the sparse matrices' row pointers), never n² keys, and
    a pair listed three times on one entry gives the rounding factor γ(2 + 3)."""
    n = 1_000_000
    rng = np.random.default_rng(0)
    i = rng.integers(0, n // 2, 997)
    P = np.column_stack([np.r_[i, 7, 7, 7], np.r_[i + n // 2, 9, 9, 9]])
    pairs = PairwiseConstraints(n, P[:, 0], P[:, 1], np.ones(len(P)))
    f = SimpleNamespace(n=n, pairs=pairs, L=sp.identity(n, format="csr"))
    beta = np.ones(len(P))
    tracemalloc.start()
    E = assembly_error(f, beta)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= 64 * n  # measured 36 bytes an index; the old n² count asked for 3.6 TiB
    assert np.isclose(E[7, 9], 1.5 * gamma(5))  # |β| / 2 on each of the 3 copies, γ(2 + 3)
    assert np.isclose(E[0, 0], gamma(5))
