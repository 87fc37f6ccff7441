"""The generation loop: host bookkeeping around the vision tower and the decoder forward pass.

Everything that is not the forward pass lives here: scattering image embeds into the token
embeddings, M-RoPE positions and their cos/sin, the left-padded KV-cache layout and its masks,
sampling knobs, stop handling, incremental detokenisation, batch compaction, events and timings.

Batch layout: prompts of lengths L_b are placed right-aligned in a shared cache of P = max L_b
prompt slots (row b starts at slot off_b = P − L_b; slots before it are masked). Each prompt is
prefilled on its own (in chunks, logits only for its last token); then all rows decode together,
one shared write slot per step. A row that stops leaves the batch (the cache is compacted), so
finished rows cost no compute.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .config import ModelConfig
from .decoder import KVCache, TextForward
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
) -> Iterator[Event]:
    """Generate greedily for every request; yields events, the last one ``Done``.

    ``stop_ids`` end a sequence (the stop id is kept in ``token_ids``); ``strip_ids`` (stop, pad,
    bos) never reach the text. ``max_new_tokens=None`` runs to the context limit
    (``max_position_embeddings`` total tokens), as MinerU's transformers client does.
    ``params`` and ``max_new_tokens`` may also be sequences with one value per request: each
    row then decodes with its own knobs and limit, exactly as it would alone.
    """
    t0 = time.perf_counter() if t0 is None else t0
    timing = timing or Timing()
    tc = config.text
    B = len(requests)
    stop_set, strip_set = {int(i) for i in stop_ids}, {int(i) for i in strip_ids} | {int(i) for i in stop_ids}

    def elapsed() -> float:
        return time.perf_counter() - t0

    # ---- per-request limits (errors before any work)
    if max_new_tokens is None or isinstance(max_new_tokens, (int, np.integer)):
        row_max: list[int | None] = [max_new_tokens] * B
    else:
        row_max = list(max_new_tokens)
        if len(row_max) != B:
            raise ValueError(f"{len(row_max)} max_new_tokens values for {B} requests")
    for m in row_max:
        if m is not None and int(m) < 1:
            raise ValueError(f"max_new_tokens must be at least 1, got {m}")
    lengths = [int(np.asarray(r.input_ids).shape[0]) for r in requests]
    for b, L in enumerate(lengths):
        if L == 0:
            raise PromptError(f"request {b}: the prompt has no tokens")
        if L >= tc.max_position_embeddings:
            raise PromptError(
                f"request {b}: the prompt is {L} tokens, the model's context is {tc.max_position_embeddings} tokens"
                " — use a smaller image or a shorter prompt"
            )
    room = [tc.max_position_embeddings - L for L in lengths]
    limits = [r if m is None else min(int(m), r) for r, m in zip(room, row_max)]

    generated: list[list[int]] = [[] for _ in range(B)]
    texts: list[list[str]] = [[] for _ in range(B)]
    detoks = [new_detokenizer() for _ in range(B)]
    results: list[GenerationResult | None] = [None] * B

    def finish(b: int, reason: str) -> GenerationResult:
        tail = detoks[b].flush()
        if tail:
            texts[b].append(tail)
        res = GenerationResult(list(generated[b]), "".join(texts[b]), reason, timing, lengths[b])  # type: ignore[arg-type]
        results[b] = res
        return res

    def emit_token(b: int, tok: int) -> list[Event]:
        """Record token ``tok`` of row b; returns its TokenEvent (+ SequenceDone if it ended)."""
        generated[b].append(tok)
        delta = "" if tok in strip_set else detoks[b].push(tok)
        reason = "stop" if tok in stop_set else ("length" if len(generated[b]) >= limits[b] else None)
        tail = ""
        if reason is not None:
            tail = detoks[b].flush()
        delta += tail
        if delta:
            texts[b].append(delta)
        events: list[Event] = [TokenEvent(b, tok, delta, len(generated[b]), elapsed())]
        if reason is not None:
            res = GenerationResult(list(generated[b]), "".join(texts[b]), reason, timing, lengths[b])  # type: ignore[arg-type]
            results[b] = res
            events.append(SequenceDone(b, res))
        return events

    try:
        _check(cancel)
        # ---- vision
        if any(r.pixel_values is not None for r in requests):
            yield StageEvent("vision", False, elapsed())
            tv = time.perf_counter()
            image_embeds = run_vision(vision, requests, cancel)
            timing.vision_s = time.perf_counter() - tv
            timing.vision_tokens = sum(e.shape[0] for e in image_embeds if e is not None)
            yield StageEvent("vision", True, elapsed(), timing.vision_s, timing.vision_tokens)
        else:
            image_embeds = [None] * B

        # ---- embeddings with image embeds scattered at the pad positions; M-RoPE positions
        embeds: list[np.ndarray] = []
        positions: list[np.ndarray] = []
        deltas: list[int] = []
        for b, r in enumerate(requests):
            ids_L = np.asarray(r.input_ids, dtype=np.int64)
            types_L = np.asarray(r.mm_token_type_ids, dtype=np.int64)
            emb_LH = text.embed(ids_L[None])[0]
            is_pad_L = ids_L == config.image_token_id
            n_pad = int(is_pad_L.sum())
            img = image_embeds[b]
            if n_pad != (0 if img is None else img.shape[0]):
                raise PromptError(f"request {b}: {n_pad} image-pad tokens but {0 if img is None else img.shape[0]} image embeds")
            if n_pad:
                emb_LH[is_pad_L] = img
            pos_3L, delta = get_rope_index(ids_L, types_L, [r.grid_thw] if r.grid_thw else [], config.vision.spatial_merge_size)
            embeds.append(emb_LH)
            positions.append(pos_3L)
            deltas.append(delta)

        # ---- prefill each prompt into its right-aligned slots
        P = max(lengths)
        offsets = np.array([P - L for L in lengths], dtype=np.int64)
        # A fixed-shape engine (Core ML) may declare a fixed prefill chunk (the last chunk is then
        # padded: pad rows write slots >= P, which decode overwrites before anything attends them)
        # and a fixed cache length it cannot grow.
        fixed_chunk = getattr(text, "fixed_chunk", None)
        max_context = getattr(text, "max_context", None)
        chunk = int(fixed_chunk or prefill_chunk)
        pad_slots = chunk - 1 if fixed_chunk else 0
        if max_context is not None:
            if P + pad_slots >= max_context:
                raise PromptError(f"the prompt is {P} tokens, the engine's fixed context is {max_context} slots")
            limits = [min(n, max_context - P) for n in limits]
            ctx = int(max_context)
        else:
            ctx = P + max(min(max(limits), INITIAL_DECODE_SLOTS), pad_slots)
        cache: KVCache = text.new_cache(B, ctx)
        yield StageEvent("prefill", False, elapsed(), tokens=sum(lengths))
        tp = time.perf_counter()
        last_logits_BV = np.empty((B, tc.vocab_size), dtype=np.float32)
        for b in range(B):
            row = cache.row(b)
            off, L = int(offsets[b]), lengths[b]
            cos_LD, sin_LD = mrope_cos_sin(positions[b], tc.head_dim, tc.rope_theta, tc.mrope_section)
            for s0 in range(0, L, chunk):
                _check(cancel)
                s1 = min(L, s0 + chunk)
                n = s1 - s0
                S = chunk if fixed_chunk else n
                mask_ST = causal_mask(off + s0 + S, off, off + s0 + np.arange(S))
                emb_SH, cos_SD, sin_SD = embeds[b][s0:s1], cos_LD[s0:s1], sin_LD[s0:s1]
                if S > n:  # padded final chunk: zero embeds, identity rotation
                    emb_SH = np.concatenate([emb_SH, np.zeros((S - n, emb_SH.shape[1]), np.float32)])
                    cos_SD = np.concatenate([cos_SD, np.ones((S - n, cos_SD.shape[1]), np.float32)])
                    sin_SD = np.concatenate([sin_SD, np.zeros((S - n, sin_SD.shape[1]), np.float32)])
                which = "none" if s1 < L else ("last" if S == n else n - 1)
                out = text.step(emb_SH[None], cos_SD[None], sin_SD[None], mask_ST[None], off + s0, row, logits=which)
            last_logits_BV[b] = out[0, -1]
        timing.prefill_s = time.perf_counter() - tp
        timing.prefill_tokens = sum(lengths)
        yield StageEvent("prefill", True, elapsed(), timing.prefill_s, timing.prefill_tokens)

        # ---- first token of every row (from the prefill logits)
        proc = LogitsProcessor(params, B, last_logits_BV.shape[-1])
        tokens_B = greedy(proc(last_logits_BV))
        proc.append(tokens_B)
        timing.first_token_s = elapsed()
        for b in range(B):
            yield from emit_token(b, int(tokens_B[b]))

        # ---- decode: all unfinished rows together, one shared write slot per step
        active = [b for b in range(B) if results[b] is None]
        if len(active) < B:
            proc.keep(active)
            cache = cache.select(active) if active else cache
        last_B = np.array([tokens_B[b] for b in active], dtype=np.int64)
        if active:
            yield StageEvent("decode", False, elapsed())
        n_gen = 1  # tokens generated so far by every active row
        while active:
            _check(cancel)
            ts = time.perf_counter()
            slot = P + n_gen - 1  # where the token being fed is written
            if slot >= cache.ctx:
                cache = cache.grown(min(P + max(limits[b] for b in active), 2 * cache.ctx))
            act = np.asarray(active)
            offs_A = offsets[act]
            pos_A = np.array([lengths[b] + n_gen - 1 + deltas[b] for b in active], dtype=np.int64)
            cos_AD, sin_AD = mrope_cos_sin(pos_A, tc.head_dim, tc.rope_theta, tc.mrope_section)
            T = slot + 1
            mask_A1T = np.where(np.arange(T)[None, :] >= offs_A[:, None], np.float32(0), NEG_INF).astype(np.float32)[:, None]
            logits_A1V = text.step(text.embed(last_B[:, None]), cos_AD[:, None], sin_AD[:, None], mask_A1T, slot, cache)
            tokens_A = greedy(proc(logits_A1V[:, -1]))
            proc.append(tokens_A)
            n_gen += 1
            events: list[Event] = []
            for i, b in enumerate(active):
                events.extend(emit_token(b, int(tokens_A[i])))
            timing.decode_s += time.perf_counter() - ts
            timing.decode_tokens += len(active)
            timing.decode_steps += 1
            yield from events
            keep = [i for i, b in enumerate(active) if results[b] is None]
            if len(keep) < len(active):
                if keep:
                    cache = cache.select(keep)
                    proc.keep(keep)
                active = [active[i] for i in keep]
                last_B = tokens_A[keep].astype(np.int64)
            else:
                last_B = tokens_A.astype(np.int64)
        if timing.decode_steps:
            yield StageEvent("decode", True, elapsed(), timing.decode_s, timing.decode_tokens)
    except Cancelled:
        for b in range(B):
            if results[b] is None:
                yield SequenceDone(b, finish(b, "cancelled"))
    timing.total_s = elapsed()
    yield Done([r for r in results if r is not None], timing)
