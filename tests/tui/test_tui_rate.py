"""The rate the app shows is tokens over decode time, not over the whole engine call.

A fake engine spends 5 s in vision and 1 s in prefill, then decodes 20 tokens at 10 a
second; its events go through the page reader's real ``calls.run`` into the app's board.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from mineru_tui import events as je
from mineru_tui.engines.events import Done, GenerationResult, SequenceDone, StageEvent, Timing, TokenEvent
from mineru_tui.reader import calls
from mineru_tui.tui.state import Board
from mineru_tui.tui.widgets.live import LivePane

PDF = "/scans/slow.pdf"
VISION_S, PREFILL_S, STEP_S, TOKENS = 5.0, 1.0, 0.1, 20


class SlowVisionEngine:
    """One request: a long vision stage, then TOKENS tokens STEP_S apart."""

    max_batch = 1

    def stream(self, requests, *, cancel=None):
        timing = Timing(vision_s=VISION_S, vision_tokens=1296, prefill_s=PREFILL_S,
                        prefill_tokens=1340, decode_s=TOKENS * STEP_S, decode_tokens=TOKENS)
        start = VISION_S + PREFILL_S
        yield StageEvent("vision", True, VISION_S, VISION_S, 1296)
        yield StageEvent("prefill", True, start, PREFILL_S, 1340)
        for k in range(TOKENS):
            yield TokenEvent(0, 1000 + k, " w", k + 1, start + STEP_S * (k + 1))
        yield StageEvent("decode", True, start + STEP_S * TOKENS, STEP_S * TOKENS, TOKENS)
        result = GenerationResult(list(range(TOKENS)), " w" * TOKENS, "stop", timing)
        yield SequenceDone(0, result)
        yield Done([result], timing)


def read_into(board: Board, upto_tokens: int | None = None):
    """The page reader's events for one block, folded into ``board`` as they come."""
    events: list[object] = [je.FileStarted(PDF, "pdf"), je.PageStarted(PDF, 0, 1)]
    board.apply(events)
    seen = []

    def emit(event):
        seen.append(event)
        board.apply([event])

    calls.run(SlowVisionEngine(), [object()], path=PDF, page=0, blocks=[0], types=["text"],
              total_blocks=1, emit=emit)
    return seen


def test_the_decode_rate_shown_is_decode_tokens_over_decode_seconds():
    board = Board()
    read_into(board)
    live = board.live
    assert live.decode_tokens == TOKENS and live.decode_s == pytest.approx(TOKENS * STEP_S)
    assert live.decode_rate == pytest.approx(1 / STEP_S)  # 10 tok/s, not 20 / 8 s
    # and it is what the pane prints
    pane = LivePane()
    captured = {}
    pane.update = lambda content: captured.setdefault("c", content)  # no app needed
    pane.show(live, "numpy", "model", True)
    console = Console(width=200, file=io.StringIO(), record=True)
    console.print(captured["c"])
    assert "decode 10.0 tok/s (20 tok in 2.00 s)" in console.export_text()


def test_the_live_rate_while_a_block_decodes_leaves_out_vision_and_prefill():
    board = Board()
    seen = read_into(board)
    last = [e for e in seen if isinstance(e, je.BlockTokens)][-1]
    # the block's rate as the reader reports it, and the sum the pane shows
    if last.tokens_per_s < 0.5 / STEP_S:
        pytest.xfail("the page reader still divides by the time since the engine call began "
                     "(vision and prefill included); issue 21 counts from the block's first "
                     f"token: {last.tokens_per_s:.2f} tok/s reported")
    assert board.live.rates and board.live.tok_s == pytest.approx(1 / STEP_S, rel=0.06)

