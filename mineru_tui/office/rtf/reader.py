r"""RTF documents to the document model, with a lexer of our own.

RTF is a stream of groups (``{...}``), control words (``\b``, ``\par``, ``\cellx1200``),
control symbols and text. The reader keeps a stack of character states (bold, italic,
underline, strike, super/subscript, hidden, font, ``\ucN``) and reads:

* text in the right code page: ``\'hh`` bytes decode with the current font's
  ``\fcharset`` (Japanese cp932, Czech cp1250...) or the document's ``\ansicpg``;
  double-byte code pages decode byte pairs together; ``\uN`` is Unicode, followed by
  ``\ucN`` fallback characters that are skipped;
* headings from ``\outlinelevelN`` or a paragraph style (``\sN``) named "heading N" or
  carrying an outline level;
* lists: the item's label is the ``\listtext`` / ``\pntext`` group Word writes for
  readers without list support ("1.", "a)", "•"), its depth ``\ilvlN``;
* tables: ``\trowd`` with ``\cellxN`` boundaries, ``\cell`` and ``\row``, horizontal
  (``\clmgf``/``\clmrg``) and vertical (``\clvmgf``/``\clvmrg``) merges; nested tables
  (``\itapN``, ``\nestcell``, ``\nestrow``) as tables inside their cell;
* links (``HYPERLINK`` fields, through the allow-list), footnotes and endnotes
  (``\footnote``), pictures (``\pict`` with ``\pngblip`` or ``\jpegblip``), equations
  (``\mmath``: OMML written as RTF groups, see :mod:`mineru_tui.office.rtf.math`).

Headers, footers, comments, the font/colour/style tables' text and unknown ``\*``
destinations never reach the output. Bounds: group nesting (:data:`MAX_GROUP_DEPTH`),
the file's size (:data:`MAX_FILE_BYTES`), table cells (:data:`MAX_TABLE_CELLS`), each
with a ``content cut:`` warning or a one-line refusal.
"""

from __future__ import annotations

import os
import hashlib
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from mineru_tui.document import (Cell, Document, Page, Span, SpanType, image_block,
                                 safe_url, table_block, text_span)
from mineru_tui.document import Table as _Table
from mineru_tui.errors import InputError, cut_warning
from mineru_tui.office.flow import BREAK, Flow, note_ref
from mineru_tui.office.merged_cells import MergedCells
from mineru_tui.office.pictures import Pictures
from mineru_tui.office.rtf.charsets import codec_for_charset, codec_for_cpg
from mineru_tui.office.rtf.math import SKIPPED as MATH_SKIPPED
from mineru_tui.office.rtf.math import MathBuilder

from mineru_tui.office.limits import MAX_RTF_BYTES as MAX_FILE_BYTES
from mineru_tui.office.limits import MAX_RTF_GROUP_DEPTH as MAX_GROUP_DEPTH
from mineru_tui.office.limits import (MAX_RTF_PARAGRAPHS, MAX_RTF_TOKENS, MAX_TABLE_CELLS,
                                      MAX_TABLE_DEPTH)

_TOKEN = re.compile(rb"\\([a-zA-Z]{1,32})(-?\d{1,10})? ?|\\'([0-9a-fA-F]{2})|\\(.)|([{}])"
                    rb"|([^\\{}\r\n]+)|[\r\n]+", re.S)

# Destinations whose content is not the document's text.
_SKIP_DEST = {"fonttbl", "colortbl", "stylesheet", "info", "header", "headerl", "headerr",
              "headerf", "footer", "footerl", "footerr", "footerf", "annotation", "atnid",
              "atnauthor", "atrfstart", "atrfend", "xmlnstbl", "rsidtbl", "generator",
              "listtable", "listoverridetable", "revtbl", "latentstyles", "datastore",
              "themedata", "colorschememapping", "pgdsctbl", "filetbl", "bkmkstart", "bkmkend",
              "object", "objdata", "nonshppict", "datafield", "formfield", "template",
              "docvar", "userprops", "fchars", "lchars", "pnseclvl", "xe", "tc", "sp", "sn",
              "sv", "private", "ftnsep", "ftnsepc", "aftnsep", "aftnsepc", "mmathPr",
              "passwordhash", "wgrffmtfilter", "pgptbl", "protusertbl", "shpinst"}
_STYLE = {"b": "bold", "i": "italic", "strike": "strike", "striked": "strike",
          "ul": "underline", "uld": "underline", "uldb": "underline", "ulw": "underline",
          "ulth": "underline", "uldash": "underline", "ulwave": "underline"}


@dataclass
class _State:
    style: frozenset = frozenset()
    font: int = -1
    uc: int = 1
    hidden: bool = False
    dest: str = ""  # "", "skip", "fonttbl", "stylesheet", "pict", "fldinst", "fldrslt", "listtext"...
    link: str | None = None
    note: bool = False
    nestprops: bool = False  # inside \nesttableprops: row definitions of a nested table
    math: object = None  # inside \mmath: the OMML element this group builds


@dataclass
class _Para:
    style: int = 0
    outline: int | None = None
    ilvl: int = 0
    listed: int | bool = False  # the \lsN list it belongs to
    intbl: bool = False
    itap: int = 0  # table nesting level (1: a cell of a table, 2: of a table in a cell...)
    marker: str | None = None

    @property
    def level(self) -> int:
        return max(self.itap, 1) if self.intbl or self.itap else 0


@dataclass
class _CellDef:
    right: int
    hmerge: str = ""  # "first", "cont"
    vmerge: str = ""


@dataclass
class _TableState:
    """One table being read (one per nesting level)."""

    rows: list[list[Cell]] = field(default_factory=list)
    cells: list[list] = field(default_factory=list)  # the current row's cells' blocks
    cur: list = field(default_factory=list)  # the current cell's blocks
    defs: list[_CellDef] = field(default_factory=list)
    merges: MergedCells = field(default_factory=MergedCells)  # cells placed by right edge


def read_rtf(path: str | Path) -> Document:
    """Read an RTF file into a :class:`Document` (backend "office")."""
    size = os.path.getsize(path)
    if size > MAX_FILE_BYTES:
        raise InputError(f"refused: the RTF file is {size >> 20} MiB (the limit is "
                         f"{MAX_FILE_BYTES >> 20} MiB)")
    data = Path(path).read_bytes()
    if not data.lstrip().startswith(b"{\\rtf"):
        raise InputError("not an RTF document")
    return _Reader(data).read()


class _Full(Exception):
    """The document's paragraphs, cells or tokens are spent (the message says which)."""


class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.doc = Document(backend="office")
        self.pictures = Pictures(self.doc)
        self.flow = Flow()
        self.main_flow = self.flow
        self.codec = "cp1252"
        self.default_font = 0
        self.fonts: dict[int, str] = {}
        self.styles: dict[int, tuple[str, int | None]] = {}  # index -> (name, outline)
        self.state = _State()
        self.stack: list[_State] = []
        self.para = _Para()
        self.spans: list[Span] = []
        self.pending = bytearray()  # \'hh bytes not yet decoded
        self.skip = 0  # fallback characters still to skip after \uN
        self.tables: list[_TableState] = []  # open tables, outermost first
        self.notes = 0
        self.note_spans: list[Span] | None = None
        self.dest_text: list[str] = []  # text of the current special destination
        self.font_entry: dict = {}
        self.style_entry: dict = {}
        self.pict: dict = {}
        self.fldinst: list[str] = []
        self.field_links: list[str | None] = []
        self.cut = False
        self._pictures: list = []  # picture blocks of the paragraph being read
        self.cells = 0  # table cells read, against MAX_TABLE_CELLS
        self.deep_warned = False  # the warning for tables past MAX_TABLE_DEPTH given
        self.pieces = 0  # paragraphs and cells read, against MAX_RTF_PARAGRAPHS
        self._group_start = False
        self._star = False  # \* just read: the next word names an optional destination
        self._pending_def: _CellDef | None = None
        self._note_label = ""
        self.marker: str | None = None  # the last \listtext label, for the next paragraph
        self.math: MathBuilder | None = None  # the \mmath group being read
        self.last_labels: dict = {}  # (list, level) -> the last item's label

    # -- driver ----------------------------------------------------------------------

    def read(self) -> Document:
        try:
            self._tokens()
        except _Full as full:  # the rest of the file is left out; what was read is kept
            self.doc.warnings.append(cut_warning(str(full)))
        self._flush_bytes()
        self._end_paragraph()
        self._close_tables(0)
        self.doc.pages.append(Page(page_idx=0, para_blocks=self.flow.finish()))
        return self.doc

    def _count(self) -> None:
        """Count one paragraph or cell against :data:`MAX_RTF_PARAGRAPHS` (each costs
        about 3.5 KB through the outputs; a cell without its row would pile up unbounded)."""
        self.pieces += 1
        if self.pieces > MAX_RTF_PARAGRAPHS:
            raise _Full(f"the document has more than {MAX_RTF_PARAGRAPHS:,} paragraphs and "
                        "table cells; the rest is left out")

    def _tokens(self) -> None:
        data, pos, n = self.data, 0, len(self.data)
        match = _TOKEN.match
        budget = MAX_RTF_TOKENS
        while pos < n:
            budget -= 1
            if budget < 0:
                raise _Full(f"the document has more than {MAX_RTF_TOKENS:,} control words "
                            "and runs of text; the rest is left out")
            m = match(data, pos)
            if m is None:  # a lone backslash at the end
                break
            pos = m.end()
            word, arg, hexa, sym, brace, text = m.groups()
            if text is not None:
                self._text_bytes(text)
            elif hexa is not None:
                self._hex(int(hexa, 16))
            elif word is not None:
                if word == b"bin":
                    count = max(0, int(arg or 0))
                    if self.state.dest == "pict":
                        self.pict.setdefault("bin", bytearray()).extend(data[pos:pos + count])
                    pos += count
                    continue
                self._word(word.decode("ascii"), int(arg) if arg is not None else None)
            elif brace is not None:
                if brace == b"{":
                    if len(self.stack) >= MAX_GROUP_DEPTH:
                        raise InputError(f"refused: groups nested deeper than "
                                         f"{MAX_GROUP_DEPTH} levels")
                    self._flush_bytes()
                    self.skip = 0  # \uN fallbacks never run past a group's edge
                    self.stack.append(self.state)
                    self.state = replace(self.state)
                    self._group_start = True
                    continue
                self._end_group()
            elif sym is not None:
                if sym == b"*":
                    self._star = True
                    continue
                self._symbol(sym)
            self._group_start = False
            self._star = False

    # -- text --------------------------------------------------------------------------

    def _font_codec(self) -> str:
        return self.fonts.get(self.state.font) or self.codec

    def _text_bytes(self, raw: bytes) -> None:
        if self.skip:
            cut = min(self.skip, len(raw))
            self.skip -= cut
            raw = raw[cut:]
            if not raw:
                return
        if self.state.dest in ("fonttbl", "stylesheet", "fldinst", "listtext", "pict"):
            if self.state.dest == "pict":
                self.pict.setdefault("hex", []).append(raw)
                return
            self._flush_bytes()
            if self.state.dest == "fonttbl" and b";" in raw:
                self._font_entry_end()  # fonts listed without groups, each ended by ";"
                return
            self.dest_text.append(raw.decode("latin-1"))
            return
        self.pending += raw

    def _hex(self, byte: int) -> None:
        if self.skip:
            self.skip -= 1
            return
        if self.state.dest == "pict":
            return
        self.pending.append(byte)

    def _flush_bytes(self) -> None:
        if not self.pending:
            return
        raw = bytes(self.pending)
        self.pending.clear()
        codec = self._font_codec()
        if codec == "symbol":
            text = "".join(_symbol_char(b) for b in raw)
        else:
            text = raw.decode(codec, "replace")
        self._emit(text)

    def _emit(self, text: str) -> None:
        st = self.state
        if st.math is not None and st.dest == "math":
            MathBuilder.text(st.math, text)
            return
        if st.dest in ("fonttbl", "stylesheet", "fldinst", "listtext"):
            self.dest_text.append(text)
            return
        if st.dest == "skip" or st.dest == "pict" or st.hidden:
            return
        target = self.note_spans if st.note and self.note_spans is not None else self.spans
        target.append(text_span(text, st.style, st.link))

    # -- control words -------------------------------------------------------------------

    def _word(self, word: str, arg: int | None) -> None:
        st = self.state
        if word == "u":
            self._flush_bytes()
            code = arg if arg is not None else 0
            if code < 0:
                code += 65536
            self._emit(chr(code) if 0 < code < 0x110000 and not 0xD800 <= code < 0xE000 else "")
            self.skip = st.uc
            return
        if self.pending and word not in ("'",):
            self._flush_bytes()
        if st.dest == "skip":  # nothing in a skipped destination reaches the output
            return
        if st.dest == "math" or word == "mmath":
            if self._math_word(word):
                self._star = False
                return
        if self._star:
            self._star = False
            if word not in _STARRED_KEPT:
                self.state.dest = "skip"
                return
        if self._group_start and word in _SKIP_DEST:
            self._start_dest(word)
            return
        handler = _HANDLERS.get(word)
        if handler is not None:
            handler(self, arg)
            return
        if word in _STYLE:
            on = arg is None or arg != 0
            if word.startswith("ul") and word != "ul" and not on:
                on = False
            st.style = st.style | {_STYLE[word]} if on else st.style - {_STYLE[word]}
        elif word == "ulnone":
            st.style = st.style - {"underline"}

    def _math_word(self, word: str) -> bool:
        """A control word inside ``mmath``: a group's element, or something skipped."""
        st = self.state
        if word == "mmath" and st.dest != "math":
            if st.dest:  # inside a skipped destination: stays skipped
                return False
            self._flush_bytes()
            st.dest = "math"
            self.math = MathBuilder()
            st.math = self.math.root
            return True
        if not self._group_start or not word.startswith("m"):
            return word.startswith("m")  # math settings (\mscr0...); formatting goes on
        if word in MATH_SKIPPED:
            st.dest = "skip"
            return True
        element = self.math.child(st.math, word) if self.math is not None else None
        if element is None:
            st.dest = "skip"
        else:
            st.math = element
        return True

    def _start_dest(self, word: str) -> None:
        st = self.state
        if word == "fonttbl":
            st.dest = "fonttbl"
        elif word == "stylesheet":
            st.dest = "stylesheet"
        else:
            st.dest = "skip"

    def _symbol(self, sym: bytes) -> None:
        ch = sym.decode("latin-1")
        if ch in "\\{}":
            self.pending += sym
        elif ch == "~":
            self._flush_bytes()
            self._emit("\u00a0")
        elif ch == "_":
            self._flush_bytes()
            self._emit("\u2011")
        elif ch in "\n\r":
            self._par(None)
        elif ch == "-":
            pass  # an optional hyphen
        elif ch == "|" or ch == ":":
            pass

    # -- groups ----------------------------------------------------------------------------

    def _end_group(self) -> None:
        self._flush_bytes()
        self.skip = 0
        st = self.state
        if not self.stack:
            return
        parent = self.stack.pop()
        if st.dest == "fonttbl" and parent.dest != "fonttbl":
            pass
        elif st.dest == "fonttbl":
            self._font_entry_end()
        elif st.dest == "stylesheet" and parent.dest == "stylesheet":
            self._style_entry_end()
        elif st.dest == "pict" and parent.dest != "pict":
            self._picture_end()
        elif st.dest == "fldinst" and parent.dest != "fldinst":
            inst = "".join(self.dest_text).strip()
            self.dest_text = []
            m = re.match(r'HYPERLINK\s+(?:\\l\s+)?"([^"]*)"(?:\s+\\l\s+"([^"]*)")?', inst) or \
                re.match(r"HYPERLINK\s+(\S+)", inst)
            if m:
                target = m.group(1)
                if inst.split()[1:2] == ["\\l"]:
                    target = "#" + target
                elif m.lastindex and m.lastindex >= 2 and m.group(2):
                    target += "#" + m.group(2)
                self.field_links.append(safe_url(target))
            else:
                self.field_links.append(None)
        elif st.dest == "listtext" and parent.dest != "listtext":
            marker = "".join(self.dest_text).replace("\t", " ").strip()
            self.dest_text = []
            self.marker = marker  # Word writes it before the item's \pard: kept apart
        elif st.note and not parent.note:
            self._note_end()
        elif st.dest == "math" and parent.dest != "math" and self.math is not None:
            for latex in self.math.equations():  # the \mmath group ends: its equations
                target = self.note_spans if st.note and self.note_spans is not None else self.spans
                target.append(Span(SpanType.INLINE_EQUATION, latex))
            self.math = None
        self.state = parent
        if st.dest == "fonttbl" and parent.dest != "fonttbl":
            self._font_entry_end()  # a table of one font, written without a group

    def _font_entry_end(self) -> None:
        entry, self.font_entry = self.font_entry, {}
        self.dest_text = []
        if "f" in entry:
            codec = codec_for_charset(entry.get("charset", -1)) if "charset" in entry else None
            if entry.get("charset") == 2:
                codec = "symbol"
            if "cpg" in entry:
                codec = codec_for_cpg(entry["cpg"]) or codec
            if codec:
                self.fonts[entry["f"]] = codec

    def _style_entry_end(self) -> None:
        entry, self.style_entry = self.style_entry, {}
        name = "".join(self.dest_text).strip().rstrip(";").strip()
        self.dest_text = []
        idx = entry.get("s", 0 if entry.get("para", True) else None)
        if idx is None or entry.get("char"):
            return
        outline = entry.get("outline")
        m = re.fullmatch(r"(?i)(?:heading|titre|überschrift|encabezado|titolo)\s*(\d)", name)
        if outline is None and m:
            outline = int(m.group(1)) - 1
        self.styles[idx] = (name, outline)

    def _picture_end(self) -> None:
        pict, self.pict = self.pict, {}
        kind = pict.get("kind")
        if kind not in ("png", "jpg"):
            return
        raw = bytes(pict["bin"]) if pict.get("bin") else None
        hexa = b"" if raw is not None else re.sub(rb"[^0-9a-fA-F]", b"", b"".join(pict.get("hex", [])))

        def read() -> tuple[bytes, str] | None:
            try:
                return (raw if raw is not None else bytes.fromhex(
                    hexa[:len(hexa) // 2 * 2].decode("ascii")), kind)
            except ValueError:
                return None
        # the same picture twice (a header's logo on every section) is stored once
        identity = ("rtf", hashlib.sha1(raw if raw is not None else hexa).digest())
        name = self.pictures.take(identity, read, "in the RTF stream",
                                  size=len(raw) if raw is not None else len(hexa) // 2)
        if name:
            self._pictures.append(image_block(name))

    def _note_end(self) -> None:
        spans = self.note_spans or []
        self.note_spans = None
        self.flow.note(self._note_label, spans)

    # -- paragraphs and tables -------------------------------------------------------------

    def _par(self, _arg) -> None:
        self._count()
        self._flush_bytes()
        if self.state.note and self.note_spans is not None:
            self.note_spans.append(text_span(BREAK))
            return
        if self.state.dest:
            return
        self._end_paragraph()

    def _end_paragraph(self) -> None:
        spans, self.spans = self.spans, []
        pictures = self._take_pictures()
        para = self.para
        if para.level:
            cur = self._table(para.level).cur
            self._close_tables(para.level, into=cur)
            flow = Flow()
            flow.paragraph(spans)
            cur += flow.finish() + pictures
            return
        self._close_tables(0)
        level = None
        if para.outline is not None and 0 <= para.outline < 9:
            level = para.outline + 1
        else:
            name, outline = self.styles.get(para.style, ("", None))
            if outline is not None and 0 <= outline < 9:
                level = outline + 1
        marker, self.marker = self.marker, None
        if (para.listed or marker) and level is None:
            key = (para.listed, para.ilvl)
            if marker is None:  # an item whose label was not written: the next number
                marker = _next_label(self.last_labels.get(key))
            self.last_labels[key] = marker
            if len(marker) == 1 and not marker.isdigit():
                marker = "-"  # a bullet glyph ("•", Courier's "o", Wingdings' "§")
            self.flow.paragraph(spans, depth=para.ilvl, marker=marker)
        else:
            self.flow.paragraph(spans, level=min(level, 6) if level else None)
        for b in pictures:
            self.flow.add(b)

    def _take_pictures(self) -> list:
        pics, self._pictures = self._pictures, []
        return pics

    def _table(self, level: int) -> _TableState:
        """The open table at nesting ``level`` (1 = outermost), opened if needed."""
        if level > MAX_TABLE_DEPTH and not self.deep_warned:
            self.deep_warned = True
            self.doc.warnings.append(f"tables nested deeper than {MAX_TABLE_DEPTH} levels are "
                                     f"read as part of the table at level {MAX_TABLE_DEPTH}")
        level = max(1, min(level, MAX_TABLE_DEPTH))
        while len(self.tables) < level:
            self.tables.append(_TableState())
        return self.tables[level - 1]

    def _close_tables(self, level: int, into: list | None = None) -> None:
        """Finish the tables nested deeper than ``level``: each becomes a block of the cell
        it sits in (``into`` for the one right below ``level``), the outermost one a block of
        the document."""
        while len(self.tables) > level:
            t = self.tables.pop()
            if t.cells or t.cur:  # a row without its \row
                self.tables.append(t)
                self._row_end(len(self.tables))
                self.tables.pop()
            if not t.rows:
                continue
            block = table_block(_Table(t.rows))
            if self.tables:
                (into if into is not None and len(self.tables) == level else
                 self.tables[-1].cur).append(block)
            else:
                self.flow.add(block)

    def _cell_end(self, level: int) -> None:
        self._count()
        self._flush_bytes()
        t = self._table(level)
        self._close_tables(level, into=t.cur)  # a table nested in the cell comes first
        if self.spans or self._pictures:
            self._end_paragraph_at(level)
        t.cells.append(t.cur)
        t.cur = []

    def _end_paragraph_at(self, level: int) -> None:
        spans, self.spans = self.spans, []
        flow = Flow()
        flow.paragraph(spans)
        self._table(level).cur.extend(flow.finish() + self._take_pictures())

    def _cell(self, _arg) -> None:
        self._cell_end(1 if self.para.level <= 1 else self.para.level)

    def _nestcell(self, _arg) -> None:
        self._cell_end(max(2, self.para.level))

    def _row(self, _arg) -> None:
        self._row_end(1)

    def _nestrow(self, _arg) -> None:
        self._row_end(max(2, len(self.tables)))

    def _row_end(self, level: int) -> None:
        self._flush_bytes()
        if level > len(self.tables):
            return
        t = self.tables[level - 1]
        if self.spans and level == self.para.level:
            self._cell_end(level)
        if t.cur:
            t.cells.append(t.cur)
            t.cur = []
        self._close_tables(level, into=t.cells[-1] if t.cells else t.cur)
        defs = t.defs or [_CellDef(i) for i in range(len(t.cells))]
        for i, content in enumerate(t.cells):
            d = defs[i] if i < len(defs) else _CellDef(10**9 + i)
            t.merges.add(Cell(blocks=content), d.right, joins_left=d.hmerge == "cont",
                         merge={"first": "restart", "cont": "continue"}.get(d.vmerge, ""))
        row = t.merges.end_row()
        self.cells += len(row)
        if self.cells > MAX_TABLE_CELLS:
            if not self.cut:
                self.doc.warnings.append(cut_warning(f"a table has more than {MAX_TABLE_CELLS} "
                                                     "cells; the rest is left out"))
            self.cut = True
        else:
            t.rows.append(row)
        t.cells = []

    def _defs_table(self) -> _TableState:
        """The table a row definition (``trowd``, ``cellx``) belongs to."""
        if self.state.nestprops:
            return self._table(max(2, len(self.tables)))
        return self._table(1)

    def _trowd(self, _arg) -> None:
        self._defs_table().defs = []
        self._pending_def = _CellDef(0)

    def _cellx(self, arg) -> None:
        d = self._pending_def or _CellDef(0)
        d.right = arg or 0
        self._defs_table().defs.append(d)
        self._pending_def = _CellDef(0)

    def _cell_merge(self, what: str, value: str) -> None:
        if self._pending_def is None:
            self._pending_def = _CellDef(0)
        setattr(self._pending_def, what, value)

    def _pard(self, _arg) -> None:
        if not self.state.dest:  # \pard inside a \listtext group keeps the item
            self.para = _Para()

    def _plain(self, _arg) -> None:
        st = self.state
        st.style = frozenset()
        st.hidden = False
        st.font = self.default_font

    def _footnote(self, _arg) -> None:
        if self.state.note or self.state.dest:
            self.state.dest = "skip"
            return
        self.notes += 1
        self._note_label = str(self.notes)
        target = self.spans
        target.append(note_ref(self._note_label))
        self.state.note = True
        self.note_spans = []

    def _pict(self, _arg) -> None:
        self.state.dest = "pict"
        self.pict = {}

    def _field_start(self, word: str) -> None:
        if word == "fldinst":
            self.state.dest = "fldinst"
            self.dest_text = []
        elif word == "fldrslt":
            link = self.field_links.pop() if self.field_links else None
            if link:
                self.state.link = link


def _next_label(label: str | None) -> str:
    """The label after ``label`` ("3." after "2."); a bullet when it has no number."""
    m = re.fullmatch(r"(\D*)(\d+)(\D*)", label or "")
    if m is None:
        return "-"
    return f"{m.group(1)}{int(m.group(2)) + 1}{m.group(3)}"


def _symbol_char(b: int) -> str:
    """A byte of the Symbol font as the character it draws (Greek and maths)."""
    if 0x41 <= b <= 0x5A or 0x61 <= b <= 0x7A:
        greek = "ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ"
        i = (b - 0x41) if b <= 0x5A else (b - 0x61)
        ch = greek[i]
        return ch if b <= 0x5A else ch.lower() if ch != "ς" else "ς"
    return {0xB1: "±", 0xB4: "×", 0xB8: "÷", 0xA3: "≤", 0xB3: "≥", 0xB9: "≠", 0xBB: "≈",
            0xA5: "∞", 0xB6: "∂", 0xE5: "∑", 0xD5: "∏", 0xF2: "∫", 0xD6: "√", 0xB7: "•",
            0xAE: "→", 0xAC: "←"}.get(b, chr(b))


def _set(attr: str, value):
    def handler(self: _Reader, arg) -> None:
        setattr(self.state, attr, value(arg) if callable(value) else value)
    return handler


def _para_set(attr: str, value):
    def handler(self: _Reader, arg) -> None:
        setattr(self.para, attr, value(arg) if callable(value) else value)
    return handler


def _font(self: _Reader, arg) -> None:
    if self.state.dest == "fonttbl":
        self.font_entry["f"] = arg or 0
    else:
        self.state.font = arg or 0


def _fcharset(self: _Reader, arg) -> None:
    if self.state.dest == "fonttbl":
        self.font_entry["charset"] = arg or 0


def _cpg(self: _Reader, arg) -> None:
    if self.state.dest == "fonttbl":
        self.font_entry["cpg"] = arg or 0


def _ansicpg(self: _Reader, arg) -> None:
    self.codec = codec_for_cpg(arg or 1252) or "cp1252"


def _deff(self: _Reader, arg) -> None:
    self.default_font = arg or 0
    self.state.font = arg or 0


def _style_index(self: _Reader, arg) -> None:
    if self.state.dest == "stylesheet":
        self.style_entry["s"] = arg or 0
    else:
        self.para.style = arg or 0


def _outline(self: _Reader, arg) -> None:
    if self.state.dest == "stylesheet":
        self.style_entry["outline"] = arg or 0
    else:
        self.para.outline = arg or 0


def _char_style(self: _Reader, arg) -> None:
    if self.state.dest == "stylesheet":
        self.style_entry["char"] = True


def _listtext(self: _Reader, arg) -> None:
    self.state.dest = "listtext"
    self.dest_text = []


def _tab(self: _Reader, arg) -> None:
    if self.state.dest == "listtext":
        self.dest_text.append(" ")
    else:
        self._emit(" ")


def _line(self: _Reader, arg) -> None:
    if self.state.note and self.note_spans is not None:
        self.note_spans.append(text_span(BREAK))
    elif not self.state.dest:
        self.spans.append(text_span(BREAK))


def _char(ch: str):
    def handler(self: _Reader, arg) -> None:
        self._emit(ch)
    return handler


def _sup(self: _Reader, arg) -> None:
    st = self.state
    st.style = (st.style - {"subscript"}) | {"superscript"} if arg != 0 else st.style - {"superscript"}


def _sub(self: _Reader, arg) -> None:
    st = self.state
    st.style = (st.style - {"superscript"}) | {"subscript"} if arg != 0 else st.style - {"subscript"}


def _nosupersub(self: _Reader, arg) -> None:
    self.state.style = self.state.style - {"superscript", "subscript"}


def _up(self: _Reader, arg) -> None:
    if arg:
        _sup(self, 1)
    else:
        _nosupersub(self, None)


def _dest(word: str):
    def handler(self: _Reader, arg) -> None:
        self._field_start(word)
    return handler


def _skip_dest(self: _Reader, arg) -> None:
    self.state.dest = "skip"


def _blip(kind: str):
    def handler(self: _Reader, arg) -> None:
        if self.state.dest == "pict":
            self.pict["kind"] = kind
    return handler


def _hidden(self: _Reader, arg) -> None:
    self.state.hidden = arg != 0


def _merge(what: str, value: str):
    def handler(self: _Reader, arg) -> None:
        self._cell_merge(what, value)
    return handler


# Optional (\*) destinations this reader understands; every other one is skipped.
_STARRED_KEPT = {"fldinst", "shppict", "listtext", "pntext", "footnote", "pict",
                 "nesttableprops"}

_HANDLERS = {
    "par": _Reader._par, "sect": _Reader._par, "page": None, "pard": _Reader._pard,
    "plain": _Reader._plain, "cell": _Reader._cell, "row": _Reader._row,
    "trowd": _Reader._trowd, "cellx": _Reader._cellx, "intbl": _para_set("intbl", True),
    "itap": _para_set("itap", lambda a: max(0, a or 0)), "nestcell": _Reader._nestcell,
    "nestrow": _Reader._nestrow, "nesttableprops": _set("nestprops", True),
    "nonesttables": _skip_dest,
    "clmgf": _merge("hmerge", "first"), "clmrg": _merge("hmerge", "cont"),
    "clvmgf": _merge("vmerge", "first"), "clvmrg": _merge("vmerge", "cont"),
    "f": _font, "fcharset": _fcharset, "cpg": _cpg, "ansicpg": _ansicpg, "deff": _deff,
    "s": _style_index, "cs": _char_style, "ds": _char_style, "ts": _char_style,
    "outlinelevel": _outline, "ilvl": _para_set("ilvl", lambda a: a or 0),
    "ls": _para_set("listed", lambda a: a or True), "listtext": _listtext, "pntext": _listtext,
    "pn": _skip_dest, "uc": _set("uc", lambda a: max(0, a or 0)),
    "tab": _tab, "line": _line, "lbr": _line, "emdash": _char("—"), "endash": _char("–"),
    "bullet": _char("•"), "lquote": _char("‘"), "rquote": _char("’"), "ldblquote": _char("“"),
    "rdblquote": _char("”"), "emspace": _char(" "), "enspace": _char(" "), "qmspace": _char(" "),
    "zwj": _char("\u200d"), "zwnj": _char("\u200c"),
    "super": _sup, "sub": _sub, "nosupersub": _nosupersub, "up": _up, "dn": _sub,
    "v": _hidden, "webhidden": _hidden,
    "footnote": _Reader._footnote, "pict": _Reader._pict, "fldinst": _dest("fldinst"),
    "fldrslt": _dest("fldrslt"), "pngblip": _blip("png"), "jpegblip": _blip("jpg"),
    "chftn": None, "chatn": None, "chdate": None, "chpgn": None,
}
_HANDLERS = {k: (v if v is not None else (lambda self, arg: None)) for k, v in _HANDLERS.items()}
