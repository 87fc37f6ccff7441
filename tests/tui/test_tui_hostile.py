"""The watch app never writes a control character from a file name or a document to the
terminal (issue 19): names, reasons, Markdown, streamed tokens, block types and log lines
are all shown with ESC, BEL, C1 and bidi controls escaped."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from mineru_tui import events as je
from mineru_tui.console import is_control
from mineru_tui.tui.app import WatchApp
from mineru_tui.tui.md_display import for_display
from mineru_tui.tui.widgets.live import LivePane
from mineru_tui.tui.widgets.markdown_pane import MarkdownPane
from mineru_tui.tui.widgets.tables import BlocksTable, FilesTable
from mineru_tui.watch import events as ev

ROOT = "/in"
TITLE = "\x1b]2;PWNED\x07"
NAME = f"{ROOT}/n{TITLE}\u202e.docx"
PDF = f"{ROOT}/s\x9b2J.pdf"
MARKDOWN = f"# Page\n\ntext {TITLE} \x1b[2J \x1b]52;c;ZXZpbA==\x07 \\] end\n"


def raw_controls(text: str) -> list[str]:
    return [c for c in str(text) if is_control(c) and c not in "\n"]


def plain(renderable) -> str:
    console = Console(width=300, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def hostile_story() -> list[object]:
    return [
        ev.Watching(ROOT, f"/out{TITLE}", "native", "numpy", f"model{TITLE}"),
        ev.FileQueued(NAME, "office", "new"),
        je.FileStarted(NAME, "docx"),
        je.PageDone(NAME, 0, 1, MARKDOWN, 0.01),
        je.FileDone(NAME, "docx", 1, 0.01),
        ev.FileFinished(NAME, "done", output=f"/out/n{TITLE}", kind="docx", pages=1, seconds=0.01),
        ev.FileQueued(f"{ROOT}/bad{TITLE}.docx", "office", "new"),
        ev.FileFinished(f"{ROOT}/bad{TITLE}.docx", "failed", f"corrupt {TITLE} zip"),
        ev.FileQueued(PDF, "pages", "new"),
        je.FileStarted(PDF, "pdf"),
        je.PageStarted(PDF, 0, 1),
        je.LayoutDone(PDF, 0, (je.BlockInfo(0, f"text{TITLE}", (0.1, 0.1, 0.9, 0.2)),)),
        je.BlockStarted(PDF, 0, 0, 1, f"text{TITLE}"),
        je.BlockTokens(PDF, 0, 0, f"tok {TITLE}\x1bc", 1, 10.0),
    ]


@pytest.mark.asyncio
async def test_no_control_character_from_names_or_documents_reaches_the_screen():
    app = WatchApp(None)
    async with app.run_test(size=(160, 40)) as pilot:
        app.follow = False  # stay on the first file (follow mode would select the PDF being read)
        for e in hostile_story():
            app.feed(e)
        await pilot.pause(0.2)
        files = app.query_one(FilesTable)
        for key in files.rows:
            cell = str(files.get_cell(key, "file"))
            assert not raw_controls(cell), repr(cell)
        assert "\\x1b]2;PWNED\\x07" in str(files.get_cell(NAME, "file"))
        assert "corrupt \\x1b]2" in str(files.get_cell(f"{ROOT}/bad{TITLE}.docx", "file"))
        # the Markdown pane of the selected (first) file
        pane = app.query_one(MarkdownPane)
        assert pane.path == NAME
        source = pane.markdown.source
        assert not raw_controls(source) and "\\x1b]2;PWNED\\x07" in source, repr(source)
        # the live pane: name, block type and streamed tokens
        live = plain(app.query_one(LivePane).content)
        assert not raw_controls(live) and "tok \\x1b]2;PWNED" in live, repr(live)
        app._select_file(PDF)
        await pilot.pause(0.1)
        blocks = app.query_one(BlocksTable)
        for key in blocks.rows:
            assert not raw_controls(blocks.get_cell(key, "type"))
        log = "\n".join(app.query_one("#log").entries)
        assert log and not raw_controls(log), repr(log)
        assert not raw_controls(app.sub_title), repr(app.sub_title)


def test_markdown_for_display_escapes_controls_and_table_entities():
    shown_md = for_display("a\x1b[2Jb\n\n<table><tr><td>&#27;]2;x&#7;</td></tr></table>\r\n")
    assert not raw_controls(shown_md)
    assert "a\\x1b[2Jb" in shown_md and "]2;x" in shown_md
