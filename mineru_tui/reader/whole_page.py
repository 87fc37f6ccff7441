"""Effort ``low``: a PDF page read whole in one call, in the page probe's child when pages are probed.

At effort low a page needs no image and no model: loading it, the blank check, its
classification, its size, its text-layer blocks (with the unmapped-characters fallback and
their warnings) and its furniture marks are all of its reading. :func:`read_whole` does them
all, and it is the one function that reads such a page, wherever it runs:

* in the page probe's child (``python -m`` of this module, :func:`.probe_child.main`): the
  child has just loaded the page under the probe's limits, so the page is parsed once, there,
  and the finished page comes back as bytes (:func:`to_bytes`): its :func:`dump_page` form,
  record, warnings and marks; the reading process keeps the form as it is (``parse`` never
  unpickles a page it does not need);
* in the reading process: when pages are not probed (``MINERU_TUI_PAGE_PROBE=0``), when the
  probe refused the page (the same one line as ever: the load refuses it again without
  asking), and when the child died after the load passed (its reading went over the
  probe's memory limit): the page loaded within the limits, so it is read here as it always was.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass

from mineru_tui.document import Document, Page
from mineru_tui.document.page_store import dump_page, load_plain
from mineru_tui.pdf.furniture import page_marks
from mineru_tui.reader import outcomes, pipeline
from mineru_tui.reader.sources import Unread, prepare_pdf_page

LOW = pipeline.Settings(effort="low")  # what the outcomes look at, at effort low


@dataclass
class WholePage:
    """A page read whole: what the page loop keeps of it."""

    ordinal: int
    record: dict  # for <stem>_model.json
    form: bytes  # the page as dump_page gives it
    warnings: list  # the warnings its reading gave (the document's)
    marks: list | None  # its furniture candidates (pdf/furniture.py), for a text-layer page
    page_idx: int
    extra: dict  # the page's ``extra`` (the page store keeps it beside the form)
    page: Page | None = None  # the page itself, when it was read in this process


def read_whole(pdf_page, ordinal: int, classify: bool, *, isolated: bool = False) -> WholePage:
    """Read the PDF page ``pdf_page`` (``ordinal``: its place among the pages read) through
    the outcome effort low gives it: blank, text layer, or failed. ``isolated``: this is the
    probe's child (a MemoryError ends it; see :func:`.sources.prepare_pdf_page`)."""
    item = prepare_pdf_page(pdf_page, ordinal, classify=classify, render=False, isolated=isolated)
    collected = Document(backend="vlm")  # the page's warnings (effort low cuts no picture)
    page, record = outcomes.read(item, collected, outcomes.Reading(LOW, isolated=isolated))
    marks = page_marks(page) if record.get("mode") == "text-layer" else None
    return WholePage(ordinal, record, dump_page(page), collected.warnings, marks,
                     page.page_idx, page.extra, page)


def read(item: Unread) -> WholePage:
    """The page ``item`` read whole: by the probe's child when pages are probed and it could,
    else here."""
    probe = item.pdf.probe()
    if probe is not None:
        data = probe.read(item.page.index, item.ordinal, item.ahead)
        if data is not None:
            try:
                return from_bytes(data)
            except Exception:  # noqa: BLE001 - not what a child of ours writes: read it here
                pass
    return read_whole(item.page, item.ordinal, item.classify)


def to_bytes(whole: WholePage) -> bytes:
    """What the child hands back for a page (:func:`from_bytes` reads it)."""
    return pickle.dumps((whole.ordinal, whole.record, whole.form, whole.warnings, whole.marks,
                         whole.page_idx, whole.extra), protocol=pickle.HIGHEST_PROTOCOL)


def from_bytes(data: bytes) -> WholePage:
    """The page the child handed back; plain data only (the child read an untrusted file)."""
    fields = load_plain(data)
    if not (type(fields) is tuple and len(fields) == 7 and isinstance(fields[1], dict)
            and isinstance(fields[2], bytes) and isinstance(fields[3], list)
            and isinstance(fields[6], dict)):
        raise pickle.UnpicklingError("not a page")
    return WholePage(*fields)


def _serve(pdf_page, ordinal: int, reading: dict) -> bytes:
    return to_bytes(read_whole(pdf_page, ordinal, reading["classify"], isolated=True))


if __name__ == "__main__":
    import gc

    from mineru_tui.collector import collect_less
    from mineru_tui.pdf import probe_child

    gc.freeze()  # what the imports made is never garbage: no collection walks it
    collect_less()  # as ``parse`` does
    probe_child.main(_serve)
