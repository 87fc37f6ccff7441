"""Continuous batching (generate.py): with at most ``max_batch`` rows decoding and the next request
joining as a row ends, every request's tokens, text, finish reason and events are those it gets
alone; the steps really carry refilled rows; cache moves and fixed-shape caches keep that;
cancel ends the live and the waiting requests. Tiny fixture checkpoint."""

import threading

import numpy as np
import pytest
from PIL import Image

from mineru_tui.engines.numpy import Done, SequenceDone, StageEvent, TokenEvent, load_model
from mineru_tui.engines.qwen2vl import generate
from mineru_tui.engines.numpy.decoder import NumpyTextForward
from mineru_tui.engines.qwen2vl.kv_cache import CacheMemory, KVCache
from mineru_tui.engines.numpy.model import Model
from mineru_tui.engines.qwen2vl.sampling import LogitsProcessor, SamplingParams
from tests import tiny_checkpoint as tc


class CountingForward(NumpyTextForward):
    """The numpy forward pass, recording how many rows each decode step carries (the hook)."""

    fixed_chunk = None
    max_context = None

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.rows_per_step: list[int] = []

    def step(self, inputs_embeds, cos, sin, mask, write_pos, cache, logits="last", capture=None):
        if inputs_embeds.shape[1] == 1:
            self.rows_per_step.append(inputs_embeds.shape[0])
        return super().step(inputs_embeds, cos, sin, mask, write_pos, cache, logits, capture)


class FixedShapeForward(CountingForward):
    """A Core ML-like decoder: padded fixed prefill chunks, a cache that never grows."""

    fixed_chunk = 16
    max_context = 128

    def step(self, inputs_embeds, cos, sin, mask, write_pos, cache, logits="last", capture=None):
        assert inputs_embeds.shape[1] in (1, self.fixed_chunk) and cache.ctx == self.max_context
        return super().step(inputs_embeds, cos, sin, mask, write_pos, cache, logits, capture)


@pytest.fixture(scope="module")
def model():
    return load_model(tc.TINY_DIR)


@pytest.fixture(scope="module")
def image():
    return Image.fromarray(dict(np.load(tc.REF_NPZ))["pre.image_rgb_u8"])


def _items(image):
    wide, small = image.crop((0, 0, 200, 56)), image.crop((0, 0, 90, 60))
    return [(image, "\nText Recognition:"), (wide, "\nTable Recognition:"), (small, "\nFormula Recognition:"),
            (image, "\nLayout Detection:"), (small, "\nText Recognition:"), (None, "\nText Recognition:"),
            (wide, "\nText Recognition:")]


KNOBS = [SamplingParams(100, 0.0, 0.0, 1.0), SamplingParams(3, 0.0, 0.0, 1.0), SamplingParams(100, 2.0, 0.5, 1.0),
         SamplingParams(100, 0.0, 0.0, 1.7), SamplingParams(100, 0.0, 0.0, 1.0), SamplingParams(2, 0.0, 0.0, 1.0),
         SamplingParams(100, 1.0, 0.0, 1.0)]
CAPS = [20, 7, 12, 3, 1, 9, 15]


def _per_sequence(events):
    """Each sequence's own events, in order, without the clock (what running alone must give)."""
    out: dict[int, list] = {}
    for e in events:
        if isinstance(e, TokenEvent):
            out.setdefault(e.seq_index, []).append(("token", e.token_id, e.text_delta, e.n_generated))
        elif isinstance(e, SequenceDone):
            r = e.result
            out.setdefault(e.seq_index, []).append(("done", tuple(r.token_ids), r.text, r.finish_reason, r.prompt_tokens))
    return out


def _alone(m, items, stop_ids):
    """Each request in a call of its own, as events per sequence (index 0 renamed to its own)."""
    seqs = {}
    for i, (it, k, n) in enumerate(zip(items, KNOBS, CAPS)):
        events = list(m.stream_batch([it], sampling=[k], max_new_tokens=[n], stop_ids=stop_ids))
        seqs[i] = _per_sequence(events)[0]
    return seqs


def _expected_rows_per_step(caps, max_batch):
    """Rows per decode step of a refilling batch when request i generates exactly caps[i] tokens."""
    waiting, live, steps = list(range(len(caps))), {}, []
    while waiting or live:
        while waiting and len(live) < max_batch:  # join: the first token comes from the prefill
            i = waiting.pop(0)
            if caps[i] > 1:
                live[i] = 1
        if live:
            steps.append(len(live))
            live = {i: n + 1 for i, n in live.items() if n + 1 < caps[i]}
    return steps


@pytest.mark.parametrize("max_batch", [1, 2, 3])
def test_every_sequence_gets_what_it_gets_alone(model, image, max_batch):
    items = _items(image)
    stop_ids = list(model.stop_ids)
    alone = _alone(model, items, stop_ids)
    # a stop id that ends one row early (its 5th token): rows end at different steps by stop and by limit
    stop = next(ev[1] for ev in alone[0] if ev[0] == "token" and ev[3] == 5)
    stop_ids = stop_ids + [stop]
    alone = _alone(model, items, stop_ids)
    assert {seq[-1][3] for seq in alone.values()} == {"stop", "length"}
    events = list(model.stream_batch(items, sampling=KNOBS, max_new_tokens=CAPS, stop_ids=stop_ids,
                                     max_batch=max_batch))
    assert _per_sequence(events) == alone
    assert isinstance(events[-1], Done) and [tuple(r.token_ids) for r in events[-1].results] == [
        seq[-1][1] for seq in alone.values()]
    assert sum(isinstance(e, SequenceDone) for e in events) == len(items)


def test_freed_rows_are_refilled_at_the_next_step(model, image):
    items = _items(image)
    counting = CountingForward(model.checkpoint.weights, model.config.text)
    m = Model(model.checkpoint, model.tokenizer, vision=model.vision, text=counting)
    events = list(m.stream_batch(items, sampling=KNOBS, max_new_tokens=CAPS, stop_ids=[], max_batch=3))
    done = events[-1]
    assert [len(r.token_ids) for r in done.results] == CAPS
    expected = _expected_rows_per_step(CAPS, 3)
    assert counting.rows_per_step == expected
    # three rows on every step as long as requests wait; the tail drains
    assert expected[:10] == [3] * 10 and 1 in expected
    assert done.timings.decode_steps == len(expected) and done.timings.decode_tokens == sum(expected)
    # a joining request's vision and prefill run between two decode steps, named by its index
    joins = [e.seqs for e in events if isinstance(e, StageEvent) and e.stage == "prefill" and not e.done]
    assert joins[0] == (0, 1, 2) and sorted(i for j in joins for i in j) == list(range(len(items)))
    decode_start = next(k for k, e in enumerate(events) if isinstance(e, StageEvent) and e.stage == "decode")
    later = [e for e in events[decode_start:] if isinstance(e, StageEvent) and e.stage == "vision" and not e.done]
    assert later and all(len(e.seqs) >= 1 for e in later)


def test_more_live_rows_per_step_than_fixed_batches(model, image):
    items = _items(image)
    counting = CountingForward(model.checkpoint.weights, model.config.text)
    m = Model(model.checkpoint, model.tokenizer, vision=model.vision, text=counting)
    list(m.stream_batch(items, sampling=KNOBS, max_new_tokens=CAPS, stop_ids=[], max_batch=3))
    continuous = counting.rows_per_step[:]
    counting.rows_per_step.clear()
    for s in range(0, len(items), 3):  # the old way: a fixed batch runs until its longest row ends
        list(m.stream_batch(items[s:s + 3], sampling=KNOBS[s:s + 3], max_new_tokens=CAPS[s:s + 3], stop_ids=[]))
    fixed = counting.rows_per_step
    assert sum(continuous) == sum(fixed) == sum(c - 1 for c in CAPS)  # the same tokens decoded
    assert len(continuous) < len(fixed)  # in fewer steps: more rows per step


def test_moves_and_growth_of_the_cache_keep_every_answer(model, image, monkeypatch):
    """Short text-only prompts first, then an image prompt longer than the shared slot (the live
    row moves right); a cache that starts 2 slots beyond the prompts (rows move left over slots
    nobody sees, and the cache grows)."""
    its = _items(image)
    items = [(None, "Hi"), (None, "\nText Recognition:"), its[0], its[1], its[3], its[2]]
    caps = [10, 2, 3, 30, 8, 12]
    alone = {i: _per_sequence(model.stream_batch([it], max_new_tokens=n, stop_ids=[]))[0]
             for i, (it, n) in enumerate(zip(items, caps))}
    moves = []
    original = KVCache.moved

    def moved(self, shift, ctx):
        moves.append((shift, self.ctx, ctx))
        return original(self, shift, ctx)

    monkeypatch.setattr(generate, "INITIAL_DECODE_SLOTS", 2)
    monkeypatch.setattr(KVCache, "moved", moved)
    events = list(model.stream_batch(items, max_new_tokens=caps, stop_ids=[], max_batch=2))
    assert _per_sequence(events) == alone
    assert any(shift > 0 for shift, _, _ in moves)  # right, for a longer prompt
    assert any(shift < 0 and old == new for shift, old, new in moves)  # left, no growth needed
    assert any(shift == 0 and new > old for shift, old, new in moves)  # grown


class GrowingForward(CountingForward):
    """An engine that asks for a cache grown a few slots at a time (``cache_growth``), recording
    each decode step's empty slots (the slots beyond what the step's mask covers)."""

    cache_growth = 3

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.empty: list[int] = []
        self.sizes: set[int] = set()

    def step(self, inputs_embeds, cos, sin, mask, write_pos, cache, logits="last", capture=None):
        if inputs_embeds.shape[1] == 1:
            self.empty.append(cache.ctx - mask.shape[-1])
            self.sizes.add(cache.ctx)
        return super().step(inputs_embeds, cos, sin, mask, write_pos, cache, logits, capture)


def test_cache_growth_keeps_the_cache_close_to_what_is_filled(model, image):
    """``text.cache_growth``: the cache starts that many slots beyond the prompts and grows by that
    many (not to room for the longest answer, not doubling); every answer stays what it is."""
    items = _items(image)
    growing = GrowingForward(model.checkpoint.weights, model.config.text)
    m = Model(model.checkpoint, model.tokenizer, vision=model.vision, text=growing)
    alone = _alone(model, items, [])
    events = list(m.stream_batch(items, sampling=KNOBS, max_new_tokens=CAPS, stop_ids=[], max_batch=3))
    assert _per_sequence(events) == alone
    assert growing.empty and max(growing.empty) < GrowingForward.cache_growth  # never more room than that
    assert len(growing.sizes) > 3  # it really grew, several times


class CountingMemory(CacheMemory):
    """A ``CacheMemory`` counting the buffer pairs it had to make (not the kept pair)."""

    made = 0

    def take(self, count, dtype):
        kept = self._free
        pair = super().take(count, dtype)
        self.made += pair is not kept
        return pair


class KeptMemoryForward(GrowingForward):
    """``GrowingForward`` whose caches live in a ``CacheMemory`` (as OpenVINO's do): grown and
    moved inside kept buffers, each ``stream`` call's cache in the last one's buffers."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.memory = CountingMemory()

    def new_cache(self, batch, ctx):
        c = self.config
        return KVCache(c.num_hidden_layers, batch, self.n_kv, ctx, self.head_dim, self.cache_dtype, memory=self.memory)


def test_caches_in_kept_memory_keep_every_answer(model, image, monkeypatch):
    """Rows moving right and left and the cache growing, all inside kept buffers, and a second
    call in the first one's buffers: every answer and event is what it is alone."""
    its = _items(image)
    items = [(None, "Hi"), (None, "\nText Recognition:"), its[0], its[1], its[3], its[2]]
    caps = [10, 2, 3, 30, 8, 12]
    alone = {i: _per_sequence(model.stream_batch([it], max_new_tokens=n, stop_ids=[]))[0]
             for i, (it, n) in enumerate(zip(items, caps))}
    kept = KeptMemoryForward(model.checkpoint.weights, model.config.text)
    m = Model(model.checkpoint, model.tokenizer, vision=model.vision, text=kept)
    moves = []
    original = KVCache._moved_in_place

    def in_place(self, shift, ctx):
        moves.append((shift, self.ctx, ctx))
        return original(self, shift, ctx)

    monkeypatch.setattr(KVCache, "_moved_in_place", in_place)
    made = []
    for _ in range(2):
        assert _per_sequence(list(m.stream_batch(items, max_new_tokens=caps, stop_ids=[], max_batch=2))) == alone
        made.append(kept.memory.made)
    assert any(s > 0 for s, _, _ in moves) and any(s < 0 for s, _, _ in moves)  # moved both ways in place
    assert any(new > old for _, old, new in moves)  # and grown in place
    assert made[0] >= 1 and made[1] == made[0]  # the second call ran in the first one's buffers


def test_fixed_shape_engine_rows_join_only_where_they_fit(model, image):
    fixed = FixedShapeForward(model.checkpoint.weights, model.config.text)
    m = Model(model.checkpoint, model.tokenizer, vision=model.vision, text=fixed)
    items = _items(image)[:5]
    caps = [40, 7, 12, 60, 9]
    alone = {i: _per_sequence(m.stream_batch([it], max_new_tokens=n, stop_ids=[]))[0]
             for i, (it, n) in enumerate(zip(items, caps))}
    fixed.rows_per_step.clear()
    events = list(m.stream_batch(items, max_new_tokens=caps, stop_ids=[], max_batch=2))
    assert _per_sequence(events) == alone
    assert max(fixed.rows_per_step) == 2
    # request 3 (52 prompt tokens, 60 to generate: 112 of 128 slots) cannot join beside request 0
    # late in its answer; it waits for the batch to drain instead of being cut short
    assert [len(r.token_ids) for r in events[-1].results] == caps


def test_cancel_in_the_middle_ends_live_and_waiting_requests(model, image):
    items = _items(image)
    cancel = threading.Event()
    events = []
    for e in model.stream_batch(items, sampling=KNOBS, max_new_tokens=CAPS, stop_ids=[], max_batch=2, cancel=cancel):
        events.append(e)
        if isinstance(e, TokenEvent) and e.seq_index == 2 and e.n_generated == 3:
            cancel.set()
    done = events[-1]
    assert isinstance(done, Done) and len(done.results) == len(items)
    # request 1 (7 tokens) ended, request 2 took its row; 0 and 2 were live, 3… waiting
    assert [r.finish_reason for r in done.results] == ["cancelled", "length"] + ["cancelled"] * 5
    assert 7 < len(done.results[0].token_ids) < CAPS[0] and len(done.results[2].token_ids) == 3
    assert [len(r.token_ids) for r in done.results[3:]] == [0, 0, 0, 0]  # never joined
    assert not any(isinstance(e, TokenEvent) and e.seq_index >= 3 for e in events)
    alone = _alone(model, items, [])
    for i, r in enumerate(done.results):  # what each got so far is what it gets alone
        tokens = [ev[1] for ev in alone[i] if ev[0] == "token"]
        assert r.token_ids == tokens[:len(r.token_ids)]
    assert sorted(e.seq_index for e in events if isinstance(e, SequenceDone)) == list(range(len(items)))


def test_processor_rows_joined_later_equal_one_processor():
    rng = np.random.default_rng(1)
    knobs = [SamplingParams(2, 0.0, 0.0, 1.0), SamplingParams(100, 1.0, 0.05, 1.0), SamplingParams(0, 0.0, 0.3, 1.3)]
    together = LogitsProcessor(knobs, 3, 9)
    first = LogitsProcessor(knobs[:1], 1, 9)  # no counts needed: a joining row brings them
    tokens = [[1, 2, 1], [3, 3, 4], [1, 2, 5]]
    first.append(np.array([tokens[0][0]]))
    joined = LogitsProcessor(knobs[1:], 2, 9)
    joined.append(np.array([tokens[1][0], tokens[2][0]]))
    first.extend(joined)
    together.append(np.array([t[0] for t in tokens]))
    for step in (1, 2):
        logits = rng.standard_normal((3, 9)).astype(np.float32)
        np.testing.assert_array_equal(first(logits), together(logits))
        first.append(np.array([t[step] for t in tokens]))
        together.append(np.array([t[step] for t in tokens]))
