"""PowerPoint (.pptx) to the document model: one page per slide, shapes in reading order.

Choices (see also the modules this one uses):

* **Pages.** One :class:`Page` per slide in presentation order, ``page_idx`` = slide index
  (0-based), ``name`` = ``"Slide N"`` (1-based), ``page_size`` = the presentation's slide
  size in **points** (EMU / 12700, the unit of PDF pages). Top-level blocks get the
  ``bbox`` of the shape they come from, ``[x0, y0, x1, y1]`` in the same points.
* **Hidden slides** (``show="0"``) are **included**, and one warning lists them: their text
  is part of the file (peers keep it too), and a deck whose only slide is hidden would
  otherwise come out empty. ``read_pptx(path, include_hidden=False)`` skips them.
* **Headings.** The title slide's ``ctrTitle`` is a level-1 heading. Slide titles
  (``title``) are level 2 when the deck has a ``ctrTitle`` somewhere (slides sit under the
  presentation title) and level 1 otherwise. A slide's title is read first; its other
  shapes follow in reading order (:mod:`~mineru_tui.office.pptx.order`), groups recursed.
* **Placeholders** inherit position and list styles from the layout (matched by ``idx``,
  then by type) and the master (by type); empty placeholders produce nothing; date,
  footer, header and slide-number placeholders go to ``discarded_blocks``.
* **Links**: ``a:hlinkClick`` on runs, and on a whole shape (given to its text); a jump
  to another slide of the deck becomes ``#slide-N``.
* **Speaker notes** (the notes slide's text, without its slide image, number, date,
  header and footer placeholders) are one ``notes`` block at the end of the page;
  review comments (legacy and threaded) go to ``discarded_blocks`` as ``aside_text``
  (:mod:`~mineru_tui.office.pptx.comments`).
* Broken parts (a missing or corrupt slide, picture, chart or diagram) become entries
  in ``doc.warnings``; only a file that is not a presentation at all raises
  :class:`~mineru_tui.errors.InputError`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mineru_tui.detect import image_type
from mineru_tui.office.pictures import MAX_PACKAGE_PICTURES, Pictures
from mineru_tui.office.placeholders import file_name, linked_image_block, missing_image_block
from mineru_tui.document import (Block, BlockType, Document, Line, Page, image_block,
                                 text_block, text_span, title_block)
from mineru_tui.errors import InputError
from mineru_tui.office.pptx.layouts import TITLE_TYPES, Template, Templates
from mineru_tui.office.pptx.order import Box, reading_order
from mineru_tui.office.package import Package, PartError, local
from mineru_tui.office.names import R_EMBED, R_ID, R_LINK, q
from mineru_tui.office.pptx.shapes import (IDENTITY, SHAPE_TAGS, Transform, apply, box_of,
                                           choose_alternate, cnvpr_of, group_transform,
                                           num, ph_of, union, xfrm_of)
from mineru_tui.office.pptx.text import (TextContext, notes_lines, text_body_blocks,
                                         text_body_spans)

EMU_PER_POINT = 12700

_DISCARD_TYPES = {"dt": BlockType.FOOTER, "ftr": BlockType.FOOTER, "hdr": BlockType.HEADER,
                  "sldNum": BlockType.PAGE_NUMBER}
_NOTES_SKIP = ("sldImg", "sldNum", "dt", "ftr", "hdr")
_URI_TABLE = "http://schemas.openxmlformats.org/drawingml/2006/table"
_URI_CHART = "http://schemas.openxmlformats.org/drawingml/2006/chart"
_URI_DIAGRAM = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
_URI_CHARTEX = "http://schemas.microsoft.com/office/drawing/2014/chartex"

# A picture part's extension → the type its bytes must have (others, EMF/WMF..., pass).
_IMAGE_FAMILY = {"png": "png", "jpg": "jpeg", "jpeg": "jpeg", "gif": "gif", "bmp": "bmp",
                 "tiff": "tiff", "tif": "tiff", "webp": "webp"}


def read_pptx(path: str | Path, include_hidden: bool = True) -> Document:
    """Read a .pptx file into a :class:`Document` (one page per slide).

    Raises :class:`InputError` when the file is not a readable presentation; problems
    with single parts are reported in ``doc.warnings`` instead.
    """
    with Package(path, "pptx") as pkg:
        return _Reader(pkg, Path(path).name, include_hidden).read()


@dataclass
class _Item:
    """What one shape contributed, with its box for the reading order."""

    box: Box | None
    blocks: list[Block] = field(default_factory=list)
    discarded: list[Block] = field(default_factory=list)
    is_title: bool = False


def _looks_like_image(data: bytes, ext: str) -> bool:
    if not data:
        return False
    family = _IMAGE_FAMILY.get(ext)
    return family is None or image_type(data) == family


class _Reader:
    def __init__(self, pkg: Package, name: str, include_hidden: bool):
        self.pkg = pkg
        self.name = name
        self.include_hidden = include_hidden
        self.doc = Document(backend="office")
        self.templates = Templates(pkg, self.warn)
        self.default_style = None
        self.title_level = 1
        self.pres_part = ""
        self.authors: dict[str, str] | None = None
        self.slide_numbers: dict[str, int] = {}
        self.image_names: dict[str, str] = {}  # media part → name in doc.images
        self.pictures = Pictures(self.doc, total=MAX_PACKAGE_PICTURES)
        # per slide
        self.part = ""
        self.slide_no = 0
        self.template: Template | None = None

    # -- the presentation ----------------------------------------------------------

    def read(self) -> Document:
        pres_part = self.pkg.related("", "officeDocument")
        try:
            if pres_part is None:
                raise PartError("no presentation part")
            pres = self.pkg.xml(pres_part)
        except PartError as exc:
            raise InputError("not a readable PowerPoint presentation (its main part is "
                             "missing or damaged)", str(exc)) from None
        if pres.tag != q("p:presentation"):
            raise InputError("not a PowerPoint presentation "
                             f"(its main part is {local(pres) or 'not XML'})")
        size = pres.find(q("p:sldSz"))
        page_size = None
        if size is not None and num(size, "cx") and num(size, "cy"):
            page_size = (round(num(size, "cx") / EMU_PER_POINT, 2),
                         round(num(size, "cy") / EMU_PER_POINT, 2))
        self.default_style = pres.find(q("p:defaultTextStyle"))
        self.pres_part = pres_part
        rels = self.pkg.rels(pres_part)
        slide_parts = []
        lst = pres.find(q("p:sldIdLst"))
        for sld in (lst if lst is not None else ()):
            rel = rels.get(sld.get(R_ID) or "")
            if rel is not None and not rel.external:
                slide_parts.append(rel.target)
        self.slide_numbers = {part: i + 1 for i, part in enumerate(slide_parts)}
        slides = []
        for i, part in enumerate(slide_parts):
            try:
                slides.append((part, self.pkg.xml(part)))
            except PartError as exc:
                self.doc.warnings.append(f"slide {i + 1}: skipped ({exc})")
                slides.append((part, None))
        if any(ph.get("type") == "ctrTitle" for _, root in slides if root is not None
               for ph in root.iter(q("p:ph"))):
            self.title_level = 2
        hidden = []
        for i, (part, root) in enumerate(slides):
            page = Page(page_idx=len(self.doc.pages), page_size=page_size, name=f"Slide {i + 1}")
            if root is not None and root.get("show") in ("0", "false"):
                hidden.append(str(i + 1))
                if not self.include_hidden:
                    continue
            if root is not None:
                self.read_slide(part, root, i + 1, page)
            self.doc.pages.append(page)
        if hidden:
            verb = "included" if self.include_hidden else "skipped"
            self.doc.warnings.append(f"hidden slide{'s' if len(hidden) > 1 else ''} "
                                     f"{', '.join(hidden)} {verb}")
        return self.doc

    def warn(self, message: str) -> None:
        self.doc.warnings.append(f"slide {self.slide_no}: {message}")

    # -- slides --------------------------------------------------------------------

    def read_slide(self, part: str, root, number: int, page: Page) -> None:
        self.part, self.slide_no = part, number
        self.template = self.templates.layout_of(part)
        tree = root.find(f"{q('p:cSld')}/{q('p:spTree')}")
        items = self.shapes(tree, IDENTITY) if tree is not None else []
        titles = [it for it in items if it.is_title]
        rest = [it for it in items if not it.is_title]
        for it in titles + [rest[i] for i in reading_order([it.box for it in rest])]:
            if it.box is not None:
                x, y, w, h = (v / EMU_PER_POINT for v in it.box)
                bbox = [round(x, 2), round(y, 2), round(x + w, 2), round(y + h, 2)]
                for b in it.blocks + it.discarded:
                    b.bbox = bbox
            page.para_blocks += it.blocks
            page.discarded_blocks += it.discarded
        notes = self.read_notes(part)
        if notes is not None:
            page.para_blocks.append(notes)
        # Review comments are not slide content: kept in the JSON, out of the Markdown.
        page.discarded_blocks += self.read_comments(part)

    def shapes(self, container, transform: Transform) -> list[_Item]:
        """The items of a shape tree or group, in document order, with boxes on the slide.

        Items without a position of their own take the previous item's box (the next
        one's when they come first), so the reading order keeps them next to their
        neighbour in the file."""
        items: list[_Item] = []
        for el in container:
            if el.tag == q("mc:AlternateContent"):
                for chosen in choose_alternate(el):
                    items += self.shape(chosen, transform)
            elif el.tag in SHAPE_TAGS:
                items += self.shape(el, transform)
        known = next((it.box for it in items if it.box is not None), (0.0, 0.0, 0.0, 0.0))
        for it in items:
            if it.box is None:
                it.box = known
            known = it.box
        return items

    def shape(self, el, transform: Transform) -> list[_Item]:
        tag = local(el)
        try:
            if tag == "grpSp":
                return [self.group(el, transform)]
            ph = ph_of(el)
            box = box_of(xfrm_of(el))
            if box is None and ph is not None:
                layout_ph, master_ph = self.templates.inherited(self.template, ph)
                box = box_of(xfrm_of(layout_ph)) if layout_ph is not None else None
                if box is None and master_ph is not None:
                    box = box_of(xfrm_of(master_ph))
            elif box is not None:
                box = apply(transform, box)
            item = _Item(box)
            if tag == "sp":
                self.text_shape(el, ph, item)
            elif tag == "pic":
                self.picture(el, item)
            elif tag == "graphicFrame":
                self.graphic_frame(el, item)
            return [item] if item.blocks or item.discarded else []
        except RecursionError:
            self.warn("shape nested too deeply; skipped")
            return []

    def group(self, el, transform: Transform) -> _Item:
        inner = group_transform(xfrm_of(el), transform)
        items = self.shapes(el, inner)
        box = union([it.box for it in items]) or apply(transform, box_of(xfrm_of(el)) or (0, 0, 0, 0))
        group = _Item(box)
        for i in reading_order([it.box for it in items]):
            group.blocks += items[i].blocks
            group.discarded += items[i].discarded
        return group

    # -- shape kinds ---------------------------------------------------------------

    def link(self, rid: str, part: str | None = None) -> str | None:
        """A hyperlink's URL; a jump to another slide of the deck is ``#slide-N``."""
        rel = self.pkg.rels(part or self.part).get(rid)
        if rel is None:
            return None
        if rel.external:
            return rel.target
        number = self.slide_numbers.get(rel.target)
        return f"#slide-{number}" if number else None

    def context(self, el, ph) -> TextContext:
        shape_link = None
        cnvpr = cnvpr_of(el)
        click = cnvpr.find(q("a:hlinkClick")) if cnvpr is not None else None
        if click is not None and click.get(R_ID):
            shape_link = self.link(click.get(R_ID))
        return TextContext(styles=self.templates.style_chain(self.template, el, ph, self.default_style), link=self.link,
                           shape_link=shape_link)

    def text_shape(self, el, ph, item: _Item) -> None:
        fill = el.find(f"{q('p:spPr')}/{q('a:blipFill')}")
        if fill is not None:
            image = self.image(fill, el)
            if image is not None:
                item.blocks.append(image)
        body = el.find(q("p:txBody"))
        if body is None:
            return
        ph_type = (ph.get("type") or "obj") if ph is not None else None
        ctx = self.context(el, ph)
        if ph_type in TITLE_TYPES:
            spans = text_body_spans(body, ctx)
            if any(s.content.strip() for s in spans):
                level = 1 if ph_type == "ctrTitle" else self.title_level
                item.blocks.insert(0, title_block(spans, level))
                item.is_title = True
        elif ph_type in _DISCARD_TYPES:
            lines = [l for b in text_body_blocks(body, ctx) for l in _all_lines(b)]
            if lines:
                item.discarded.append(Block(_DISCARD_TYPES[ph_type], lines=lines))
        else:
            item.blocks += text_body_blocks(body, ctx)

    def image(self, fill, el) -> Block | None:
        """An image block for a ``blipFill`` (of a picture or a picture-filled shape).

        A picture linked to a file (``r:link``, "Link to File") is never fetched: it
        becomes a placeholder naming it. So does a picture whose part is missing or
        corrupt, when the picture has a name to give it (alt text).
        """
        blip = fill.find(q("a:blip"))
        if blip is None:
            return None
        cnvpr = cnvpr_of(el)
        name = cnvpr.get("name", "") if cnvpr is not None else ""
        alt = (cnvpr.get("descr") or cnvpr.get("title") or "").strip() if cnvpr is not None else ""
        alt = " ".join(alt.split())
        rels = self.pkg.rels(self.part)
        rid, link_rid = blip.get(R_EMBED), blip.get(R_LINK)
        rel = rels.get(rid or "")
        if rel is None or rel.external:
            for r_id in (link_rid, rid):
                linked = rels.get(r_id or "")
                if linked is not None and linked.external and linked.target.strip():
                    self.warn(f"picture {name!r} links to {file_name(linked.target)!r} "
                              "outside the presentation; not embedded, not read")
                    return linked_image_block(alt, linked.target)
            if rid or link_rid:
                self.warn(f"picture {name!r} has no image part ({rid or link_rid} is dangling)")
                return missing_image_block(alt)
            return None
        stored = self.image_names.get(rel.target)
        if stored is None:  # each media part is stored once, however often it is shown
            ext = self.pkg.image_ext(rel.target)
            corrupt = []

            def read():
                data = self.pkg.blob(rel.target)
                if not _looks_like_image(data, ext):
                    corrupt.append(ext)
                    return None
                return data, ext

            try:  # within the picture caps (office/pictures.py)
                stored = self.pictures.take(("member", self.pkg.member(rel.target)), read,
                                            repr(rel.target), size=self.pkg.size(rel.target))
            except PartError as exc:
                self.warn(f"picture {name!r} skipped ({exc})")
                return missing_image_block(alt)
            if corrupt:
                self.warn(f"picture {name!r} skipped (corrupt {ext} data in {rel.target})")
            if not stored:
                return missing_image_block(alt)
            self.image_names[rel.target] = stored
        return image_block(stored, alt=alt)

    def picture(self, el, item: _Item) -> None:
        fill = el.find(q("p:blipFill"))
        if fill is not None:
            image = self.image(fill, el)
            if image is not None:
                item.blocks.append(image)

    def graphic_frame(self, el, item: _Item) -> None:
        data = el.find(f"{q('a:graphic')}/{q('a:graphicData')}")
        if data is None:
            return
        uri = data.get("uri", "")
        cnvpr = cnvpr_of(el)
        name = cnvpr.get("name", "") if cnvpr is not None else ""
        if uri == _URI_TABLE:
            tbl = data.find(q("a:tbl"))
            if tbl is not None:
                from mineru_tui.office.pptx.tables import read_table
                item.blocks.append(read_table(tbl, self.context(el, None)))
        elif uri in (_URI_CHART, _URI_CHARTEX):
            chart = next((c for c in data if local(c) == "chart"), None)
            self.chart(chart.get(R_ID) if chart is not None else None, name, item,
                       extended=uri == _URI_CHARTEX)
        elif uri == _URI_DIAGRAM:
            rel_ids = data.find(q("dgm:relIds"))
            self.diagram(rel_ids.get(q("r:dm")) if rel_ids is not None else None, name, item)
        else:  # OLE objects and others: their preview picture, when they have one
            for pic in data.iter(q("p:pic")):
                self.picture(pic, item)
                break

    def related_xml(self, rid: str | None, what: str, name: str):
        rel = self.pkg.rels(self.part).get(rid or "")
        if rel is None or rel.external:
            self.warn(f"{what} {name!r} has no {what} part; skipped")
            return None
        try:
            return self.pkg.xml(rel.target)
        except PartError as exc:
            self.warn(f"{what} {name!r} skipped ({exc})")
            return None

    def chart(self, rid: str | None, name: str, item: _Item, extended: bool = False) -> None:
        root = self.related_xml(rid, "chart", name)
        if root is None:
            return
        from mineru_tui.office.chart_kind import chart_kind, with_kind
        from mineru_tui.office.charts import chart_title, read_chart, read_chartex
        try:
            block = read_chartex(root) if extended else read_chart(root)
            kind = chart_kind(root)
            if block is None:
                title = chart_title(root)
        except Exception as exc:  # a malformed chart must not lose the slide
            self.warn(f"chart {name!r} skipped ({type(exc).__name__}: {exc})")
            return
        if block is not None:  # captioned "Column chart: Title", as in xlsx and docx
            item.blocks.append(with_kind(block, kind))
            return
        # No cached data: what the chart is (type and title) is still worth a line.
        self.warn(f"chart {name!r} has no cached data; only its type and title are kept")
        caption = ": ".join(x for x in (kind or "Chart", title) if x)
        item.blocks.append(text_block([text_span(caption)]))

    def diagram(self, rid: str | None, name: str, item: _Item) -> None:
        root = self.related_xml(rid, "diagram", name)
        if root is None:
            return
        from mineru_tui.office.pptx.smartart import read_diagram
        block = read_diagram(root)
        if block is not None:
            item.blocks.append(block)

    # -- notes and comments ------------------------------------------------------

    def comment_authors(self) -> dict[str, str]:
        if self.authors is None:
            from mineru_tui.office.pptx.comments import read_authors
            self.authors = {}
            for kind in ("commentAuthors", "authors"):
                part = self.pkg.related(self.pres_part, kind)
                if part is None:
                    continue
                try:
                    self.authors.update(read_authors(self.pkg.xml(part)))
                except PartError as exc:
                    self.doc.warnings.append(f"comment authors ignored ({exc})")
        return self.authors

    def read_comments(self, slide_part: str) -> list[Block]:
        parts = [r.target for r in self.pkg.rels(slide_part).values()
                 if r.is_a("comments") and not r.external]
        if not parts:
            return []
        from mineru_tui.office.pptx.comments import read_comments
        out: list[Block] = []
        for part in parts:
            try:
                out += read_comments(self.pkg.xml(part), self.comment_authors())
            except PartError as exc:
                self.warn(f"comments skipped ({exc})")
        return out

    def read_notes(self, slide_part: str) -> Block | None:
        part = self.pkg.related(slide_part, "notesSlide")
        if part is None:
            return None
        try:
            root = self.pkg.xml(part)
        except PartError as exc:
            self.warn(f"speaker notes skipped ({exc})")
            return None
        ctx = TextContext(link=lambda rid: self.link(rid, part))
        lines: list[Line] = []
        for sp in root.iter(q("p:sp")):
            ph = ph_of(sp)
            if ph is not None and (ph.get("type") or "obj") in _NOTES_SKIP:
                continue
            body = sp.find(q("p:txBody"))
            if body is not None:
                lines += notes_lines(body, ctx)
        return Block(BlockType.NOTES, lines=lines) if lines else None


def _all_lines(block: Block) -> list[Line]:
    if block.blocks:
        return [l for b in block.blocks for l in _all_lines(b)]
    return list(block.lines)


