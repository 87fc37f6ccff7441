"""serve's batcher: an engine that refills its rows gets every queued request in one call; one
that does not gets fixed batches of its max_batch. Answers reach their own requests."""

import asyncio
import threading

import pytest

from mineru_tui.engines.base import Request
from mineru_tui.engines.events import Done, GenerationResult, SequenceDone, Timing, TokenEvent
from mineru_tui.serve.batcher import Batcher


class Echo:
    """Answers each request with its prompt; holds the first call until released, so the other
    requests are all queued when the next call is gathered."""

    name, model_id, max_batch = "echo", "echo", 2

    def __init__(self, continuous):
        self.continuous_batching = continuous
        self.calls, self.release = [], threading.Event()

    def stream(self, requests, *, cancel=None):
        self.calls.append([r.prompt for r in requests])
        self.release.wait(10)
        results = []
        for i, r in enumerate(requests):
            yield TokenEvent(i, 1, r.prompt, 1, 0.1)
            results.append(GenerationResult([1], r.prompt, "stop", Timing(), 3))
            yield SequenceDone(i, results[-1])
        yield Done(results, Timing())

    def close(self):
        pass


async def _ask(batcher, engine, n):
    first = batcher.submit(Request(None, "p0"))
    while not engine.calls:  # the first call is running (held): the rest queue behind it
        await asyncio.sleep(0.01)
    rest = [batcher.submit(Request(None, f"p{i}")) for i in range(1, n)]
    engine.release.set()
    out = []
    for p in [first, *rest]:
        while True:
            kind, payload = await asyncio.wait_for(p.events.get(), 10)
            if kind == "done":
                out.append(payload.text)
                break
    return out


@pytest.mark.parametrize("continuous, calls", [(True, [1, 7]), (False, [1, 2, 2, 2, 1])])
def test_queued_requests_go_in_one_call_to_a_refilling_engine(continuous, calls):
    engine = Echo(continuous)
    batcher = Batcher(engine, window=0.05)
    try:
        answers = asyncio.run(_ask(batcher, engine, 8))
    finally:
        batcher.stop()
    assert answers == [f"p{i}" for i in range(8)]
    assert [len(c) for c in engine.calls] == calls
