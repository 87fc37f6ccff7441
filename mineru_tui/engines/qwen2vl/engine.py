"""The host's engine: a :class:`~mineru_tui.engines.qwen2vl.model.Model` (any forward passes)
behind the :class:`~mineru_tui.engines.Engine` interface; numpy, OpenVINO and Core ML are this
engine over their own forward passes.

Each request keeps its own sampling knobs and ``max_new_tokens`` (the generation loop takes them
per row), so a page's text, table and formula crops decode in one batch. One ``stream`` call
takes any number of requests and keeps ``max_batch`` of them decoding: when a row ends, the next
request takes its place between two decode steps (continuous batching, ``generate.py``).
A request whose image or prompt cannot be used (too thin a crop, a prompt longer than the
context) ends alone with ``finish_reason="error"``; the others run.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Iterator, Sequence

from mineru_tui.console import one_line
from mineru_tui.engines.base import EngineOptions, Request
from mineru_tui.engines.defaults import DEFAULT_MODEL, MODEL_ENV
from mineru_tui.engines.events import (CancelFlag, Done, Event, GenerationResult, SequenceDone,
                                      StageEvent, Timing, TokenEvent)

DEFAULT_MAX_BATCH = 8  # batch-8 decode is ~3x batch 1 on a 2-core CPU (docs/engine-bench.md)


def model_spec(options: EngineOptions) -> str:
    """The checkpoint to load: ``--model``, else ``MINERU_TUI_MODEL``, else the default."""
    return options.model or os.environ.get(MODEL_ENV) or DEFAULT_MODEL


class HostEngine:
    """Runs requests on a loaded :class:`~mineru_tui.engines.qwen2vl.model.Model`; an engine
    built on it sets ``name``."""

    name = "host"
    continuous_batching = True  # one stream call for all of a page's blocks: rows refill

    def __init__(self, model, model_id: str, max_batch: int = DEFAULT_MAX_BATCH):
        self.model = model
        self.model_id = model_id
        self.max_batch = max(1, int(max_batch))
        # One call at a time: the model's BLAS threads already use every core, and callers on
        # several threads (parse --workers) would otherwise interleave two generations.
        self._lock = threading.Lock()

    def stream(self, requests: Sequence[Request], *, cancel: CancelFlag | None = None) -> Iterator[Event]:
        """Preprocess every request, then generate the usable ones, ``max_batch`` at a time with
        refills (events in request indices; ``Done`` last with a result per request). Calls
        from several threads take turns."""
        with self._lock:
            yield from self._stream(requests, cancel)

    def _stream(self, requests: Sequence[Request], cancel: CancelFlag | None) -> Iterator[Event]:
        from mineru_tui.engines.errors import ImageError, PromptError

        from .generate import run_generation  # numpy loads with the first request, not on import

        model = self.model
        t0 = time.perf_counter()
        timing = Timing()
        results: list[GenerationResult | None] = [None] * len(requests)
        yield StageEvent("preprocess", False, 0.0)
        good: list[int] = []
        prepared = []
        failed: list[int] = []
        for i, r in enumerate(requests):
            try:
                prepared.append(model.prepare(r.image, r.prompt))
                good.append(i)
            except (ImageError, PromptError) as e:
                results[i] = GenerationResult([], "", "error", timing, 0, error=one_line(str(e)))
                failed.append(i)
        timing.preprocess_s = time.perf_counter() - t0
        yield StageEvent("preprocess", True, timing.preprocess_s, timing.preprocess_s)
        for i in failed:
            yield SequenceDone(i, results[i])  # type: ignore[arg-type]
        if good:
            for ev in run_generation(
                model.config, model.vision, model.text, prepared, model.tokenizer.detokenizer,
                max_new_tokens=[requests[i].max_new_tokens for i in good],
                params=[requests[i].sampling for i in good],
                stop_ids=model.stop_ids, strip_ids=model.strip_ids,
                cancel=cancel, timing=timing, t0=t0, max_batch=self.max_batch,
            ):
                if isinstance(ev, TokenEvent):
                    yield TokenEvent(good[ev.seq_index], ev.token_id, ev.text_delta, ev.n_generated, ev.elapsed)
                elif isinstance(ev, SequenceDone):
                    results[good[ev.seq_index]] = ev.result
                    yield SequenceDone(good[ev.seq_index], ev.result)
                elif isinstance(ev, Done):
                    pass  # rebuilt below in request order, failed requests included
                elif isinstance(ev, StageEvent) and ev.seqs:
                    yield dataclasses.replace(ev, seqs=tuple(good[i] for i in ev.seqs))
                else:
                    yield ev
        timing.total_s = time.perf_counter() - t0
        yield Done([r for r in results if r is not None], timing)

    def close(self) -> None:
        self.model = None
