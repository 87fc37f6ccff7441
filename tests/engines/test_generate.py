"""generate.py / model.py: greedy tokens and per-step logits vs the oracle, stops, batches,
streaming, cancel, input errors — through the public API on the tiny fixture checkpoint."""

import dataclasses
import io
import threading

import numpy as np
import pytest
from PIL import Image

from mineru_tui.engines.numpy import (
    Done,
    ImageError,
    PromptError,
    SequenceDone,
    StageEvent,
    TokenEvent,
    load_model,
)
from mineru_tui.engines.numpy.decoder import NumpyTextForward
from mineru_tui.engines.numpy.model import Model
from tests import tiny_checkpoint as tc

PROMPT = "\nText Recognition:"


class RecordingForward(NumpyTextForward):
    """The numpy forward pass, also keeping the logits of every step (a replaceable forward)."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.logits = []

    def step(self, *a, **kw):
        out = super().step(*a, **kw)
        if out is not None:
            self.logits.append(out[:, -1].copy())
        return out


@pytest.fixture(scope="module")
def ref():
    return dict(np.load(tc.REF_NPZ))


@pytest.fixture(scope="module")
def model():
    return load_model(tc.TINY_DIR)


@pytest.fixture(scope="module")
def image(ref):
    return Image.fromarray(ref["pre.image_rgb_u8"])


def test_twenty_greedy_tokens_and_step_logits_match_oracle(ref, image):
    base = load_model(tc.TINY_DIR)
    rec = RecordingForward(base.checkpoint.weights, base.config.text)
    m = Model(base.checkpoint, base.tokenizer, text=rec)
    res = m.generate(image, PROMPT, max_new_tokens=20, stop_ids=[])
    assert res.token_ids == ref["gen.ids"].tolist()
    assert res.finish_reason == "length" and res.prompt_tokens == 53
    step_logits = np.concatenate(rec.logits)  # prefill's last row, then 19 decode steps
    assert step_logits.shape == (20, 4096)
    np.testing.assert_allclose(step_logits, ref["gen.logits"], atol=1e-4)
    assert res.text == m.tokenizer.decode(res.token_ids)


def test_real_stop_ids(ref, model, image):
    res = model.generate(image, PROMPT, max_new_tokens=20)
    assert model.stop_ids == (3842, 3840)
    assert res.token_ids == ref["gen.ids_with_stop"].tolist()  # the tiny model does not stop within 20


def test_stop_token_kept_in_ids_not_in_text(ref, model, image):
    gen = ref["gen.ids"].tolist()
    stop = gen[5]
    res = model.generate(image, PROMPT, max_new_tokens=20, stop_ids=[stop])
    assert res.token_ids == gen[:6] and res.finish_reason == "stop"
    assert res.text == model.tokenizer.decode(gen[:5])


def test_pad_and_eos_ids_are_stripped_from_text(model):
    assert {3840, 3842} <= set(model.strip_ids)


def _items(image):
    wide = image.resize((300, 97))  # another grid -> another prompt length
    small = image.crop((0, 0, 90, 60))
    return [(image, PROMPT), (wide, "\nTable Recognition:"), (small, "\nFormula Recognition:"), (image, "\nLayout Detection:")]


def test_batch_equals_one_by_one(model, image):
    items = _items(image)
    lengths = [len(model.prepare(*it).input_ids) for it in items]
    assert len(set(lengths)) >= 3  # padding really happens
    caps = [20, 7, 12, 3]
    single = [model.generate(img, p, max_new_tokens=n, stop_ids=[]).token_ids for (img, p), n in zip(items, caps)]
    # per-row limits via stop ids: use max_new_tokens per call; rows end at different steps
    batch = model.generate_batch(items, max_new_tokens=20, stop_ids=[])
    for s, b, n in zip(single, batch, caps):
        assert b.token_ids[:n] == s
    # rows finishing early (by a stop id) leave the batch without disturbing the others
    stop = batch[1].token_ids[4]
    early = model.generate_batch(items, max_new_tokens=20, stop_ids=[stop])
    for e, b in zip(early, batch):
        cut = b.token_ids.index(stop) + 1 if stop in b.token_ids else 20
        assert e.token_ids == b.token_ids[:cut]
        assert e.finish_reason == ("stop" if stop in b.token_ids else "length")


def test_streaming_yields_every_token_and_timings(model, image):
    events = list(model.stream_batch(_items(image)[:2], max_new_tokens=9, stop_ids=[]))
    assert isinstance(events[-1], Done)
    done = events[-1]
    stages = [(e.stage, e.done) for e in events if isinstance(e, StageEvent)]
    assert stages == [(s, d) for s in ("preprocess", "vision", "prefill", "decode") for d in (False, True)]
    for i, res in enumerate(done.results):
        toks = [e for e in events if isinstance(e, TokenEvent) and e.seq_index == i]
        assert [e.token_id for e in toks] == res.token_ids and len(toks) == 9
        assert [e.n_generated for e in toks] == list(range(1, 10))
        assert "".join(e.text_delta for e in toks) == res.text
    assert sum(isinstance(e, SequenceDone) for e in events) == 2
    t = done.timings
    assert t.preprocess_s > 0 and t.vision_s > 0 and t.prefill_s > 0 and t.decode_s > 0
    assert t.prefill_tokens == sum(r.prompt_tokens for r in done.results)
    assert t.decode_tokens == 2 * 8 and t.decode_steps == 8 and t.decode_tokens_per_s > 0
    assert t.total_s >= t.first_token_s > 0


def test_on_event_callback_and_cancel_between_steps(model, image):
    cancel = threading.Event()
    seen = []

    def on_event(ev):
        seen.append(ev)
        if isinstance(ev, TokenEvent) and ev.n_generated == 3:
            cancel.set()

    res = model.generate(image, PROMPT, max_new_tokens=20, stop_ids=[], on_event=on_event, cancel=cancel)
    assert res.finish_reason == "cancelled" and len(res.token_ids) == 3
    assert isinstance(seen[-1], Done)


def test_cancel_before_start(model, image):
    cancel = threading.Event()
    cancel.set()
    res = model.generate(image, PROMPT, max_new_tokens=20, cancel=cancel)
    assert res.finish_reason == "cancelled" and res.token_ids == [] and res.text == ""


def test_sampling_knobs_reach_the_loop(ref, model, image):
    base = ref["gen.ids"].tolist()
    res = model.generate(image, PROMPT, max_new_tokens=20, stop_ids=[], no_repeat_ngram_size=1)
    assert len(set(res.token_ids)) == 20 and res.token_ids != base  # base repeats 530 and 2164
    res = model.generate(image, PROMPT, max_new_tokens=20, stop_ids=[], presence_penalty=5.0)
    assert len(set(res.token_ids)) == 20


def test_text_only_request(model):
    res = model.generate(None, "Hello", max_new_tokens=4, stop_ids=[])
    assert len(res.token_ids) == 4


def test_input_errors_are_one_line(model, image):
    with pytest.raises(PromptError, match="empty"):
        model.generate(image, "   ")
    with pytest.raises(ImageError):
        model.generate(b"this is not an image", PROMPT)
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    with pytest.raises(ImageError):
        model.generate(buf.getvalue()[:200], PROMPT)  # truncated
    with pytest.raises(ImageError):
        model.generate(Image.new("RGB", (1, 1)), PROMPT)
    with pytest.raises(ImageError):
        model.generate(Image.new("RGB", (6000, 28)), PROMPT)  # aspect ratio > 200
    with pytest.raises(ImageError, match="request 1"):
        model.generate_batch([(image, PROMPT), (b"junk", PROMPT)])


def test_context_limit(model, image):
    ck = model.checkpoint
    small = dataclasses.replace(ck.config, text=dataclasses.replace(ck.config.text, max_position_embeddings=60))
    m = Model(dataclasses.replace(ck, config=small), model.tokenizer)
    res = m.generate(image, PROMPT, stop_ids=[])  # max_new_tokens=None: up to the context
    assert len(res.token_ids) == 60 - 53 and res.finish_reason == "length"
    tiny = dataclasses.replace(ck.config, text=dataclasses.replace(ck.config.text, max_position_embeddings=40))
    with pytest.raises(PromptError, match="context"):
        Model(dataclasses.replace(ck, config=tiny), model.tokenizer).generate(image, PROMPT)


class CancelAfter:
    """A cancel flag that turns on after ``n`` checks (lands inside the vision tower)."""

    def __init__(self, n):
        self.n = n

    def is_set(self):
        self.n -= 1
        return self.n < 0


def test_cancel_inside_vision(model, image):
    events = list(model.stream(image, PROMPT, max_new_tokens=20, cancel=CancelAfter(2)))
    done = events[-1]
    assert isinstance(done, Done) and done.results[0].finish_reason == "cancelled"
    assert done.results[0].token_ids == [] and not any(isinstance(e, TokenEvent) for e in events)


def test_max_new_tokens_must_be_positive(model, image):
    with pytest.raises(ValueError):
        model.generate(image, PROMPT, max_new_tokens=0)


class FixedShapeForward(NumpyTextForward):
    """Emulates a Core ML decoder: fixed prefill chunk, fixed fp-any cache, mask over all CTX slots."""

    fixed_chunk = 16
    max_context = 96

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.shapes = set()
        self.logits = []

    def step(self, inputs_embeds, cos, sin, mask, write_pos, cache, logits="last", capture=None):
        S = inputs_embeds.shape[1]
        assert S in (1, self.fixed_chunk) and cache.ctx == self.max_context
        self.shapes.add(S)
        full = np.full(mask.shape[:2] + (cache.ctx,), -np.inf, np.float32)  # T = CTX, as Core ML
        full[:, :, : mask.shape[-1]] = mask
        out = super().step(inputs_embeds, cos, sin, full, write_pos, cache, logits, capture)
        if out is not None:
            self.logits.append(out[:, -1].copy())
        return out


def test_fixed_shape_engine_contract(ref, model, image):
    """Padded fixed-size prefill chunks + a fixed cache with full-CTX masks give the same tokens."""
    fixed = FixedShapeForward(model.checkpoint.weights, model.config.text)
    m = Model(model.checkpoint, model.tokenizer, text=fixed)
    res = m.generate(image, PROMPT, max_new_tokens=20, stop_ids=[])  # 53 tokens = 3 chunks + 5 (padded)
    assert res.token_ids == ref["gen.ids"].tolist() and fixed.shapes == {1, 16}
    np.testing.assert_allclose(np.concatenate(fixed.logits), ref["gen.logits"], atol=1e-4)
    items = _items(image)
    batch = m.generate_batch(items, max_new_tokens=8, stop_ids=[])
    assert [r.token_ids for r in batch] == [model.generate(*it, max_new_tokens=8, stop_ids=[]).token_ids for it in items]
    # generation stops at the fixed context: 96 slots - 53 prompt tokens
    assert len(m.generate(image, PROMPT, stop_ids=[]).token_ids) == 96 - 53


def test_images_split_over_several_vision_calls(model, image, monkeypatch):
    from mineru_tui.engines.qwen2vl import generate

    items = _items(image)
    together = model.generate_batch(items, max_new_tokens=5, stop_ids=[])
    calls = []
    vision = model.vision

    def counting(*a, **kw):
        calls.append(a[1])
        return vision(*a, **kw)

    monkeypatch.setattr(generate, "VISION_MAX_PATCHES", 80)  # about one image per call
    split = Model(model.checkpoint, model.tokenizer, vision=counting, text=model.text)
    assert [r.token_ids for r in split.generate_batch(items, max_new_tokens=5, stop_ids=[])] == [r.token_ids for r in together]
    assert len(calls) >= 3
