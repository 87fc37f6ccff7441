"""A page of ``_middle.json`` read back into the document model, for a restored file's
per-page Markdown.

The live view shows each page's Markdown as ``convert`` rendered it (``to_markdown`` of a
one-page document); an Office set keeps no per-page Markdown on disk, only the whole ``.md``
and ``_middle.json``. The middle JSON is the model written out block by block
(``document/middle_json.py``), so reading its blocks, lines and spans back and rendering each
page with the same ``to_markdown`` gives the page's Markdown as it was shown. One thing the
JSON keeps only as HTML is a table's structure: a table a pipe table can hold (no merged
cells, only text in its cells) is read back into a :class:`Table` so it renders as the same
pipe table; any other stays HTML, as live renders it.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from mineru_tui.document import Block, Document, Page, Span, to_markdown
from mineru_tui.document.html_table import clean_table_html, table_span
from mineru_tui.document.model import BlockType, Cell, Line, SpanType, Table

_BLOCK_FIELDS = ("level", "sub_type", "depth", "marker", "note_id", "angle", "index", "score")
_SPAN_FIELDS = ("content", "link", "image_path", "image_url", "score", "checked", "bbox")
_NOTE_REF = re.compile(r"\[\^([^\]\s]+)\]")  # as html_table writes a footnote reference
_INLINE = {"b": "bold", "strong": "bold", "i": "italic", "em": "italic", "s": "strike",
           "sup": "superscript", "sub": "subscript", "code": "code", "u": "underline"}


def page_markdown(info: dict, backend: str = "office") -> str:
    """One middle-JSON page's Markdown, rendered as ``convert`` renders a page: block by
    block through ``to_markdown``, joined as it joins them."""
    page = page_of(info)
    parts = []
    for block in page.para_blocks:
        md = to_markdown(Document(pages=[Page(page.page_idx, [block])], backend=backend))
        span = table_span(block) if block.type == BlockType.TABLE else None
        if span is not None and span.table is None and span.html:
            # a table a pipe table cannot hold: live writes its HTML as built from the
            # table (what the JSON holds), not that HTML cleaned again (which drops links
            # and lists in cells)
            md = md.replace(clean_table_html(span.html), span.html, 1)
        if md:
            parts.append(md[:-1])
    return "\n\n".join(parts) + "\n" if parts else ""


def page_of(info: dict) -> Page:
    size = info.get("page_size")
    return Page(int(info.get("page_idx") or 0),
                [block_of(b) for b in info.get("para_blocks") or [] if isinstance(b, dict)],
                [block_of(b) for b in info.get("discarded_blocks") or [] if isinstance(b, dict)],
                tuple(size) if isinstance(size, list) and len(size) == 2 else None,
                info.get("page_name"))


def block_of(d: dict) -> Block:
    block = Block(str(d.get("type", "")), bbox=d.get("bbox"))
    for key in _BLOCK_FIELDS:
        if d.get(key) is not None:
            setattr(block, key, d[key])
    for line in d.get("lines") or []:
        if isinstance(line, dict):
            block.lines.append(Line([span_of(s) for s in line.get("spans") or []
                                     if isinstance(s, dict)], line.get("bbox")))
    block.blocks = [block_of(b) for b in d.get("blocks") or [] if isinstance(b, dict)]
    known = {"type", "bbox", "lines", "blocks", *_BLOCK_FIELDS}
    block.extra = {k: v for k, v in d.items() if k not in known}
    return block


def span_of(d: dict) -> Span:
    span = Span(str(d.get("type", SpanType.TEXT)), style=frozenset(d.get("style") or ()))
    for key in _SPAN_FIELDS:
        if d.get(key) is not None:
            setattr(span, key, d[key])
    if span.type == SpanType.TABLE:
        span.html = d.get("html") or ""
        span.table = simple_table(span.html)
    return span


def simple_table(markup: str) -> Table | None:
    """The table of ``markup`` when a pipe table can hold it (cells of text only, none
    merged), else None (it is shown as HTML)."""
    parser = _TableReader()
    try:
        parser.feed(markup)
        parser.close()
    except _NotSimple:
        return None
    table = Table(parser.rows)
    for row in table.rows:
        for cell in row:
            for b in cell.blocks:  # "$$...$$": an equation block, which no pipe cell holds
                text = "".join(s.content for s in b.lines[0].spans).strip()
                if len(text) > 4 and text.startswith("$$") and text.endswith("$$"):
                    return None
    return table if table.rows and table.is_simple() else None


class _NotSimple(Exception):
    pass


class _TableReader(HTMLParser):
    """Rows of cells, each cell's ``<br>``-separated parts a text block of styled spans."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[Cell]] = []
        self.depth = 0  # <table> nesting
        self.cell: Cell | None = None
        self.styles: list[str] = []
        self.link: list[str | None] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.depth += 1
            if self.depth > 1:
                raise _NotSimple
        elif tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            if (a.get("colspan") or "1") != "1" or (a.get("rowspan") or "1") != "1" or not self.rows:
                raise _NotSimple
            self.cell = Cell([], header=tag == "th")
            self.rows[-1].append(self.cell)
        elif tag == "br" and self.cell is not None:
            self.cell.blocks.append(Block("text", [Line([])]))
        elif tag in _INLINE:
            self.styles.append(_INLINE[tag])
        elif tag == "a":
            self.link.append(a.get("href"))
        elif tag not in ("thead", "tbody", "tfoot", "colgroup", "col", "caption"):
            raise _NotSimple  # a picture, a list: not a pipe table's cell

    def handle_endtag(self, tag):
        if tag == "table":
            self.depth -= 1
        elif tag in ("td", "th"):
            self.cell = None
        elif tag in _INLINE and self.styles:
            self.styles.pop()
        elif tag == "a" and self.link:
            self.link.pop()

    def handle_data(self, data):
        if self.cell is None:
            if data.strip():
                raise _NotSimple
            return
        if not self.cell.blocks:
            self.cell.blocks.append(Block("text", [Line([])]))
        link = next((u for u in reversed(self.link) if u), None)
        spans = self.cell.blocks[-1].lines[0].spans
        for n, piece in enumerate(_NOTE_REF.split(data)):  # "[^1]": a note's reference
            if n % 2:
                spans.append(Span(SpanType.FOOTNOTE_REF, piece))
            elif piece:
                spans.append(Span(SpanType.TEXT, piece, frozenset(self.styles), link=link))
