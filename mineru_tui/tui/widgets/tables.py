"""The three tables: files (queue and history), pages of a file, blocks of a page."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from mineru_tui.console import shown
from mineru_tui.tui.block_text import state as block_state
from mineru_tui.tui.block_text import summary
from mineru_tui.tui.state import READING, FileRow, PageRow
from mineru_tui.watch.status import Status
from mineru_tui.watch.status import label as status_label

STATUS_STYLE = {
    Status.QUEUED: "dim", Status.READING: "bold cyan", Status.DONE: "green",
    Status.FAILED: "bold red", Status.SKIPPED: "dim italic", Status.NEEDS_MODEL: "yellow",
    Status.CANCELLED: "magenta", Status.EMPTY: "yellow",
}
BAR = 6  # cells of a file's progress bar
PROGRESS_WIDTH = BAR + 6  # the bar and its " 14/100"; a longer count narrows the bar


def status_text(status: str, label: str | None = None) -> Text:
    """A status in its words (never an internal one) and colour."""
    style = STATUS_STYLE.get(status, "")
    label = label or status_label(status)
    if label != status and status == Status.DONE:
        style = "yellow"  # done with warnings, or empty
    return Text(label, style=style)


def bar(done: float, total: int, width: int = BAR) -> str:
    """``done`` of ``total`` as a bar of eighth blocks, ``width`` cells wide."""
    if total <= 0:
        return " " * width
    eighths = round(width * 8 * min(1.0, done / total))
    full, part = divmod(eighths, 8)
    return ("█" * full + (" ▏▎▍▌▋▊▉"[part] if part else "")).ljust(width, "·")


class NavTable(DataTable):
    """A row-cursor table (↑ ↓ move; j / k are the app's: blocks from anywhere)."""

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

    def select_key(self, key: str) -> None:
        """Move the cursor to the row ``key`` (if it is shown)."""
        if key in self.rows:
            row = self.get_row_index(key)
            if row != self.cursor_row:
                self.move_cursor(row=row, animate=False)


class FilesTable(NavTable):
    """Queue and history: status, progress, time taken, file (and why it did not read)."""

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.filter = ""
        self.write_per_page: float | None = None  # the board's measure, for the time left

    def on_mount(self) -> None:
        self.add_column("status", key="status", width=12)
        self.add_column("progress", key="pages", width=PROGRESS_WIDTH)
        self.add_column("time", key="time", width=7)
        self.add_column("file", key="file")  # last: a long name or error runs off the end

    def matches(self, row: FileRow) -> bool:
        """The filter is in its name or its status words ("failed", "reading", "model";
        "warning" for a file done with warnings or empty pages)."""
        if not self.filter:
            return True
        q = self.filter.casefold()
        words = row.label.casefold() + " " + row.status + (" warnings" if "⚠" in row.label
                                                          or "empty" in row.label else "")
        return q in row.name.casefold() or q in words

    def show(self, row: FileRow, live=None) -> None:
        """Add or update the row of ``row.path`` (a row the filter hides is left out)."""
        if not self.matches(row):
            if row.path in self.rows:
                self.remove_row(row.path)
            return
        cells = {
            "status": status_text(row.status, row.label),
            "pages": _progress(row),
            "time": Text(_time(row, live, self.write_per_page), justify="right"),
            "file": _file_cell(row),
        }
        if row.path in self.rows:
            for col, value in cells.items():
                self.update_cell(row.path, col, value, update_width=col == "file")
        else:
            self.add_row(*cells.values(), key=row.path)

    def refill(self, rows: list[FileRow], live=None) -> None:
        """Every row again (after the filter changed), the cursor kept on its file."""
        keep = self.selected_key()
        self.clear()
        for row in rows:
            self.show(row, live)
        if keep:
            self.select_key(keep)


def _time(row: FileRow, live, write_per_page: float | None = None) -> str:
    if row.status == Status.DONE and row.seconds:
        return f"{row.seconds:.2f} s" if row.seconds < 10 else f"{row.seconds:.1f} s"
    eta = row.eta(live, write_per_page)
    if eta is not None:
        return f"~{_duration(eta)}"
    return ""


def _duration(seconds: float) -> str:
    s = round(seconds)
    if s < 100:
        return f"{s} s"
    if s < 6000:
        return f"{s // 60}m{s % 60:02d}"
    return f"{s // 3600}h{s % 3600 // 60:02d}"


def _file_cell(row: FileRow) -> Text:
    """The name, and for a file that did not read (or read empty), why."""
    text = Text(shown(row.name), no_wrap=True)
    if row.reason and row.status in (Status.FAILED, Status.NEEDS_MODEL, Status.SKIPPED,
                                     Status.CANCELLED):
        text.append(f"  {shown(row.reason)}", style="dim")
    elif row.status == Status.DONE and row.warning_line():
        text.append(f"  {shown(row.warning_line())}", style="yellow")
    elif row.note:
        text.append(f"  {shown(row.note)}", style="dim")
    return text


def _progress(row: FileRow) -> Text:
    if row.status == READING and row.pages_total:
        current = [p for p in row.pages.values() if p.status == READING]
        part = min(1.0, current[0].blocks_done / current[0].blocks_to_read) \
            if current and current[0].blocks_to_read else 0.0
        done = row.pages_done
        count = f" {done}/{row.pages_total}"
        width = max(1, min(BAR, PROGRESS_WIDTH - len(count)))  # the count is never cut
        return Text.assemble((bar(done + part, row.pages_total, width), "cyan"), count)
    if row.status in (Status.CANCELLED, Status.FAILED) and row.pages_total:
        return Text(f"{row.pages_done}/{row.pages_total}", justify="right")
    return Text(f"{row.pages_total} p" if row.pages_total else "", justify="right")


class PagesTable(NavTable):
    """The pages (slides, sheets) of the selected file."""

    def on_mount(self) -> None:
        self.add_column("page", key="page", width=4)
        self.add_column("status", key="status", width=9)
        self.add_column("blk", key="blocks", width=5)

    def show(self, pages: list[PageRow], selected: int | None) -> None:
        """The pages; rows already shown are updated in place (a 300-page file is not
        refilled for every block read)."""
        keys = [str(p.index) for p in pages]
        if [k.value for k in self.rows] != keys[:self.row_count] or self.row_count > len(keys):
            self.clear()
        for p in pages:
            cells = _page_cells(p)
            key = str(p.index)
            if key in self.rows:
                for col, value in zip(("page", "status", "blocks"), cells):
                    if str(self.get_cell(key, col)) != str(value):
                        self.update_cell(key, col, value)
            else:
                self.add_row(*cells, key=key)
        if pages and selected is not None:
            self.select_key(str(selected))


def _page_cells(p: PageRow) -> tuple[Text, Text, Text]:
    blocks = (f"{p.blocks_done}/{p.blocks_to_read}" if p.status == READING and p.blocks
              else str(len(p.blocks)) if p.blocks else "")
    return (Text(str(p.index + 1), justify="right"), status_text(p.status),
            Text(blocks, justify="right"))


SOURCE_LABEL = {"text_layer": "pdf text", "model": "model", "none": "-", "office": "office"}


class BlocksTable(NavTable):
    """The layout blocks of the selected page: reading order, type, where the text came
    from (the model or the PDF's text layer), its first words."""

    def on_mount(self) -> None:
        self.add_column("#", key="n", width=3)
        self.add_column("type", key="type", width=14)
        self.add_column("from", key="from", width=8)
        self.add_column("text", key="text")

    def show(self, page: PageRow | None, selected: int) -> None:
        self.clear()
        if page is None:
            return
        for b in page.blocks:
            word = block_state(b, page)
            mark = " ▸" if word == "reading" else " …" if word == "waiting" else ""
            words = summary(b) if b.text else word if word.startswith("not read") else ""
            self.add_row(Text(str(b.index + 1), justify="right"), shown(b.type) + mark,
                         SOURCE_LABEL.get(b.source, b.source) if b.done or b.source == "none"
                         else "", Text(shown(words), style="dim", no_wrap=True),
                         key=str(b.index))
        if page.blocks and selected >= 0:
            self.select_key(str(selected))
