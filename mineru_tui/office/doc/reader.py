"""Legacy Word 97-2003 documents (.doc) to the document model.

The text comes through the piece table of the ``WordDocument`` stream (cp1252 or UTF-16
pieces, in character order), cut into paragraphs at paragraph marks; each paragraph's
properties (FKP pages of ``PlcfBtePapx``) give its style, outline level, list level and
table flags, and the style sheet turns a style into a heading (the built-in "heading 1"
to "heading 9", "Title", or an outline level). Tables are rebuilt from the cell marks
(``\\x07``) and row ends; fields keep their shown result (a ``HYPERLINK`` field becomes a
link through the allow-list); footnotes and endnotes are read from their stories and
referenced where their marks are. Text boxes (floating shapes' text lives in a story of its
own, ``PlcftxbxTxt``) are read where their shape is anchored (``PlcSpaMom``: the shape id
the box's ``FTXBXS`` names), after the anchoring paragraph; review comments (the
annotation story, ``PlcfandRef``/``PlcfandTxt``, authors from ``GrpXstAtnOwners``) become
"Author: text" aside blocks at the end, as ODT comments do. Headers and footers (the header
story, cut by ``PlcfHdd``) become the page's discarded blocks, each distinct text once, as
.docx headers do.

Word 6/95 files give their text only; encrypted files are refused with one line.
"""

from __future__ import annotations

import struct

import re
from pathlib import Path

from mineru_tui.document import (Block, BlockType, Cell, Document, Line, Page, Span, Table,
                                 image_block, safe_url, table_block, text_span)
from mineru_tui.errors import InputError, cut_warning
from mineru_tui.office.doc.fib import (CLX, PLCFBTECHPX, PLCFBTEPAPX, PLCFENDREF, PLCFENDTXT,
                                       PLCFFNDREF, PLCFFNDTXT, STSHF, DGGINFO, PLCFANDREF,
                                       PLCFANDTXT, ATNOWNERS, PLCFHDD, PLCFTXBXTXT, PLCSPAMOM, Chpx,
                                       Papx,
                                       blob,
                                       OverlapError, forward, nfc_format, picture, plc_cps, read_fib, read_lists,
                                       strip_fields,
                                       read_pieces, read_styles, stored_pictures, style_outline,
                                       text_of)
from mineru_tui.office.flow import BREAK, Counters, Flow, counter_text, note_ref
from mineru_tui.office.merged_cells import MergedCells
from mineru_tui.office.pictures import MAX_PACKAGE_PICTURES, Pictures
from mineru_tui.office.limits import MAX_DOC_CHARS as MAX_CHARS
from mineru_tui.office.limits import MAX_TABLE_CELLS
from mineru_tui.office.ole import ENCRYPTED, Ole

MAX_BOXES = 10_000  # text boxes and comments read (each a story range)
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f]")  # picture, note and separator marks
_HYPERLINK = re.compile(r'HYPERLINK\s+(?:\\l\s+)?"([^"]*)"|HYPERLINK\s+(\S+)')


def read_doc(path: str | Path) -> Document:
    """Read a Word 97-2003 .doc into a :class:`Document` (backend "office")."""
    with Ole(path) as ole:
        word = ole.stream("WordDocument")
        if word is None:
            raise InputError("not a Word document: it has no WordDocument stream")
        if word[:2] == b"\xdc\xa5" or (word[:2] == b"\xec\xa5" and len(word) > 4
                                         and 101 <= word[2] + 256 * word[3] <= 105):
            if len(word) > 0x0B and word[0x0B] & 0x01:  # fEncrypted (bit 8 of the flags)
                raise InputError(ENCRYPTED)
            from mineru_tui.office.doc.word6 import read_word6
            try:
                return read_word6(word)  # Word 6.0/95: its text
            except (struct.error, ValueError, IndexError) as exc:
                raise InputError("not a readable Word 6.0/95 document: its structure is "
                                 "damaged", str(exc)) from None
        if word[:2] in (b"\x9b\xa5", b"\x2d\xa5"):  # Word 2.0, 1.x
            raise InputError("a Word 2.0 (or older) document: only Word 6.0 to 2003 .doc "
                             "files are read; save it in a newer format")
        try:
            fib = read_fib(word)
        except (ValueError, Exception) as exc:
            raise InputError("not a readable Word 97-2003 document: its header is damaged",
                             str(exc)) from None
        if fib.encrypted:
            raise InputError(ENCRYPTED)
        if fib.nfib < 0xC0:  # Word 6 and 95 have a FIB of their own
            raise InputError("an unknown version of a Word .doc file: only Word 6.0 to 2003 "
                             "files are read")
        table = ole.stream(fib.table)
        if table is None:
            raise InputError(f"not a readable Word document: its {fib.table} stream is missing")
        data = ole.stream("Data") or b""
    try:
        return _Reader(word, table, fib, data).read()
    except (struct.error, ValueError, IndexError, KeyError) as exc:
        raise InputError("not a readable Word 97-2003 document: its structure is damaged",
                         f"{type(exc).__name__}: {exc}") from None


class _Reader:
    def __init__(self, word: bytes, table: bytes, fib, data: bytes = b""):
        self.word, self.table, self.fib, self.data = word, table, fib, data
        self.doc = Document(backend="office")
        self.intake = Pictures(self.doc, total=MAX_PACKAGE_PICTURES)
        self.flow = Flow()
        self.notes = 0
        self.counters = Counters()
        self.pictures: list = []  # picture blocks of the paragraph being read
        self.boxes: dict[int, list[tuple[int, int]]] = {}  # anchor cp -> text box stories
        self.queued: list[tuple[int, int]] = []  # boxes anchored in the paragraph being read
        self.in_box = False

    def read(self) -> Document:
        fib = self.fib
        overlap = None
        try:
            pieces = read_pieces(blob(fib, self.table, CLX))
        except OverlapError as exc:
            overlap = str(exc)
        if overlap is not None:  # raised here, so the one line keeps its own words
            raise InputError("refused: its piece table has overlapping pieces (the same text "
                             "read more than once: a damaged or crafted file)", overlap)
        if pieces[-1].cp_end - pieces[0].cp > MAX_CHARS:  # counted before decoding
            raise InputError(f"refused: the document has more than {MAX_CHARS:,} characters "
                             f"(the limit of this reader)")
        text, fcs = text_of(self.word, pieces)
        self.text, self.fcs = text, fcs
        self.papx = Papx(self.word, blob(fib, self.table, PLCFBTEPAPX))
        self.styles = read_styles(blob(fib, self.table, STSHF))
        self.chpx = Chpx(self.word, blob(fib, self.table, PLCFBTECHPX))
        try:  # floating pictures (drawn objects): the blip store, used in order
            self.floating = [p for p in stored_pictures(blob(fib, self.table, DGGINFO), self.word)
                             if p is not None]
        except (struct.error, ValueError, IndexError):
            self.floating = []
        try:
            self.lists, self.lfos = read_lists(self.table, fib)
        except (struct.error, ValueError, IndexError):  # damaged list tables: items stay bullets
            self.lists, self.lfos = {}, []
        ccp = fib.ccp
        main_end = min(ccp["text"], len(text))
        ftn_start = ccp["text"]
        edn_start = ccp["text"] + ccp["ftn"] + ccp["hdd"] + ccp["mcr"] + ccp["atn"]
        self.refs: dict[int, tuple[int, int]] = {}  # cp of a note mark -> note text range
        txbx_start = edn_start + ccp["edn"]
        comments: list[Block] = []
        discarded: list[Block] = []
        for what, part in (
                ("footnotes", lambda: self._notes(PLCFFNDREF, PLCFFNDTXT, ftn_start)),
                ("endnotes", lambda: self._notes(PLCFENDREF, PLCFENDTXT, edn_start)),
                ("text boxes", lambda: self._text_boxes(
                    txbx_start, min(txbx_start + ccp["txbx"], len(text)))),
                ("comments", lambda: comments.extend(self._comments(
                    ccp["text"] + ccp["ftn"] + ccp["hdd"] + ccp["mcr"], ccp["atn"]))),
                ("headers and footers", lambda: discarded.extend(self._headers_footers(
                    ccp["text"] + ccp["ftn"], ccp["hdd"])))):
            try:  # a damaged or crafted part costs that part, with a word; the body reads
                part()
            except OverlapError:
                self.boxes = {} if what == "text boxes" else self.boxes
                self.doc.warnings.append(cut_warning(
                    f"the {what} overlap each other (their ranges go back: a damaged or "
                    f"crafted file); the {what} are left out"))
            except (struct.error, ValueError, IndexError):
                self.boxes = {} if what == "text boxes" else self.boxes
                self.doc.warnings.append(f"the {what} are damaged and left out")
        self._story(0, main_end)
        for ranges in self.boxes.values():  # boxes whose anchor was not met: at the end
            self.queued += ranges
        self._emit_boxes()
        self.doc.pages.append(Page(page_idx=0, para_blocks=self.flow.finish() + comments,
                                   discarded_blocks=discarded))
        return self.doc

    def _text_boxes(self, start: int, end: int) -> None:
        """Text box stories by the cp of their shape's anchor. A story names its shape
        (``lid``); one whose shape is not anchored in the body (a box inside a group or a
        canvas) goes with the first anchored shape that has no story of its own."""
        plc = blob(self.fib, self.table, PLCFTXBXTXT)
        n = (len(plc) - 4) // 26
        if n <= 1:
            return
        cps = forward(plc_cps(plc, 22))
        anchors: dict[int, int] = {}  # spid -> anchor cp
        spa = blob(self.fib, self.table, PLCSPAMOM)
        m = (len(spa) - 4) // 30
        for i, cp in enumerate(plc_cps(spa, 26)[:m]):
            anchors.setdefault(struct.unpack_from("<i", spa, 4 * (m + 1) + 26 * i)[0], cp)
        unplaced = []
        for i in range(min(n - 1, MAX_BOXES)):  # the last entry is a placeholder
            reusable = struct.unpack_from("<H", plc, 4 * (n + 1) + 22 * i + 8)[0]
            lid = struct.unpack_from("<i", plc, 4 * (n + 1) + 22 * i + 14)[0]
            a, b = start + cps[i], min(start + cps[i + 1], end)
            if reusable or a >= b or not self.text[a:b].strip("\r\x07 \t"):
                continue
            if lid in anchors:
                self.boxes.setdefault(anchors[lid], []).append((a, b))
            else:
                unplaced.append((a, b))
        if unplaced:
            free = [cp for spid, cp in sorted(anchors.items(), key=lambda x: x[1])
                    if cp not in self.boxes]
            key = free[0] if free else -1  # -1: never met, so written at the end
            self.boxes.setdefault(key, []).extend(unplaced)

    def _emit_boxes(self) -> None:
        """The queued text boxes' stories, each read like body text (tables and lists too)."""
        queued, self.queued = self.queued, []
        if self.in_box:  # a box anchored inside a box: read once, at the outer level
            return
        self.in_box = True
        try:
            for a, b in queued:
                self.flow.end_list()
                self._story(a, b)
                self.flow.end_list()
        finally:
            self.in_box = False

    def _comments(self, start: int, length: int) -> list[Block]:
        """Review comments as "Author: text" aside blocks (as ODT and .pptx comments are)."""
        if not length:
            return []
        owners = []
        grp = blob(self.fib, self.table, ATNOWNERS)
        pos = 0
        while pos + 2 <= len(grp) and len(owners) < MAX_BOXES:
            cch = struct.unpack_from("<H", grp, pos)[0]
            owners.append(grp[pos + 2:pos + 2 + 2 * cch].decode("utf-16-le", "replace"))
            pos += 2 + 2 * cch
        refs = blob(self.fib, self.table, PLCFANDREF)
        n = (len(refs) - 4) // 34
        txts = forward(plc_cps(blob(self.fib, self.table, PLCFANDTXT), 0))
        out = []
        for i in range(min(n, len(txts) - 1, MAX_BOXES)):
            ibst = struct.unpack_from("<H", refs, 4 * (n + 1) + 30 * i + 20)[0]
            body = self.text[start + txts[i]:min(start + txts[i + 1], start + length)]
            body = strip_fields(body.replace("\x05", ""))
            text = " ".join(p.strip() for p in re.split(r"[\r\x0b\x07]", body) if p.strip())
            if not text:
                continue
            author = owners[ibst].strip() if ibst < len(owners) else ""
            out.append(Block(BlockType.ASIDE_TEXT, lines=[Line([text_span(
                f"{author}: {text}" if author else text)])]))
        return out

    def _headers_footers(self, start: int, length: int) -> list[Block]:
        """Header and footer text as discarded blocks, each distinct text once, a line a
        paragraph, fields as their shown result. ``PlcfHdd`` cuts the header story: six
        stories of the notes' separators, then six a section (even header, odd header, even
        footer, odd footer, first-page header, first-page footer); its last CP is not a story's."""
        if not length:
            return []
        cps = forward(plc_cps(blob(self.fib, self.table, PLCFHDD), 0))
        out: list[Block] = []
        seen: set = set()
        for i in range(6, min(len(cps) - 2, 6 + 6 * MAX_BOXES)):
            kind = BlockType.HEADER if (i - 6) % 6 in (0, 1, 4) else BlockType.FOOTER
            body = self.text[start + cps[i]:min(start + cps[i + 1], start + length)]
            body = strip_fields(body)
            lines = [_CONTROL.sub("", p).strip() for p in re.split(r"[\r\x0b\x07\x0c]", body)]
            lines = [p for p in lines if p]
            if not lines or (kind, tuple(lines)) in seen:
                continue
            seen.add((kind, tuple(lines)))
            out.append(Block(kind, lines=[Line([text_span(p)]) for p in lines]))
        return out

    def _notes(self, ref_index: int, txt_index: int, story: int) -> None:
        refs = plc_cps(blob(self.fib, self.table, ref_index), 2)[:-1]
        txts = forward(plc_cps(blob(self.fib, self.table, txt_index), 0))
        for i, cp in enumerate(refs):
            if i + 1 < len(txts):
                self.refs[cp] = (story + txts[i], story + txts[i + 1])

    # -- the main story --------------------------------------------------------------------

    def _story(self, start: int, end: int) -> None:
        text = self.text
        spans: list[Span] = []
        buf: list[str] = []
        fields: list[dict] = []  # open fields: {"code": [...], "result": bool, "link": str}
        rows: list[list[Cell]] = []
        row_defs: list = []  # each row's cell edges and merges (from its row end)
        cells: list[Cell] = []
        cell_spans: list[Span] = []
        link: str | None = None
        cut = False
        look: frozenset = frozenset()
        chpx, fcs = self.chpx, self.fcs

        def flush() -> None:
            if buf:
                spans.append(text_span("".join(buf), look, link))
                buf.clear()

        def end_table() -> None:
            nonlocal rows, cells, cell_spans, row_defs
            if cells or cell_spans:
                cells.append(_cell(cell_spans))
                rows.append(cells)
                row_defs.append(None)
            if rows:
                self.flow.add(table_block(Table(_grid(rows, row_defs))))
            rows, cells, cell_spans, row_defs = [], [], [], []

        for cp in range(start, end):
            ch = text[cp]
            if fields and not fields[-1]["result"] and ch not in "\x13\x14\x15":
                fields[-1]["code"].append(ch)
                continue
            cprops = chpx.at(fcs[cp]) if cp < len(fcs) else None
            if cprops is not None:
                if cprops.hidden and ch not in "\r\x07":
                    continue
                if cprops.style != look:
                    flush()
                    look = cprops.style
                if ch == "\x01" and cprops.special and cprops.pic is not None:
                    self._picture(cprops.pic)
                    continue
                if ch == "\x08" and cp in self.boxes and not self.in_box:
                    self.queued += self.boxes.pop(cp)  # a text box: read after its paragraph
                    continue
                if ch == "\x08" and cprops.special and self.floating:
                    self._add_picture(self.floating.pop(0))
                    continue
            if ch == "\x13":
                flush()
                fields.append({"code": [], "result": False, "link": None})
            elif ch == "\x14":
                if fields:
                    flush()
                    f = fields[-1]
                    f["result"] = True
                    m = _HYPERLINK.search("".join(f["code"]))
                    if m:
                        target = m.group(1) if m.group(1) is not None else m.group(2)
                        if "\\l" in "".join(f["code"]).split(target)[0]:
                            target = "#" + target
                        f["link"] = safe_url(target)
                        link = f["link"] or link
            elif ch == "\x15":
                if fields:
                    flush()
                    fields.pop()
                    link = next((f["link"] for f in reversed(fields) if f["link"]), None)
            elif ch in "\r\x07\x0c":
                flush()
                props = self.papx.at(self.fcs[cp]) if cp < len(self.fcs) else None
                if props is not None and (props.in_table or ch == "\x07"):
                    if ch == "\x07" and props.row_end:
                        if cells:
                            rows.append(cells)
                            row_defs.append(props.cells)
                        cells = []
                        if sum(len(r) for r in rows) > MAX_TABLE_CELLS:
                            cut = True
                            rows.pop()
                    elif ch == "\x07":
                        if cell_spans and spans:
                            cell_spans.append(text_span(BREAK))
                        cells.append(_cell(cell_spans + spans))
                        cell_spans = []
                    else:
                        if cell_spans and spans:
                            cell_spans.append(text_span(BREAK))
                        cell_spans += spans
                    spans = []
                    continue
                if rows or cells:
                    end_table()
                self._paragraph(spans, props)
                spans = []
                for b in self.pictures:
                    self.flow.add(b)
                self.pictures = []
                if self.queued:
                    self._emit_boxes()
            elif ch == "\x0b":
                flush()
                spans.append(text_span(BREAK))
            elif ch == "\x02" and cp in self.refs:
                flush()
                spans.append(self._note(*self.refs[cp]))
            elif ch in "\x01\x08\x02\x05\x1f\x00":
                continue  # pictures, drawn objects, annotation marks, optional hyphens
            elif ch == "\x1e":
                buf.append("-")
            elif ch == "\t":
                buf.append(" ")
            else:
                buf.append(ch)
        flush()
        if rows or cells:
            end_table()
        if spans:
            self._paragraph(spans, None)
        if cut:
            self.doc.warnings.append(cut_warning(f"a table has more than {MAX_TABLE_CELLS} "
                                                 "cells; the rest is left out"))

    def _paragraph(self, spans: list[Span], props) -> None:
        level = None
        depth, marker = None, None
        if props is not None:
            style = self.styles[props.istd] if props.istd < len(self.styles) else None
            outline = props.outline if props.outline is not None else \
                style_outline(self.styles, props.istd)
            if outline is not None:
                level = outline + 1
            elif style is not None and (style.sti == 62 or style.name == "Title"):
                level = 1
            elif style is not None:
                m = re.fullmatch(r"(?i)heading\s*(\d)", style.name)
                level = int(m.group(1)) if m else None
            if props.ilfo > 0 and not level:
                depth, marker = props.ilvl, self._marker(props.ilfo, props.ilvl)
        self.flow.paragraph(spans, level=min(level, 6) if level else None, depth=depth,
                            marker=marker)

    def _marker(self, ilfo: int, ilvl: int) -> str:
        """An item's label from its list's level definition ("1.", "a)", "2.1."; "-" for bullets)."""
        lsid = self.lfos[ilfo - 1] if ilfo - 1 < len(self.lfos) else None
        levels = self.lists.get(lsid, []) if lsid is not None else []
        if ilvl >= len(levels):
            return "-"
        level = levels[ilvl]
        fmt = nfc_format(level.nfc)
        if fmt in ("bullet", "none"):
            self.counters.next(lsid, ilvl, level.start)
            return "-"
        self.counters.next(lsid, ilvl, level.start)
        counts = self.counters.current(lsid)
        out = []
        for ch in level.text:
            k = ord(ch)
            if k < 9:
                n = counts[k] if k < len(counts) and counts[k] else (
                    levels[k].start if k < len(levels) else 1)
                out.append(counter_text(n, nfc_format(levels[k].nfc) if k < len(levels) else "decimal"))
            else:
                out.append(ch)
        label = "".join(out).strip()
        return label or "-"

    def _picture(self, offset: int) -> None:
        try:
            found = picture(self.data, offset, self.word)
        except (struct.error, ValueError, IndexError):  # a damaged picture record
            found = None
        if found is not None:
            self._add_picture(found)

    def _add_picture(self, found: tuple[bytes, str]) -> None:
        """A picture through the document's intake (the same one twice is stored once)."""
        name = self.intake.take_data(found[0], found[1], "in the document")
        if name:
            self.pictures.append(image_block(name))

    def _note(self, start: int, end: int) -> Span:
        self.notes += 1
        label = str(self.notes)
        body = self.text[start:end].replace("\x02", "").replace("\x05", "")
        parts = [p.strip() for p in re.split(r"[\r\x0b]", strip_fields(body)) if p.strip()]
        spans: list[Span] = []
        for p in parts:
            if spans:
                spans.append(text_span(BREAK))
            spans.append(text_span(p.replace("\t", " ")))
        self.flow.note(label, spans)
        return note_ref(label)


def _grid(rows: list[list[Cell]], defs: list) -> list[list[Cell]]:
    """Rows laid on one grid of column edges: a cell spans the grid columns between its
    edges (rows of different cell widths), a horizontally merged cell (``horzMerge`` 2/3)
    widens the one before it, a vertically continued one (``vertMerge`` 1) lengthens the
    cell above it at the same left edge. Rows without definitions stay as they are."""
    edges = sorted({e for d in defs if d for c in d for e in c[:2]})
    if len(edges) < 2:
        return rows
    index = {e: i for i, e in enumerate(edges)}
    out: list[list[Cell]] = []
    merges = MergedCells(row_above=True)  # placed by left edge
    for row, d in zip(rows, defs):
        if not d:
            out.append(row)
            merges.reset()
            continue
        for i, cell in enumerate(row):
            left, right, h, v = d[i] if i < len(d) else (None, None, 0, 0)
            if left is None or left not in index or right not in index:
                merges.add(cell)
                continue
            start = merges.started(left)
            # continued (vertMerge 1); an empty "restart" under a merge start reads as its
            # continuation too (some writers mark every cell of the run so)
            merge = ("continue" if v == 1 or v == 3 and not cell.blocks and start is not None
                     and start.blocks else "restart" if v == 3 else "")
            merges.add(cell, left, max(1, index[right] - index[left]), joins_left=h in (2, 3),
                       merge=merge)
        out.append(merges.end_row())
    return out


def _cell(spans: list[Span]) -> Cell:
    flow = Flow()
    flow.paragraph(spans)
    return Cell(blocks=flow.finish())


