"""Running requests through an engine and turning its events into job events.

The page pipeline never sees engine events: :func:`run` chunks the requests by the engine's
``max_batch``, streams each chunk, and reports per-block progress (``BlockStarted``,
``BlockTokens`` with tok/s, ``EngineStage``) through the job's ``emit``. A request that the
engine ends with ``finish_reason="error"`` comes back as such; a failure of the whole engine
(``EngineError``) propagates, because no later page can be read either.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mineru_tui.engines.base import Request
from mineru_tui.events import BlockStarted, BlockTokens, EngineStage
from mineru_tui.engines.events import Done, GenerationResult, SequenceDone, StageEvent, TokenEvent


@dataclass
class Answer:
    """One request's outcome: its text, why it ended, and an error line when it failed."""

    text: str
    finish_reason: str  # stop | length | cancelled | error | repetition
    tokens: int = 0
    error: str | None = None


def run(engine, requests: Sequence[Request], *, path: str, page: int, blocks: Sequence[int],
        types: Sequence[str], total_blocks: int, emit: Callable, cancel=None) -> list[Answer]:
    """Answers for ``requests`` (``blocks[i]`` is request i's block index on the page, -1 for
    the layout call; ``types[i]`` its type), in order."""
    out: list[Answer | None] = [None] * len(requests)
    step = max(1, int(getattr(engine, "max_batch", 1) or 1))
    for start in range(0, len(requests), step):
        chunk = list(requests[start:start + step])
        for j in range(len(chunk)):
            if blocks[start + j] >= 0:
                emit(BlockStarted(path, page, blocks[start + j], total_blocks, types[start + j]))
        results: dict[int, GenerationResult] = {}
        for ev in engine.stream(chunk, cancel=cancel):
            if isinstance(ev, TokenEvent):
                i = start + ev.seq_index
                rate = ev.n_generated / ev.elapsed if ev.elapsed > 0 else 0.0
                emit(BlockTokens(path, page, blocks[i], ev.text_delta, ev.n_generated, rate))
            elif isinstance(ev, StageEvent) and ev.done and ev.stage in ("vision", "prefill", "decode"):
                emit(EngineStage(path, page, ev.stage, ev.seconds, ev.tokens))
            elif isinstance(ev, SequenceDone):
                results[ev.seq_index] = ev.result
            elif isinstance(ev, Done):
                for j, r in enumerate(ev.results):
                    results.setdefault(j, r)
        for j in range(len(chunk)):
            r = results.get(j)
            if r is None:
                out[start + j] = Answer("", "error", 0, "the engine returned no result")
                continue
            reason = r.finish_reason
            error = r.error if reason == "error" else None
            if reason == "length" and is_runaway(r.text):
                reason = "repetition"
            out[start + j] = Answer(r.text, reason, len(r.token_ids), error)
        if cancel is not None and cancel.is_set():
            break
    return [a if a is not None else Answer("", "cancelled") for a in out]


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
