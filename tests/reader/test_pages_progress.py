"""The progress line parse draws from the job events on a terminal's stderr."""

import io

from mineru_tui.events import (BlockDone, BlockInfo, BlockStarted, BlockTokens, FileDone, FileStarted,
                               LayoutDone, PageDone, PagesResumed, PageStarted)
from mineru_tui.cli.progress import ProgressLine


def test_line_follows_the_events_and_is_erased_at_the_end():
    err = io.StringIO()
    line = ProgressLine(err, min_interval=0.0)
    line(FileStarted("/tmp/in/scan.pdf", "pdf"))
    line(PageStarted("/tmp/in/scan.pdf", 1, 9))
    assert line.text() == "scan.pdf · page 2/9 · layout"
    line(BlockTokens("/tmp/in/scan.pdf", 1, -1, "<|box_start|>", 40, 8.0))
    assert line.text() == "scan.pdf · page 2/9 · layout · 40 tokens · 8.0 tok/s"
    line(LayoutDone("/tmp/in/scan.pdf", 1, tuple(BlockInfo(i, "text", (0, 0, 1, 1)) for i in range(14))))
    line(BlockStarted("/tmp/in/scan.pdf", 1, 4, 14, "text"))
    line(BlockTokens("/tmp/in/scan.pdf", 1, 4, "word", 12, 18.24))
    assert line.text() == "scan.pdf · page 2/9 · block 5/14 · 12 tokens · 18.2 tok/s"
    line(BlockDone("/tmp/in/scan.pdf", 1, 4, "text", "word", "model", "stop"))
    assert "1/14 blocks" in line.text()
    line(PageDone("/tmp/in/scan.pdf", 1, 9, "md", 1.0))
    line(FileDone("/tmp/in/scan.pdf", "pdf", 9, 3.0))
    out = err.getvalue()
    assert out.count("\r\x1b[2K") >= 5 and out.endswith("\r\x1b[2K") and "\n" not in out


def test_nothing_drawn_for_office_files():
    err = io.StringIO()
    line = ProgressLine(err)
    line(FileStarted("a.docx", "docx"))
    line(PageDone("a.docx", 0, 1, "md", 0.1))
    line(FileDone("a.docx", "docx", 1, 0.1))
    assert err.getvalue() == ""


def test_a_resumed_file_says_what_was_kept_and_counts_from_where_it_resumes():
    err = io.StringIO()
    line = ProgressLine(err, min_interval=0.0)
    line(FileStarted("long.pdf", "pdf"))
    line(PagesResumed("long.pdf", 97, 300, 97, "resumed at page 98 of 300 (97 pages kept)"))
    assert line.text() == "long.pdf · 97 pages kept, resuming at page 98 of 300"
    for n in range(97):  # the kept pages come back from the journal: not counted again
        line(PageStarted("long.pdf", n, 300))
        line(PageDone("long.pdf", n, 300, None, 0.0))
    assert line.text() == "long.pdf · 97 pages kept, resuming at page 98 of 300"
    line(PageStarted("long.pdf", 97, 300))
    assert line.text().startswith("long.pdf · page 98/300")


def test_pages_read_from_their_own_text_name_no_model_stage():
    err = io.StringIO()
    line = ProgressLine(err, min_interval=0.0)
    line(FileStarted("paper.pdf", "pdf"))
    line(PageStarted("paper.pdf", 0, 300))
    line(PageDone("paper.pdf", 0, 300, None, 0.01))  # no model event on the page
    line(PageStarted("paper.pdf", 1, 300))
    assert line.text() == "paper.pdf · page 2/300"
    line(PageDone("paper.pdf", 1, 300, None, 0.01))
    assert line.text() == "paper.pdf · page 2/300"  # not "done" while the next is read
