"""ops.py: row chunks and the sliced in-place activations."""

import numpy as np
import pytest

from mineru_tui.engines.numpy import ops


@pytest.mark.parametrize("n,size", [(1, 768), (72, 10), (3072, 768), (5476, 768), (5, 100)])
def test_row_chunks_cover_the_range_once(n, size):
    chunks = ops.row_chunks(n, size)
    assert chunks[0][0] == 0 and chunks[-1][1] == n
    assert all(a < b for a, b in chunks)
    assert all(b == a2 for (_, b), (a2, _) in zip(chunks, chunks[1:]))
    assert len(chunks) == max(1, round(n / size))


def test_row_chunks_come_in_multiples_of_the_workers():
    assert len(ops.row_chunks(5476, 768, multiple=2)) == 8  # 7 pieces would leave a thread idle
    assert len(ops.row_chunks(3072, 768, multiple=2)) == 4
    assert ops.row_chunks(100, 768, multiple=2) == [(0, 100)]  # one piece stays one


@pytest.mark.parametrize("shape", [(3, 7), (1000, 130), (2, 3, 5), (17,)])
def test_sliced_activations_equal_the_formula(shape, monkeypatch):
    monkeypatch.setattr(ops, "ACT_SLICE_ELEMENTS", 64)  # many slices, a short last one
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32) * 4
    silu = ops.silu_(x.copy())
    gelu = ops.quick_gelu_(x.copy())
    np.testing.assert_array_equal(silu, x / (1 + np.exp(-x)))
    np.testing.assert_array_equal(gelu, x / (1 + np.exp(x * np.float32(-1.702))))
    assert silu.dtype == gelu.dtype == np.float32


@pytest.mark.parametrize("rows", [1, 3, 8, 16, 17])
def test_linear_small_m_slices_equal_one_product(rows):
    """Batched decode's sliced small-M product (tall W) gives the same numbers as x @ W.T + b."""
    rng = np.random.default_rng(rows)
    W = rng.standard_normal((4 * ops.SMALL_M_CHUNK + 37, 24)).astype(np.float32)
    b = rng.standard_normal(W.shape[0]).astype(np.float32)
    x = rng.standard_normal((rows, 24)).astype(np.float32)
    y = ops.linear(x[:, None, :], W, b)  # leading dims are kept
    assert y.shape == (rows, 1, W.shape[0])
    np.testing.assert_allclose(y[:, 0], x.astype(np.float64) @ W.T.astype(np.float64) + b, rtol=1e-5, atol=1e-5)
