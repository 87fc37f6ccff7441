"""Charts of an .xls workbook, read from their BIFF chart substreams.

xlrd does not read charts. A chart embedded in a worksheet is a substream of its own
(``BOF`` of type chart) inside the sheet's substream. Read from it: the chart type (the
first ``BAR``, ``LINE``, ``PIE``... record), the title (a ``TEXT`` block whose
``OBJECTLINK`` names the title, its text in ``SERIESTEXT``), and each ``SERIES``: its name
(a literal ``SERIESTEXT`` or a cell reference) and the cell ranges of its values and
categories (``BRAI`` formulas: 3-D references through ``EXTERNSHEET``). The values are read
from the workbook's cells, as shown, so a chart becomes the same ``sub_type="chart"``
table (captioned "Column chart: Title") the .xlsx reader gives. A chart sheet (a chart as
a sheet of its own, which xlrd leaves out) is a top-level chart substream, read the same
way; the ``BOUNDSHEET`` records give every sheet's name, type and visibility in order.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from mineru_tui.document import Block, Cell, Table, table_block, text_block, text_span
from mineru_tui.office.xls.biff import BOF, EOF, records

MAX_CHARTS = 1_000
MAX_VALUES = 100_000  # cells read per chart
_EXTERNSHEET, _BOUNDSHEET = 0x0017, 0x0085
_SERIES, _BRAI, _SERIESTEXT, _TEXT, _OBJECTLINK = 0x1003, 0x1051, 0x100D, 0x1025, 0x1027
_BEGIN, _END = 0x1033, 0x1034
_KINDS = {0x1018: "Line", 0x1019: "Pie", 0x101A: "Area", 0x101B: "Scatter",
          0x103E: "Radar", 0x1040: "Radar", 0x103F: "Surface", 0x1061: "Pie"}
_BAR = 0x1017


@dataclass
class Series:
    name: str = ""
    name_ref: list = field(default_factory=list)  # [(extern index, r0, r1, c0, c1)]
    values: list = field(default_factory=list)
    categories: list = field(default_factory=list)


@dataclass
class SheetEntry:
    """A ``BOUNDSHEET`` record: the sheet's name, whether it is hidden, whether a chart sheet."""

    name: str
    hidden: bool
    chart: bool


@dataclass
class Chart:
    kind: str = ""
    title: str = ""
    series: list[Series] = field(default_factory=list)


def _string(body: bytes, pos: int, cch: int) -> str:
    """An XLUnicodeStringNoCch of ``cch`` characters at ``pos``."""
    if pos >= len(body):
        return ""
    wide = body[pos] & 0x01
    raw = body[pos + 1:pos + 1 + cch * (2 if wide else 1)]
    return raw.decode("utf-16-le" if wide else "latin-1", "replace")


def _refs(formula: bytes) -> list[tuple[int, int, int, int, int]]:
    """The 3-D references of a chart formula: (extern index, first row, last row, first
    column, last column); a union of ranges gives several."""
    out, pos = [], 0
    while pos < len(formula) and len(out) < 256:
        ptg = formula[pos]
        if ptg in (0x3B, 0x5B, 0x7B) and pos + 11 <= len(formula):  # ptgArea3d
            ixti, r0, r1, c0, c1 = struct.unpack_from("<HHHHH", formula, pos + 1)
            out.append((ixti, r0, r1, c0 & 0x3FFF, c1 & 0x3FFF))
            pos += 11
        elif ptg in (0x3A, 0x5A, 0x7A) and pos + 7 <= len(formula):  # ptgRef3d
            ixti, r, c = struct.unpack_from("<HHH", formula, pos + 1)
            out.append((ixti, r, r, c & 0x3FFF, c & 0x3FFF))
            pos += 7
        elif ptg == 0x10:  # ptgUnion
            pos += 1
        else:
            break
    return out


def read_charts(data: bytes) -> tuple[list[list[Chart]], list[int], list[SheetEntry]]:
    """The charts of each sheet substream (in BOUNDSHEET order: a worksheet's embedded
    charts, a chart sheet's own chart), the sheet (BOUNDSHEET index) of each EXTERNSHEET
    entry, and the BOUNDSHEET records."""
    externs: list[int] = []
    sheets: list[SheetEntry] = []
    per_sheet: list[list[Chart]] = []
    depth = 0
    substream = -1
    chart: Chart | None = None
    chart_depth = 0
    block: list = []  # open BEGIN blocks inside the chart: ("text"|"series"|None, data)
    pending: str | None = None  # the record BEGIN will open
    ai_name = False  # the last BRAI was a series name given as text
    total = 0
    for rtype, body in records(data):
        if rtype == BOF:
            kind = struct.unpack_from("<H", body, 2)[0] if len(body) >= 4 else 0
            if depth == 0:
                substream += 1
                if substream > 0:
                    per_sheet.append([])
            if kind == 0x20 and substream > 0 and total < MAX_CHARTS:
                chart, chart_depth, block, pending = Chart(), depth + 1, [], None
            depth += 1
            continue
        if rtype == EOF:
            if chart is not None and depth == chart_depth:
                per_sheet[-1].append(chart)
                total += 1
                chart = None
            depth = max(0, depth - 1)
            continue
        if substream == 0 and rtype == _BOUNDSHEET and len(body) >= 8 and len(sheets) < 65536:
            sheets.append(SheetEntry(_string(body, 7, body[6]), bool(body[4] & 0x03),
                                     body[5] == 0x02))
            continue
        if substream == 0 and rtype == _EXTERNSHEET and len(body) >= 2:
            n = struct.unpack_from("<H", body, 0)[0]
            for k in range(min(n, (len(body) - 2) // 6)):
                externs.append(struct.unpack_from("<HHH", body, 2 + 6 * k)[1])
            continue
        if chart is None or depth != chart_depth:
            continue
        if rtype == _BEGIN:
            block.append((pending, Series() if pending == "series" else {}))
            if pending == "series":
                chart.series.append(block[-1][1])
            pending = None
        elif rtype == _END:
            if block:
                what, got = block.pop()
                if what == "text" and got.get("link") == 1 and got.get("text"):
                    chart.title = got["text"]
        elif rtype == _SERIES:
            pending = "series"
        elif rtype == _TEXT:
            pending = "text"
        elif rtype == _BAR and not chart.kind and len(body) >= 6:
            chart.kind = "Bar" if body[4] & 0x01 else "Column"  # fTranspose: horizontal
        elif rtype in _KINDS and not chart.kind:
            chart.kind = _KINDS[rtype]
        elif rtype == _BRAI and len(body) >= 8 and block and block[-1][0] == "series":
            series: Series = block[-1][1]
            ai_id, ai_rt = body[0], body[1]
            cce = struct.unpack_from("<H", body, 6)[0]
            refs = _refs(body[8:8 + cce]) if ai_rt == 2 else []
            ai_name = ai_id == 0 and ai_rt == 1
            if ai_id == 0:
                series.name_ref = refs
            elif ai_id == 1:
                series.values = refs
            elif ai_id == 2:
                series.categories = refs
        elif rtype == _SERIESTEXT and len(body) >= 3 and block:
            text = _string(body, 3, body[2])
            what, got = block[-1]
            if what == "text":
                got["text"] = text
            elif what == "series" and ai_name:
                got.name = text
        elif rtype == _OBJECTLINK and len(body) >= 2 and block and block[-1][0] == "text":
            block[-1][1]["link"] = struct.unpack_from("<H", body, 0)[0]
    return per_sheet, externs, sheets


def chart_block(chart: Chart, shown, sheet_of) -> Block | None:
    """A ``sub_type="chart"`` table for ``chart``: a column of categories, a column per
    series, captioned "Column chart: Title". ``sheet_of(extern index)`` gives the xlrd sheet
    of a reference (None for another workbook), ``shown(sheet, row, col)`` a cell's text."""
    budget = [MAX_VALUES]

    def cells(refs: list) -> list[str]:
        out: list[str] = []
        for ixti, r0, r1, c0, c1 in refs:
            sheet = sheet_of(ixti)
            if sheet is None:
                continue
            for r in range(r0, r1 + 1):
                for c in range(c0, c1 + 1):
                    if budget[0] <= 0:
                        return out
                    budget[0] -= 1
                    out.append(shown(sheet, r, c))
        return out

    series = [(s.name or " ".join(x for x in cells(s.name_ref) if x), cells(s.values),
               cells(s.categories)) for s in chart.series]
    series = [s for s in series if s[1]]
    if not series:
        return None
    categories = next((cats for _, _, cats in series if cats), [])
    header = [_cell("", True)] if categories else []
    header += [_cell(name or f"Series {i + 1}", True) for i, (name, _, _) in enumerate(series)]
    rows = [header]
    for i in range(max(len(values) for _, values, _ in series)):
        row = [_cell(categories[i] if i < len(categories) else "")] if categories else []
        row += [_cell(values[i] if i < len(values) else "") for _, values, _ in series]
        rows.append(row)
    kind = chart.kind + " chart" if chart.kind else ""
    title = chart.title or (series[0][0] if len(series) == 1 else "")
    caption = f"{kind}: {title}" if kind and title else kind or title
    captions = [text_block([text_span(caption)])] if caption else []
    return table_block(Table(rows=rows), captions=captions, sub_type="chart")


def _cell(text: str, header: bool = False) -> Cell:
    return Cell(blocks=[text_block([text_span(text)])] if text else [], header=header)
