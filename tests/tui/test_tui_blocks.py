"""Blocks as people read them: a table is a grid in every pane (from the model's OTSL or from
HTML), a picture the reader does not read says why, and the counts leave it out."""

from __future__ import annotations

import pytest

from mineru_tui import events as je
from mineru_tui.tui.app import WatchApp
from mineru_tui.tui.block_text import NOT_READ, readable, summary
from mineru_tui.tui.state import Board, BlockRow
from mineru_tui.tui.widgets.block_view import BlockView
from mineru_tui.tui.widgets.tables import BlocksTable
from tests.tui.test_tui import text_of

PDF = "/scans/table.pdf"
OTSL = "<fcel>Item<fcel>Qty<nl><fcel>Paper A4<fcel>10<nl>"
GRID = "Item     │ Qty\n─────────┼────\nPaper A4 │ 10"


def test_a_tables_otsl_and_html_read_as_the_same_grid():
    html = "<table><tr><td>Item</td><td>Qty</td></tr><tr><td>Paper A4</td><td>10</td></tr></table>"
    assert readable(OTSL) == readable(html) == GRID
    table = BlockRow(0, "table", (0, 0, 1, 1), text=OTSL)
    assert summary(table) == "2×2 table: Item | Qty"
    assert "<fcel>" not in readable("<fcel>Item<fcel>Q")  # half streamed: still no raw tokens


def events(done: bool = True) -> list:
    blocks = (je.BlockInfo(0, "title", (0, 0, 1, .1)), je.BlockInfo(1, "table", (0, .2, 1, .5)),
              je.BlockInfo(2, "image", (0, .6, 1, .9), source="none"))
    out = [je.FileStarted(PDF, "pdf"), je.PageStarted(PDF, 0, 1), je.LayoutDone(PDF, 0, blocks),
           je.BlockStarted(PDF, 0, 0, 3, "title"),
           je.BlockDone(PDF, 0, 0, "title", "Prices", "model", "stop"),
           je.BlockStarted(PDF, 0, 1, 3, "table"),
           je.BlockTokens(PDF, 0, 1, OTSL, 9, 10.0)]
    if done:
        out += [je.BlockDone(PDF, 0, 1, "table", OTSL, "model", "stop"),
                je.PageDone(PDF, 0, 1, "## Prices\n", 3.0)]
    return out


def test_live_counts_the_blocks_to_read_and_shows_the_table_as_a_grid():
    board = Board()
    board.apply(events(done=False))
    assert board.live.blocks_total == 2  # the picture is not read: not counted
    assert readable(board.live.text) == GRID
    board.apply([je.BlockDone(PDF, 0, 1, "table", OTSL, "model", "stop")])
    assert board.live.blocks_done == board.live.blocks_total == 2


@pytest.mark.asyncio
async def test_the_blocks_table_and_block_tab_show_grids_and_why_a_picture_is_not_read():
    app = WatchApp(None)
    async with app.run_test(size=(160, 45)) as pilot:
        for e in events():
            app.feed(e)
        await pilot.pause(0.2)
        app.select_file(PDF)
        await pilot.pause(0.1)
        table = app.query_one(BlocksTable)
        assert str(table.get_cell("1", "text")) == "2×2 table: Item | Qty"
        assert str(table.get_cell("2", "text")) == NOT_READ
        app.sel_block = 0  # on the title
        await pilot.press("j")  # the table block
        await pilot.pause(0.1)
        assert app.sel_block == 1
        body = text_of(app.query_one(BlockView).query_one("#block-text"))
        assert "Paper A4 │ 10" in body and "<fcel>" not in body
        await pilot.press("j")  # the picture
        await pilot.pause(0.1)
        head = text_of(app.query_one(BlockView).query_one("#block-head"))
        assert "not read: pictures are read by the model only with --image-analysis" in head
