"""The progress line parse draws from the job events on a terminal's stderr."""

import io

from mineru_tui.events import (BlockDone, BlockInfo, BlockStarted, BlockTokens, FileDone, FileStarted,
                               LayoutDone, PageDone, PageStarted)
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
