"""What the app shows, as plain data: the watch and job events folded into one board.

:class:`Board` knows nothing of Textual; the app applies a batch of events to it a few times
a second and redraws only what :meth:`Board.apply` says changed. Keeping the fold here makes
it testable without a terminal and keeps the widgets thin.

Nothing here reads a clock: every number on screen comes from the events (tok/s, stage
seconds, page seconds), so the same events always draw the same screen.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from mineru_tui import events as je
from mineru_tui.watch import events as ev

QUEUED, READING = "queued", "reading"
PAGE_KINDS = ("pdf", "image")  # read by the model: the only files the live pane follows
STATUS_LABEL = {ev.NEEDS_MODEL: "model needed"}


@dataclass
class BlockRow:
    """One layout block of a page, and its text as far as it is read."""

    index: int
    type: str
    bbox: tuple[float, float, float, float]
    source: str = "model"
    text: str = ""
    done: bool = False
    finish_reason: str = ""


@dataclass
class PageRow:
    index: int
    status: str = READING
    blocks: list[BlockRow] = field(default_factory=list)
    markdown: str = ""
    seconds: float = 0.0


@dataclass
class FileRow:
    """One file in the Files pane: its status and everything read from it so far."""

    path: str
    name: str  # relative to the watched folder
    status: str = QUEUED  # queued | reading | done | failed | skipped | needs-model | cancelled
    kind: str = ""
    lane: str = ""
    pages_total: int = 0
    pages: dict[int, PageRow] = field(default_factory=dict)
    seconds: float = 0.0
    reason: str = ""
    output: str = ""
    note: str = ""

    @property
    def label(self) -> str:
        return STATUS_LABEL.get(self.status, self.status)

    def markdown(self) -> str:
        """The Markdown read so far, pages in order."""
        return "\n\n".join(p.markdown for _, p in sorted(self.pages.items()) if p.markdown)


@dataclass
class Live:
    """The live decoding pane: the block being read and the counters."""

    path: str = ""
    page: int = -1
    block: int = -1
    block_type: str = ""
    text: str = ""
    tok_s: float = 0.0
    vision_s: float = 0.0
    vision_tokens: int = 0
    prefill_s: float = 0.0
    prefill_tokens: int = 0
    tokens: int = 0  # tokens decoded in the current file
    blocks_done: int = 0
    blocks_total: int = 0
    pages_done: int = 0  # page-reader pages finished this session
    page_seconds: float = 0.0  # and the time they took

    @property
    def pages_per_min(self) -> float:
        return 60.0 * self.pages_done / self.page_seconds if self.page_seconds > 0 else 0.0


@dataclass
class Changes:
    """What one batch of events changed, so the app redraws only that."""

    files: set[str] = field(default_factory=set)  # paths whose row changed
    pages: set[str] = field(default_factory=set)  # paths whose pages/blocks changed
    markdown: dict[str, list[str]] = field(default_factory=dict)  # path -> new page markdown
    live: bool = False
    header: bool = False
    log: list[tuple[str, str]] = field(default_factory=list)  # (level, line)
    notices: list[tuple[str, str]] = field(default_factory=list)  # (level, text) to pop up

    def __bool__(self) -> bool:
        return bool(self.files or self.pages or self.markdown or self.live or self.header
                    or self.log or self.notices)


class Board:
    """Every file the app knows, the live counters and the header facts."""

    def __init__(self) -> None:
        self.files: dict[str, FileRow] = {}
        self.live = Live()
        self.root = ""
        self.output_dir = ""
        self.mode = ""
        self.engine = "auto"
        self.model = ""
        self.engine_loaded = False
        self.paused = False

    def name_of(self, path: str) -> str:
        if self.root and path.startswith(self.root.rstrip(os.sep) + os.sep):
            return path[len(self.root.rstrip(os.sep)) + 1:]
        return path

    def row(self, path: str) -> FileRow:
        row = self.files.get(path)
        if row is None:
            row = self.files[path] = FileRow(path, self.name_of(path))
        return row

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for row in self.files.values():
            out[row.status] = out.get(row.status, 0) + 1
        return out

    def apply(self, events: list[object]) -> Changes:
        """Fold a batch of events in; say what changed."""
        ch = Changes()
        for event in events:
            self._apply(event, ch)
        return ch

    def _apply(self, e: object, ch: Changes) -> None:
        if isinstance(e, ev.Watching):
            self.root, self.output_dir, self.mode = e.root, e.output_dir, e.mode
            self.engine, self.model = e.engine, e.model
            ch.header = True
            ch.log.append(("information",
                           f"watching {e.root} ({e.mode} events); results in {e.output_dir}"))
        elif isinstance(e, ev.Notice):
            ch.log.append((e.level, e.text))
            if e.level in ("warning", "error"):
                ch.notices.append((e.level, e.text))
        elif isinstance(e, ev.EngineReady):
            self.engine, self.model, self.engine_loaded = e.name, e.model, True
            ch.header = ch.live = True
            ch.log.append(("information", f"engine {e.name}, model {e.model}: loaded"))
        elif isinstance(e, ev.PauseChanged):
            self.paused = e.paused
            ch.header = True
        elif isinstance(e, ev.FileQueued):
            row = self.row(e.path)
            row.status, row.lane, row.reason, row.note = QUEUED, e.lane, "", ""
            row.pages.clear()
            row.pages_total = 0
            ch.files.add(e.path)
            ch.pages.add(e.path)
            ch.header = True
        elif isinstance(e, je.FileStarted):
            row = self.row(e.path)
            row.status, row.kind = READING, e.kind
            row.pages.clear()
            if e.kind in PAGE_KINDS:  # an Office file read meanwhile does not take the pane
                self.live = Live(path=e.path, pages_done=self.live.pages_done,
                                 page_seconds=self.live.page_seconds)
            ch.files.add(e.path)
            ch.pages.add(e.path)
            ch.markdown.setdefault(e.path, [])
            ch.live = True
        elif isinstance(e, je.PageStarted):
            row = self.row(e.path)
            row.pages_total = e.pages
            row.pages[e.page] = PageRow(e.page)
            self.live.page = e.page
            ch.files.add(e.path)
            ch.pages.add(e.path)
            ch.live = True
        elif isinstance(e, je.EngineStage):
            if e.stage == "vision":
                self.live.vision_s, self.live.vision_tokens = e.seconds, e.tokens
            elif e.stage == "prefill":
                self.live.prefill_s, self.live.prefill_tokens = e.seconds, e.tokens
            ch.live = True
        elif isinstance(e, je.LayoutDone):
            page = self._page(e.path, e.page)
            page.blocks = [BlockRow(b.index, b.type, b.bbox, b.source) for b in e.blocks]
            self.live.blocks_total += len(e.blocks)
            ch.pages.add(e.path)
            ch.live = True
        elif isinstance(e, je.BlockStarted):
            page = self._page(e.path, e.page)
            if e.block not in {b.index for b in page.blocks}:
                page.blocks.append(BlockRow(e.block, e.type, (0.0, 0.0, 0.0, 0.0)))
            self.live.page, self.live.block, self.live.block_type = e.page, e.block, e.type
            self.live.text = ""
            ch.live = True
        elif isinstance(e, je.BlockTokens):
            live = self.live
            if (e.page, e.block) != (live.page, live.block):
                live.page, live.block, live.text = e.page, e.block, ""
                live.block_type = "layout" if e.block < 0 else self._block_type(e.path, e.page,
                                                                                e.block)
            live.text += e.text_delta
            live.tok_s = e.tokens_per_s
            live.tokens += 1
            block = self._block(e.path, e.page, e.block)
            if block is not None:
                block.text += e.text_delta
            ch.live = True
        elif isinstance(e, je.BlockDone):
            block = self._block(e.path, e.page, e.block)
            if block is not None:
                block.text, block.done = e.text, True
                block.source, block.finish_reason = e.source, e.finish_reason
            self.live.blocks_done += 1
            ch.pages.add(e.path)
            ch.live = True
        elif isinstance(e, je.PageDone):
            row = self.row(e.path)
            row.pages_total = max(row.pages_total, e.pages)
            page = self._page(e.path, e.page)
            page.status, page.markdown, page.seconds = "done", e.markdown, e.seconds
            if row.kind in PAGE_KINDS:
                self.live.pages_done += 1
                self.live.page_seconds += e.seconds
                ch.live = True
            ch.files.add(e.path)
            ch.pages.add(e.path)
            ch.markdown.setdefault(e.path, []).append(e.markdown)
        elif isinstance(e, je.FileFailed):
            ch.log.append(("error", f"{self.name_of(e.path)}: {e.reason}"))
        elif isinstance(e, ev.FileFinished):
            row = self.row(e.path)
            row.status, row.reason, row.note = e.status, e.reason, e.note
            row.kind = e.kind or row.kind
            row.output = e.output or row.output
            row.seconds = e.seconds
            if e.pages:
                row.pages_total = e.pages
            for page in row.pages.values():
                if page.status == READING:
                    page.status = e.status
            ch.files.add(e.path)
            ch.pages.add(e.path)
            ch.header = True
            if e.status == ev.DONE:
                ch.log.append(("information", f"{row.name}: done"
                                              + (f" ({e.note})" if e.note else "")))
            elif e.status != ev.SKIPPED:
                ch.log.append(("error" if e.status == ev.FAILED else "warning",
                               f"{row.name}: {row.label}: {e.reason}"))

    def _page(self, path: str, index: int) -> PageRow:
        row = self.row(path)
        page = row.pages.get(index)
        if page is None:
            page = row.pages[index] = PageRow(index)
        return page

    def _block(self, path: str, page: int, block: int) -> BlockRow | None:
        if block < 0:
            return None
        for b in self._page(path, page).blocks:
            if b.index == block:
                return b
        return None

    def _block_type(self, path: str, page: int, block: int) -> str:
        b = self._block(path, page, block)
        return b.type if b else ""
