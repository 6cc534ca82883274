"""Scale limits said up front: every registered solver declares what one solve holds in
memory and refuses, before allocating, a size that would not fit, with the GiB it needs."""

from __future__ import annotations

import tracemalloc
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp

from kernelsdp.data import PairwiseConstraints
from kernelsdp.errors import InvalidParameterError, TooLargeError
from kernelsdp.formulations import LMTL, MWCTLA, NCTLA, NPKL, SpectralMetric, StQP
from kernelsdp.limits import GIB, memory_limit
from kernelsdp.solvers import registry, solve
from kernelsdp.solvers.base import peak_bytes
from kernelsdp.verify import verify

N = 1000  # big enough that the dense steps of the NPKL solvers need tens of MB


def _npkl(loss, capacity, n=N):
    pairs = PairwiseConstraints.from_arrays([[0, 1], [2, 3], [1, 2]], [1, -1, 1], n)
    return NPKL(L=sp.identity(n, format="csr"), pairs=pairs, loss=loss, capacity=capacity, B=2.0)


def instances():
    """One accepted instance per (family, solver) of the registry."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    Q = rng.standard_normal((12, 12))
    return [
        _npkl("l2", "trace"),
        _npkl("linear", "frobenius"),
        _npkl("linear", "trace"),
        _npkl("squared-hinge", "frobenius"),
        StQP(Q + Q.T),
        SpectralMetric(d=np.array([1.0, 2.0, 4.0]), c=7.0),
        MWCTLA.from_data(X, y, J=4),
        NCTLA.from_data(X[:20], y[:20], J=3),
        LMTL.from_data(X[:20], y[:20], J=3),
    ]


def cases():
    out, seen = [], set()
    table = registry()
    for f in instances():
        for s in table[type(f)]:
            key = (s.name, type(f), getattr(f, "loss", None), getattr(f, "capacity", None))
            if s.supports(f) is None and key not in seen:
                seen.add(key)
                out.append(
                    pytest.param(
                        s,
                        f,
                        id=f"{f.name}-{getattr(f, 'loss', '')}-"
                        f"{getattr(f, 'capacity', '')}-{s.name}",
                    )
                )
    return out


def test_every_registered_solver_is_covered():
    covered = {(type(c.values[0]).__name__, c.values[0].name) for c in cases()}
    for cls, solvers in registry().items():
        for s in solvers:
            if cls.__name__ in ("NPKL", "StQP", "SpectralMetric", "MWCTLA", "NCTLA", "LMTL"):
                assert (type(s).__name__, s.name) in covered, s


@pytest.mark.parametrize("s, f", cases())
def test_every_solver_declares_its_memory_and_refuses_before_allocating(s, f, monkeypatch):
    if not s.availability()[0]:
        pytest.skip(f"{s.name} is not installed")
    o = s.options()
    need = peak_bytes(s, f, o)
    assert isinstance(need, int) and need > 0
    # a machine whose memory is half of what this solve needs
    monkeypatch.setenv("KERNELSDP_MEMORY_GIB", repr(need / 2 / GIB))
    tracemalloc.start()
    try:
        with pytest.raises(TooLargeError, match=f"about {need / GIB:.1f} GiB") as info:
            s.solve(f)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert s.name in str(info.value) and "\n" not in str(info.value)
    assert peak < max(need / 4, 200_000)  # refused before the solve's own arrays existed
    monkeypatch.setenv("KERNELSDP_MEMORY_GIB", repr(2 * need / GIB))  # and fits with room
    if need < 2**20:
        assert s.solve(f).solver == s.name


def _stub(n, m, nnz):
    """Only the sizes the formulas read: an NPKL at n far beyond this machine."""
    return SimpleNamespace(
        n=n,
        name="npkl",
        capacity="frobenius",
        pairs=SimpleNamespace(m=m),
        L=SimpleNamespace(nnz=nnz),
    )


@pytest.mark.parametrize(
    "name, options, gib_at_least",
    [
        ("admm", {}, 100),  # n = 10⁹: the factor alone is 8·6rn bytes
        ("npkl-closed-form", {"eig_method": "dense"}, 100),  # dense eigh of n×n: never tried
        ("saddle-point", {"eig_method": "dense"}, 100),
        ("clarabel", {}, 100),
    ],
)
def test_sizes_beyond_this_machine_are_refused_with_their_gib(name, options, gib_at_least):
    from kernelsdp.solvers import get_solver
    from kernelsdp.solvers.base import refuse_if_too_large

    s = get_solver(NPKL, name)
    n = 10**9 if name == "admm" else 200_000
    f = _stub(n, int(1.2 * n), 6 * n)
    f.psd_dim = n
    need = peak_bytes(s, f, s.options(**options))
    assert need > gib_at_least * GIB > memory_limit()
    with pytest.raises(TooLargeError, match=r"GiB .*limit"):
        refuse_if_too_large(s, f, s.options(**options))


def test_verify_and_a_fabricated_limit_go_through_the_same_check(monkeypatch):
    f = _npkl("l2", "trace", n=400)
    monkeypatch.setenv("KERNELSDP_MEMORY_GIB", "1e-6")
    with pytest.raises(TooLargeError, match="admm would need"):
        verify(f, ["admm"])
    monkeypatch.setenv("KERNELSDP_MEMORY_GIB", "lots")
    with pytest.raises(InvalidParameterError, match="KERNELSDP_MEMORY_GIB"):
        solve(f, "admm")


def test_positive_part_estimate_holds_the_dense_switch():
    """n = 3,000 > DENSE_ALWAYS_N: the closed form's positive part is large, so after one
    ARPACK block positive_eigenpairs goes dense (measured 146 MB peak).  The estimate the
    memory check refuses by must hold that peak, not only the first block's few MB."""
    from conftest import traced_peak, two_class_npkl

    from kernelsdp.linalg.positive_part import DENSE_ALWAYS_N, PROBE_BLOCK
    from kernelsdp.solvers import get_solver

    n = 3000
    assert n > DENSE_ALWAYS_N
    f = two_class_npkl(n, 2.5, "linear", "frobenius", C=1.0, B=1.0)
    s = get_solver(NPKL, "npkl-closed-form")
    r, peak = traced_peak(lambda: solve(f, "npkl-closed-form"))
    assert r.info["eigen_method"] == "dense"
    assert 8 * n * 2 * (2 * PROBE_BLOCK + 1) < peak <= s.memory_bytes(f, s.options())


def test_trace_closed_form_estimate_holds_its_peak():
    """The trace capacity's closed form holds M = L − C·T and one Lanczos basis; n = 3,000."""
    from conftest import traced_peak, two_class_npkl

    from kernelsdp.solvers import get_solver

    f = two_class_npkl(3000, 1.2, "linear", "trace", C=1.0, B=3000.0)
    s = get_solver(NPKL, "npkl-closed-form")
    r, peak = traced_peak(lambda: solve(f, "npkl-closed-form"))
    assert r.info["eigen_method"] == "arpack"
    assert peak <= s.memory_bytes(f, s.options()), (peak, s.memory_bytes(f, s.options()))


def test_the_limit_is_at_most_the_process_address_space(monkeypatch):
    """A process capped by RLIMIT_AS (ulimit -v) plans against the cap, not the machine's
    memory: a 10⁶ NPKL run under a 14.1 GiB cap passed its pre-check at 17.7 GiB against
    23.5 GiB and died of a MemoryError mid-solve."""
    import resource

    from kernelsdp import limits

    monkeypatch.delenv(limits.MEMORY_ENV, raising=False)
    monkeypatch.setattr(limits, "physical_memory", lambda: 64 * GIB)
    monkeypatch.setattr(resource, "getrlimit", lambda _: (3 * GIB, resource.RLIM_INFINITY))
    assert memory_limit() == 3 * GIB
    assert memory_limit(2 * GIB) == 2 * GIB
    monkeypatch.setenv(limits.MEMORY_ENV, "1.5")
    assert memory_limit() == int(1.5 * GIB)
    monkeypatch.setattr(resource, "getrlimit", lambda _: (resource.RLIM_INFINITY,) * 2)
    monkeypatch.delenv(limits.MEMORY_ENV)
    assert memory_limit() == 64 * GIB
