"""Content that lives in other parts than the body: charts, SmartArt, altChunk imports.

A chart part keeps the numbers it plots in caches (``c:strCache``/``c:numCache``):
they become a data table, captioned with the chart's title. SmartArt keeps its text
in a diagram *data* part (``dgm:pt`` nodes with ``dgm:t`` bodies), referenced from the
drawing by ``dgm:relIds/@r:dm``. ``w:altChunk`` imports a whole HTML or plain-text
file into the body at that point. All become ordinary blocks in place.
"""

from __future__ import annotations

import html
import re

from mineru_tui.document import Block, text_block, text_span, title_block
from mineru_tui.office.chart_kind import chart_kind, with_kind
from mineru_tui.office.docx.wml import A_NS

DGM_NS = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
_DGM_PT, _DGM_T = f"{{{DGM_NS}}}pt", f"{{{DGM_NS}}}t"
_A_P, _A_T = f"{{{A_NS}}}p", f"{{{A_NS}}}t"
_NODE_TYPES = (None, "node", "doc", "asst")

C_NS = "http://schemas.openxmlformats.org/drawingml/2006/chart"


_BLOCK_TAGS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "pre", "blockquote", "td", "th",
               "dt", "dd", "caption", "div"}


def smartart_blocks(root) -> list[Block]:
    """One text block per paragraph of each SmartArt node, in the data model's order."""
    out: list[Block] = []
    for pt in root.iter(_DGM_PT):
        if pt.get("type") not in _NODE_TYPES:
            continue  # transitions and presentation points carry no text of their own
        body = pt.find(_DGM_T)
        if body is None:
            continue
        for para in body.iter(_A_P):
            text = "".join(t.text or "" for t in para.iter(_A_T)).strip()
            if text:
                out.append(text_block([text_span(text)]))
    return out


def alt_chunk_blocks(data: bytes, content_type: str, warn=lambda message: None
                     ) -> list[Block] | None:
    """Blocks of an imported HTML or text chunk; None for kinds not read (RTF, docx).

    ``warn(message)`` is told when an HTML chunk could only be read as plain text.
    """
    kind = content_type.lower()
    if "html" in kind:
        return _html_blocks(data, warn)
    if kind.startswith("text/plain"):
        text = data.decode("utf-8", "replace")
        return [text_block([text_span(line.strip())]) for line in text.splitlines() if line.strip()]
    return None


_DROPPED = re.compile(rb"<!--.*?-->|<(script|style|head)\b.*?</\1\s*>", re.I | re.S)
_BLOCK_TAG = re.compile(rb"<\s*/?\s*(?:p|div|h[1-6]|li|pre|blockquote|td|th|tr|dt|dd|caption|br|"
                        rb"table|ul|ol)\b[^>]*>", re.I)
_TAG = re.compile(rb"<[^>]*>")


def _html_blocks(data: bytes, warn) -> list[Block]:
    """The innermost block elements' texts, headings as titles.

    libxml2's HTML parser stops at 256 levels of nesting (2048 with ``huge_tree``) and
    drops the rest without an error, so the characters parsed are counted against those
    of the raw text; when the tree lost some, the chunk is read as plain paragraphs
    split at block tags, with a warning.
    """
    import lxml.html

    flat = _flat_paragraphs(data)
    expected = sum(_letters(text) for text in flat)
    for huge in (False, True):
        root = lxml.html.document_fromstring(
            data, parser=lxml.html.HTMLParser(huge_tree=huge, no_network=True))
        for bad in root.xpath("//script|//style|//head"):
            bad.drop_tree()
        if sum(_letters(t) for t in root.itertext()) >= expected:
            return _tree_blocks(root)
    warn("an imported HTML chunk (altChunk) is nested too deeply to read its structure; "
         "its text is read as plain paragraphs")
    return [text_block([text_span(text)]) for text in flat]


def _letters(text: str) -> int:
    return len(text) - sum(text.count(c) for c in " \t\r\n\f\v\xa0")


def _flat_paragraphs(data: bytes) -> list[str]:
    """The chunk's text split at block tags, without any tree (no depth limit)."""
    body = _DROPPED.sub(b" ", data)
    out = []
    for piece in _BLOCK_TAG.split(body):
        text = " ".join(html.unescape(_TAG.sub(b"", piece).decode("utf-8", "replace")).split())
        if text:
            out.append(text)
    return out


def _tree_blocks(root) -> list[Block]:
    out: list[Block] = []
    for el in root.iter():
        tag = el.tag if isinstance(el.tag, str) else ""
        if tag not in _BLOCK_TAGS:
            continue
        if any(isinstance(k.tag, str) and k.tag in _BLOCK_TAGS for k in el.iterdescendants()):
            continue  # only the innermost blocks, so nothing is read twice
        text = " ".join(el.text_content().split())
        if not text:
            continue
        if tag[0] == "h" and tag[1:].isdigit():
            out.append(title_block([text_span(text)], int(tag[1:])))
        else:
            out.append(text_block([text_span(text)]))
    return out


def chart_block(root) -> Block | None:
    """A chart's cached data as a table block, captioned "<kind> chart: <title>".

    The data table is the pptx reader's (a chart part is the same ``c:chartSpace`` in
    every Office format: number formats, multi-level categories, scatter x values); the
    caption names the chart type too, as the xlsx reader's does, so a reader can tell
    the table is a chart's data even when the chart has no title.
    """
    from mineru_tui.office.charts import read_chart

    block = read_chart(root)
    if block is None:
        return None
    return with_kind(block, chart_kind(root))
