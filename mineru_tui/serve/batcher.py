"""Queue HTTP requests and feed them to the engine in batches, one batch at a time.

The engine is synchronous and wants whole batches (the numpy engine decodes rows together),
while the server is asyncio. One worker thread owns the engine: it waits for a request, gathers
whatever else arrives within ``window`` seconds (up to ``engine.max_batch``; four times that
for an engine that refills its rows as they end, such as numpy), runs the batch and routes each
event to the asyncio queue of the request it belongs to. Requests that arrive meanwhile wait
for the next batch. A client that goes away is marked cancelled; the engine's
cancel flag is set only when every request of the running batch is gone.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from dataclasses import dataclass, field
from typing import Any

from mineru_tui.engines.base import Engine, Request
from mineru_tui.engines.events import GenerationResult, SequenceDone, Timing, TokenEvent


CONTINUOUS_CALL = 4  # requests per call, in engine batches, for an engine that refills its rows


@dataclass(eq=False)
class Pending:
    """One queued request and where its events go (an asyncio queue on the server's loop)."""

    request: Request
    loop: asyncio.AbstractEventLoop
    events: asyncio.Queue = field(default_factory=asyncio.Queue)
    cancelled: bool = False
    finished: bool = False

    def deliver(self, item: tuple[str, Any]) -> None:
        try:
            self.loop.call_soon_threadsafe(self.events.put_nowait, item)
        except RuntimeError:  # the loop is closed: nobody is listening any more
            self.cancelled = True


class _BatchCancel:
    """The engine's cancel flag for one batch: set when all its clients are gone or on stop."""

    def __init__(self, batch: list[Pending], stopping: threading.Event):
        self.batch, self.stopping = batch, stopping

    def is_set(self) -> bool:
        return self.stopping.is_set() or all(p.cancelled for p in self.batch)


class Batcher:
    """Owns the engine; :meth:`submit` from the event loop, events come back per request."""

    def __init__(self, engine: Engine, window: float = 0.02):
        self.engine = engine
        self.window = window
        self.queue: queue.Queue[Pending] = queue.Queue()
        self.stopping = threading.Event()
        self.batches = 0  # batches run (for tests and /health)
        self.largest_batch = 0
        self.thread = threading.Thread(target=self._run, name="mineru-tui serve engine", daemon=True)
        self.thread.start()

    def submit(self, request: Request) -> Pending:
        pending = Pending(request, asyncio.get_running_loop())
        self.queue.put(pending)
        return pending

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=30)

    def _gather(self) -> list[Pending]:
        try:
            first = self.queue.get(timeout=0.2)
        except queue.Empty:
            return []
        batch = [first]
        limit = max(1, int(self.engine.max_batch))
        if getattr(self.engine, "continuous_batching", False):
            # the engine keeps max_batch rows running and refills them from the rest of the
            # call: take what is queued (a page's blocks sent at once), not a fixed batch
            limit *= CONTINUOUS_CALL
        while len(batch) < limit:
            try:
                batch.append(self.queue.get(timeout=self.window))
            except queue.Empty:
                break
        return [p for p in batch if not p.cancelled]

    def _run(self) -> None:
        while not self.stopping.is_set():
            batch = self._gather()
            if not batch:
                continue
            self.batches += 1
            self.largest_batch = max(self.largest_batch, len(batch))
            try:
                for ev in self.engine.stream([p.request for p in batch],
                                             cancel=_BatchCancel(batch, self.stopping)):
                    if isinstance(ev, TokenEvent):
                        batch[ev.seq_index].deliver(("token", ev))
                    elif isinstance(ev, SequenceDone):
                        batch[ev.seq_index].finished = True
                        batch[ev.seq_index].deliver(("done", ev.result))
            except Exception as e:  # noqa: BLE001 - one bad batch must not kill the server
                reason = f"{type(e).__name__}: {e}".replace("\n", " ")[:300]
                for p in batch:
                    if not p.finished:
                        p.deliver(("done", GenerationResult([], "", "error", Timing(), error=reason)))
