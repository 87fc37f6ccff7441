"""The page reader: images and PDFs read with MinerU2.5 into the document model (``_backend: "vlm"``).

    from mineru_tui.reader import read_pages
    doc = read_pages(path, detected, ConvertOptions(engine=engine), emit=print, cancel=flag)

Pages are read one at a time (:mod:`.sources`), each through :func:`.pipeline.read_page`
(layout, crops, recognition batched through the engine, ``mineru-vl-utils`` post-processing),
mapped into a document page (:mod:`.mapping`); continuing paragraphs and tables are then joined
across pages (:mod:`.merge`). A page that fails is kept as an empty page with its reason (and a
warning); the file fails only when no page could be read, or when the engine itself cannot run.
Cancelling raises :class:`PagesInterrupted`, which carries the pages finished so far.

With ``-o``, two more files are written next to MinerU's output set: ``<stem>_model.json``
(the raw model answers per page, from which :func:`rebuild` makes the same document without
the model) and ``<stem>_layout.pdf`` (the boxes drawn over each page).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from mineru_tui import __version__
from mineru_tui.errors import ConvertError
from mineru_tui.events import PageDone, PageStarted

__all__ = ["PagesInterrupted", "read_pages", "rebuild"]

MODEL_JSON = "_model.json"
LAYOUT_CUT = "the layout answer has"  # the start of protocol.parse_layout's warning
LAYOUT_PDF = "_layout.pdf"


class PagesInterrupted(KeyboardInterrupt):
    """Reading was cancelled; ``document`` holds the pages finished before (maybe none)."""

    def __init__(self, document):
        super().__init__("interrupted")
        self.document = document


def read_pages(path, detected, options, *, emit=None, cancel=None):
    """Read every selected page of an image or PDF file into a :class:`Document`."""
    from mineru_tui.engines.base import EngineError
    from mineru_tui.errors import InputError
    from mineru_tui.reader import pipeline, sources

    emit = emit or (lambda event: None)
    path = Path(path)
    try:
        settings = pipeline.Settings.from_options(options)
    except pipeline.PageFailed as e:
        raise ConvertError(str(e)) from None
    if settings.effort not in pipeline.EFFORTS:
        raise ConvertError(f"unknown effort {options.effort!r} (choose from {', '.join(pipeline.EFFORTS)})")
    model_free = settings.effort == "low"
    if model_free and detected.kind != "pdf":
        raise ConvertError("this image needs the model (effort low reads only a PDF's own text)")
    engine = options.engine
    if engine is None and not model_free:
        raise ConvertError("page reading needs the MinerU2.5 model: no engine was given",
                           needs_model=True)

    total, pages, close = sources.open_source(path, detected.kind, options.pages, settings,
                                              classify=detected.kind == "pdf" and settings.mode != "text")
    from mineru_tui.document import Document  # after opening: a broken file loads no more
    from mineru_tui.reader import merge

    doc = Document(backend="vlm")
    doc.meta["page_selection"] = str(options.pages or "").strip().lower() not in ("", "all")
    records: list[dict] = []
    failed: list[str] = []
    try:
        for item in pages:
            if cancel is not None and cancel.is_set():
                raise PagesInterrupted(_finish(doc, records, path, detected, settings, engine, merge))
            emit(PageStarted(str(path), item.ordinal, total))
            t0 = time.perf_counter()
            try:
                if isinstance(item, sources.PageError):
                    raise pipeline.PageFailed(item.reason)
                if item.blank:  # nothing drawn: an empty page, for the model as for the text layer
                    page, record = _blank_page(item, settings)
                elif model_free:
                    page, record = _text_layer_page(item, doc)
                else:
                    record, blocks = pipeline.read_page(item, engine, settings, path=str(path), emit=emit,
                                                        cancel=cancel)
                    if record.get("layout_unusable"):
                        page = _unusable_layout_page(item, record, doc)
                    else:
                        page = _map(blocks, item, doc)
                        _note_record(page, record)
                    _note_block_failures(doc, item.number, record)
            except pipeline.PageCancelled:
                raise PagesInterrupted(_finish(doc, records, path, detected, settings, engine, merge)) from None
            except EngineError as e:  # the engine cannot run at all: no model, no server
                raise ConvertError(" ".join(str(e).split()) or "the engine failed",
                                   needs_model=True) from None
            except (pipeline.PageFailed, InputError) as e:
                page, record = _failed_page(item, str(e), doc)
                failed.append(str(e))
            except (MemoryError, RecursionError) as e:
                page, record = _failed_page(item, f"{type(e).__name__} while reading this page", doc)
                failed.append(record["error"])
            except Exception as e:  # noqa: BLE001 - whatever else a page's answers cause: this page only
                why = " ".join(str(e).split())[:160]
                page, record = _failed_page(item, f"internal error while reading this page "
                                                  f"({type(e).__name__}{': ' + why if why else ''})", doc)
                failed.append(record["error"])
            records.append(record)
            doc.pages.append(page)
            markdown = _page_markdown(doc, page) if options.page_markdown else None
            emit(PageDone(str(path), item.ordinal, total, markdown, time.perf_counter() - t0))
    finally:
        close()
    if failed and len(failed) == len(doc.pages):
        raise ConvertError(failed[0] if len(failed) == 1 else f"no page could be read ({failed[0]})")
    _warn_nothing_read(doc, records)
    return _finish(doc, records, path, detected, settings, engine, merge)


def _map(blocks, item, doc):
    from mineru_tui.reader.mapping import to_page

    return to_page(blocks, item.ordinal, item.page_size, item.image, doc)


def _note_record(page, record) -> None:
    from mineru_tui.reader.mapping import set_extra

    set_extra(page, page_no=record["page_no"], mode=record["mode"], text_layer=record.get("decision"))


def _note_block_failures(doc, number: int, record: dict) -> None:
    """Blocks the model did not finish (error, length limit, runaway) become warnings that
    ``parse`` always shows; the blocks themselves carry ``finish_reason`` in the JSON."""
    from mineru_tui.errors import cut_warning

    words = {"length": "stopped at the length limit", "repetition": "ran away (repeating itself) "
             "and was cut at the length limit", "error": "failed"}
    for i, b in enumerate(record.get("blocks", [])):
        why = words.get(b.get("_finish"))
        if why:
            extra = f" ({b['_error']})" if b.get("_error") else ""
            doc.warnings.append(cut_warning(f"page {number}, block {i + 1} ({b['type']}): {why}{extra}"))
    for w in record.get("warnings", []):  # the layout answer had more blocks than a page may
        if w.startswith(LAYOUT_CUT):
            doc.warnings.append(cut_warning(f"page {number}: {w}"))


def _text_layer_page(item, doc):
    """Effort ``low``: the PDF's own text in reading order, no model (marked as such)."""
    from mineru_tui.document import Page
    from mineru_tui.pdf import NeedsModelError, text_only_page
    from mineru_tui.pdf.text_only import unmapped_count
    from mineru_tui.reader.mapping import set_extra
    from mineru_tui.reader.pipeline import PageFailed

    page = Page(item.ordinal, page_size=tuple(item.page_size))
    decision = item.decision or {}
    left_out = 0
    try:
        page.para_blocks = list(text_only_page(item.pdf_page))
    except NeedsModelError as e:  # the page number is in the warning that names failed pages
        # characters PDFium cannot map (a font without ToUnicode) fail the page as a whole;
        # the rest of it is read when it passes the checks on its own, and the cut is said
        left_out = unmapped_count(item.pdf_page)
        try:
            page.para_blocks = list(text_only_page(item.pdf_page, without_unmapped=True)) \
                if left_out else []
        except NeedsModelError:
            page.para_blocks = []
        if not page.para_blocks:
            reason = e.reason[:1].lower() + e.reason[1:]
            raise PageFailed(f"the model is needed ({reason.rstrip('.')})") from None
    if not page.para_blocks:  # characters, but none that read as text (a tilted watermark)
        raise PageFailed("the model is needed (its text layer gave no readable text)")
    for b in page.para_blocks:
        set_extra(b, source="text_layer")
    set_extra(page, page_no=item.number, mode="text-layer", text_layer=decision)
    record = {"page_idx": item.ordinal, "page_no": item.number, "mode": "text-layer",
              "decision": decision, "page_size": list(item.page_size), "blocks": []}
    if left_out:
        from mineru_tui.errors import cut_warning

        warning = (f"page {item.number}: {left_out} characters have no Unicode mapping and "
                   "were left out (the model can read them)")
        doc.warnings.append(cut_warning(warning))
        set_extra(page, unmapped_left_out=left_out, warnings=[warning])
        record.update(unmapped_left_out=left_out, warnings=[warning])
    return page, record


def _blank_page(item, settings):
    """A page that draws nothing: an empty page, read by neither the model nor the text layer."""
    from mineru_tui.document import Page
    from mineru_tui.reader.mapping import set_extra

    page = Page(item.ordinal, page_size=tuple(item.page_size))
    mode = "text-layer" if settings.effort == "low" else settings.mode
    set_extra(page, page_no=item.number, mode=mode, blank=True)
    return page, {"page_idx": item.ordinal, "page_no": item.number, "mode": mode, "blank": True,
                  "page_size": list(item.page_size), "blocks": []}


def _unusable_layout_page(item, record: dict, doc):
    """A page whose layout answer gave no block keeps what it can: its text layer's reading
    when it has a usable one (marked ``fallback: "text_layer"``), else nothing; either way
    with a warning that ``parse`` always shows, also on the page in the middle JSON."""
    from mineru_tui.document import Page
    from mineru_tui.errors import cut_warning
    from mineru_tui.pdf import NeedsModelError, classify_page, text_only_page
    from mineru_tui.reader.mapping import set_extra

    page = Page(item.ordinal, page_size=tuple(item.page_size))
    why = record["layout_unusable"]
    decision = item.decision
    if item.pdf_page is not None and decision is None:
        try:
            d = classify_page(item.pdf_page)
            decision = {"use_text_layer": bool(d.use_text_layer), "reason": str(d.reason)}
        except Exception:  # a text layer we cannot classify is not used
            decision = None
    blocks = []
    if item.pdf_page is not None and decision and decision.get("use_text_layer"):
        try:
            blocks = list(text_only_page(item.pdf_page))
        except NeedsModelError:
            blocks = []
    if blocks:
        page.para_blocks = blocks
        for b in blocks:
            set_extra(b, source="text_layer")
        record["fallback"] = "text_layer"
        warning = f"page {item.number}: {why}; read from the PDF's own text layer instead"
    else:
        warning = f"page {item.number}: {why}; the page is left empty"
    record["layout_warning"] = warning
    doc.warnings.append(cut_warning(warning))
    set_extra(page, page_no=item.number, mode=record["mode"], text_layer=decision,
              layout_unusable=why, fallback=record.get("fallback"), warnings=[warning])
    return page


def _warn_nothing_read(doc, records) -> None:
    """A file whose every page came out empty says so (``parse`` shows it without ``-v``)."""
    from mineru_tui.errors import cut_warning

    if not doc.pages or any(p.para_blocks or p.discarded_blocks for p in doc.pages):
        return
    if all(r.get("blank") for r in records):
        doc.warnings.append(cut_warning("nothing was read: every page is blank"))
    else:
        doc.warnings.append(cut_warning("nothing was read: every page came out empty"))


def _failed_page(item, reason: str, doc):
    from mineru_tui.document import Page
    from mineru_tui.reader.mapping import set_extra

    size = getattr(item, "page_size", None)
    page = Page(item.ordinal, page_size=tuple(size) if size else None)
    set_extra(page, page_no=item.number, error=reason)  # the warning: _warn_failed_pages
    return page, {"page_idx": item.ordinal, "page_no": item.number, "error": reason, "blocks": []}


def _page_markdown(doc, page) -> str:
    from copy import copy

    from mineru_tui.document import to_markdown

    one = copy(doc)
    one.pages = [page]
    return to_markdown(one)


def _warn_failed_pages(doc, records) -> None:
    """One warning per reason, naming its pages: a 300-page scan read at effort low
    says once that its pages need the model, not 300 times."""
    from mineru_tui.errors import cut_warning
    from mineru_tui.pdf.page_range import format_pages

    by_reason: dict[str, list[int]] = {}
    for r in records:
        if "error" in r:
            by_reason.setdefault(r["error"], []).append(r["page_no"])
    for reason, numbers in by_reason.items():
        what = f"page {numbers[0]} was" if len(numbers) == 1 else f"pages {format_pages(numbers)} were"
        doc.warnings.append(cut_warning(f"{what} not read: {reason}"))


def _drop_text_layer_furniture(doc, records) -> None:
    """Running headers, footers and page numbers of the pages read from the text layer
    alone go to the discarded blocks (the model finds them on the other pages)."""
    text_layer = [p for p, r in zip(doc.pages, records) if r.get("mode") == "text-layer"]
    if text_layer:
        from mineru_tui.pdf.furniture import drop_furniture

        drop_furniture(text_layer)


def _finish(doc, records, path, detected, settings, engine, merge):
    _warn_failed_pages(doc, records)
    _drop_text_layer_furniture(doc, records)
    merge.merge_across_pages(doc)
    # heading levels over the whole document, with the PDF's outline (document/headings.py)
    from mineru_tui.document.headings import level_headings
    from mineru_tui.pdf.headings import pdf_outline
    level_headings(doc, pdf_outline(path) if detected.kind == "pdf" else None)
    meta = {"_version_name": f"mineru-tui {__version__}", "file": Path(path).name, "kind": detected.kind,
            "engine": getattr(engine, "name", None), "model": getattr(engine, "model_id", None),
            "mode": settings.mode, "effort": settings.effort, "image_analysis": settings.image_analysis,
            "max_new_tokens": settings.max_new_tokens, "pages": records}
    outputs = {MODEL_JSON: lambda: _json_bytes(meta),
               LAYOUT_PDF: lambda: _layout_bytes(Path(path), detected.kind, records)}
    doc.extra_outputs = outputs
    # what MinerU 4's set records (document/mineru4): the reading, and model_output.json
    from mineru_tui.document.mineru4.model_output import to_model_output
    doc.meta.update(kind=detected.kind, effort=settings.effort, engine=meta["engine"],
                    model=meta["model"],
                    model_output=None if settings.effort == "low"
                    else lambda middle: to_model_output(meta, middle))
    return doc


def _json_bytes(data) -> bytes:
    # The raw answers, with DEL, C1 and bidi controls written as escapes (as output's JSON)
    from mineru_tui.console import JSON_ESCAPED
    text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    return JSON_ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode("utf-8")


def _layout_bytes(source: Path, kind: str, records: list[dict]) -> bytes:
    """``<stem>_layout.pdf``: each page with its layout boxes, drawn by the pdf module."""
    from mineru_tui.pdf import LayoutPage, layout_pdf_bytes

    pdf = kind == "pdf"
    return layout_pdf_bytes(
        LayoutPage([(b["type"], tuple(b["bbox"]), i) for i, b in enumerate(r.get("blocks", []))],
                   pdf_path=str(source) if pdf else None, page_index=r["page_no"] - 1,
                   image=None if pdf else str(source))
        for r in records)


def _page_image(source, kind: str | None, number: int):
    """Page ``number`` (1-based) of the source file as the reader saw it (for picture crops)."""
    if kind == "pdf":
        from mineru_tui.pdf import open_pdf

        with open_pdf(Path(source), str(number)) as pdf:
            for page in pdf:
                return page.render()
        return None
    from mineru_tui.reader.images import iter_image_pages

    for page in iter_image_pages(Path(source), {number - 1}):
        return page.image
    return None


def _rebuild_unusable(item, record: dict, source, kind, doc):
    """A page whose layout answer was unusable, as it was read: its text layer re-read from
    ``source`` when it fell back on it (an empty page without the source)."""
    from mineru_tui.document import Page
    from mineru_tui.pdf import open_pdf, text_only_page
    from mineru_tui.reader.mapping import set_extra

    page = Page(item.ordinal, page_size=item.page_size)
    if record.get("fallback") == "text_layer" and source is not None and kind == "pdf":
        with open_pdf(Path(source), str(record["page_no"])) as pdf:
            for pdf_page in pdf:
                page.para_blocks = list(text_only_page(pdf_page))
                for b in page.para_blocks:
                    set_extra(b, source="text_layer")
    from mineru_tui.errors import cut_warning

    warning = record.get("layout_warning")
    if warning:
        doc.warnings.append(cut_warning(warning))
    set_extra(page, page_no=record["page_no"], mode=record.get("mode"),
              text_layer=record.get("decision"), layout_unusable=record["layout_unusable"],
              fallback=record.get("fallback"), warnings=[warning] if warning else None)
    return page


def rebuild(model_json: dict | str | Path, source: str | Path | None = None):
    """The document ``read_pages`` made, rebuilt from its ``<stem>_model.json`` without the model.

    ``source`` (the original file) is needed only for the pictures of image blocks.
    """
    from mineru_tui.document import Document
    from mineru_tui.reader import merge, pipeline

    if not isinstance(model_json, dict):
        model_json = json.loads(Path(model_json).read_text(encoding="utf-8"))
    doc = Document(backend="vlm")
    for record in model_json["pages"]:
        image = _page_image(source, model_json.get("kind"), record["page_no"]) if source else None
        item = pipeline.PageInput(record["page_idx"], record["page_no"], image,
                                  tuple(record.get("page_size") or (0, 0)))
        if record.get("error"):
            page, _ = _failed_page(item, record["error"], doc)
        elif record.get("blank"):
            page, _ = _blank_page(item, pipeline.Settings(mode=record.get("mode", "two-stage")))
        elif record.get("layout_unusable"):
            page = _rebuild_unusable(item, record, source, model_json.get("kind"), doc)
        else:
            blocks = pipeline.rebuild_blocks(record)
            page = _map(blocks, item, doc)
            _note_record(page, record)
        doc.pages.append(page)
    merge.merge_across_pages(doc)
    return doc
