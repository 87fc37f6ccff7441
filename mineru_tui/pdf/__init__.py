"""PDF pieces of the page reader: opening and rendering pages, deciding per page whether the
text layer can be trusted, filling text-like layout blocks from it, reading a page from the
text layer alone, and drawing the layout over the pages (``<stem>_layout.pdf``).

pypdfium2 is imported only when a PDF is actually opened; importing this package is cheap.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "open_pdf": "reader", "PdfDocument": "reader", "PdfPage": "reader", "PageError": "reader",
    "RENDER_DPI": "reader", "MAX_RENDER_EDGE": "reader", "render_scale": "reader",
    "parse_pages": "page_range",
    "classify_page": "classify", "classify_document": "classify", "PageDecision": "classify",
    "DocumentDecision": "classify", "is_blank": "classify",
    "page_lines": "lines", "build_lines": "lines", "TextLine": "lines",
    "text_for_blocks": "blocks_text", "TEXT_LAYER_TYPES": "blocks_text",
    "text_to_spans": "blocks_text",
    "text_only_page": "text_only", "NeedsModelError": "text_only",
    "write_layout_pdf": "layout_pdf", "layout_pdf_bytes": "layout_pdf", "LayoutPage": "layout_pdf", "LAYOUT_COLOURS": "layout_pdf",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
