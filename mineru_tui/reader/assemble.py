"""What a file's pages make together: the warnings and fixes that need every page, the
cross-page merge, and the extra outputs (``<stem>_model.json``, ``<stem>_layout.pdf``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from copy import copy
from functools import partial
from pathlib import Path

from mineru_tui import __version__
from mineru_tui.console import JSON_ESCAPED
from mineru_tui.document import Document, Page, to_markdown
from mineru_tui.document.headings import heading_candidates, level_headings
from mineru_tui.document.json_stream import json_chunks
from mineru_tui.document.mineru4.model_output import model_output_chunks
from mineru_tui.errors import cut_warning
from mineru_tui.pdf import LayoutPage
from mineru_tui.pdf.layout_pdf import save_layout_pdf
from mineru_tui.pdf.furniture import drop_furniture, drop_marked, page_marks, repeated
from mineru_tui.pdf.headings import pdf_outline
from mineru_tui.pdf.page_range import format_pages
from mineru_tui.reader import merge

MODEL_JSON = "_model.json"
LAYOUT_PDF = "_layout.pdf"


def page_markdown(doc, page) -> str:
    """One page's Markdown, as the document would write it (for ``PageDone``)."""
    return to_markdown(one_page(doc, page))


def one_page(doc, page):
    """``doc`` with ``page`` as its only page (its pictures and settings kept)."""
    one = copy(doc)
    one.pages = [page]
    return one


def warn_nothing_read(doc, records) -> None:
    """A file whose every page came out empty says so (``parse`` shows it without ``-v``)."""
    if not doc.pages or any(p.para_blocks or p.discarded_blocks for p in doc.pages):
        return
    if all(r.get("blank") for r in records):
        doc.warnings.append(cut_warning("nothing was read: every page is blank"))
    else:
        doc.warnings.append(cut_warning("nothing was read: every page came out empty"))


def _warn_failed_pages(doc, records) -> None:
    """One warning per reason, naming its pages: a 300-page scan read at effort low
    says once that its pages need the model, not 300 times."""
    by_reason: dict[str, list[int]] = {}
    for r in records:
        if "error" in r:
            by_reason.setdefault(r["error"], []).append(r["page_no"])
    for reason, numbers in by_reason.items():
        what = f"page {numbers[0]} was" if len(numbers) == 1 else f"pages {format_pages(numbers)} were"
        doc.warnings.append(cut_warning(f"{what} not read: {reason}"))


def drop_text_layer_furniture(doc, records) -> None:
    """Running headers, footers and page numbers of the pages read from the text layer
    alone go to the discarded blocks (the model finds them on the other pages)."""
    text_layer = [p for p, r in zip(doc.pages, records) if r.get("mode") == "text-layer"]
    if text_layer:
        drop_furniture(text_layer)


def finish(doc, records, path, kind: str, reading, marks: dict[int, list] | None = None):
    """What needs every page, and the extra outputs; returns ``doc``. ``marks`` are the
    text-layer pages' furniture marks by position (:func:`~mineru_tui.pdf.furniture.page_marks`),
    taken as each page was read."""
    _warn_failed_pages(doc, records)
    across_pages(doc, records, pdf_outline(path) if kind == "pdf" else None, marks)
    settings, engine = reading.settings, reading.engine
    if settings.effort == "low":  # no model runs: name no engine (the auto pick never ran)
        engine = None
    meta = {"_version_name": f"mineru-tui {__version__}", "file": Path(path).name, "kind": kind,
            "engine": getattr(engine, "name", None), "model": getattr(engine, "model_id", None),
            "mode": settings.mode, "effort": settings.effort, "image_analysis": settings.image_analysis,
            "max_new_tokens": settings.max_new_tokens, "pages": records}
    doc.extra_outputs = {MODEL_JSON: lambda: model_json_chunks(meta),
                         LAYOUT_PDF: lambda: [lambda f: write_layout(f, Path(path), kind, records)]}
    # what MinerU 4's set records (document/mineru4), and its model_output.json
    doc.meta.update(kind=kind, effort=settings.effort, engine=meta["engine"], model=meta["model"],
                    model_output=None if settings.effort == "low"
                    else lambda middle: model_output_chunks(meta, middle))
    return doc


def across_pages(doc, records, outline, marks: dict[int, list] | None = None) -> None:
    """The passes that need more than one page, in one walk over ``doc.pages`` that holds a
    few pages at a time (the pages may be on disk: ``document/page_store.py``):

    * the text layer's running furniture, from every page's marks (small: the lines in the
      top and bottom bands), as :func:`drop_text_layer_furniture` drops it;
    * paragraphs and tables continuing across a page break, page by page with the next
      (a table's first part stays in memory while later pages join it) — reader/merge.py;
    * heading levels over the whole document with the PDF's outline, from the blocks that
      can be headings (document/headings.py), given back to their pages when they are read.
    """
    pages = doc.pages
    text_layer = [i for i, r in enumerate(records) if r.get("mode") == "text-layer"]
    if marks is None:
        marks = {i: page_marks(pages[i]) for i in text_layer}
    repeats = repeated([marks[i] for i in text_layer])
    layer = set(text_layer)
    window: dict[int, Page] = {}  # pages read and not yet done with
    changed: set[int] = set()
    hosts: dict = {}
    candidates: dict[int, list] = {}
    outlined = any(e.title.strip() for e in outline or ())

    def done(j: int) -> None:
        page = window.pop(j)
        candidates[j] = heading_candidates(page, outlined)
        if j in changed and not isinstance(pages, list):  # on disk: the change goes back there
            pages[j] = page

    redo = getattr(pages, "redo", None)  # on disk: the move made again when the page is read
    for i in range(len(pages)):
        page = pages[i]
        window[i] = page
        if i in layer and drop_marked(page, marks[i], repeats, len(text_layer)):
            if redo is not None:
                redo(i, partial(drop_marked, marks=marks[i], repeats=repeats, pages=len(text_layer)))
            else:
                changed.add(i)
        if i > 0 and merge.merge_pair(window[i - 1], page, hosts):
            changed.update(window)  # the pair, and a table's first part on an earlier page
        host = merge.chain_host(page, hosts)
        for j in sorted(window):
            if j != i and not (host is not None and any(b is host for b in window[j].para_blocks)):
                done(j)
    for j in sorted(window):
        done(j)
    # heading levels: a document of the blocks that can be headings, one page per page
    proxy = Document(backend=doc.backend, pages=[
        Page(pages_idx, para_blocks=[b for _, b in candidates[j]], extra=_page_no(extra))
        for j, (pages_idx, extra) in enumerate(_page_heads(pages))])
    if level_headings(proxy, outline):
        amend = getattr(pages, "amend", None)  # pages on disk take their headings when read
        if amend is not None:
            for j, found in candidates.items():
                if found:
                    amend(j, found)


def _page_heads(pages):
    """(page_idx, extra) of every page, without reading the pages when they are on disk."""
    heads = getattr(pages, "heads", None)
    return heads() if heads is not None else [(p.page_idx, p.extra) for p in pages]


def _page_no(extra: dict) -> dict:
    return {"page_no": extra["page_no"]} if "page_no" in extra else {}


def json_bytes(data) -> bytes:
    """JSON as the output set writes it: DEL, C1 and bidi controls as escapes."""
    text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    return JSON_ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode("utf-8")


def model_json_chunks(meta: dict) -> Iterator[str]:
    """The text of :func:`json_bytes` ``(meta)`` a page record at a time (``meta["pages"]``
    is the last key)."""
    for piece in json_chunks(meta["pages"], meta, "pages", indent=1):
        yield JSON_ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", piece)
    yield "\n"


def _layout_pages(source: Path, kind: str, records: list[dict]) -> Iterator[LayoutPage]:
    pdf = kind == "pdf"
    return (LayoutPage([(b["type"], tuple(b["bbox"]), i) for i, b in enumerate(r.get("blocks", []))],
                       pdf_path=str(source) if pdf else None, page_index=r["page_no"] - 1,
                       image=None if pdf else str(source))
            for r in records)


def write_layout(dest, source: Path, kind: str, records: list[dict]) -> None:
    """``<stem>_layout.pdf``, each page with its layout boxes (drawn by the pdf module),
    written straight to ``dest``, an open binary file."""
    save_layout_pdf(_layout_pages(source, kind, records), dest)
