"""A sheet's drawing part (``xl/drawings/drawingN.xml``) and the charts it shows.

:func:`read_drawing` lists what is anchored on the sheet — pictures, charts and text
boxes — with the cell each is anchored at, so the sheet reader can put them in reading
order among its tables. :func:`read_chart` reads a ``c:chartSpace`` part from its own
XML: the title, the chart type, and the series' names,
categories and values from their cached points (``c:strCache`` / ``c:numCache``).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from mineru_tui.office.chart_kind import group_kind, kind_label
from mineru_tui.office.charts import data_levels
from mineru_tui.office.package import Package, local
from mineru_tui.office.xlsx.parts import r_attr

from mineru_tui.office.limits import MAX_PICTURE_BYTES as MAX_IMAGE_BYTES
MAX_CHART_POINTS = 10_000


@dataclass
class Anchored:
    """One drawing object: ``kind`` is "image", "chart" or "text"; row/col are 1-based."""

    kind: str
    row: int
    col: int
    part: str | None = None  # image media part or chart part
    alt: str = ""
    paragraphs: list[str] = field(default_factory=list)  # text boxes


@dataclass
class Chart:
    title: str = ""
    type_name: str = ""  # "Line chart", "Bar chart"...
    categories: list[str] = field(default_factory=list)
    series: list[tuple[str, list[str]]] = field(default_factory=list)


def read_drawing(pkg: Package, part: str) -> list[Anchored]:
    """Pictures, charts and text boxes of one drawing part, in document order."""
    root = pkg.xml_recovering(part)
    if root is None:
        return []
    rels = pkg.rels(part)
    out: list[Anchored] = []
    for anchor in root:
        name = local(anchor.tag)
        if name not in ("twoCellAnchor", "oneCellAnchor", "absoluteAnchor"):
            continue
        row, col = _anchor_cell(anchor)
        for obj in _objects(anchor):
            kind = local(obj.tag)
            alt = _alt_text(obj)
            if kind == "pic":
                blip = next((b for b in obj.iter("{*}blip")), None)
                rel = rels.get(r_attr(blip, "embed") or "") if blip is not None else None
                if rel is not None and not rel.external:
                    out.append(Anchored("image", row, col, rel.target, alt))
            elif kind == "graphicFrame":
                chart = next((c for c in obj.iter("{*}chart") if r_attr(c, "id")), None)
                rel = rels.get(r_attr(chart, "id") or "") if chart is not None else None
                if rel is not None and not rel.external:
                    out.append(Anchored("chart", row, col, rel.target, alt))
            elif kind == "sp":
                paras = []
                for p in obj.iter("{*}p"):
                    text = "".join(t.text or "" for t in p.iter("{*}t")).strip()
                    if text:
                        paras.append(text)
                if paras:
                    out.append(Anchored("text", row, col, paragraphs=paras))
    return out


def _anchor_cell(anchor) -> tuple[int, int]:
    frm = next((k for k in anchor if local(k.tag) == "from"), None)
    if frm is None:
        return 1 << 30, 0  # absolute anchors: after everything else
    vals = {local(k.tag): (k.text or "").strip() for k in frm}
    try:
        return int(vals.get("row", 0)) + 1, int(vals.get("col", 0)) + 1
    except ValueError:
        return 1 << 30, 0


def _objects(el):
    """Pictures, graphic frames and shapes under an anchor, groups flattened.

    Of an ``mc:AlternateContent`` only the first choice is read (the fallback repeats it,
    often as a "this chart isn't available" box).
    """
    for kid in el:
        name = local(kid.tag)
        if name in ("pic", "graphicFrame", "sp"):
            yield kid
        elif name == "grpSp":
            yield from _objects(kid)
        elif name == "AlternateContent":
            choice = next((c for c in kid if local(c.tag) == "Choice"), None)
            if choice is not None:
                yield from _objects(choice)


def _alt_text(obj) -> str:
    for el in obj.iter("{*}cNvPr"):
        return (el.get("descr") or el.get("title") or "").strip()
    return ""


def image_ext(part: str) -> str:
    return posixpath.splitext(part)[1].lstrip(".").lower() or "bin"


def read_image(pkg: Package, part: str) -> bytes | None:
    return pkg.try_blob(part, MAX_IMAGE_BYTES)


# ---------------------------------------------------------------------------------------
# Charts


def read_chart(pkg: Package, part: str, resolve=None) -> Chart | None:
    """A chart's title, type and series. ``resolve(ref)`` gives a reference's cell texts
    when the chart has no cached points (some generators, openpyxl among them, write none)."""
    root = pkg.xml_recovering(part)
    if root is None:
        return None
    chart_el = next((k for k in root if local(k.tag) == "chart"), None)
    if chart_el is None:
        return None
    chart = Chart()
    title = next((k for k in chart_el if local(k.tag) == "title"), None)
    if title is not None:
        chart.title = _title_text(title, resolve)
    plot = next((k for k in chart_el if local(k.tag) == "plotArea"), None)
    if plot is None:
        return chart
    types = []
    for group in plot:
        label = group_kind(group)
        if label is None:  # c:layout, axes, spPr...: not a chart group
            continue
        if label not in types:
            types.append(label)
        for ser in group:
            if local(ser.tag) != "ser":
                continue
            name, cats, vals = _series(ser, resolve)
            if not chart.categories and cats:
                chart.categories = cats
            chart.series.append((name or f"Series {len(chart.series) + 1}", vals))
    chart.type_name = kind_label(types) or "Chart"
    return chart


def _title_text(title, resolve=None) -> str:
    """A title's rich text, or its cached cell reference text."""
    runs = [t.text or "" for t in title.iter("{*}t")]
    if runs:
        return "".join(runs).strip()
    for ref in title.iter("{*}strRef"):
        pts = _cache_points(ref, resolve)
        return " ".join(p for p in pts if p).strip()
    return ""


def _series(ser, resolve=None) -> tuple[str, list[str], list[str]]:
    name, cats, vals = "", [], []
    for kid in ser:
        kn = local(kid.tag)
        if kn == "tx":
            lit = next((k for k in kid if local(k.tag) == "v"), None)
            if lit is not None:
                name = (lit.text or "").strip()
            else:
                name = " ".join(p for p in _cache_points(kid, resolve) if p).strip()
        elif kn in ("cat", "xVal"):
            cats = _cache_points(kid, resolve)
        elif kn in ("val", "yVal"):
            vals = _cache_points(kid, resolve)
    return name, cats, vals


def _cache_points(el, resolve=None) -> list[str]:
    """The cached points of a data reference (str, num or multi-level: its innermost
    level), formatted; without a cache, ``resolve`` reads the reference's cells."""
    levels = data_levels(el, resolve, MAX_CHART_POINTS)
    return levels[-1] if levels else []
