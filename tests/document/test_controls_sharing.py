"""The control-character pass copies only what it changes: the original document is never
modified, and a document holding no control character is walked, not copied."""

from __future__ import annotations

from pathlib import Path

from mineru_tui.convert import convert
from mineru_tui.document import BlockType, to_markdown
from mineru_tui.document.controls import without_controls

CORPUS = Path(__file__).parents[1] / "corpus" / "odf_legacy"


def test_clean_parts_are_shared_and_dirty_ones_copied():
    doc = convert(CORPUS / "poi__WithThreeCharts.xls")
    clean = without_controls(doc)
    assert clean is not doc and all(a is b for a, b in zip(clean.pages, doc.pages))
    # a control and a bidi override in one cell of one chart: that path is copied, cleaned
    chart = next(b for b in doc.pages[1].para_blocks if b.type == BlockType.TABLE)
    body = next(b for b in chart.blocks if b.type == BlockType.TABLE_BODY)
    table = body.lines[0].spans[0].table
    span = table.rows[1][0].blocks[0].lines[0].spans[0]
    span.content = "1\x1b[31m\u202e"
    cleaned = without_controls(doc)
    assert span.content == "1\x1b[31m\u202e"  # the original is left as it was
    assert cleaned.pages[0] is doc.pages[0] and cleaned.pages[1] is not doc.pages[1]
    other = [b for b in doc.pages[1].para_blocks if b is not chart]
    assert all(any(b is c for c in cleaned.pages[1].para_blocks) for b in other)
    assert "\x1b" not in to_markdown(doc) and "\u202e" not in to_markdown(doc)
    assert "| 1\\[31m | 10 |" in to_markdown(doc)  # the rest of the text kept (escaped)
