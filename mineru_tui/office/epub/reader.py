"""The .epub reader: the OPF spine in order, one page per chapter.

``META-INF/container.xml`` names the package document (OPF); its manifest lists the
files and its spine the reading order. Every spine item that is an (X)HTML document is a
chapter, read by the HTML walker (:mod:`mineru_tui.office.html.blocks`) into one
:class:`Page` named after its entry in the table of contents (the EPUB 3 navigation
document, else the EPUB 2 NCX): the ``page_name`` of the middle JSON. The Markdown keeps the
chapter's own headings only (a label such as "Cover" is not the book's text). A spine
item that is a picture is an image block.

Links between chapters stay inside the document: ``ch2.xhtml#sec1`` becomes ``#sec1``
and ``ch2.xhtml`` the chapter's own anchor (``#ch2``); links to the web stay as they are.
Footnotes may live in another chapter than their reference (EPUB 3 ``noteref`` /
``footnote``): every chapter is scanned before any is read. Pictures come from the
package only.

Bounds: the zip limits of :mod:`mineru_tui.detect`, a parse budget on the XHTML and XML
read (:data:`EPUB_BUDGET`), pictures up to 64 MiB each. A book whose chapters are
encrypted (DRM; ``META-INF/encryption.xml`` naming a chapter) is refused with one line;
obfuscated fonts alone are fine.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from urllib.parse import unquote

from mineru_tui.document import Document, Page, image_block
from mineru_tui.errors import InputError, cut_warning
from mineru_tui.office.html.blocks import HtmlBlocks, Notes, attr, tag_of
from mineru_tui.office.html.parse import DEEP, parse_xhtml
from mineru_tui.detect import image_ext
from mineru_tui.office.html.reader import (MAX_IMAGE_BYTES, data_uri, remote_image,
                                           split_url)
from mineru_tui.office.package import Package, PartError, local

EPUB_BUDGET = 64 << 20  # XHTML and XML parsed per book; a long novel is a few MiB
_HTML_TYPES = ("application/xhtml+xml", "text/html", "application/x-dtbook+xml")
_SLUG = re.compile(r"[^A-Za-z0-9_\-]+")


class _Item:
    __slots__ = ("id", "name", "media", "props")

    def __init__(self, id: str, name: str, media: str, props: str):
        self.id, self.name, self.media, self.props = id, name, media, props


def read_epub(path: str | Path) -> Document:
    """Read an EPUB into a :class:`Document`, one page per spine document."""
    with Package(path, "epub", budget=EPUB_BUDGET) as pkg:
        doc = Document(backend="office", warnings=pkg.warnings)
        opf_name = _opf_name(pkg)
        try:
            opf = pkg.xml(opf_name)
        except PartError as exc:
            raise InputError(f"not a readable EPUB: its package document is broken ({exc})") from None
        folder = posixpath.dirname(opf_name)
        items = _manifest(opf, folder)
        spine = _spine(opf, items)
        if not spine:
            raise InputError("not a readable EPUB: its spine lists no document")
        _refuse_drm(pkg, {i.name for i in spine})
        chapters = {i.name: "#" + _slug(i.name) for i in spine}
        toc = _toc(pkg, opf, items)
        _read(pkg, doc, spine, chapters, toc)
        pkg.check_budget()
    return doc


def _read(pkg: Package, doc: Document, spine: list[_Item], chapters: dict[str, str],
          toc: dict[str, str]) -> None:
    trees: list[tuple[_Item, object]] = []
    for item in spine:
        if item.media.startswith("image/"):
            trees.append((item, None))
            continue
        try:
            with pkg.stream(item.name) as f:
                data = f.read()
        except PartError as exc:
            doc.warnings.append(f"a chapter could not be read: {exc}")
            continue
        except Exception as exc:  # a damaged member: that chapter only
            doc.warnings.append(f"a chapter could not be read ({item.name}): "
                                f"{' '.join(str(exc).split())[:160]}")
            continue
        trees.append((item, parse_xhtml(data)))

    resources = _Resources(pkg, doc, chapters)
    notes = Notes(resources.link)
    for item, root in trees:
        if root is not None:
            resources.at(item.name)
            notes.scan(root)
    for item, root in trees:  # references resolve per chapter: hrefs are relative
        if root is not None:
            resources.at(item.name)
            notes.resolve([root])
    walker = HtmlBlocks(doc, resources, notes)
    for item, root in trees:
        resources.at(item.name)
        page = Page(page_idx=len(doc.pages), name=toc.get(item.name))
        if root is None:
            name = walker.image_name(item.name.rsplit("/", 1)[-1])
            page.para_blocks = [image_block(name)] if name else []
        else:
            walker.deepest = 0
            page.para_blocks = walker.read(root)
            if walker.deepest >= DEEP:  # libxml2 stops at 2048 levels and drops the rest
                doc.warnings.append(cut_warning(f"{item.name} is nested too deeply; the parser "
                                                "left out what lies past 2048 levels"))
        if page.para_blocks:
            doc.pages.append(page)
    if doc.pages:
        doc.pages[-1].para_blocks += walker.note_blocks()
    else:
        doc.warnings.append("the book has no text, table or picture to read")


class _Resources:
    """Pictures from the package; links between chapters as in-document anchors."""

    def __init__(self, pkg: Package, doc: Document, chapters: dict[str, str]):
        self.pkg = pkg
        self.doc = doc
        self.chapters = chapters
        self.here = ""

    def at(self, name: str) -> None:
        self.here = name

    def _member(self, href: str) -> str | None:
        parts = split_url(href)
        if parts is None or parts.scheme or parts.netloc:
            return None
        rel = unquote(parts.path)
        if not rel:
            return self.here
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(self.here), rel))
        return None if joined.startswith("../") or joined == ".." else joined.lstrip("/")

    def image(self, src: str) -> tuple[bytes, str] | None:
        if src.lower().startswith("data:"):
            return data_uri(src)
        name = self._member(src)
        if name is None or not self.pkg.has(name):
            return None
        data = self.pkg.try_blob(name, MAX_IMAGE_BYTES)
        ext = image_ext(data) if data else None
        return (data, ext) if ext else None

    def image_url(self, src: str) -> str | None:
        """A remote picture (EPUB 3 allows them): its absolute http(s) address only."""
        return remote_image(src, None) if "://" in src else None

    def link(self, href: str) -> str | None:
        href = href.strip()
        parts = split_url(href)
        if parts is None:
            return None
        scheme = parts.scheme.lower()
        if scheme in ("http", "https", "mailto"):
            return href
        if scheme or parts.netloc:
            return None
        if href.startswith("#"):
            return href if len(href) > 1 else self.chapters.get(self.here)
        name = self._member(href)
        if name is None or name not in self.chapters:
            return None
        return "#" + parts.fragment if parts.fragment else self.chapters[name]


def _slug(name: str) -> str:
    stem = posixpath.splitext(posixpath.basename(name))[0]
    return _SLUG.sub("-", stem).strip("-") or "chapter"


def _opf_name(pkg: Package) -> str:
    try:
        root = pkg.xml("META-INF/container.xml")
    except PartError:
        root = None
    if root is not None:
        for el in root.iter():
            if local(el) == "rootfile" and el.get("full-path"):
                media = el.get("media-type") or "application/oebps-package+xml"
                if media == "application/oebps-package+xml":
                    return el.get("full-path").lstrip("/")
    found = [n for n in pkg.names() if n.lower().endswith(".opf")]
    if not found:
        raise InputError("not a readable EPUB: it has no package document (.opf)")
    pkg.warnings.append("META-INF/container.xml is missing or broken; the book's "
                        f"package document was found by name ({found[0]})")
    return found[0]


def _manifest(opf, folder: str) -> dict[str, _Item]:
    items = {}
    for el in opf.iter():
        if local(el) == "item" and el.get("id") and el.get("href"):
            parts = split_url(el.get("href"))
            if parts is None:
                continue
            href = unquote(parts.path)
            name = posixpath.normpath(posixpath.join(folder, href)).lstrip("/")
            items[el.get("id")] = _Item(el.get("id"), name, (el.get("media-type") or "").lower(),
                                        el.get("properties") or "")
    return items


def _spine(opf, items: dict[str, _Item]) -> list[_Item]:
    out, seen = [], set()
    for el in opf.iter():
        if local(el) != "itemref":
            continue
        item = items.get(el.get("idref") or "")
        if item is None or item.name in seen:
            continue
        if item.media in _HTML_TYPES or item.media.startswith("image/") or \
                item.name.lower().endswith((".xhtml", ".html", ".htm")):
            seen.add(item.name)
            out.append(item)
    return out


def _refuse_drm(pkg: Package, chapters: set[str]) -> None:
    if not pkg.has("META-INF/encryption.xml"):
        return
    try:
        root = pkg.xml("META-INF/encryption.xml")
    except PartError:
        return
    for el in root.iter():
        if local(el) == "CipherReference":
            uri = unquote(el.get("URI") or "").lstrip("/")
            if uri in chapters:
                raise InputError("an encrypted (DRM-protected) EPUB: its chapters cannot be "
                                 "read without the seller's key")


def _toc(pkg: Package, opf, items: dict[str, _Item]) -> dict[str, str]:
    """Chapter part name → its first label in the table of contents."""
    out: dict[str, str] = {}
    nav = next((i for i in items.values() if "nav" in i.props.split()), None)
    try:
        if nav is not None:
            root = parse_xhtml(pkg.blob(nav.name))
            for el in root.iter():
                if tag_of(el) == "nav" and "toc" in (attr(el, "epub:type") or "toc").split():
                    for a in el.iter():
                        if tag_of(a) == "a" and a.get("href"):
                            _add(out, nav.name, a.get("href"), " ".join("".join(a.itertext()).split()))
                    break
        spine = next((el for el in opf.iter() if local(el) == "spine"), None)
        ncx = items.get(spine.get("toc") or "") if spine is not None else None
        if not out and ncx is not None:
            root = pkg.xml(ncx.name)
            for point in root.iter():
                if local(point) != "navPoint":
                    continue
                label = next((" ".join("".join(t.itertext()).split()) for t in point.iter()
                              if local(t) == "text"), "")
                content = next((c for c in point if local(c) == "content"), None)
                if content is not None and content.get("src"):
                    _add(out, ncx.name, content.get("src"), label)
    except (PartError, Exception) as exc:  # the TOC is a nicety: the chapters still read
        pkg.check_budget()
        pkg.warnings.append(f"the table of contents could not be read: {' '.join(str(exc).split())[:160]}")
    return out


def _add(out: dict[str, str], base: str, href: str, label: str) -> None:
    parts = split_url(href)
    if parts is None or parts.scheme or not label:
        return
    name = posixpath.normpath(posixpath.join(posixpath.dirname(base), unquote(parts.path))).lstrip("/")
    out.setdefault(name, label)
