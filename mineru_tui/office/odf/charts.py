"""ODF chart objects (``Object N/content.xml`` holding ``office:chart``) as data tables.

A chart object keeps the data it draws in a local table (``table:table`` inside
``chart:chart``): it becomes a ``sub_type="chart"`` table block, as the OOXML readers give
a chart's cached series (:mod:`mineru_tui.office.charts`), captioned with the chart's kind
and title. Columns hidden in that table (``table:visibility="collapse"``) are left out.
"""

from __future__ import annotations

from mineru_tui.document import Block, Cell, Table, table_block, text_block, text_span
from mineru_tui.office.odf.names import TABLE, TEXT, local, number

CHART = "{urn:oasis:names:tc:opendocument:xmlns:chart:1.0}"
MAX_CELLS = 100_000

_KINDS = {"bar": "Bar chart", "line": "Line chart", "area": "Area chart", "circle": "Pie chart",
          "ring": "Doughnut chart", "scatter": "Scatter chart", "radar": "Radar chart",
          "filled-radar": "Radar chart", "bubble": "Bubble chart", "stock": "Stock chart",
          "surface": "Surface chart", "gantt": "Gantt chart"}


def chart_block(root) -> Block | None:
    """The chart of an object's content root, or None when it holds no chart."""
    chart = next(root.iter(CHART + "chart"), None)
    if chart is None:
        return None
    kind = (chart.get(CHART + "class") or "").split(":")[-1]
    if kind == "bar":  # ODF's bars stand up (a column chart) unless the plot is "vertical"
        vertical = any(el.get(CHART + "vertical") == "true" for el in chart.iter(CHART + "plot-area"))
        kind = "bar" if vertical else "column"
    label = _KINDS.get(kind, "Column chart" if kind == "column" else "Chart")
    title_el = chart.find(CHART + "title")
    title = " ".join(_words(p) for p in title_el.iter(TEXT + "p")).strip() \
        if title_el is not None else ""
    caption = f"{label}: {title}" if title else label
    table = next(chart.iter(TABLE + "table"), None)
    rows: list[list[Cell]] = []
    if table is not None:
        hidden = _hidden_columns(table)
        count = 0
        for row in table.iter(TABLE + "table-row"):
            cells = []
            col = 0
            for cell in row:
                if local(cell) not in ("table-cell", "covered-table-cell"):
                    continue
                if col not in hidden:
                    text = " ".join(_words(p) for p in cell.iter(TEXT + "p")).strip()
                    cells.append(Cell(blocks=[text_block([text_span(text)])] if text else []))
                col += 1
            count += len(cells)
            if count > MAX_CELLS:
                break
            if any(c.blocks for c in cells):
                rows.append(cells)
    if rows:
        for c in rows[0]:
            c.header = True
    return table_block(Table(rows=rows), captions=[text_block([text_span(caption)])],
                       sub_type="chart")


def _hidden_columns(table) -> set[int]:
    hidden: set[int] = set()
    col = 0
    for el in table.iter(TABLE + "table-column"):
        n = min(number(el.get(TABLE + "number-columns-repeated")) or 1, 1000)
        if el.get(TABLE + "visibility") == "collapse":
            hidden.update(range(col, col + n))
        col += n
    return hidden


def _words(el) -> str:
    return " ".join("".join(el.itertext()).split())
