"""The progress line ``parse`` draws on a terminal's stderr while pages are read.

    scan.pdf · page 2/9 · layout · 61 tokens · 7.9 tok/s
    scan.pdf · page 2/9 · block 5/14 · 212 tokens · 18.2 tok/s
    scan.pdf · writing the output set (9 pages)
    long.pdf · 97 pages kept, resuming at page 98 of 300     (a journal from an earlier run)
    long.pdf · page 98/300                                   (read from the PDF's own text)

The rate is the decode rate of the blocks being read now, each over the last two seconds of
its decoding (``reader/calls.py``), summed over the blocks of a batch: the tokens the engine
produces per second. One line, redrawn in place (at most ten times a second) from the job events, and erased when
the file is done, so the per-file lines ``parse`` prints afterwards start on a clean line.
Nothing is drawn unless stderr is a terminal (the caller decides).
"""

from __future__ import annotations

import os
import time
from typing import TextIO

from mineru_tui.console import shown
from mineru_tui.events import (BlockDone, BlockStarted, BlockTokens, EngineStage, FileDone,
                               FileFailed, FileStarted, LayoutDone, OutputWriting, PageDone,
                               PagesResumed, PageStarted)


class ProgressLine:
    """A job-event consumer that keeps one status line on ``err``."""

    def __init__(self, err: TextIO, min_interval: float = 0.1):
        self.err = err
        self.min_interval = min_interval
        self._drawn = False
        self._last = 0.0
        self._file = ""
        self._page = ""
        self._where = ""
        self._tokens: dict[int, int] = {}
        self._rates: dict[int, float] = {}  # blocks decoding now → their tok/s
        self._done_blocks = 0
        self._blocks = 0
        self._active = False  # only PDFs and images have pages to follow
        self._model = True  # the model ran on this file's last page (else: its own text)
        self._resume_at = 0  # pages before it were kept from a journal: not counted again

    def __call__(self, ev) -> None:
        if isinstance(ev, FileStarted):
            self._file = shown(os.path.basename(ev.path))  # no raw control characters
            self._page, self._where = "", ""
            self._active = ev.kind in ("pdf", "image")
            self._model, self._resume_at = True, 0
            if not self._active:
                return
        elif isinstance(ev, PagesResumed):
            if not ev.kept:
                return
            self._resume_at = ev.page
            self._where = (f"{ev.kept} page{'s' * (ev.kept != 1)} kept, resuming at page "
                           f"{ev.page + 1} of {ev.pages}")
        elif isinstance(ev, (PageStarted, PageDone)) and ev.page < self._resume_at:
            return  # a page kept from the journal: the line stays on where reading resumes
        elif isinstance(ev, PageStarted):
            self._page = f"page {ev.page + 1}/{ev.pages}"
            # the layout call runs first when the model reads pages; a page read from the
            # PDF's own text (effort low) has no stage to name
            self._where, self._tokens, self._rates = "layout" if self._model else "", {}, {}
            self._done_blocks = self._blocks = 0
            self._model = False
        elif isinstance(ev, EngineStage):
            self._model = True
            return
        elif isinstance(ev, LayoutDone):
            self._blocks = len(ev.blocks)
            self._where = f"{len(ev.blocks)} blocks"
            self._tokens, self._rates = {}, {}
        elif isinstance(ev, BlockStarted):
            self._blocks = ev.blocks
            self._where = f"block {ev.block + 1}/{ev.blocks}"
        elif isinstance(ev, BlockTokens):
            self._model = True
            if ev.block < 0:
                self._where = "layout"
            self._tokens[ev.block] = ev.n_generated
            self._rates[ev.block] = ev.tokens_per_s
        elif isinstance(ev, BlockDone):
            self._rates.pop(ev.block, None)
            self._done_blocks += 1
            self._where = f"{self._done_blocks}/{self._blocks} blocks"
        elif isinstance(ev, PageDone):
            self._where = "done" if self._model else ""
        elif isinstance(ev, (FileDone, FileFailed)):
            self.clear()
            return
        elif isinstance(ev, OutputWriting):
            self._file = shown(os.path.basename(ev.path))
            self._page, self._tokens, self._rates = "", {}, {}
            self._where = f"writing the output set ({ev.pages} page{'s' * (ev.pages != 1)})"
            self.draw(force=True)
            return
        else:
            return
        if not self._active:
            return
        self.draw(force=isinstance(ev, (PageStarted, LayoutDone, PageDone)))

    def text(self) -> str:
        parts = [p for p in (self._file, self._page, self._where) if p]
        n = sum(self._tokens.values())
        if n:
            parts.append(f"{n} tokens")
        rate = sum(self._rates.values())
        if rate:
            parts.append(f"{rate:.1f} tok/s")
        return " · ".join(parts)

    def draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last < self.min_interval:
            return
        self._last = now
        self.err.write("\r\x1b[2K" + self.text())
        self.err.flush()
        self._drawn = True

    def clear(self) -> None:
        if self._drawn:
            self.err.write("\r\x1b[2K")
            self.err.flush()
            self._drawn = False
