"""The page reader's only contact with :mod:`mineru_tui.pdf` (rendering, text layer, drawing).

Kept in one place so the agreed interface is visible at a glance::

    open_pdf(path, pages) -> PdfDocument   # len(), .page_count_total, iterates PdfPage
    PdfPage: .index, .render(dpi) -> PIL image, .size_pt, .rotation, .close()
    classify_page(page) -> PageDecision(use_text_layer, reason)
    text_for_blocks(page, [(type, bbox)], image_size) -> [str | None]
    text_only_page(page) -> [Block]
    write_layout_pdf(path_out, pages_with_blocks)
"""

from __future__ import annotations

from pathlib import Path



def available() -> bool:
    try:
        import mineru_tui.pdf  # noqa: F401
    except ImportError:
        return False
    return True


def open_pdf(path: Path, pages: str | None):
    from mineru_tui.pdf import open_pdf as _open

    return _open(path, pages)


def render(page):
    return page.render()  # MinerU's size: 200 dpi, long edge at most 3500 px


def classify(page) -> dict:
    from mineru_tui.pdf import classify_page

    d = classify_page(page)
    return {"use_text_layer": bool(d.use_text_layer), "reason": str(d.reason)}


def text_for_blocks(page, blocks: list[tuple[str, list[float]]], image_size) -> list[str | None]:
    from mineru_tui.pdf import text_for_blocks as _fill

    return list(_fill(page, blocks, image_size))


def text_only_page(page) -> list:
    """The page's text blocks from its text layer; InputError-like failure when it has none."""
    from mineru_tui.pdf import NeedsModelError
    from mineru_tui.pdf import text_only_page as _text

    try:
        return list(_text(page))
    except NeedsModelError as e:
        from mineru_tui.reader.pipeline import PageFailed

        # the page number is in the warning that names the failed pages
        reason = e.reason[:1].lower() + e.reason[1:]
        raise PageFailed(f"the model is needed ({reason.rstrip('.')})") from None


def write_layout_pdf(path_out: Path, pages: list[dict]) -> None:
    """``pages``: ``{"kind": "pdf"|"image", "source", "index" (0-based page or frame),
    "blocks": [(type, normalised box, order)]}`` per page."""
    from mineru_tui.pdf import LayoutPage
    from mineru_tui.pdf import write_layout_pdf as _draw

    _draw(path_out, (LayoutPage(p["blocks"], pdf_path=p["source"] if p["kind"] == "pdf" else None,
                                page_index=p["index"], image=p["source"] if p["kind"] != "pdf" else None)
                     for p in pages))
