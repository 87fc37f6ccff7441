"""Links from the page's link annotations: the words under a link's rectangle link to its
URI, when the URI passes the rules every output follows (``http``, ``https``,
``mailto``; see :mod:`mineru_tui.document.links`). Links inside the document (``GoTo``
actions, named destinations) carry no URI and are left as text.
"""

from __future__ import annotations

from dataclasses import dataclass

from mineru_tui.pdf.chars import Box, Char

MAX_URI = 4096


@dataclass(frozen=True, slots=True)
class PageLink:
    box: Box  # display frame
    uri: str


def page_links(page) -> list[PageLink]:
    """The page's web and mail links (annotations with a URI action)."""
    import ctypes

    import pypdfium2.raw as pdfium_c

    from mineru_tui.document.links import safe_url

    raw, doc = page.raw, page.raw.pdf
    out: list[PageLink] = []
    pos = ctypes.c_int(0)
    link = pdfium_c.FPDF_LINK()
    rect = pdfium_c.FS_RECTF()
    for _ in range(10_000):  # a bound: a page with more links than this is not a document
        if not pdfium_c.FPDFLink_Enumerate(raw, ctypes.byref(pos), ctypes.byref(link)):
            break
        action = pdfium_c.FPDFLink_GetAction(link)
        if not action or pdfium_c.FPDFAction_GetType(action) != pdfium_c.PDFACTION_URI:
            continue
        n = pdfium_c.FPDFAction_GetURIPath(doc, action, None, 0)
        if n <= 1 or n > MAX_URI:
            continue
        buf = ctypes.create_string_buffer(n)
        pdfium_c.FPDFAction_GetURIPath(doc, action, buf, n)
        uri = safe_url(buf.value.decode("latin-1").strip())
        if not uri or uri.startswith("#"):
            continue
        if not pdfium_c.FPDFLink_GetAnnotRect(link, ctypes.byref(rect)):
            continue
        box = page.rect_to_display(rect.left, rect.bottom, rect.right, rect.top)
        out.append(PageLink(box, uri))
    return out


def link_texts(links: list[PageLink], chars: list[Char]) -> list[tuple[str, str]]:
    """``(text under the link, uri)`` for each link that covers any characters."""
    from mineru_tui.pdf.lines import build_lines, join_lines

    out = []
    for link in links:
        x0, y0, x1, y1 = link.box
        under = [c for c in chars if x0 - 1 <= c.cx <= x1 + 1 and y0 - 1 <= c.cy <= y1 + 1]
        if not any(not c.text.isspace() for c in under):
            continue
        text = join_lines([ln.text for ln in build_lines(under, 0)])
        if text:
            out.append((text, link.uri))
    return out


def apply_links(spans: list, found: list[tuple[str, str]]) -> list:
    """``spans`` with each linked text (first occurrence in a plain text span) cut out into
    a span of its own carrying the link."""
    from mineru_tui.document.model import Span, SpanType

    for text, uri in found:
        for i, s in enumerate(spans):
            if s.type != SpanType.TEXT or s.link or text not in s.content:
                continue
            before, _, after = s.content.partition(text)
            parts = [Span(SpanType.TEXT, before, s.style)] if before else []
            parts.append(Span(SpanType.TEXT, text, s.style, uri))
            if after:
                parts.append(Span(SpanType.TEXT, after, s.style))
            spans[i:i + 1] = parts
            break
    return spans
