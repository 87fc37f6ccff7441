"""The job's event stream: what ``parse`` progress and the ``watch`` app are drawn from.

:func:`mineru_tui.convert.convert` calls ``on_event(event)`` with these plain, immutable
records, in order, from the thread that runs the conversion (a consumer in another thread,
such as the Textual app, must hand them over itself, e.g. with ``call_from_thread``)::

    FileStarted(path, kind)
      PageStarted(path, page, pages)                       # page is 0-based
        EngineStage(path, page, stage, seconds, tokens)    # vision / prefill timings of a call
        LayoutDone(path, page, blocks)                     # the layout blocks, reading order
          BlockStarted(path, page, block, blocks, type)
          BlockTokens(path, page, block, text_delta, n_generated, tokens_per_s)
          BlockDone(path, page, block, type, text, source, finish_reason)
      PageDone(path, page, pages, markdown, seconds)       # markdown: only if asked (page_markdown)
    FileDone(path, kind, pages, seconds, warnings)  |  FileFailed(path, reason)
    PageSettled(path, page, blocks, texts)                 # by the watcher's reader: a text-layer
                                                           # page's blocks after the file's merges
    OutputWriting(path, pages)                             # by the caller that writes the output set

``OutputWriting`` comes from whoever writes the output set after ``convert`` (``parse -o``, the
watcher's reader process), not from ``convert``: writing a long document's set takes long
enough to be shown as its own stage.

Office files have no model stages: they emit FileStarted, one PageDone per page (sheet,
slide) and FileDone; with ``page_markdown`` (a viewer), each PageDone follows the page's
LayoutDone and BlockDone events (source ``"office"``), the blocks its ``_middle.json`` lists. Blocks of a page are read in batches, so BlockStarted/BlockTokens/BlockDone
of several blocks interleave (a block starts when it joins the engine's batch and is done when
it ends; ``tokens_per_s`` is its decode rate, from its first token). ``source`` says where a block's text came from: ``"model"``,
``"text_layer"`` (a PDF's own text) or ``"office"``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Union


@dataclass(frozen=True)
class BlockInfo:
    """One layout block: its type, box (normalised 0-1: x0, y0, x1, y1 on the page), angle."""

    index: int  # reading order on the page, 0-based
    type: str  # MinerU's block type: text, title, table, equation, image, header ...
    bbox: tuple[float, float, float, float]
    angle: int = 0  # 0, 90, 180, 270
    source: str = "model"  # where its text will come from: model | text_layer | office | none


@dataclass(frozen=True)
class FileStarted:
    path: str
    kind: str  # docx | pptx | xlsx | pdf | image


@dataclass(frozen=True)
class PageStarted:
    path: str
    page: int
    pages: int  # pages to read in this file (after --pages)


@dataclass(frozen=True)
class EngineStage:
    """An engine stage finished for a call on this page (vision, prefill...) with its cost."""

    path: str
    page: int
    stage: str  # preprocess | vision | prefill | decode
    seconds: float
    tokens: int = 0  # image tokens (vision), prompt tokens (prefill), generated (decode)


@dataclass(frozen=True)
class LayoutDone:
    path: str
    page: int
    blocks: tuple[BlockInfo, ...]


@dataclass(frozen=True)
class BlockStarted:
    path: str
    page: int
    block: int
    blocks: int
    type: str


@dataclass(frozen=True)
class BlockTokens:
    path: str
    page: int
    block: int  # -1 for the layout call itself
    text_delta: str
    n_generated: int
    tokens_per_s: float


@dataclass(frozen=True)
class BlockDone:
    path: str
    page: int
    block: int
    type: str
    text: str
    source: str  # model | text_layer | office (read from the file itself)
    finish_reason: str  # stop | length | cancelled | error | repetition | text_layer | office


@dataclass(frozen=True)
class PagesResumed:
    """An earlier run of this file left a journal (``reader/journal.py``): ``kept`` pages are
    taken from it and reading resumes at ``page`` (0-based, among ``pages``); ``kept`` is 0
    when it started over instead. ``note`` is the one line for the user ("resumed at page 18
    of 20 …", "started over: the file changed since the earlier run")."""

    path: str
    page: int
    pages: int
    kept: int
    note: str


@dataclass(frozen=True)
class PageDone:
    path: str
    page: int
    pages: int
    markdown: str | None  # None unless ConvertOptions.page_markdown asked for it
    seconds: float


@dataclass(frozen=True)
class FileDone:
    path: str
    kind: str
    pages: int
    seconds: float
    warnings: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class FileFailed:
    path: str
    reason: str  # one line for the user


@dataclass(frozen=True)
class OutputWriting:
    """The file is read; its output set (Markdown, JSON, images) is being written now."""

    path: str
    pages: int


@dataclass(frozen=True)
class PageSettled:
    """A page's blocks as the output set keeps them (``_middle.json``), once what needs every
    page has run: a paragraph or table continued from the page before joined into it (its
    part here left empty), running headers and page numbers set apart, heading levels. Sent
    after ``convert`` for the pages read from the PDF's own text, whose blocks a viewer took
    as each page was read, so the view ends as a restart shows it."""

    path: str
    page: int
    blocks: tuple[BlockInfo, ...]
    texts: tuple[str, ...]  # each block's text, in order


JobEvent = Union[FileStarted, PageStarted, EngineStage, LayoutDone, BlockStarted, BlockTokens,
                 BlockDone, PagesResumed, PageDone, FileDone, FileFailed, PageSettled,
                 OutputWriting]
OnEvent = Callable[[JobEvent], None]
