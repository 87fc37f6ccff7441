"""Running requests through an engine and turning its events into job events.

The page pipeline never sees engine events: :func:`run` hands the requests to the engine and
reports per-block progress (``BlockStarted``, ``BlockTokens`` with tok/s, ``EngineStage``)
through the job's ``emit``. An engine that refills its batch as rows end
(``engine.continuous_batching``: numpy, and the engines built on its host loop) gets all of a
page's requests in one ``stream`` call, so its rows stay full; any other engine gets them in
chunks of its ``max_batch``. A request that the engine ends with ``finish_reason="error"`` comes
back as such; a failure of the whole engine (``EngineError``) propagates, because no later
page can be read either.

The live tok/s of a block counts from its decode start — its first token, which ends its
prefill — not from the start of the engine call (preprocessing, vision and the prefill of
every row before it would drag the rate towards zero).
"""

from __future__ import annotations

from collections import deque

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mineru_tui.engines.base import Request
from mineru_tui.engines.events import Done, GenerationResult, SequenceDone, StageEvent, TokenEvent
from mineru_tui.events import BlockStarted, BlockTokens, EngineStage


@dataclass
class Answer:
    """One request's outcome: its text, why it ended, and an error line when it failed."""

    text: str
    finish_reason: str  # stop | length | cancelled | error | repetition
    tokens: int = 0
    error: str | None = None


class DecodeRate:
    """Tokens per second of each sequence now: over the last ``window`` seconds of its
    decoding (the engine's own clock), from its first token (the prefill's output) on, so
    neither the prefill nor a fast start long ago counts. ``None`` until a second token makes
    it measurable."""

    WINDOW = 2.0  # seconds; the app's help and the progress line's docstring say so

    def __init__(self, window: float = WINDOW):
        self.window = window
        self._seen: dict[int, deque[tuple[float, int]]] = {}

    def __call__(self, ev: TokenEvent) -> float | None:
        seen = self._seen.setdefault(ev.seq_index, deque())
        seen.append((ev.elapsed, ev.n_generated))
        while len(seen) > 2 and ev.elapsed - seen[1][0] >= self.window:
            seen.popleft()  # keep one point at or before the window's start
        t1, n1 = seen[0]
        if ev.n_generated <= n1 or ev.elapsed <= t1:
            return None
        return (ev.n_generated - n1) / (ev.elapsed - t1)


def run(engine, requests: Sequence[Request], *, path: str, page: int, blocks: Sequence[int],
        types: Sequence[str], total_blocks: int, emit: Callable, cancel=None,
        on_answer: Callable[[int, Answer], None] | None = None) -> list[Answer]:
    """Answers for ``requests`` (``blocks[i]`` is request i's block index on the page, -1 for
    the layout call; ``types[i]`` its type), in order. ``on_answer(i, answer)`` is called as
    soon as request i has ended (before the others of its batch)."""
    n = len(requests)
    out: list[Answer | None] = [None] * n
    continuous = bool(getattr(engine, "continuous_batching", False))
    if continuous:
        chunks = [range(n)] if n else []
    else:
        step = max(1, int(getattr(engine, "max_batch", 1) or 1))
        chunks = [range(s, min(s + step, n)) for s in range(0, n, step)]

    def start(i: int) -> None:
        if i not in started and blocks[i] >= 0:
            emit(BlockStarted(path, page, blocks[i], total_blocks, types[i]))
        started.add(i)

    def end(i: int, result: GenerationResult | None) -> None:
        if out[i] is None:
            out[i] = answer_of(result)
            if on_answer is not None:
                on_answer(i, out[i])

    started: set[int] = set()
    for chunk in chunks:
        first = chunk.start
        if not continuous:
            for i in chunk:  # a fixed batch: every row starts now
                start(i)
        rate = DecodeRate()
        for ev in engine.stream([requests[i] for i in chunk], cancel=cancel):
            if isinstance(ev, TokenEvent):
                i = first + ev.seq_index
                start(i)
                tps = rate(ev)
                emit(BlockTokens(path, page, blocks[i], ev.text_delta, ev.n_generated, tps or 0.0))
            elif isinstance(ev, StageEvent):
                if not ev.done:
                    for j in ev.seqs:  # the rows joining the batch now
                        start(first + j)
                elif ev.stage in ("vision", "prefill", "decode"):
                    emit(EngineStage(path, page, ev.stage, ev.seconds, ev.tokens))
            elif isinstance(ev, SequenceDone):
                start(first + ev.seq_index)
                end(first + ev.seq_index, ev.result)
            elif isinstance(ev, Done):  # an engine that reports results only at the end
                for j, r in enumerate(ev.results[:len(chunk)]):
                    end(first + j, r)
        for i in chunk:
            end(i, None)  # the engine returned no result for it
        if cancel is not None and cancel.is_set():
            break
    return [a if a is not None else Answer("", "cancelled") for a in out]


def answer_of(result: GenerationResult | None) -> Answer:
    """A request's answer from the engine's result (a runaway cut by the limit is named)."""
    if result is None:
        return Answer("", "error", 0, "the engine returned no result")
    reason = result.finish_reason
    error = result.error if reason == "error" else None
    if reason == "length" and is_runaway(result.text):
        reason = "repetition"
    return Answer(result.text, reason, len(result.token_ids), error)


def is_runaway(text: str, min_repeats: int = 8, max_unit: int = 80) -> bool:
    """Whether a text cut by the length limit ends in a loop: its tail is one unit (1-80
    characters) repeated at least ``min_repeats`` times — the way a greedy decoder runs away."""
    tail = text.rstrip()
    for unit in range(1, max_unit + 1):
        if len(tail) < unit * min_repeats:
            break
        piece = tail[-unit:]
        if not piece.strip():
            continue
        if tail.endswith(piece * min_repeats):
            return True
    return False
