"""A minimal Engine over ``mineru_tui.reader.Model``, for ``serve`` until the numpy engine
adapter (``mineru_tui/engines/numpy_engine.py``) is installed; then that one is used.

``Model.stream_batch`` takes one set of knobs per call, so requests are grouped by
(knobs, max_new_tokens) and each group runs as one batch; events keep the caller's indices.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from mineru_tui.engines.base import EngineError, Request
from mineru_tui.reader.events import (CancelFlag, Done, Event, GenerationResult, SequenceDone,
                                      StageEvent, Timing, TokenEvent)


class ReaderEngine:
    """The numpy reader as an :class:`~mineru_tui.engines.base.Engine` (see module docstring)."""

    name = "numpy"

    def __init__(self, model, model_id: str, max_batch: int = 8):
        self.model = model
        self.model_id = model_id
        self.max_batch = max_batch

    def stream(self, requests: Sequence[Request], *, cancel: CancelFlag | None = None) -> Iterator[Event]:
        groups: dict[tuple, list[int]] = {}
        for i, r in enumerate(requests):
            groups.setdefault((r.sampling, r.max_new_tokens), []).append(i)
        results: list[GenerationResult | None] = [None] * len(requests)
        total = Timing()
        for (sampling, max_new), idx in groups.items():
            items = [(requests[i].image, requests[i].prompt) for i in idx]
            try:
                for ev in self._group(items, sampling, max_new, cancel):
                    if isinstance(ev, TokenEvent):
                        yield TokenEvent(idx[ev.seq_index], ev.token_id, ev.text_delta,
                                         ev.n_generated, ev.elapsed)
                    elif isinstance(ev, SequenceDone):
                        results[idx[ev.seq_index]] = ev.result
                        yield SequenceDone(idx[ev.seq_index], ev.result)
                    elif isinstance(ev, StageEvent):
                        yield ev
                    elif isinstance(ev, Done):
                        total = ev.timings
            except Exception as e:  # noqa: BLE001 - a bad group ends its requests with an error
                for i in idx:
                    if results[i] is None:
                        results[i] = GenerationResult([], "", "error", Timing(), error=str(e)[:300])
                        yield SequenceDone(i, results[i])
        yield Done([r for r in results if r is not None], total)

    def _group(self, items, sampling, max_new, cancel) -> Iterator[Event]:
        yield from self.model.stream_batch(
            items, max_new_tokens=max_new, no_repeat_ngram_size=sampling.no_repeat_ngram_size,
            presence_penalty=sampling.presence_penalty, frequency_penalty=sampling.frequency_penalty,
            repetition_penalty=sampling.repetition_penalty, cancel=cancel)

    def close(self) -> None:
        self.model = None


def open_reader_engine(model: str | None) -> ReaderEngine:
    """Load the checkpoint (EngineError with the reader's one-line message when it cannot)."""
    from mineru_tui.reader import ModelError, load_model
    from mineru_tui.reader.checkpoint import DEFAULT_MODEL

    spec = model or DEFAULT_MODEL
    try:
        return ReaderEngine(load_model(spec), str(spec))
    except ModelError as e:
        raise EngineError(str(e)) from None
