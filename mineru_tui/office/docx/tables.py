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
from mineru_tui.office.merged_cells import MergedCells

TR, TC, TRPR, TCPR = w("tr"), w("tc"), w("trPr"), w("tcPr")
GRIDSPAN, VMERGE, HMERGE, TBLHEADER = w("gridSpan"), w("vMerge"), w("hMerge"), w("tblHeader")
GRIDBEFORE, GRIDAFTER = w("gridBefore"), w("gridAfter")
SDT, SDTCONTENT, CUSTOMXML = w("sdt"), w("sdtContent"), w("customXml")
INS, DEL, MOVETO = w("ins"), w("del"), w("moveTo")


def read_table(tbl, read_cell: Callable[[object], list[Block]]) -> Block:
    """A ``w:tbl`` as a table block; ``read_cell`` reads a cell's blocks (nested tables too)."""
    rows: list[list[Cell]] = []
    merges = MergedCells(same_width=True)  # placed by grid column
    for tr in _rows(tbl):
        trpr = tr.find(TRPR)
        header = False
        before = after = 0
        if trpr is not None:
            head = trpr.find(TBLHEADER)
            header = head is not None and on_off(head)
            before = max(0, min(int_val(trpr.find(GRIDBEFORE), 0) or 0, 64))
            after = max(0, min(int_val(trpr.find(GRIDAFTER), 0) or 0, 64))
        for _ in range(before):
            merges.add(Cell(header=header))
        merges.close(range(before))  # grid columns skipped at the row's start end merges there
        col = before
        for tc in _cells(tr):
            tcpr = tc.find(TCPR)
            span, vmerge, hmerge = 1, "", None
            if tcpr is not None:
                span = max(1, min(int_val(tcpr.find(GRIDSPAN), 1) or 1, 1000))
                vm = tcpr.find(VMERGE)
                if vm is not None:
                    vmerge = "restart" if vm.get(W_VAL) == "restart" else "continue"
                hm = tcpr.find(HMERGE)
                if hm is not None:
                    hmerge = "restart" if hm.get(W_VAL) == "restart" else "continue"
            def make(tc=tc, header=header) -> Cell:  # covered cells are never read
                return Cell(blocks=read_cell(tc), header=header)
            merges.add(make, col, span, joins_left=hmerge == "continue", merge=vmerge)
            col += span
        for _ in range(after):
            merges.add(Cell(header=header))
        merges.close_from(col)  # short row: merges end here
        row = merges.end_row()
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
