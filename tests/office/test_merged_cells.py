"""The one merged-cell helper of the Word-family readers (DOCX, RTF, DOC)."""

from __future__ import annotations

from mineru_tui.document import Cell, text_block, text_span
from mineru_tui.office.merged_cells import MergedCells


def cell(text: str = "") -> Cell:
    return Cell(blocks=[text_block([text_span(text)])] if text else [])


def spans(rows: list[list[Cell]]) -> list[list[tuple[int, int]]]:
    return [[(c.colspan, c.rowspan) for c in row] for row in rows]


def test_a_started_merge_stays_open_until_a_cell_covers_its_place():
    m = MergedCells()
    rows = []
    m.add(cell("a"), 0, merge="restart"), m.add(cell("b"), 1)
    rows.append(m.end_row())
    m.add(cell(), 0, merge="continue"), m.add(cell("c"), 1)
    rows.append(m.end_row())
    m.add(cell(), 0, merge="continue"), m.add(cell("d"), 1, merge="continue")  # nothing to continue at 1
    rows.append(m.end_row())
    m.add(cell("e"), 0, 2)  # covers 0 and 1: the merge at 0 ends
    rows.append(m.end_row())
    m.add(cell(), 0, merge="continue")
    rows.append(m.end_row())
    assert spans(rows) == [[(1, 3), (1, 1)], [(1, 1)], [(1, 1)], [(2, 1)], [(1, 1)]]


def test_joins_left_widens_and_covered_cells_are_never_made():
    m = MergedCells(same_width=True)
    made = []
    m.add(cell("a"), 0, 2, merge="restart")
    m.add(lambda: made.append(1) or cell("x"), 2, joins_left=True)
    first = m.end_row()
    m.add(lambda: made.append(2) or cell(), 0, 3, merge="continue")
    m.add(lambda: made.append(3) or cell("b"), 3, merge="continue")  # nothing open at 3
    second = m.end_row()
    m.add(lambda: made.append(4) or cell("c"), 0, 2, merge="continue")  # another width
    third = m.end_row()
    assert spans([first, second, third]) == [[(3, 2)], [(1, 1)], [(2, 1)]]
    assert made == [3, 4]


def test_close_from_ends_merges_a_short_row_does_not_reach():
    m = MergedCells()
    m.add(cell("a"), 0), m.add(cell("b"), 1, merge="restart")
    m.end_row()
    m.add(cell("c"), 0)
    m.close_from(1)
    m.end_row()
    m.add(cell("d"), 0), m.add(cell(), 1, merge="continue")
    assert spans([m.end_row()]) == [[(1, 1), (1, 1)]]


def test_row_above_reaches_any_cell_of_the_row_right_above_only():
    m = MergedCells(row_above=True)
    m.add(cell("a"), 10), m.add(cell("b"), 20)  # no merge marked at the start
    top = m.end_row()
    m.add(cell(), 10, merge="continue"), m.add(cell("c"), 20)
    m.end_row()
    m.add(cell(), 10, merge="continue")  # the continued cell is still the one above
    m.end_row()
    m.reset()  # a row off the grid between
    m.add(cell("d"), 10, merge="continue")
    assert spans([top, m.end_row()]) == [[(1, 3), (1, 1)], [(1, 1)]]
    assert m.started(10) is None


def test_started_names_only_cells_a_merge_started_at():
    m = MergedCells(row_above=True)
    a = cell("a")
    m.add(a, 0, merge="restart"), m.add(cell("b"), 1)
    m.end_row()
    assert m.started(0) is a and m.started(1) is None
