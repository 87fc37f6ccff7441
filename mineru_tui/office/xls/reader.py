"""Legacy Excel (.xls) workbooks to the document model, through xlrd.

xlrd (BSD, maintained for exactly this job: it reads only .xls since 2.0) decodes the
BIFF records: cells with their cached values, the XF records that give each cell its
number format, merged areas and hyperlinks; pictures come from the drawing records
(:mod:`mineru_tui.office.xls.pictures`), placed after their sheet's tables, and so do the
charts embedded in a sheet (:mod:`mineru_tui.office.xls.charts`: their data read from the
cells their series name, as a ``sub_type="chart"`` table). What a cell shows is then made by the same
number-format code as .xlsx (:mod:`mineru_tui.office.numfmt`), and the sheet goes through
the Excel reader's table split (:func:`mineru_tui.office.xlsx.reader.sheet_items`), so an
.xls and the .xlsx saved from it give the same Markdown.

Bounds: files over :data:`MAX_FILE_BYTES` are refused (xlrd holds the whole workbook
stream in memory), each sheet keeps at most :data:`~mineru_tui.office.xlsx.sheet.MAX_CELLS`
values with a ``content cut:`` warning. An encrypted workbook (a FILEPASS record) is
refused with the one line every encrypted Office file gets.
"""

from __future__ import annotations

import struct

import os
from pathlib import Path

from mineru_tui.document import Document, Page, image_block, safe_url, text_span, title_block
from mineru_tui.errors import InputError, cut_warning
from mineru_tui.office.numfmt import format_general, format_number
from mineru_tui.office.pictures import MAX_PACKAGE_PICTURES, Pictures
from mineru_tui.office.xls.charts import chart_block, read_charts
from mineru_tui.office.xls.pictures import sheet_pictures
from mineru_tui.office.xlsx.reader import sheet_items
from mineru_tui.office.xlsx.sheet import MAX_CELLS, CellValue, SheetData

MAX_FILE_BYTES = 256 << 20

ENCRYPTED = ("password-protected (encrypted) Office file: remove the password in Office "
             "(File > Info > Protect) and save a copy, then parse that")


def read_xls(path: str | Path) -> Document:
    """Read an .xls workbook into a :class:`Document` (backend "office")."""
    import xlrd  # only when an .xls is read

    size = os.path.getsize(path)
    if size > MAX_FILE_BYTES:
        raise InputError(f"refused: the workbook is {size >> 20} MiB (the limit for .xls "
                         f"files is {MAX_FILE_BYTES >> 20} MiB)")
    try:
        with open(os.devnull, "w") as quiet:
            book = xlrd.open_workbook(str(path), formatting_info=True, on_demand=True,
                                      logfile=quiet, ragged_rows=True)
    except xlrd.XLRDError as exc:
        text = str(exc)
        if "encrypted" in text.lower():
            raise InputError(ENCRYPTED) from None
        raise InputError("not a readable Excel 97-2003 workbook", text) from None
    except Exception as exc:  # xlrd's own errors (CompDocError...) and Python's on bad data
        # formatting_info is not implemented for some old BIFF versions: read values only
        try:
            with open(os.devnull, "w") as quiet:
                book = xlrd.open_workbook(str(path), on_demand=True, logfile=quiet,
                                          ragged_rows=True)
        except Exception:
            raise InputError("not a readable Excel 97-2003 workbook",
                             f"{type(exc).__name__}: {exc}") from None
    doc = Document(backend="office")
    intake = Pictures(doc, total=MAX_PACKAGE_PICTURES)
    try:
        pictures = sheet_pictures(path)
    except (InputError, struct.error, ValueError, IndexError) as exc:
        pictures = []
        doc.warnings.append(f"pictures not read ({exc})")
    try:
        charts, externs, entries = _charts(path)
    except (InputError, struct.error, ValueError, IndexError) as exc:
        charts, externs, entries = [], [], []
        doc.warnings.append(f"charts not read ({exc})")
    # pictures and charts come per BOUNDSHEET (chart sheets too); xlrd counts worksheets only
    mapping = [x if isinstance(x, int) else -1 for x in getattr(book, "_all_sheets_map", []) or []]
    boundsheet = {x: i for i, x in enumerate(mapping) if x >= 0}
    order = [("sheet", i) for i in range(book.nsheets)]
    if len(entries) == len(mapping) and any(e.chart for e in entries):  # chart sheets in place
        order = [("sheet", mapping[i]) if mapping[i] >= 0 else ("chart", i)
                 for i, e in enumerate(entries) if mapping[i] >= 0 or (e.chart and not e.hidden)]
    try:
        formats = _formats(book)
        for what, index in order:
            if what == "chart":  # a chart sheet: a page of its own, as in .xlsx
                blocks = [chart_block(chart, lambda sh, r, c: _shown(sh, r, c, book, formats),
                                      lambda ixti: _extern_sheet(book, ixti, externs))
                          for chart in (charts[index] if index < len(charts) else ())]
                if any(blocks):
                    name = entries[index].name
                    doc.pages.append(Page(page_idx=len(doc.pages), name=name, para_blocks=[
                        title_block([text_span(name)], 2)] + [b for b in blocks if b]))
                continue
            try:
                sheet = book.sheet_by_index(index)
            except Exception as exc:  # one damaged sheet
                doc.warnings.append(f"sheet {index + 1} not readable ({type(exc).__name__})")
                continue
            if getattr(sheet, "visibility", 0):
                continue  # hidden or very hidden, as the .xlsx reader skips them
            page = Page(page_idx=len(doc.pages), name=sheet.name)
            page.para_blocks.append(title_block([text_span(sheet.name)], 2))
            data = _sheet_data(sheet, book, formats, doc)
            for _, blocks in sheet_items(data, doc, sheet.name, {}):
                page.para_blocks += blocks
            bs = boundsheet.get(index, index)
            for raw, ext in pictures[bs] if bs < len(pictures) else ():
                name = intake.take_data(raw, ext, f"on sheet {sheet.name!r}")
                if name:
                    page.para_blocks.append(image_block(name))
            for chart in charts[bs] if bs < len(charts) else ():
                block = chart_block(chart, lambda sh, r, c: _shown(sh, r, c, book, formats),
                                    lambda ixti: _extern_sheet(book, ixti, externs))
                if block is not None:
                    page.para_blocks.append(block)
            doc.pages.append(page)
            book.unload_sheet(index)
    finally:
        book.release_resources()
    if not doc.pages:
        raise InputError("no readable worksheet in the workbook")
    return doc


def _charts(path: str | Path) -> tuple[list, list[int]]:
    from mineru_tui.office.ole import Ole

    with Ole(path) as ole:
        data = ole.stream("Workbook") or ole.stream("Book") or b""
    return read_charts(data)


def _extern_sheet(book, ixti: int, externs: list[int]):
    """The xlrd sheet an EXTERNSHEET entry names in this workbook (None: another workbook,
    a chart sheet, a damaged entry)."""
    info = getattr(book, "_externsheet_info", None)
    if info is not None:
        if not 0 <= ixti < len(info):
            return None
        record, first, _ = info[ixti]
        types = getattr(book, "_supbook_types", [])
        if record < len(types) and types[record] != 1:  # 1: this workbook (SUPBOOK_INTERNAL)
            return None
    elif 0 <= ixti < len(externs):
        first = externs[ixti]
    else:
        return None
    mapping = getattr(book, "_all_sheets_map", []) or []
    index = mapping[first] if 0 <= first < len(mapping) else -1
    if index is None or index < 0:
        return None
    try:
        return book.sheet_by_index(index)
    except Exception:  # a damaged sheet: the chart loses that series
        return None


def _shown(sheet, r: int, c: int, book, formats: list[str | None]) -> str:
    """What a cell shows (its cached value through its number format), "" when empty."""
    import xlrd

    if r >= sheet.nrows or c >= sheet.row_len(r):
        return ""
    cell = sheet.cell(r, c)
    if cell.ctype in (xlrd.XL_CELL_NUMBER, xlrd.XL_CELL_DATE):
        xf = sheet.cell_xf_index(r, c) if formats else None
        code = formats[xf] if xf is not None and 0 <= xf < len(formats) else None
        x = float(cell.value)
        return (format_general(x) if not code or code.lower() == "general"
                else format_number(x, code, bool(book.datemode)))
    if cell.ctype == xlrd.XL_CELL_TEXT:
        return cell.value.strip()
    if cell.ctype == xlrd.XL_CELL_BOOLEAN:
        return "TRUE" if cell.value else "FALSE"
    if cell.ctype == xlrd.XL_CELL_ERROR:
        return xlrd.error_text_from_code.get(cell.value, "#N/A")
    return ""


def _formats(book) -> list[str | None]:
    """The number format code of each XF record (None: General)."""
    out: list[str | None] = []
    fmap = getattr(book, "format_map", {}) or {}
    for xf in getattr(book, "xf_list", []) or []:
        fmt = fmap.get(xf.format_key)
        out.append(fmt.format_str if fmt is not None else None)
    return out


def _sheet_data(sheet, book, formats: list[str | None], doc: Document) -> SheetData:
    import xlrd

    data = SheetData()
    date1904 = bool(book.datemode)
    cut = False
    shown: dict[tuple, CellValue] = {}  # (format, value) -> what it shows; sheets repeat both
    text, number, date = xlrd.XL_CELL_TEXT, xlrd.XL_CELL_NUMBER, xlrd.XL_CELL_DATE
    boolean, error = xlrd.XL_CELL_BOOLEAN, xlrd.XL_CELL_ERROR
    shared = not getattr(sheet, "hyperlink_list", None)  # cells never changed: share them
    xf_rows = getattr(sheet, "_cell_xf_indexes", None) if formats else None
    for r in range(sheet.nrows):
        types, values = sheet.row_types(r), sheet.row_values(r)
        xfs = xf_rows[r] if xf_rows is not None and r < len(xf_rows) else None
        for c, t in enumerate(types):
            if t == text:
                v = values[c]
                if not v or not v.strip():
                    continue
                value = CellValue(v)
            elif t == number or t == date:
                xf = (xfs[c] if xfs is not None and c < len(xfs) else
                      sheet.cell_xf_index(r, c) if formats else None)
                code = formats[xf] if xf is not None and 0 <= xf < len(formats) else None
                key = (code, values[c])
                value = shown.get(key)
                if value is None:
                    x = float(values[c])
                    value = shown[key] = CellValue(
                        format_general(x) if not code or code.lower() == "general"
                        else format_number(x, code, date1904), True)
                if not shared:
                    value = CellValue(value.text, True)  # cells get their own link later
            elif t == boolean:
                value = CellValue("TRUE" if values[c] else "FALSE", True)
            elif t == error:
                value = CellValue(xlrd.error_text_from_code.get(values[c], "#N/A"), True)
            else:
                continue
            if len(data.cells) >= MAX_CELLS:
                cut = True
                break
            data.cells[(r + 1, c + 1)] = value
        if cut:
            break
    if cut:
        doc.warnings.append(cut_warning(f"sheet {sheet.name!r}: more than {MAX_CELLS} values; "
                                        "the rest is left out"))
    for rlo, rhi, clo, chi in getattr(sheet, "merged_cells", []) or []:
        if rhi - rlo > 1 or chi - clo > 1:
            data.merges.append((rlo + 1, clo + 1, rhi, chi))
    for link in getattr(sheet, "hyperlink_list", []) or []:
        target = link.url_or_path if link.type == "url" else (
            "#" + link.textmark if getattr(link, "textmark", None) else None)
        target = safe_url((target or "").strip("\x00").strip())
        if not target:
            continue
        for r in range(link.frowx, min(link.lrowx, link.frowx + 64) + 1):
            for c in range(link.fcolx, min(link.lcolx, link.fcolx + 64) + 1):
                cell = data.cells.get((r + 1, c + 1))
                if cell is not None:
                    cell.link = target
    return data
