"""The body reader: document.xml (and any other block container) to model blocks.

One pass over the XML. Block containers (the body, table cells, text boxes, headers,
notes, content controls) yield paragraphs and tables; a paragraph's inline content
(runs, hyperlinks, fields, math, drawings) becomes spans. Content that cannot live in a
line — pictures, text boxes, display equations — splits the paragraph and becomes its
own block in place. A final pass per container groups list items into list blocks and
attaches captions to the table or figure next to them.
"""

from __future__ import annotations

from mineru_tui.office.placeholders import file_name, linked_image_block
from mineru_tui.document import (Block, BlockType, Document, Line, Span, SpanType,
                                 checkbox_span, equation_block, image_block, text_span,
                                 title_block)
from mineru_tui.office.docx.checkbox import form_checkbox, glyph_checkbox, sdt_checkbox
from mineru_tui.office.docx.embedded import (C_NS, DGM_NS, alt_chunk_blocks, chart_block,
                                             smartart_blocks)
from mineru_tui.office.docx.fields import Field, field_name, hyperlink_target, seq_kind
from mineru_tui.office.docx.layout import Piece, finish
from mineru_tui.office.docx.numbering import ListCounter
from mineru_tui.office.docx.notes import Notes
from mineru_tui.office.docx.styles import Styles, parse_rpr
from mineru_tui.office.docx.symbols import symbol_char
from mineru_tui.office.docx.tables import read_table
from mineru_tui.office.docx.wml import (A_NS, M_NS, O_NS, PIC_NS, V_NS, WP_NS, int_val, local, m,
                                        mc, r, val, w)
from mineru_tui.office.pictures import MAX_PACKAGE_PICTURES, Pictures

# Element names, computed once (the walker compares tags with ``==``).
P, R, T, TBL = w("p"), w("r"), w("t"), w("tbl")
PPR, RPR = w("pPr"), w("rPr")
PSTYLE, RSTYLE, NUMPR, NUMID, ILVL, OUTLINE = (w("pStyle"), w("rStyle"), w("numPr"), w("numId"),
                                              w("ilvl"), w("outlineLvl"))
HYPERLINK, FLDSIMPLE, FLDCHAR, INSTR = w("hyperlink"), w("fldSimple"), w("fldChar"), w("instrText")
INS, MOVETO = w("ins"), w("moveTo")  # w:del / w:moveFrom: deleted, never read
SDT, SDTCONTENT, SMARTTAG, CUSTOMXML = w("sdt"), w("sdtContent"), w("smartTag"), w("customXml")
DIR, BDO = w("dir"), w("bdo")
TAB, PTAB, BR, CR, SYM = w("tab"), w("ptab"), w("br"), w("cr"), w("sym")
NBHYPHEN = w("noBreakHyphen")
FOOTREF, ENDREF = w("footnoteReference"), w("endnoteReference")
DRAWING, PICT, OBJECT = w("drawing"), w("pict"), w("object")
RUBY, RUBYBASE = w("ruby"), w("rubyBase")
TXBX = w("txbxContent")
IND = w("ind")
ALTCHUNK = w("altChunk")
OMATH, OMATHPARA = m("oMath"), m("oMathPara")
ALT, CHOICE, FALLBACK = mc("AlternateContent"), mc("Choice"), mc("Fallback")
BLIP, GRAPHIC_DATA = f"{{{A_NS}}}blip", f"{{{A_NS}}}graphicData"
PIC_PIC, PIC_NVPICPR, PIC_CNVPR = f"{{{PIC_NS}}}pic", f"{{{PIC_NS}}}nvPicPr", f"{{{PIC_NS}}}cNvPr"
WP_DOCPR = f"{{{WP_NS}}}docPr"
V_IMAGEDATA, V_SHAPE = f"{{{V_NS}}}imagedata", f"{{{V_NS}}}shape"
R_ID, R_EMBED, R_LINK, R_DM = r("id"), r("embed"), r("link"), r("dm")
DGM_RELIDS, C_CHART = f"{{{DGM_NS}}}relIds", f"{{{C_NS}}}chart"
O_TITLE = f"{{{O_NS}}}title"
M_T = f"{{{M_NS}}}t"

_BR = object()  # a soft line break inside a paragraph's items
_HEADING_DROP = frozenset({"bold"})  # heading styles are bold; "# **x**" helps nobody


class BodyReader:
    """Reads block containers of one document, sharing styles, lists, notes and images."""

    def __init__(self, doc: Document, part, styles: Styles, counter: ListCounter, notes: Notes):
        self.doc = doc
        self.part = part
        self.styles = styles
        self.counter = counter
        self.notes = notes
        self.fields: list[Field] = []
        self._images: dict = {}
        self.pictures = Pictures(doc, total=MAX_PACKAGE_PICTURES)  # each media part once
        self._omml = None
        self._warned: set[str] = set()
        self._seq = ""  # the SEQ field kind seen in the current paragraph
        self._run_cache: dict = {}
        self.headings: list[tuple[Block, bool]] = []  # (title block, from a "Title" style)

    # ---------------------------------------------------------------- warnings, parts

    def warn(self, message: str) -> None:
        """Record a warning once (corrupt input repeats the same problem many times)."""
        if message not in self._warned:
            self._warned.add(message)
            self.doc.warnings.append(message)

    def read_part_blocks(self, part, container) -> list[Block]:
        """Read a container that lives in another part (header, footer, notes)."""
        saved, saved_fields = self.part, self.fields
        self.part, self.fields = part, []
        try:
            return self.read_blocks(container)
        finally:
            self.part, self.fields = saved, saved_fields

    # ---------------------------------------------------------------- block level

    def read_blocks(self, container) -> list[Block]:
        """The blocks of a container element, lists grouped and captions attached."""
        outs: list[Piece] = []
        self._block_children(container, outs)
        return finish(outs)

    def _block_children(self, el, outs: list[Piece]) -> None:
        for child in el:
            tag = child.tag
            try:
                if tag == P:
                    self._paragraph(child, outs)
                elif tag == TBL:
                    outs.append(Piece(read_table(child, self.read_blocks)))
                elif tag == SDT:
                    content = child.find(SDTCONTENT)
                    if content is not None:
                        self._block_children(content, outs)
                elif tag in (CUSTOMXML, INS, MOVETO, SMARTTAG):
                    self._block_children(child, outs)
                elif tag == ALT:
                    self._alternate(child, outs, lambda e: self._block_children(e, outs))
                elif tag == OMATHPARA or tag == OMATH:
                    outs.extend(Piece(b) for b in self._display_math(child))
                elif tag == ALTCHUNK:
                    outs.extend(Piece(b) for b in self._alt_chunk(child))
            except Exception as exc:  # one bad element must not lose the document
                self.warn(f"skipped a damaged {local(tag) or 'element'}: {type(exc).__name__}: {exc}")

    def _alternate(self, el, sink: list, read) -> None:
        """mc:AlternateContent: the first Choice, or the Fallback when it gives nothing."""
        before = len(sink)
        choice = el.find(CHOICE)
        if choice is not None:
            read(choice)
        if len(sink) == before:
            fallback = el.find(FALLBACK)
            if fallback is not None:
                read(fallback)

    # ---------------------------------------------------------------- paragraphs

    def _paragraph(self, p, outs: list[Piece]) -> None:
        style_id = num = outline = None
        indented = False
        ppr = p.find(PPR)
        if ppr is not None:
            style_id = val(ppr.find(PSTYLE))
            numpr = ppr.find(NUMPR)
            if numpr is not None:
                num_id = val(numpr.find(NUMID))
                ilvl = int_val(numpr.find(ILVL))
                if num_id is not None:
                    num = (num_id, ilvl)
                elif ilvl is not None:  # level only: the style gives the list
                    styled = self.styles.numbering(style_id or self.styles.default_paragraph)
                    num = (styled[0], ilvl) if styled else None
            outline = int_val(ppr.find(OUTLINE))
            ind = ppr.find(IND)
            if ind is not None:
                indented = (int_val(ind, 0, w("left")) or int_val(ind, 0, w("start")) or 0) > 0
        style_id = style_id or self.styles.default_paragraph
        if num is None:
            num = self.styles.numbering(style_id)
        elif num[1] is None:
            styled = self.styles.numbering(style_id)
            num = (num[0], styled[1] if styled else 0)
        if num is not None and num[0] in ("0", ""):
            num = None  # numId 0 removes numbering a style would give

        if outline is not None:
            level = outline + 1 if 0 <= outline < 9 else None
        else:
            level = self.styles.heading_level(style_id)

        self._seq = ""
        items: list = []
        base = None if level else style_id  # headings: no style bold/size on spans
        self._inline(p, items, None, base)
        _leading_checkbox(items)
        if self.fields:  # an instruction never reaches past its paragraph: drop unfinished
            self.fields = [f for f in self.fields if f.in_result]

        label = self.counter.next(num[0], num[1] or 0) if num is not None else None
        caption = self._seq or ("any" if self.styles.is_caption(style_id) else "")
        code = not level and label is None and self.styles.is_code(style_id)
        first = True
        lines: list[list[Span]] = [[]]

        def flush() -> None:
            nonlocal first, lines
            block = self._text_block(lines, level, label if first else None, caption,
                                     num[1] or 0 if num else 0, code)
            lines = [[]]
            if isinstance(block, list):  # display equations: no caption, no heading
                outs.extend(block)
                first = first and not block
            elif block is not None:
                out = block
                out.caption = out.caption if first else ""
                out.indented = indented and label is None
                if out.block.type == BlockType.TITLE:
                    self.headings.append((out.block, self.styles.is_title(style_id)))
                outs.append(out)
                first = False

        for item in items:
            if item is _BR:
                lines.append([])
            elif isinstance(item, Span):
                lines[-1].append(item)
            else:
                flush()
                outs.append(Piece(item))
        flush()

    def _text_block(self, lines: list[list[Span]], level, label, caption,
                    ilvl: int, code: bool = False) -> Piece | list[Piece] | None:
        """A paragraph segment as a title, list item, text block or display equations."""
        while lines and not _has_content(lines[-1]):
            lines.pop()
        while lines and not _has_content(lines[0]):
            lines.pop(0)
        if not lines:
            return None
        spans = [s for line in lines for s in line]
        if level:
            spans = [s for i, line in enumerate(lines)
                     for s in ([text_span(" ")] if i else []) + line]
            if label is not None and label.visible and not label.bullet:
                spans.insert(0, text_span(label.marker + " "))
            for s in spans:
                if s.style & _HEADING_DROP:
                    s.style = s.style - _HEADING_DROP
                if "\t" in s.content:  # "1.<tab>Scope": the tab is only layout
                    s.content = s.content.replace("\t", " ")
            return Piece(title_block(_merge(spans), level))
        if label is not None and label.visible:
            block = Block(BlockType.TEXT, lines=[Line(_merge(l)) for l in lines],
                          depth=max(0, min(ilvl, 8)), marker=label.marker)
            return Piece(block, list_id=label.list_id)
        meaningful = [s for s in spans if s.type != SpanType.TEXT or s.content.strip()]
        if meaningful and all(s.type == SpanType.INLINE_EQUATION for s in meaningful):
            # Math alone in its paragraph is displayed; each m:oMath is its own equation.
            return [Piece(equation_block(s.content)) for s in meaningful]
        return Piece(Block(BlockType.TEXT, lines=[Line(_merge(l)) for l in lines]), caption=caption,
                    code=code)

    # ---------------------------------------------------------------- inline content

    def _inline(self, el, items: list, link: str | None, pstyle: str | None) -> None:
        for child in el:
            tag = child.tag
            if tag == R:
                self._run(child, items, link, pstyle)
            elif tag == HYPERLINK:
                self._inline(child, items, self._hyperlink(child) or link, pstyle)
            elif tag == FLDSIMPLE:
                instr = child.get(w("instr")) or ""
                if field_name(instr) == "SEQ":
                    self._seq = seq_kind(instr)
                self._inline(child, items, hyperlink_target(instr) or link, pstyle)
            elif tag in (INS, MOVETO, SMARTTAG, CUSTOMXML, DIR, BDO):
                self._inline(child, items, link, pstyle)
            elif tag == SDT:
                box = sdt_checkbox(child)
                if box is not None:  # the content is only the box's glyph
                    items.append(checkbox_span(box, link))
                    continue
                content = child.find(SDTCONTENT)
                if content is not None:
                    self._inline(content, items, link, pstyle)
            elif tag == OMATH:
                latex = self._math(child)
                if latex:  # an empty math zone is Word's placeholder, not an equation
                    items.append(Span(SpanType.INLINE_EQUATION, latex))
            elif tag == OMATHPARA:
                items.extend(self._display_math(child))
            elif tag == ALT:
                self._alternate(child, items, lambda e: self._inline(e, items, link, pstyle))
            # w:del, w:moveFrom (deleted text), bookmarks, comment ranges, proofErr: skipped

    def _hyperlink(self, el) -> str | None:
        url = None
        rid = el.get(R_ID)
        if rid:
            url = self.part.external_target(rid)
        anchor = el.get(w("anchor"))
        if anchor:
            url = (url or "") + "#" + anchor
        return url

    def _run_style(self, pstyle: str | None, rpr) -> frozenset:
        rstyle = val(rpr.find(RSTYLE)) if rpr is not None else None
        key = (pstyle, rstyle)
        base = self._run_cache.get(key)
        if base is None:
            base = dict(self.styles.run_props(pstyle))
            base.update(self.styles.run_props(rstyle))
            if rstyle and self.styles.is_code(rstyle):
                base["code"] = True
            self._run_cache[key] = base
        props = base
        if rpr is not None and len(rpr):
            direct = parse_rpr(rpr)
            if direct:
                props = {**base, **direct}
        return frozenset(k for k, v in props.items() if v)

    def _run(self, run, items: list, link: str | None, pstyle: str | None) -> None:
        style = self._run_style(pstyle, run.find(RPR))
        self._run_content(run, items, style, link)

    def _field_state(self) -> tuple[bool, str | None]:
        """(showing, link): text shows only in the result part of every open field."""
        link = None
        for f in self.fields:
            if not f.in_result:
                return False, None
            if f.link:
                link = f.link
        return True, link

    def _run_content(self, run, items: list, style: frozenset, link: str | None) -> None:
        for child in run:
            tag = child.tag
            if tag == FLDCHAR:
                box = form_checkbox(child) if child.get(w("fldCharType")) == "begin" else None
                if box is not None and (not self.fields or self._field_state()[0]):
                    items.append(checkbox_span(box, link))
                self._fld_char(child)
                continue
            if tag == INSTR:
                if self.fields and not self.fields[-1].in_result:
                    self.fields[-1].instr += child.text or ""
                continue
            if self.fields:
                showing, field_link = self._field_state()
                if not showing:
                    continue
                link = field_link or link
            if tag == T:
                text = child.text
                if text:
                    if "\n" in text or "\r" in text:  # source formatting, not a break (w:br is)
                        text = text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
                    _add_text(items, text, style, link)
            elif tag == TAB or tag == PTAB:
                _add_text(items, "\t", style, link)
            elif tag == BR or tag == CR:
                if child.get(w("type")) not in ("page", "column"):
                    items.append(_BR)
            elif tag == SYM:
                ch = symbol_char(child.get(w("font")), child.get(w("char")))
                if ch:
                    _add_text(items, ch, style, link)
            elif tag == NBHYPHEN:
                _add_text(items, "-", style, link)
            elif tag == FOOTREF or tag == ENDREF:
                nid = child.get(w("id"))
                if nid is not None:
                    kind = "footnote" if tag == FOOTREF else "endnote"
                    items.append(Span(SpanType.FOOTNOTE_REF, self.notes.ref(kind, nid)))
            elif tag == DRAWING:
                self._graphic(child, items, _docpr_alt(child))
            elif tag == PICT or tag == OBJECT:
                self._graphic(child, items, "")
            elif tag == ALT:
                self._alternate(child, items, lambda e: self._run_content(e, items, style, link))  # noqa: B023 (called at once)
            elif tag == RUBY:
                base = child.find(RUBYBASE)
                if base is not None:
                    self._inline(base, items, link, None)
            # w:delText, w:softHyphen, marks, page-break hints: nothing to show

    def _fld_char(self, el) -> None:
        kind = el.get(w("fldCharType"))
        if kind == "begin":
            if len(self.fields) < 32:
                self.fields.append(Field())
        elif kind == "separate":
            if self.fields:
                f = self.fields[-1]
                f.finish_instr()
                f.in_result = True
                if field_name(f.instr) == "SEQ":
                    self._seq = seq_kind(f.instr)
        elif kind == "end":
            if self.fields:
                f = self.fields.pop()
                if field_name(f.instr) == "SEQ" and not self._seq:
                    self._seq = seq_kind(f.instr)

    # ---------------------------------------------------------------- drawings, images

    def _graphic(self, el, items: list, alt: str) -> None:
        """Pictures and text boxes anywhere inside a drawing, VML shape or group."""
        for child in el:
            tag = child.tag
            if tag == TXBX:
                seq = self._seq  # the box's paragraphs are not the anchoring paragraph
                items.extend(self.read_blocks(child))
                self._seq = seq
            elif tag == BLIP:
                self._add_image(items, child.get(R_EMBED), alt, child.get(R_LINK))
            elif tag == V_IMAGEDATA:
                rid = child.get(R_ID) or child.get(f"{{{O_NS}}}relid")
                self._add_image(items, rid, alt or child.get(O_TITLE) or "")
            elif tag == PIC_PIC:
                c = child.find(f"{PIC_NVPICPR}/{PIC_CNVPR}")
                own = (c.get("descr") if c is not None else None) or ""
                # A lone picture is described by its drawing's docPr; in a group each
                # picture's own description says more than the group's.
                self._graphic(child, items, (alt or own) if el.tag == GRAPHIC_DATA else (own or alt))
            elif tag == V_SHAPE:
                self._graphic(child, items, child.get("alt") or alt)
            elif tag == ALT:
                self._alternate(child, items, lambda e: self._graphic(e, items, alt))
            elif tag == C_CHART:
                self._chart(items, child.get(R_ID))
            elif tag == DGM_RELIDS:
                items.extend(self._smartart(child.get(R_DM)))
            elif isinstance(tag, str):
                self._graphic(child, items, alt)

    def _add_image(self, items: list, rid: str | None, alt: str, link_rid: str | None = None) -> None:
        """An embedded picture; else (``r:link``, or an external ``r:id``) a linked one."""
        alt = " ".join(alt.split())
        name = self._images.get((self.part.name, rid)) if rid else None
        if name is None and rid:
            name = self._embedded(rid)
        if name is not None:
            items.append(image_block(name, alt))
            return
        external = None
        for r_id in (link_rid, rid):
            external = self.part.external_target(r_id) if r_id else None
            if external:
                break
        if external:
            self.warn(f"a picture links to {file_name(external)!r} outside the document; "
                      "it is not embedded and was not read")
            items.append(linked_image_block(alt, external))
        elif rid and not link_rid:
            self.warn(f"an image ({rid} in {self.part.name}) is missing from the package")

    def _embedded(self, rid: str) -> str | None:
        """The name under which the picture part of ``rid`` is stored in ``doc.images``."""
        target = self.part.related(rid)
        if target is None:
            return None
        if not target.package.size(target.name):
            self.warn(f"an image ({target.name}) is empty")
            return None
        try:  # each media part once, within the picture caps (office/pictures.py)
            name = self.pictures.take_member(target.package, target.name, target.ext,
                                             repr(target.name)) or ""  # "": left out, said so
        except Exception as exc:
            self.warn(f"an image ({target.name}) could not be read: {exc}")
            return None
        self._images[(self.part.name, rid)] = name
        return name

    def _chart(self, items: list, rid: str | None) -> None:
        target = self.part.related(rid) if rid else None
        if target is None:
            return
        try:
            block = chart_block(target.xml())
        except Exception as exc:
            self.warn(f"chart data not read ({target.name}): {type(exc).__name__}")
            return
        if block is not None:
            items.append(block)

    def _smartart(self, rid: str | None) -> list[Block]:
        target = self.part.related(rid) if rid else None
        if target is None:
            return []
        try:
            return smartart_blocks(target.xml())
        except Exception as exc:
            self.warn(f"SmartArt text not read ({target.name}): {type(exc).__name__}")
            return []

    def _alt_chunk(self, el) -> list[Block]:
        rid = el.get(R_ID)
        target = self.part.related(rid) if rid else None
        if target is None:
            self.warn("an imported chunk (altChunk) is missing from the package")
            return []
        blocks = alt_chunk_blocks(target.blob(), target.content_type, self.warn, self.doc)
        if blocks is None:
            self.warn(f"an imported chunk ({target.name}, {target.content_type}) was not read")
            return []
        return blocks

    # ---------------------------------------------------------------- math

    def _display_math(self, el) -> list[Block]:
        """Display equations: one per ``m:oMath`` of an ``m:oMathPara`` (Word shows each
        on its own line), empty math zones skipped."""
        maths = el.findall(OMATH) if el.tag == OMATHPARA else []
        return [equation_block(latex) for latex in map(self._math, maths or [el]) if latex]

    def _math(self, el) -> str:
        if self._omml is None:
            try:
                from mineru_tui.office.omml import omml_to_latex
                self._omml = omml_to_latex
            except ImportError:
                self._omml = False
                self.warn("equations kept as plain text: the OMML converter is not available")
        if self._omml:
            try:
                latex = self._omml(el)
                if isinstance(latex, str):
                    return latex.strip()
            except Exception as exc:
                self.warn(f"an equation could not be converted to LaTeX ({type(exc).__name__}); "
                          "kept as plain text")
        return "".join(t.text or "" for t in el.iter(M_T)).strip()

def _docpr_alt(drawing) -> str:
    for container in drawing:
        docpr = container.find(WP_DOCPR)
        if docpr is not None:
            return docpr.get("descr") or docpr.get("title") or ""
    return ""


def _leading_checkbox(items: list) -> None:
    """A paragraph that starts with a ☐/☒ glyph starts with a check box: write its state."""
    for i, item in enumerate(items):
        if not isinstance(item, Span) or item.type != SpanType.TEXT or item.is_checkbox:
            return
        if not item.content.strip():
            continue  # leading blanks: look at the first real text
        found = glyph_checkbox(item.content)
        if found is not None:
            state, rest = found
            items[i:i + 1] = [checkbox_span(state, item.link),
                              Span(SpanType.TEXT, rest, item.style, item.link)]
        return


def _add_text(items: list, text: str, style: frozenset, link: str | None) -> None:
    last = items[-1] if items else None
    if (isinstance(last, Span) and last.type == SpanType.TEXT and last.style == style
            and last.link == link and not last.is_checkbox):
        last.content += text
    else:
        items.append(Span(SpanType.TEXT, text, style, link))


def _merge(spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    for s in spans:
        last = out[-1] if out else None
        if (last is not None and s.type == SpanType.TEXT and last.type == SpanType.TEXT
                and last.style == s.style and last.link == s.link
                and not s.is_checkbox and not last.is_checkbox):
            last.content += s.content
        else:
            out.append(s)
    return out


def _has_content(spans: list[Span]) -> bool:
    return any(s.type != SpanType.TEXT or s.content.strip() for s in spans)
