"""``mineru-tui watch DIR``: the app over the watch service.

The app reads no document itself. :class:`~mineru_tui.watch.service.WatchService` watches
the folder and reads files in reader processes; its events arrive here on any thread and are
put in an inbox (:meth:`WatchApp.feed`). Twenty times a second the app folds the inbox
into a :class:`~mineru_tui.tui.state.Board` and redraws only what changed, so a burst of
tokens costs one redraw, not one per token, and the UI stays responsive however fast the
reader streams. Two things are read in other threads, for display only: page images (the
Page tab; one renderer thread for the selected file, the newest page asked for wins, so a
held ``]`` never queues renders — :mod:`mineru_tui.pdf.previews`) and, after a restart, a
finished file's output set (its pages and blocks).

What is shown follows a selection — file, page, block — that the keys move from anywhere
(``[`` ``]`` pages, ``j`` ``k`` blocks) and that follow mode keeps on the page being read.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict, deque
from pathlib import Path

from textual import on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.widgets import (DataTable, Footer, Header, Input, Tab, TabbedContent,
                             TabPane, Tabs)

from mineru_tui.console import shown
from mineru_tui.engines.defaults import DEFAULT_MODEL
from mineru_tui.tui import settings
from mineru_tui.tui.find import block_with, matching_pages, next_match, page_number, snippet
from mineru_tui.tui.markdown_text import file_text, page_text
from mineru_tui.tui.page_image import page_previews
from mineru_tui.tui.restore import load_detail
from mineru_tui.tui.screens import HelpScreen, OutputScreen
from mineru_tui.tui.state import READING, Board, Changes, FileRow, PageRow
from mineru_tui.tui.toasts import SettleCount
from mineru_tui.tui.widgets.block_view import BlockView, printable
from mineru_tui.tui.widgets.live import LivePane
from mineru_tui.tui.widgets.log_pane import LogPane
from mineru_tui.tui.widgets.markdown_pane import MarkdownPane
from mineru_tui.tui.widgets.preview import PagePreview
from mineru_tui.tui.widgets.tables import BlocksTable, FilesTable, PagesTable
from mineru_tui.watch.service import WatchConfig, WatchError, WatchService, hint_for
from mineru_tui.watch.status import Status

TICK = 0.05  # seconds between redraws (events in between are coalesced)
IMAGES_KEPT = 12  # page images kept in memory (the pages around the one shown)
BOX_HINT = {
    "filter": "filter files by name or status (escape clears)",
    "find": "find in this file's pages (enter: next page with it, escape: done)",
    "goto": "go to page (a number, enter)",
}
TABS = {"1": "tab-markdown", "2": "tab-page", "3": "tab-block", "4": "tab-log"}
NARROW = 110  # columns below which the layout collapses (pages and blocks panes hidden)


class WatchApp(App[int]):
    """Files, pages and blocks on the left; the page's Markdown, image, block and log, and
    live decoding on the right. ``config=None`` runs without a service (events come only
    through :meth:`feed`); ``image_loader(path, kind, page)`` and ``detail_loader(path,
    output)`` replace page rendering and reading an output set (tests)."""

    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: subclasses live elsewhere
    TITLE = "mineru-tui watch"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW, "-wide")]
    BINDINGS = [
        Binding("left_square_bracket,pageup", "page(-1)", "Page", key_display="[ ]",
                priority=True, id="watch.prev_page"),
        Binding("right_square_bracket,pagedown", "page(1)", "Next page", show=False,
                priority=True, id="watch.next_page"),
        Binding("g,home", "page_to('first')", "First page", show=False, priority=True,
                id="watch.first_page"),
        Binding("G,end", "page_to('last')", "Last page", show=False, priority=True,
                id="watch.last_page"),
        # priority: handled in order with the digit keys (also priority) typed right after it
        Binding("colon", "goto", "Go to page", key_display=":", show=False, priority=True,
                id="watch.goto"),
        Binding("j", "block(1)", "Block", key_display="j k", priority=True, id="watch.next_block"),
        Binding("k", "block(-1)", "Previous block", show=False, priority=True,
                id="watch.prev_block"),
        # Help and Quit early: the footer cuts what does not fit at 80 columns, not these
        Binding("question_mark", "help", "Help", key_display="?", id="watch.help"),
        Binding("q", "quit", "Quit", id="watch.quit"),
        Binding("f", "follow", "Follow", id="watch.follow"),
        Binding("slash", "filter", "Filter", key_display="/", id="watch.filter"),
        Binding("1", "tab('1')", "Markdown", show=False, priority=True, id="watch.tab1"),
        Binding("2", "tab('2')", "Page", show=False, priority=True, id="watch.tab2"),
        Binding("3", "tab('3')", "Block", show=False, priority=True, id="watch.tab3"),
        Binding("4", "tab('4')", "Log", show=False, priority=True, id="watch.tab4"),
        Binding("z", "zoom", "Zoom", show=False, id="watch.zoom"),
        Binding("r", "reread", "Re-read", id="watch.reread"),
        Binding("p", "pause", "Pause", id="watch.pause"),
        Binding("l", "read_low", "Read at effort low", show=False, id="watch.read_low"),
        Binding("c", "cancel", "Cancel", show=False, id="watch.cancel"),
        Binding("o", "output", "Output", show=False, id="watch.output"),
        Binding("y", "copy_output", "Copy path", show=False, id="watch.copy"),
    ]

    def __init__(self, config: WatchConfig | None = None, *, tick: float = TICK,
                 image_loader=None, detail_loader=None, remember: bool | None = None,
                 graphics=None, clock=time.monotonic) -> None:
        super().__init__()
        self._clock = clock  # stamps each batch of events: the wall-time numbers (tests: fixed)
        self._settled = SettleCount()
        self.config = config
        self.service: WatchService | None = None
        self.board = Board()
        self._inbox: deque[object] = deque()
        self._tick = tick
        self.sel_path: str | None = None
        self.sel_page: int | None = None
        self.sel_block: int = -1
        self.follow = True
        self._detail_due = False  # a redraw of the selection is scheduled (keys coalesce)
        self._box_mode = ""  # what the / box does: filter (files) | find (text) | goto (page)
        self._stopped = threading.Event()
        self._load_image = image_loader  # None: page_previews' own (PDFium, image files)
        self._previews: tuple[str, object] | None = None  # the selected file's renderer
        self._ready_images: deque[tuple[tuple[str, int], object]] = deque()
        self._read_detail = detail_loader or load_detail
        self._graphics = graphics  # see mineru_tui.tui.graphics
        self._images: OrderedDict[tuple[str, int], object] = OrderedDict()
        # the theme is remembered for real runs only (tests and config=None touch no files)
        self._remember = config is not None if remember is None else remember
        if self._remember:
            theme = settings.load().get("theme")
            if isinstance(theme, str) and theme in self.available_themes:
                self.theme = theme

    # -- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield Tabs(Tab("Files", id="lt-files"), Tab("Pages", id="lt-pages"),
                           Tab("Blocks", id="lt-blocks"), id="left-tabs")
                yield Input(placeholder="filter files (escape clears)", id="filter")
                yield FilesTable(id="files")
                with Horizontal(id="detail"):
                    yield PagesTable(id="pages")
                    yield BlocksTable(id="blocks")
            with Vertical(id="right"):
                with TabbedContent(id="tabs"):
                    with TabPane("1 Markdown", id="tab-markdown"):
                        yield MarkdownPane(id="markdown-scroll")
                    with TabPane("2 Page", id="tab-page"):
                        yield PagePreview(self._graphics, id="preview")
                    with TabPane("3 Block", id="tab-block"):
                        yield BlockView(id="block")
                    with TabPane("4 Log", id="tab-log"):
                        yield LogPane(id="log", max_entries=2000)
                yield LivePane(id="live")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#files").border_title = "Files"
        self.query_one("#pages").border_title = "Pages"
        self.query_one("#blocks").border_title = "Blocks"
        self.query_one("#live").border_title = "Live"
        self.query_one(FilesTable).focus()
        self._draw_header()
        self._draw_live()
        self.query_one(MarkdownPane).show(None, "_Files dropped into the watched folder "
                                                "appear in the Files pane; select one to see its "
                                                "pages._")
        self.query_one(BlockView).show(None, None, None)
        self.query_one(PagePreview).show(None, None, None)
        self.set_interval(self._tick, self.drain)
        if self._remember:
            self.theme_changed_signal.subscribe(self, self._theme_changed)
        if self.config is not None:
            self.service = WatchService(self.config, self.feed)
            self.run_worker(self._start_service, thread=True, group="service",
                            description="Starting the watcher", exit_on_error=False)

    def _theme_changed(self, theme) -> None:
        settings.save({"theme": theme.name})

    def _start_service(self) -> None:
        assert self.service is not None
        try:
            self.service.start()
        except WatchError as e:
            self.call_from_thread(self.exit, 1, message=f"error: {e}")

    def on_resize(self) -> None:
        self._draw_header()

    @property
    def narrow(self) -> bool:
        return self.size.width < NARROW

    # -- events in -----------------------------------------------------------------------------
    def feed(self, event: object) -> None:
        """The listener: any thread may call it; nothing is drawn until the next tick."""
        self._inbox.append(event)

    def drain(self) -> Changes:
        """Fold every waiting event into the board and redraw what changed."""
        while self._ready_images:
            self._image_ready(*self._ready_images.popleft())
        batch = []
        while self._inbox:
            batch.append(self._inbox.popleft())
        if not batch:
            return Changes()
        ch = self.board.apply(batch, now=self._clock())
        try:
            self._redraw(ch)
        except NoMatches:  # the app is closing: its panes are already gone
            pass
        return ch

    def _redraw(self, ch: Changes) -> None:
        files = self.query_one(FilesTable)
        first = files.row_count == 0
        live = self.board.live
        for path in [p for p in self.board.files if p in ch.files]:  # arrival order
            files.show(self.board.files[path], live)
        if ch.live and live.path in self.board.files and live.path not in ch.files:
            files.show(self.board.files[live.path], live)  # its progress and time left
        moved = False
        if self.follow and (ch.started or ch.live) and self._follow_target():
            moved = self._follow_now()
        if not moved and first and files.row_count:
            self._select_file(files.selected_key())
        elif not moved and (self.sel_path in ch.files or self.sel_path in ch.pages
                            or self.sel_path in ch.markdown):
            self._draw_detail()
        if ch.live:
            self._draw_live()
        if ch.header:
            self._draw_header()
        log = self.query_one(LogPane)
        for level, line in ch.log:
            log.write_line(printable(f"{_LEVEL.get(level, '')}{line}").replace("\n", " "))
        for level, text in ch.notices + self._settled.toasts(self.board, ch.finished):
            self.notify(printable(text).replace("\n", " "),
                        severity=level if level in ("warning", "error") else "information",
                        timeout=8)

    # -- follow mode -----------------------------------------------------------------------------
    def _follow_target(self) -> str | None:
        live = self.board.live
        row = self.board.files.get(live.path) if live.path else None
        return live.path if row is not None and row.status == READING else None

    def _follow_now(self) -> bool:
        """Select the file, page and block being read; True when the selection moved."""
        target = self._follow_target()
        if target is None:
            return False
        live = self.board.live
        page = live.page if live.page >= 0 else None
        block = live.block if live.stage == "blocks" else -1
        if (target, page, block) == (self.sel_path, self.sel_page, self.sel_block):
            return False
        self.sel_path, self.sel_page, self.sel_block = target, page, block
        self.query_one(FilesTable).select_key(target)
        self._draw_detail()
        return True

    def _set_follow(self, on: bool) -> None:
        if on != self.follow:
            self.follow = on
            self._draw_header()
            if on:
                self._follow_now()
                self.notify("follow: on (the file being read is shown as it is read)", timeout=3)

    # -- drawing -------------------------------------------------------------------------------
    def _draw_header(self) -> None:
        b = self.board
        counts = b.counts()
        parts = []
        if b.root:  # the folders stay at any width (shortened in the middle)
            room = max(12, (self.size.width - 40) // 2) if self.narrow else self.size.width
            parts.append(f"{_short(b.root, room)} → {_short(b.output_dir, room)}")
        if b.mode == "polling":
            parts.append("polling")
        if not self.narrow:  # below 110 columns the folders matter more than the model
            parts.append("no model runs at effort low" if b.model_free
                         else f"{b.engine} · {b.model or DEFAULT_MODEL + ' (default)'}")
        waiting = counts.get("queued", 0) + counts.get("reading", 0)
        if waiting:
            parts.append(f"{waiting} to read")
        if b.paused:
            parts.append("PAUSED")
        if not self.follow:
            parts.append("follow off (f)")
        self.sub_title = printable(" · ".join(parts)).replace("\n", " ")

    def _draw_live(self) -> None:
        b = self.board
        row = b.files.get(b.live.path) if b.live.path else None
        self.query_one(FilesTable).write_per_page = b.write_per_page
        self.query_one(LivePane).show(b.live, b.engine, b.model or f"{DEFAULT_MODEL} (default)",
                                      b.engine_loaded, row, b.write_per_page)

    def _hint(self) -> str:
        return hint_for(self.config.engine if self.config else None)

    def _row(self) -> FileRow | None:
        return self.board.files.get(self.sel_path) if self.sel_path else None

    def _page(self) -> PageRow | None:
        row = self._row()
        if row is None or not row.pages:
            return None
        if self.sel_page is None or self.sel_page not in row.pages:
            self.sel_page = min(row.pages)
        return row.pages[self.sel_page]

    def _block(self, page: PageRow | None):
        if page is None:
            return None
        for b in page.blocks:
            if b.index == self.sel_block:
                return b
        return None

    def _draw_detail(self) -> None:
        """Pages, blocks, Markdown, page image and block of the selection."""
        row = self._row()
        if row is not None and row.detail == "pending":
            self._load_detail(row)
        page = self._page()
        pages = [p for _, p in sorted(row.pages.items())] if row else []
        self.query_one(PagesTable).show(pages, self.sel_page)
        self._draw_page(row, page)

    def _draw_page(self, row: FileRow | None, page: PageRow | None) -> None:
        self.query_one(BlocksTable).show(page, self.sel_block)
        image = self._image_for(row, page)
        self.query_one(PagePreview).show(row, page, image, self.sel_block)
        self.query_one(BlockView).show(page, self._block(page), image)
        self._draw_markdown(row, page)

    def _draw_markdown(self, row: FileRow | None, page: PageRow | None) -> None:
        pane = self.query_one(MarkdownPane)
        if row is None:
            pane.show(None, "", key=(None, None, 0))
            return
        restored = self.board.restored_markdown(row.path)
        head, text, key = (file_text(row, restored, self._hint()) if page is None
                           else page_text(row, page, restored, self._hint()))
        pane.show(row.path, text, head, key=key)

    # -- page images (one renderer thread per selected file, kept for a few pages) ------------
    def _image_for(self, row: FileRow | None, page: PageRow | None):
        if row is None or page is None or row.kind not in ("pdf", "image"):
            return None
        key = (row.path, page.index)
        if key in self._images:
            self._images.move_to_end(key)
            return self._images[key]
        self._previews_for(row).request(page.index)  # replaces a request not started yet
        return None

    def _previews_for(self, row: FileRow):
        """The renderer of the selected file (the previous file's is closed)."""
        if self._previews is not None and self._previews[0] == row.path:
            return self._previews[1]
        self._close_previews()
        path = row.path
        previews = page_previews(path, row.kind, lambda index, image: self._ready_images.append(
            ((path, index), image)), load=self._load_image, keep=IMAGES_KEPT // 2)
        self._previews = (path, previews)
        return previews

    def _close_previews(self, wait: float = 0.0) -> None:
        """Close the renderer after the render in progress (not on the UI thread); on quit
        ``wait`` for it, so its PDF is closed before the process ends (else PDFium's
        finaliser and the killed thread print to the restored terminal)."""
        if self._previews is not None:
            old, self._previews = self._previews[1], None
            closer = threading.Thread(target=old.close, name="close-previews", daemon=True)
            closer.start()
            if wait:
                closer.join(wait)

    def _image_ready(self, key: tuple[str, int], image) -> None:
        """A rendered page (from the renderer thread, through the next tick)."""
        self._images[key] = image
        while len(self._images) > IMAGES_KEPT:
            self._images.popitem(last=False)
        if (self.sel_path, self.sel_page) == key:
            with_suppress_nomatch(lambda: self._draw_page(self._row(), self._page()))

    # -- restart: a finished file's pages from its output set -----------------------------------
    def _load_detail(self, row: FileRow) -> None:
        row.detail = "loading"
        path, output = row.path, row.output
        self.run_worker(lambda: self.feed(self._read_detail(path, output)), thread=True,
                        group="detail", description="Reading an output set",
                        exit_on_error=False)

    # -- selection -----------------------------------------------------------------------------
    def select_file(self, path: str) -> None:
        """Select a file as the user would (follow mode goes off)."""
        self._set_follow(False)
        self.query_one(FilesTable).select_key(path)
        self._select_file(path)

    def _select_file(self, path: str | None) -> None:
        if path == self.sel_path:
            return
        self.sel_path, self.sel_page, self.sel_block = path, None, -1
        self._draw_detail()

    # Only a move in the focused table is the user's (the app refills tables as events
    # come); it turns follow mode off.
    @on(DataTable.RowHighlighted, "#files")
    def _file_highlighted(self, message: DataTable.RowHighlighted) -> None:
        if not _users(message):
            return
        path = message.row_key.value
        if path != self.sel_path:
            if self._follow_target() not in (None, path):
                self._set_follow(False)
            with_suppress_nomatch(lambda: self._select_file(path))

    @on(DataTable.RowHighlighted, "#pages")
    def _page_highlighted(self, message: DataTable.RowHighlighted) -> None:
        if not _users(message):
            return
        page = int(message.row_key.value)
        if page != self.sel_page:
            self._user_moved()
            self.sel_page, self.sel_block = page, -1
            with_suppress_nomatch(lambda: self._draw_page(self._row(), self._page()))

    @on(DataTable.RowHighlighted, "#blocks")
    def _block_highlighted(self, message: DataTable.RowHighlighted) -> None:
        if not _users(message):
            return
        block = int(message.row_key.value)
        if block != self.sel_block:
            self._user_moved()
            self.sel_block = block
            with_suppress_nomatch(lambda: self._draw_page(self._row(), self._page()))

    def _user_moved(self) -> None:
        if self.follow and self._follow_target() is not None:
            self._set_follow(False)

    @on(DataTable.RowSelected, "#files")
    def _file_opened(self) -> None:
        self._left_tab("pages")
        self.query_one(PagesTable).focus()

    @on(DataTable.RowSelected, "#pages")
    def _page_opened(self) -> None:
        self._left_tab("blocks")
        self.query_one(BlocksTable).focus()

    def _left_tab(self, name: str) -> None:
        """Below 110 columns: show Files, Pages or Blocks in the left pane."""
        self.query_one("#left-tabs", Tabs).active = f"lt-{name}"

    @on(Tabs.TabActivated, "#left-tabs")
    def _left_tab_shown(self, message: Tabs.TabActivated) -> None:
        name = (message.tab.id or "lt-files").removeprefix("lt-")
        left = self.query_one("#left")
        left.set_class(name == "pages", "-pages")
        left.set_class(name == "blocks", "-blocks")
        if self.narrow:
            table = {"files": FilesTable, "pages": PagesTable, "blocks": BlocksTable}[name]
            self.query_one(table).focus()

    @on(DataTable.RowSelected, "#blocks")
    def _block_opened(self) -> None:
        self.query_one(TabbedContent).active = "tab-block"

    # -- actions -------------------------------------------------------------------------------
    def check_action(self, action: str, parameters) -> bool | None:
        # typing in the filter: letters and digits are text, not keys
        if action in ("page", "page_to", "goto", "block", "tab", "follow", "zoom", "reread",
                      "pause", "cancel", "output", "copy_output", "quit", "filter", "read_low") \
                and isinstance(self.focused, Input):
            return False
        return True

    def action_page(self, step: int) -> None:
        """The previous / next page of the selected file (from anywhere)."""
        row = self._row()
        if row is None or not row.pages:
            return
        keys = sorted(row.pages)
        current = self.sel_page if self.sel_page in row.pages else keys[0]
        self._go_to_page(keys[max(0, min(len(keys) - 1, keys.index(current) + step))])

    def action_page_to(self, where: str) -> None:
        """The first or last page of the selected file (g / G, Home / End)."""
        row = self._row()
        if row is not None and row.pages:
            self._go_to_page(min(row.pages) if where == "first" else max(row.pages))

    def action_goto(self) -> None:
        """``:`` — type a page number, Enter goes there."""
        self._open_box("goto")

    def _go_to_page(self, page: int) -> None:
        """Select ``page``; the panes are redrawn once for a burst of keys (key repeat on
        ``]``): the latest page wins, the pages passed on the way are never drawn."""
        self._user_moved()
        if page != self.sel_page:
            self.sel_page, self.sel_block = page, -1
            self._draw_detail_soon()

    def _draw_detail_soon(self) -> None:
        if not self._detail_due:
            self._detail_due = True
            self.call_later(self._draw_detail_due)  # after the keys already waiting

    def _draw_detail_due(self) -> None:
        if self._detail_due:
            self._detail_due = False
            with_suppress_nomatch(self._draw_detail)

    def action_block(self, step: int) -> None:
        """The next / previous block of the page (from anywhere); past the last block of a
        page, the first of the next page."""
        row = self._row()
        page = self._page()
        if row is None or page is None:
            return
        self._user_moved()
        indices = [b.index for b in page.blocks]
        if self.sel_block in indices:
            i = indices.index(self.sel_block) + step
        else:
            i = 0 if step > 0 else len(indices) - 1
        if 0 <= i < len(indices):
            self.sel_block = indices[i]
            self._draw_detail()
            return
        keys = sorted(row.pages)
        j = keys.index(page.index) + (1 if i >= len(indices) else -1)
        if 0 <= j < len(keys):
            self.sel_page = keys[j]
            blocks = row.pages[keys[j]].blocks
            self.sel_block = (blocks[0].index if step > 0 else blocks[-1].index) if blocks else -1
            self._draw_detail()

    def action_tab(self, key: str) -> None:
        """Show a tab: 1 Markdown, 2 Page, 3 Block, 4 Log."""
        self.query_one(TabbedContent).active = TABS[key]

    def action_follow(self) -> None:
        """Follow mode on / off: the file, page and block being read are selected."""
        self._set_follow(not self.follow)
        if not self.follow:
            self.notify("follow: off (f turns it on)", timeout=3)

    def action_zoom(self) -> None:
        """The tabs pane alone on the screen (z again restores the layout)."""
        if self.screen.maximized is not None:
            self.screen.minimize()
        else:
            self.screen.maximize(self.query_one("#tabs"), container=False)
        self.call_after_refresh(self.query_one(PagePreview).refresh_preview)  # its new width

    def action_filter(self) -> None:
        """Filter the files by name or status (escape clears it); from the tabs pane, find
        text in the pages of the selected file instead."""
        tabs = self.query_one("#tabs")
        in_tabs = self.focused is not None and tabs in self.focused.ancestors_with_self
        self._open_box("find" if in_tabs else "filter")

    def _open_box(self, mode: str) -> None:
        box = self.query_one("#filter", Input)
        self._box_mode = mode
        box.placeholder = BOX_HINT[mode]
        box.border_title = ""
        self._before_filter = self.focused
        box.add_class("-shown")
        # shown and focused now, not after the next refresh: keys typed ahead (":150" and
        # Enter in one burst) are already queued behind this one and go where the focus is
        box.display = True
        self.screen.set_focus(box)

    def _find(self, query: str, after: int | None) -> None:
        """Enter in find: the next page with the whole query, its first block selected and
        the match shown highlighted; "no match" and no move when no page has it."""
        pages = matching_pages(self._row(), query)
        box = self.query_one("#filter", Input)
        target = next_match(pages, after)
        if target is None:
            box.border_title = "no match" if query else ""
            self.query_one(MarkdownPane).clear_highlight()  # the last match is not this query's
            return
        box.border_title = f"page {target + 1}: {pages.index(target) + 1} of {len(pages)} pages"
        self._user_moved()
        page = self._row().pages[target]
        self.sel_page, self.sel_block = target, block_with(page, query)
        self._draw_detail()
        self.query_one(MarkdownPane).highlight(snippet(page, query))

    @on(Input.Changed, "#filter")
    def _filter_changed(self, message: Input.Changed) -> None:
        value = message.value.strip()
        box = self.query_one("#filter", Input)
        if self._box_mode == "find":  # typing counts; it never moves the page
            n = len(matching_pages(self._row(), value))
            box.border_title = "" if not value else f"{n} pages have it (enter)" if n \
                else "no match"
            return
        if self._box_mode == "goto":
            return
        files = self.query_one(FilesTable)
        files.filter = value
        files.refill(list(self.board.files.values()), self.board.live)
        if files.row_count and files.selected_key() != self.sel_path:
            self._select_file(files.selected_key())  # the selected file is filtered out
        self.query_one("#files").border_title = (f"Files · {files.row_count} match "
                                                 f"“{files.filter}”" if files.filter else "Files")

    @on(Input.Submitted, "#filter")
    def _filter_done(self, message: Input.Submitted) -> None:
        if self._box_mode == "find":
            self._find(message.value.strip(), self.sel_page)
        elif self._box_mode == "goto":
            page = page_number(message.value, self._row())
            if page is None:
                self.query_one("#filter", Input).border_title = "no such page"
                return
            self._go_to_page(page)
            self._close_box()
        else:
            self.query_one(FilesTable).focus()

    def on_key(self, event) -> None:
        if event.key == "escape" and self.query_one("#filter", Input).has_class("-shown"):
            self._close_box()
            event.stop()
        elif event.key in ("escape", "backspace") and self.narrow \
                and not isinstance(self.focused, Input):  # below 110 columns: up a level
            up = {"lt-blocks": "pages", "lt-pages": "files"}.get(
                self.query_one("#left-tabs", Tabs).active)
            if up:
                self._left_tab(up)
                event.stop()

    def _close_box(self) -> None:
        box = self.query_one("#filter", Input)
        mode, box.border_title = self._box_mode, ""
        box.value = ""
        box.remove_class("-shown")
        box.display = False
        self._box_mode = ""
        before = getattr(self, "_before_filter", None)
        if mode != "filter" and before is not None and before.is_mounted:
            before.focus()
        else:
            self.query_one(FilesTable).focus()

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

    def action_read_low(self) -> None:
        """Read the selected PDF at effort low (its own text, no model), this once."""
        row = self._row()
        if row is None or self.service is None or row.kind != "pdf":
            self.notify("select a PDF to read its own text (effort low)", severity="warning",
                        timeout=3)
            return
        if row.status in (Status.QUEUED, Status.READING):
            self.notify(f"{shown(row.name)} is already {row.label}", timeout=3)
            return
        self.service.requeue(row.path, effort="low")
        self.notify(f"reading {shown(row.name)}'s own text (effort low)", timeout=3)

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
        self._close_previews(wait=5.0)
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
        yield SystemCommand("Follow mode on / off", "Show the page being read (f)",
                            self.action_follow)
        yield SystemCommand("Watch help", "Keys, tabs and statuses of this app (?)",
                            self.action_help)


def _users(message: DataTable.RowHighlighted) -> bool:
    """A highlight the user made: in the focused table, and still the row under the cursor
    (not a stale one from before the table was refilled)."""
    table = message.data_table
    return table.has_focus and message.cursor_row == table.cursor_row


def with_suppress_nomatch(fn) -> None:
    """Run a redraw; nothing when the app is closing (its panes already gone)."""
    try:
        fn()
    except NoMatches:
        pass


_LEVEL = {"error": "error: ", "warning": "warning: ", "log": "· "}


def _short(path: str, room: int = 60) -> str:
    """``~`` for the home folder, and a middle ellipsis past ``room`` characters:
    ``~/Documents/…/Scans``."""
    home = os.path.expanduser("~")
    if home != "/" and path.startswith(home + os.sep):
        path = "~" + path[len(home):]
    if len(path) <= room:
        return path
    keep = room - 1
    return path[:keep // 2] + "…" + path[len(path) - (keep - keep // 2):]


def run_app(config: WatchConfig) -> int:
    """Run the app in this terminal; return the exit code (0 also after SIGTERM)."""
    import signal

    from mineru_tui.tui.graphics import detect

    app = WatchApp(config, graphics=detect())  # before the app takes the terminal
    # SIGTERM (a service manager, `kill`) quits like q: the reader processes are stopped in
    # on_unmount and the terminal is restored. Ctrl-C is a key inside the app.
    old = signal.signal(signal.SIGTERM, lambda signum, frame: app.call_later(app.exit, 0))
    try:
        code = app.run()
    finally:
        signal.signal(signal.SIGTERM, old)
    return code if isinstance(code, int) else (app.return_code or 0)
