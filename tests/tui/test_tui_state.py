"""The app's board and the restore of a finished file, without a terminal."""

from __future__ import annotations

import json

from mineru_tui import events as je
from mineru_tui.convert import ConvertOptions, convert
from mineru_tui.output import write_outputs
from mineru_tui.tui.restore import load_detail
from mineru_tui.tui.state import Board, pages_named
from mineru_tui.watch import events as ev
from tests.reader.test_pages import page_png, script
from testkit.scripted_engine import ScriptedEngine


def test_a_warning_names_its_pages():
    assert pages_named("page 3: the layout stage found no blocks") == {3}
    assert pages_named("pages 2-4, 7 were not read: timeout") == {2, 3, 4, 7}
    assert pages_named("the workbook has 3 pages") == set()


def test_a_restored_page_is_the_page_the_events_showed(tmp_path):
    events: list[object] = []
    png = page_png(tmp_path / "scan.png")
    doc = convert(png, ConvertOptions(engine=ScriptedEngine(script(), max_batch=3),
                                      page_markdown=True), on_event=events.append)
    folder = write_outputs(doc, tmp_path / "out", "scan").path
    board = Board()
    board.apply(events)
    live = board.files[str(png)].pages[0]
    restored = load_detail(str(png), str(folder)).pages[0]
    assert [(b.index, b.type, b.text) for b in restored.blocks] == \
        [(b.index, b.type, b.text) for b in live.blocks]
    assert restored.markdown == live.markdown and restored.status == live.status == "done"
    assert restored.blocks[1].bbox == live.blocks[1].bbox


def test_restore_says_why_a_page_is_empty_or_failed(tmp_path):
    folder = tmp_path / "out" / "scan"
    folder.mkdir(parents=True)
    model = {"kind": "pdf", "pages": [
        {"page_idx": 0, "page_no": 1, "blank": True, "blocks": [], "page_size": [612, 792]},
        {"page_idx": 1, "page_no": 2, "error": "the engine gave no answer", "blocks": []}]}
    (folder / "scan_model.json").write_text(json.dumps(model))
    (folder / "scan.md").write_text("")
    pages = load_detail("/in/scan.pdf", str(folder)).pages
    assert pages[0].status == "empty" and "blank" in pages[0].why_empty
    assert pages[1].status == "failed" and pages[1].warnings[0] == "the engine gave no answer"
    # an unreadable set shows nothing rather than failing
    (folder / "scan_model.json").write_text("{not json")
    assert load_detail("/in/scan.pdf", str(folder)).pages == ()


def test_an_empty_page_from_the_events_is_empty_with_the_files_warning():
    board = Board()
    pdf = "/in/a.pdf"
    board.apply([je.FileStarted(pdf, "pdf"), je.PageStarted(pdf, 0, 2),
                 je.PageDone(pdf, 0, 2, "# A\n", 1.0), je.PageStarted(pdf, 1, 2),
                 je.LayoutDone(pdf, 1, ()), je.PageDone(pdf, 1, 2, "", 1.0),
                 je.FileDone(pdf, "pdf", 2, 2.0, ("page 2: no text was found",)),
                 ev.FileFinished(pdf, "done", output="/out/a", kind="pdf", pages=2)])
    row = board.files[pdf]
    assert [p.status for p in row.pages.values()] == ["done", "empty"]
    assert row.pages[1].why_empty == "page 2: no text was found"
    assert row.label == "done ⚠" and row.warning_line() == "page 2: no text was found"


def test_pages_without_their_markdown_are_done_not_empty():
    board = Board()
    board.apply([je.FileStarted("/in/a.pdf", "pdf"), je.PageStarted("/in/a.pdf", 0, 1),
                 je.PageDone("/in/a.pdf", 0, 1, None, 1.0)])
    page = board.files["/in/a.pdf"].pages[0]
    assert page.status == "done" and not page.markdown_known


def test_a_cancelled_file_says_cancelled_once_and_what_was_kept():
    board = Board()
    board.apply([ev.FileFinished("/w/long.pdf", ev.CANCELLED, "cancelled (29 pages kept: the "
                                 "next run resumes after them)", kind="pdf")])
    row = board.files["/w/long.pdf"]
    assert row.outcome() == "cancelled: 29 pages kept: the next run resumes after them"


def test_the_filter_finds_files_done_with_warnings_by_the_word():
    from mineru_tui.tui.widgets.tables import FilesTable

    board = Board()
    board.apply([je.FileDone("/w/a.pdf", "pdf", 1, 1.0, ("page 1: nothing read",)),
                 ev.FileFinished("/w/a.pdf", ev.DONE, output="/o/a", kind="pdf", pages=1),
                 ev.FileFinished("/w/b.docx", ev.DONE, output="/o/b", kind="docx", pages=1)])
    table = FilesTable()
    table.filter = "warn"
    assert [r.name for r in board.files.values() if table.matches(r)] == ["/w/a.pdf"]
