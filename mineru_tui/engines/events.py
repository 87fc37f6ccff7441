"""What every engine emits while it generates: timings, streaming events, results.

The words all engines share (numpy, Core ML, the http and llama.cpp clients): each
``Engine.stream(requests)`` yields these, and the page reader, ``serve``, ``generate`` and the
app read them without knowing which engine ran. Nothing here knows about the CLI, Textual or
HTTP, and nothing imports numpy::

    StageEvent("preprocess" | "vision" | "prefill" | "decode", done=False/True, ...)
    TokenEvent(seq_index, token_id, text_delta, n_generated, elapsed)   # one per generated token
    SequenceDone(seq_index, result)                                     # a row of the batch finished
    Done(results, timings)                                              # always last

The text deltas of one sequence concatenate to its ``GenerationResult.text``. Cancelling (a
``threading.Event``-like flag with ``is_set()``, checked between steps) ends every unfinished
sequence with ``finish_reason == "cancelled"`` and still ends with ``Done``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol, Union

FinishReason = Literal["stop", "length", "cancelled", "error"]  # "error": see GenerationResult.error
Stage = Literal["preprocess", "vision", "prefill", "decode"]


class CancelFlag(Protocol):
    """Anything with ``is_set()`` (``threading.Event``, ``asyncio.Event``)."""

    def is_set(self) -> bool: ...


class Cancelled(Exception):
    """Raised inside the engine when the cancel flag is seen; turned into finish_reason "cancelled"."""


@dataclass
class Timing:
    """Wall-clock seconds of each stage of one generate call (shared by all rows of a batch).

    ``decode_tokens`` counts the tokens produced by decode steps (the first token of each row
    comes from the prefill), so ``decode_tokens_per_s`` is the steady-state generation rate.
    """

    preprocess_s: float = 0.0
    vision_s: float = 0.0
    vision_tokens: int = 0  # image tokens produced by the vision tower
    prefill_s: float = 0.0
    prefill_tokens: int = 0
    first_token_s: float = 0.0  # from the call's start to the first generated token
    decode_s: float = 0.0
    decode_tokens: int = 0
    decode_steps: int = 0
    total_s: float = 0.0

    @property
    def prefill_tokens_per_s(self) -> float:
        return self.prefill_tokens / self.prefill_s if self.prefill_s > 0 else 0.0

    @property
    def decode_tokens_per_s(self) -> float:
        return self.decode_tokens / self.decode_s if self.decode_s > 0 else 0.0


@dataclass
class GenerationResult:
    """One sequence's output.

    ``token_ids`` are the generated ids including a final stop id; ``text`` is their decoding
    without stop/pad/bos ids, special tokens (``<|box_start|>`` …) kept.
    """

    token_ids: list[int]
    text: str
    finish_reason: FinishReason
    timings: Timing
    prompt_tokens: int = 0
    error: str | None = None  # one line, when finish_reason == "error" (engines other than numpy)


@dataclass(frozen=True)
class StageEvent:
    """A stage started (``done=False``) or finished (``done=True``, with its seconds)."""

    stage: Stage
    done: bool
    elapsed: float  # seconds since the call started
    seconds: float = 0.0  # duration of the stage (when done)
    tokens: int = 0  # image tokens (vision), prompt tokens (prefill)
    # the requests this stage works on, when not all of the call's: with continuous batching
    # a request's vision and prefill run when it joins the running batch
    seqs: tuple[int, ...] = ()


@dataclass(frozen=True)
class TokenEvent:
    """One generated token of sequence ``seq_index`` (its position in the request list)."""

    seq_index: int
    token_id: int
    text_delta: str
    n_generated: int
    elapsed: float


@dataclass(frozen=True)
class SequenceDone:
    """Sequence ``seq_index`` finished (the others of the batch may continue)."""

    seq_index: int
    result: GenerationResult


@dataclass(frozen=True)
class Done:
    """The whole call finished; results in request order."""

    results: list[GenerationResult] = field(default_factory=list)
    timings: Timing = field(default_factory=Timing)


Event = Union[StageEvent, TokenEvent, SequenceDone, Done]
EventCallback = Callable[[Event], None]
