"""Content that lives in other parts than the body: charts, SmartArt, altChunk imports.

A chart part keeps the numbers it plots in caches (``c:strCache``/``c:numCache``):
they become a data table, captioned with the chart's title. SmartArt keeps its text
in a diagram *data* part (``dgm:pt`` nodes with ``dgm:t`` bodies), referenced from the
drawing by ``dgm:relIds/@r:dm``. ``w:altChunk`` imports a whole HTML or plain-text
file into the body at that point. All become ordinary blocks in place.
"""

from __future__ import annotations

from mineru_tui.document import Block, Document, text_block, text_span
from mineru_tui.office.chart_kind import chart_kind, with_kind
from mineru_tui.office.docx.wml import A_NS

DGM_NS = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
_DGM_PT, _DGM_T = f"{{{DGM_NS}}}pt", f"{{{DGM_NS}}}t"
_A_P, _A_T = f"{{{A_NS}}}p", f"{{{A_NS}}}t"
_NODE_TYPES = (None, "node", "doc", "asst")

C_NS = "http://schemas.openxmlformats.org/drawingml/2006/chart"


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


def alt_chunk_blocks(data: bytes, content_type: str, warn=lambda message: None,
                     doc: Document | None = None) -> list[Block] | None:
    """Blocks of an imported HTML or text chunk; None for kinds not read (RTF, docx).

    An HTML chunk is read by the HTML reader's walker (headings, lists, tables, links,
    styles, pictures from ``data:`` URIs, into ``doc``); ``warn(message)`` is told when
    it could only be read as plain text.
    """
    kind = content_type.lower()
    if "html" in kind:
        return _html_blocks(data, warn, doc if doc is not None else Document())
    if kind.startswith("text/plain"):
        text = data.decode("utf-8", "replace")
        return [text_block([text_span(line.strip())]) for line in text.splitlines() if line.strip()]
    return None


class _ChunkResources:
    """An imported chunk has no folder: pictures from ``data:`` URIs (or referenced on
    the web), links as a web page's."""

    def __init__(self, base: str | None):
        self.base = base

    def image(self, src: str):
        from mineru_tui.office.html.reader import data_uri

        return data_uri(src) if src.lower().startswith("data:") else None

    def link(self, href: str) -> str | None:
        from mineru_tui.office.html.reader import resolve_link

        return resolve_link(href, self.base)

    def image_url(self, src: str) -> str | None:
        from mineru_tui.office.html.reader import remote_image

        return remote_image(src, self.base)


def _html_blocks(data: bytes, warn, doc: Document) -> list[Block]:
    """The chunk through the HTML walker; read as plain paragraphs (with a warning) when
    it is nested deeper than the parser keeps."""
    from mineru_tui.office.html.parse import to_text
    from mineru_tui.office.html.reader import read_html_text

    before = len(doc.warnings)
    blocks = read_html_text(to_text(data), doc, _ChunkResources)
    if any("nested too deeply" in w for w in doc.warnings[before:]):
        del doc.warnings[before:]
        warn("an imported HTML chunk (altChunk) is nested too deeply to read its structure; "
             "its text is read as plain paragraphs")
    return blocks


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
