"""Legacy Word 97-2003 documents (.doc) to the document model.

The text comes through the piece table of the ``WordDocument`` stream (cp1252 or UTF-16
pieces, in character order), cut into paragraphs at paragraph marks; each paragraph's
properties (FKP pages of ``PlcfBtePapx``) give its style, outline level, list level and
table flags, and the style sheet turns a style into a heading (the built-in "heading 1"
to "heading 9", "Title", or an outline level). Tables are rebuilt from the cell marks
(``\\x07``) and row ends; fields keep their shown result (a ``HYPERLINK`` field becomes a
link through the allow-list); footnotes and endnotes are read from their stories and
referenced where their marks are.

Not read yet: character formatting (bold/italic), list numbers (items are bullets),
merged cells, pictures. Word 6/95 files and encrypted files are refused with one line.
"""

from __future__ import annotations

import re
from pathlib import Path

from mineru_tui.document import Cell, Document, Page, Span, Table, safe_url, table_block, text_span
from mineru_tui.errors import InputError, cut_warning
from mineru_tui.office.doc.fib import (CLX, PLCFBTEPAPX, PLCFENDREF, PLCFENDTXT, PLCFFNDREF,
                                       PLCFFNDTXT, STSHF, Papx, blob, plc_cps, read_fib,
                                       read_pieces, read_styles, style_outline, text_of)
from mineru_tui.office.flow import BREAK, Flow, note_ref
from mineru_tui.office.ole import ENCRYPTED, Ole

MAX_TABLE_CELLS = 250_000
MAX_CHARS = 50_000_000
_HYPERLINK = re.compile(r'HYPERLINK\s+(?:\\l\s+)?"([^"]*)"|HYPERLINK\s+(\S+)')


def read_doc(path: str | Path) -> Document:
    """Read a Word 97-2003 .doc into a :class:`Document` (backend "office")."""
    with Ole(path) as ole:
        word = ole.stream("WordDocument")
        if word is None:
            raise InputError("not a Word document: it has no WordDocument stream")
        try:
            fib = read_fib(word)
        except (ValueError, Exception) as exc:
            raise InputError("not a readable Word 97-2003 document: its header is damaged",
                             str(exc)) from None
        if fib.encrypted:
            raise InputError(ENCRYPTED)
        if fib.nfib < 0xC0:
            raise InputError("a Word 6.0/95 document: only Word 97-2003 .doc files are read; "
                             "save it in a newer format")
        table = ole.stream(fib.table)
        if table is None:
            raise InputError(f"not a readable Word document: its {fib.table} stream is missing")
    try:
        return _Reader(word, table, fib).read()
    except (ValueError, IndexError, KeyError) as exc:  # struct.error is a ValueError
        raise InputError("not a readable Word 97-2003 document: its structure is damaged",
                         f"{type(exc).__name__}: {exc}") from None


class _Reader:
    def __init__(self, word: bytes, table: bytes, fib):
        self.word, self.table, self.fib = word, table, fib
        self.doc = Document(backend="office")
        self.flow = Flow()
        self.notes = 0

    def read(self) -> Document:
        fib = self.fib
        pieces = read_pieces(blob(fib, self.table, CLX))
        text, fcs = text_of(self.word, pieces)
        if len(text) > MAX_CHARS:
            raise InputError(f"refused: the document has more than {MAX_CHARS} characters")
        self.text, self.fcs = text, fcs
        self.papx = Papx(self.word, blob(fib, self.table, PLCFBTEPAPX))
        self.styles = read_styles(blob(fib, self.table, STSHF))
        ccp = fib.ccp
        main_end = min(ccp["text"], len(text))
        ftn_start = ccp["text"]
        edn_start = ccp["text"] + ccp["ftn"] + ccp["hdd"] + ccp["mcr"] + ccp["atn"]
        self.refs: dict[int, tuple[int, int]] = {}  # cp of a note mark -> note text range
        self._notes(PLCFFNDREF, PLCFFNDTXT, ftn_start)
        self._notes(PLCFENDREF, PLCFENDTXT, edn_start)
        self._story(0, main_end)
        self.doc.pages.append(Page(page_idx=0, para_blocks=self.flow.finish()))
        return self.doc

    def _notes(self, ref_index: int, txt_index: int, story: int) -> None:
        refs = plc_cps(blob(self.fib, self.table, ref_index), 2)[:-1]
        txts = plc_cps(blob(self.fib, self.table, txt_index), 0)
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
        cells: list[Cell] = []
        cell_spans: list[Span] = []
        link: str | None = None
        cut = False

        def flush() -> None:
            if buf:
                spans.append(text_span("".join(buf), (), link))
                buf.clear()

        def end_table() -> None:
            nonlocal rows, cells, cell_spans
            if cells or cell_spans:
                cells.append(_cell(cell_spans))
                rows.append(cells)
            if rows:
                self.flow.add(table_block(Table(rows)))
            rows, cells, cell_spans = [], [], []

        for cp in range(start, end):
            ch = text[cp]
            if fields and not fields[-1]["result"] and ch not in "\x13\x14\x15":
                fields[-1]["code"].append(ch)
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
                depth, marker = props.ilvl, "-"
        self.flow.paragraph(spans, level=min(level, 6) if level else None, depth=depth,
                            marker=marker)

    def _note(self, start: int, end: int) -> Span:
        self.notes += 1
        label = str(self.notes)
        body = self.text[start:end].replace("\x02", "").replace("\x05", "")
        parts = [p.strip() for p in re.split(r"[\r\x0b]", _strip_fields(body)) if p.strip()]
        spans: list[Span] = []
        for p in parts:
            if spans:
                spans.append(text_span(BREAK))
            spans.append(text_span(p.replace("\t", " ")))
        self.flow.note(label, spans)
        return note_ref(label)


def _cell(spans: list[Span]) -> Cell:
    flow = Flow()
    flow.paragraph(spans)
    return Cell(blocks=flow.finish())


def _strip_fields(text: str) -> str:
    """Text with field codes removed and results kept."""
    out, depth_code = [], []
    for ch in text:
        if ch == "\x13":
            depth_code.append(True)
        elif ch == "\x14":
            if depth_code:
                depth_code[-1] = False
        elif ch == "\x15":
            if depth_code:
                depth_code.pop()
        elif not (depth_code and depth_code[-1]):
            out.append(ch)
    return "".join(out)
