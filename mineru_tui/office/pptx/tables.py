"""DrawingML tables (``a:tbl`` in a graphic frame) to table blocks.

``gridSpan`` / ``rowSpan`` become colspan / rowspan; the cells a merge covers
(``hMerge`` / ``vMerge``) are left out, as the document model wants. ``a:tblPr
firstRow="1"`` marks the first row as header cells.
"""

from __future__ import annotations

from mineru_tui.document import Block, Cell, Table, table_block
from mineru_tui.office.names import q
from mineru_tui.office.pptx.text import TextContext, text_body_blocks

_TR, _TC, _TXBODY = q("a:tr"), q("a:tc"), q("a:txBody")


def _span(value: str | None) -> int:
    try:
        return max(1, min(int(value or 1), 1000))
    except ValueError:
        return 1


def read_table(tbl, ctx: TextContext) -> Block:
    """The table block of an ``a:tbl`` element."""
    tblpr = tbl.find(q("a:tblPr"))
    header_row = tblpr is not None and tblpr.get("firstRow") in ("1", "true")
    cell_ctx = TextContext(styles=[], link=ctx.link)
    rows: list[list[Cell]] = []
    for r, tr in enumerate(tbl.iterfind(_TR)):
        row = []
        for tc in tr.iterfind(_TC):
            if tc.get("hMerge") in ("1", "true") or tc.get("vMerge") in ("1", "true"):
                continue
            body = tc.find(_TXBODY)
            blocks = text_body_blocks(body, cell_ctx) if body is not None else []
            row.append(Cell(blocks=blocks, colspan=_span(tc.get("gridSpan")),
                            rowspan=_span(tc.get("rowSpan")), header=header_row and r == 0))
        rows.append(row)
    return table_block(Table(rows=rows))
