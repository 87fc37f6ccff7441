"""Chart parts (``c:chartSpace``) to data tables.

A chart part caches the values it was drawn from: per series a name (``c:tx``),
categories (``c:cat`` / ``c:xVal``: string, number or multi-level caches) and values
(``c:val`` / ``c:yVal``, plus ``c:bubbleSize``). The table has one row per category and
one column per series; the chart title (or a single series' name, which PowerPoint shows
as the automatic title) becomes the caption. Only cached values are used: the embedded
workbook is never opened. The chart type ("Column chart: Sales") is added to the caption
by the readers, through :mod:`mineru_tui.office.chart_kind`.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta

from mineru_tui.document import (Block, BlockType, Cell, Table, table_block, text_block,
                                 text_span)
from mineru_tui.office import numfmt
from mineru_tui.office.package import local
from mineru_tui.office.names import NS, q

_C = NS["c"]
_PT, _V = q("c:pt"), q("c:v")
MAX_POINTS = 100_000  # points read per series


def _cell(text: str, header: bool = False) -> Cell:
    return Cell(blocks=[text_block([text_span(text)])] if text else [], header=header)


_DECIMALS = re.compile(r"0\.(0+)")
_DATE_CODE = re.compile(r"[dmyhs]", re.I)
_EPOCH = datetime(1899, 12, 30)  # serial 1 = 1900-01-01 (Excel's leap-year bug included)


def format_number(raw: str, code: str | None) -> str:
    """A cached chart value as the chart shows it (its format code, as Excel applies it)."""
    try:
        value = float(raw)
    except ValueError:
        return raw.strip()
    if math.isnan(value) or math.isinf(value):
        return raw.strip()
    return numfmt.format_number(value, code)


def _points(cache, limit: int = MAX_POINTS) -> tuple[list[str], int]:
    """The values of a ``c:strCache`` / ``c:numCache`` / literal, by point index (at most
    ``limit`` points)."""
    if cache is None:
        return [], 0
    fmt_el = cache.find(q("c:formatCode"))
    fmt = fmt_el.text if fmt_el is not None else None
    count_el = cache.find(q("c:ptCount"))
    try:
        count = int(count_el.get("val")) if count_el is not None else 0
    except (TypeError, ValueError):
        count = 0
    found: dict[int, str] = {}
    numeric = local(cache) in ("numCache", "numLit")
    for pt in cache.iterfind(_PT):
        try:
            idx = int(pt.get("idx"))
        except (TypeError, ValueError):
            continue
        v = pt.find(_V)
        if v is None or v.text is None or idx < 0 or idx >= limit:
            continue
        code = pt.get("formatCode") or fmt
        found[idx] = format_number(v.text, code) if numeric else v.text
    size = max(count, max(found) + 1 if found else 0)
    size = min(size, limit)
    return [found.get(i, "") for i in range(size)], size


def data_levels(el, resolve=None, limit: int = MAX_POINTS) -> list[list[str]]:
    """The cached points under a data reference, one list per level (outermost first;
    one level except for multi-level categories, whose outer labels are filled forward).

    ``el`` is a ``c:cat``/``c:val``/``c:tx``-like element or a ``c:strRef``/``c:numRef``
    itself. Without cached points, ``resolve(formula)`` (when given) supplies the texts of
    the reference's cells (``c:f``): generators such as openpyxl write no cache.
    """
    if el is None:
        return []
    if local(el) in ("strRef", "numRef"):
        cache = el.find(q("c:strCache"))
        if cache is None:
            cache = el.find(q("c:numCache"))
        levels = [_points(cache, limit)[0]]
    else:
        levels = _data(el, limit)
    if resolve is not None and not any(levels):
        ref = next((f.text for f in el.iter("{*}f") if f.text), None)
        if ref:
            return [(resolve(ref) or [])[:limit]]
    return levels


def _data(el, limit: int = MAX_POINTS) -> list[list[str]]:
    """Levels of data under a ``c:cat``/``c:val``-like element: one list per level,
    outermost level first (one level except for multi-level categories)."""
    if el is None:
        return []
    for ref_tag in ("c:strRef", "c:numRef"):
        ref = el.find(q(ref_tag))
        if ref is not None:
            cache = ref.find(q("c:strCache"))
            if cache is None:
                cache = ref.find(q("c:numCache"))
            return [_points(cache, limit)[0]]
    for lit_tag in ("c:strLit", "c:numLit"):
        lit = el.find(q(lit_tag))
        if lit is not None:
            return [_points(lit, limit)[0]]
    multi = el.find(q("c:multiLvlStrRef"))
    if multi is not None:
        cache = multi.find(q("c:multiLvlStrCache"))
        if cache is not None:
            count_el = cache.find(q("c:ptCount"))
            levels = []
            for lvl in cache.iterfind(q("c:lvl")):
                values, _ = _points(lvl, limit)
                levels.append(values)
            try:
                n = int(count_el.get("val")) if count_el is not None else 0
            except (TypeError, ValueError):
                n = 0
            n = max([n] + [len(v) for v in levels])
            out = []
            for values in reversed(levels):  # the file lists the leaf level first
                values = values + [""] * (n - len(values))
                last = ""
                filled = []
                for v in values:  # outer labels name the first point of their group
                    last = v or last
                    filled.append(last)
                out.append(filled)
            if out:
                out[-1] = levels[0] + [""] * (n - len(levels[0]))
            return out
    return []


def _series_name(ser) -> str:
    tx = ser.find(q("c:tx"))
    if tx is None:
        return ""
    v = tx.find(_V)
    if v is not None and v.text:
        return v.text
    data = _data(tx)
    return " ".join(x for x in (data[0] if data else []) if x)


def _rich_text(el) -> str:
    paras = []
    for p in el.iter(q("a:p")):
        text = "".join(t.text or "" for t in p.iter(q("a:t")))
        if text.strip():
            paras.append(text.strip())
    return " ".join(paras)


def _title(chart, series_names: list[str]) -> str:
    title = chart.find(q("c:title"))
    deleted = chart.find(q("c:autoTitleDeleted"))
    if title is None:
        return ""
    tx = title.find(q("c:tx"))
    if tx is not None:
        rich = tx.find(q("c:rich"))
        if rich is not None:
            return _rich_text(rich)
        data = _data(tx)
        return " ".join(x for x in (data[0] if data else []) if x)
    if len(series_names) == 1 and (deleted is None or deleted.get("val") not in ("1", "true")):
        return series_names[0]
    return ""


def read_chart(root) -> Block | None:
    """A ``table`` block (``sub_type="chart"``) for a chart part's root, or None when the
    chart caches no data."""
    chart = root.find(q("c:chart"))
    plot = chart.find(q("c:plotArea")) if chart is not None else None
    if plot is None:
        return None
    series = []  # (name, categories levels, [(column suffix, values)])
    for kind in plot:
        if not local(kind).endswith("Chart"):
            continue
        for ser in kind.iterfind(q("c:ser")):
            cats = _data(ser.find(q("c:cat"))) or _data(ser.find(q("c:xVal")))
            val_el = ser.find(q("c:val"))
            if val_el is None:
                val_el = ser.find(q("c:yVal"))
            columns = [("", (_data(val_el) or [[]])[0])]
            size = ser.find(q("c:bubbleSize"))
            if size is not None:
                columns.append((" (size)", (_data(size) or [[]])[0]))
            series.append((_series_name(ser), cats, columns))
    if not series or not any(values for _, _, cols in series for _, values in cols):
        return None
    names = [name or f"Series {i + 1}" for i, (name, _, _) in enumerate(series)]
    categories = next((cats for _, cats, _ in series if cats), [])
    same_cats = all(not cats or cats == categories for _, cats, _ in series)
    header: list[Cell] = []
    columns: list[list[str]] = []
    if same_cats:
        header += [_cell("", True) for _ in categories]
        columns += categories
    for name, (_, cats, cols) in zip(names, series):
        if not same_cats:  # e.g. scatter series with their own x values
            for level in cats:
                header.append(_cell(f"{name} (x)", True))
                columns.append(level)
        for suffix, values in cols:
            header.append(_cell(name + suffix, True))
            columns.append(values)
    n_rows = max((len(c) for c in columns), default=0)
    rows = [header]
    for i in range(n_rows):
        rows.append([_cell(col[i] if i < len(col) else "") for col in columns])
    title = _title(chart, [n for n, _, _ in series])
    captions = [text_block([text_span(title)])] if title else []
    return table_block(Table(rows=rows), captions=captions, sub_type="chart")


# ---------------------------------------------------------------------------------------
# Office 2016 chart types (waterfall, treemap, sunburst, histogram, funnel, box & whisker)

CX = "http://schemas.microsoft.com/office/drawing/2014/chartex"


def _cx(tag: str) -> str:
    return f"{{{CX}}}{tag}"


def _cx_level(lvl, numeric: bool) -> list[str]:
    try:
        count = min(int(lvl.get("ptCount") or 0), 100000)
    except ValueError:
        count = 0
    found: dict[int, str] = {}
    for pt in lvl.iterfind(_cx("pt")):
        try:
            idx = int(pt.get("idx"))
        except (TypeError, ValueError):
            continue
        if 0 <= idx <= 100000 and pt.text is not None:
            found[idx] = format_number(pt.text, lvl.get("formatCode")) if numeric else pt.text
    size = max(count, max(found) + 1 if found else 0)
    return [found.get(i, "") for i in range(size)]


def read_chartex(root) -> Block | None:
    """A chart-data table for a ``cx:chartSpace`` part (the Office 2016 chart types)."""
    datasets: dict[str, tuple[list[list[str]], list[list[str]]]] = {}
    data_root = root.find(_cx("chartData"))
    for data in (data_root.iterfind(_cx("data")) if data_root is not None else ()):
        cats: list[list[str]] = []
        vals: list[list[str]] = []
        for dim in data:
            kind = local(dim)
            if kind not in ("strDim", "numDim"):
                continue
            levels = [_cx_level(l, kind == "numDim") for l in dim.iterfind(_cx("lvl"))]
            if dim.get("type") == "cat" or kind == "strDim":
                cats += list(reversed(levels))  # leaf level first in the file
            else:
                vals += levels[:1]
        datasets[data.get("id") or str(len(datasets))] = (cats, vals)
    chart = root.find(_cx("chart"))
    names: list[tuple[str, str]] = []
    for ser in (chart.iter(_cx("series")) if chart is not None else ()):
        did = ser.find(_cx("dataId"))
        v = ser.find(f"{_cx('tx')}/{_cx('txData')}/{_cx('v')}")
        names.append((did.get("val") if did is not None else "0", v.text if v is not None else ""))
    if not names:
        names = [(key, "") for key in datasets]
    categories: list[list[str]] = []
    header: list[Cell] = []
    columns: list[list[str]] = []
    for i, (did, name) in enumerate(names):
        cats, vals = datasets.get(did, ([], []))
        if cats and not categories:
            categories = cats
        for values in vals:
            header.append(_cell(name or f"Series {i + 1}", True))
            columns.append(values)
    if not columns:
        return None
    header = [_cell("", True) for _ in categories] + header
    columns = categories + columns
    rows = [header]
    for r in range(max(len(c) for c in columns)):
        rows.append([_cell(col[r] if r < len(col) else "") for col in columns])
    title = ""
    title_el = chart.find(_cx("title")) if chart is not None else None
    if title_el is not None:
        v = title_el.find(f"{_cx('tx')}/{_cx('txData')}/{_cx('v')}")
        title = v.text.strip() if v is not None and v.text else _rich_text(title_el)
    captions = [text_block([text_span(title)])] if title else []
    return table_block(Table(rows=rows), captions=captions, sub_type="chart")


def chart_title(root) -> str:
    """The chart's caption title (as :func:`read_chart` gives it), without the data."""
    if root.tag == _cx("chartSpace"):
        block = read_chartex(root)
    else:
        block = read_chart(root)
        if block is None:  # no cached points: the title alone
            chart = root.find(q("c:chart"))
            return _title(chart, []) if chart is not None else ""
    caps = [b for b in block.blocks if b.type == BlockType.TABLE_CAPTION] if block else []
    return "".join(s.content for b in caps for l in b.lines for s in l.spans)
