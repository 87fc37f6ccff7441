"""The engine interface: what the page reader needs from anything that runs MinerU2.5.

An engine takes a batch of :class:`Request` (image, prompt, sampling knobs) and yields the
event stream of :mod:`mineru_tui.engines.events`::

    StageEvent("preprocess" | "vision" | "prefill" | "decode", done, elapsed, seconds, tokens, seqs)
    TokenEvent(seq_index, token_id, text_delta, n_generated, elapsed)   # seq_index = request index
    SequenceDone(seq_index, result)                                     # one per request
    Done(results, timings)                                              # always last

Knobs travel with each request, so one batch may mix table, formula and text blocks (MinerU
uses different penalties per block type). An engine that cannot report a stage (a remote
server has no separate vision time) simply does not emit it; ``Timing`` fields it cannot
measure stay 0. A request that fails on its own (a server error after retries) ends with
``finish_reason == "error"`` and ``GenerationResult.error`` set, and the others go on;
a failure of the whole engine (no server answers, no model) raises :class:`EngineError`.

**Batches that stay full.** An engine whose ``stream`` keeps at most ``max_batch`` requests
running and starts the next one as soon as one ends sets ``continuous_batching = True`` (numpy,
OpenVINO and Core ML, through the host's generation loop; wrappers such as ``LazyEngine`` forward
it; an engine that does not say is taken as False): the page reader
then hands it all of a page's blocks in one call. Such an engine names the requests a stage
works on (``StageEvent.seqs``: the rows joining the batch), so a block shows as started when
it really starts. Any other engine gets the requests in chunks of ``max_batch``.

Nothing in the page pipeline may depend on one engine's internals: numpy, Core ML, an
OpenAI-compatible server and llama.cpp are all used through this interface only.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from mineru_tui.engines.events import CancelFlag, Event
from mineru_tui.engines.params import SamplingParams

ImageInput = Any  # a PIL image, a path or encoded bytes; None for a text-only request


class EngineError(Exception):
    """The engine as a whole cannot run (no model, no server answers...): one line for the user."""


@dataclass(frozen=True)
class Request:
    """One generation: an image (a page or a block crop), MinerU's prompt and its knobs."""

    image: ImageInput
    prompt: str
    sampling: SamplingParams = field(default_factory=SamplingParams)
    max_new_tokens: int | None = None  # None: the engine's limit (context length)


@runtime_checkable
class Engine(Protocol):
    """Anything that runs MinerU2.5 generations (see the module docstring for the events)."""

    name: str  # "numpy", "coreml", "openvino", "http", "llama-cpp": shown in progress lines and the app
    model_id: str  # the checkpoint / served model name, shown to the user
    max_batch: int  # how many requests the engine runs at once (in one ``stream`` call, unless it
    # sets ``continuous_batching``: then it takes any number and keeps this many running)
    continuous_batching: bool  # True: ``stream`` takes any number of requests and refills its
    # ``max_batch`` rows as they end (see "Batches that stay full"); callers read it with
    # ``getattr(engine, "continuous_batching", False)`` so an engine without it gets chunks

    def stream(self, requests: Sequence[Request], *, cancel: CancelFlag | None = None) -> Iterator[Event]:
        """Run every request; yield events, ``Done`` last (also when cancelled)."""
        ...

    def close(self) -> None:
        """Release what the engine holds (worker processes, servers, memory). Idempotent."""
        ...


@dataclass(frozen=True)
class EngineOptions:
    """How the user chose an engine (``--engine``, ``--model``, ``--server-url`` ...)."""

    engine: str = "auto"  # auto | numpy | coreml | openvino | http | llama-cpp
    model: str | None = None  # a directory or Hugging Face repo id (None: MINERU_TUI_MODEL or the default)
    server_urls: tuple[str, ...] = ()  # http: one or more OpenAI-compatible base URLs
    server_model: str | None = None  # http: the served model name (None: asked from /v1/models)
    concurrency: int = 0  # http: requests in flight per server (0: the engine's default)
    extra: tuple[tuple[str, str], ...] = ()  # engine-specific settings, as key/value pairs
