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
from mineru_tui.watch.status import Status

QUEUED, READING, EMPTY = Status.QUEUED, Status.READING, Status.EMPTY
PAGE_KINDS = ("pdf", "image")  # read page by page: the only files the live pane follows
RATE_PAGES = 20  # the time left uses the wall time of the last 20 pages (the rate drifts)


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
    status: Status = READING  # reading | done | empty | failed | cancelled
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
    def blocks_to_read(self) -> int:
        """Blocks the reader reads (pictures it does not read are left out of the counts)."""
        return sum(1 for b in self.blocks if b.source != "none")

    def finish(self, markdown: str | None, seconds: float) -> None:
        """The page ended (``markdown`` None: the reader was not asked for it)."""
        self.seconds = seconds
        if markdown is None:
            self.markdown_known, self.status = False, Status.DONE
        else:
            self.markdown = markdown
            self.status = Status.DONE if markdown.strip() else EMPTY
        for b in self.blocks:
            b.reading = False

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
    status: Status = QUEUED
    kind: str = ""
    lane: str = ""
    pages_total: int = 0
    pages: dict[int, PageRow] = field(default_factory=dict)
    seconds: float = 0.0
    reason: str = ""
    hint: str = ""  # what to do about it (model needed: how to get the model)
    output: str = ""
    note: str = ""
    warnings: list[str] = field(default_factory=list)
    began: float | None = None  # the app's clock at its first page, and at its last page done
    last_page_at: float | None = None
    page_times: list[float] = field(default_factory=list)  # the clock at each page done
    read_seconds: float = 0.0  # the reader's time (FileDone); `seconds` adds the writing
    writing: bool = False  # the output set is being written
    effort: str = ""  # the effort it is read at, when the watcher said (l: low this once)
    resume_at: int = 0  # pages before it were kept from an earlier run's journal

    @property
    def model_free(self) -> bool:
        """Read at effort low: the PDF's own text, no model."""
        return self.effort == "low"
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
        return Status(self.status).label

    def reset(self, status: Status) -> None:
        """Queued or started again: what an earlier reading showed is dropped."""
        self.status, self.reason, self.hint, self.note, self.detail = status, "", "", "", ""
        self.pages.clear()
        self.warnings.clear()
        self.began = self.last_page_at = None
        self.page_times = []
        self.writing, self.read_seconds = False, 0.0
        self.resume_at = 0
        if status == QUEUED:
            self.pages_total = 0

    def finish(self, e: ev.FileFinished) -> None:
        """The watcher's verdict (pages still marked reading end with it)."""
        self.status, self.reason, self.hint, self.note = e.status, e.reason, e.hint, e.note
        self.kind = e.kind or self.kind
        self.output = e.output or self.output
        self.seconds, self.writing = e.seconds, False
        if e.pages:
            self.pages_total = e.pages
        for page in self.pages.values():
            if page.status == READING:
                page.status = e.status if e.status != Status.DONE else EMPTY
        if e.status == Status.DONE and not self.pages and self.output:
            self.detail = "pending"  # read in an earlier run: rebuilt from its output set
            # when it is first shown (a restart with 500 done files reads none of them)

    def outcome(self) -> str:
        """What became of it, in one line: "done in 3.2 s (read 2.9 s, written 0.3 s)"."""
        out = self.label
        if self.seconds:
            out += f" in {self.seconds:.1f} s"
            if self.read_seconds and self.seconds > self.read_seconds:
                out += (f" (read {self.read_seconds:.1f} s, output written "
                        f"{self.seconds - self.read_seconds:.1f} s)")
        if self.reason and self.reason != self.status:
            out += f": {_unsaid(self.reason, self.label)}"
        return out

    @property
    def pages_done(self) -> int:
        """Pages finished, the pages kept from a journal counted from the start (they are
        replayed, not read again, so the bar starts where reading resumes)."""
        done = {i for i, p in self.pages.items() if p.status != READING}
        return len(done | set(range(min(self.resume_at, self.pages_total or self.resume_at))))

    @property
    def pages_read(self) -> int:
        """Pages finished by reading in this run (kept pages left out): the rate's pages."""
        return sum(1 for i, p in self.pages.items() if p.status != READING and i >= self.resume_at)

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

    def per_page(self, live: Live | None = None, recent: bool = False) -> float | None:
        """Seconds a page takes here: this file's wall time over its pages done (the pages of
        this effort, setup left out; ``recent``: over its last RATE_PAGES pages), else its
        pages' own times, else the session's."""
        done, times = self.pages_read, self.page_times
        if recent and len(times) > RATE_PAGES and times[-1] > times[-1 - RATE_PAGES]:
            return (times[-1] - times[-1 - RATE_PAGES]) / RATE_PAGES
        if done and self.began is not None and self.last_page_at is not None \
                and self.last_page_at > self.began:
            return (self.last_page_at - self.began) / done
        times = [p.seconds for p in self.pages.values() if p.status != READING and p.seconds > 0]
        if times:
            return sum(times) / len(times)
        if live is not None and live.pages_done:
            return live.page_seconds / live.pages_done
        return None

    def pages_per_min(self, live: Live | None = None) -> float:
        per_page = self.per_page(live)
        return 60.0 / per_page if per_page else 0.0

    def eta(self, live: Live | None = None, write_per_page: float | None = None) -> float | None:
        """Seconds left: the pages left at this file's page rate (the blocks already read on
        the page in progress counted), plus writing the output set at the rate measured on
        an earlier file of the session. None when unknown."""
        if self.status != READING or not self.pages_total:
            return None
        writing = (write_per_page or 0.0) * self.pages_total
        if self.writing:
            return writing if write_per_page is not None else None
        per_page = self.per_page(live, recent=True)  # the rate drifts over a long file
        if per_page is None:
            return None
        left = self.pages_total - self.pages_done
        current = [p for p in self.pages.values() if p.status == READING]
        if current and current[0].blocks_to_read:
            left -= min(1.0, current[0].blocks_done / current[0].blocks_to_read)
        return max(0.0, per_page * left) + writing


@dataclass
class Live:
    """The live decoding pane: the page and block being read and the counters.

    Its methods fold the events of the file it follows; the board calls them only after
    :meth:`follows` said the event is about that file.
    """

    path: str = ""
    page: int = -1
    pages_total: int = 0
    block: int = -1
    types: dict[int, str] = field(default_factory=dict)  # block -> its type
    stage: str = ""  # a key of STAGES: what runs for this page now
    texts: dict[int, str] = field(default_factory=dict)  # block -> its text so far (-1: layout)
    rates: dict[int, float] = field(default_factory=dict)  # block -> tok/s, decoding now
    decoding: set[int] = field(default_factory=set)  # blocks started and not done
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
    model_free: bool = False  # effort low: no model runs, the PDF's own text is read
    finished: str = ""  # after the file ended: what became of it (the pane says so)

    def follows(self, path: str) -> bool:
        """Whether events about ``path`` move this pane (it follows one page file)."""
        return bool(path) and path == self.path

    @property
    def block_type(self) -> str:
        return "layout" if self.block < 0 else self.types.get(self.block, "")

    @property
    def text(self) -> str:
        """The text of the block shown (the one followed, not whichever sent a token last)."""
        return self.texts.get(self.block, "")

    @property
    def tok_s(self) -> float:
        """Tokens per second of decoding: the blocks decoding now (each event's rate is its
        block's decode rate over the reader's sliding window), else the page's decode stages
        so far (decode tokens over decode seconds, as the engine timed them)."""
        if self.rates:
            return sum(self.rates.values())
        return self.decode_rate

    @property
    def decode_rate(self) -> float:
        return self.decode_tokens / self.decode_s if self.decode_s > 0 else 0.0

    def page_started(self, e: je.PageStarted) -> None:
        self.page, self.pages_total, self.block = e.page, e.pages, -1
        self.stage = "text" if self.model_free else "vision"
        self.texts.clear()
        self.types.clear()
        self.rates.clear()
        self.decoding.clear()
        self.blocks_done = self.blocks_total = 0
        self.decode_tokens, self.decode_s = 0, 0.0
        self.vision_s = self.prefill_s = 0.0
        self.vision_tokens = self.prefill_tokens = 0

    def stage_done(self, e: je.EngineStage) -> None:
        if e.stage == "vision":
            self.vision_s, self.vision_tokens = e.seconds, e.tokens
        elif e.stage == "prefill":
            self.prefill_s, self.prefill_tokens = e.seconds, e.tokens
        elif e.stage == "decode":
            self.decode_s += e.seconds
            self.decode_tokens += e.tokens
        if self.stage == "vision" and e.stage in ("vision", "prefill"):
            self.stage = "layout"  # the layout answer is decoded next

    def layout_done(self, blocks: int) -> None:
        self.blocks_total, self.blocks_done = blocks, 0
        self.stage = "text" if self.model_free else "blocks"
        self.rates.pop(-1, None)

    def block_started(self, e: je.BlockStarted) -> None:
        self.page, self.stage, self.types[e.block] = e.page, "blocks", e.type
        if self.block < 0 or self.block not in self.decoding:  # keep the block being shown
            self.block = e.block
        self.decoding.add(e.block)
        self.texts.setdefault(e.block, "")

    def token(self, e: je.BlockTokens, block_type: str) -> None:
        if e.page != self.page:
            self.page, self.texts = e.page, {}
        if e.block < 0:
            self.stage, self.block = "layout", -1
        else:
            self.types.setdefault(e.block, block_type)
            if self.block < 0 or self.block not in self.decoding:
                self.block = e.block  # the block shown ended: show this one
            self.decoding.add(e.block)
        self.texts[e.block] = self.texts.get(e.block, "") + e.text_delta
        if e.tokens_per_s > 0:
            self.rates[e.block] = e.tokens_per_s
        self.tokens += 1

    def block_done(self, block: int) -> None:
        self.rates.pop(block, None)
        self.decoding.discard(block)
        self.blocks_done += 1
        if block == self.block and self.decoding:  # on to a block still decoding
            self.block = min(self.decoding)

    def page_done(self) -> None:
        self.rates.clear()
        self.decoding.clear()


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
    finished: list[ev.FileFinished] = field(default_factory=list)  # verdicts (for toasts)

    def touch(self, path: str) -> None:
        """The file's row and its pages must be redrawn."""
        self.files.add(path)
        self.pages.add(path)

    def __bool__(self) -> bool:
        return bool(self.files or self.pages or self.markdown or self.live or self.header
                    or self.started or self.log or self.notices or self.finished)


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
    """Every file the app knows, the live counters and the header facts.

    :meth:`apply` hands each event to the one handler of its type (``HANDLERS``); a handler
    changes the board and marks in ``Changes`` what to redraw. ``now`` (the app's clock when
    the batch arrived) gives the wall-time numbers: pages/min and the time left.
    """

    def __init__(self) -> None:
        self.files: dict[str, FileRow] = {}
        self.live = Live()
        self.root = ""
        self.output_dir = ""
        self.mode = ""
        self.engine = "auto"
        self.model = ""
        self.effort = ""
        self.engine_loaded = False
        self.paused = False
        self.write_per_page: float | None = None  # after the last page (finishing, writing), a page
        self._restored_md: dict[str, str] = {}  # path -> whole Markdown of a rebuilt file
        self._now: float | None = None

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

    @property
    def model_free(self) -> bool:
        """Effort low: pages are read from the PDF's own text, no model runs."""
        return self.effort == "low"

    def apply(self, events: list[object], now: float | None = None) -> Changes:
        """Fold a batch of events in (arrived at ``now``, seconds of any monotonic clock);
        say what changed."""
        ch = Changes()
        self._now = now
        for event in events:
            handler = HANDLERS.get(type(event))
            if handler is not None:
                handler(self, event, ch)
        return ch

    def restored_markdown(self, path: str) -> str:
        """The whole Markdown of a file rebuilt from its output set ("" if none kept)."""
        return self._restored_md.get(path, "")

    # -- the service's events ---------------------------------------------------------------
    def _watching(self, e: ev.Watching, ch: Changes) -> None:
        self.root, self.output_dir, self.mode = e.root, e.output_dir, e.mode
        self.engine, self.model, self.effort = e.engine, e.model, e.effort
        if not self.live.path:  # idle: the pane says no model will load at effort low
            self.live.model_free = self.model_free
        ch.header = ch.live = True
        ch.log.append(("information", f"watching {e.root} ({e.mode} events); "
                                      f"results in {e.output_dir}"))

    def _notice(self, e: ev.Notice, ch: Changes) -> None:
        ch.log.append((e.level, e.text))
        if e.level in ("warning", "error"):
            ch.notices.append((e.level, e.text))

    def _engine_ready(self, e: ev.EngineReady, ch: Changes) -> None:
        self.engine, self.model, self.engine_loaded = e.name, e.model, True
        ch.header = ch.live = True
        ch.log.append(("information", f"engine {e.name}, model {e.model}: loaded"))

    def _pause_changed(self, e: ev.PauseChanged, ch: Changes) -> None:
        self.paused = e.paused
        ch.header = True

    def _queued(self, e: ev.FileQueued, ch: Changes) -> None:
        row = self.row(e.path)
        row.reset(Status.QUEUED)
        row.lane, row.effort = e.lane, e.effort
        ch.touch(e.path)
        ch.header = True

    # -- the reader's job events ----------------------------------------------------------------
    def _file_started(self, e: je.FileStarted, ch: Changes) -> None:
        row = self.row(e.path)
        row.reset(Status.READING)
        row.kind = e.kind
        if e.kind in PAGE_KINDS:  # an Office file read meanwhile does not take the pane
            self.live = Live(path=e.path, pages_done=self.live.pages_done,
                             page_seconds=self.live.page_seconds,
                             model_free=(row.effort or self.effort) == "low")
            ch.started.append(e.path)
        ch.touch(e.path)
        ch.markdown.setdefault(e.path, [])
        ch.live = True

    def _page_started(self, e: je.PageStarted, ch: Changes) -> None:
        row = self.row(e.path)
        row.pages_total = e.pages
        row.pages[e.page] = PageRow(e.page)
        if row.began is None and e.page >= row.resume_at:  # a kept page is not read
            row.began = self._now
        if self.live.follows(e.path):
            self.live.page_started(e)
            ch.live = True
        ch.touch(e.path)

    def _engine_stage(self, e: je.EngineStage, ch: Changes) -> None:
        if self.live.follows(e.path):
            self.live.stage_done(e)
            ch.live = True

    def _layout_done(self, e: je.LayoutDone, ch: Changes) -> None:
        page = self._page(e.path, e.page)
        page.blocks = [BlockRow(b.index, b.type, b.bbox, b.source) for b in e.blocks]
        page.layout = True
        if self.live.follows(e.path):
            self.live.layout_done(sum(1 for b in e.blocks if b.source != "none"))
            ch.live = True
        ch.touch(e.path)

    def _block_started(self, e: je.BlockStarted, ch: Changes) -> None:
        page = self._page(e.path, e.page)
        block = self._block(e.path, e.page, e.block)
        if block is None:
            block = BlockRow(e.block, e.type, (0.0, 0.0, 0.0, 0.0))
            page.blocks.append(block)
        block.reading = True
        if self.live.follows(e.path):
            self.live.block_started(e)
            ch.live = True
        ch.pages.add(e.path)

    def _block_tokens(self, e: je.BlockTokens, ch: Changes) -> None:
        block = self._block(e.path, e.page, e.block)
        if block is not None:
            block.text += e.text_delta
        if self.live.follows(e.path):
            self.live.token(e, block.type if block is not None else "")
            ch.live = True

    def _block_done(self, e: je.BlockDone, ch: Changes) -> None:
        block = self._block(e.path, e.page, e.block)
        if block is not None:
            block.text, block.done, block.reading = e.text, True, False
            block.source, block.finish_reason = e.source, e.finish_reason
        if self.live.follows(e.path):
            self.live.block_done(e.block)
            ch.live = True
        ch.touch(e.path)

    def _page_done(self, e: je.PageDone, ch: Changes) -> None:
        row = self.row(e.path)
        row.pages_total = max(row.pages_total, e.pages)
        self._page(e.path, e.page).finish(e.markdown, e.seconds)
        if e.page >= row.resume_at:  # a kept page's replay is not the reading rate
            row.last_page_at = self._now
            if self._now is not None:
                row.page_times.append(self._now)
        if row.kind in PAGE_KINDS:
            self.live.pages_done += 1
            self.live.page_seconds += e.seconds
            if self.live.follows(e.path):
                self.live.page_done()
            ch.live = True
        ch.touch(e.path)
        ch.markdown.setdefault(e.path, []).append(e.page)

    def _page_settled(self, e: je.PageSettled, ch: Changes) -> None:
        """A text-layer page's blocks after the file's merges: as ``_middle.json`` keeps them
        (what a restart shows)."""
        page = self._page(e.path, e.page)
        page.blocks = [BlockRow(b.index, b.type, b.bbox, b.source, text, True, b.source)
                       for b, text in zip(e.blocks, e.texts)]
        page.layout = True
        ch.touch(e.path)

    def _writing(self, e: je.OutputWriting, ch: Changes) -> None:
        row = self.row(e.path)
        row.writing = True
        if self.live.follows(e.path):
            self.live.stage = "writing"
            ch.live = True
        ch.files.add(e.path)

    def _pages_resumed(self, e: je.PagesResumed, ch: Changes) -> None:
        """The journal's note: pages kept from an earlier run, or why it started over. Kept
        pages count as done from now on and are left out of the page rate."""
        row = self.row(e.path)
        row.resume_at = e.page if e.kept else 0
        row.pages_total = e.pages or row.pages_total
        ch.log.append(("information", f"{row.name}: {e.note}"))
        ch.touch(e.path)

    def _file_done(self, e: je.FileDone, ch: Changes) -> None:
        row = self.row(e.path)
        row.warnings = list(e.warnings)
        row.read_seconds = e.seconds
        for w in e.warnings:  # "page 3: ..." goes to that page too
            for n in sorted(pages_named(w)):
                page = row.pages.get(n - 1)
                if page is not None and w not in page.warnings:
                    page.warnings.append(w)
            ch.log.append(("warning", f"{row.name}: {w}"))
        ch.touch(e.path)

    def _file_failed(self, e: je.FileFailed, ch: Changes) -> None:
        ch.log.append(("error", f"{self.name_of(e.path)}: {e.reason}"))

    def _finished(self, e: ev.FileFinished, ch: Changes) -> None:
        row = self.row(e.path)
        row.finish(e)
        if e.status == Status.DONE and row.kind in PAGE_KINDS and row.pages_total:
            if self._now is not None and row.last_page_at is not None:
                # after its last page: the reader's finishing (merge, furniture, the extra
                # files) and the output writing, by the wall clock
                self.write_per_page = max(0.0, self._now - row.last_page_at) / row.pages_total
            elif row.read_seconds and e.seconds > row.read_seconds:
                self.write_per_page = (e.seconds - row.read_seconds) / row.pages_total
        if self.live.follows(e.path):
            self.live.rates.clear()
            self.live.finished = row.outcome()
            ch.live = True
        ch.touch(e.path)
        ch.header = True
        ch.finished.append(e)
        ch.log.append(_finished_line(row, e))

    def _detail_loaded(self, e: DetailLoaded, ch: Changes) -> None:
        row = self.row(e.path)
        if row.pages or row.status != Status.DONE:  # read again meanwhile: events win
            row.detail = "loaded" if row.pages else row.detail
            return
        row.pages = {p.index: p for p in e.pages}
        row.pages_total = max(row.pages_total, len(e.pages))
        row.warnings = list(e.warnings) or row.warnings
        row.detail = "loaded" if e.pages else "missing"
        self._restored_md[e.path] = e.markdown
        ch.touch(e.path)
        ch.markdown[e.path] = []

    # -- lookups ------------------------------------------------------------------------------------
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


def _finished_line(row: FileRow, e: ev.FileFinished) -> tuple[str, str]:
    """The Log tab's line for a file's verdict."""
    if e.status == Status.DONE:
        warn = row.warning_line()
        return ("warning" if warn else "information",
                f"{row.name}: {row.label}" + (f" ({e.note})" if e.note else "")
                + (f": {warn}" if warn else ""))
    level = "error" if e.status == Status.FAILED else "warning" \
        if e.status != Status.SKIPPED else "information"
    return level, f"{row.name}: {row.label}: {_unsaid(e.reason, row.label)}" + (
        f" ({e.hint})" if e.hint else "")


def _unsaid(reason: str, label: str) -> str:
    """``reason`` without the word the label already says ("cancelled: cancelled (29 pages
    kept…)" reads "cancelled: 29 pages kept…")."""
    if reason.startswith(label):
        rest = reason[len(label):].strip(" :")
        if rest.startswith("(") and rest.endswith(")"):
            rest = rest[1:-1]
        return rest or reason
    return reason


HANDLERS = {
    ev.Watching: Board._watching,
    ev.Notice: Board._notice,
    ev.EngineReady: Board._engine_ready,
    ev.PauseChanged: Board._pause_changed,
    ev.FileQueued: Board._queued,
    ev.FileFinished: Board._finished,
    je.FileStarted: Board._file_started,
    je.PageStarted: Board._page_started,
    je.EngineStage: Board._engine_stage,
    je.LayoutDone: Board._layout_done,
    je.BlockStarted: Board._block_started,
    je.BlockTokens: Board._block_tokens,
    je.BlockDone: Board._block_done,
    je.PageDone: Board._page_done,
    je.PageSettled: Board._page_settled,
    je.OutputWriting: Board._writing,
    je.PagesResumed: Board._pages_resumed,
    je.FileDone: Board._file_done,
    je.FileFailed: Board._file_failed,
    DetailLoaded: Board._detail_loaded,
}
"""One handler per event type (toolong's one handler per message)."""
