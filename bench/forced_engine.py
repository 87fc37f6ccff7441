"""An engine wrapper for benchmarks: every real decode step runs, then the scheduled token is
taken instead of the model's choice (teacher forcing), and each request ends with its scripted
answer.

Random weights never stop and never write a layout, so a page read through the real path
(``convert()``: the page reader, its scheduler, the outputs) would either run to the length
limit or find no block. :class:`ForcedEngine` wraps the engine the page reader is given (a
``LazyEngine``, as ``parse`` makes) and, for each ``stream`` call:

* asks ``answer_for(request)`` for the request's answer: its text and how many tokens a real
  model spends on it (MinerU2.5's tokenizer; the bench checkpoint carries the tiny test one);
* makes that many token ids (the text's own ids, cycled) and then the stop id, as
  ``bench/pages.py``'s engine-only runs do, and installs them
  as the host loop's token choice (``generate.choose_tokens``, keyed by the rows' request
  indices, so rows may join and leave in any order: continuous batching);
* passes every event through, with each finished request's text replaced by its answer
  (the ids decode to something else with the tiny tokenizer; token events keep their deltas).

Only engines on the numpy host loop (numpy, and those built on its swap points) can be forced.
Everything else the page reader asks of the engine (``max_batch``, ``continuous_batching``…)
is the wrapped engine's, or missing when it is missing there: the wrapper changes no choice
the real path makes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence


def _generate_module():
    """The host loop's module (it moves with the engines' reorganisation)."""
    try:
        from mineru_tui.engines.qwen2vl import generate  # type: ignore[attr-defined]
    except ImportError:
        from mineru_tui.engines.numpy import generate
    return generate


class _Chooser:
    """The token choice of one ``stream`` call: row ``b`` takes ``schedules[b]`` in order."""

    def __init__(self, schedules: list[list[int]]):
        self.schedules = schedules
        self.pos = [0] * len(schedules)

    def __call__(self, logits, seqs):
        import numpy as np

        out = []
        for b in seqs:
            sched = self.schedules[b]
            out.append(sched[min(self.pos[b], len(sched) - 1)])
            self.pos[b] += 1
        return np.asarray(out, dtype=np.int64)


class ForcedEngine:
    """``engine`` with its answers forced (see the module docstring). ``answer_for(request)``
    returns ``(text, tokens)``; ``model_of(engine)`` the loaded numpy ``Model`` (its tokenizer
    and stop ids), by default ``engine.get().model`` for a ``LazyEngine``."""

    def __init__(self, engine, answer_for: Callable, model_of: Callable | None = None):
        self._engine = engine
        self._answer_for = answer_for
        self._model_of = model_of or (lambda e: (e.get() if hasattr(e, "get") else e).model)
        self.calls: list[int] = []  # requests per stream call (what the scheduler sent)
        self.timings: list = []  # each call's Timing (its vision, prefill, decode seconds)

    def __getattr__(self, name):  # max_batch, continuous_batching, name...: the real engine's
        return getattr(self._engine, name)

    def stream(self, requests: Sequence, *, cancel=None) -> Iterator:
        from mineru_tui.engines.events import Done, SequenceDone

        generate = _generate_module()
        model = self._model_of(self._engine)
        stop = model.stop_ids[0]
        answers = [self._answer_for(r) for r in requests]
        schedules = []
        for text, count in answers:
            ids = [i for i in model.tokenizer.encode(text) if i != stop] or [stop]
            schedules.append([ids[k % len(ids)] for k in range(count)] + [stop])
        self.calls.append(len(requests))
        original = generate.choose_tokens
        generate.choose_tokens = _Chooser(schedules)
        try:
            for ev in self._engine.stream(requests, cancel=cancel):
                if isinstance(ev, SequenceDone) and ev.result.finish_reason == "stop":
                    ev = SequenceDone(ev.seq_index, dataclasses.replace(
                        ev.result, text=answers[ev.seq_index][0]))
                elif isinstance(ev, Done):
                    self.timings.append(ev.timings)
                    ev = Done([dataclasses.replace(r, text=a[0]) if r.finish_reason == "stop" else r
                               for r, a in zip(ev.results, answers)], ev.timings)
                yield ev
        finally:
            generate.choose_tokens = original

    def close(self) -> None:
        self._engine.close()
