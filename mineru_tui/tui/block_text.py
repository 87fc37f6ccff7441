"""A block as people read it, in every pane: tables as grids (never the model's raw
``<fcel>…<nl>`` or one line of HTML), pictures not read saying why, one-line summaries.

The model answers a table in OTSL (cells and ``<nl>``), which the page reader turns into HTML
for the output files; a pane that shows a block's text shows the same table as an aligned
grid (the Markdown tab shows it as a pipe table, :mod:`mineru_tui.tui.md_display`).
"""

from __future__ import annotations

import re

from mineru_tui.tui.md_display import text_grid
from mineru_tui.tui.state import READING, BlockRow, PageRow

_OTSL = re.compile(r"<(fcel|ecel|lcel|ucel|xcel|nl)>")
_TABLE = re.compile(r"<table[ >].*?</table>", re.S | re.I)
PICTURE_TYPES = ("image", "chart", "image_body", "figure")
NOT_READ = "not read: pictures are read by the model only with --image-analysis"


def as_html(text: str) -> str:
    """A table's OTSL answer (finished or still streaming) as HTML; other text unchanged."""
    if not _OTSL.search(text):
        return text
    try:
        from mineru_vl_utils.post_process.otsl2html import convert_otsl_to_html

        return convert_otsl_to_html(text)
    except Exception:  # a half-streamed answer the converter does not take: cells as text
        return _OTSL.sub(lambda m: "\n" if m.group(1) == "nl" else " │ ", text)


def readable(text: str) -> str:
    """The block's text with each table drawn as a grid."""
    text = as_html(text)
    if "<table" not in text.lower():
        return text
    return _TABLE.sub(lambda m: "\n" + text_grid(m.group(0)) + "\n", text).strip("\n")


def summary(block: BlockRow, width: int = 60) -> str:
    """One line for lists: the first words, or for a table its size and first row."""
    html = as_html(block.text)
    if "<table" in html.lower():
        rows = [r for r in text_grid(html).split("\n") if not r.startswith("─")]
        cols = rows[0].count("│") + 1 if rows else 0
        first = " | ".join(c.strip() for c in rows[0].split("│")) if rows else ""
        return f"{len(rows)}×{cols} table: {first}"[:width]
    return " ".join(block.text.split())[:width]


def state(block: BlockRow, page: PageRow) -> str:
    """"" when read; "reading"; "not read: …" for a block the model is not asked to read
    (a picture without --image-analysis); "waiting" for one not read yet."""
    if block.done:
        return ""
    if block.reading:
        return "reading"
    if block.source == "none":
        return NOT_READ if block.type in PICTURE_TYPES else "not read (a container)"
    return "not read" if page.status != READING else "waiting"


def to_read(page: PageRow) -> list[BlockRow]:
    """The blocks the page reader reads (text layer or model): what "blocks n of m" counts."""
    return [b for b in page.blocks if b.source != "none"]
