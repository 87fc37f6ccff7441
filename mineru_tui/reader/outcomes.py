"""The five things that can become of a page, each one function of the same shape.

    page, record = outcome(item, doc, reading)

``item`` is the page (a :class:`~mineru_tui.reader.pipeline.PageInput`, or a
:class:`~mineru_tui.reader.sources.PageError` for :func:`failed`), ``doc`` the document being
built (pictures and warnings go there), ``reading`` how pages are read (:class:`Reading`). The
result is the document page and its record for ``<stem>_model.json``.

* :func:`blank`           the page draws nothing: an empty page, read by neither model nor text layer
* :func:`text_layer`      effort ``low``: the PDF's own text in reading order, no model
* :func:`model`           MinerU2.5's two stages (or the text mode) through the engine
* :func:`unusable_layout` the layout answer gave no block: the text layer if usable, else empty
* :func:`failed`          the page could not be read: an empty page with its reason

:func:`read` picks the outcome of a page and turns whatever fails it into ``failed``.

When an item carries the record it was read with (``item.record``, :mod:`.replay`), the
same functions rebuild the page from it instead of asking the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mineru_tui.document import Page
from mineru_tui.engines.base import EngineError
from mineru_tui.errors import ConvertError, InputError, cut_warning
from mineru_tui.pdf import NeedsModelError, classify_page, text_only_page
from mineru_tui.pdf.text_only import unmapped_count
from mineru_tui.reader import pipeline
from mineru_tui.reader.mapping import set_extra, to_page
from mineru_tui.reader.sources import PageError

LAYOUT_CUT = "the layout answer has"  # the start of protocol.parse_layout's warning
BLOCK_FAILURES = {"length": "stopped at the length limit",
                  "repetition": "ran away (repeating itself) and was cut at the length limit",
                  "error": "failed"}


def no_events(event) -> None:
    pass


@dataclass
class Reading:
    """How a file's pages are read: its settings, and for the model the engine, the file's
    path (named in events), where events go and the cancel flag. ``isolated``: in the page
    probe's child, where a MemoryError is the child's memory limit: it is raised, not made
    the page's failure (the reading process reads the page again, :mod:`.whole_page`)."""

    settings: pipeline.Settings
    engine: object = None
    path: str = ""
    emit: Callable = field(default=no_events)
    cancel: object = None
    isolated: bool = False


Outcome = Callable[..., tuple[Page, dict]]


def pick(item, reading: Reading) -> Outcome:
    """Which outcome reads ``item`` (before reading it; the model may still find the layout
    unusable, and any page may fail)."""
    record = getattr(item, "record", None)
    if getattr(item, "reason", None) is not None or (record and record.get("error")):
        return failed
    if item.blank or (record and record.get("blank")):
        return blank
    if record is not None:
        if record.get("layout_unusable"):
            return unusable_layout
        return text_layer if record.get("mode") == "text-layer" else model
    return text_layer if reading.settings.effort == "low" else model


def read(item, doc, reading: Reading) -> tuple[Page, dict]:
    """One page through its outcome; whatever fails it fails this page only (returned as the
    ``failed`` outcome), except an engine that cannot run at all and a cancel."""
    try:
        return pick(item, reading)(item, doc, reading)
    except EngineError as e:  # the engine cannot run at all: no model, no server
        raise ConvertError(" ".join(str(e).split()) or "the engine failed", needs_model=True) from None
    except (pipeline.PageFailed, InputError) as e:
        reason = str(e)
    except (MemoryError, RecursionError) as e:
        if reading.isolated and isinstance(e, MemoryError):
            raise
        reason = f"{type(e).__name__} while reading this page"
    except pipeline.PageCancelled:
        raise
    except Exception as e:  # noqa: BLE001 - whatever else a page's answers cause: this page only
        why = " ".join(str(e).split())[:160]
        reason = f"internal error while reading this page ({type(e).__name__}{': ' + why if why else ''})"
    failure = PageError(item.ordinal, item.number, reason, getattr(item, "page_size", None))
    return failed(failure, doc, reading)


def text_layer_blocks(pdf_page, *, without_unmapped: bool = False) -> list:
    """A PDF page's own text as document blocks in reading order, each marked as coming from
    the text layer (raises :class:`~mineru_tui.pdf.NeedsModelError` when it fails the checks)."""
    blocks = text_only_page(pdf_page, without_unmapped=without_unmapped)  # with its ``cuts``
    for b in blocks:
        set_extra(b, source="text_layer")
    return blocks


def blank(item, doc, reading: Reading) -> tuple[Page, dict]:
    """A page that draws nothing: an empty page, read by neither the model nor the text layer."""
    page = Page(item.ordinal, page_size=tuple(item.page_size))
    record = getattr(item, "record", None)
    if record is not None:
        mode = record.get("mode", "two-stage")
    else:
        mode = "text-layer" if reading.settings.effort == "low" else reading.settings.mode
    set_extra(page, page_no=item.number, mode=mode, blank=True)
    return page, {"page_idx": item.ordinal, "page_no": item.number, "mode": mode, "blank": True,
                  "page_size": list(item.page_size), "blocks": []}


def text_layer(item, doc, reading: Reading) -> tuple[Page, dict]:
    """Effort ``low``: the PDF's own text in reading order, no model (marked as such).

    Characters PDFium cannot map (a font without ToUnicode) fail the page as a whole; the rest
    of it is read when it passes the checks on its own, and the cut is said."""
    page = Page(item.ordinal, page_size=tuple(item.page_size))
    record = getattr(item, "record", None)
    decision = (record.get("decision") if record is not None else item.decision) or {}
    left_out = 0
    if item.pdf_page is not None:
        try:
            page.para_blocks = text_layer_blocks(item.pdf_page)
        except NeedsModelError as e:  # the page number is in the warning that names failed pages
            left_out = unmapped_count(item.pdf_page)
            try:
                page.para_blocks = text_layer_blocks(item.pdf_page, without_unmapped=True) \
                    if left_out else []
            except NeedsModelError:
                page.para_blocks = []
            if not page.para_blocks:
                reason = e.reason[:1].lower() + e.reason[1:]
                raise pipeline.PageFailed(f"the model is needed ({reason.rstrip('.')})") from None
        if not page.para_blocks:  # characters, but none that read as text (a tilted watermark)
            raise pipeline.PageFailed("the model is needed (its text layer gave no readable text)")
    set_extra(page, page_no=item.number, mode="text-layer", text_layer=decision)
    if record is None:
        record = {"page_idx": item.ordinal, "page_no": item.number, "mode": "text-layer",
                  "decision": decision, "page_size": list(item.page_size), "blocks": []}
    if left_out:
        warning = (f"page {item.number}: {left_out} characters have no Unicode mapping and "
                   "were left out (the model can read them)")
        doc.warnings.append(cut_warning(warning))
        set_extra(page, unmapped_left_out=left_out, warnings=[warning])
        record.update(unmapped_left_out=left_out, warnings=[warning])
    doc.warnings.extend(cut_warning(c) for c in getattr(page.para_blocks, "cuts", ()))
    return page, record


def model(item, doc, reading: Reading) -> tuple[Page, dict]:
    """MinerU2.5 reads the page through the engine (or its record gives the answers back)."""
    record = getattr(item, "record", None)
    if record is None:
        record, blocks = pipeline.read_page(item, reading.engine, reading.settings, path=reading.path,
                                            emit=reading.emit, cancel=reading.cancel)
        if record.get("layout_unusable"):
            page, record = _fall_back(item, record, doc)
            _note_block_failures(doc, item.number, record)
            return page, record
    else:
        blocks = pipeline.rebuild_blocks(record)
    page = to_page(blocks, item.ordinal, item.page_size, item.image, doc)
    set_extra(page, page_no=record["page_no"], mode=record["mode"], text_layer=record.get("decision"))
    _note_block_failures(doc, item.number, record)
    return page, record


def unusable_layout(item, doc, reading: Reading) -> tuple[Page, dict]:
    """A page whose layout answer gave no block keeps what it can: its text layer's reading
    when it has a usable one (marked ``fallback: "text_layer"``), else nothing; either way
    with a warning that ``parse`` always shows, also on the page in the middle JSON.

    ``item.record`` says what was done (rebuilding)."""
    return _fall_back(item, item.record, doc)


def _fall_back(item, record: dict, doc) -> tuple[Page, dict]:
    """The page of an unusable layout answer; a fresh ``record`` (no ``layout_warning``
    yet) is completed here, a recorded one says what was done."""
    page = Page(item.ordinal, page_size=tuple(item.page_size))
    why = record["layout_unusable"]
    if "layout_warning" in record:  # rebuilt: do again what the record says was done
        decision = record.get("decision")
        if record.get("fallback") == "text_layer" and item.pdf_page is not None:
            page.para_blocks = text_layer_blocks(item.pdf_page)
        warning = record["layout_warning"]
    else:
        decision = item.decision
        if item.pdf_page is not None and decision is None:
            try:
                d = classify_page(item.pdf_page)
                decision = {"use_text_layer": bool(d.use_text_layer), "reason": str(d.reason)}
            except Exception:  # a text layer we cannot classify is not used
                decision = None
        if item.pdf_page is not None and decision and decision.get("use_text_layer"):
            try:
                page.para_blocks = text_layer_blocks(item.pdf_page)
            except NeedsModelError:
                page.para_blocks = []
        if page.para_blocks:
            record["fallback"] = "text_layer"
            warning = f"page {item.number}: {why}; read from the PDF's own text layer instead"
        else:
            warning = f"page {item.number}: {why}; the page is left empty"
        record["layout_warning"] = warning
    if warning:
        doc.warnings.append(cut_warning(warning))
    set_extra(page, page_no=item.number, mode=record.get("mode"), text_layer=decision,
              layout_unusable=why, fallback=record.get("fallback"),
              warnings=[warning] if warning else None)
    return page, record


def failed(item, doc, reading: Reading) -> tuple[Page, dict]:
    """A page that could not be read: empty, with its reason (``item.reason``, or the
    record's ``error``); the warning naming all such pages is written once per file."""
    record = getattr(item, "record", None)
    reason = item.reason if getattr(item, "reason", None) is not None else record["error"]
    size = getattr(item, "page_size", None)
    page = Page(item.ordinal, page_size=tuple(size) if size else None)
    set_extra(page, page_no=item.number, error=reason)
    return page, {"page_idx": item.ordinal, "page_no": item.number, "error": reason, "blocks": []}


def _note_block_failures(doc, number: int, record: dict) -> None:
    """Blocks the model did not finish (error, length limit, runaway) become warnings that
    ``parse`` always shows; the blocks themselves carry ``finish_reason`` in the JSON."""
    for i, b in enumerate(record.get("blocks", [])):
        why = BLOCK_FAILURES.get(b.get("_finish"))
        if why:
            extra = f" ({b['_error']})" if b.get("_error") else ""
            doc.warnings.append(cut_warning(f"page {number}, block {i + 1} ({b['type']}): {why}{extra}"))
    for w in record.get("warnings", []):  # the layout answer had more blocks than a page may
        if w.startswith(LAYOUT_CUT):
            doc.warnings.append(cut_warning(f"page {number}: {w}"))
