"""Tables (and what their cells hold) as HTML, the form MinerU's ``table_body`` has.

Used by Markdown for tables a pipe table cannot hold, by the content list and by the
middle JSON.
"""

from __future__ import annotations

import html

from mineru_tui.document.escaping import ORDERED_MARKER, list_marker
from mineru_tui.document.links import safe_url
from mineru_tui.document.model import Block, BlockType, Cell, Span, SpanType, merge_spans, walk


def cell_html(cell: Cell, image_prefix: str) -> str:
    parts = []
    for b in cell.blocks:
        if b.type == BlockType.TABLE:
            parts.append(table_body_html(b, image_prefix))
        elif b.type == BlockType.LIST:
            parts.append(_list_html(b, image_prefix))
        elif b.type == BlockType.IMAGE:
            for kid in b.blocks:
                for line in kid.lines:
                    for s in line.spans:
                        if s.type == SpanType.IMAGE and s.image_path:
                            src = html.escape(image_prefix + s.image_path, quote=True)
                            parts.append(f'<img src="{src}" alt="{html.escape(s.content, quote=True)}">')
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
        out.append("<li>" + html.escape(label, quote=False) + _lines_html(item, image_prefix))
    while open_tags:
        out.append("</li>" + open_tags.pop())
    return "".join(out)


def _lines_html(block: Block, image_prefix: str) -> str:
    out = []
    for line in block.lines:
        pieces = []
        for s in merge_spans(line.spans):
            if s.type == SpanType.TEXT:
                t = html.escape(s.content, quote=False)
                for st, tag in (("bold", "b"), ("italic", "i"), ("strike", "s"),
                                ("superscript", "sup"), ("subscript", "sub"), ("code", "code")):
                    if st in s.style and t.strip():
                        t = f"<{tag}>{t}</{tag}>"
                url = safe_url(s.link)
                if url and t.strip():
                    t = f'<a href="{html.escape(url, quote=True)}">{t}</a>'
                pieces.append(t)
            elif s.type == SpanType.INLINE_EQUATION:
                pieces.append(f"${html.escape(s.content.strip(), quote=False)}$")
            elif s.type == SpanType.INTERLINE_EQUATION:
                pieces.append(f"$${html.escape(s.content.strip(), quote=False)}$$")
            elif s.type == SpanType.FOOTNOTE_REF:
                pieces.append(f"[^{html.escape(s.content)}]")
            elif s.type == SpanType.IMAGE and s.image_path:
                src = html.escape(image_prefix + s.image_path, quote=True)
                pieces.append(f'<img src="{src}" alt="{html.escape(s.content, quote=True)}">')
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


def table_body_html(block: Block, image_prefix: str) -> str:
    span = table_span(block)
    if span is None:
        return ""
    if span.table is not None:
        return span.table.to_html(image_prefix)
    return span.html or ""
