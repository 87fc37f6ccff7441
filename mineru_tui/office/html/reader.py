"""The .html/.htm/.xhtml reader: one page of blocks from the static document.

An image is read from a ``data:`` URI, or from a file beside the document when its path
stays inside the document's folder (symbolic links resolved); a picture on the web is
written as a reference to its address (``![alt](https://...)``), never fetched. A relative link is made absolute against ``<base href>``, else against
the page's own address as it states it (``<link rel="canonical">`` or ``og:url``), when
that is http(s); otherwise it goes nowhere (the link allow-list keeps no relative
target) and its text stays.
"""

from __future__ import annotations

import base64
import functools
import os
from pathlib import Path
from urllib.parse import SplitResult, unquote, urljoin, urlsplit

from mineru_tui.detect import image_ext
from mineru_tui.document import Document, Page
from mineru_tui.errors import InputError, cut_warning
from mineru_tui.office.html.blocks import HtmlBlocks, Notes, tag_of
from mineru_tui.office.html.parse import (DEEP, MAX_ELEMENTS, flat_paragraphs, parse_html_bounded,
                                          to_text)

from mineru_tui.office.limits import MAX_HTML_BYTES
from mineru_tui.office.limits import MAX_PICTURE_BYTES as MAX_IMAGE_BYTES
from mineru_tui.office.pictures import data_identity, too_large

def data_uri(src: str, limit: int = MAX_IMAGE_BYTES) -> tuple[bytes, str] | None:
    """The picture a ``data:`` URI holds, or None (not a picture, broken); raises
    :class:`PictureDropped` when it is larger than ``limit``."""
    head, sep, payload = src.partition(",")
    if not sep or not head.lower().startswith("data:image/"):
        return None
    if len(payload) > limit * 4 // 3 + 4:
        raise too_large("in a data: URI", len(payload) * 3 // 4, limit)
    try:
        if head.lower().endswith(";base64"):
            data = base64.b64decode("".join(payload.split()), validate=False)
        else:
            data = unquote(payload).encode("latin-1", "replace")
    except (ValueError, UnicodeError):
        return None
    ext = image_ext(data)
    return (data, ext) if ext else None


def split_url(url: str) -> SplitResult | None:
    """``urlsplit``, or None for what it cannot split (``//](`` is an "invalid IPv6 URL")."""
    try:
        return urlsplit(url)
    except ValueError:
        return None


def join_url(base: str, url: str) -> str | None:
    """``urljoin``, or None when either side cannot be split."""
    try:
        return urljoin(base, url)
    except ValueError:
        return None


class WebLinks:
    """A web page's links and remote pictures, made absolute against its ``base`` (the
    page's ``<base href>`` or address): what every page's resources share."""

    base: str | None = None

    def link(self, href: str) -> str | None:
        return resolve_link(href, self.base)

    def image_url(self, src: str) -> str | None:
        return remote_image(src, self.base)


class FolderResources(WebLinks):
    """Images from ``data:`` URIs and from files inside the document's folder."""

    def __init__(self, path: Path, doc: Document, base: str | None = None):
        self.folder = path.resolve().parent
        self.doc = doc
        self.base = base

    def _file(self, src: str) -> Path | None:
        """The file inside the page's folder that ``src`` names (links resolved), or None."""
        parts = split_url(src)
        if parts is None or parts.scheme or parts.netloc or src.startswith(("/", "\\")):
            return None  # the network, or an absolute path: never
        rel = unquote(parts.path)
        if not rel or "\x00" in rel:
            return None
        try:
            target = (self.folder / rel).resolve()
            target.relative_to(self.folder)
        except (ValueError, OSError):
            return None  # ../ or a link out of the folder
        return target if target.is_file() else None

    def image_key(self, src: str):
        if src.lower().startswith("data:"):
            return data_identity(src)
        target = self._file(src)
        return None if target is None else ("file", str(target))

    def image(self, src: str) -> tuple[bytes, str] | None:
        if src.lower().startswith("data:"):
            return data_uri(src)
        target = self._file(src)
        if target is None:
            return None
        try:
            with open(target, "rb") as f:
                data = f.read(MAX_IMAGE_BYTES + 1)
        except OSError:
            return None
        if len(data) > MAX_IMAGE_BYTES:
            raise too_large(repr(src), os.path.getsize(target))
        ext = image_ext(data)
        return (data, ext) if ext else None


def remote_image(src: str, base: str | None) -> str | None:
    """The web address of a picture that is not in the document: an absolute http(s)
    ``src``, or a relative one made absolute against the page's http(s) ``base`` (a
    ``//host/x`` source without a base takes https). Only its address is kept; nothing
    is fetched."""
    src = src.strip()
    parts = split_url(src)
    if parts is None or src.lower().startswith("data:"):
        return None
    scheme = parts.scheme.lower()
    if scheme in ("http", "https"):
        return src if parts.netloc else None
    if scheme:
        return None
    if base and _web_base(base):
        return join_url(base, src)
    if src.startswith("//") and parts.netloc:
        return "https:" + src
    return None


def resolve_link(href: str, base: str | None) -> str | None:
    """``href`` as a target worth keeping: absolute http(s)/mailto, ``#id``, or a relative
    one made absolute against an http(s) ``base``; None otherwise."""
    href = href.strip()
    if not href:
        return None
    if href.startswith("#"):
        return href if len(href) > 1 else None
    parts = split_url(href)
    if parts is None:
        return None
    scheme = parts.scheme.lower()
    if scheme in ("http", "https", "mailto"):
        return href
    if not scheme and base and _web_base(base):
        return join_url(base, href)
    return None


@functools.lru_cache(maxsize=64)
def _web_base(base: str) -> bool:
    parts = split_url(base)
    return parts is not None and parts.scheme.lower() in ("http", "https")


def page_base(root) -> str | None:
    """The http(s) address relative links are relative to: ``<base href>``, else the
    page's own address as it states it (``<link rel="canonical">``, ``og:url``); None
    when the page names none (a ``<base>`` that is not http(s) stops the search)."""
    own = None
    for el in root.iter():
        tag = tag_of(el)
        if tag == "body":
            break
        if tag == "base" and el.get("href"):
            return _web_url(el.get("href"))
        if own is None and tag == "link" and "canonical" in (el.get("rel") or "").lower().split():
            own = _web_url(el.get("href") or "")
        elif own is None and tag == "meta" and (el.get("property") or "").lower() == "og:url":
            own = _web_url(el.get("content") or "")
    return own


def _web_url(url: str) -> str | None:
    url = url.strip()
    parts = split_url(url)
    return url if parts is not None and parts.scheme.lower() in ("http", "https") \
        and parts.netloc else None


def read_html_text(text: str, doc: Document, resources_for) -> list:
    """The blocks of one HTML document's text; ``resources_for(base)`` gives its
    :class:`~.blocks.Resources`. Falls back to plain paragraphs when the parser lost
    content to nesting (with a warning)."""
    from mineru_tui.document import text_block, text_span

    root, cut = parse_html_bounded(text)
    if cut:
        doc.warnings.append(cut_warning(f"the page has more than {MAX_ELEMENTS:,} elements; "
                                        "the rest is left out"))
    resources = resources_for(page_base(root))
    notes = Notes(resources.link)
    notes.scan(root)
    notes.resolve([root])
    walker = HtmlBlocks(doc, resources, notes)
    blocks = walker.read(root) + walker.note_blocks()
    if walker.deepest >= DEEP:  # libxml2 stops at 2048 levels and drops the rest
        doc.warnings.append("the page is nested too deeply to read its structure; its text "
                            "is read as plain paragraphs")
        return [text_block([text_span(t)]) for t in flat_paragraphs(text)]
    return blocks


def read_html(path: str | Path) -> Document:
    """Read an HTML file into a one-page :class:`Document` (backend "office")."""
    path = Path(path)
    size = os.path.getsize(path)
    if size > MAX_HTML_BYTES:
        raise InputError(f"refused: the page holds more than {MAX_HTML_BYTES >> 20} MiB of "
                         f"HTML to read (the parse budget for this format)")
    data = path.read_bytes()
    doc = Document(backend="office")
    text = to_text(data)
    blocks = read_html_text(text, doc, lambda base: FolderResources(path, doc, base))
    doc.pages.append(Page(page_idx=0, para_blocks=blocks))
    return doc  # an empty page: the epilogue of every format says so (office/__init__.py)
