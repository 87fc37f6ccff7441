"""vision.py: every stage of the tower against the oracle; several images in one call."""

import numpy as np
import pytest

from mineru_tui.engines.qwen2vl.checkpoint import load_checkpoint
from mineru_tui.engines.numpy.vision import VisionTower, vision_cu_seqlens
from tests import tiny_checkpoint as tc

TOL = 1e-4


@pytest.fixture(scope="module")
def ref():
    return dict(np.load(tc.REF_NPZ))


@pytest.fixture(scope="module")
def tower():
    ck = load_checkpoint(tc.TINY_DIR)
    return VisionTower(ck.weights, ck.config.vision)


def test_every_stage_matches_oracle(ref, tower):
    cap = {}
    embeds = tower(ref["pre.pixel_values"], ref["pre.image_grid_thw"].tolist(), capture=cap)
    for key in ("vis.patch_embed", "vis.block0", "vis.block1", "vis.merger_ln_q"):
        np.testing.assert_allclose(cap[key], ref[key], atol=TOL, rtol=TOL, err_msg=key)
    assert embeds.shape == ref["vis.image_embeds"].shape == (18, 64)
    np.testing.assert_allclose(embeds, ref["vis.image_embeds"], atol=TOL, rtol=TOL)


def test_two_images_in_one_call_equal_two_calls(ref, tower):
    px_a, grid_a = ref["pre.pixel_values"], (1, 6, 12)
    rng = np.random.default_rng(0)
    px_b, grid_b = rng.standard_normal((4 * 8, 1176)).astype(np.float32), (1, 4, 8)
    np.testing.assert_array_equal(vision_cu_seqlens([grid_a, grid_b]), [0, 72, 104])
    both = tower(np.concatenate([px_a, px_b]), [grid_a, grid_b])
    a, b = tower(px_a, [grid_a]), tower(px_b, [grid_b])
    assert both.shape == (18 + 8, 64)
    np.testing.assert_allclose(both[:18], a, atol=1e-5)
    np.testing.assert_allclose(both[18:], b, atol=1e-5)


def test_score_chunking_does_not_change_the_result(ref, tower, monkeypatch):
    from mineru_tui.engines.numpy import vision

    full = tower(ref["pre.pixel_values"], [(1, 6, 12)])
    monkeypatch.setattr(vision, "ATTN_QUERY_ROWS", 5)
    np.testing.assert_allclose(tower(ref["pre.pixel_values"], [(1, 6, 12)]), full, atol=1e-5)


def test_shape_mismatch_is_a_clear_error(ref, tower):
    with pytest.raises(ValueError, match="pixel_values"):
        tower(ref["pre.pixel_values"][:10], [(1, 6, 12)])


def test_worker_threads_do_not_change_the_result(ref, tower, monkeypatch):
    threaded = tower(ref["pre.pixel_values"], [(1, 6, 12)])
    monkeypatch.setenv("MINERU_TUI_THREADS", "1")  # plain loop, BLAS threads untouched
    np.testing.assert_allclose(tower(ref["pre.pixel_values"], [(1, 6, 12)]), threaded, atol=1e-6)


def test_row_chunks_do_not_change_the_result(ref, tower, monkeypatch):
    """The row-parallel phases (LN, qkv, rotary, MLP in chunks of patches) equal one whole pass."""
    from mineru_tui.engines.numpy import vision

    whole = tower(ref["pre.pixel_values"], [(1, 6, 12)])
    monkeypatch.setattr(vision, "ROW_CHUNK", 10)  # 72 patches → 7 uneven chunks
    chunked = tower(ref["pre.pixel_values"], [(1, 6, 12)])
    np.testing.assert_allclose(chunked, whole, atol=1e-5)  # BLAS sums in another order
    np.testing.assert_allclose(chunked, ref["vis.image_embeds"], atol=TOL, rtol=TOL)


@pytest.mark.parametrize("scale", [1.0, 60.0, -60.0])
def test_attention_without_max_shift_redoes_rows_that_overflow(scale):
    """Huge scores (exp overflows) and very negative ones (exp underflows) give the shifted softmax."""
    from mineru_tui.engines.numpy.vision import attention_heads

    rng = np.random.default_rng(3)
    H, N, D = 2, 40, 8
    q = rng.standard_normal((H, N, D)).astype(np.float32)
    k = rng.standard_normal((H, N, D)).astype(np.float32)
    v = rng.standard_normal((H, N, D)).astype(np.float32)
    q[:, ::3] *= abs(scale)  # every third query row gets scores of ±tens to hundreds
    k[:, 5] *= np.sign(scale) * 3  # one key pushes those rows far up (or far down)
    k[1] = np.abs(k[1]) + 0.5
    q[1, 7] = -30.0  # head 1, row 7: every score below −87, every exp underflows to 0
    out = attention_heads(q, k, v, np.array([0, N]))
    s = np.einsum("hnd,hmd->hnm", q.astype(np.float64), k.astype(np.float64))
    p = np.exp(s - s.max(-1, keepdims=True))
    want = (p / p.sum(-1, keepdims=True)) @ v.astype(np.float64)
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out, want, atol=2e-5, rtol=1e-4)
