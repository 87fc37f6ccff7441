"""``mineru-tui watch DIR``: the app over the watch service.

The app reads nothing itself. :class:`~mineru_tui.watch.service.WatchService` watches the
folder and reads files in reader processes; its events arrive here on any thread and are
put in an inbox (:meth:`WatchApp.feed`). Twenty times a second the app folds the inbox
into a :class:`~mineru_tui.tui.state.Board` and redraws only what changed, so a burst of
tokens costs one redraw, not one per token, and the UI stays responsive however fast the
reader streams.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from contextlib import suppress
from pathlib import Path

from textual import on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.widgets import DataTable, Footer, Header, Log, TabbedContent, TabPane

from mineru_tui.console import shown
from mineru_tui.engines.defaults import DEFAULT_MODEL
from mineru_tui.tui.screens import HelpScreen, OutputScreen
from mineru_tui.tui.state import Board, Changes, FileRow
from mineru_tui.tui.widgets.live import LivePane
from mineru_tui.tui.widgets.markdown_pane import MarkdownPane
from mineru_tui.tui.widgets.preview import PagePreview
from mineru_tui.tui.widgets.tables import BlocksTable, FilesTable, PagesTable
from mineru_tui.watch import events as ev
from mineru_tui.watch.service import SERVER_HINT, WatchConfig, WatchError, WatchService, hint_for

TICK = 0.05  # seconds between redraws (events in between are coalesced)
MD_FILE_LIMIT = 2_000_000  # bytes of a finished file's .md read back for display


class WatchApp(App[int]):
    """Files, pages and blocks on the left; Markdown, preview, log and live decoding on the
    right. ``config=None`` runs without a service (events come only through :meth:`feed`)."""

    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: subclasses live elsewhere
    TITLE = "mineru-tui watch"
    BINDINGS = [
        Binding("r", "reread", "Re-read", id="watch.reread"),
        Binding("p", "pause", "Pause", id="watch.pause"),
        Binding("c", "cancel", "Cancel", id="watch.cancel"),
        Binding("o", "output", "Output", id="watch.output"),
        Binding("y", "copy_output", "Copy path", show=False, id="watch.copy"),
        Binding("question_mark", "help", "Help", key_display="?", id="watch.help"),
        Binding("q", "quit", "Quit", id="watch.quit"),
    ]

    def __init__(self, config: WatchConfig | None = None, *, tick: float = TICK) -> None:
        super().__init__()
        self.config = config
        self.service: WatchService | None = None
        self.board = Board()
        self._inbox: deque[object] = deque()
        self._tick = tick
        self.sel_path: str | None = None
        self.sel_page: int | None = None
        self.sel_block: int = -1
        self._stopped = threading.Event()

    # -- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield FilesTable(id="files")
                with Horizontal(id="detail"):
                    yield PagesTable(id="pages")
                    yield BlocksTable(id="blocks")
            with Vertical(id="right"):
                with TabbedContent(id="tabs"):
                    with TabPane("Markdown", id="tab-markdown"):
                        yield MarkdownPane(id="markdown-scroll")
                    with TabPane("Preview", id="tab-preview"):
                        yield PagePreview(id="preview")
                    with TabPane("Log", id="tab-log"):
                        yield Log(id="log", max_lines=2000)
                yield LivePane(id="live")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#files").border_title = "Files"
        self.query_one("#pages").border_title = "Pages"
        self.query_one("#blocks").border_title = "Blocks"
        self.query_one("#live").border_title = "Live"
        self._draw_header()
        self._draw_live()
        self.query_one(MarkdownPane).show(None, "_Files dropped into the watched folder "
                                                "appear on the left; select one to see its "
                                                "Markdown._", 0)
        self.set_interval(self._tick, self.drain)
        if self.config is not None:
            self.service = WatchService(self.config, self.feed)
            self.run_worker(self._start_service, thread=True, group="service",
                            description="Starting the watcher", exit_on_error=False)

    def _start_service(self) -> None:
        assert self.service is not None
        try:
            self.service.start()
        except WatchError as e:
            self.call_from_thread(self.exit, 1, message=f"error: {e}")

    # -- events in -----------------------------------------------------------------------------
    def feed(self, event: object) -> None:
        """The listener: any thread may call it; nothing is drawn until the next tick."""
        self._inbox.append(event)

    def drain(self) -> Changes:
        """Fold every waiting event into the board and redraw what changed."""
        batch = []
        while self._inbox:
            batch.append(self._inbox.popleft())
        if not batch:
            return Changes()
        ch = self.board.apply(batch)
        try:
            self._redraw(ch)
        except NoMatches:  # the app is closing: its panes are already gone
            pass
        return ch

    def _redraw(self, ch: Changes) -> None:
        files = self.query_one(FilesTable)
        first = files.row_count == 0
        for path in [p for p in self.board.files if p in ch.files]:  # arrival order
            files.show(self.board.files[path])
        if first and files.row_count:
            files.move_cursor(row=0)
            self._select_file(files.selected_key())
        if self.sel_path in ch.files or self.sel_path in ch.pages:
            self._draw_pages()
            if self.sel_path in ch.files and self.sel_path not in ch.markdown:
                row = self.board.files[self.sel_path]
                if row.status not in ("reading",):
                    self._draw_markdown()
        if self.sel_path in ch.markdown:
            pane = self.query_one(MarkdownPane)
            row = self.board.files[self.sel_path]
            parts = ch.markdown[self.sel_path]
            if pane.path == self.sel_path and pane.pages_shown + len(parts) == len(
                    [p for p in row.pages.values() if p.status == "done"]) and parts:
                pane.append_pages(parts)
            else:
                self._draw_markdown()
        if ch.live:
            self._draw_live()
        if ch.header:
            self._draw_header()
        log = self.query_one(Log)
        for level, line in ch.log:
            log.write_line(f"{_LEVEL.get(level, '')}{shown(line)}")
        for level, text in ch.notices:
            self.notify(shown(text), timeout=8,
                        severity=level if level in ("warning", "error") else "information")

    # -- drawing -------------------------------------------------------------------------------
    def _draw_header(self) -> None:
        b = self.board
        counts = b.counts()
        parts = []
        if b.root:
            parts.append(f"{_short(b.root)} → {_short(b.output_dir)}")
        if b.mode == "polling":
            parts.append("polling")
        parts.append(f"engine {b.engine}" + (f" · model {b.model}" if b.model else ""))
        waiting = counts.get("queued", 0) + counts.get("reading", 0)
        if waiting:
            parts.append(f"{waiting} to read")
        if b.paused:
            parts.append("PAUSED")
        self.sub_title = shown(" · ".join(parts))

    def _draw_live(self) -> None:
        b = self.board
        self.query_one(LivePane).show(b.live, b.engine, b.model, b.engine_loaded)

    def _row(self) -> FileRow | None:
        return self.board.files.get(self.sel_path) if self.sel_path else None

    def _draw_pages(self) -> None:
        row = self._row()
        pages = [p for _, p in sorted(row.pages.items())] if row else []
        self.query_one(PagesTable).show(pages)
        self._draw_blocks()

    def _draw_blocks(self) -> None:
        row = self._row()
        page = row.pages.get(self.sel_page) if row and self.sel_page is not None else None
        if page is None and row and row.pages:
            page = row.pages[min(row.pages)]
        self.query_one(BlocksTable).show(page)
        self.query_one(PagePreview).show(page, self.sel_block)

    def _draw_markdown(self) -> None:
        pane = self.query_one(MarkdownPane)
        row = self._row()
        if row is None:
            pane.show(None, "", 0)
            return
        done = [p for _, p in sorted(row.pages.items()) if p.status == "done"]
        text = row.markdown()
        if not text and row.status == "done" and row.output:
            text = _read_md(row.output)
        if not text:
            text = _placeholder(row, hint_for(self.config.engine if self.config else None))
        pane.show(row.path, text, len(done))

    # -- selection -----------------------------------------------------------------------------
    def _select_file(self, path: str | None) -> None:
        if path == self.sel_path:
            return
        self.sel_path, self.sel_page, self.sel_block = path, None, -1
        self._draw_pages()
        self._draw_markdown()

    # Highlight messages can still arrive while the app closes (its panes gone): ignored.
    @on(DataTable.RowHighlighted, "#files")
    def _file_highlighted(self, message: DataTable.RowHighlighted) -> None:
        with suppress(NoMatches):
            self._select_file(message.row_key.value)

    @on(DataTable.RowHighlighted, "#pages")
    def _page_highlighted(self, message: DataTable.RowHighlighted) -> None:
        page = int(message.row_key.value)
        if page != self.sel_page:
            self.sel_page, self.sel_block = page, -1
            with suppress(NoMatches):
                self._draw_blocks()

    @on(DataTable.RowHighlighted, "#blocks")
    def _block_highlighted(self, message: DataTable.RowHighlighted) -> None:
        self.sel_block = int(message.row_key.value)
        row = self._row()
        page = row.pages.get(self.sel_page if self.sel_page is not None else min(row.pages)) \
            if row and row.pages else None
        with suppress(NoMatches):
            self.query_one(PagePreview).show(page, self.sel_block)

    @on(DataTable.RowSelected, "#files")
    def _file_opened(self) -> None:
        self.query_one(PagesTable).focus()

    @on(DataTable.RowSelected, "#pages")
    def _page_opened(self) -> None:
        self.query_one(BlocksTable).focus()

    @on(DataTable.RowSelected, "#blocks")
    def _block_opened(self) -> None:
        self.query_one(TabbedContent).active = "tab-preview"

    # -- actions -------------------------------------------------------------------------------
    def action_reread(self) -> None:
        """Read the selected file again, whatever the manifest says."""
        row = self._row()
        if row is None or self.service is None:
            self.notify("no file selected", severity="warning", timeout=3)
            return
        if row.status in ("queued", "reading"):
            self.notify(f"{shown(row.name)} is already {row.status}", timeout=3)
            return
        self.service.requeue(row.path)
        self.notify(f"reading {shown(row.name)} again", timeout=3)

    def action_pause(self) -> None:
        """Pause or resume the queue."""
        if self.service is not None:
            self.service.set_paused(not self.service.paused)

    def action_cancel(self) -> None:
        """Cancel the file being read (between tokens)."""
        if self.service is not None and self.service.cancel_current():
            self.notify("cancelling the file being read", timeout=3)
        else:
            self.notify("nothing is being read", timeout=3)

    def _output_target(self) -> tuple[str, str]:
        row = self._row()
        if row is not None and row.output:
            return row.output, f"Output folder of {row.name}"
        return self.board.output_dir or "", "Output folder"

    def action_output(self) -> None:
        """Show the output folder of the selected file (or the whole output folder)."""
        path, what = self._output_target()
        self.push_screen(OutputScreen(path, what))

    def action_copy_output(self) -> None:
        path, _ = self._output_target()
        self.copy_to_clipboard(path)
        self.notify(f"copied {shown(path)}", timeout=3)

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    async def action_quit(self) -> None:
        """Stop the service (cancelling the page being read), then exit."""
        self.notify("stopping…", timeout=5)
        await self.run_worker(self._stop_service, thread=True, group="service",
                              exit_on_error=False).wait()
        self.exit(0)

    def _stop_service(self) -> None:
        if self.service is not None and not self._stopped.is_set():
            self._stopped.set()
            self.service.stop()

    def on_unmount(self) -> None:
        self._stop_service()

    def get_system_commands(self, screen):
        yield from super().get_system_commands(screen)
        yield SystemCommand("Re-read the selected file", "Read it again (r)", self.action_reread)
        yield SystemCommand("Pause / resume the queue", "The file being read finishes (p)",
                            self.action_pause)
        yield SystemCommand("Cancel the file being read", "Stops between tokens (c)",
                            self.action_cancel)
        yield SystemCommand("Show the output folder", "Copy its path with y (o)",
                            self.action_output)
        yield SystemCommand("Keys", "All keys and statuses (?)", self.action_help)


_LEVEL = {"error": "error: ", "warning": "warning: ", "log": "· "}


def _short(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if home != "/" and path.startswith(home + os.sep) else path


def _read_md(output: str) -> str:
    md = Path(output) / f"{Path(output).name}.md"
    try:
        with open(md, encoding="utf-8", errors="replace") as f:
            return f.read(MD_FILE_LIMIT)
    except OSError:
        return ""


def _placeholder(row: FileRow, hint: str) -> str:
    """The Markdown pane of a file that has no Markdown (yet); ``hint`` is the watcher's
    advice for a file that needs the model (:func:`~mineru_tui.watch.service.hint_for`)."""
    reason = row.reason.removesuffix("; " + hint)  # the pane says what to do at length
    if row.status == ev.NEEDS_MODEL and hint == SERVER_HINT:
        return (f"## Server needed\n\n{reason}\n\nStart the server (or point `--server-url` "
                f"at one that runs), then press **r** on this file.")
    if row.status == ev.NEEDS_MODEL:
        return (f"## Model needed\n\n{reason}\n\nGet the model:\n\n"
                f"```sh\nhf download {DEFAULT_MODEL}\n```\n\n"
                f"then restart with `--model DIR` if it is not in the Hugging Face cache, and "
                f"press **r** on this file.")
    if row.status == ev.FAILED:
        return f"## Failed\n\n{row.reason}\n\n" + (f"_{row.note}_" if row.note else
                                                   "_It is read again when it changes, or "
                                                   "press **r**._")
    if row.status == ev.SKIPPED:
        return f"_Skipped: {row.reason}_"
    if row.status == ev.CANCELLED:
        return "_Cancelled. Press **r** to read it again._"
    if row.status == "queued":
        return "_Queued._"
    if row.status == "reading":
        return "_Reading…_"
    return "_(empty document)_"


def run_app(config: WatchConfig) -> int:
    """Run the app in this terminal; return the exit code (0 also after SIGTERM)."""
    import signal

    app = WatchApp(config)
    # SIGTERM (a service manager, `kill`) quits like q: the reader processes are stopped in
    # on_unmount and the terminal is restored. Ctrl-C is a key inside the app.
    old = signal.signal(signal.SIGTERM, lambda signum, frame: app.call_later(app.exit, 0))
    try:
        code = app.run()
    finally:
        signal.signal(signal.SIGTERM, old)
    return code if isinstance(code, int) else (app.return_code or 0)
