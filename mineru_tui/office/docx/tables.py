"""Tables: rows and cells to a :class:`~mineru_tui.document.Table` with spans.

``gridSpan`` gives a cell's colspan. ``vMerge="restart"`` opens a vertical merge at its
grid column and each ``vMerge`` (continue) below it adds one to that cell's rowspan;
covered cells are omitted, as HTML wants. ``gridBefore``/``gridAfter`` become empty
cells so columns stay aligned; legacy ``hMerge`` widens the cell before it. Rows and
cells wrapped in content controls or tracked insertions are read; deleted rows are not.
"""

from __future__ import annotations

from typing import Callable

from mineru_tui.document import Block, Cell, Table, table_block
from mineru_tui.office.docx.wml import W_VAL, int_val, on_off, w

TR, TC, TRPR, TCPR = w("tr"), w("tc"), w("trPr"), w("tcPr")
GRIDSPAN, VMERGE, HMERGE, TBLHEADER = w("gridSpan"), w("vMerge"), w("hMerge"), w("tblHeader")
GRIDBEFORE, GRIDAFTER = w("gridBefore"), w("gridAfter")
SDT, SDTCONTENT, CUSTOMXML = w("sdt"), w("sdtContent"), w("customXml")
INS, DEL, MOVETO = w("ins"), w("del"), w("moveTo")


def read_table(tbl, read_cell: Callable[[object], list[Block]]) -> Block:
    """A ``w:tbl`` as a table block; ``read_cell`` reads a cell's blocks (nested tables too)."""
    rows: list[list[Cell]] = []
    open_merges: dict[int, Cell] = {}  # grid column -> cell a vMerge started there
    for tr in _rows(tbl):
        trpr = tr.find(TRPR)
        header = False
        before = after = 0
        if trpr is not None:
            head = trpr.find(TBLHEADER)
            header = head is not None and on_off(head)
            before = max(0, min(int_val(trpr.find(GRIDBEFORE), 0) or 0, 64))
            after = max(0, min(int_val(trpr.find(GRIDAFTER), 0) or 0, 64))
        row: list[Cell] = [Cell(header=header) for _ in range(before)]
        for c in range(before):  # grid columns skipped at the row's start end merges there
            open_merges.pop(c, None)
        col = before
        for tc in _cells(tr):
            tcpr = tc.find(TCPR)
            span, vmerge, hmerge = 1, None, None
            if tcpr is not None:
                span = max(1, min(int_val(tcpr.find(GRIDSPAN), 1) or 1, 1000))
                vm = tcpr.find(VMERGE)
                if vm is not None:
                    vmerge = "restart" if vm.get(W_VAL) == "restart" else "continue"
                hm = tcpr.find(HMERGE)
                if hm is not None:
                    hmerge = "restart" if hm.get(W_VAL) == "restart" else "continue"
            if hmerge == "continue" and row:
                row[-1].colspan += span
                col += span
                continue
            origin = open_merges.get(col)
            if vmerge == "continue" and origin is not None and origin.colspan == span:
                origin.rowspan += 1
                col += span
                continue
            cell = Cell(blocks=read_cell(tc), colspan=span, header=header)
            for c in range(col, col + span):
                open_merges.pop(c, None)
            if vmerge == "restart":
                open_merges[col] = cell
            row.append(cell)
            col += span
        row += [Cell(header=header) for _ in range(after)]
        for c in [c for c in open_merges if c >= col]:  # short row: merges end here
            del open_merges[c]
        if row:
            rows.append(row)
    return table_block(Table(rows))


def _rows(tbl):
    """A table's rows, looking through content controls and tracked insertions."""
    for child in tbl:
        tag = child.tag
        if tag == TR:
            trpr = child.find(TRPR)
            if trpr is not None and trpr.find(DEL) is not None:
                continue  # a deleted row (tracked change)
            yield child
        elif tag == SDT:
            content = child.find(SDTCONTENT)
            if content is not None:
                yield from _rows(content)
        elif tag in (CUSTOMXML, INS, MOVETO):
            yield from _rows(child)


def _cells(tr):
    for child in tr:
        tag = child.tag
        if tag == TC:
            yield child
        elif tag == SDT:
            content = child.find(SDTCONTENT)
            if content is not None:
                yield from _cells(content)
        elif tag in (CUSTOMXML, INS, MOVETO):
            yield from _cells(child)
