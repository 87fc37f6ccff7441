"""Merged cells of Word-family tables (DOCX, RTF, DOC) to colspan/rowspan, once.

Each reader says where a cell stands and what it merges; this module keeps the rows:

* ``at`` is the cell's place on the row: a grid column (DOCX), a right edge (RTF), a left
  edge (DOC); ``span`` the grid columns it covers (its colspan);
* ``joins_left`` (a horizontal merge) widens the cell before it in the row;
* ``merge="restart"`` starts a vertical merge at ``at``; ``merge="continue"`` lengthens the
  cell a merge started at ``at`` (its rowspan), and the continuing cell is left out, as HTML
  wants. A ``continue`` with nothing to continue is a cell of its own.

Covered cells are never read: a cell can be given as a function that makes it.

Two lifetimes of what a ``continue`` may reach (``row_above``): a started merge stays open
until a new cell covers its place (DOCX, RTF), or only the cells of the row right above,
any of them, are reachable (DOC, whose writers mark continuations without always marking
the start).
"""

from __future__ import annotations

from typing import Callable, Hashable, Iterable

from mineru_tui.document import Cell

CellOrMaker = Cell | Callable[[], Cell]


class MergedCells:
    """Rows of placed cells → rows of :class:`Cell` with colspan and rowspan."""

    def __init__(self, *, row_above: bool = False, same_width: bool = False):
        """``row_above``: a continuation reaches only the row right above (DOC);
        ``same_width``: it continues only a cell of its own span (DOCX's grid columns)."""
        self.row_above = row_above
        self.same_width = same_width
        self._open: dict[Hashable, Cell] = {}  # place -> the cell a continuation there lengthens
        self._started: set[int] = set()  # ids of cells a vertical merge started at
        self._row: list[Cell] = []
        self._placed: dict[Hashable, Cell] = {}  # this row's places (row_above)

    def add(self, cell: CellOrMaker, at: Hashable | None = None, span: int = 1, *,
            joins_left: bool = False, merge: str = "") -> None:
        """Place the next cell of the row (``at=None``: off the grid, kept as it is)."""
        if at is None:
            self._row.append(cell() if callable(cell) else cell)
            return
        if joins_left and self._row:
            self._row[-1].colspan += span
            return
        origin = self._open.get(at)
        if merge == "continue" and origin is not None and (
                not self.same_width or origin.colspan == span):
            origin.rowspan += 1
            if self.row_above:
                self._placed[at] = origin
            return
        made = cell() if callable(cell) else cell
        made.colspan = span
        if self.row_above:
            self._placed[at] = made
        else:
            self.close(range(at, at + span) if isinstance(at, int) else [at])
            if merge == "restart":
                self._open[at] = made
        if merge == "restart":
            self._started.add(id(made))
        self._row.append(made)

    def started(self, at: Hashable) -> Cell | None:
        """The cell a continuation at ``at`` would reach, when a vertical merge started there."""
        cell = self._open.get(at)
        return cell if cell is not None and id(cell) in self._started else None

    def close(self, places: Iterable[Hashable]) -> None:
        """End the merges open at ``places`` (columns a row skips or ends before)."""
        for place in list(places):
            self._open.pop(place, None)

    def close_from(self, column: int) -> None:
        """End the merges open at ``column`` or after it (a row shorter than the one above)."""
        self.close([c for c in self._open if c >= column])

    def end_row(self) -> list[Cell]:
        """The row's kept cells; the next ``add`` starts a new row."""
        row, self._row = self._row, []
        if self.row_above:
            self._open, self._placed = self._placed, {}
        return row

    def reset(self) -> None:
        """Forget every open merge (a row off the grid between two on it)."""
        self._open = {}
        self._placed = {}
