"""Tables (and what their cells hold) as HTML, the form MinerU's ``table_body`` has.

Used by Markdown for tables a pipe table cannot hold, by the content list and by the
middle JSON. All text is HTML-escaped, links and image names pass the rules of
:mod:`.links`, and the HTML never holds a blank line (in Markdown, a blank line ends an
HTML block and lets what follows be read as Markdown). A table that arrives as ready
HTML (from the page reader) is rebuilt from its table tags only (:func:`clean_table_html`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from html.parser import HTMLParser

from mineru_tui.document.escaping import (ORDERED_MARKER, latex_links_safe, list_marker,
                                          unify_newlines)
from mineru_tui.document.links import safe_image_name, safe_image_url, safe_url
from mineru_tui.document.model import Block, BlockType, Cell, Span, SpanType, Table, merge_spans, walk
from mineru_tui.document.recent import Recent
from mineru_tui.document.stackless import Walk, drive


def _text(text: str) -> str:
    """Text as HTML element content: escaped, with no blank line (renders the same)."""
    text = html.escape(unify_newlines(text), quote=False)
    return re.sub(r"\n[ \t\n]*\n", "\n", text)


def _img(name: str | None, alt: str, image_prefix: str, url: str | None = None) -> str:
    name = safe_image_name(name)
    url = None if name else safe_image_url(url)
    if not name and not url:
        return _text(alt)
    src = html.escape(url or image_prefix + name, quote=True)
    return f'<img src="{src}" alt="{html.escape(" ".join(alt.split()), quote=True)}">'


def cell_html(cell: Cell, image_prefix: str) -> str:
    """A cell's content as HTML (nested tables as nested ``<table>``s)."""
    return drive(_cell_walk(cell, image_prefix))


def _cell_walk(cell: Cell, image_prefix: str) -> Walk[str]:
    parts = []
    for b in cell.blocks:
        if b.type == BlockType.TABLE:
            span = table_span(b)
            if span is not None and span.table is not None:
                parts.append((yield _table_walk(span.table, image_prefix)))
            elif span is not None:
                parts.append(clean_table_html(span.html or ""))
        elif b.type == BlockType.LIST:
            parts.append(_list_html(b, image_prefix))
        elif b.type == BlockType.IMAGE:
            for kid in b.blocks:
                for line in kid.lines:
                    for s in line.spans:
                        if s.type == SpanType.IMAGE and (s.image_path or s.image_url):
                            parts.append(_img(s.image_path, s.content, image_prefix, s.image_url))
        else:
            parts.append(_lines_html(b, image_prefix))
    return "<br>".join(p for p in parts if p)


def _list_html(block: Block, image_prefix: str) -> str:
    """A list inside a table cell as nested ``<ul>``/``<ol>`` (Markdown lists can't go there)."""
    out: list[str] = []
    open_tags: list[str] = []  # closing tag of each open depth
    for item in walk(block.blocks):
        if item.type == BlockType.LIST:
            continue
        depth = max(0, item.depth or 0)
        while len(open_tags) > depth + 1:
            out.append("</li>" + open_tags.pop())
        if len(open_tags) == depth + 1:
            out.append("</li>")
        while len(open_tags) < depth + 1:
            tag = "ol" if item.marker and ORDERED_MARKER.match(item.marker) else "ul"
            out.append(f"<{tag}>")
            open_tags.append(f"</{tag}>")
        _, label = list_marker(item.marker)
        out.append("<li>" + _text(label) + _lines_html(item, image_prefix))
    while open_tags:
        out.append("</li>" + open_tags.pop())
    return "".join(out)


def _lines_html(block: Block, image_prefix: str) -> str:
    out = []
    for line in block.lines:
        pieces = []
        for s in merge_spans(line.spans):
            if s.type == SpanType.TEXT:
                t = _text(s.content)
                for st, tag in (("bold", "b"), ("italic", "i"), ("strike", "s"),
                                ("superscript", "sup"), ("subscript", "sub"), ("code", "code")):
                    if st in s.style and t.strip():
                        t = f"<{tag}>{t}</{tag}>"
                url = safe_url(s.link)
                if url and t.strip():
                    t = f'<a href="{html.escape(url, quote=True)}">{t}</a>'
                pieces.append(t)
            elif s.type == SpanType.INLINE_EQUATION:
                pieces.append(f"${_text(latex_links_safe(s.content).strip())}$")
            elif s.type == SpanType.INTERLINE_EQUATION:
                pieces.append(f"$${_text(latex_links_safe(s.content).strip())}$$")
            elif s.type == SpanType.FOOTNOTE_REF:
                pieces.append(f"[^{_text(s.content)}]")
            elif s.type == SpanType.IMAGE and (s.image_path or s.image_url):
                pieces.append(_img(s.image_path, s.content, image_prefix, s.image_url))
        text = "".join(pieces).strip()
        if text:
            out.append(text)
    return "<br>".join(out)


def table_span(block: Block) -> Span | None:
    for kid in walk([block]):
        if kid.type == BlockType.TABLE_BODY or kid is block:
            for line in kid.lines:
                for s in line.spans:
                    if s.type == SpanType.TABLE:
                        return s
    return None


def span_table_html(span: Span, image_prefix: str) -> str:
    """The HTML of a table span: built from its :class:`Table`, or its ready HTML cleaned."""
    if span.table is not None:
        return table_html(span.table, image_prefix)
    return clean_table_html(span.html or "")


def table_body_html(block: Block, image_prefix: str) -> str:
    span = table_span(block)
    return "" if span is None else span_table_html(span, image_prefix)


# ---------------------------------------------------------------------------------------
# ready-made table HTML

# What a table body may hold: table structure and a little inline markup.
_KEPT_TAGS = {"table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "colgroup",
              "col", "br", "img", "b", "i", "u", "s", "em", "strong", "sup", "sub", "code"}
_VOID_TAGS = {"br", "col", "img"}
# A picture inside a table cell, as MinerU writes it: an embedded raster image (never SVG,
# which can hold script), or a file in the images folder.
_DATA_IMAGE = re.compile(r"data:image/(?:png|jpeg|jpg|gif|webp|bmp);base64,[A-Za-z0-9+/=\s]*",
                         re.IGNORECASE)
_SPAN_ATTRS = {"colspan", "rowspan"}
# Elements whose content is code or metadata, never table text.
_DROPPED_WITH_CONTENT = {"script", "style", "template", "title", "textarea", "noscript",
                         "iframe", "object", "svg", "math", "head"}


def _table_img(attrs: dict) -> str:
    src = (attrs.get("src") or "").strip()
    if not (_DATA_IMAGE.fullmatch(src) or safe_image_name(src)):
        return ""
    src = re.sub(r"\s", "", src) if src[:5].lower() == "data:" else src
    alt = "" if attrs.get("alt") is None else " ".join(attrs["alt"].split())
    alt = f' alt="{html.escape(alt, quote=True)}"' if attrs.get("alt") is not None else ""
    return f'<img src="{html.escape(src, quote=True)}"{alt}/>'  # as MinerU writes it


class _TableCleaner(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.open: list[str] = []
        self.skipping = 0  # depth inside a dropped element

    def handle_starttag(self, tag, attrs):
        if tag in _DROPPED_WITH_CONTENT:
            self.skipping += tag not in _VOID_TAGS
            return
        if self.skipping or tag not in _KEPT_TAGS or (tag != "table" and "table" not in self.open):
            return
        if tag == "img":
            self.out.append(_table_img(dict(attrs)))
            return
        kept = "".join(f' {k}="{int(v)}"' for k, v in attrs
                       if k in _SPAN_ATTRS and v and re.fullmatch(r"[ \t]*0*[1-9][0-9]{0,2}[ \t]*", v))
        self.out.append(f"<{tag}{kept}>")
        if tag not in _VOID_TAGS:
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in _VOID_TAGS and self.open and self.open[-1] == tag:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag in _DROPPED_WITH_CONTENT:
            self.skipping = max(0, self.skipping - 1)
            return
        if self.skipping or tag not in self.open:
            return
        while self.open:  # close what was left open inside it, as browsers do
            top = self.open.pop()
            self.out.append(f"</{top}>")
            if top == tag:
                break

    def handle_data(self, data):
        if not self.skipping and "table" in self.open:
            self.out.append(_text(data).replace("\n", " "))


def clean_table_html(markup: str) -> str:
    """Table HTML rebuilt from its table tags: text escaped, every other tag, attribute
    (except numeric ``colspan``/``rowspan``, and an ``<img>``'s embedded raster picture
    or image-folder name with its alt text), comment and script dropped, anything
    outside a ``<table>`` dropped, open tags closed, line breaks made spaces.
    Well-formed tables come out as they went in, and the result always starts with
    ``<table>`` (or is empty), so Markdown keeps it one HTML block."""
    if not markup:
        return ""
    cleaner = _TableCleaner()
    cleaner.feed(markup)
    cleaner.close()
    out = cleaner.out + [f"</{t}>" for t in reversed(cleaner.open)]
    return "".join(out)


def table_html(table: Table, image_prefix: str = "") -> str:
    """The table as one line of HTML, with colspan/rowspan and nested tables kept (at any
    depth: the walk keeps its own stack, :mod:`.stackless`). Inside :func:`shared_tables`,
    a table object asked for again gives the HTML made for it the first time."""
    recent = _SHARED.get()
    if recent is None:
        return drive(_table_walk(table, image_prefix))
    return recent.get(table, lambda t: drive(_table_walk(t, image_prefix)), image_prefix)


_SHARED: ContextVar[Recent | None] = ContextVar("shared_table_html", default=None)
_SHARED_KEEP = 16  # tables remembered: the writers side by side are at most a page apart


@contextmanager
def shared_tables() -> Iterator[None]:
    """Within the block (in this thread or task), each table's HTML is built once, not once
    per writer: the Markdown, the content list and MinerU 4's middle JSON all hold it (the
    way :class:`.controls.SharedCleaning` shares a page's cleaning). Tables are known by
    identity, the last ``_SHARED_KEEP`` remembered (:class:`.recent.Recent`); use it over a
    write, while nothing changes the tables."""
    token = _SHARED.set(Recent(_SHARED_KEEP))
    try:
        yield
    finally:
        _SHARED.reset(token)


def _table_walk(table: Table, image_prefix: str) -> Walk[str]:
    out = ["<table>"]
    for row in table.rows:
        out.append("<tr>")
        for cell in row:
            tag = "th" if cell.header else "td"
            attrs = ""
            if int(cell.colspan) > 1:
                attrs += f' colspan="{int(cell.colspan)}"'
            if int(cell.rowspan) > 1:
                attrs += f' rowspan="{int(cell.rowspan)}"'
            out.append(f"<{tag}{attrs}>{(yield _cell_walk(cell, image_prefix))}</{tag}>")
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)
