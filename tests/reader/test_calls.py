"""reader/calls.py: how engine events become job events — one stream for an engine that refills
its batch, blocks started as they join and done as they end, and the live tok/s counted over each
block's decode time (from its first token), not from the start of the engine call."""

import pytest

from mineru_tui.engines.base import Request
from mineru_tui.engines.events import Done, GenerationResult, SequenceDone, StageEvent, Timing, TokenEvent
from mineru_tui.events import BlockDone, BlockStarted, BlockTokens
from mineru_tui.reader import calls


class TimedEngine:
    """Replays a fixed event script (elapsed times chosen by the test, no clock)."""

    name, model_id = "timed", "timed-test-model"

    def __init__(self, script, max_batch=8, continuous=False):
        self.script, self.max_batch, self.continuous_batching = script, max_batch, continuous
        self.calls = []

    def stream(self, requests, *, cancel=None):
        self.calls.append(len(requests))
        yield from self.script(len(requests))

    def close(self):
        pass


def _result(n, reason="stop"):
    return GenerationResult(list(range(n)), "x" * n, reason, Timing(), 10)


def _two_rows(n_requests):
    """Vision and prefill take 4 s; row 0 decodes at 2 tok/s; row 1 joins at 10 s, at 4 tok/s."""
    yield StageEvent("preprocess", True, 0.5, 0.5)
    yield StageEvent("vision", False, 0.5, seqs=(0,))
    yield StageEvent("vision", True, 3.0, 2.5, 100, seqs=(0,))
    yield StageEvent("prefill", True, 4.0, 1.0, 120, seqs=(0,))
    for n, t in ((1, 4.0), (2, 4.5), (3, 5.0), (4, 5.5)):
        yield TokenEvent(0, 7, "x", n, t)
    yield SequenceDone(0, _result(4))
    yield StageEvent("prefill", False, 9.0, tokens=50, seqs=(1,))
    for n, t in ((1, 10.0), (2, 10.25), (3, 10.5)):
        yield TokenEvent(1, 7, "x", n, t)
    yield SequenceDone(1, _result(3, "length"))
    yield Done([_result(4), _result(3, "length")], Timing())


def _run(engine, n=2, events=None, **kw):
    events = [] if events is None else events
    answers = calls.run(engine, [Request(None, "p")] * n, path="a.png", page=0, blocks=list(range(n)),
                        types=["text"] * n, total_blocks=n, emit=events.append, **kw)
    return answers, events


@pytest.mark.parametrize("continuous", [False, True])
def test_the_rate_is_tokens_over_decode_time(continuous):
    _, events = _run(TimedEngine(_two_rows, continuous=continuous))
    rates = [(e.block, e.n_generated, e.tokens_per_s) for e in events if isinstance(e, BlockTokens)]
    # the first token ends the prefill: no rate yet; then tokens since it over seconds since it
    assert rates == [(0, 1, 0.0), (0, 2, 2.0), (0, 3, 2.0), (0, 4, 2.0), (1, 1, 0.0), (1, 2, 4.0), (1, 3, 4.0)]
    # (from the call's start the rows would have shown 2/4.5 = 0.44 and 2/10.25 = 0.20 tok/s)


def test_a_refilling_engine_gets_every_request_in_one_stream():
    engine = TimedEngine(_two_rows, max_batch=1, continuous=True)
    done_as_they_end, events = [], []
    answers, _ = _run(engine, events=events, on_answer=lambda i, a: done_as_they_end.append((i, len(events))))
    assert engine.calls == [2]  # not two calls of max_batch 1: the engine refills its rows itself
    assert [(a.text, a.finish_reason) for a in answers] == [("xxxx", "stop"), ("xxx", "length")]
    kinds = [(type(e).__name__, getattr(e, "block", None)) for e in events
             if isinstance(e, (BlockStarted, BlockTokens)) and (not isinstance(e, BlockTokens) or e.n_generated == 1)]
    # block 1 starts when it joins (its prefill), after block 0 has decoded, not at the call's start
    assert kinds == [("BlockStarted", 0), ("BlockTokens", 0), ("BlockStarted", 1), ("BlockTokens", 1)]
    # block 0's answer is handed over as it ends, before block 1 starts
    started_1 = next(k for k, e in enumerate(events) if isinstance(e, BlockStarted) and e.block == 1)
    assert done_as_they_end[0][0] == 0 and done_as_they_end[0][1] <= started_1 and done_as_they_end[1][0] == 1


def test_a_fixed_batch_engine_gets_chunks_and_every_row_starts_with_its_chunk():
    engine = TimedEngine(_two_rows, max_batch=2)
    _, events = _run(engine, n=4)
    assert engine.calls == [2, 2]
    started = [e.block for e in events if isinstance(e, BlockStarted)]
    assert started == [0, 1, 2, 3]
    first_token = next(k for k, e in enumerate(events) if isinstance(e, BlockTokens))
    assert [e.block for e in events[:first_token] if isinstance(e, BlockStarted)] == [0, 1]


def test_an_engine_without_a_result_for_a_request_gives_an_error_answer():
    def script(n):
        yield TokenEvent(0, 7, "x", 1, 1.0)
        yield SequenceDone(0, _result(1))
        yield Done([_result(1)], Timing())

    answers, _ = _run(TimedEngine(script, continuous=True))
    assert [a.finish_reason for a in answers] == ["stop", "error"]


def test_progress_line_sums_the_rates_of_the_blocks_decoding_now():
    import io

    from mineru_tui.cli.progress import ProgressLine
    from mineru_tui.events import FileStarted, PageStarted

    line = ProgressLine(io.StringIO(), min_interval=0.0)
    line(FileStarted("a.png", "image"))
    line(PageStarted("a.png", 0, 1))
    _, events = _run(TimedEngine(_two_rows, continuous=True))
    shown = []
    for e in events:
        line(e)
        shown.append(line.text().rsplit(" · ", 1)[-1])
    assert shown[events.index(next(e for e in events if isinstance(e, BlockTokens) and e.n_generated == 4))] == "2.0 tok/s"
    line(BlockTokens("a.png", 0, 0, "x", 5, 2.0))  # two blocks decoding together: their sum
    line(BlockTokens("a.png", 0, 1, "x", 2, 4.0))
    assert line.text().endswith("6.0 tok/s")
    line(BlockDone("a.png", 0, 0, "text", "x", "model", "stop"))  # a block that ended stops counting
    assert line.text().endswith("4.0 tok/s")
