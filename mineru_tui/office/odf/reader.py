"""OpenDocument packages to the document model: text documents, spreadsheets, slides.

An ODF package is a zip whose ``mimetype`` member names its kind; ``content.xml`` holds
the body, ``styles.xml`` the named styles, pictures and formula objects are members of
the package (``Pictures/x.png``, ``Object 1/content.xml``). Read with the same hardened
lxml set-up and parse budget as the OOXML readers (:class:`~mineru_tui.office.package.Package`).

* **Text** (``office:text``): headings (``text:h`` and its outline level, or a paragraph
  whose style has one), paragraphs with bold/italic/underline/strike/super/subscript,
  links (through the allow-list), lists numbered as their list style says (bullets,
  ``1 a A i I`` with prefix and suffix, start values, continued numbering), tables with
  ``number-columns-spanned``/``number-rows-spanned`` (covered cells left out) and nested
  tables, pictures (package members), text boxes, formula objects (MathML to LaTeX),
  footnotes and endnotes (numbered in reading order), sections and indexes' text.
* **Spreadsheets** (``office:spreadsheet``): one page per sheet, the text each cell shows
  (ODF stores it beside the value), merged cells, split into tables as Excel sheets are
  (:mod:`mineru_tui.office.xlsx.reader`).
* **Presentations** (``office:presentation``): one page per slide in order, its title,
  text frames, tables, pictures and speaker notes.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from mineru_tui.document import (Block, BlockType, Cell, Document, Line, Page, Span,
                                 SpanType, Table, image_block, safe_url, table_block,
                                 text_span, title_block)
from mineru_tui.errors import InputError, cut_warning
from mineru_tui.office.flow import BREAK, Counters, Flow, counter_text, note_ref
from mineru_tui.office.mathml import mathml_to_latex
from mineru_tui.office.odf.names import (DC, DRAW, MATH, OFFICE, PRESENTATION, SVG, TABLE,
                                         TEXT, XLINK, MAX_FILE_CELLS, local, number)
from mineru_tui.office.odf.styles import Styles
from mineru_tui.office.package import Package, PartError
from mineru_tui.office.limits import MAX_TABLE_CELLS  # cells emitted per text table
from mineru_tui.office.limits import MAX_PICTURE_BYTES as MAX_IMAGE_BYTES
from mineru_tui.office.pictures import MAX_PACKAGE_PICTURES, Pictures

MAX_DEPTH = 32  # nested lists, tables, frames and spans followed
MAX_REPEAT = 1_000  # a repeated column or row with content is written at most this often
_IMAGE_EXTS = {"png", "jpg", "jpeg", "gif", "bmp", "tif", "tiff", "webp", "svg", "emf", "wmf"}

# Elements whose text is not the document's: change tracking, forms, declarations,
# comments, index templates.
_SKIP = {"tracked-changes", "forms", "sequence-decls", "variable-decls", "user-field-decls",
         "table-of-content-source", "alphabetical-index-source", "illustration-index-source",
         "user-index-source", "bibliography-source", "object-index-source",
         "table-index-source", "annotation", "annotation-end", "soft-page-break",
         "bookmark", "bookmark-start", "bookmark-end", "reference-mark",
         "reference-mark-start", "reference-mark-end", "toc-mark", "toc-mark-start",
         "toc-mark-end", "alphabetical-index-mark", "alphabetical-index-mark-start",
         "alphabetical-index-mark-end", "change", "change-start", "change-end",
         "calculation-settings", "named-expressions", "database-ranges", "content-validations",
         "label-ranges", "dde-links", "data-pilot-tables", "table-columns",
         "table-column-group", "table-header-columns", "table-column", "scripts",
         "event-listeners", "shapes", "deletion", "note-citation"}


def read_odf(path: str | Path, kind: str = "odt") -> Document:
    """Read an OpenDocument text, spreadsheet or presentation into a :class:`Document`.

    ``kind`` ("odt", "ods", "odp", as detected) picks the parse budget (a spreadsheet's XML
    costs less to read per byte than a text's, as for .xlsx and .docx).
    """
    with Package(path, kind if kind in ("odt", "ods", "odp") else "odt") as pkg:
        reader = _Reader(pkg)
        return reader.read()


class _Reader:
    def __init__(self, pkg: Package):
        self.pkg = pkg
        self.doc = Document(backend="office", warnings=pkg.warnings)
        self.styles = Styles()
        self.counters = Counters()
        self._last_list_key: object = None
        self._pictures = Pictures(self.doc, total=MAX_PACKAGE_PICTURES)  # each member once
        self._notes = 0
        self._flow: Flow | None = None
        self._in_slide_table = False
        self._pending_comments: list[str] = []
        self.cells = 0  # cells shown so far in the file, repetition and nesting counted

    def warn(self, text: str) -> None:
        if text not in self.doc.warnings:
            self.doc.warnings.append(text)

    def read(self) -> Document:
        manifest = self.pkg.try_blob("META-INF/manifest.xml", 4 << 20) or b""
        if b"encryption-data" in manifest:  # the parts are encrypted with a password
            from mineru_tui.office.ole import ENCRYPTED
            raise InputError(ENCRYPTED)
        try:
            content = self.pkg.xml("content.xml")
        except PartError as exc:
            raise InputError(f"not a readable OpenDocument file ({exc})") from None
        if self.pkg.has("styles.xml"):
            self.styles.load(self.pkg.xml_recovering("styles.xml"))
        self.styles.load(content)
        body = content.find(OFFICE + "body")
        if body is None or not len(body):
            raise InputError("not a readable OpenDocument file: it has no body")
        kind = body[0]
        name = local(kind)
        if name == "spreadsheet":
            from mineru_tui.office.odf.sheets import read_sheets
            read_sheets(self, kind)
        elif name in ("presentation", "drawing"):
            self._slides(kind)
        else:
            flow = Flow()
            self._flow = flow
            self.body(kind, flow, 0)
            self.doc.pages.append(Page(page_idx=0, para_blocks=flow.finish() + self._comments()))
        return self.doc

    # -- text ----------------------------------------------------------------------

    def body(self, parent, flow: Flow, depth: int) -> None:
        """The block-level children of ``parent`` (a text body, a cell, a section...)."""
        if depth > MAX_DEPTH:
            self.warn(cut_warning(f"content nested deeper than {MAX_DEPTH} levels left out"))
            return
        for el in parent:
            tag = local(el)
            if tag in _SKIP or not tag:
                continue
            if tag == "h":
                level = _int(el.get(TEXT + "outline-level")) or self.styles.outline_level(
                    el.get(TEXT + "style-name")) or 1
                spans, after = self.inline(el, depth, heading=True)
                flow.paragraph(spans, level=min(level, 6))
                for b in after:
                    flow.add(b)
            elif tag == "p":
                self.paragraph(el, flow, depth)
            elif tag == "list":
                self.list(el, flow, depth, 0, None, None)
            elif tag == "table":
                flow.add(self.table(el, depth))
            elif tag in ("frame", "a", "g", "custom-shape", "rect", "ellipse", "line",
                         "polygon", "path", "connector"):
                for b in self.frame(el, depth, flow):
                    flow.add(b)
            elif tag == "numbered-paragraph":
                self.list_paragraphs(el, flow, depth, _int(el.get(TEXT + "level")) or 1)
            else:  # sections, indexes, index bodies, div-like wrappers
                self.body(el, flow, depth + 1)

    def paragraph(self, el, flow: Flow, depth: int,
                  item: tuple[int, str | None] | None = None) -> None:
        style = el.get(TEXT + "style-name")
        level = self.styles.outline_level(style)
        if item is None and level is None and self.styles.is_named("paragraph", style, "Title"):
            level = 1
        elif item is None and level is None and self.styles.is_named("paragraph", style,
                                                                       "Subtitle"):
            level = 2
        spans, after = self.inline(el, depth, heading=bool(level) and item is None)
        if item is not None:
            flow.paragraph(spans, depth=item[0], marker=item[1])
        else:
            flow.paragraph(spans, level=min(level, 6) if level else None)
        for b in after:
            flow.add(b)

    def list_paragraphs(self, el, flow: Flow, depth: int, level: int) -> None:
        for kid in el:
            if local(kid) in ("p", "h"):
                flow.paragraph(self.inline(kid, depth)[0], depth=level - 1, marker="-")

    def list(self, el, flow: Flow, depth: int, level: int, style: str | None,
             key: object) -> None:
        if depth > MAX_DEPTH:
            self.warn(cut_warning(f"lists nested deeper than {MAX_DEPTH} levels left out"))
            return
        style = el.get(TEXT + "style-name") or style
        if key is None:
            if el.get(TEXT + "continue-numbering") == "true" or el.get(TEXT + "continue-list"):
                key = self._last_list_key or ("list", style)
            else:
                key = ("list", id(el))
                self.counters.restart(key)
            self._last_list_key = key
        levels = self.styles.lists.get(style or "", {})
        for item in el:
            tag = local(item)
            if tag not in ("list-item", "list-header"):
                continue
            first = True
            for kid in item:
                ktag = local(kid)
                if ktag in ("p", "h") and first and self._in_slide_table:
                    first = False  # Impress wraps every cell's text in a list, shown bare
                    self.paragraph(kid, flow, depth + 1)
                elif ktag in ("p", "h") and first:
                    first = False
                    marker = self._marker(tag, item, levels, level, key)
                    pstyle = kid.get(TEXT + "style-name")
                    if not levels and style is None:
                        levels = self.styles.lists.get(
                            self.styles.paragraph_list_style(pstyle) or "", {})
                        marker = self._marker(tag, item, levels, level, key)
                    self.paragraph(kid, flow, depth + 1, item=(level, marker))
                elif ktag in ("p", "h"):
                    spans, after = self.inline(kid, depth + 1)
                    if not flow.continue_item(spans):
                        flow.paragraph(spans)
                    for b in after:
                        flow.add(b)
                elif ktag == "list":
                    first = False
                    self.list(kid, flow, depth + 1, level + 1, style, key)
                elif ktag == "table":
                    flow.add(self.table(kid, depth + 1))
                else:
                    self.body([kid], flow, depth + 1)

    def _marker(self, tag: str, item, levels, level: int, key: object) -> str | None:
        """The item's label ("-", "1.", "a)", "2.1."); None when its level shows none (an
        empty ``style:num-format``, "no number", and no prefix or suffix: LibreOffice shows the
        text bare, as Word does a level of format "none"), so it is no list item."""
        spec = levels.get(level + 1)
        if tag == "list-header":
            return ""
        if spec is None or spec.bullet:
            return "-"
        start = _int(item.get(TEXT + "start-value"))  # this item restarts the count
        if start:
            self.counters.set(key, level, start - 1)
        n = self.counters.next(key, level, start or spec.start)
        if spec.num_format == "":
            return (spec.prefix + spec.suffix).strip() or None
        numbers = [counter_text(n, spec.num_format)]
        if spec.display_levels > 1:
            above = self.counters.current(key)[:level]
            shown = above[max(0, len(above) - spec.display_levels + 1):]
            numbers = [str(x) for x in shown] + numbers
        return spec.prefix + ".".join(numbers) + spec.suffix

    def inline(self, el, depth: int, heading: bool = False) -> tuple[list[Span], list[Block]]:
        """The spans of a paragraph, and the blocks it anchors (pictures, text boxes).

        A heading's own style (bold, larger) is the heading's look, not emphasis: only
        what its spans change is kept.
        """
        spans: list[Span] = []
        after: list[Block] = []
        style = frozenset() if heading else self.styles.look("paragraph",
                                                              el.get(TEXT + "style-name"))
        self._inline(el, style, None, spans, after, depth)
        return spans, after

    def _inline(self, el, look: frozenset[str], link: str | None, spans: list[Span],
                after: list[Block], depth: int) -> None:
        if depth > MAX_DEPTH or "hidden" in look:  # text:display="none": hidden text
            return
        if el.text:
            spans.append(text_span(el.text, look, link))
        for kid in el:
            tag = local(kid)
            if tag == "annotation":
                self._comment(kid)
            elif not tag or tag in _SKIP:
                pass
            elif tag == "span":
                kl = look | self.styles.look("text", kid.get(TEXT + "style-name"))
                self._inline(kid, kl, link, spans, after, depth + 1)
            elif tag == "a":
                target = safe_url(kid.get(XLINK + "href"))
                self._inline(kid, look, target or link, spans, after, depth + 1)
            elif tag == "s":
                spans.append(text_span(" " * min(_int(kid.get(TEXT + "c")) or 1, 100), look, link))
            elif tag == "tab":
                spans.append(text_span(" ", look, link))
            elif tag == "line-break":
                spans.append(text_span(BREAK))
            elif tag == "note":
                spans.append(self._note(kid, depth))
            elif tag in ("frame", "g", "custom-shape", "rect", "ellipse"):
                eq = self._formula(kid) if tag == "frame" else None
                if eq is not None:
                    spans.append(Span(SpanType.INLINE_EQUATION, eq))
                else:
                    after += self.frame(kid, depth + 1, None)
            elif tag == "hidden-text" and kid.get(TEXT + "is-hidden") == "true":
                pass
            elif tag == "ruby":
                base = kid.find(TEXT + "ruby-base")
                if base is not None:
                    self._inline(base, look, link, spans, after, depth + 1)
            else:  # fields and other wrappers: their text
                self._inline(kid, look, link, spans, after, depth + 1)
            if kid.tail:
                spans.append(text_span(kid.tail, look, link))

    def _comment(self, el) -> None:
        """A review comment (``office:annotation``), kept for the end of its page."""
        author = " ".join((el.findtext(DC + "creator") or "").split())
        text = " ".join(" ".join(_text(p).split()) for p in el.iter(TEXT + "p")).strip()
        if text:
            self._pending_comments.append(f"{author}: {text}" if author else text)

    def _comments(self) -> list[Block]:
        """The comments met on the page, as ``aside_text`` blocks (as .pptx comments are)."""
        out = [Block(BlockType.ASIDE_TEXT, lines=[Line([text_span(c)])])
               for c in self._pending_comments]
        self._pending_comments = []
        return out

    def _note(self, el, depth: int) -> Span:
        self._notes += 1
        label = str(self._notes)
        body = el.find(TEXT + "note-body")
        spans: list[Span] = []
        if body is not None:
            for kid in body.iter(TEXT + "p", TEXT + "h"):
                if spans:
                    spans.append(text_span(BREAK))
                spans += self.inline(kid, depth + 1)[0]
        if self._flow is not None:
            self._flow.note(label, spans)
        return note_ref(label)

    # -- tables --------------------------------------------------------------------

    def table(self, el, depth: int) -> Block:
        """A table; repeated rows and cells are shown as often as they repeat, and each
        copy costs the file's cell budget what it shows (its nested tables included)."""
        rows: list[list[Cell]] = []
        count = 0
        cut = spent = False
        for row, header in self._rows(el):
            repeat = min(_int(row.get(TABLE + "number-rows-repeated")) or 1, MAX_REPEAT)
            row_start = self.cells
            cells: list[Cell] = []
            for c in row:
                ctag = local(c)
                if ctag == "covered-table-cell":
                    continue
                if ctag != "table-cell":
                    continue
                n = min(_int(c.get(TABLE + "number-columns-repeated")) or 1, MAX_REPEAT)
                if self.cells >= MAX_FILE_CELLS:
                    spent = True
                    break
                mark = self.cells
                flow = Flow()
                self.body(c, flow, depth + 1)
                blocks = flow.finish()
                inner = self.cells - mark  # the cells of the tables inside, charged once
                copies = self._copies(n, 1 + inner, first=1)
                spent = spent or copies < n
                for _ in range(copies):
                    cells.append(Cell(blocks=list(blocks),
                                      colspan=_span(c.get(TABLE + "number-columns-spanned")),
                                      rowspan=_span(c.get(TABLE + "number-rows-spanned")),
                                      header=header))
            times = 1
            if repeat > 1 and any(c.blocks for c in cells):
                times += self._copies(repeat - 1, self.cells - row_start)
                spent = spent or times < repeat
            for _ in range(times):
                count += len(cells)
                if count > MAX_TABLE_CELLS:
                    cut = True
                    break
                rows.append(cells)
            if cut or spent:
                break
        if cut:
            self.warn(cut_warning(f"a table has more than {MAX_TABLE_CELLS} cells; the rest "
                                  "is left out"))
        if spent:
            self.warn(cut_warning(f"the tables show more than {MAX_FILE_CELLS:,} cells in all "
                                  "(repeated cells and the tables inside them counted as often "
                                  "as they are shown); the rest is left out"))
        return table_block(Table(rows))

    def _copies(self, wanted: int, each: int, first: int = 0) -> int:
        """How many of ``wanted`` copies costing ``each`` cells fit in the file's cell
        budget (the first costing only ``first``: its cells are already counted); the
        ones that fit are charged."""
        room = MAX_FILE_CELLS - self.cells
        if wanted <= 0 or room < first:
            return 0
        fit = min(wanted - (1 if first else 0), (room - first) // max(each, 1))
        self.cells += first + fit * each
        return fit + (1 if first else 0)

    def _rows(self, el):
        for kid in el:
            tag = local(kid)
            if tag == "table-row":
                yield kid, False
            elif tag == "table-header-rows":
                for row in kid.iter(TABLE + "table-row"):
                    yield row, True
            elif tag in ("table-rows", "table-row-group"):
                yield from self._rows(kid)

    # -- frames: pictures, formulas, text boxes -------------------------------------

    def frame(self, el, depth: int, flow: Flow | None) -> list[Block]:
        """Blocks for a drawing object: a picture, a formula, a text box's content."""
        if depth > MAX_DEPTH:
            return []
        tag = local(el)
        out: list[Block] = []
        if tag in ("g", "a"):
            for kid in el:
                out += self.frame(kid, depth + 1, flow)
            return out
        alt = " ".join(t.strip() for t in (el.findtext(SVG + "title") or "",
                                           el.findtext(SVG + "desc") or "") if t.strip())
        eq = self._formula(el)
        if eq is not None:
            from mineru_tui.document import equation_block
            return [equation_block(eq)]
        chart = self._chart(el)
        if chart is not None:
            return [chart]
        for kid in el:
            ktag = local(kid)
            if ktag == "image":
                name = self._image(kid.get(XLINK + "href"))
                if name is not None:
                    out.append(image_block(name, alt))
                    break  # the other images of a frame are fallbacks of the same picture
                inner = Flow()
                self.body(kid, inner, depth + 1)  # an image may carry text
                out += inner.finish()
            elif ktag == "text-box":
                inner = Flow()
                self.body(kid, inner, depth + 1)
                out += inner.finish()
            elif ktag == "table":
                self._in_slide_table = True
                try:
                    out.append(self.table(kid, depth + 1))
                finally:
                    self._in_slide_table = False
            elif ktag in ("p", "list") and tag != "frame":  # shapes hold text directly
                inner = Flow()
                self.body([kid], inner, depth + 1)
                out += inner.finish()
        return out

    def _object_root(self, obj):
        """The content of an embedded object (``draw:object``), or None."""
        href = (obj.get(XLINK + "href") or "").lstrip("./")
        if not href:
            return None
        part = posixpath.normpath(posixpath.join(href, "content.xml"))
        if not self.pkg.has(part):
            return None
        try:
            return self.pkg.xml(part)
        except PartError as exc:
            self.warn(f"an embedded object is not readable ({exc})")
            return None

    def _chart(self, el) -> Block | None:
        """A chart object's data as a table block, or None."""
        from mineru_tui.office.odf.charts import CHART, chart_block

        for obj in el.iter(DRAW + "object"):
            root = obj if next(obj.iter(CHART + "chart"), None) is not None else \
                self._object_root(obj)
            if root is not None:
                block = chart_block(root)
                if block is not None:
                    return block
        return None

    def _formula(self, el) -> str | None:
        """The LaTeX of a frame's formula object, or None when it holds none."""
        for obj in el.iter(DRAW + "object"):
            math = obj.find(MATH + "math")
            if math is None:
                href = (obj.get(XLINK + "href") or "").lstrip("./")
                if not href:
                    continue
                part = posixpath.normpath(posixpath.join(href, "content.xml"))
                if not self.pkg.has(part):
                    continue
                try:
                    root = self.pkg.xml(part)
                except PartError as exc:
                    self.warn(f"a formula is not readable ({exc})")
                    continue
                math = root if local(root) == "math" else root.find(".//" + MATH + "math")
            if math is not None:
                latex = mathml_to_latex(math)
                if latex:
                    return latex
        return None

    def _image(self, href: str | None) -> str | None:
        if not href or ":" in href.split("/")[0]:
            return None  # an external link: never fetched
        member = posixpath.normpath(href.lstrip("./")) if href.startswith("./") else href
        ext = posixpath.splitext(member)[1].lstrip(".").lower()
        stored = self.pkg.member(member)
        if ext not in _IMAGE_EXTS or stored is None:
            return None
        return self._pictures.take(("member", stored), lambda: (
            self.pkg.try_blob(member, MAX_IMAGE_BYTES), "jpg" if ext == "jpeg" else ext), repr(href))

    # -- presentations ---------------------------------------------------------------

    def _slides(self, pres) -> None:
        for slide in pres.iter(DRAW + "page"):
            page = Page(page_idx=len(self.doc.pages), name=slide.get(DRAW + "name"))
            flow = Flow()
            self._flow = flow
            frames = [k for k in slide if local(k) not in ("notes", "forms", "animations")]
            for k in slide:
                if local(k) == "annotation":
                    self._comment(k)
            titles = [f for f in frames if f.get(PRESENTATION + "class") == "title"]
            for f in titles + [f for f in frames if f not in titles]:
                cls = f.get(PRESENTATION + "class")
                if cls in ("page-number", "footer", "header", "date-time"):
                    continue
                if cls == "title":
                    text = " ".join(_text(p) for p in f.iter(TEXT + "p", TEXT + "h")).strip()
                    if text:
                        flow.add(title_block([text_span(text)], 2))
                    continue
                for b in self.frame(f, 1, flow):
                    flow.add(b)
            notes = slide.find(PRESENTATION + "notes")
            blocks = flow.finish()
            if notes is not None:
                lines = []
                for f in notes:
                    if f.get(PRESENTATION + "class") != "notes":
                        continue
                    for p in f.iter(TEXT + "p"):
                        spans = self.inline(p, 1)[0]
                        if any(s.content.strip() for s in spans):
                            lines.append(Line([s for s in spans if s.content != BREAK]))
                if lines:
                    blocks.append(Block(BlockType.NOTES, lines=lines))
            page.para_blocks = blocks + self._comments()
            self.doc.pages.append(page)
        if not self.doc.pages:
            self.doc.pages.append(Page(page_idx=0))


def _text(el) -> str:
    return "".join(el.itertext())


def _span(text: str | None) -> int:
    """A cell's span, at least 1 and at most :data:`MAX_REPEAT` (a wild value stays sane)."""
    return max(1, min(_int(text) or 1, MAX_REPEAT))


def _int(text: str | None) -> int | None:
    return number(text)
