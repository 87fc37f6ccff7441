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

from mineru_tui.document import Block, BlockType, Document, Page, SpanType, image_block
from mineru_tui.errors import InputError, cut_warning
from mineru_tui.office.html.blocks import (_NOTE_CONTAINERS, HtmlBlocks, Notes, _is_noteref, attr,
                                           tag_of)
from mineru_tui.office.html.parse import DEEP, MAX_ELEMENTS, parse_xhtml_bounded
from mineru_tui.detect import image_ext
from mineru_tui.office.html.reader import (MAX_IMAGE_BYTES, data_uri, remote_image,
                                           split_url)
from mineru_tui.office.package import Package, PartError, local

from mineru_tui.office.limits import EPUB_BUDGET, MAX_PIECES
from mineru_tui.office.pictures import data_identity
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
    """The chapters in spine order, one tree in memory at a time: a first pass finds the
    footnotes (their references and bodies, as link targets), a second reads each chapter
    and the bodies of the notes it holds. The parse budget is charged once, in the first
    pass (dense XHTML costs 60-90 bytes of memory a byte as a tree, so no two are kept)."""
    resources = _Resources(pkg, doc, chapters)
    notes = _BookNotes(resources.link)
    readable = []
    for item in spine:
        if item.media.startswith("image/"):
            readable.append(item)
            continue
        root = _chapter_tree(pkg, doc, item, spend=True)
        if root is not None:
            resources.at(item.name)
            notes.scan_chapter(item.name, root)
            readable.append(item)
        del root
    notes.decide()
    walker = HtmlBlocks(doc, resources, notes)
    rendered: dict[str, list] = {}  # note target -> its body's lines
    for item in readable:
        if walker.pieces > MAX_PIECES:
            break  # the book's pieces are spent (said once): no more trees to build
        resources.at(item.name)
        page = Page(page_idx=len(doc.pages), name=toc.get(item.name))
        if item.media.startswith("image/"):
            name = walker.image_name(item.name.rsplit("/", 1)[-1])
            page.para_blocks = [image_block(name)] if name else []
        else:
            root = _chapter_tree(pkg, doc, item, spend=False)
            if root is None:
                continue
            notes.enter(item.name, root)
            walker.deepest = 0
            page.para_blocks = walker.read(root)
            for target, body in notes.bodies_here():
                rendered[target] = notes.deferred_lines(walker, body)
            if walker.deepest >= DEEP:  # libxml2 stops at 2048 levels and drops the rest
                doc.warnings.append(cut_warning(f"{item.name} is nested too deeply; the parser "
                                                "left out what lies past 2048 levels"))
            del root
        if page.para_blocks:
            doc.pages.append(page)
    if doc.pages:  # no pages: the epilogue of every format says it is empty
        doc.pages[-1].para_blocks += notes.note_blocks(rendered)


def _chapter_tree(pkg: Package, doc: Document, item: _Item, spend: bool):
    """One chapter's tree (None when it cannot be read, with a warning the first time);
    ``spend`` charges the parse budget (the first of the two reads)."""
    try:
        if spend:
            with pkg.stream(item.name) as f:
                data = f.read()
        else:
            data = pkg.blob(item.name)
    except PartError as exc:
        if spend:
            doc.warnings.append(f"a chapter could not be read: {exc}")
        return None
    except Exception as exc:  # a damaged member: that chapter only
        if spend:
            doc.warnings.append(f"a chapter could not be read ({item.name}): "
                                f"{' '.join(str(exc).split())[:160]}")
        return None
    root, cut = parse_xhtml_bounded(data)
    if cut and spend:
        doc.warnings.append(cut_warning(f"{item.name} has more than {MAX_ELEMENTS:,} elements; "
                                        "the rest of it is left out"))
    return root


_PLACEHOLDER = "\x00note:"  # a note reference's label, until the labels are known


class _BookNotes(Notes):
    """A book's footnotes found chapter by chapter without keeping the trees.

    :meth:`scan_chapter` records, as link targets (strings), which ids each chapter holds
    and which links are note references; :meth:`decide` picks the notes as
    :meth:`Notes.resolve` does; :meth:`enter` gives the walker the elements of the one
    chapter being read. A note's body is read while its chapter is in memory, its
    references' labels filled in at the end, in the order the walker met them, so the
    numbers are those of a walk over the whole book."""

    def __init__(self, link):
        super().__init__(link)
        self._where: dict[str, tuple[str, bool]] = {}  # target -> (chapter, can be a note)
        self._anchors: list[tuple[str, frozenset, frozenset]] = []  # (target, ancestors, own ids)
        self.notes: set[str] = set()  # the targets that are notes
        self._deferred: list[str] | None = None
        self._nested: dict[str, list[str]] = {}  # note target -> the notes its body references
        self.here = ""

    def scan_chapter(self, chapter: str, root) -> None:
        for el in root.iter():
            if not isinstance(el.tag, str):
                continue
            ident = el.get("id")
            if ident:
                target = self._link("#" + ident)
                if target and target not in self._where:
                    self._where[target] = (chapter, tag_of(el) in _NOTE_CONTAINERS)
            if tag_of(el) == "a" and el.get("href") and _is_noteref(el):
                target = self._link(el.get("href").strip())
                if target:
                    above = frozenset(self._link("#" + a.get("id")) for a in el.iterancestors()
                                      if a.get("id"))
                    own = frozenset(self._link("#" + x.get("id")) for x in (el, el.getparent())
                                    if x is not None and x.get("id"))
                    self._anchors.append((target, above, own))

    def decide(self) -> None:
        for target, above, own in self._anchors:
            where = self._where.get(target)
            if where is None or not where[1] or target in above:
                continue
            self.notes.add(target)
            self.ref_ids |= own
        self._anchors = []
        self.targets = dict.fromkeys(self.notes)  # membership only: bodies are per chapter

    def enter(self, chapter: str, root) -> None:
        """The note bodies and references of the chapter about to be read."""
        self.here = chapter
        self.bodies, self.refs, self._here_bodies = set(), set(), []
        seen: set[str] = set()
        for el in root.iter():
            if not isinstance(el.tag, str):
                continue
            ident = el.get("id")
            if ident:
                target = self._link("#" + ident)
                if (target in self.notes and target not in seen
                        and self._where[target][0] == chapter):
                    seen.add(target)
                    self.bodies.add(el)
                    self._here_bodies.append((target, el))
        for el in root.iter():
            if tag_of(el) == "a" and el.get("href") and _is_noteref(el):
                target = self._link(el.get("href").strip())
                if target in self.notes and not any(b in self.bodies and self._is(b, target)
                                                    for b in el.iterancestors()):
                    self.refs.add(el)

    def _is(self, el, target: str) -> bool:
        return bool(el.get("id")) and self._link("#" + el.get("id")) == target

    def bodies_here(self) -> list:
        return self._here_bodies

    def deferred_lines(self, walker: HtmlBlocks, body) -> list:
        """A body's lines, the labels of the references in it left for later."""
        self._deferred = []
        try:
            lines = walker.note_lines(body)
        finally:
            nested, self._deferred = self._deferred, None
        for target, el in self._here_bodies:
            if el is body:
                self._nested[target] = nested
        return lines

    def label(self, target: str) -> str:
        if self._deferred is not None:
            self._deferred.append(target)
            return _PLACEHOLDER + target
        return super().label(target)

    def note_blocks(self, rendered: dict[str, list]) -> list[Block]:
        """One ``page_footnote`` block per referenced note, in reference order (a note's
        own references numbered when it is reached, as a walk of the whole book does)."""
        out = []
        done = set()
        i = 0
        while i < len(self.order):
            target = self.order[i]
            i += 1
            if target in done or target not in rendered:
                continue
            done.add(target)
            for inner in self._nested.get(target, ()):
                super().label(inner)
            if rendered[target]:
                out.append(Block(BlockType.PAGE_FOOTNOTE, lines=rendered[target],
                                 note_id=self.labels[target]))
        for block in out:  # the labels of references inside notes, now known
            for line in block.lines:
                for span in line.spans:
                    if span.type == SpanType.FOOTNOTE_REF and span.content.startswith(_PLACEHOLDER):
                        span.content = self.labels.get(span.content[len(_PLACEHOLDER):], "")
        return out


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

    def image_key(self, src: str):
        if src.lower().startswith("data:"):
            return data_identity(src)
        name = self._member(src)
        member = self.pkg.member(name) if name is not None else None
        return None if member is None else ("member", member)

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
            with pkg.stream(nav.name) as f:  # charged to the budget like a chapter
                root = parse_xhtml_bounded(f.read())[0]
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
