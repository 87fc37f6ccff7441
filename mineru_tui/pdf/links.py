"""Links from the page's link annotations: the words under a link's rectangle link to its
URI, when the URI passes the rules every output follows (``http``, ``https``,
``mailto``; see :mod:`mineru_tui.document.links`). Links inside the document (``GoTo``
actions, named destinations) carry no URI and are left as text.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from mineru_tui.pdf.chars import Box, Char

MAX_URI = 4096
MAX_LINK_CHARS = 2000  # characters under one link; a bigger rectangle links no words
MAX_PAGE_LINK_CHARS = 50_000  # characters read for all of a page's links (under 1 s)


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


class _CharIndex:
    """The page's characters sorted by their centre's height, so a link finds the ones under
    its rectangle by bisection over the rows it spans, instead of a loop over the whole
    page for every link (plain lists: a page's few links do not pay for importing numpy)."""

    def __init__(self, chars: list[Char]):
        self.order = sorted(range(len(chars)), key=lambda i: chars[i].cy)
        self.cy = [chars[i].cy for i in self.order]
        self.cx = [chars[i].cx for i in self.order]
        self.chars = chars

    def under(self, box: Box) -> list[int]:
        """The page positions (ascending, as ``chars`` has them) of the characters whose
        centre lies in ``box`` grown by one point."""
        x0, y0, x1, y1 = box
        lo, hi = bisect_left(self.cy, y0 - 1), bisect_right(self.cy, y1 + 1)
        left, right, cx, order = x0 - 1, x1 + 1, self.cx, self.order
        return sorted(order[k] for k in range(lo, hi) if cx[k] >= left and cx[k] <= right)


def link_texts(links: list[PageLink], chars: list[Char]) -> list[tuple[str, str]]:
    """``(text under the link, uri)`` for each link that covers any characters."""
    return [(text, uri) for text, uri, _ in linked_texts(links, chars)]


class LinkTexts(list):
    """:func:`linked_texts`' answer, ``(text, uri, box)`` items; ``cut`` is true when the
    page's bound (:data:`MAX_PAGE_LINK_CHARS`) left the rest of its links as plain text."""

    cut = False


def linked_texts(links: list[PageLink], chars: list[Char]) -> LinkTexts:
    """``(text under the link, uri, box)`` for each link that covers some text.

    The characters are indexed once for all the links (:class:`_CharIndex`); a link over
    more than :data:`MAX_LINK_CHARS` characters (a rectangle over a whole page) is no link
    a reader follows from its words and is left as text, and links over the same characters
    share one reading, so a page's links cost about their own text, not links × page;
    past :data:`MAX_PAGE_LINK_CHARS` characters read in all, the rest stay plain text."""
    from mineru_tui.pdf.lines import build_lines, join_lines

    out = LinkTexts()
    if not links or not chars:
        return out
    index = _CharIndex(chars)
    texts: dict[tuple[int, ...], str] = {}  # the characters covered → their text
    spent = 0  # characters read into link texts, against MAX_PAGE_LINK_CHARS
    for link in links:
        positions = index.under(link.box)
        if not positions or len(positions) > MAX_LINK_CHARS:
            continue
        key = tuple(positions)
        text = texts.get(key)
        if text is None:
            spent += len(positions)
            if spent > MAX_PAGE_LINK_CHARS:
                out.cut = True  # the rest of the page's links stay text (the page says so)
                break
            under = [chars[i] for i in positions]
            text = ""
            if any(not c.text.isspace() for c in under):
                text = join_lines([ln.text for ln in build_lines(under, 0)])
            texts[key] = text
        if text:
            out.append((text, link.uri, link.box))
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
