"""An HTML element tree as blocks of the document model: the static document only.

One walker serves HTML files, MHTML parts and EPUB chapters; what differs between them
(where an image's bytes come from, what an internal link points to) is a
:class:`Resources` object.

What reaches the model:

* headings ``<h1>``–``<h6>`` as titles; paragraphs and other block elements as text
  blocks, ``<br>`` as a new line; bold, italic, strike, underline, super/subscript and
  code styles from their tags;
* lists (``<ul>``, ``<ol>`` with ``start``, ``type``, ``reversed`` and ``<li value>``;
  ``<dl>`` as terms with their descriptions one level in) with their numbering, nested
  lists as deeper items;
* tables with ``colspan``/``rowspan`` (clipped to the table), header cells, captions and
  nested tables; a one-cell or ``role="presentation"`` layout table gives its content;
* links through :class:`Resources` (the output keeps only the safe ones,
  :mod:`mineru_tui.document.links`); images whose bytes :class:`Resources` can give,
  else the web address it gives for them (referenced, never fetched; the others leave
  their alt text, as a browser shows a broken picture); ``<figure>`` captions;
* footnotes: a note reference (``epub:type="noteref"``, ``role="doc-noteref"``, pandoc's
  ``footnote-ref``, or a short ``[1]``-like link in ``<sup>``) whose target is an element
  of the document becomes a ``[^n]`` reference, and that element a note at the end (its
  back-links left out);
* ``<pre>`` as a code block; MathML as LaTeX (its TeX annotation when it has one, else
  converted by :mod:`mineru_tui.office.mathml`).

What never does: scripts, styles, ``<noscript>``, templates, form controls, frames,
objects, media, canvases, anything ``hidden`` or styled ``display:none``, comments, and
every attribute but the few read above (so no event handler can travel).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Hashable
from typing import Callable, Protocol

from mineru_tui.document import (Block, BlockType, Cell, Document, Line, Span, SpanType, Table,
                                 image_block, list_block, table_block, text_span, title_block)
from mineru_tui.errors import cut_warning
from mineru_tui.office.limits import MAX_NESTING as MAX_DEPTH  # deeper: plain text
from mineru_tui.office.limits import MAX_PIECES, MAX_TABLE_CELLS
from mineru_tui.office.pictures import Pictures, data_identity

OPS_NS = "http://www.idpf.org/2007/ops"
MAX_SPAN = 1000  # colspan values above this are treated as 1000 (the HTML standard's cap)
MAX_ROWSPAN = 65534

_SKIP = frozenset({
    "script", "style", "noscript", "template", "head", "title", "meta", "link", "base",
    "input", "button", "select", "textarea", "option", "optgroup", "datalist", "output",
    "progress", "meter", "iframe", "frame", "frameset", "object", "embed", "applet", "param",
    "canvas", "audio", "video", "track", "source", "map", "area", "slot", "portal", "noembed",
    "noframes", "rp"})
_BLOCK = frozenset({
    "address", "article", "aside", "blockquote", "body", "center", "details", "dialog", "dd",
    "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3",
    "h4", "h5", "h6", "header", "hgroup", "hr", "html", "legend", "li", "main", "menu", "nav",
    "ol", "p", "pre", "section", "summary", "table", "ul", "caption", "tr", "td", "th",
    "tbody", "thead", "tfoot", "listing", "xmp", "plaintext", "search"})
_STYLE_TAGS = {
    "b": "bold", "strong": "bold", "i": "italic", "em": "italic", "cite": "italic",
    "dfn": "italic", "var": "italic", "s": "strike", "strike": "strike", "del": "strike",
    "u": "underline", "ins": "underline", "sup": "superscript", "sub": "subscript",
    "code": "code", "kbd": "code", "samp": "code", "tt": "code"}
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_WS = re.compile(r"[ \t\n\r\f]+")
_NOTE_TEXT = re.compile(r"^[\[(]?\s*[\w*†‡§¶#]{1,6}\s*[\])]?$")
_NOTE_CONTAINERS = frozenset({"aside", "li", "div", "p", "section", "dd", "span", "td",
                              "article", "footer"})
_LANG = re.compile(r"(?:^|\s)(?:language|lang)-([A-Za-z0-9_+\-]+)")


class Resources(Protocol):
    """Where a document's images and links lead (a file's folder, an MHTML, an EPUB)."""

    def image(self, src: str) -> tuple[bytes, str] | None:
        """The bytes and file extension of the image ``src`` names, or None; may raise
        :class:`~mineru_tui.office.pictures.PictureDropped` (too large)."""

    def image_key(self, src: str) -> Hashable | None:
        """What ``src`` names — the member, part or file it resolves to, or the ``data:``
        URI — so that every spelling of one picture is read once; None when it names
        nothing that can be read."""

    def link(self, href: str) -> str | None:
        """The link target to keep for ``href`` (``#id`` for a place in the document)."""

    def image_url(self, src: str) -> str | None:
        """The web address of a picture the document does not hold, or None."""


_TAG_NAMES: dict[str, str] = {}


def tag_of(el) -> str:
    """An element's lower-case local name ("" for comments and processing instructions)."""
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    name = _TAG_NAMES.get(tag)
    if name is None:
        name = tag.rpartition("}")[2].lower()
        if len(_TAG_NAMES) < 4096:  # a page may invent tags; the cache stays small
            _TAG_NAMES[tag] = name
    return name


def attr(el, name: str) -> str | None:
    """An attribute by local name: ``epub:type`` as the HTML parser keeps it, or in the
    OPS namespace as the XML parser does."""
    value = el.get(name)
    if value is None and name.startswith("epub:"):
        value = el.get(f"{{{OPS_NS}}}{name[5:]}")
    return value


def _hidden(el) -> bool:
    if el.get("hidden") is not None:
        return True
    style = el.get("style")
    return bool(style and _HIDDEN_STYLE.search(style))


@dataclass(frozen=True)
class _Ctx:
    style: frozenset = frozenset()
    link: str | None = None
    pre: bool = False
    depth: int = 0
    list_depth: int = 0


class _Para:
    """The paragraph being filled: lines of spans, whitespace collapsed as HTML does."""

    def __init__(self):
        self.lines: list[list[Span]] = [[]]

    def add(self, span: Span, pre: bool = False) -> None:
        line = self.lines[-1]
        if span.type == SpanType.TEXT and not pre:
            content = _WS.sub(" ", span.content)
            prev = line[-1] if line else None
            if prev is None or (prev.type == SpanType.TEXT and prev.content.endswith(" ")):
                content = content.lstrip(" ")
            if not content:
                return
            span.content = content
        line.append(span)

    def br(self) -> None:
        self.lines.append([])

    def blocks(self) -> list[Block]:
        lines = []
        for spans in self.lines:
            while spans and spans[-1].type == SpanType.TEXT and not spans[-1].content.strip():
                spans.pop()
            if spans and spans[-1].type == SpanType.TEXT:
                spans[-1].content = spans[-1].content.rstrip()
            if any(s.content.strip() or s.type != SpanType.TEXT for s in spans):
                lines.append(Line(spans))
        if not lines:
            return []
        spans = [s for line in lines for s in line.spans
                 if s.type != SpanType.TEXT or s.content.strip()]
        if all(s.type == SpanType.IMAGE for s in spans):  # a paragraph of pictures only
            return [image_block(s.image_path, s.content, image_url=s.image_url) for s in spans]
        return [Block(BlockType.TEXT, lines=lines)]


class Notes:
    """The document's footnotes: which links are references, which elements are bodies.

    Built from every tree of the document before any is walked (an EPUB's notes often
    live in another chapter than their references). ``link`` maps an ``href`` as the
    :class:`Resources` do, so that ``notes.xhtml#n1`` and ``#n1`` meet.
    """

    def __init__(self, link: Callable[[str], str | None]):
        self._link = link
        self.targets: dict[str, object] = {}  # "#id" -> the note body element
        self.bodies: set = set()  # note body elements (skipped where they stand)
        self.refs: set = set()  # reference elements
        self.ref_ids: set = set()  # "#id" of references: a link there from a note goes back
        self.labels: dict[str, str] = {}  # "#id" -> "1", "2"... in reference order
        self.order: list[str] = []
        self._ids: dict[str, object] = {}

    def scan(self, root) -> None:
        """Find the note references of one tree, and their bodies among ``root``'s ids."""
        for el in root.iter():
            ident = el.get("id") if isinstance(el.tag, str) else None
            if ident:
                target = self._link("#" + ident)
                if target:
                    self._ids.setdefault(target, el)

    def resolve(self, roots) -> None:
        """Decide the references and bodies once every tree is scanned."""
        ids = self._ids
        for root in roots:
            for a in root.iter():
                if tag_of(a) != "a" or not a.get("href"):
                    continue
                target = self._link(a.get("href").strip())
                body = ids.get(target) if target else None
                if body is None or not _is_noteref(a) or tag_of(body) not in _NOTE_CONTAINERS:
                    continue
                if body in set(a.iterancestors()):
                    continue  # the "note" holds its own reference: a plain link
                self.targets[target] = body
                self.bodies.add(body)
                self.refs.add(a)
                for anchor in (a, a.getparent()):  # what a back-link in the note points to
                    if anchor is not None and anchor.get("id"):
                        self.ref_ids.add(self._link("#" + anchor.get("id")))

    def label(self, target: str) -> str:
        if target not in self.labels:
            self.labels[target] = str(len(self.labels) + 1)
            self.order.append(target)
        return self.labels[target]


def _is_noteref(a) -> bool:
    kinds = (attr(a, "epub:type") or "").split() + (a.get("role") or "").split()
    if "noteref" in kinds or "doc-noteref" in kinds:
        return True
    classes = (a.get("class") or "").split()
    if "footnote-ref" in classes or "noteref" in classes or "footnote-reference" in classes:
        return True
    text = "".join(a.itertext()).strip()
    if not _NOTE_TEXT.match(text):
        return False
    parent = a.getparent()
    return (parent is not None and tag_of(parent) == "sup") or any(
        tag_of(k) == "sup" for k in a.iterdescendants())


def _is_backlink(a, notes: Notes) -> bool:
    kinds = (attr(a, "epub:type") or "").split() + (a.get("role") or "").split()
    classes = (a.get("class") or "").split()
    text = "".join(a.itertext()).strip()
    return ("backlink" in kinds or "doc-backlink" in kinds or "footnote-back" in classes
            or text in ("↩", "↩︎", "↑", "^", "⤴"))


class HtmlBlocks:
    """Walk element trees into blocks; ``doc`` receives images and warnings."""

    def __init__(self, doc: Document, resources: Resources, notes: Notes | None = None):
        self.doc = doc
        self.res = resources
        self.notes = notes or Notes(resources.link)
        self._out: list[Block] = []
        self._para = _Para()
        self._images: dict[str, str | None] = {}  # a spelling -> its stored name
        self.pictures = Pictures(doc)  # each picture once by identity, within the caps
        self._warned: set[str] = set()
        self.deepest = 0  # how deep the deepest over-deep subtree went (parser cuts: DEEP)
        self.pieces = 0  # elements walked and text pieces kept, against MAX_PIECES

    def warn(self, message: str) -> None:
        if message not in self._warned:
            self._warned.add(message)
            self.doc.warnings.append(message)

    # -- entry points ----------------------------------------------------------------

    def read(self, root) -> list[Block]:
        """The blocks of one tree (its ``<body>`` when it has one)."""
        body = next((el for el in root.iter() if tag_of(el) == "body"), root)
        return self._collect(body, _Ctx())

    def note_blocks(self) -> list[Block]:
        """One ``page_footnote`` block per referenced note, in reference order."""
        out = []
        done = set()
        i = 0
        while i < len(self.notes.order):  # a note may reference another note
            target = self.notes.order[i]
            i += 1
            body = self.notes.targets[target]
            if body in done:
                continue
            done.add(body)
            lines = self.note_lines(body)
            if lines:
                out.append(Block(BlockType.PAGE_FOOTNOTE, lines=lines,
                                 note_id=self.notes.labels[target]))
        return out

    def note_lines(self, body) -> list[Line]:
        """The lines of one note's body (its back-links left out)."""
        return [line for b in self._collect(body, _Ctx(), note=True) for line in _lines_of(b)]

    # -- the walk --------------------------------------------------------------------

    def _collect(self, el, ctx: _Ctx, note: bool = False) -> list[Block]:
        """The blocks made from ``el``'s content, in a fresh container."""
        saved = self._out, self._para
        self._out, self._para = [], _Para()
        try:
            self._children(el, ctx, note)
            self._flush()
            return self._out
        finally:
            self._out, self._para = saved

    def _flush(self) -> None:
        self._out += self._para.blocks()
        self._para = _Para()

    def _spend(self) -> bool:
        """Count one piece; False once the document has used up :data:`MAX_PIECES` (the
        rest of it is left out, with one ``content cut:`` warning)."""
        self.pieces += 1
        if self.pieces <= MAX_PIECES:
            return True
        if self.pieces == MAX_PIECES + 1:
            self.warn(cut_warning(f"the document has more than {MAX_PIECES:,} elements and "
                                  "pieces of text; the rest is left out"))
        return False

    def _text(self, text: str | None, ctx: _Ctx) -> None:
        if text and self._spend():
            self._para.add(text_span(text, ctx.style, ctx.link), ctx.pre)

    def _children(self, el, ctx: _Ctx, note: bool = False) -> None:
        self._text(el.text, ctx)
        for child in el:
            if self.pieces > MAX_PIECES:
                break
            if isinstance(child.tag, str):
                self._element(child, ctx, note)
            self._text(child.tail, ctx)

    def _element(self, el, ctx: _Ctx, note: bool = False) -> None:
        tag = tag_of(el)
        if tag in _SKIP or _hidden(el) or (el in self.notes.bodies and not note):
            return
        if not self._spend():
            return
        if ctx.depth >= MAX_DEPTH:
            from mineru_tui.office.html.parse import max_depth

            self.deepest = max(self.deepest, ctx.depth + max_depth(el))
            self.warn(f"parts of the document are nested deeper than {MAX_DEPTH} elements; "
                      "they are read as plain text")
            self._text(" ".join("".join(el.itertext()).split()), ctx)
            return
        ctx = _Ctx(ctx.style, ctx.link, ctx.pre, ctx.depth + 1, ctx.list_depth)
        if tag in _STYLE_TAGS:
            ctx = _Ctx(ctx.style | {_STYLE_TAGS[tag]}, ctx.link, ctx.pre, ctx.depth,
                       ctx.list_depth)
        if tag == "a":
            self._anchor(el, ctx, note)
        elif tag == "br":
            self._para.br()
        elif tag == "img":
            self._img(el.get("src"), el.get("alt") or "", ctx)
        elif tag == "image":  # SVG <image href>
            self._img(el.get("href") or el.get("{http://www.w3.org/1999/xlink}href"), "", ctx)
        elif tag == "svg":
            for img in el.iter():
                if tag_of(img) == "image":
                    self._element(img, ctx)
        elif tag == "math":
            self._math(el, ctx)
        elif tag == "rt":  # ruby annotation: after its base, in brackets (漢字(かんじ))
            self._text("(", ctx)
            self._children(el, ctx, note)
            self._text(")", ctx)
        elif tag == "q":
            self._text("“", ctx)
            self._children(el, ctx, note)
            self._text("”", ctx)
        elif tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self._heading(el, ctx, int(tag[1]))
        elif tag in ("ul", "ol", "menu", "dl"):
            self._flush()
            self._out += self._list(el, ctx)
        elif tag == "table":
            self._flush()
            self._out += self._table(el, ctx)
        elif tag in ("pre", "listing", "xmp", "plaintext"):
            self._flush()
            self._out += self._pre(el)
        elif tag == "figure":
            self._flush()
            self._out += self._figure(el, ctx)
        elif tag in _BLOCK:
            self._flush()
            self._children(el, ctx, note)
            self._flush()
        else:
            self._children(el, ctx, note)

    def _anchor(self, el, ctx: _Ctx, note: bool) -> None:
        href = (el.get("href") or "").strip()
        target = self.res.link(href) if href else None
        if el in self.notes.refs and target in self.notes.targets:
            self._para.add(Span(SpanType.FOOTNOTE_REF, self.notes.label(target)))
            return
        if note and href and (_is_backlink(el, self.notes) or (
                target in self.notes.ref_ids and _NOTE_TEXT.match("".join(el.itertext()).strip()))):
            return  # the way back to the reference ("↩", "[1]"), not the note's text
        inner = _Ctx(ctx.style, target or ctx.link, ctx.pre, ctx.depth, ctx.list_depth)
        self._children(el, inner, note)

    def _heading(self, el, ctx: _Ctx, level: int) -> None:
        self._flush()
        blocks = self._collect(el, ctx)
        lines = [l for b in blocks if b.type in (BlockType.TEXT, BlockType.TITLE)
                 for l in b.lines]
        spans: list[Span] = []
        for line in lines:
            if spans:
                spans.append(text_span(" "))
            spans += line.spans
        if spans:
            self._out.append(title_block(spans, level))
        self._out += [b for b in blocks if b.type not in (BlockType.TEXT, BlockType.TITLE)]

    def _img(self, src: str | None, alt: str, ctx: _Ctx) -> None:
        name = self.image_name(src)
        alt = " ".join(alt.split())
        if name:
            self._para.add(Span(SpanType.IMAGE, alt, image_path=name))
            return
        url = self.res.image_url(src.strip()) if src and src.strip() else None
        if url:  # on the web: referenced by its address as the page does, never fetched
            self._para.add(Span(SpanType.IMAGE, alt, image_url=url))
        elif alt:  # missing or refused: its alt text, as a browser shows a broken picture
            self._para.add(text_span(f" {alt} ", ctx.style, ctx.link))

    def image_name(self, src: str | None) -> str | None:
        """The name under which the picture ``src`` names is stored in the document (read
        once per source), or None when it cannot be read."""
        src = (src or "").strip()
        if not src:
            return None
        if src not in self._images:
            try:
                identity = (self.res.image_key(src) if hasattr(self.res, "image_key")
                            else data_identity(src) if src[:5].lower() == "data:" else ("src", src))
                name = None if identity is None else self.pictures.take(
                    identity, lambda: self.res.image(src), _picture_label(src))
            except Exception as exc:  # one bad picture never costs the document
                self.warn(f"an image could not be read: {' '.join(str(exc).split())[:120]}")
                name = None
            self._images[src] = name
        return self._images[src]

    def _math(self, el, ctx: _Ctx) -> None:
        tex = None
        for ann in el.iter():
            if tag_of(ann) == "annotation" and "tex" in (ann.get("encoding") or "").lower():
                tex = (ann.text or "").strip()
                break
        if not tex:  # alttext is often a spoken description, not TeX: convert the markup
            from mineru_tui.office.mathml import mathml_to_latex
            tex = " ".join(mathml_to_latex(el, ctx.depth).split())
        if tex:
            kind = (SpanType.INTERLINE_EQUATION if el.get("display") == "block"
                    else SpanType.INLINE_EQUATION)
            if kind == SpanType.INTERLINE_EQUATION:
                self._flush()
                self._out.append(Block(BlockType.INTERLINE_EQUATION, lines=[Line([Span(kind, tex)])]))
            else:
                self._para.add(Span(kind, tex))
            return

    # -- lists -----------------------------------------------------------------------

    def _list(self, el, ctx: _Ctx) -> list[Block]:
        tag = tag_of(el)
        depth = ctx.list_depth
        inner = _Ctx(ctx.style, ctx.link, ctx.pre, ctx.depth, depth + 1)
        out: list[Block] = []
        items: list[Block] = []

        def close() -> None:
            if items:
                out.append(list_block(items[:]))
                items.clear()

        numbers = _Numbering(el) if tag == "ol" else None
        kids = [k for k in el if isinstance(k.tag, str) and tag_of(k) not in _SKIP
                and not _hidden(k) and k not in self.notes.bodies]
        if el.text and el.text.strip():
            kids_text = _Para()
            kids_text.add(text_span(el.text, ctx.style, ctx.link))
            items += [_item(b, depth, "-") for b in kids_text.blocks() if b.type == BlockType.TEXT]
        for kid in kids:
            if self.pieces > MAX_PIECES:
                break
            ktag = tag_of(kid)
            if ktag in ("ul", "ol", "menu", "dl"):  # a list right inside a list: one level in
                for b in self._list(kid, inner):
                    if b.type == BlockType.LIST:
                        items += b.blocks
                    else:
                        close()
                        out.append(b)
                continue
            if tag == "dl":
                if ktag == "div":  # <div> groups of dt/dd
                    for b in self._list(kid, ctx):
                        items += b.blocks if b.type == BlockType.LIST else []
                    continue
                marker, level = "-", depth + (1 if ktag == "dd" else 0)
                kctx = inner if ktag == "dd" else _Ctx(ctx.style | ({"bold"} if ktag == "dt" else set()),
                                                      ctx.link, ctx.pre, ctx.depth, depth + 1)
            else:
                marker = numbers.next(kid) if numbers is not None and ktag == "li" else "-"
                level, kctx = depth, inner
            item = Block(BlockType.TEXT, depth=level, marker=marker)
            items.append(item)
            nested = False
            for b in self._collect(kid, kctx):
                if b.type in (BlockType.TEXT, BlockType.TITLE) and not nested:
                    item.lines += b.lines
                elif b.type in (BlockType.TEXT, BlockType.TITLE):
                    items.append(Block(BlockType.TEXT, lines=b.lines, depth=level + 1, marker="-"))
                elif b.type == BlockType.LIST:
                    items += b.blocks
                    nested = True
                else:
                    empty = not item.lines
                    if empty:
                        items[:] = [x for x in items if x is not item]
                    close()
                    out.append(b)
                    # the item's text after a picture or table: its own item (with the
                    # number, when nothing of the item was shown yet), not lost
                    item = Block(BlockType.TEXT, depth=level if empty else level + 1,
                                 marker=marker if empty else "-")
                    items.append(item)
                    nested = False
            if not item.lines:  # an empty item (perhaps with items under it)
                if items and items[-1] is item:
                    items.pop()
                else:
                    items[:] = [b for b in items if b is not item]
        close()
        return out

    # -- tables, code, figures -------------------------------------------------------

    def _table(self, el, ctx: _Ctx) -> list[Block]:
        captions: list[Block] = []
        rows: list[list[Cell]] = []
        cells = 0
        cut = False
        inner = _Ctx(frozenset(), None, False, ctx.depth, 0)

        def row_elements(parent):
            for kid in parent:
                t = tag_of(kid)
                if t == "tr":
                    yield kid
                elif t in ("thead", "tbody", "tfoot"):
                    yield from row_elements(kid)

        for kid in el:
            if tag_of(kid) == "caption":
                captions += self._collect(kid, inner)
        for tr in row_elements(el):
            if self.pieces > MAX_PIECES:
                break
            if _hidden(tr):
                continue
            row = []
            for td in tr:
                t = tag_of(td)
                if t not in ("td", "th") or _hidden(td):
                    continue
                colspan = min(_int(td.get("colspan"), 1), MAX_SPAN)
                rowspan = min(_int(td.get("rowspan"), 1), MAX_ROWSPAN)
                row.append(Cell(self._collect(td, inner), colspan, rowspan, header=t == "th"))
            if not row:
                continue
            cells += sum(c.colspan for c in row)
            if cells > MAX_TABLE_CELLS:
                cut = True
                break
            rows.append(row)
        if cut:
            self.warn(cut_warning(f"a table has more than {MAX_TABLE_CELLS} cells; "
                                  "the rows after that are left out"))
        if not rows:
            return captions
        for i, row in enumerate(rows):  # a rowspan reaches no further than the table
            for cell in row:
                cell.rowspan = max(1, min(cell.rowspan, len(rows) - i))
        if (len(rows) == 1 and len(rows[0]) == 1) or (el.get("role") or "") in (
                "presentation", "none"):
            # a layout table: its content, not a grid
            return captions + [b for row in rows for c in row for b in c.blocks]
        return [table_block(Table(rows), captions=captions)]

    def _pre(self, el) -> list[Block]:
        text = "".join(t for t in _texts(el)).strip("\n")
        if not text.strip():
            return []
        lang = None
        for node in (el, *el.iterdescendants()):
            m = _LANG.search(node.get("class") or "") if isinstance(node.tag, str) else None
            if m:
                lang = m.group(1)
                break
        body = Block(BlockType.CODE_BODY, lines=[Line([text_span(l)]) for l in text.split("\n")])
        return [Block(BlockType.CODE, blocks=[body], sub_type=lang or "code")]

    def _figure(self, el, ctx: _Ctx) -> list[Block]:
        captions: list[Block] = []
        content: list[Block] = []
        for kid in el:
            if not isinstance(kid.tag, str):
                continue
            if tag_of(kid) == "figcaption":
                captions += [b for b in self._collect(kid, ctx) if b.type == BlockType.TEXT]
        saved = self._out, self._para
        self._out, self._para = [], _Para()
        try:
            self._text(el.text, ctx)
            for kid in el:
                if isinstance(kid.tag, str) and tag_of(kid) != "figcaption":
                    self._element(kid, ctx)
                self._text(kid.tail, ctx)
            self._flush()
            content = self._out
        finally:
            self._out, self._para = saved
        target = next((b for b in content if b.type in (BlockType.IMAGE, BlockType.TABLE)), None)
        if target is None or not captions:
            return content + captions
        kind = BlockType.IMAGE_CAPTION if target.type == BlockType.IMAGE else BlockType.TABLE_CAPTION
        for b in captions:
            b.type = kind
        if target.type == BlockType.IMAGE:
            caption = " ".join(" ".join(s.content for b in captions for l in b.lines
                                        for s in l.spans).split())
            for span in (s for b in target.blocks for l in b.lines for s in l.spans):
                if span.type == SpanType.IMAGE and " ".join(span.content.split()) == caption:
                    span.content = ""  # the caption says it; not twice
            target.blocks += captions
        else:
            target.blocks[:0] = captions
        return content


class _Numbering:
    """The markers of an ``<ol>``: start, type (1 a A i I), reversed, and ``<li value>``."""

    def __init__(self, ol):
        self.kind = ol.get("type") or "1"
        self.step = -1 if ol.get("reversed") is not None else 1
        count = sum(1 for k in ol if tag_of(k) == "li")
        default = count if self.step < 0 else 1
        self.n = _int(ol.get("start"), default, minimum=-(10 ** 9)) - self.step

    def next(self, li) -> str:
        value = li.get("value")
        self.n = _int(value, self.n + self.step, minimum=-(10 ** 9)) if value else self.n + self.step
        n = self.n
        if self.kind in "aA" and n >= 1:
            label = _alpha(n)
            return (label if self.kind == "a" else label.upper()) + "."
        if self.kind in "iI" and 1 <= n < 4000:
            label = _roman(n)
            return (label if self.kind == "i" else label.upper()) + "."
        return f"{n}." if 0 <= n < 10 ** 9 else "-"


def _alpha(n: int) -> str:
    out = ""
    while n > 0:
        n, r = divmod(n - 1, 26)
        out = chr(97 + r) + out
    return out


def _roman(n: int) -> str:
    out = ""
    for value, numeral in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"),
                           (90, "xc"), (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"),
                           (4, "iv"), (1, "i")):
        while n >= value:
            out += numeral
            n -= value
    return out


def _int(value: str | None, default: int, minimum: int = 1) -> int:
    m = re.match(r"\s*(-?\d{1,10})", value or "")
    if not m:
        return default
    return max(minimum, int(m.group(1)))


def _item(block: Block, depth: int, marker: str) -> Block:
    block.depth, block.marker = depth, marker
    return block


def _picture_label(src: str) -> str:
    """How a warning names the picture ``src``: short, on one line."""
    if src[:5].lower() == "data:":
        return "in a data: URI"
    src = " ".join(src.split())
    return repr(src if len(src) <= 80 else src[:77] + "...")


def _lines_of(block: Block) -> list[Line]:
    if block.blocks:
        return [l for b in block.blocks for l in _lines_of(b)]
    return block.lines


def _texts(el):
    """An element's text with ``<br>`` as newlines and skipped elements left out."""
    if el.text:
        yield el.text
    for kid in el:
        if isinstance(kid.tag, str):
            t = tag_of(kid)
            if t == "br":
                yield "\n"
            elif t not in _SKIP and not _hidden(kid):
                yield from _texts(kid)
        if kid.tail:
            yield kid.tail
