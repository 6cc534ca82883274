"""Row-block sparse products on threads (linalg.row_blocks): the same product as SciPy's,
blocks that see in-place value updates, one block for small matrices."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import kernelsdp.linalg.row_blocks as rb


@pytest.mark.parametrize("blocks", [2, 3, 7])
def test_blocked_product_is_the_product_and_follows_in_place_updates(monkeypatch, blocks):
    monkeypatch.setattr(rb, "PARALLEL_FROM_NNZ", 10)
    rng = np.random.default_rng(blocks)
    A = sp.random(300, 250, density=0.05, random_state=blocks, format="csr", dtype=np.float32)
    Y = rng.standard_normal((250, 6)).astype(np.float32)
    R = rb.RowBlocks(A, blocks)
    assert len(R.blocks) == blocks and R.bounds[0] == 0 and R.bounds[-1] == 300
    out = np.full((300, 6), np.nan, dtype=np.float32)
    np.testing.assert_allclose(R.matmul(Y, out), A @ Y, rtol=1e-5, atol=1e-6)
    A.data *= -3.0  # in place: every block shares these values
    np.testing.assert_allclose(R.matmul(Y, out), A @ Y, rtol=1e-5, atol=1e-6)


def test_small_matrices_stay_one_block_and_non_csr_is_refused():
    A = sp.random(50, 50, density=0.1, random_state=0, format="csr")
    assert len(rb.RowBlocks(A, 4).blocks) == 1
    with pytest.raises(TypeError):
        rb.RowBlocks(A.tocsc(), 2)


def test_a_forked_child_gets_a_working_pool(monkeypatch):
    """After fork the parent's pool has no threads in the child: the child must make its own
    (otherwise its first blocked product waits forever)."""
    import multiprocessing as mp
    import threading

    monkeypatch.setattr(rb, "PARALLEL_FROM_NNZ", 10)
    A = sp.random(200, 200, density=0.05, random_state=0, format="csr")
    Y = np.ones((200, 3))
    R = rb.RowBlocks(A, 2)
    R.matmul(Y, np.empty((200, 3)))  # the parent's pool exists now
    barrier = threading.Barrier(3)  # ... with both of its threads started and idle
    started = [rb._pool(2).submit(barrier.wait) for _ in range(2)]
    barrier.wait()
    [f.result() for f in started]
    ctx = mp.get_context("fork")
    with ctx.Pool(1) as pool:
        out = pool.apply_async(_product_in_child, (A, Y)).get(timeout=10)
    np.testing.assert_allclose(out, A @ Y)


def _product_in_child(A, Y):
    rb.PARALLEL_FROM_NNZ = 10
    return rb.RowBlocks(A, 2).matmul(Y, np.empty(Y.shape[:1] + (Y.shape[1],)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_products_written_in_place_are_scipy_s_bit_for_bit(monkeypatch, dtype):
    """The blocks write SciPy's own kernel's result into the output's rows (no temporary):
    the very same numbers as ``A @ Y``, over stale contents, in one block or three."""
    rng = np.random.default_rng(7)
    A = sp.random(400, 300, density=0.05, random_state=8, format="csr", dtype=dtype)
    Y = rng.standard_normal((300, 9)).astype(dtype)
    for blocks, threshold in ((1, 10**9), (3, 10)):
        monkeypatch.setattr(rb, "PARALLEL_FROM_NNZ", threshold)
        out = np.full((400, 9), np.nan, dtype=dtype)
        np.testing.assert_array_equal(rb.RowBlocks(A, blocks).matmul(Y, out), A @ Y)


def test_mixed_dtypes_and_strided_outputs_take_scipy_s_product():
    """Where the kernel cannot write in place (float32 entries times double columns, an
    output that is not C-contiguous) the product is still A·Y."""
    A = sp.random(120, 80, density=0.1, random_state=9, format="csr", dtype=np.float32)
    Y = np.random.default_rng(10).standard_normal((80, 4))
    np.testing.assert_array_equal(rb.block_product(A, Y, np.empty((120, 4))), A @ Y)
    wide = np.zeros((120, 8))
    rb.block_product(A.astype(np.float64), Y, wide[:, ::2])
    np.testing.assert_array_equal(wide[:, ::2], A.astype(np.float64) @ Y)
    assert not wide[:, 1::2].any()


@pytest.mark.parametrize("threaded", [True, False])
def test_tasks_on_threads_return_their_results_in_order(threaded):
    """on_threads gives each task's result in the tasks' order, on threads or one after the
    other; a task that raises raises in the caller."""
    tasks = [lambda k=k: np.arange(5) * k for k in range(3)]
    for got, k in zip(rb.on_threads(tasks, threaded), range(3)):
        np.testing.assert_array_equal(got, np.arange(5) * k)

    def broken():
        raise ValueError("task failed")

    with pytest.raises(ValueError, match="task failed"):
        rb.on_threads([tasks[0], broken], threaded)
