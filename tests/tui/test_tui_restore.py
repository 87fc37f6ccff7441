"""The restored view is the live view: a file read with the app watching and the same file
shown after a restart (rebuilt from its output set) show the same pages, statuses, blocks
(type, text, where the text came from), Markdown and verdict — file for file."""

from __future__ import annotations

from pathlib import Path

import pytest

from mineru_tui.convert import ConvertOptions, convert
from mineru_tui.output import write_outputs
from mineru_tui.tui.restore import load_detail
from mineru_tui.tui.state import Board, FileRow
from mineru_tui.watch import events as ev
from mineru_tui.watch.worker import settled_pages
from tests.docx_fixtures import build_docx, p
from testkit.pdf_fixtures import Page, Text, write_pdf
from tests.reader.test_pages import page_png, script
from testkit.scripted_engine import ScriptedEngine

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "office"


def view(row: FileRow) -> dict:
    """What the panes show of a file: its verdict line and, per page, what the Pages,
    Blocks and Markdown panes draw."""
    pages = {}
    for i, page in sorted(row.pages.items()):
        pages[i] = {"status": str(page.status), "markdown": page.markdown.strip(),
                    "why": page.why_empty if page.status == "empty" else "",
                    "blocks": [(b.index, b.type, b.text.strip(), b.source) for b in page.blocks]}
    return {"label": row.label, "warning": row.warning_line(), "pages": pages}


def live_and_restored(tmp_path, path, options: ConvertOptions) -> tuple[dict, dict]:
    """The board of a live read (its events, then the watcher's verdict) and the board
    after a restart (the verdict from the manifest, then the output set read back)."""
    events: list[object] = []
    doc = convert(path, options, on_event=events.append)
    events += settled_pages(str(path), doc)  # as the watcher's reader process sends them
    folder = write_outputs(doc, tmp_path / "out", path.stem).path
    kind = next(e.kind for e in events if hasattr(e, "kind"))
    verdict = dict(output=str(folder), kind=kind, pages=len(doc.pages), seconds=1.0)
    live = Board()
    live.apply(events + [ev.FileFinished(str(path), ev.DONE, **verdict)])
    restarted = Board()
    restarted.apply([ev.FileFinished(str(path), ev.DONE, note="already read", **verdict)])
    restarted.apply([load_detail(str(path), str(folder))])
    return view(live.files[str(path)]), view(restarted.files[str(path)])


def test_a_page_read_by_the_model_is_restored_as_it_was_shown(tmp_path):
    png = page_png(tmp_path / "scan.png")
    options = ConvertOptions(engine=ScriptedEngine(script(), max_batch=3), page_markdown=True)
    live, restored = live_and_restored(tmp_path, png, options)
    assert live["pages"][0]["blocks"]  # a real page: blocks read by the model
    assert restored == live


def test_an_effort_low_pdf_is_restored_with_its_text_not_as_done_empty(tmp_path):
    pdf = tmp_path / "paper.pdf"
    words = "A born-digital page whose own text layer reads well without any model."
    write_pdf(pdf, [Page(items=[Text(72, 700 - 20 * i, words) for i in range(6)]),
                    Page(items=[Text(72, 700, "The second page, its own sentence here.")])])
    live, restored = live_and_restored(tmp_path, pdf, ConvertOptions(effort="low",
                                                                      page_markdown=True))
    assert live["label"] == "done" and "born-digital" in live["pages"][0]["markdown"]
    blocks = live["pages"][0]["blocks"]  # drawn on the Page tab: the text layer's blocks
    assert blocks and {b[3] for b in blocks} == {"text_layer"} and "born-digital" in blocks[0][2]
    assert restored == live


def test_a_paragraph_across_a_page_break_is_restored_as_the_live_view_ends(tmp_path):
    """Live, each text-layer page's blocks are shown as read; the output set joins the
    paragraph that runs on across the break and sets the page numbers apart. At the end of
    the file the live view takes the blocks as the set keeps them, so a restart shows the
    same; each page's Markdown stays the page's own (as read) on both sides."""
    pdf = tmp_path / "cross.pdf"
    first = ["A first page opens here with its own words.",
             "The paragraph that runs on reads on and on across the page",
             "and it does not end on this page but goes on to the next"]
    write_pdf(pdf, [Page(items=[Text(72, 700 - 16 * i, t) for i, t in enumerate(first)]
                         + [Text(300, 40, "1")]),
                    Page(items=[Text(72, 700, "where it ends, after a few more words of its own."),
                                Text(72, 660, "Another paragraph on the second page stands alone."),
                                Text(300, 40, "2")])])
    live, restored = live_and_restored(tmp_path, pdf, ConvertOptions(effort="low",
                                                                      page_markdown=True))
    page1, page2 = live["pages"][0]["blocks"], live["pages"][1]["blocks"]
    assert "goes on to the next where it ends" in page1[0][2]  # joined across the break
    assert page2[0][2] == "" and "stands alone" in page2[1][2]  # its part here: empty
    assert [b[1] for b in page2][-1] == "page_number"  # set apart, not a text block
    assert live["pages"][1]["markdown"].startswith("where it ends")  # the page as read
    assert restored == live


def test_an_office_file_is_restored_as_it_was_shown(tmp_path):
    docx = tmp_path / "report.docx"
    docx.write_bytes(build_docx(p("Quarterly report") + p("Revenue grew in every region.")))
    live, restored = live_and_restored(tmp_path, docx, ConvertOptions(page_markdown=True))
    assert "Revenue grew" in live["pages"][0]["markdown"]
    assert [b[3] for b in live["pages"][0]["blocks"]] == ["office", "office"]  # its true origin
    assert restored == live


@pytest.mark.parametrize("name", ["docling__powerpoint_sample.pptx", "pandoc__tables.pptx",
                                  "docling__xlsx_01.xlsx", "mineru__xlsx_01.xlsx"])
def test_a_multi_page_office_file_is_restored_page_for_page(tmp_path, name):
    """Its pages' Markdown is not on disk (only the whole .md): each is rendered again from
    _middle.json's page with the renderer live used, pipe tables, HTML tables and all."""
    src = CORPUS / name
    live, restored = live_and_restored(tmp_path, src, ConvertOptions(page_markdown=True))
    pages = live["pages"]
    assert len(pages) > 1 and all(p["markdown"] for p in pages.values())
    assert restored == live
