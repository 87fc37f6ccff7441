"""What a file's pages make together: the warnings and fixes that need every page, the
cross-page merge, and the extra outputs (``<stem>_model.json``, ``<stem>_layout.pdf``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from copy import copy
from pathlib import Path

from mineru_tui import __version__
from mineru_tui.console import JSON_ESCAPED
from mineru_tui.document import to_markdown
from mineru_tui.document.headings import level_headings
from mineru_tui.document.json_stream import json_chunks
from mineru_tui.document.mineru4.model_output import model_output_chunks
from mineru_tui.errors import cut_warning
from mineru_tui.pdf import LayoutPage
from mineru_tui.pdf.layout_pdf import save_layout_pdf
from mineru_tui.pdf.furniture import drop_furniture
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


def finish(doc, records, path, kind: str, reading):
    """What needs every page, and the extra outputs; returns ``doc``."""
    _warn_failed_pages(doc, records)
    drop_text_layer_furniture(doc, records)
    merge.merge_across_pages(doc)
    # heading levels over the whole document, with the PDF's outline (document/headings.py)
    level_headings(doc, pdf_outline(path) if kind == "pdf" else None)
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
