"""The three tables: files (queue and history), pages of a file, blocks of a page."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable

from mineru_tui.console import shown
from mineru_tui.tui.state import FileRow, PageRow

STATUS_STYLE = {
    "queued": "dim", "reading": "bold cyan", "done": "green", "failed": "bold red",
    "skipped": "dim italic", "needs-model": "yellow", "cancelled": "magenta",
}


def status_text(status: str, label: str | None = None) -> Text:
    return Text(label or status, style=STATUS_STYLE.get(status, ""))


class NavTable(DataTable):
    """A row-cursor table that also moves with j/k."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]

    def __init__(self, **kw) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kw)

    def selected_key(self) -> str | None:
        """The key of the row under the cursor (None for an empty table)."""
        if self.row_count == 0:
            return None
        try:
            return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        except Exception:
            return None


class FilesTable(NavTable):
    """Queue and history: status, file, pages, time taken."""

    def on_mount(self) -> None:
        self.add_column("status", key="status", width=12)
        self.add_column("pages", key="pages", width=5)
        self.add_column("time", key="time", width=7)
        self.add_column("file", key="file")  # last: a long name or error runs off the end

    def show(self, row: FileRow) -> None:
        """Add or update the row of ``row.path``."""
        cells = {
            "status": status_text(row.status, row.label),
            "pages": _pages(row),
            "time": Text(f"{row.seconds:.2f} s" if row.status == "done" and not row.note
                         else "", justify="right"),
            "file": _file_cell(row),
        }
        if row.path in self.rows:
            for col, value in cells.items():
                self.update_cell(row.path, col, value)
        else:
            self.add_row(*cells.values(), key=row.path)


def _file_cell(row: FileRow) -> Text:
    """The name, and for a file that did not read, why (the error goes to its row)."""
    # names and reasons escaped: a file name can hold ESC and BEL (a terminal title...)
    text = Text(shown(row.name), overflow="ellipsis", no_wrap=True)
    if row.reason and row.status in ("failed", "needs-model", "skipped", "cancelled"):
        text.append(f"  {shown(row.reason.split(';')[0])}", style="dim")
    elif row.note:
        text.append(f"  {shown(row.note)}", style="dim")
    return text


def _pages(row: FileRow) -> Text:
    done = sum(1 for p in row.pages.values() if p.status == "done")
    if row.status == "reading" and row.pages_total:
        return Text(f"{done}/{row.pages_total}", justify="right")
    return Text(str(row.pages_total) if row.pages_total else "", justify="right")


class PagesTable(NavTable):
    """The pages (slides, sheets) of the selected file."""

    def on_mount(self) -> None:
        self.add_column("page", key="page", width=4)
        self.add_column("status", key="status", width=8)
        self.add_column("blk", key="blocks", width=3)

    def show(self, pages: list[PageRow]) -> None:
        keep = self.cursor_row
        self.clear()
        for p in pages:
            self.add_row(Text(str(p.index + 1), justify="right"), status_text(p.status),
                         Text(str(len(p.blocks)) if p.blocks else "", justify="right"),
                         key=str(p.index))
        if pages:
            self.move_cursor(row=min(keep, len(pages) - 1), animate=False)


SOURCE_LABEL = {"text_layer": "pdf text", "model": "model", "none": "-"}


class BlocksTable(NavTable):
    """The layout blocks of the selected page: reading order, type, where the text came
    from (the model or the PDF's text layer), box."""

    def on_mount(self) -> None:
        self.add_column("#", key="n", width=2)
        self.add_column("type", key="type", width=8)
        self.add_column("from", key="from", width=8)
        self.add_column("box x0 y0 x1 y1", key="box")

    def show(self, page: PageRow | None) -> None:
        keep = self.cursor_row
        self.clear()
        if page is None:
            return
        for b in page.blocks:
            box = " ".join(f"{v:.2f}" for v in b.bbox)
            state = "" if b.done else " …"
            self.add_row(Text(str(b.index + 1), justify="right"), shown(b.type) + state,
                         SOURCE_LABEL.get(b.source, b.source), box, key=str(b.index))
        if page.blocks:
            self.move_cursor(row=min(keep, len(page.blocks) - 1), animate=False)
