"""The one way in: ``convert(path) -> Document`` for every kind of input.

    from mineru_tui.convert import ConvertOptions, convert
    doc = convert("report.docx")                       # Office: read from the XML
    doc = convert("scan.png", ConvertOptions(engine=my_engine), on_event=print)

It detects the file type from the bytes, then reads it with the Office reader or the page
reader, emitting the job events of :mod:`mineru_tui.events` on the way. ``parse``, the
``watch`` app and library users all call it; nothing else dispatches on the file type.

Every failure is a :class:`~mineru_tui.errors.ConvertError` whose ``reason`` is one sentence for the user;
``detail`` keeps the technical message (shown with ``-v``) and ``trace`` the traceback of
an internal error (shown with ``--debug``).
"""

from __future__ import annotations

import re
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mineru_tui.console import one_line
from mineru_tui.detect import DEFAULT_LIMITS, Detected, ZipLimits, detect
from mineru_tui.errors import DEBUG_HINT, ConvertError, InputError, internal_error, os_reason
from mineru_tui.events import FileDone, FileFailed, FileStarted, OnEvent, PageDone
from mineru_tui.kinds import kind as kind_of

if TYPE_CHECKING:
    from mineru_tui.document import Document
    from mineru_tui.engines.events import CancelFlag

@dataclass
class ConvertOptions:
    """Everything that changes how a file is read (not where its results go)."""

    limits: ZipLimits = DEFAULT_LIMITS
    engine: Any = None  # an mineru_tui.engines.Engine (often a LazyEngine); None: no model
    mode: str = "two-stage"  # page reading: two-stage | text
    effort: str = "default"  # PDF text layer use: see the README's "Effort"
    pages: str | None = None  # PDF page ranges, 1-based ("1-3,7")
    image_analysis: bool = False  # also describe images and charts with the model
    # each page's Markdown in its PageDone event (the watch app shows it); off by default:
    # rendering every page costs time that a run writing the whole document does not need
    page_markdown: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    # PDFs and images: keep finished pages in this journal and resume from it (reader/journal.py)
    journal: Path | None = None


def convert(path: str | Path, options: ConvertOptions | None = None, *,
            detected: Detected | None = None, on_event: OnEvent | None = None,
            cancel: CancelFlag | None = None) -> Document:
    """Read one file into a :class:`~mineru_tui.document.Document`.

    Raises :class:`ConvertError` (one line) for anything that goes wrong, after emitting
    ``FileFailed``; ``KeyboardInterrupt`` and other BaseExceptions pass through.
    """
    options = options or ConvertOptions()
    path = Path(path)
    emit = on_event or (lambda event: None)
    t0 = time.perf_counter()
    kind = "input"
    try:
        try:
            det = detected or detect(path, options.limits)
        except InputError as e:
            raise ConvertError(one_line(str(e)), e.detail) from None
        kind = det.kind
        emit(FileStarted(str(path), kind))
        if not kind_of(det.kind).pages:
            doc = _read_office(path, det, options, emit)
        else:
            doc = _read_pages(path, det, options, emit, cancel)
    except ConvertError as e:
        emit(FileFailed(str(path), e.reason))
        raise
    except Exception as e:
        err = _as_convert_error(e, kind, path.name)
        emit(FileFailed(str(path), err.reason))
        raise err from None
    doc.warnings[:] = [one_line(w) for w in doc.warnings]  # one line each, wherever shown
    emit(FileDone(str(path), kind, len(doc.pages), time.perf_counter() - t0,
                  tuple(doc.warnings)))
    return doc


def _read_office(path: Path, det: Detected, options: ConvertOptions, emit: OnEvent) -> Document:
    from mineru_tui.document import to_markdown
    from mineru_tui.office import read_office

    t0 = time.perf_counter()
    doc = read_office(path, det.kind)
    seconds = time.perf_counter() - t0
    n = len(doc.pages)
    for page in doc.pages:
        markdown = None
        if options.page_markdown:  # a viewer (the watch app): the page's blocks and Markdown
            from mineru_tui.document.page_blocks import block_events

            for event in block_events(str(path), _one_page(doc, page), "office"):
                emit(event)
            markdown = to_markdown(_one_page(doc, page))
        emit(PageDone(str(path), page.page_idx, n, markdown, seconds / max(n, 1)))
    return doc


def _one_page(doc: Document, page) -> Document:
    from copy import copy

    one = copy(doc)
    one.pages = [page]
    return one


def _read_pages(path: Path, det: Detected, options: ConvertOptions, emit: OnEvent,
                cancel: CancelFlag | None) -> Document:
    read_pages = kind_of(det.kind).read_function()  # the page reader (mineru_tui.reader)
    return read_pages(path, det, options, emit=emit, cancel=cancel)


def _as_convert_error(e: Exception, kind: str, name: str) -> ConvertError:
    """One sentence for the user from any exception raised while reading ``name``.

    The user's message names the file once (the caller prints the path), so a reader's
    message that starts with the file's name loses it; a library's wording in brackets
    ("not a readable Word document (Entity 'x' not defined, line 2...)") becomes a plain
    cause ("...: its XML is malformed") and the wording goes to ``detail`` (``-v``).
    """
    import zipfile
    import zlib

    if isinstance(e, InputError):
        return _reader_reason(str(e), e.detail, name, e.__context__)
    if isinstance(e, (zipfile.BadZipFile, zlib.error, EOFError)):
        return ConvertError("corrupt file: its zip data is damaged", _detail(e))
    if isinstance(e, MemoryError):
        return ConvertError("out of memory while reading this file")
    if isinstance(e, RecursionError):
        return ConvertError("its structure is nested too deeply to read")
    if isinstance(e, OSError):
        return ConvertError(f"cannot read the file: {os_reason(e)}", _detail(e))
    return ConvertError(internal_error(f"the {kind} reader", e, DEBUG_HINT),
                        trace=traceback.format_exc())


_BRACKETED = re.compile(r"(?P<head>.+?) \((?P<tail>.+)\)")
_CAUSES = (  # (pattern of a library's message or exception name, what it means)
    (re.compile(r"XMLSyntax|ParseError|line \d+, column \d+|not well-formed|[Ee]ntity|"
                r"[Tt]ag mismatch|[Pp]remature end|Start tag expected|Document is empty|"
                r"Extra content|invalid token|undefined namespace", re.S),
     "its XML is malformed"),
    (re.compile(r"BadZip|Bad CRC|zlib|[Ee]rror -3|decompress|truncated|zip", re.S),
     "its zip data is damaged"),
    (re.compile(r"KeyError|There is no item named|no .*part|not found|missing", re.S),
     "a part it needs is missing"),
)


def _reader_reason(message: str, detail: str | None, name: str,
                   context: BaseException | None) -> ConvertError:
    text = one_line(message)
    if text.startswith(f"{name}: "):
        text = text[len(name) + 2:]
    m = _BRACKETED.fullmatch(text)
    cause_of = " ".join(filter(None, [detail, type(context).__name__ if context else None]))
    if m and (context is not None or _cause(m["tail"])):
        cause = _cause(m["tail"] + " " + cause_of)
        head = m["head"].rstrip(":")
        text = f"{head}: {cause}" if cause else head
        detail = detail or m["tail"]
    return ConvertError(text or "cannot be parsed", detail)


def _cause(technical: str) -> str | None:
    for pattern, meaning in _CAUSES:
        if pattern.search(technical):
            return meaning
    return None


def _detail(e: BaseException) -> str:
    return f"{type(e).__name__}: {one_line(str(e))}" if str(e) else type(e).__name__
