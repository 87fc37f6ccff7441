"""The generation loop: host bookkeeping around the vision tower and the decoder forward pass.

Everything that is not the forward pass lives here: scattering image embeds into the token
embeddings, M-RoPE positions and their cos/sin, the KV-cache layout and its masks, sampling
knobs, stop handling, incremental detokenisation, the continuous batch, events and timings.

**Continuous batching.** At most ``max_batch`` requests decode together (the live rows); the
others wait in request order. When a row ends (a stop id, its limit), the next waiting request
takes its slot between two decode steps — its vision, its prefill (in chunks, logits only for its
last token), its first token — and the next step carries it with the others. So every step
carries as many rows as there is work, up to ``max_batch``. Each row keeps its own knobs, limit,
detokenizer and processor state, so its tokens, text and events are those it gets alone.

**Cache layout.** Live rows share one write slot per decode step (the ``TextForward`` contract:
one ``write_pos``). Row r's prompt of L_r tokens fills slots start_r … start_r + L_r − 1 and its
fed tokens follow, so start_r + L_r + n_r − 1 = slot for every live row (n_r tokens generated);
slots before start_r are masked. A joining row is right-aligned at the current slot (start =
slot − L); a prompt longer than the slot first moves the live rows right. When the slots run
out, the rows move left by the smallest start (nothing before it is visible) and the cache
grows only if that is not enough. When no row is live the layout starts afresh. The rows of the
cache are a pool of ``max_batch``: live rows are rows 0…n−1 (a view, no copy per step); a row
that ends takes the last live row in its place (``move_row``).

**How another engine plugs in** (Core ML does, an OpenVINO engine can): give ``Model`` (or this
function) its own ``vision`` callable (``VisionTower``'s call) and ``text`` (a ``TextForward``:
``new_cache``, ``embed``, ``step``). Its cache offers ``batch``, ``ctx``, ``row(b)`` and
``rows(n)`` (views whose writes land in the cache), ``move_row(src, dst)`` and ``grown(ctx)``;
``moved(shift, ctx)`` is optional. A fixed-shape engine sets ``text.fixed_chunk`` (padded prefill
chunks) and/or ``text.max_context`` (a cache that never grows): its cache is never moved, and
a row joins a running batch only where its whole answer fits, else when the batch drains. An
engine whose decode step reads every slot of the cache (empty ones too) sets
``text.cache_growth``: the cache then starts with that many slots beyond the prompt and, when
full, is remade with that many beyond the step's (instead of up to ``INITIAL_DECODE_SLOTS``
and doubling; rows moving left shrink it too), so a step reads fewer than ``cache_growth``
empty slots; remaking copies the cache, once every ``cache_growth`` steps.
Nothing here depends on how the forward passes compute.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .config import ModelConfig
from .kv_cache import KVCache, TextForward
from mineru_tui.engines.errors import PromptError
from mineru_tui.engines.events import (
    CancelFlag,
    Cancelled,
    Done,
    Event,
    GenerationResult,
    SequenceDone,
    StageEvent,
    Timing,
    TokenEvent,
)
from .rope import get_rope_index, mrope_cos_sin
from .sampling import LogitsProcessor, SamplingParams, greedy

NEG_INF = np.float32(-np.inf)
PREFILL_CHUNK = 512  # prompt tokens per forward call: bounds the [heads, S, T] score memory
VISION_MAX_PATCHES = 8192  # patches per vision call when images are batched (bounds activation memory)
INITIAL_DECODE_SLOTS = 1024  # cache slots allocated up front beyond the prompt; grown on demand


@dataclass
class PreparedRequest:
    """One (image, prompt) pair after preprocessing and tokenisation.

    input_ids / mm_token_type_ids: [L] (1 at ``<|image_pad|>`` tokens);
    pixel_values: [N, 1176] float32 or None (text only); grid_thw: (t, h, w) patches.
    """

    input_ids: np.ndarray
    mm_token_type_ids: np.ndarray
    pixel_values: np.ndarray | None = None
    grid_thw: tuple[int, int, int] | None = None


class Detokenizer(Protocol):
    """What the loop needs from an incremental detokenizer (``tokenizer.IncrementalDetokenizer``)."""

    def push(self, token_id: int) -> str: ...

    def flush(self) -> str: ...


def _check(cancel: CancelFlag | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled()


def causal_mask(slots_T: int, first_slot: int, token_slots_S: np.ndarray) -> np.ndarray:
    """Additive mask [S, T]: token at slot s sees slots first_slot…s (0), nothing else (−inf)."""
    j_T = np.arange(slots_T)
    allowed_ST = (j_T[None, :] >= first_slot) & (j_T[None, :] <= token_slots_S[:, None])
    return np.where(allowed_ST, np.float32(0), NEG_INF).astype(np.float32)


def run_vision(
    vision: Callable,
    requests: Sequence[PreparedRequest],
    cancel: CancelFlag | None = None,
    max_patches: int | None = None,
) -> list[np.ndarray | None]:
    """Image embeds per request (None for text-only ones); images grouped into few vision calls."""
    max_patches = max_patches or VISION_MAX_PATCHES
    out: list[np.ndarray | None] = [None] * len(requests)
    group: list[int] = []
    merge = int(getattr(getattr(vision, "cfg", None), "spatial_merge_size", 2))

    def flush_group():
        if not group:
            return
        pixels = np.concatenate([requests[i].pixel_values for i in group], axis=0)
        grids = [requests[i].grid_thw for i in group]
        embeds = vision(pixels, grids, check=lambda: _check(cancel))
        start = 0
        for i, (t, h, w) in zip(group, grids):
            n = t * h * w // merge**2
            out[i] = embeds[start : start + n]
            start += n
        group.clear()

    patches = 0
    for i, r in enumerate(requests):
        if r.pixel_values is None:
            continue
        n = r.pixel_values.shape[0]
        if group and patches + n > max_patches:
            flush_group()
            patches = 0
        group.append(i)
        patches += n
    flush_group()
    return out


def choose_tokens(logits_BV: np.ndarray, seqs: Sequence[int]) -> np.ndarray:
    """The next token of each row from its processed logits (``seqs``: the rows' request
    indices). Greedy; a benchmark that forces answers replaces this function."""
    return greedy(logits_BV)


class _Sequence:
    """One request's bookkeeping: its limit, its place in the cache, its tokens and text."""

    def __init__(self, index: int, length: int, limit: int, params: SamplingParams, detok: Detokenizer):
        self.index = index
        self.length = length  # prompt tokens
        self.limit = limit  # tokens it may generate
        self.params = params
        self.detok = detok
        self.start = 0  # its first cache slot
        self.delta = 0  # M-RoPE position delta (positions after the prompt: L + n + delta)
        self.embeds: np.ndarray | None = None  # [L, H] with the image embeds scattered in
        self.positions: np.ndarray | None = None  # [3, L]
        self.generated: list[int] = []
        self.texts: list[str] = []
        self.result: GenerationResult | None = None


def run_generation(
    config: ModelConfig,
    vision: Callable,
    text: TextForward,
    requests: Sequence[PreparedRequest],
    new_detokenizer: Callable[[], Detokenizer],
    *,
    max_new_tokens: int | None | Sequence[int | None] = None,
    params: SamplingParams | Sequence[SamplingParams] = SamplingParams(),
    stop_ids: Sequence[int] = (),
    strip_ids: Sequence[int] = (),
    cancel: CancelFlag | None = None,
    timing: Timing | None = None,
    t0: float | None = None,
    prefill_chunk: int = PREFILL_CHUNK,
    max_batch: int | None = None,
) -> Iterator[Event]:
    """Generate for every request; yields events, the last one ``Done``.

    ``stop_ids`` end a sequence (the stop id is kept in ``token_ids``); ``strip_ids`` (stop, pad,
    bos) never reach the text. ``max_new_tokens=None`` runs to the context limit
    (``max_position_embeddings`` total tokens), as MinerU's transformers client does.
    ``params`` and ``max_new_tokens`` may also be sequences with one value per request: each
    row then decodes with its own knobs and limit, exactly as it would alone. ``max_batch``
    rows decode together at most (None: every request at once); the others wait and join as
    rows end. Input errors are raised before any work.
    """
    run = _Generation(config, vision, text, requests, new_detokenizer, max_new_tokens=max_new_tokens,
                      params=params, stop_ids=stop_ids, strip_ids=strip_ids, cancel=cancel,
                      timing=timing, t0=t0, prefill_chunk=prefill_chunk, max_batch=max_batch)
    yield from run.events()


class _Generation:
    """One ``run_generation`` call: the waiting queue, the live rows and their cache."""

    def __init__(self, config, vision, text, requests, new_detokenizer, *, max_new_tokens, params,
                 stop_ids, strip_ids, cancel, timing, t0, prefill_chunk, max_batch):
        self.t0 = time.perf_counter() if t0 is None else t0
        self.timing = timing or Timing()
        self.config, self.tc = config, config.text
        self.vision, self.text, self.requests, self.cancel = vision, text, requests, cancel
        self.stop_set = {int(i) for i in stop_ids}
        self.strip_set = {int(i) for i in strip_ids} | self.stop_set
        # a fixed-shape engine may declare a fixed prefill chunk (the last chunk is then padded:
        # pad rows write the row's own later slots, which decode overwrites before anything
        # attends them) and a fixed cache length it cannot grow
        self.fixed_chunk = getattr(text, "fixed_chunk", None)
        self.max_context = getattr(text, "max_context", None)
        self.growth = getattr(text, "cache_growth", None)  # slots allocated ahead at a time
        self.chunk = int(self.fixed_chunk or prefill_chunk)
        self.seqs = self._sequences(requests, new_detokenizer, max_new_tokens, params)
        self.max_batch = max(1, min(int(max_batch or len(requests)), len(requests)))
        self.waiting = list(range(len(requests)))  # request order; popped from the front
        self.live: list[_Sequence] = []  # live[i] is cache row i
        self.joining: list[_Sequence] = []  # placed, not prefilled yet
        self.cache: KVCache | None = None
        self.slot = 0  # where the next decode step writes
        self.proc = LogitsProcessor([], 0, self.tc.vocab_size)  # rows in live order
        self.decoding = False

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    # ---------------------------------------------------------------- inputs and limits

    def _sequences(self, requests, new_detokenizer, max_new_tokens, params) -> list[_Sequence]:
        """Per-request limits and knobs, checked before any work."""
        tc, B = self.tc, len(requests)
        if max_new_tokens is None or isinstance(max_new_tokens, (int, np.integer)):
            row_max: list[int | None] = [max_new_tokens] * B
        else:
            row_max = list(max_new_tokens)
            if len(row_max) != B:
                raise ValueError(f"{len(row_max)} max_new_tokens values for {B} requests")
        for m in row_max:
            if m is not None and int(m) < 1:
                raise ValueError(f"max_new_tokens must be at least 1, got {m}")
        knobs = [params] * B if isinstance(params, SamplingParams) else list(params)
        if len(knobs) != B:
            raise ValueError(f"{len(knobs)} sampling params for a batch of {B}")
        for p in knobs:
            p.validate()
        pad_slots = self.chunk - 1 if self.fixed_chunk else 0
        out = []
        for b, (r, m, p) in enumerate(zip(requests, row_max, knobs)):
            L = int(np.asarray(r.input_ids).shape[0])
            if L == 0:
                raise PromptError(f"request {b}: the prompt has no tokens")
            if L >= tc.max_position_embeddings:
                raise PromptError(
                    f"request {b}: the prompt is {L} tokens, the model's context is {tc.max_position_embeddings} tokens"
                    " — use a smaller image or a shorter prompt"
                )
            limit = tc.max_position_embeddings - L if m is None else min(int(m), tc.max_position_embeddings - L)
            if self.max_context is not None:
                if L + pad_slots >= self.max_context:
                    raise PromptError(f"the prompt is {L} tokens, the engine's fixed context is {self.max_context} slots")
                limit = min(limit, self.max_context - L)
            out.append(_Sequence(b, L, limit, p, new_detokenizer()))
        return out

    def _inputs(self, s: _Sequence, image_embeds: np.ndarray | None) -> None:
        """The row's embeddings with its image embeds at the pad positions, and its M-RoPE positions."""
        r = self.requests[s.index]
        ids_L = np.asarray(r.input_ids, dtype=np.int64)
        types_L = np.asarray(r.mm_token_type_ids, dtype=np.int64)
        emb_LH = self.text.embed(ids_L[None])[0]
        is_pad_L = ids_L == self.config.image_token_id
        n_pad = int(is_pad_L.sum())
        n_img = 0 if image_embeds is None else image_embeds.shape[0]
        if n_pad != n_img:
            raise PromptError(f"request {s.index}: {n_pad} image-pad tokens but {n_img} image embeds")
        if n_pad:
            emb_LH[is_pad_L] = image_embeds
        grids = [r.grid_thw] if r.grid_thw else []
        s.positions, s.delta = get_rope_index(ids_L, types_L, grids, self.config.vision.spatial_merge_size)
        s.embeds = emb_LH

    # ---------------------------------------------------------------- tokens, text, results

    def _emit(self, s: _Sequence, tok: int) -> list[Event]:
        """Record token ``tok`` of a row; its TokenEvent (+ SequenceDone when it ended)."""
        s.generated.append(tok)
        delta = "" if tok in self.strip_set else s.detok.push(tok)
        reason = "stop" if tok in self.stop_set else ("length" if len(s.generated) >= s.limit else None)
        if reason is not None:
            delta += s.detok.flush()
        if delta:
            s.texts.append(delta)
        events: list[Event] = [TokenEvent(s.index, tok, delta, len(s.generated), self.elapsed())]
        if reason is not None:
            events.append(SequenceDone(s.index, self._result(s, reason)))
        return events

    def _result(self, s: _Sequence, reason: str) -> GenerationResult:
        s.result = GenerationResult(list(s.generated), "".join(s.texts), reason, self.timing, s.length)  # type: ignore[arg-type]
        return s.result

    def _cancelled(self) -> Iterator[Event]:
        """Every unfinished request ends "cancelled" with what it has (waiting ones: nothing)."""
        for s in self.seqs:
            if s.result is None:
                tail = s.detok.flush() if s.generated else ""
                if tail:
                    s.texts.append(tail)
                yield SequenceDone(s.index, self._result(s, "cancelled"))

    def _choose(self, proc: LogitsProcessor, logits_BV: np.ndarray, rows: Sequence[_Sequence]) -> np.ndarray:
        tokens_B = choose_tokens(proc(logits_BV), [s.index for s in rows])
        proc.append(tokens_B)
        return tokens_B

    # ---------------------------------------------------------------- the loop

    def events(self) -> Iterator[Event]:
        timing = self.timing
        try:
            _check(self.cancel)
            while self.waiting or self.live:
                while self.waiting and len(self.live) < self.max_batch:
                    waiting = len(self.waiting)
                    yield from self._admit()  # rows that end at their first token free theirs again
                    if len(self.waiting) == waiting:
                        break  # the next request does not fit beside the live rows yet
                if not self.live:
                    continue  # every joining row ended at its first token
                _check(self.cancel)
                if not self.decoding:
                    self.decoding = True
                    yield StageEvent("decode", False, self.elapsed())
                ts = time.perf_counter()
                events = self._decode_step()
                timing.decode_s += time.perf_counter() - ts
                yield from events
                self._retire()
            if self.decoding:
                yield StageEvent("decode", True, self.elapsed(), timing.decode_s, timing.decode_tokens)
        except Cancelled:
            yield from self._cancelled()
        timing.total_s = self.elapsed()
        yield Done([s.result for s in self.seqs if s.result is not None], timing)

    # ---------------------------------------------------------------- joining: vision, prefill, first token

    def _admit(self) -> Iterator[Event]:
        """Place the next waiting requests in the free rows, run their vision and prefill, and
        emit their first tokens (from the prefill's logits)."""
        timing = self.timing
        group = self._place_waiting()
        if not group:
            return
        seqs = tuple(s.index for s in group)
        prepared = [self.requests[s.index] for s in group]
        if any(r.pixel_values is not None for r in prepared):
            yield StageEvent("vision", False, self.elapsed(), seqs=seqs)
            tv = time.perf_counter()
            image_embeds = run_vision(self.vision, prepared, self.cancel)
            seconds = time.perf_counter() - tv
            tokens = sum(e.shape[0] for e in image_embeds if e is not None)
            timing.vision_s += seconds
            timing.vision_tokens += tokens
            yield StageEvent("vision", True, self.elapsed(), seconds, tokens, seqs=seqs)
        else:
            image_embeds = [None] * len(group)
        for s, img in zip(group, image_embeds):
            self._inputs(s, img)

        tokens = sum(s.length for s in group)
        yield StageEvent("prefill", False, self.elapsed(), tokens=tokens, seqs=seqs)
        tp = time.perf_counter()
        self._make_room(max([self._prefill_end(s) for s in group] + [self.slot + 1]))
        logits_GV = np.stack([self._prefill(s, len(self.live) + i) for i, s in enumerate(group)])
        seconds = time.perf_counter() - tp
        timing.prefill_s += seconds
        timing.prefill_tokens += tokens
        yield StageEvent("prefill", True, self.elapsed(), seconds, tokens, seqs=seqs)

        proc = LogitsProcessor([s.params for s in group], len(group), logits_GV.shape[-1])
        first_G = self._choose(proc, logits_GV, group)
        self.proc.extend(proc)
        self.live += group
        self.joining = []
        if not timing.first_token_s:
            timing.first_token_s = self.elapsed()
        events: list[Event] = []
        for s, tok in zip(group, first_G):
            events.extend(self._emit(s, int(tok)))
        yield from events
        self._retire()

    def _prefill(self, s: _Sequence, row: int) -> np.ndarray:
        """Prefill one prompt into cache row ``row`` at its slots; the logits of its last token."""
        tc, chunk, L, off = self.tc, self.chunk, s.length, s.start
        cache_row = self.cache.row(row)
        cos_LD, sin_LD = mrope_cos_sin(s.positions, tc.head_dim, tc.rope_theta, tc.mrope_section)
        out = None
        for s0 in range(0, L, chunk):
            _check(self.cancel)
            s1 = min(L, s0 + chunk)
            n = s1 - s0
            S = chunk if self.fixed_chunk else n
            mask_ST = causal_mask(off + s0 + S, off, off + s0 + np.arange(S))
            emb_SH, cos_SD, sin_SD = s.embeds[s0:s1], cos_LD[s0:s1], sin_LD[s0:s1]
            if S > n:  # padded final chunk: zero embeds, identity rotation
                emb_SH = np.concatenate([emb_SH, np.zeros((S - n, emb_SH.shape[1]), np.float32)])
                cos_SD = np.concatenate([cos_SD, np.ones((S - n, cos_SD.shape[1]), np.float32)])
                sin_SD = np.concatenate([sin_SD, np.zeros((S - n, sin_SD.shape[1]), np.float32)])
            which = "none" if s1 < L else ("last" if S == n else n - 1)
            out = self.text.step(emb_SH[None], cos_SD[None], sin_SD[None], mask_ST[None], off + s0, cache_row, logits=which)
        s.embeds = None  # not needed any more
        return out[0, -1]

    # ---------------------------------------------------------------- one decode step

    def _decode_step(self) -> list[Event]:
        """Feed every live row's last token at the shared slot; choose and record the next ones."""
        tc, live = self.tc, self.live
        self._make_room(self.slot + 1)
        pos_A = np.array([s.length + len(s.generated) - 1 + s.delta for s in live], dtype=np.int64)
        cos_AD, sin_AD = mrope_cos_sin(pos_A, tc.head_dim, tc.rope_theta, tc.mrope_section)
        starts_A = np.array([s.start for s in live], dtype=np.int64)
        T = self.slot + 1
        mask_A1T = np.where(np.arange(T)[None, :] >= starts_A[:, None], np.float32(0), NEG_INF).astype(np.float32)[:, None]
        last_A1 = np.array([[s.generated[-1]] for s in live], dtype=np.int64)
        logits_A1V = self.text.step(self.text.embed(last_A1), cos_AD[:, None], sin_AD[:, None], mask_A1T,
                                    self.slot, self.cache.rows(len(live)))
        tokens_A = self._choose(self.proc, logits_A1V[:, -1], live)
        self.slot += 1
        self.timing.decode_tokens += len(live)
        self.timing.decode_steps += 1
        events: list[Event] = []
        for s, tok in zip(live, tokens_A):
            events.extend(self._emit(s, int(tok)))
        return events

    # ---------------------------------------------------------------- rows: leave, join, slots

    def _retire(self) -> None:
        """Rows that ended leave; the last live rows move into their cache rows (no gaps)."""
        live = self.live
        ended = [i for i, s in enumerate(live) if s.result is not None]
        if not ended:
            return
        n = len(live) - len(ended)
        holes = [i for i in ended if i < n]
        movers = [i for i in range(n, len(live)) if live[i].result is None]
        order = list(range(n))
        for h, m in zip(holes, movers):
            self.cache.move_row(m, h)
            order[h] = m
        self.live = [live[i] for i in order]
        self.proc.keep(order)

    def _span(self, s: _Sequence) -> int:
        """Slots a row may use from its start: its prompt, then a slot per fed token."""
        return max(s.length + s.limit - 1, self._prefill_end(s) - s.start)

    def _prefill_end(self, s: _Sequence) -> int:
        """One past the last slot the row's prefill writes (padded chunks write beyond the prompt)."""
        L = s.length
        return s.start + (-(-L // self.chunk) * self.chunk if self.fixed_chunk else L)

    def _place_waiting(self) -> list[_Sequence]:
        """The next waiting requests that can join now (request order, up to the free rows),
        placed right-aligned at the shared slot."""
        group = self.joining = []
        while self.waiting and len(self.live) + len(group) < self.max_batch:
            s = self.seqs[self.waiting[0]]
            if not (self.live or group):  # a fresh layout
                self.slot, s.start = s.length, 0
            elif not self._fit(s, group):
                break
            group.append(s)
            self.waiting.pop(0)
        if group and self.cache is None:
            ahead = int(self.growth or INITIAL_DECODE_SLOTS)
            ctx = self.max_context or (self.slot + max(min(max(s.limit for s in self.seqs), ahead),
                                                       self.chunk - 1 if self.fixed_chunk else 0))
            self.cache = self.text.new_cache(self.max_batch, int(ctx))
        return group

    def _fit(self, s: _Sequence, group: list[_Sequence]) -> bool:
        """Place ``s`` at the current slot beside the live and joining rows, moving them right if
        its prompt is longer than the slot; False when it has to wait."""
        shift = max(0, s.length - self.slot)
        if shift and self.live and not self._can_move():
            return False
        if self.max_context is not None:  # everything must fit the fixed cache as it is
            for r in group + [s]:
                start = self.slot + shift - r.length if r is s else r.start + shift
                if start + max(r.length + r.limit - 1, self._prefill_end(r) - r.start) > self.max_context:
                    return False
        if shift:
            if self.live:
                self._move(shift, self.cache.ctx + shift)
            else:
                for r in group:
                    r.start += shift
                self.slot += shift
        s.start = self.slot - s.length
        return True

    def _can_move(self) -> bool:
        return self.max_context is None and hasattr(self.cache, "moved")

    def _move(self, shift: int, ctx: int) -> None:
        """Move every row's slots by ``shift`` in a cache of ``ctx`` slots (starts and slot follow)."""
        self.cache = self.cache.moved(shift, ctx)
        for r in self.live + self.joining:
            r.start += shift
        self.slot += shift

    def _make_room(self, need: int) -> None:
        """At least ``need`` slots: move the rows left over the slots nobody sees, grow if still short."""
        ctx = self.cache.ctx
        if need <= ctx:
            return
        rows = self.live + self.joining
        low = min(r.start for r in rows) if self._can_move() else 0
        need -= low
        cap = max(r.start + self._span(r) for r in rows) - low  # what the rows can still use
        if self.growth:  # room for this step and growth − 1 more (the cache shrinks when rows move left)
            new_ctx = max(need, min(need - 1 + int(self.growth), cap))
        else:
            new_ctx = ctx if need <= ctx else max(need, min(2 * ctx, cap))
        if low:
            self._move(-low, new_ctx)
        else:
            self.cache = self.cache.grown(new_ctx)
