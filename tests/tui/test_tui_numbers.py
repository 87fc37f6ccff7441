"""Numbers that are what they say: the rate of this effort's pages over the file's wall time,
the time left with the output writing, stages named for what runs, the decode rate now
(not since the block began), the live text of the block shown (not of whichever block of a
batch sent the last token). Times come from a clock passed in: nothing races a real one."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest
from rich.console import Console

from mineru_tui import events as je
from mineru_tui.reader.calls import DecodeRate
from mineru_tui.tui.state import Board
from mineru_tui.tui.widgets.live import LivePane
from mineru_tui.watch import events as ev

PDF = "/scans/long.pdf"


def pane_text(board: Board) -> str:
    pane = LivePane()
    got = {}
    pane.update = lambda content: got.setdefault("c", content)
    row = board.files.get(board.live.path)
    pane.show(board.live, board.engine, "model", board.engine_loaded, row, board.write_per_page)
    console = Console(width=200, file=io.StringIO(), record=True)
    console.print(got["c"])
    return console.export_text()


def low_effort_file(board: Board, path: str, pages: int, done: int, per_page: float,
                    start: float = 100.0, page_seconds: float = 0.05) -> float:
    """``done`` of ``pages`` read at effort low, one every ``per_page`` s of wall time
    (each PageDone says the page itself took ``page_seconds``: the reader's own
    measure, which leaves out what runs between pages). Returns the clock at the end."""
    board.apply([ev.Watching("/scans", "/out", "native", "auto", "", effort="low"),
                 ev.FileQueued(path, "pages", "new"), je.FileStarted(path, "pdf")], now=start)
    now = start
    for i in range(done):
        board.apply([je.PageStarted(path, i, pages)], now=now)
        now += per_page
        board.apply([je.PageDone(path, i, pages, f"page {i + 1}", page_seconds)], now=now)
    return now


def test_effort_low_names_no_model_stage_and_rates_pages_over_wall_time():
    board = Board()
    low_effort_file(board, PDF, 300, 30, per_page=0.4)
    text = pane_text(board)
    # 0.4 s of wall time a page is 150 pages/min (the pages' own 0.05 s would say 1200)
    assert "pages/min 150.0" in text
    assert "vision" not in text and "Reading the layout" not in text
    assert "loads with the first page" not in text and text.count("no model") == 1  # said once
    row = board.files[PDF]
    assert row.eta(board.live, board.write_per_page) == pytest.approx(270 * 0.4)


def test_the_time_left_adds_the_output_writing_measured_on_an_earlier_file():
    board = Board()
    first = "/scans/first.pdf"
    now = low_effort_file(board, first, 10, 10, per_page=0.4)
    board.apply([je.FileDone(first, "pdf", 10, 4.0), je.OutputWriting(first, 10)], now=now)
    assert board.live.stage == "writing" and "writing the output set" in pane_text(board)
    board.apply([ev.FileFinished(first, ev.DONE, output="/out/first", kind="pdf", pages=10,
                                 seconds=6.0)], now=now + 2)  # 2 s writing: 0.2 s a page
    assert board.write_per_page == pytest.approx(0.2)
    assert "read 4.0 s, output written 2.0 s" in board.live.finished
    low_effort_file(board, PDF, 300, 30, per_page=0.4, start=200.0)
    row = board.files[PDF]
    assert row.eta(board.live, board.write_per_page) == pytest.approx(270 * 0.4 + 300 * 0.2)
    board.apply([je.OutputWriting(PDF, 300)], now=400.0)  # while writing: the writing left
    assert row.eta(board.live, board.write_per_page) == pytest.approx(300 * 0.2)
    assert "left ~60 s" in pane_text(board)


def test_the_decode_rate_is_over_a_two_second_window():
    rate = DecodeRate()
    t, n, got = 0.0, 1, None
    rate(SimpleNamespace(seq_index=0, elapsed=t, n_generated=n))
    for _ in range(100):  # 10 s at 10 tok/s
        t, n = t + 0.1, n + 1
        got = rate(SimpleNamespace(seq_index=0, elapsed=t, n_generated=n))
    assert got == pytest.approx(10.0)
    for _ in range(8):  # then 4 s at 2 tok/s: the rate now, not the mean since the start
        t, n = t + 0.5, n + 1
        got = rate(SimpleNamespace(seq_index=0, elapsed=t, n_generated=n))
    assert got == pytest.approx(2.0)


def test_blocks_decoded_in_a_batch_keep_the_shown_blocks_text():
    board = Board()
    board.apply([je.FileStarted(PDF, "pdf"), je.PageStarted(PDF, 0, 1),
                 je.LayoutDone(PDF, 0, (je.BlockInfo(0, "text", (0, 0, 1, .5)),
                                        je.BlockInfo(1, "title", (0, .5, 1, 1)))),
                 je.BlockStarted(PDF, 0, 0, 2, "text"), je.BlockStarted(PDF, 0, 1, 2, "title")])
    for k, word in enumerate(["one", "two", "three"]):  # tokens of the two blocks interleave
        board.apply([je.BlockTokens(PDF, 0, 0, f" {word}", k + 1, 5.0),
                     je.BlockTokens(PDF, 0, 1, f" T{k}", k + 1, 4.0)])
    live = board.live
    assert live.block == 0 and live.text == " one two three" and live.block_type == "text"
    assert live.tok_s == pytest.approx(9.0)  # both blocks decode now
    board.apply([je.BlockDone(PDF, 0, 0, "text", "one two three", "model", "stop")])
    assert live.block == 1 and live.text == " T0 T1 T2" and live.block_type == "title"


def test_the_time_left_follows_the_recent_page_rate_and_pages_per_min_the_whole_file():
    board = Board()
    now = low_effort_file(board, PDF, 300, 50, per_page=0.2)  # fast pages first
    for i in range(50, 80):  # then slower ones (a heavier part, a loaded machine)
        board.apply([je.PageStarted(PDF, i, 300)], now=now)
        now += 0.6
        board.apply([je.PageDone(PDF, i, 300, "text", 0.05)], now=now)
    row = board.files[PDF]
    assert row.eta(board.live) == pytest.approx(220 * 0.6)  # the last 20 pages' rate
    assert row.pages_per_min(board.live) == pytest.approx(60 * 80 / (50 * 0.2 + 30 * 0.6))


def test_a_file_read_at_effort_low_this_once_is_shown_without_model_stages():
    from mineru_tui.tui.markdown_text import page_text

    board = Board()
    board.apply([ev.Watching("/scans", "/out", "native", "auto", ""),  # the watch's default
                 ev.FileQueued(PDF, "pages", "retry", effort="low"),  # `l` on this file
                 je.FileStarted(PDF, "pdf"), je.PageStarted(PDF, 0, 3)], now=1.0)
    assert board.live.model_free and board.live.stage == "text"
    row = board.files[PDF]
    _, text, _ = page_text(row, row.pages[0], "", "")
    assert text == "_Reading the PDF's own text…_"
    assert "vision" not in pane_text(board)


def test_an_effort_low_watch_idle_says_no_model_before_any_file():
    """`watch DIR --effort low` at start (or restarted on a folder already read): no model will
    load, so the pane must not promise one "with the first page"."""
    board = Board()
    board.apply([ev.Watching("/scans", "/out", "native", "auto", "", effort="low")], now=1.0)
    text = pane_text(board)
    assert "loads with the first page" not in text and text.count("no model") == 1
    assert "effort low" in text


@pytest.mark.asyncio
async def test_an_effort_low_watch_header_names_no_model():
    """The header names the engine and model only when one runs: not at effort low."""
    from mineru_tui.tui.app import WatchApp

    app = WatchApp(None)
    async with app.run_test(size=(160, 45)) as pilot:
        app.feed(ev.Watching("/scans", "/out", "native", "auto", "", effort="low"))
        await pilot.pause(0.2)
        assert "no model runs at effort low" in app.sub_title
        assert "(default)" not in app.sub_title and "auto" not in app.sub_title


def test_a_resumed_file_says_so_in_the_log():
    """A file whose journal kept pages (a quit, kill or power cut before): the Log tab says
    it resumed, in the journal's words, as `parse -o` and `watch --plain` do."""
    board = Board()
    board.apply([ev.Watching("/scans", "/out", "native", "auto", "", effort="low"),
                 ev.FileQueued(PDF, "pages", "changed"), je.FileStarted(PDF, "pdf")], now=1.0)
    note = "resumed at page 25 of 100 (24 pages kept from an earlier run)"
    ch = board.apply([je.PagesResumed(PDF, 24, 100, 24, note)], now=2.0)
    assert ("information", f"long.pdf: {note}") in ch.log


def test_a_resumed_file_counts_its_kept_pages_done_and_leaves_them_out_of_the_rate():
    """A journal kept 116 of 250 pages: the bar starts at 116, the kept pages' replay
    (however long it takes) is not the reading rate, the time left is the 134 others."""
    board = Board()
    path = "/scans/joined250.pdf"
    board.apply([ev.Watching("/scans", "/out", "native", "auto", "", effort="low"),
                 ev.FileQueued(path, "pages", "resumes"), je.FileStarted(path, "pdf"),
                 je.PagesResumed(path, 116, 250, 116, "resumed at page 117 of 250 (116 pages kept)")],
                now=10.0)
    row = board.files[path]
    assert row.pages_done == 116 and row.eta(board.live) is None  # no rate measured yet
    now = 10.0
    for i in range(116):  # the kept pages come back from the journal, 0.05 s each
        board.apply([je.PageStarted(path, i, 250)], now=now)
        now += 0.05
        board.apply([je.PageDone(path, i, 250, "kept", 0.0)], now=now)
    assert row.pages_done == 116
    for i in range(116, 146):  # 30 pages read, 0.4 s of wall time each
        board.apply([je.PageStarted(path, i, 250)], now=now)
        now += 0.4
        board.apply([je.PageDone(path, i, 250, "read", 0.3)], now=now)
    assert row.pages_done == 146 and row.pages_read == 30
    assert row.eta(board.live) == pytest.approx((250 - 146) * 0.4)
    assert row.pages_per_min(board.live) == pytest.approx(150.0)
