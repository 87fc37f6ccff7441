"""Markdown as the app shows it: HTML tables become pipe tables.

MinerU's Markdown (and ours) writes a table as one line of HTML when a pipe table would lose
something (merged cells, cells with lists). Textual's Markdown widget drops HTML blocks, so
the app would show nothing where the table is. For display only, each ``<table>`` is drawn
as a pipe table: a merged cell's text goes in its first cell and the cells it covers stay
empty. The files written to the output folder keep the HTML.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from mineru_tui.console import shown

_TABLE = re.compile(r"<table>.*?</table>", re.S | re.I)


class _Cells(HTMLParser):
    """Rows of (text, colspan, rowspan) from one HTML table (nested tables flattened)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[tuple[str, int, int]]] = []
        self._cell: list[str] | None = None
        self._span = (1, 1)
        self._depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self._depth += 1
        elif tag == "tr" and self._depth == 1:
            self.rows.append([])
        elif tag in ("td", "th") and self._depth == 1:
            self._cell = []
            self._span = (_int(a.get("colspan")), _int(a.get("rowspan")))
        elif tag in ("br", "p", "li") and self._cell is not None and self._cell:
            self._cell.append(" ")

    def handle_endtag(self, tag):
        if tag == "table":
            self._depth -= 1
        elif tag in ("td", "th") and self._depth == 1 and self._cell is not None:
            if not self.rows:
                self.rows.append([])
            text = " ".join("".join(self._cell).split())
            self.rows[-1].append((text, *self._span))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _int(value) -> int:
    try:
        return max(1, min(int(value), 100))
    except (TypeError, ValueError):
        return 1


def _rows(html: str) -> list[list[str]]:
    """The table's cells as a full grid (merged cells: text in the first, the rest empty)."""
    parser = _Cells()
    parser.feed(html)
    grid: list[list[str]] = []
    covered: dict[tuple[int, int], bool] = {}
    for r, row in enumerate(parser.rows):
        out: list[str] = []
        c = 0
        for text, colspan, rowspan in row:
            while covered.get((r, c)):
                out.append("")
                c += 1
            out.append(text)
            out.extend([""] * (colspan - 1))
            for dr in range(1, rowspan):
                for dc in range(colspan):
                    covered[(r + dr, c + dc)] = True
            c += colspan
        while covered.get((r, c)):
            out.append("")
            c += 1
        grid.append(out)
    width = max((len(row) for row in grid), default=0)
    return [row + [""] * (width - len(row)) for row in grid]


def _pipe_table(html: str) -> str:
    grid = _rows(html)
    if not grid:
        return ""
    lines = []
    for i, row in enumerate(grid):
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |")
        if i == 0:
            lines.append("|" + "---|" * len(row))
    return "\n".join(lines)


def text_grid(html: str, max_cell: int = 24) -> str:
    """An HTML table drawn as an aligned grid of text, for panes that show plain text:

        Item      │ Qty │ Price
        ──────────┼─────┼──────
        Paper A4  │ 10  │ 45.00
    """
    grid = [[c if len(c) <= max_cell else c[:max_cell - 1] + "…" for c in row]
            for row in _rows(html)]
    if not grid or not grid[0]:
        return ""
    widths = [max(len(row[i]) for row in grid) for i in range(len(grid[0]))]
    lines = [" │ ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in grid]
    lines.insert(1, "─┼─".join("─" * w for w in widths))
    return "\n".join(lines)


def for_display(markdown: str) -> str:
    """The Markdown with every HTML table replaced by a pipe table (blank lines around),
    and every control character (ESC, BEL, C1, bidi overrides; a table cell's ``&#27;``
    too) written visibly as ``\\xNN`` by the rule of :func:`mineru_tui.console.shown`: a
    Markdown file in the output folder may be older or someone else's."""
    markdown = markdown.replace("\r\n", "\n")
    if "<table" in markdown.lower():
        markdown = _TABLE.sub(lambda m: "\n\n" + _pipe_table(m.group(0)) + "\n\n", markdown)
    return shown(markdown, keep="\n\t")
