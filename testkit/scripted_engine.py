"""A scripted engine: the test double of :class:`mineru_tui.engines.Engine`.

It replays fixed answers instead of running a model, but speaks the real event protocol: a
vision and a prefill stage per call, the answer streamed as token events (special tokens such
as ``<|box_start|>`` and words are separate tokens; rows of a batch interleave as in a real
batch), one ``SequenceDone`` per request and ``Done`` last. Cancelling is honoured between
tokens. Every call's requests are recorded, so tests can check prompts, knobs and batch sizes.

    engine = ScriptedEngine({"\\nLayout Detection:": [LAYOUT], "\\nText Recognition:": ["Hello."]})
    engine = ScriptedEngine(lambda request: Answer("...", finish_reason="length"))
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from mineru_tui.engines.base import EngineError, Request
from mineru_tui.engines.events import (Done, Event, GenerationResult, SequenceDone, StageEvent, Timing,
                                      TokenEvent)

_TOKEN_RE = re.compile(r"<\|[a-z_]+\|>|<[a-z]{2,4}>|\s*[^\s<]+|\s+|<")


@dataclass
class Answer:
    """What the scripted model answers to one request."""

    text: str
    finish_reason: str = "stop"  # stop | length | error
    error: str | None = None


def tokens_of(text: str) -> list[str]:
    """The answer cut into token-like pieces (joined, they give the text back)."""
    pieces = _TOKEN_RE.findall(text)
    assert "".join(pieces) == text
    return pieces


class ScriptedEngine:
    """Replays answers: ``script`` maps a prompt to a list of answers (used in order), or is a
    function from the request to its answer. A ``str`` answer means ``Answer(text)``.
    ``record=False`` keeps no requests (benchmarks: a request holds its page image)."""

    name = "scripted"
    model_id = "scripted-test-model"

    def __init__(self, script: dict[str, list] | Callable[[Request], Answer | str], max_batch: int = 8,
                 fail: EngineError | None = None, on_token: Callable[[TokenEvent], None] | None = None,
                 record: bool = True):
        self.script = script
        self.max_batch = max_batch
        self.fail = fail
        self.on_token = on_token
        self.calls: list[list[Request]] = []
        self.record = record
        self._used: dict[str, int] = {}
        self._lock = threading.Lock()
        self.closed = False

    def answer(self, request: Request) -> Answer:
        if callable(self.script):
            a = self.script(request)
        else:
            answers = self.script.get(request.prompt)
            if not answers:
                raise AssertionError(f"no scripted answer for prompt {request.prompt!r}")
            n = self._used.get(request.prompt, 0)
            self._used[request.prompt] = n + 1
            a = answers[min(n, len(answers) - 1)]  # the last answer repeats
        return Answer(a) if isinstance(a, str) else a

    def stream(self, requests: Sequence[Request], *, cancel=None) -> Iterator[Event]:
        assert 0 < len(requests) <= self.max_batch, f"batch of {len(requests)} > max_batch {self.max_batch}"
        with self._lock:
            if self.record:
                self.calls.append(list(requests))
            if self.fail is not None:
                raise self.fail
            answers = [self.answer(r) for r in requests]
        timing = Timing(vision_s=0.01, vision_tokens=64 * len(requests), prefill_s=0.02,
                        prefill_tokens=100 * len(requests))
        yield StageEvent("preprocess", True, 0.0, 0.0)
        yield StageEvent("vision", True, 0.01, timing.vision_s, timing.vision_tokens)
        yield StageEvent("prefill", True, 0.03, timing.prefill_s, timing.prefill_tokens)
        pieces = [tokens_of(a.text) if a.finish_reason != "error" else [] for a in answers]
        limits = [len(p) if r.max_new_tokens is None else min(len(p), r.max_new_tokens)
                  for p, r in zip(pieces, requests)]
        results: list[GenerationResult | None] = [None] * len(requests)
        for i, a in enumerate(answers):
            if a.finish_reason == "error":
                results[i] = GenerationResult([], "", "error", timing, 100, error=a.error or "scripted failure")
                yield SequenceDone(i, results[i])
        step = 0
        elapsed = 0.03
        while any(res is None for res in results):
            for i, a in enumerate(answers):
                if results[i] is not None:
                    continue
                if cancel is not None and cancel.is_set():
                    text = "".join(pieces[i][:step])
                    results[i] = GenerationResult(list(range(step)), text, "cancelled", timing, 100)
                    yield SequenceDone(i, results[i])
                    continue
                if step < limits[i]:
                    elapsed += 0.001
                    ev = TokenEvent(i, 1000 + step, pieces[i][step], step + 1, elapsed)
                    if self.on_token is not None:
                        self.on_token(ev)
                    yield ev
                if step + 1 >= limits[i] or not pieces[i]:
                    cut = limits[i] < len(pieces[i])  # stopped by the request's max_new_tokens
                    reason = "length" if cut else a.finish_reason
                    text = "".join(pieces[i][:limits[i]])
                    results[i] = GenerationResult(list(range(limits[i])), text, reason, timing, 100)  # type: ignore[arg-type]
                    yield SequenceDone(i, results[i])
            step += 1
        timing.decode_s = elapsed
        timing.decode_tokens = sum(limits)
        yield Done([r for r in results if r is not None], timing)

    def close(self) -> None:
        self.closed = True


def layout_line(x1: int, y1: int, x2: int, y2: int, kind: str, angle: str = "up", tail: str = "") -> str:
    """One entry of a layout answer, written as MinerU2.5 writes it (0-1000 coordinates)."""
    rot = f"<|rotate_{angle}|>" if angle else ""
    return f"<|box_start|>{x1} {y1} {x2} {y2}<|box_end|><|ref_start|>{kind}<|ref_end|>{rot}{tail}\n"
