"""Content that lives in other parts than the body: charts, SmartArt, altChunk imports.

A chart part keeps the numbers it plots in caches (``c:strCache``/``c:numCache``):
they become a data table, captioned with the chart's title. SmartArt keeps its text
in a diagram *data* part (``dgm:pt`` nodes with ``dgm:t`` bodies), referenced from the
drawing by ``dgm:relIds/@r:dm``. ``w:altChunk`` imports a whole HTML or plain-text
file into the body at that point. All become ordinary blocks in place.
"""

from __future__ import annotations

from mineru_tui.document import (Block, Cell, Table, table_block, text_block, text_span,
                                 title_block)
from mineru_tui.office.docx_xml import A_NS

DGM_NS = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
_DGM_PT, _DGM_T = f"{{{DGM_NS}}}pt", f"{{{DGM_NS}}}t"
_A_P, _A_T = f"{{{A_NS}}}p", f"{{{A_NS}}}t"
_NODE_TYPES = (None, "node", "doc", "asst")

C_NS = "http://schemas.openxmlformats.org/drawingml/2006/chart"


def _c(tag: str) -> str:
    return f"{{{C_NS}}}{tag}"


_MAX_CHART_POINTS = 2000  # a table, not a data dump

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


def alt_chunk_blocks(data: bytes, content_type: str) -> list[Block] | None:
    """Blocks of an imported HTML or text chunk; None for kinds not read (RTF, docx)."""
    kind = content_type.lower()
    if "html" in kind:
        return _html_blocks(data)
    if kind.startswith("text/plain"):
        text = data.decode("utf-8", "replace")
        return [text_block([text_span(line.strip())]) for line in text.splitlines() if line.strip()]
    return None


def _html_blocks(data: bytes) -> list[Block]:
    import lxml.html

    root = lxml.html.document_fromstring(data)
    for bad in root.xpath("//script|//style|//head"):
        bad.drop_tree()
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


def _cache_points(el) -> dict[int, str]:
    """``idx -> value`` of the cached points under a ``c:cat``/``c:val``/``c:tx``."""
    out: dict[int, str] = {}
    if el is None:
        return out
    for pt in el.iter(_c("pt")):
        v = pt.find(_c("v"))
        try:
            idx = int(pt.get("idx", "0"))
        except ValueError:
            continue
        if v is not None and v.text is not None and 0 <= idx < _MAX_CHART_POINTS:
            out.setdefault(idx, v.text.strip())
    if not out:  # a literal (c:strLit / c:v without a cache)
        v = el.find(f".//{_c('v')}")
        if v is not None and v.text:
            out[0] = v.text.strip()
    return out


def chart_block(root) -> Block | None:
    """A chart's cached data as a table block (categories down, series across)."""
    chart = root.find(_c("chart"))
    if chart is None:
        return None
    series = []
    for ser in chart.iter(_c("ser")):
        name = " ".join(_cache_points(ser.find(_c("tx"))).values())
        cats = _cache_points(ser.find(_c("cat")) if ser.find(_c("cat")) is not None else ser.find(_c("xVal")))
        vals = _cache_points(ser.find(_c("val")) if ser.find(_c("val")) is not None else ser.find(_c("yVal")))
        if vals:
            series.append((name or f"Series {len(series) + 1}", cats, vals))
    if not series:
        return None
    cats: dict[int, str] = {}
    for _, c, _ in series:
        for idx, label in c.items():
            cats.setdefault(idx, label)
    indices = sorted(set(cats) | {i for _, _, v in series for i in v})

    def cell(text: str, header: bool = False) -> Cell:
        return Cell(blocks=[text_block([text_span(text)])] if text else [], header=header)

    rows = [[cell("", True)] + [cell(name, True) for name, _, _ in series]]
    for idx in indices:
        rows.append([cell(cats.get(idx, str(idx + 1)))] + [cell(v.get(idx, "")) for _, _, v in series])
    title = chart.find(_c("title"))
    captions = []
    if title is not None:
        text = " ".join("".join(t.text or "" for t in p.iter(_A_T)) for p in title.iter(_A_P)).strip()
        text = text or " ".join(_cache_points(title.find(_c("tx"))).values())
        if text:
            captions.append(text_block([text_span(text)]))
    return table_block(Table(rows), captions=captions, sub_type="chart")
