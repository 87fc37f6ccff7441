"""The OpenVINO engine on the tiny checkpoint: in f32 it must give the numpy engine's tokens
(greedy) and logits within float tolerance, alone and in batches; the vision model's several
images per call must equal image-by-image attention; the default precision (int8 weights,
bf16 where the CPU has it) must run the same host loop and stay near numpy."""

from __future__ import annotations

import functools

import numpy as np
import pytest

pytest.importorskip("openvino")

from mineru_tui.engines.openvino.bundle import open_openvino_model  # noqa: E402
from mineru_tui.engines.openvino.runtime import vision_calls  # noqa: E402
from mineru_tui.engines.bundle_files.verify import _Recorder  # noqa: E402
from mineru_tui.engines.numpy import load_model  # noqa: E402
from mineru_tui.engines.qwen2vl.preprocess import preprocess_image  # noqa: E402
from tests import tiny_checkpoint as tc  # noqa: E402

IMG = str(tc.REF_PNG)


@functools.cache
def numpy_model():
    return load_model(tc.TINY_DIR)


@functools.cache
def ov_model(precision: str):
    return open_openvino_model(str(tc.TINY_DIR), precision=precision)


@pytest.fixture(autouse=True)
def _own_cache(tmp_path_factory, monkeypatch):
    # no bundle in the cache folder: the graphs are built in memory from the checkpoint
    monkeypatch.setenv("MINERU_TUI_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


def _generate_recorded(model, *args, **kw):
    rec = _Recorder(model.text)
    model.text = rec
    try:
        res = model.generate(*args, **kw)
    finally:
        model.text = rec.inner
    return res, rec.logits


def test_f32_gives_the_numpy_engines_tokens_and_logits():
    ref, ref_logits = _generate_recorded(numpy_model(), IMG, "\nText Recognition:", max_new_tokens=20, stop_ids=[])
    got, got_logits = _generate_recorded(ov_model("f32"), IMG, "\nText Recognition:", max_new_tokens=20, stop_ids=[])
    assert len(set(ref.token_ids)) > 5  # the tiny model's answer varies: a real comparison
    assert got.token_ids == ref.token_ids
    assert got.text == ref.text
    assert len(got_logits) == len(ref_logits) == 20
    for r, g in zip(ref_logits, got_logits):
        assert np.max(np.abs(r - g)) < 1e-4 * max(1.0, float(np.max(np.abs(r))))


def test_f32_batches_give_each_rows_tokens():
    items = [(IMG, "\nText Recognition:"), (None, "Hello there, how are you"), (IMG, "\nTable Recognition:")]
    ref = numpy_model().generate_batch(items, max_new_tokens=[12, 7, 9])
    got = ov_model("f32").generate_batch(items, max_new_tokens=[12, 7, 9])
    assert [r.token_ids for r in got] == [r.token_ids for r in ref]
    assert [r.finish_reason for r in got] == [r.finish_reason for r in ref]


def test_f32_tokens_through_cache_growth_and_rebinding(monkeypatch):
    """A cache grown two slots at a time (other views every other step, in kept memory: the
    decode step's inputs are bound anew) and rows leaving a batch (fewer rows: other views) keep numpy's tokens; while
    the cache stays where it is, its views are not bound again."""
    from mineru_tui.engines.openvino.runtime import OVTextForward

    model = ov_model("f32")  # one model: its decoder grows the cache two slots at a time
    text = model.text
    monkeypatch.setattr(text, "cache_growth", 2)
    calls = []
    original = OVTextForward._bind

    def spy(self, request, name, array, keep=False):
        before = dict(self._bound.get(id(request), {}))
        out = original(self, request, name, array, keep)
        calls.append((name, before.get(name) != self._bound[id(request)].get(name) or not keep))
        return out

    monkeypatch.setattr(OVTextForward, "_bind", spy)
    items = [(IMG, "\nText Recognition:"), (None, "Hello there, how are you"), (IMG, "\nTable Recognition:")]
    ref = numpy_model().generate_batch(items, max_new_tokens=[12, 5, 9])
    got = model.generate_batch(items, max_new_tokens=[12, 5, 9])
    assert [r.token_ids for r in got] == [r.token_ids for r in ref]
    cache_binds = [set_ for name, set_ in calls if name.startswith("past_")]
    assert any(cache_binds) and not all(cache_binds)  # bound anew after growth, kept in between
    # the caches grew in kept memory, and the next call's cache runs in the buffers kept
    assert text.cache_memory._free is not None
    again = model.generate_batch(items, max_new_tokens=[12, 5, 9])
    assert [r.token_ids for r in again] == [r.token_ids for r in ref]


def test_vision_several_images_per_call_is_block_diagonal():
    ck = numpy_model().checkpoint
    from PIL import Image

    big = preprocess_image(IMG, ck.preprocessor)
    small = preprocess_image(Image.open(IMG).crop((0, 0, 60, 60)), ck.preprocessor)
    px = np.concatenate([small.pixel_values, big.pixel_values, small.pixel_values])
    grids = [small.grid_thw, big.grid_thw, small.grid_thw]
    ref = numpy_model().vision(px, grids)
    got = ov_model("f32").vision(px, grids)
    assert got.shape == ref.shape
    np.testing.assert_allclose(got, ref, atol=1e-4, rtol=1e-4)
    # each image alone gives its own rows: nothing leaks across images
    alone = ov_model("f32").vision(small.pixel_values, [small.grid_thw])
    np.testing.assert_allclose(got[: alone.shape[0]], alone, atol=1e-5)


def test_vision_calls_group_similar_sizes_and_split_unequal_ones():
    assert vision_calls([100, 100, 100]) == [[0, 1, 2]]  # same size: one call, no padding
    assert vision_calls([5476]) == [[0]]  # one large image alone
    assert all(len(c) * 1000 <= 4096 for c in vision_calls([1000] * 9))  # activation memory bounded
    calls = vision_calls([2000, 200, 1950, 150])
    assert sorted(i for c in calls for i in c) == [0, 1, 2, 3]
    assert [0, 2] in calls and all(not ({0, 1} <= set(c)) for c in calls)  # a small crop never pads to 2000


def test_default_precision_runs_the_same_host_loop_near_numpy():
    ck = numpy_model().checkpoint
    pre = preprocess_image(IMG, ck.preprocessor)
    ref = numpy_model().vision(pre.pixel_values, [pre.grid_thw])
    got = ov_model("default").vision(pre.pixel_values, [pre.grid_thw])
    assert np.max(np.abs(got - ref)) < 0.05 * np.max(np.abs(ref))  # int8 weights, bf16 where available
    results = ov_model("default").generate_batch([(IMG, "\nText Recognition:"), (None, "Hello")], max_new_tokens=6)
    assert [len(r.token_ids) for r in results] == [6, 6] and all(r.finish_reason == "length" for r in results)
    ref_first = numpy_model().generate(IMG, "\nText Recognition:", max_new_tokens=1).token_ids
    assert results[0].token_ids[:1] == ref_first  # the first token's margin is large on this page


def test_engine_options_errors_are_one_line():
    from mineru_tui.engines import EngineError, EngineOptions, open_engine

    for extra, words in (((("precision", "f16"),), "unknown precision"), ((("device", "TPU"),), "unknown device"),
                         ((("max_batch", "x"),), "whole number")):
        with pytest.raises(EngineError, match=words) as e:
            open_engine(EngineOptions(engine="openvino", model=str(tc.TINY_DIR), extra=extra))
        assert "\n" not in str(e.value)
    with pytest.raises(EngineError) as e:
        open_engine(EngineOptions(engine="openvino", model="/nonexistent/model-dir"))
    assert "\n" not in str(e.value)


def test_vision_equal_and_padded_calls_are_numpys():
    """Two images of 600 and 576 patches share one call (the padded part: the shorter one's keys
    masked); three frames of 576 patches (two images, one with two frames) the equal part (no
    mask); then one image alone: numpy's per-frame attention each time."""
    assert vision_calls([600, 576]) == [[0, 1]]
    rng = np.random.default_rng(0)
    for grids in ([(1, 20, 30), (1, 24, 24)], [(2, 24, 24), (1, 24, 24)], [(1, 20, 30)]):
        px = rng.standard_normal((sum(t * h * w for t, h, w in grids), 1176)).astype(np.float32)
        ref = numpy_model().vision(px, grids)
        got = ov_model("f32").vision(px, grids)
        np.testing.assert_allclose(got, ref, atol=1e-4, rtol=1e-4)
