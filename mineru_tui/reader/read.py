"""The page loop: every selected page of a file through one of its outcomes, into a Document.

Pages come one at a time from :mod:`.sources`; :func:`.outcomes.read` reads each through its
outcome, and a page that fails in any way becomes the ``failed`` outcome (the others go on).
When the file is done, :func:`.assemble.finish` adds what needs every page (the warnings
naming failed pages, the text layer's running furniture, paragraphs and tables continuing
across pages) and the extra outputs (``<stem>_model.json``, ``<stem>_layout.pdf``).
"""

from __future__ import annotations

import time
from pathlib import Path

from mineru_tui.errors import ConvertError
from mineru_tui.events import PageDone, PagesResumed, PageStarted
from mineru_tui.reader import heap, pipeline, sources
from mineru_tui.reader.journal import Journal, identity


class PagesInterrupted(KeyboardInterrupt):
    """Reading was cancelled; ``document`` holds the pages finished before (maybe none)."""

    def __init__(self, document):
        super().__init__("interrupted")
        self.document = document


def read_pages(path, detected, options, *, emit=None, cancel=None):
    """Read every selected page of an image or PDF file into a :class:`Document`."""
    path = Path(path)
    settings = _settings(options, detected)
    heap.keep_large_blocks_mapped()  # a freed page image goes back to the system
    journal = None
    if options.journal is not None:
        journal = Journal.open(options.journal, identity(path, settings, options.engine, options.pages))
    try:
        total, pages, close = sources.open_source(
            path, detected.kind, options.pages, settings,
            classify=detected.kind == "pdf" and settings.mode != "text",
            kept=journal.done if journal else None, replayed=journal.replayed() if journal else ())
    except BaseException:
        if journal is not None:
            journal.close()
        raise
    # after opening: a broken file loads no document model (tests/cli checks it)
    from mineru_tui.document import Document
    from mineru_tui.document.page_store import PageStore, dump_page, load_page
    from mineru_tui.pdf.furniture import page_marks
    from mineru_tui.reader import assemble, lookahead, outcomes, whole_page
    from mineru_tui.reader.spool import PictureSpool

    engine = options.engine
    if lookahead.applies(engine, settings):  # next pages' layouts join each page's stream
        engine = lookahead.CrossPage(engine, settings)
        pages = lookahead.ahead(pages, engine)
    reading = outcomes.Reading(settings, engine, str(path), emit or outcomes.no_events, cancel)
    spool = PictureSpool()  # pictures and finished pages on disk, not in memory
    doc = Document(backend="vlm", images=spool, pages=PageStore(spool.folder))
    doc.meta["page_selection"] = str(options.pages or "").strip().lower() not in ("", "all")
    records: list[dict] = []
    marks: dict[int, list] = {}  # a text-layer page's furniture candidates (pdf/furniture.py)

    def interrupted() -> PagesInterrupted:
        return PagesInterrupted(assemble.finish(doc, records, path, detected.kind, reading, marks))

    if journal is not None:
        _say_resumed(journal, total, reading)
    try:
        for item in pages:
            if cancel is not None and cancel.is_set():
                raise interrupted()
            reading.emit(PageStarted(str(path), item.ordinal, total))
            t0 = time.perf_counter()
            kept = getattr(item, "record", None) is not None
            warned, pictured = len(doc.warnings), len(doc.images)
            form = journal.kept_page(item.ordinal) if kept and journal is not None else None
            page = _taken_back(form[0]) if form is not None else None
            whole = None
            if page is not None:  # the page as an earlier run finished it: not read again
                blob, record = form[0], item.record
                doc.warnings.extend(form[1])
            elif isinstance(item, sources.Unread):  # effort low: read whole, maybe elsewhere
                whole = whole_page.read(item)
                page, blob, record = whole.page, whole.form, whole.record
                doc.warnings.extend(whole.warnings)
            else:
                try:
                    page, record = outcomes.read(item, doc, reading)
                except pipeline.PageCancelled:
                    raise interrupted() from None
                blob = dump_page(page)
            markdown = None
            if options.page_markdown:  # kept in the record: a restored file shows it at once
                if page is None:  # read by the probe's child: its form only
                    page = load_page(blob)
                markdown = record.get("markdown") if kept and "markdown" in record \
                    else assemble.page_markdown(doc, page)
                record["markdown"] = markdown
                if record.get("mode") == "text-layer" or record.get("fallback") == "text_layer":
                    from mineru_tui.document.page_blocks import block_events

                    for event in block_events(str(path), assemble.one_page(doc, page), "text_layer"):
                        reading.emit(event)  # its blocks as _middle.json keeps them (no model)
            if journal is not None and not kept and "error" not in record:
                # on disk before the page counts as done
                journal.keep(item.ordinal, record, blob, doc.warnings[warned:],
                             len(doc.images) - pictured)
            if record.get("mode") == "text-layer":
                marks[len(records)] = whole.marks if whole is not None else page_marks(page)
            records.append(record)
            if whole is not None and whole.page is None:  # kept as the child made it
                doc.pages.append_form(blob, whole.page_idx, whole.extra)
            else:
                doc.pages.append(page, blob)  # the page leaves memory
            del page
            reading.emit(PageDone(str(path), item.ordinal, total, markdown, time.perf_counter() - t0))
    finally:
        close()
        if journal is not None:
            journal.close()
    failed = [r["error"] for r in records if "error" in r]
    if failed and len(failed) == len(doc.pages):
        raise ConvertError(failed[0] if len(failed) == 1 else f"no page could be read ({failed[0]})")
    assemble.warn_nothing_read(doc, records)
    doc = assemble.finish(doc, records, path, detected.kind, reading, marks)
    doc.journal = journal  # the output writer removes it once the whole set is written
    return doc


def _taken_back(form: bytes):
    """The page a journal kept, or None when its bytes hold more than the document model's
    classes (the journal is read as untrusted: such a page is read again)."""
    from mineru_tui.document.page_store import load_page

    try:
        return load_page(form)
    except Exception:  # noqa: BLE001 - whatever the bytes hold: read the page again
        return None


def _say_resumed(journal: Journal, total: int, reading) -> None:
    """One event saying what the journal gave: pages kept (reading resumes after them), or a
    start over and why."""
    kept = sum(1 for k in journal.done if 0 <= k < total)
    if kept:
        first = next((k for k in range(total) if k not in journal.done), total)
        where = (f"all {total} pages kept" if first >= total
                 else f"resumed at page {first + 1} of {total} ({kept} "
                      f"page{'s' if kept != 1 else ''} kept")
        journal.note = f"{where} from an earlier run{')' if first < total else ''}"
    else:
        first = 0
    if journal.note:
        reading.emit(PagesResumed(reading.path, first, total, kept, journal.note))


def _settings(options, detected) -> pipeline.Settings:
    """The reading settings, or a one-line ConvertError saying what is wrong with them."""
    try:
        settings = pipeline.Settings.from_options(options)
    except pipeline.PageFailed as e:
        raise ConvertError(str(e)) from None
    if settings.effort not in pipeline.EFFORTS:
        raise ConvertError(f"unknown effort {options.effort!r} (choose from {', '.join(pipeline.EFFORTS)})")
    model_free = settings.effort == "low"
    if model_free and detected.kind != "pdf":
        raise ConvertError("this image needs the model (effort low reads only a PDF's own text)")
    if options.engine is None and not model_free:
        raise ConvertError("page reading needs the MinerU2.5 model: no engine was given",
                           needs_model=True)
    return settings


