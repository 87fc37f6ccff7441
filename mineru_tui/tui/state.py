"""What the app shows, as plain data: the watch and job events folded into one board.

:class:`Board` knows nothing of Textual; the app applies a batch of events to it a few times
a second and redraws only what :meth:`Board.apply` says changed. Keeping the fold here makes
it testable without a terminal and keeps the widgets thin.

Nothing here reads a clock: every number on screen comes from the events (tok/s, stage
seconds, page seconds), so the same events always draw the same screen.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from mineru_tui import events as je
from mineru_tui.watch import events as ev

QUEUED, READING = "queued", "reading"
EMPTY = "empty"  # a page (or a whole file) that was read and gave no text: shown with why
PAGE_KINDS = ("pdf", "image")  # read by the model: the only files the live pane follows
STATUS_LABEL = {ev.NEEDS_MODEL: "model needed"}
FINISHED = (ev.DONE, ev.FAILED, ev.SKIPPED, ev.NEEDS_MODEL, ev.CANCELLED)


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
    reading: bool = False  # started, not done: the preview marks it


@dataclass
class PageRow:
    index: int
    status: str = READING  # reading | done | empty | failed | cancelled
    blocks: list[BlockRow] = field(default_factory=list)
    markdown: str = ""
    seconds: float = 0.0
    layout: bool = False  # the layout answer has landed (its boxes are known)
    warnings: list[str] = field(default_factory=list)
    markdown_known: bool = True  # False for a page rebuilt without its own Markdown

    @property
    def blocks_done(self) -> int:
        return sum(1 for b in self.blocks if b.done)

    @property
    def why_empty(self) -> str:
        """One line on why the page has no text (its warnings, else what is known)."""
        if self.warnings:
            return self.warnings[0]
        if self.layout and not self.blocks:
            return "the layout stage found no blocks on this page"
        return "no text was read from this page"


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
    warnings: list[str] = field(default_factory=list)
    # "" (read this session); after a restart: pending (read when first shown) | loading |
    # loaded | missing
    detail: str = ""

    @property
    def empty(self) -> bool:
        """Done, yet nothing was read from it (every page known is empty)."""
        if self.status != ev.DONE or not self.pages:
            return False
        return all(p.status == EMPTY for p in self.pages.values())

    @property
    def label(self) -> str:
        if self.empty:
            return "done, empty"
        if self.status == ev.DONE and (self.warnings or any(p.status == EMPTY
                                                            for p in self.pages.values())):
            return "done ⚠"
        return STATUS_LABEL.get(self.status, self.status)

    @property
    def pages_done(self) -> int:
        return sum(1 for p in self.pages.values() if p.status != READING)

    def markdown(self) -> str:
        """The Markdown read so far, pages in order."""
        return "\n\n".join(p.markdown for _, p in sorted(self.pages.items()) if p.markdown)

    def warning_line(self) -> str:
        """The first thing to say about a file that is done with warnings or empty pages."""
        if self.warnings:
            return self.warnings[0]
        empty = [p for _, p in sorted(self.pages.items()) if p.status == EMPTY]
        if empty:
            return f"page {empty[0].index + 1}: {empty[0].why_empty}"
        return ""

    def eta(self, live: Live | None = None) -> float | None:
        """Seconds left, from the pages finished so far (this file's, else the session's),
        counting the blocks already read on the page in progress. None when unknown."""
        if self.status != READING or not self.pages_total:
            return None
        times = [p.seconds for p in self.pages.values() if p.status != READING and p.seconds > 0]
        if times:
            per_page = sum(times) / len(times)
        elif live is not None and live.pages_done:
            per_page = live.page_seconds / live.pages_done
        else:
            return None
        left = self.pages_total - self.pages_done
        current = [p for p in self.pages.values() if p.status == READING]
        if current and current[0].blocks:
            left -= current[0].blocks_done / len(current[0].blocks)
        return max(0.0, per_page * left)


@dataclass
class Live:
    """The live decoding pane: the page and block being read and the counters."""

    path: str = ""
    page: int = -1
    pages_total: int = 0
    block: int = -1
    block_type: str = ""
    stage: str = ""  # vision | layout | blocks: what the engine is doing for this page
    text: str = ""
    rates: dict[int, float] = field(default_factory=dict)  # block -> tok/s, decoding now
    decode_tokens: int = 0  # from the engine's decode stages of the current page
    decode_s: float = 0.0
    vision_s: float = 0.0
    vision_tokens: int = 0
    prefill_s: float = 0.0
    prefill_tokens: int = 0
    tokens: int = 0  # tokens decoded in the current file
    blocks_done: int = 0  # of the current page
    blocks_total: int = 0
    pages_done: int = 0  # page-reader pages finished this session
    page_seconds: float = 0.0  # and the time they took
    finished: str = ""  # after the file ended: what became of it (the pane says so)

    @property
    def tok_s(self) -> float:
        """Tokens per second of decoding: the blocks decoding now (each event's rate is its
        block's tokens over its decode time), else the page's decode stages so far (decode
        tokens over decode seconds, as the engine timed them)."""
        if self.rates:
            return sum(self.rates.values())
        return self.decode_rate

    @property
    def decode_rate(self) -> float:
        return self.decode_tokens / self.decode_s if self.decode_s > 0 else 0.0

    @property
    def pages_per_min(self) -> float:
        return 60.0 * self.pages_done / self.page_seconds if self.page_seconds > 0 else 0.0


@dataclass
class Changes:
    """What one batch of events changed, so the app redraws only that."""

    files: set[str] = field(default_factory=set)  # paths whose row changed
    pages: set[str] = field(default_factory=set)  # paths whose pages/blocks changed
    markdown: dict[str, list[int]] = field(default_factory=dict)  # path -> pages finished
    live: bool = False
    header: bool = False
    started: list[str] = field(default_factory=list)  # page files that began (follow mode)
    log: list[tuple[str, str]] = field(default_factory=list)  # (level, line)
    notices: list[tuple[str, str]] = field(default_factory=list)  # (level, text) to pop up

    def __bool__(self) -> bool:
        return bool(self.files or self.pages or self.markdown or self.live or self.header
                    or self.started or self.log or self.notices)


@dataclass(frozen=True)
class DetailLoaded:
    """Pages of a finished file rebuilt from its output set (posted by the app's loader)."""

    path: str
    pages: tuple[PageRow, ...]
    markdown: str = ""  # the whole file's Markdown, when pages have none of their own
    warnings: tuple[str, ...] = ()


_PAGE_REF = re.compile(r"\bpages? (\d+(?:\s*[-,]\s*\d+)*)")


def pages_named(warning: str) -> set[int]:
    """The 1-based page numbers a warning names ("page 3: ...", "pages 2-4, 7 were ...")."""
    out: set[int] = set()
    for ref in _PAGE_REF.findall(warning):
        for part in ref.split(","):
            lo, _, hi = part.strip().partition("-")
            if lo.isdigit() and (not hi or hi.strip().isdigit()):
                a, b = int(lo), int(hi) if hi else int(lo)
                if b - a <= 10_000:
                    out.update(range(a, b + 1))
    return out


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
        self._restored_md: dict[str, str] = {}  # path -> whole Markdown of a rebuilt file

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

    def _apply(self, e: object, ch: Changes) -> None:  # noqa: C901 (one branch per event)
        if isinstance(e, ev.Watching):
            self.root, self.output_dir, self.mode = e.root, e.output_dir, e.mode
            self.engine, self.model = e.engine, e.model
            ch.header = ch.live = True
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
            row.warnings.clear()
            row.pages_total, row.detail = 0, ""
            ch.files.add(e.path)
            ch.pages.add(e.path)
            ch.header = True
        elif isinstance(e, je.FileStarted):
            row = self.row(e.path)
            row.status, row.kind, row.detail = READING, e.kind, ""
            row.pages.clear()
            row.warnings.clear()
            if e.kind in PAGE_KINDS:  # an Office file read meanwhile does not take the pane
                self.live = Live(path=e.path, pages_done=self.live.pages_done,
                                 page_seconds=self.live.page_seconds)
                ch.started.append(e.path)
            ch.files.add(e.path)
            ch.pages.add(e.path)
            ch.markdown.setdefault(e.path, [])
            ch.live = True
        elif isinstance(e, je.PageStarted):
            row = self.row(e.path)
            row.pages_total = e.pages
            row.pages[e.page] = PageRow(e.page)
            if e.path == self.live.path:
                live = self.live
                live.page, live.pages_total, live.block, live.block_type = e.page, e.pages, -1, ""
                live.stage, live.text = "vision", ""
                live.rates.clear()
                live.blocks_done = live.blocks_total = 0
                live.decode_tokens, live.decode_s = 0, 0.0
                live.vision_s = live.prefill_s = 0.0
                live.vision_tokens = live.prefill_tokens = 0
                ch.live = True
            ch.files.add(e.path)
            ch.pages.add(e.path)
        elif isinstance(e, je.EngineStage):
            if e.path == self.live.path:
                live = self.live
                if e.stage == "vision":
                    live.vision_s, live.vision_tokens = e.seconds, e.tokens
                elif e.stage == "prefill":
                    live.prefill_s, live.prefill_tokens = e.seconds, e.tokens
                elif e.stage == "decode":
                    live.decode_s += e.seconds
                    live.decode_tokens += e.tokens
                if live.stage == "vision" and e.stage in ("vision", "prefill"):
                    live.stage = "layout"  # the layout answer is decoded next
                ch.live = True
        elif isinstance(e, je.LayoutDone):
            page = self._page(e.path, e.page)
            page.blocks = [BlockRow(b.index, b.type, b.bbox, b.source) for b in e.blocks]
            page.layout = True
            if e.path == self.live.path:
                self.live.blocks_total = len(e.blocks)
                self.live.blocks_done = 0
                self.live.stage = "blocks"
                self.live.rates.pop(-1, None)
                ch.live = True
            ch.pages.add(e.path)
            ch.files.add(e.path)
        elif isinstance(e, je.BlockStarted):
            page = self._page(e.path, e.page)
            block = self._block(e.path, e.page, e.block)
            if block is None:
                block = BlockRow(e.block, e.type, (0.0, 0.0, 0.0, 0.0))
                page.blocks.append(block)
            block.reading = True
            if e.path == self.live.path:
                live = self.live
                live.page, live.block, live.block_type = e.page, e.block, e.type
                live.stage, live.text = "blocks", ""
                ch.live = True
            ch.pages.add(e.path)
        elif isinstance(e, je.BlockTokens):
            block = self._block(e.path, e.page, e.block)
            if block is not None:
                block.text += e.text_delta
            if e.path != self.live.path:
                return
            live = self.live
            if (e.page, e.block) != (live.page, live.block):
                live.page, live.block, live.text = e.page, e.block, ""
                live.block_type = "layout" if e.block < 0 else self._block_type(
                    e.path, e.page, e.block)
            if e.block < 0:
                live.stage = "layout"
            live.text += e.text_delta
            if e.tokens_per_s > 0:
                live.rates[e.block] = e.tokens_per_s
            live.tokens += 1
            ch.live = True
        elif isinstance(e, je.BlockDone):
            block = self._block(e.path, e.page, e.block)
            if block is not None:
                block.text, block.done, block.reading = e.text, True, False
                block.source, block.finish_reason = e.source, e.finish_reason
            if e.path == self.live.path:
                self.live.rates.pop(e.block, None)
                self.live.blocks_done += 1
                ch.live = True
            ch.pages.add(e.path)
            ch.files.add(e.path)
        elif isinstance(e, je.PageDone):
            row = self.row(e.path)
            row.pages_total = max(row.pages_total, e.pages)
            page = self._page(e.path, e.page)
            page.seconds = e.seconds
            if e.markdown is None:  # the reader was not asked for pages' Markdown
                page.markdown_known, page.status = False, "done"
            else:
                page.markdown = e.markdown
                page.status = "done" if e.markdown.strip() else EMPTY
            for b in page.blocks:
                b.reading = False
            if row.kind in PAGE_KINDS:
                self.live.pages_done += 1
                self.live.page_seconds += e.seconds
                if e.path == self.live.path:
                    self.live.rates.clear()
                ch.live = True
            ch.files.add(e.path)
            ch.pages.add(e.path)
            ch.markdown.setdefault(e.path, []).append(e.page)
        elif isinstance(e, je.FileDone):
            row = self.row(e.path)
            row.warnings = list(e.warnings)
            for w in e.warnings:  # "page 3: ..." goes to that page too
                for n in sorted(pages_named(w)):
                    page = row.pages.get(n - 1)
                    if page is not None and w not in page.warnings:
                        page.warnings.append(w)
                ch.log.append(("warning", f"{row.name}: {w}"))
            ch.files.add(e.path)
            ch.pages.add(e.path)
        elif isinstance(e, je.FileFailed):
            ch.log.append(("error", f"{self.name_of(e.path)}: {e.reason}"))
        elif isinstance(e, ev.FileFinished):
            self._finished(e, ch)
        elif isinstance(e, DetailLoaded):
            row = self.row(e.path)
            if row.pages or row.status != ev.DONE:  # read again meanwhile: events win
                row.detail = "loaded" if row.pages else row.detail
                return
            row.pages = {p.index: p for p in e.pages}
            row.pages_total = max(row.pages_total, len(e.pages))
            row.warnings = list(e.warnings) or row.warnings
            row.detail = "loaded" if e.pages else "missing"
            self._restored_md[e.path] = e.markdown
            ch.files.add(e.path)
            ch.pages.add(e.path)
            ch.markdown[e.path] = []

    def restored_markdown(self, path: str) -> str:
        """The whole Markdown of a file rebuilt from its output set ("" if none kept)."""
        return self._restored_md.get(path, "")

    def _finished(self, e: ev.FileFinished, ch: Changes) -> None:
        row = self.row(e.path)
        row.status, row.reason, row.note = e.status, e.reason, e.note
        row.kind = e.kind or row.kind
        row.output = e.output or row.output
        row.seconds = e.seconds
        if e.pages:
            row.pages_total = e.pages
        for page in row.pages.values():
            if page.status == READING:
                page.status = e.status if e.status != ev.DONE else EMPTY
        if e.path == self.live.path:
            self.live.rates.clear()
            self.live.finished = (f"{row.label}" + (f" in {e.seconds:.1f} s" if e.seconds else "")
                                  + (f": {e.reason}" if e.reason and e.reason != e.status
                                     else ""))
            ch.live = True
        if e.status == ev.DONE and not row.pages and row.output:
            row.detail = "pending"  # read in an earlier run: rebuilt from its output set
            # when it is first shown (a restart with 500 done files reads none of them)
        ch.files.add(e.path)
        ch.pages.add(e.path)
        ch.header = True
        if e.status == ev.DONE:
            warn = row.warning_line()
            ch.log.append(("warning" if warn else "information",
                           f"{row.name}: {row.label}" + (f" ({e.note})" if e.note else "")
                           + (f": {warn}" if warn else "")))
            if not e.note:  # a file read now, not one known from the manifest
                ch.notices.append(("warning", f"{row.name}: {row.label}: {warn}") if warn
                                  else ("information", f"{row.name}: done"
                                        + (f" ({row.pages_total} pages)"
                                           if row.pages_total > 1 else "")))
        elif e.status != ev.SKIPPED:
            level = "error" if e.status == ev.FAILED else "warning"
            ch.log.append((level, f"{row.name}: {row.label}: {e.reason}"))
            if not e.note and e.status != ev.CANCELLED:
                ch.notices.append((level, f"{row.name}: {row.label}: "
                                          f"{e.reason.split('; ')[0]}"))

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
