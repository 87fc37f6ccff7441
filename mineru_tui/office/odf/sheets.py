"""ODF spreadsheets (``office:spreadsheet``): each sheet's cells as Excel sheets are shown.

A cell's shown text is stored beside its value (``text:p`` inside ``table:table-cell``),
so no number format needs applying: what LibreOffice last showed is what is read.
Repeated rows and columns (``number-rows-repeated``, ``number-columns-repeated``) are
expanded only where they hold something; merged cells (``number-columns-spanned``,
``number-rows-spanned``) are kept. The cells then go through the Excel reader's
table split (:func:`mineru_tui.office.xlsx.reader.sheet_items`), with its caps.
"""

from __future__ import annotations

from mineru_tui.document import Page, safe_url, text_span, title_block
from mineru_tui.errors import cut_warning
from mineru_tui.office.odf.names import (MAX_FILE_CELLS, OFFICE, TABLE, TEXT, XLINK, local,
                                         number)
from mineru_tui.office.xlsx.reader import sheet_items
from mineru_tui.office.xlsx.sheet import MAX_CELLS, MAX_SCANNED, CellValue, SheetData

_NUMERIC = {"float", "percentage", "currency", "date", "time", "boolean"}
MAX_ROWS = 1_048_576
MAX_REPEAT = 1_000  # a repeated row or cell holding a value is expanded at most this often
MAX_COLS = 16_384


def read_sheets(reader, spreadsheet) -> None:
    """One page per ``table:table`` of the spreadsheet body."""
    for sheet in spreadsheet.iter(TABLE + "table"):
        if sheet.getparent() is not spreadsheet:
            continue
        if reader.cells >= MAX_FILE_CELLS:
            break  # the budget is spent (said once, by the sheet that spent it)
        name = sheet.get(TABLE + "name") or f"Sheet{len(reader.doc.pages) + 1}"
        page = Page(page_idx=len(reader.doc.pages), name=name)
        page.para_blocks.append(title_block([text_span(name)], 2))
        data, images = _sheet(reader, sheet, name)
        for _, blocks in sheet_items(data, reader.doc, name, {}):
            page.para_blocks += blocks
        page.para_blocks += images
        reader.doc.pages.append(page)


def _sheet(reader, sheet, name: str):
    data = SheetData()
    images = []
    r = 0
    scanned = 0
    cut = repeat_cut = spent = False
    for row in _rows(sheet):
        rep = _int(row.get(TABLE + "number-rows-repeated")) or 1
        cells = []
        c = 0
        for cell in row:
            tag = local(cell)
            if tag not in ("table-cell", "covered-table-cell"):
                continue
            crep = _int(cell.get(TABLE + "number-columns-repeated")) or 1
            if tag == "table-cell" and len(cell):
                cells.append((c, crep, cell))
            c += crep
            if c > MAX_COLS:
                break
        if cells:
            # Each cell read once, however often the row and the cell repeat.
            values = [(c0, crep, cell, _value(reader, cell, images)) for c0, crep, cell in cells]
            if rep > MAX_REPEAT or any(v is not None and crep > MAX_REPEAT
                                       for _, crep, _, v in values):
                repeat_cut = True
            for i in range(min(rep, MAX_REPEAT)):
                rr = r + i + 1
                for c0, crep, cell, value in values:
                    for k in range(min(crep, MAX_REPEAT)):
                        scanned += 1
                        if value is not None:
                            if len(data.cells) >= MAX_CELLS or scanned > MAX_SCANNED:
                                cut = True
                                break
                            if reader.cells >= MAX_FILE_CELLS:  # all sheets together
                                cut = spent = True
                                break
                            reader.cells += 1
                            data.cells[(rr, c0 + k + 1)] = value
                            cs = _int(cell.get(TABLE + "number-columns-spanned")) or 1
                            rs = _int(cell.get(TABLE + "number-rows-spanned")) or 1
                            if cs > 1 or rs > 1:
                                data.merges.append((rr, c0 + k + 1, rr + rs - 1, c0 + k + cs))
                    if cut:
                        break
                if cut:
                    break
        if cut:
            break
        r += rep
        if r > MAX_ROWS:
            break
    if spent:
        reader.warn(cut_warning(f"the sheets hold more than {MAX_FILE_CELLS:,} values in all "
                                "(repeated cells counted as often as they are shown); the "
                                "rest is left out"))
    elif cut:
        reader.warn(cut_warning(f"sheet {name!r}: more than {MAX_CELLS} values; the rest is "
                                "left out"))
    if repeat_cut:
        reader.warn(cut_warning(f"sheet {name!r}: a row or cell repeated more than "
                                f"{MAX_REPEAT} times is kept {MAX_REPEAT} times"))
    return data, images


def _value(reader, cell, images: list) -> CellValue | None:
    """What a cell shows, and the pictures anchored in it (added to ``images``)."""
    lines = []
    link = None
    for kid in cell:
        tag = local(kid)
        if tag == "p":
            text = "".join(_shown(kid))
            a = kid.find(".//" + TEXT + "a")
            if a is not None and link is None:
                link = safe_url(a.get(XLINK + "href"))
            lines.append(text)
        elif tag in ("frame", "custom-shape", "g"):
            images += reader.frame(kid, 1, None)
        elif tag == "annotation":
            continue
    text = "\n".join(lines).strip()
    if not text:
        return None
    vt = cell.get(OFFICE + "value-type")
    return CellValue(text, numeric=vt in _NUMERIC, link=link)


def _shown(p):
    if p.text:
        yield p.text
    for kid in p:
        tag = local(kid)
        if tag == "s":
            yield " " * min(_int(kid.get(TEXT + "c")) or 1, 100)
        elif tag == "tab":
            yield "\t"
        elif tag == "line-break":
            yield "\n"
        elif tag not in ("annotation", "note"):
            yield from _shown(kid)
        if kid.tail:
            yield kid.tail


def _rows(el):
    for kid in el:
        tag = local(kid)
        if tag == "table-row":
            yield kid
        elif tag in ("table-header-rows", "table-rows", "table-row-group"):
            yield from _rows(kid)


def _int(text: str | None) -> int | None:
    return number(text)
