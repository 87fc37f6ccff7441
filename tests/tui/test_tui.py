"""The watch app, driven with Textual's pilot (headless: no terminal needed)."""

from __future__ import annotations

import io
import time

import pytest
from tests.docx_fixtures import build_docx, p
from rich.console import Console
from tests.tui_script import OUT, PDF, ROOT, story
from tests.watch_helpers import (
    FAST,
    SAMPLE,
    SCRIPTED,
    drop,
    fake_pdf,
    no_model,
    page_image,
    scripted_env,
)

from mineru_tui.tui.app import WatchApp
from textual.events import Key
from mineru_tui.tui.widgets.live import LivePane
from mineru_tui.tui.widgets.markdown_pane import MarkdownPane
from mineru_tui.tui.widgets.tables import BlocksTable, FilesTable, PagesTable
from mineru_tui.watch.events import FileFinished, FileQueued
from mineru_tui.watch.service import WatchConfig

pytestmark = pytest.mark.asyncio
SIZE = (130, 40)


def text_of(widget) -> str:
    """What a Static shows, as plain text."""
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


def cell_text(table, row_key: str, column: str) -> str:
    return str(table.get_cell(row_key, column))


async def until(pilot, condition, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await pilot.pause(0.05)


def record(app: WatchApp) -> list:
    """Keep a copy of every event the service hands the app."""
    seen: list = []
    feed = app.feed

    def recording(event) -> None:
        seen.append(event)
        feed(event)

    app.feed = recording
    return seen


def watch_app(root, **kw) -> WatchApp:
    return WatchApp(WatchConfig(root, **{**FAST, **kw}))


async def test_a_dropped_file_appears_is_read_and_its_markdown_shown(tmp_path):
    root = tmp_path / "in"
    root.mkdir()
    app = watch_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.board.root)
        drop(SAMPLE, root / "report.docx")
        path = str(root / "report.docx")
        await until(pilot, lambda: path in app.query_one(FilesTable).rows)
        await until(pilot, lambda: app.board.files[path].status == "done")
        await pilot.pause(0.2)
        assert cell_text(app.query_one(FilesTable), path, "status") == "done"
        assert app.sel_path == path
        text = app.query_one(MarkdownPane).text
        assert "Quarterly report" in text and "Reading" not in text and "Queued" not in text
        await until(pilot, lambda: len(app.query_one(MarkdownPane).query("MarkdownTable")) >= 1)
        assert str(tmp_path / "in-mineru") in app.sub_title  # the output folder is in the header
        assert (tmp_path / "in-mineru" / "report" / "report.md").is_file()


async def test_a_corrupt_file_fails_with_its_error_and_the_app_keeps_going(tmp_path):
    root = tmp_path / "in"
    root.mkdir()
    app = watch_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.board.root)
        (root / "broken.docx").write_bytes(b"PK\x03\x04 not a zip")
        bad = str(root / "broken.docx")
        await until(pilot, lambda: bad in app.board.files and app.board.files[bad].status == "failed")
        await pilot.pause(0.1)
        files = app.query_one(FilesTable)
        assert cell_text(files, bad, "status") == "failed"
        assert "corrupt" in cell_text(files, bad, "file")  # the error is on the row
        assert any("broken.docx" in line and "corrupt" in line for line in app.query_one("#log").entries)
        assert "corrupt" in app.query_one(MarkdownPane).text  # and on the selected file's pane
        (root / "good.docx").write_bytes(build_docx(p("still reading")))
        good = str(root / "good.docx")
        await until(pilot, lambda: good in app.board.files and app.board.files[good].status == "done")


async def test_pdf_without_a_model_shows_model_needed_with_the_command(tmp_path):
    root = tmp_path / "in"
    root.mkdir()
    app = watch_app(root, engine=no_model(tmp_path))
    seen = record(app)
    async with app.run_test(size=SIZE) as pilot:
        page_image(root / "scan.pdf")
        path = str(root / "scan.pdf")
        await until(pilot, lambda: path in app.board.files
                    and app.board.files[path].status == "needs-model")
        await pilot.pause(0.1)
        assert cell_text(app.query_one(FilesTable), path, "status") == "model needed"
        md = app.query_one(MarkdownPane).text
        assert "Model needed" in md and "no-model-here" in md
        assert "pass --model with the model's folder, or run `mineru-tui model fetch` once" in md
        assert "needs-mod" not in md and "effort low" not in md  # a scan: no text layer
        await pilot.press("r")  # re-queue: still no model, back to the same state
        await until(pilot, lambda: sum(isinstance(e, FileQueued) for e in seen) == 2)
        await until(pilot, lambda: sum(isinstance(e, FileFinished) for e in seen) == 2)
        await pilot.pause(0.1)
        assert app.board.files[path].status == "needs-model"


async def test_keyboard_moves_through_files_pages_and_blocks():
    app = WatchApp(None)
    async with app.run_test(size=SIZE) as pilot:
        for e in story():
            app.feed(e)
        await pilot.pause(0.2)
        files = app.query_one(FilesTable)
        # follow mode: the PDF being read is selected, on its page and block being read
        assert files.has_focus and app.sel_path == PDF and app.follow
        assert (app.sel_page, app.sel_block) == (1, 2)
        await pilot.press("up")  # moving yourself turns follow mode off
        assert app.sel_path == f"{ROOT}/broken.docx" and not app.follow
        await pilot.press("up")
        assert app.sel_path == f"{ROOT}/report.docx"
        await pilot.press("down", "down", "enter")  # open the PDF: focus goes to its pages
        pages = app.query_one(PagesTable)
        assert pages.has_focus and pages.row_count == 2
        await pilot.press("up")
        assert app.sel_page == 0
        await pilot.press("enter")  # open the page: focus goes to its blocks
        blocks = app.query_one(BlocksTable)
        assert blocks.has_focus and blocks.row_count == 7
        assert str(blocks.get_cell("0", "from")) == "pdf text"
        await pilot.press("down", "down")
        assert app.sel_block == 2
        await pilot.press("enter")  # a block opens the Block tab
        assert app.query_one("#tabs").active == "tab-block"
        await pilot.press("shift+tab")
        assert pages.has_focus
        await pilot.press("tab")
        assert blocks.has_focus


async def test_page_and_block_keys_work_from_anywhere():
    app = WatchApp(None)
    async with app.run_test(size=SIZE) as pilot:
        for e in story():
            app.feed(e)
        await pilot.pause(0.2)
        assert app.query_one(FilesTable).has_focus and app.sel_page == 1
        await pilot.press("left_square_bracket")  # [ : previous page, focus stays on Files
        assert (app.sel_page, app.sel_block) == (0, -1) and not app.follow
        assert app.query_one(FilesTable).has_focus
        assert "Invoice 1" in app.query_one(MarkdownPane).text  # the pane follows the page
        assert "page 1 of 3" in text_of(app.query_one("#markdown-head"))
        await pilot.press("j")  # j: first block of the page
        assert app.sel_block == 0
        await pilot.press("j", "j", "k")
        assert app.sel_block == 1
        await pilot.press("right_square_bracket")  # ]
        assert app.sel_page == 1 and "Invoice 2" in app.query_one(MarkdownPane).text
        await pilot.press("pageup")
        assert app.sel_page == 0
        await pilot.press("pagedown", "pagedown")  # no page 3 yet: stays on the last
        assert app.sel_page == 1
        await pilot.press("left_square_bracket")
        for _ in range(8):  # j past the last block of page 1 goes on to page 2
            await pilot.press("j")
        assert (app.sel_page, app.sel_block) == (1, 0)
        await pilot.press("k")  # and back
        assert (app.sel_page, app.sel_block) == (0, 6)
        for key, tab in (("2", "tab-page"), ("3", "tab-block"), ("4", "tab-log"),
                         ("1", "tab-markdown")):
            await pilot.press(key)
            assert app.query_one("#tabs").active == tab
        await pilot.press("3")
        view = app.query_one("#block-head")
        assert "block 7 of 7 · footer · page 1 · read" in text_of(view)
        assert "page 1" in text_of(app.query_one("#block-text"))
        await pilot.press("z")  # the tabs alone
        assert app.screen.maximized is app.query_one("#tabs")
        await pilot.press("z")
        assert app.screen.maximized is None


async def test_follow_mode_selects_the_file_being_read_until_you_move():
    from tests.tui_script import finish, read_page

    from mineru_tui import events as je

    app = WatchApp(None)
    async with app.run_test(size=SIZE) as pilot:
        for e in story():
            app.feed(e)
        await pilot.pause(0.2)
        assert (app.sel_path, app.sel_page, app.sel_block) == (PDF, 1, 2)
        app.feed(je.BlockDone(PDF, 1, 2, "text", "Amount due", "model", "stop"))
        app.feed(je.BlockStarted(PDF, 1, 3, 7, "table"))
        await pilot.pause(0.2)
        assert app.sel_block == 3  # it follows the block being read
        for e in finish():
            app.feed(e)
        other = f"{ROOT}/second.pdf"
        app.feed(je.FileStarted(other, "pdf"))
        for e in read_page(other, 0, 1, upto=1):
            app.feed(e)
        await pilot.pause(0.2)
        assert (app.sel_path, app.sel_page) == (other, 0)  # a new file is selected as it starts
        await pilot.press("up")  # you move: follow is off, the next file does not take over
        assert not app.follow and app.sel_path == PDF
        assert "follow off" in app.sub_title
        third = f"{ROOT}/third.pdf"
        app.feed(je.FileStarted(third, "pdf"))
        app.feed(je.PageStarted(third, 0, 1))
        await pilot.pause(0.2)
        assert app.sel_path == PDF
        await pilot.press("f")  # f: back on, straight to the file being read
        assert app.follow and (app.sel_path, app.sel_page) == (third, 0)


async def test_the_filter_narrows_the_files_and_escape_clears_it():
    app = WatchApp(None)
    async with app.run_test(size=SIZE) as pilot:
        for e in story():
            app.feed(e)
        await pilot.pause(0.2)
        files = app.query_one(FilesTable)
        app.select_file(PDF)
        await pilot.press("slash")
        await pilot.press(*"docx")  # typed into the filter: j, k, digits are text here
        await until(pilot, lambda: files.row_count == 2)
        assert PDF not in files.rows
        assert app.sel_path == files.selected_key() != PDF  # a hidden file is not kept selected
        assert app.query_one("#tabs").active == "tab-markdown"
        await pilot.press("enter")
        assert files.has_focus and files.row_count == 2
        await pilot.press("escape")
        assert files.row_count == 3


async def test_slash_in_the_tabs_finds_text_without_moving_as_you_type():
    from tests.tui_script import finish

    app = WatchApp(None)
    async with app.run_test(size=SIZE) as pilot:
        for e in story():
            app.feed(e)
        await pilot.pause(0.2)
        for e in finish():
            app.feed(e)
        await pilot.pause(0.2)
        await pilot.press("left_square_bracket")
        start = app.sel_page
        app.query_one(MarkdownPane).focus()  # in the tabs pane, / finds text in the pages
        box = app.query_one("#filter")
        await pilot.press("slash", *"invoice", "space", "2")
        await pilot.pause(0.1)
        assert app.sel_page == start  # typing never moves the page
        assert box.border_title == "1 pages have it (enter)"
        assert app.query_one(FilesTable).row_count == 3  # the files are not filtered
        await pilot.press("enter")  # the page that has the whole query, its block selected
        assert app.sel_page == 1 and box.border_title == "page 2: 1 of 1 pages"
        assert app.sel_block == 1  # the title block "Invoice 2 — March 2026"
        head = str(app.query_one("#markdown-head").render())
        assert "found: " in head and "Invoice 2" in head
        await pilot.press(*"9")  # "invoice 29": a prefix matched, the query does not
        await pilot.pause(0.1)
        assert box.border_title == "no match" and app.sel_page == 1
        await pilot.press("enter")  # says so and stays
        assert box.border_title == "no match" and app.sel_page == 1
        assert "found: " not in str(app.query_one("#markdown-head").render())  # not the old one
        await pilot.press("backspace", "backspace", "backspace")  # "invoice": pages 1 and 2
        await pilot.press("enter")
        assert app.sel_page == 0  # after page 2, round to the first
        await pilot.press("enter")
        assert app.sel_page == 1
        await pilot.press("escape")
        assert not box.has_class("-shown")
        assert app.query_one(MarkdownPane).has_focus


async def test_the_filter_matches_status_words():
    app = WatchApp(None)
    async with app.run_test(size=SIZE) as pilot:
        for e in story():
            app.feed(e)
        await pilot.pause(0.2)
        files = app.query_one(FilesTable)
        await pilot.press("slash", *"failed")
        await pilot.pause(0.1)
        assert list(k.value for k in files.rows) == [f"{ROOT}/broken.docx"]
        await pilot.press("escape", "slash", *"reading")
        await pilot.pause(0.1)
        assert list(k.value for k in files.rows) == [PDF]


async def test_first_last_and_go_to_page_and_a_burst_of_next_page_keys():
    from tests.tui_script import finish

    drawn = []
    app = WatchApp(None)
    async with app.run_test(size=SIZE) as pilot:
        for e in story():
            app.feed(e)
        await pilot.pause(0.2)
        for e in finish():
            app.feed(e)
        await pilot.pause(0.2)
        app.select_file(PDF)
        await pilot.press("G")
        assert app.sel_page == 2 and "page 3 of 3" in str(
            app.query_one("#markdown-head").render())
        await pilot.press("g")
        assert app.sel_page == 0
        await pilot.press("end")  # Home / End page too (not the table sideways)
        assert app.sel_page == 2
        await pilot.press("home")
        assert app.sel_page == 0
        await pilot.press("colon", "3", "enter")
        assert app.sel_page == 2 and not app.query_one("#filter").has_class("-shown")
        await pilot.press("colon", "9", "enter")  # no page 9: says so, stays
        assert app.sel_page == 2 and app.query_one("#filter").border_title == "no such page"
        await pilot.press("escape", "g")
        for key in ("colon", "3", "enter"):  # typed ahead: queued before the prompt shows
            app.post_message(Key(key, ":" if key == "colon" else None if key == "enter" else key))
        await until(pilot, lambda: app.sel_page == 2)  # "3" went into the prompt, Enter too
        assert not app.query_one("#filter").has_class("-shown")
        assert app.query_one("#tabs").active == "tab-markdown"  # not a tab key
        await pilot.press("g")
        # key repeat: three ] queued before the app runs; the pages passed are never drawn
        real = app._draw_detail
        app._draw_detail = lambda: (drawn.append(app.sel_page), real())[1]
        for _ in range(3):
            app.post_message(Key("right_square_bracket", None))
        await pilot.pause(0.2)
        assert app.sel_page == 2 and drawn == [2]


async def test_the_theme_is_kept_for_the_next_run(config_home):
    app = WatchApp(None, remember=True)
    async with app.run_test(size=SIZE) as pilot:
        app.theme = "nord"
        await pilot.pause(0.1)
    assert '"theme": "nord"' in (config_home / "mineru-tui" / "watch.json").read_text()
    again = WatchApp(None, remember=True)
    assert again.theme == "nord"
    assert WatchApp(None).theme != "nord"  # a test app (remember off) reads nothing


async def test_scripted_events_stream_into_the_live_pane_and_counters_update():
    app = WatchApp(None)
    async with app.run_test(size=SIZE) as pilot:
        events = story(stream_tokens=2)
        for e in events:
            app.feed(e)
        await pilot.pause(0.2)
        live = text_of(app.query_one(LivePane))
        assert "march.pdf · page 2 of 3 · block 3 of 7 (text)" in live
        assert "Amount due" in live and "within" not in live
        assert "vision 1.25 s (1296 tok)" in live and "prefill 0.31 s (1340 tok)" in live
        assert "blocks 2 of 7" in live and "pages/min 10.0" in live
        assert "engine numpy" in live
        assert "left ~" in live  # 1.7 pages left at 6 s a page
        from mineru_tui import events as je
        for k, w in enumerate(["within", "thirty"]):  # more tokens arrive
            app.feed(je.BlockTokens(PDF, 1, 2, " " + w, 3 + k, 30.0))
        await pilot.pause(0.2)
        live = text_of(app.query_one(LivePane))
        assert "Amount due within thirty" in live and "tok/s 30.0" in live
        tokens = sum(isinstance(e, je.BlockTokens) and e.path == PDF for e in events) + 2
        assert f"decoded {tokens} " in live
        from tests.tui_script import finish
        for e in finish():
            app.feed(e)
        await pilot.pause(0.2)
        live = text_of(app.query_one(LivePane))  # the pane no longer shows it as being read
        assert "march.pdf: done ⚠ in 14.0 s" in live and "Amount due" not in live


async def test_an_empty_page_and_file_say_why_instead_of_done():
    from tests.tui_script import finish

    app = WatchApp(None)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        for e in story():
            app.feed(e)
        await pilot.pause(0.2)
        for e in finish():
            app.feed(e)
        await pilot.pause(0.2)
        row = app.board.files[PDF]
        assert row.pages[2].status == "empty" and row.label == "done ⚠"
        files = app.query_one(FilesTable)
        assert cell_text(files, PDF, "status") == "done ⚠"
        assert "page 3: the layout stage found no blocks" in cell_text(files, PDF, "file")
        assert str(app.query_one(PagesTable).get_cell("2", "status")) == "empty"
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert app.sel_page == 2
        assert "came out empty: page 3: the layout stage found no blocks" in \
            app.query_one(MarkdownPane).text
        # one toast for the batch (the failure had its own when it happened)
        messages = [n.message for n in app._notifications]
        assert "2 done (1 with warnings), 1 failed — type / failed to list them" in messages
        assert sum("broken.docx: failed" in m for m in messages) == 1
        # a file with nothing in it at all
        from mineru_tui import events as je
        from mineru_tui.watch import events as ev
        blank = f"{ROOT}/blank.png"
        app.feed(je.FileStarted(blank, "image"))
        app.feed(je.PageStarted(blank, 0, 1))
        app.feed(je.PageDone(blank, 0, 1, "", 2.0))
        app.feed(ev.FileFinished(blank, "done", output=f"{OUT}/blank", kind="image", pages=1))
        await pilot.pause(0.2)
        assert cell_text(files, blank, "status") == "done, empty"


async def test_tokens_from_a_reader_process_reach_the_live_pane(tmp_path, monkeypatch):
    scripted_env(monkeypatch, pages=2, token_delay=0.05)
    root = tmp_path / "in"
    root.mkdir()
    app = watch_app(root, converter=SCRIPTED)
    async with app.run_test(size=SIZE) as pilot:
        fake_pdf(root / "scan.pdf")
        path = str(root / "scan.pdf")
        await until(pilot, lambda: app.board.live.tokens >= 3)
        live = text_of(app.query_one(LivePane))
        assert "scan.pdf · page 1" in live and "vision 0.25 s" in live
        await until(pilot, lambda: app.board.files[path].status == "done")
        await pilot.pause(0.2)
        assert app.sel_page == 1  # followed to the last page
        assert "Scripted page 2" in app.query_one(MarkdownPane).text
        assert "scan.pdf: done in" in text_of(app.query_one(LivePane))
        assert app.query_one(PagesTable).row_count == 2


async def test_pause_cancel_and_reread_keys(tmp_path, monkeypatch):
    scripted_env(monkeypatch, pages=50, token_delay=0.02)
    root = tmp_path / "in"
    root.mkdir()
    app = watch_app(root, converter=SCRIPTED)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.board.root)
        await pilot.press("p")
        await until(pilot, lambda: "PAUSED" in app.sub_title)
        fake_pdf(root / "a.pdf")
        path = str(root / "a.pdf")
        await until(pilot, lambda: path in app.board.files)
        await pilot.pause(0.6)
        assert app.board.files[path].status == "queued"
        await pilot.press("p")
        await until(pilot, lambda: app.board.files[path].status == "reading")
        await until(pilot, lambda: app.board.live.tokens > 0)
        await pilot.press("c")
        await until(pilot, lambda: app.board.files[path].status == "cancelled", timeout=5)
        await pilot.press("r")
        await until(pilot, lambda: app.board.files[path].status == "reading")
        await pilot.press("c")
        await until(pilot, lambda: app.board.files[path].status == "cancelled", timeout=5)


async def test_q_quits_and_stops_the_reader_processes(tmp_path, monkeypatch):
    scripted_env(monkeypatch, pages=50, token_delay=0.02)
    root = tmp_path / "in"
    root.mkdir()
    drop(SAMPLE, root / "done.docx")
    app = watch_app(root, converter=SCRIPTED)
    async with app.run_test(size=SIZE) as pilot:
        done = str(root / "done.docx")
        await until(pilot, lambda: done in app.board.files and app.board.files[done].status == "done")
        fake_pdf(root / "long.pdf")
        await until(pilot, lambda: app.board.live.tokens > 0)
        procs = [lane._proc for lane in app.service.lanes.values() if lane._proc]
        t0 = time.monotonic()
        await pilot.press("q")
        await until(pilot, lambda: not app.is_running, timeout=10)
    assert time.monotonic() - t0 < 6
    assert procs and all(proc.poll() is not None for proc in procs)
    assert (tmp_path / "in-mineru" / "done" / "done.md").is_file()  # finished files kept
    assert not (tmp_path / "in-mineru" / "long").exists()


async def test_help_and_output_screens(tmp_path):
    app = WatchApp(None)
    async with app.run_test(size=SIZE) as pilot:
        for e in story():
            app.feed(e)
        await pilot.pause(0.2)
        await pilot.press("question_mark")
        assert type(app.screen).__name__ == "HelpScreen"
        await pilot.press("escape")
        await pilot.press("o")  # the PDF being read has no output yet: the output folder
        assert type(app.screen).__name__ == "OutputScreen"
        assert app.screen.path == "/scans-mineru"
        await pilot.press("escape", "up", "up", "o")
        assert app.screen.path == "/scans-mineru/report"
        await pilot.press("escape", "y")  # y copies the path (OSC 52) from anywhere
        assert app.clipboard == "/scans-mineru/report"
        await pilot.press("escape")
        assert type(app.screen).__name__ == "Screen"


async def test_an_office_file_read_meanwhile_leaves_the_live_pane_to_the_page():
    from mineru_tui import events as je

    app = WatchApp(None)
    async with app.run_test(size=SIZE) as pilot:
        for e in story():
            app.feed(e)
        app.feed(je.FileStarted(f"{ROOT}/late.docx", "docx"))
        app.feed(je.PageDone(f"{ROOT}/late.docx", 0, 1, "# Late", 0.01))
        await pilot.pause(0.2)
        live = text_of(app.query_one(LivePane))
        assert "march.pdf · page 2" in live and "late.docx" not in live


async def test_the_command_palette_offers_the_actions():
    app = WatchApp(None)
    async with app.run_test(size=SIZE):
        titles = [c.title for c in app.get_system_commands(app.screen)]
    for wanted in ("Re-read the selected file", "Pause / resume the queue",
                   "Cancel the file being read", "Show the output folder", "Watch help",
                   "Follow mode on / off"):
        assert wanted in titles
    assert titles.count("Keys") <= 1  # Textual's own; ours has its own name



async def test_a_restart_shows_finished_files_without_reading_them_and_rereads_changed(tmp_path):
    root = tmp_path / "in"
    root.mkdir()
    drop(SAMPLE, root / "kept.docx")
    (root / "edited.docx").write_bytes(build_docx(p("first draft")))
    app = watch_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(app.board.files) == 2 and all(
            r.status == "done" for r in app.board.files.values()))
        await pilot.press("q")
    (root / "edited.docx").write_bytes(build_docx(p("second draft")))
    app = watch_app(root)
    seen = record(app)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(app.board.files) == 2 and all(
            r.status == "done" for r in app.board.files.values()))
        await pilot.pause(0.2)
        kept = app.board.files[str(root / "kept.docx")]
        assert kept.note == "already read"
        assert "already read" in cell_text(app.query_one(FilesTable), kept.path, "file")
    queued = [e.path for e in seen if isinstance(e, FileQueued)]
    assert queued == [str(root / "edited.docx")]
    assert "second draft" in (tmp_path / "in-mineru" / "edited" / "edited.md").read_text()


def page_detail(row):
    return [(p.index, p.status, [(b.type, b.text.strip()) for b in p.blocks], p.markdown.strip())
            for _, p in sorted(row.pages.items())]


async def test_a_restart_rebuilds_a_finished_pdfs_pages_blocks_and_markdown(tmp_path,
                                                                           monkeypatch):
    from testkit import pdf_fixtures as pf

    scripted_env(monkeypatch)
    root = tmp_path / "in"
    root.mkdir()
    pages = [pf.Page(items=list(pf.text_lines([f"page {n} of a scan"]))) for n in (1, 2)]
    pf.write_pdf(tmp_path / "two.pdf", pages)
    drop(tmp_path / "two.pdf", root / "two.pdf")
    path = str(root / "two.pdf")
    app = watch_app(root, converter="testkit.watch_doubles:read_with_script")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: path in app.board.files
                    and app.board.files[path].status == "done")
        read = page_detail(app.board.files[path])
        await pilot.press("q")
    assert [p[1] for p in read] == ["done", "done"]
    assert read[0][2] == [("title", "Scripted title"), ("text", "Scripted paragraph."),
                          ("table", "<fcel>a<fcel>b<nl>")]
    assert read[1][3].startswith("# Scripted") and "<table>" in read[1][3]
    app = watch_app(root, converter="testkit.watch_doubles:read_with_script")
    seen = record(app)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: path in app.board.files
                    and app.board.files[path].detail == "loaded")
        await pilot.pause(0.2)
        row = app.board.files[path]
        assert row.note == "already read" and not any(isinstance(e, FileQueued) for e in seen)
        assert page_detail(row) == read  # the same pages, blocks and Markdown as when read
        assert app.query_one(PagesTable).row_count == 2
        await pilot.press("right_square_bracket", "j")
        assert (app.sel_page, app.sel_block) == (1, 0)
        assert "page 2 of 2" in text_of(app.query_one("#markdown-head"))
        assert app.query_one(MarkdownPane).text.strip() == read[1][3]
        await pilot.press("2")
        side = text_of(app.query_one("#page-text"))
        assert "page 2 of 2 · 3 blocks · block 1: title" in side
        assert "3 table  1×2 table: a | b" in side  # a table as a grid, not OTSL
        await until(pilot, lambda: app._images.get((path, 1)) is not None)  # the PDF page, rendered
        assert app._images[(path, 1)].size[1] > app._images[(path, 1)].size[0]  # portrait


async def test_a_graphics_terminal_gets_the_page_as_an_image_with_its_boxes():
    widget = pytest.importorskip("textual_image.widget")
    from tests.tui_script import page_image

    from mineru_tui.tui.graphics import detect

    assert detect() is None  # pytest's stdout is no terminal: half-blocks
    # the widget textual-image gives a Kitty / Sixel terminal; its half-cell one runs headless
    app = WatchApp(None, image_loader=page_image, graphics=widget.HalfcellImage)
    async with app.run_test(size=SIZE) as pilot:
        for e in story():
            app.feed(e)
        await pilot.pause(0.2)
        await pilot.press("2")
        await until(pilot, lambda: app.query_one("#page-graphic").image is not None)
        shown = app.query_one("#page-graphic").image
        assert shown.size == page_image().size and not app.query_one("#page-image").display
        # the boxes are drawn on it in MinerU's colours: the title (read) in full colour,
        # the table (not read yet) pale
        from mineru_tui.tui.page_image import colour
        x = int(0.08 * shown.width) + 1
        assert shown.getpixel((x, int(0.115 * shown.height))) == colour("title")
        table = shown.getpixel((x, int(0.45 * shown.height)))
        assert table != colour("table") and table[2] < table[0]  # pale yellow


async def test_control_characters_from_a_document_are_shown_escaped():
    from mineru_tui import events as je
    from mineru_tui.watch import events as ev

    bad = f"{ROOT}/evil\x1b[2Jname.docx"
    app = WatchApp(None)
    async with app.run_test(size=SIZE) as pilot:
        app.feed(je.FileStarted(bad, "docx"))
        app.feed(je.PageDone(bad, 0, 1, "# Title\x1b]52;c;cGF5bG9hZA==\x07\n\ntext\x9b2J\n", 0.1))
        app.feed(ev.FileFinished(bad, "done", output=f"{OUT}/evil", kind="docx", pages=1))
        await pilot.pause(0.2)
        name = cell_text(app.query_one(FilesTable), bad, "file")
        assert "\x1b" not in name and "evil\\x1b[2Jname.docx" in name
        md = app.query_one(MarkdownPane).text
        assert not any(c in md for c in "\x1b\x07\x9b")
        assert "\\x1b]52" in md and "\\x9b2J" in md and "\n\ntext" in md


async def test_after_a_restart_a_file_is_rebuilt_only_when_it_is_shown():
    from mineru_tui.tui.state import DetailLoaded, PageRow
    from mineru_tui.watch import events as ev

    asked: list[str] = []

    def loader(path, output):
        asked.append(path)
        return DetailLoaded(path, (PageRow(0, "done", markdown=f"# {path}"),))

    app = WatchApp(None, detail_loader=loader)
    async with app.run_test(size=SIZE) as pilot:
        paths = [f"{ROOT}/{n}.pdf" for n in ("a", "b", "c")]
        for p in paths:
            app.feed(ev.FileFinished(p, "done", output=f"{OUT}/x", kind="pdf", pages=1,
                                     note="already read"))
        # the rebuild runs in a worker: wait for what it shows, not for a fixed time
        await until(pilot, lambda: app.query_one(MarkdownPane).text.startswith(f"# {paths[0]}"))
        assert asked == [paths[0]]  # the selected one only
        await pilot.press("down")
        await until(pilot, lambda: app.query_one(MarkdownPane).text.startswith(f"# {paths[1]}"))
        assert asked == paths[:2] and app.board.files[paths[2]].detail == "pending"


async def test_a_text_pdf_without_the_model_shows_the_way_forward_and_l_reads_it_low(
        tmp_path, monkeypatch):
    from testkit.pdf_fixtures import Page, Text, write_pdf

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))  # no model cached, offline
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("MINERU_TUI_MODEL", raising=False)
    root = tmp_path / "in"
    root.mkdir()
    app = watch_app(root, engine={"engine": "numpy"})
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.board.root)
        words = "A born-digital page whose own text layer reads well without any model."
        write_pdf(root / "paper.pdf", [Page(items=[Text(72, 700 - 20 * i, words)
                                                   for i in range(6)])])
        path = str(root / "paper.pdf")
        await until(pilot, lambda: path in app.board.files
                    and app.board.files[path].status == "needs-model")
        await pilot.pause(0.1)
        files = app.query_one(FilesTable)
        assert cell_text(files, path, "status") == "model needed"
        assert "needs the MinerU2.5 model (2.3 GB, not downloaded yet)" in \
            cell_text(files, path, "file")
        md = app.query_one(MarkdownPane).text
        assert ("paper.pdf needs the MinerU2.5 model (2.3 GB, not downloaded yet): run "
                "`mineru-tui model fetch` once, or read this PDF's own text now with "
                "`--effort low`.") in md
        assert "**l** to read this PDF's own text now" in md and "needs-mod" not in md
        await pilot.press("l")
        await until(pilot, lambda: app.board.files[path].status == "done")
        await pilot.pause(0.1)
        assert "born-digital page" in app.query_one(MarkdownPane).text


async def test_at_80x24_the_folders_quit_help_and_pages_and_blocks_as_tabs_remain():
    app = WatchApp(None)
    async with app.run_test(size=(80, 24)) as pilot:
        for e in story():
            app.feed(e)
        await pilot.pause(0.2)
        assert "/scans → /scans-mineru" in app.sub_title  # the folders, not the model
        shot = app.export_screenshot()
        assert "Quit" in shot and "Help" in shot
        files, pages = app.query_one(FilesTable), app.query_one(PagesTable)
        assert files.display and files.region.height > 0
        app.select_file(PDF)
        files.focus()
        await pilot.press("enter")  # the file's pages take the left pane, as a tab
        await pilot.pause(0.1)
        assert pages.has_focus and pages.region.height > 0 and files.region.height == 0
        await pilot.press("enter")  # a page's blocks
        await pilot.pause(0.1)
        blocks = app.query_one(BlocksTable)
        assert blocks.has_focus and blocks.region.height > 0 and pages.region.height == 0
        await pilot.press("escape")  # up a level: the pages
        await pilot.pause(0.1)
        assert pages.has_focus and pages.region.height > 0 and blocks.region.height == 0
        await pilot.press("backspace")  # and up again: the files
        await pilot.pause(0.1)
        assert files.has_focus and files.region.height > 0
        await pilot.press("enter")
        await pilot.pause(0.1)
        app.query_one("#left-tabs").active = "lt-files"
        await pilot.pause(0.1)
        assert files.has_focus and files.region.height > 0


async def test_zoom_gives_the_page_the_full_width_and_the_selected_block_is_cut_out():
    from tests.tui_script import finish
    from tests.tui_script import page_image as fixed_page

    app = WatchApp(None, image_loader=fixed_page)
    async with app.run_test(size=(160, 45)) as pilot:
        for e in story() + finish():
            app.feed(e)
        await pilot.pause(0.2)
        app.select_file(PDF)
        await pilot.press("g", "2", "j")
        await until(pilot, lambda: (PDF, 0) in app._images)
        await pilot.pause(0.2)
        pic = app.query_one("#page-image")
        narrow_width = pic.size.width
        side = text_of(app.query_one("#page-text"))
        assert "block 1 at full width:" in side  # the selected block, cut from the page
        await pilot.press("z")
        await pilot.pause(0.3)
        preview = app.query_one("#preview")
        assert pic.size.width == preview.size.width - 2 > 2 * narrow_width
        assert not app.query_one("#page-side").display
        assert pic.size.height > preview.size.height  # taller than the pane: it scrolls
        await pilot.press("z")
        await pilot.pause(0.3)
        assert pic.size.width == narrow_width and app.query_one("#page-side").display
