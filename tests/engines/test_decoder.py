"""decoder.py: prefill layers/logits vs the oracle, cached decode == full forward, cache ops."""

import numpy as np
import pytest

from mineru_tui.engines.qwen2vl.checkpoint import load_checkpoint
from mineru_tui.engines.numpy.decoder import NumpyTextForward
from mineru_tui.engines.qwen2vl.kv_cache import KVCache
from mineru_tui.engines.qwen2vl.generate import causal_mask
from mineru_tui.engines.qwen2vl.rope import mrope_cos_sin
from tests import tiny_checkpoint as tc

TOL = 1e-4


@pytest.fixture(scope="module")
def ref():
    return dict(np.load(tc.REF_NPZ))


@pytest.fixture(scope="module")
def text():
    ck = load_checkpoint(tc.TINY_DIR)
    return NumpyTextForward(ck.weights, ck.config.text)


def _prefill(text, ref, ctx, logits="all", capture=None):
    L = ref["txt.input_ids"].shape[1]
    cache = text.new_cache(1, ctx)
    mask = causal_mask(L, 0, np.arange(L))[None]
    out = text.step(ref["txt.inputs_embeds"], ref["txt.rope_cos"], ref["txt.rope_sin"], mask, 0, cache, logits, capture)
    return out, cache


def test_prefill_layers_norm_logits_match_oracle(ref, text):
    cap = {}
    logits, _ = _prefill(text, ref, 60, "all", cap)
    for i in range(2):
        np.testing.assert_allclose(cap[f"txt.layer{i}_out"], ref[f"txt.layer{i}_out"], atol=TOL, rtol=TOL)
    np.testing.assert_allclose(cap["txt.final_norm"], ref["txt.final_norm"], atol=TOL, rtol=TOL)
    np.testing.assert_allclose(logits[0], ref["txt.logits"], atol=TOL)
    last, _ = _prefill(text, ref, 60, "last")
    assert last.shape == (1, 1, 4096)
    np.testing.assert_allclose(last[0, 0], ref["txt.logits"][-1], atol=TOL)
    assert _prefill(text, ref, 60, "none")[0] is None


def test_embed_matches_oracle_outside_image(ref, text):
    ids = ref["txt.input_ids"]
    emb = text.embed(ids)
    text_rows = ids[0] != 3852
    np.testing.assert_array_equal(emb[0][text_rows], ref["txt.inputs_embeds"][0][text_rows])


def test_cached_decode_equals_full_forward(ref, text):
    """Teacher-forced: prefill + 20 one-token steps == one no-cache forward over prompt + tokens."""
    L = ref["txt.input_ids"].shape[1]
    gen = ref["gen.ids"]
    pos = ref["gen.token_position_ids"]
    _, cache = _prefill(text, ref, L + 20)
    step_logits = []
    feed = [int(np.argmax(ref["txt.logits"][-1]))] + gen[:-1].tolist()
    assert feed[0] == gen[0]
    for k in range(1, 20):  # token k-1 fed at slot L+k-1
        slot = L + k - 1
        cos, sin = mrope_cos_sin(np.array([pos[k - 1]]), 16, 1e6, (2, 3, 3))
        mask = np.zeros((1, 1, slot + 1), np.float32)
        out = text.step(text.embed(np.array([[gen[k - 1]]])), cos[None], sin[None], mask, slot, cache)
        step_logits.append(out[0, 0])
    step_logits = np.stack(step_logits)
    np.testing.assert_allclose(step_logits, ref["gen.logits"][1:], atol=TOL)
    # full no-cache forward over prompt + 19 generated tokens
    emb = np.concatenate([ref["txt.inputs_embeds"][0], text.embed(gen[None, :19])[0]])[None]
    p3 = np.concatenate([ref["txt.position_ids"][:, 0], np.broadcast_to(pos[:19], (3, 19))], axis=1)
    cos, sin = mrope_cos_sin(p3, 16, 1e6, (2, 3, 3))
    n = L + 19
    full = text.step(emb, cos[None], sin[None], causal_mask(n, 0, np.arange(n))[None], 0, text.new_cache(1, n), "all")
    np.testing.assert_allclose(full[0, L:], step_logits, atol=5e-5)
    np.testing.assert_allclose(full[0, L - 1], ref["gen.logits"][0], atol=TOL)


def test_chunked_prefill_and_fixed_ctx_mask_equal_one_shot(ref, text):
    """Chunks of 20 tokens with the mask over all CTX slots (a fixed-shape engine) == one call."""
    L, ctx = ref["txt.input_ids"].shape[1], 64
    one, _ = _prefill(text, ref, ctx, "all")
    cache = text.new_cache(1, ctx)
    rows = []
    for s0 in range(0, L, 20):
        s1 = min(L, s0 + 20)
        mask = causal_mask(ctx, 0, np.arange(s0, s1))[None]  # T = ctx: future slots masked
        rows.append(text.step(ref["txt.inputs_embeds"][:, s0:s1], ref["txt.rope_cos"][:, s0:s1], ref["txt.rope_sin"][:, s0:s1], mask, s0, cache, "all")[0])
    np.testing.assert_allclose(np.concatenate(rows), one[0], atol=1e-4)


def test_fp16_cache_is_close(ref):
    ck = load_checkpoint(tc.TINY_DIR)
    text16 = NumpyTextForward(ck.weights, ck.config.text, cache_dtype=np.float16)
    out, cache = _prefill(text16, ref, 60, "last")
    assert cache.k.dtype == np.float16
    np.testing.assert_allclose(out[0, 0], ref["txt.logits"][-1], atol=5e-2)


def test_kv_cache_row_select_grow():
    c = KVCache(2, 3, 2, 8, 4)
    assert c.k.shape == (2, 3, 2, 8, 4) and c.batch == 3 and c.ctx == 8
    c.row(1).k[...] = 1.0  # a view
    assert c.k[:, 1].min() == 1.0 and c.k[:, 0].max() == 0.0
    s = c.select([1, 2])
    assert s.batch == 2 and s.k[:, 0].min() == 1.0
    g = s.grown(16)
    assert g.ctx == 16 and g.k[:, 0, :, :8].min() == 1.0 and g.k[:, :, :, 8:].max() == 0.0


@pytest.mark.parametrize("seed", range(4))
def test_kv_cache_in_kept_memory_moves_as_a_copy_does(seed):
    """A cache in a CacheMemory grows, shrinks and moves its slots inside its own buffers while
    they have room, each time equal to the plain cache's copy; past the room it takes new ones."""
    from mineru_tui.engines.qwen2vl.kv_cache import CacheMemory

    rng = np.random.default_rng(seed)
    plain, kept = KVCache(3, 2, 2, 6, 4), KVCache(3, 2, 2, 6, 4, memory=CacheMemory())
    for c in (plain, kept):  # the same values
        c.k[...] = np.arange(c.k.size).reshape(c.k.shape)
        c.v[...] = -np.arange(c.v.size).reshape(c.v.shape)
    in_place = 0
    for _ in range(30):
        ctx = int(rng.integers(2, 12))
        shift = int(rng.integers(-ctx, ctx + 1))
        buffer = kept._buffers[0]
        plain, kept = plain.moved(shift, ctx), kept.moved(shift, ctx)
        assert np.array_equal(plain.k, kept.k) and np.array_equal(plain.v, kept.v), (shift, ctx)
        in_place += kept._buffers[0] is buffer
    assert in_place > 10  # most moves stayed in the buffers
    assert np.array_equal(plain.grown(40).k, kept.grown(40).k)  # beyond the room: new buffers, same values


def test_cache_memory_is_used_again_and_never_shared():
    """A dropped cache's buffers go to the next cache (zeroed); a cache still alive keeps its own."""
    from mineru_tui.engines.qwen2vl.kv_cache import CacheMemory

    memory = CacheMemory()
    first = KVCache(2, 2, 1, 8, 4, memory=memory)
    first.k[...] = 7.0
    buffer = first._buffers[0]
    second = KVCache(2, 2, 1, 8, 4, memory=memory)  # first is alive: new buffers
    assert second._buffers[0] is not buffer
    del first
    third = KVCache(2, 1, 1, 8, 4, memory=memory)  # smaller: fits the kept buffers
    assert third._buffers[0] is buffer and third.k.max() == 0.0 and third.v.max() == 0.0
    moved = third.moved(1, 10)  # in place: `third` is used up, `moved` holds the buffers
    del third
    assert KVCache(2, 1, 1, 8, 4, memory=memory)._buffers[0] is not moved._buffers[0]


def test_bad_mask_shape_is_rejected(ref, text):
    with pytest.raises(ValueError):
        text.step(ref["txt.inputs_embeds"], ref["txt.rope_cos"], ref["txt.rope_sin"], np.zeros((1, 53, 53), np.float32), 0, text.new_cache(1, 10))
