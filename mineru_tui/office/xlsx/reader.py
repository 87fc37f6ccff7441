"""The .xlsx/.xlsm reader: a workbook as one page per visible sheet.

A single streaming lxml reader over the package parts (no openpyxl: importing it alone
costs ~0.4 s, and it refuses workbooks with one bad part that still hold readable cells).

Per visible sheet (hidden and veryHidden sheets are skipped), a :class:`Page` named after
the sheet, holding:

* a level-2 title with the sheet name;
* the sheet's tables: the non-empty cells (merged ranges count as filled) split into
  separate tables wherever fully empty rows or columns run across them (recursive
  XY-cut, like docling), each trimmed to its own used range. Two or more empty lines
  always separate; a single one is a spacer inside one table when the blocks on either
  side share most of their rows (a spacer column) or when it parts a text-only header
  block from the numbers under it (a spacer row). Merged cells become colspan/rowspan
  (clipped to their table), covered cells are omitted; a merged range with an empty
  top-left cell keeps its span where it touches a table, but makes none. A table's first
  row is marked as header when it holds no number (with the rows its merges reach
  down over). A lone text cell on top of a wider table is a title row: merged across,
  it stays the table's first row as a header cell spanning the table; unmerged, it
  becomes a level-3 title before it. A region of one cell becomes a paragraph, unless
  it is a merged block or the sheet's only content (then a one-cell table);
* pictures (image blocks), charts (a ``sub_type="chart"`` table of the cached series
  data — or of the referenced cells when the chart caches none — captioned with the
  chart type and title) and text boxes from the sheet's drawing, placed in reading order
  among the tables by their anchor cell. Pictures placed in cells sit in their cell.
  A chartsheet is a page with its chart.

Hidden rows and columns are kept (their data is still the sheet's data). Sheets are
capped at :data:`~mineru_tui.office.xlsx.sheet.MAX_CELLS` values and tables at
:data:`MAX_TABLE_CELLS` cells, with a warning.

Cells show what Excel shows: cached formula values (formula text, prefixed "=", only
when no value is cached — with a warning), numbers and dates through their number
format, TRUE/FALSE, error codes, rich-text runs with bold/italic/underline/strike/
super/subscript, hyperlinks (external targets, internal ``#Sheet2!A1`` locations,
``HYPERLINK()`` formulas). Damaged parts add warnings to ``doc.warnings``; only a
workbook with no readable sheet at all raises :class:`InputError`.
"""

from __future__ import annotations

import gc
from pathlib import Path

from mineru_tui.document import (Block, BlockType, Cell, Document, Line, Page, Span, SpanType,
                                 Table, image_block, table_block, text_block, text_span,
                                 title_block)
from mineru_tui.errors import InputError, cut_warning
from mineru_tui.office.xlsx.drawing import (Anchored, image_ext, read_chart, read_drawing,
                                            read_image)
from mineru_tui.office.package import Package, local
from mineru_tui.office.pictures import MAX_PACKAGE_PICTURES, Pictures
from mineru_tui.office.xlsx.parts import (r_attr, read_shared_strings,
                                          read_styles, read_workbook)
from mineru_tui.office.xlsx.richdata import read_cell_images, read_wps_cell_images
from mineru_tui.office.xlsx.sheet import CellValue, SheetData, read_sheet, split_range

from mineru_tui.office.limits import MAX_TABLE_CELLS  # cells (empty ones included) per table
MAX_TITLE_CHARS = 200
MERGE_SLACK = 16  # rows/columns a merge may reach past the last value

# A rectangle of the sheet that holds something: (r1, c1, r2, c2); a value's own cell or
# the whole range of a merge whose top-left cell has a value.
Rect = tuple[int, int, int, int]


def read_xlsx(path: str | Path) -> Document:
    """Read an .xlsx/.xlsm workbook into a :class:`Document` (backend "office")."""
    # Big sheets allocate millions of small acyclic objects; the cyclic collector would
    # rescan them all again and again (4x slower on a 100k-cell sheet).
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _read_xlsx(Path(path))
    finally:
        if was_enabled:
            gc.enable()


def _read_xlsx(path: Path) -> Document:
    with Package(path, "xlsx") as pkg:
        doc = Document(backend="office", warnings=pkg.warnings)
        intake = Pictures(doc, total=MAX_PACKAGE_PICTURES)
        wb = read_workbook(pkg)
        if not wb.sheets:
            raise InputError("no worksheets found; the workbook is damaged "
                             "or not a spreadsheet")
        codes = read_styles(pkg, wb.part)
        shared = read_shared_strings(pkg, wb.part)
        cell_images = read_cell_images(pkg, wb.part)
        wps_images = read_wps_cell_images(pkg, wb.part)
        sheet_names = {s.name for s in wb.sheets}
        resolver = _RefResolver(pkg, wb, shared, codes)
        read_any = False
        for ref in wb.sheets:
            if ref.state.lower() in ("hidden", "veryhidden"):
                continue
            page = Page(page_idx=len(doc.pages), name=ref.name)
            page.para_blocks.append(title_block([text_span(ref.name)], 2))
            items: list[tuple[tuple[int, int], list[Block]]] = []
            if ref.part is None:
                doc.warnings.append(f"sheet {ref.name!r}: no part behind it, skipped")
            elif ref.kind in ("worksheet", "macrosheet"):
                data = read_sheet(pkg, ref.part, shared, codes, wb.date1904, cell_images,
                                  wps_images)
                if data is not None:
                    read_any = True
                    resolver.sheets[ref.name] = data
                    _apply_links(pkg, ref.part, data, sheet_names)
                    if data.uncached_formulas:
                        doc.warnings.append(
                            f"sheet {ref.name!r}: {data.uncached_formulas} formulas have no "
                            "cached value; their formula text is shown")
                    pictures = (_load_pictures(pkg, data, intake) if cell_images or wps_images
                                else {})
                    items += sheet_items(data, doc, ref.name, pictures)
                    items += _drawing_items(pkg, ref.part, data.drawing_ids, doc, resolver,
                                            intake)
            elif ref.kind == "chartsheet":
                read_any = True
                items += _drawing_items(pkg, ref.part, _chartsheet_drawings(pkg, ref.part), doc,
                                        resolver, intake)
            items.sort(key=lambda it: it[0])  # stable: a title stays before its table
            for _, blocks in items:
                page.para_blocks += blocks
            doc.pages.append(page)
        if not read_any and all(s.part is None or not pkg.has(s.part) for s in wb.sheets):
            raise InputError("no readable worksheet in the workbook")
    return doc


# ---------------------------------------------------------------------------------------
# Links


def _apply_links(pkg: Package, part: str, data: SheetData, sheet_names: set[str]) -> None:
    if not data.hyperlinks:
        return
    rels = pkg.rels(part)
    for ref, rid, location in data.hyperlinks:
        rng = split_range(ref)
        if rng is None:
            continue
        rel = rels.get(rid) if rid else None
        if rel is not None:
            target = rel.target + (f"#{location}" if location else "")
        elif location:
            target = "#" + location
        else:
            continue
        r1, c1, r2, c2 = rng
        if (r2 - r1 + 1) * (c2 - c1 + 1) <= 64:
            for r in range(r1, r2 + 1):
                for c in range(c1, c2 + 1):
                    cell = data.cells.get((r, c))
                    if cell is not None:
                        cell.link = target
        else:
            for (r, c), cell in data.cells.items():
                if r1 <= r <= r2 and c1 <= c <= c2:
                    cell.link = target


# ---------------------------------------------------------------------------------------
# Cells to tables


def sheet_items(data: SheetData, doc: Document, sheet: str, pictures: dict[str, str]):
    """(anchor, blocks) for every table, title and paragraph of the sheet.

    Also used by the readers of other spreadsheet formats (ODS, XLS), which fill a
    :class:`SheetData` of their own.
    """
    cells = data.cells
    if not cells:
        return []
    # A merge may reach past every value (a title merged across extra columns, a block
    # merged over empty rows); beyond a little slack that is formatting, not content.
    max_row = max(r for r, _ in cells) + MERGE_SLACK
    max_col = max(c for _, c in cells) + MERGE_SLACK
    merges: dict[tuple[int, int], Rect] = {}
    for r1, c1, r2, c2 in data.merges:
        if r1 > max_row or c1 > max_col:
            continue  # wholly past the content: formatting
        r2, c2 = min(r2, max(r1, max_row)), min(c2, max(c1, max_col))
        if r2 > r1 or c2 > c1:
            merges[(r1, c1)] = (r1, c1, r2, c2)
    rects: list[Rect] = [merges.pop(pos, (pos[0], pos[1], pos[0], pos[1])) for pos in cells]
    # A merge with an empty top-left cell is still the table's structure (an empty box
    # of a form): it keeps its span where it touches a table, but alone is no content.
    # One that covers values is not kept (its span would hide them).
    rects += [m for m in merges.values() if not _covers_value(m, cells)]
    regions = [g for g in _xy_cut(rects, cells) if any((r[0], r[1]) in cells for r in g)]
    items = []
    for region in regions:
        items += _region_items(region, cells, doc, sheet, pictures, sole=len(regions) == 1)
    return items


def _covers_value(rect: Rect, cells: dict) -> bool:
    """Whether any cell of the rectangle holds a value."""
    r1, c1, r2, c2 = rect
    if (r2 - r1 + 1) * (c2 - c1 + 1) <= len(cells):
        return any((r, c) in cells for r in range(r1, r2 + 1) for c in range(c1, c2 + 1))
    return any(r1 <= r <= r2 and c1 <= c <= c2 for r, c in cells)


def _xy_cut(rects: list[Rect], cells: dict) -> list[list[Rect]]:
    """Split rectangles into groups separated by fully empty rows or columns.

    A band of two or more empty rows or columns always separates; a single one only
    when the two sides do not read as one table (see :func:`_one_table`).
    """
    out: list[list[Rect]] = []
    stack = [(rects, 0, False)]  # (rects, axis to try, whether the other axis failed)
    while stack:
        group, axis, other_failed = stack.pop()
        parts = _split(group, axis, cells)
        if len(parts) > 1:
            # Later parts are pushed first so they pop (and are emitted) last.
            for p in reversed(parts):
                stack.append((p, 1 - axis, False))
        elif other_failed:
            out.append(group)
        else:
            stack.append((group, 1 - axis, True))
    return out


def _split(rects: list[Rect], axis: int, cells: dict) -> list[list[Rect]]:
    """The rectangles in bands along ``axis`` (0: rows, 1: columns), split at empty lines."""
    lo, hi = (0, 2) if axis == 0 else (1, 3)
    ordered = sorted(rects, key=lambda r: (r[lo], r[1 - lo]))
    parts: list[list[Rect]] = []
    reach: list[int] = []  # how far along the axis each band reaches so far
    for r in ordered:
        if parts and r[lo] <= reach[-1] + 1:
            parts[-1].append(r)
            if r[hi] > reach[-1]:
                reach[-1] = r[hi]
        else:
            parts.append([r])
            reach.append(r[hi])
    bounds = [_bounds(p) for p in parts]  # once per band, not once per rectangle
    joined, joined_bounds = parts[:1], bounds[:1]
    for part, bound in zip(parts[1:], bounds[1:]):
        if _one_table(joined[-1], joined_bounds[-1], part, bound, axis, cells):
            joined[-1].extend(part)
            joined_bounds[-1] = _union(joined_bounds[-1], bound)
        else:
            joined.append(part)
            joined_bounds.append(bound)
    return joined


def _union(a: Rect, b: Rect) -> Rect:
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])


MAX_HEAD_ROWS = 3  # rows of a header block that a spacer row may part from its data


def _one_table(a: list[Rect], ba: Rect, b: list[Rect], bb: Rect, axis: int,
               cells: dict) -> bool:
    """Whether blocks ``a`` and ``b`` (bounds ``ba``, ``bb``), apart along ``axis``, are
    one table with a spacer line between them.

    Only a single empty row or column can be a spacer, and only between blocks that
    share more than half of their extent the other way (side by side over the same rows,
    or one above the other over the same columns). A spacer column is then part of the
    table (a narrow layout column between a table's columns). A single empty row more
    often separates two tables stacked on a sheet, so it is bridged only between a
    header block (a few rows of text, no number) and the data under it (a first row with
    a number). Docling's ``gap_tolerance=1`` bridges any single empty line; here a block
    whose first row is text starts a new table.
    """
    lo, hi = (0, 2) if axis == 0 else (1, 3)
    if bb[lo] - ba[hi] != 2:  # not exactly one empty line between them
        return False
    olo, ohi = (1, 3) if axis == 0 else (0, 2)
    overlap = min(ba[ohi], bb[ohi]) - max(ba[olo], bb[olo]) + 1
    if 2 * overlap <= max(ba[ohi] - ba[olo], bb[ohi] - bb[olo]) + 1:
        return False
    if axis == 1:
        return True
    return (ba[2] - ba[0] + 1 <= MAX_HEAD_ROWS and not any(_is_number(r, cells) for r in a)
            and any(_is_number(r, cells) for r in b if r[0] == bb[0]))


def _is_number(rect: Rect, cells: dict) -> bool:
    value = cells.get((rect[0], rect[1]))
    return value is not None and value.numeric


def _bounds(rects: list[Rect]) -> Rect:
    return (min(r[0] for r in rects), min(r[1] for r in rects),
            max(r[2] for r in rects), max(r[3] for r in rects))


def _region_items(rects: list[Rect], cells: dict, doc: Document, sheet: str,
                  pictures: dict[str, str], sole: bool = False):
    r1, c1, r2, c2 = _bounds(rects)
    if len(rects) == 1:
        # One cell: a paragraph (a label beside the tables reads best as text), unless it
        # is the sheet's only content or a merged block, whose span is the author's
        # structure; both stay a (one-cell) table.
        rect = rects[0]
        merged = rect[2] > rect[0] or rect[3] > rect[1]
        if sole or merged:
            return [((r1, c1), [_table(rects, cells, doc, sheet, pictures, title=merged)])]
        value = cells[(rect[0], rect[1])]
        return [((r1, c1), _cell_blocks(value, pictures))]
    title = _title_row(rects, cells)
    if title is not None:
        rest = [r for r in rects if r is not title]
        groups = [g for g in _xy_cut(rest, cells) if any((r[0], r[1]) in cells for r in g)]
        anchor = (title[0], title[1])
        if title[3] > title[1]:
            # A merged title row: it stays the table's first row, a header cell spanning
            # the table (clipped to the cells below it), as Excel shows it.
            rb = _bounds(rest)
            head = (title[0], title[1], title[2], max(title[1], min(title[3], rb[3])))
            if len(groups) == 1:
                return [(anchor, [_table([head] + rest, cells, doc, sheet, pictures,
                                         title=True)])]
            head_blocks = [_table([head], cells, doc, sheet, pictures, title=True)]
        else:  # a lone unmerged label over the table: a heading before it
            head_blocks = [title_block(_spans(cells[anchor]), 3)]
        out = []
        for i, g in enumerate(groups):
            sub = _region_items(g, cells, doc, sheet, pictures)
            if i == 0 and sub:
                sub[0] = (anchor, head_blocks + sub[0][1])
            out += sub
        return out
    return [((r1, c1), [_table(rects, cells, doc, sheet, pictures)])]


def _title_row(rects: list[Rect], cells: dict) -> Rect | None:
    """The lone text cell in the top row of a wider, taller table, if there is one."""
    r1, c1, r2, c2 = _bounds(rects)
    top = [r for r in rects if r[0] == r1]
    if len(top) != 1 or top[0][2] != r1 or r2 == r1:
        return None
    value = cells.get((top[0][0], top[0][1]))
    if value is None:  # an empty merged box
        return None
    text = value.text if isinstance(value.text, str) else "".join(t for t, _ in value.text)
    if (value.numeric or value.image or not text.strip() or len(text) > MAX_TITLE_CHARS
            or "\n" in text):
        return None
    nxt = min(r[0] for r in rects if r[0] > r1)  # the next row holding something
    below = {r[1] for r in rects if r[0] == nxt}
    return top[0] if len(below) >= 2 else None


def _table(rects: list[Rect], cells: dict, doc: Document, sheet: str,
           pictures: dict[str, str], title: bool = False) -> Block:
    """The rectangles as one table; ``title``: its first row is a merged title row.

    Header cells: the title row, then the first (other) row when it holds no number and
    rows follow it, with the rows its merged cells reach down over.
    """
    r1, c1, r2, c2 = _bounds(rects)
    width = c2 - c1 + 1
    if (r2 - r1 + 1) * width > MAX_TABLE_CELLS:
        r2 = r1 + max(1, MAX_TABLE_CELLS // width) - 1
        doc.warnings.append(cut_warning(f"sheet {sheet!r}: table too large; kept its first "
                                        f"{r2 - r1 + 1} rows (the limit is "
                                        f"{MAX_TABLE_CELLS} cells per table)"))
    spans: dict[tuple[int, int], Rect] = {}
    covered: set[tuple[int, int]] = set()
    for rect in rects:
        if rect[2] > rect[0] or rect[3] > rect[1]:
            mr1, mc1 = rect[0], rect[1]
            mr2, mc2 = min(rect[2], r2), min(rect[3], c2)
            if mr1 > r2:
                continue
            spans[(mr1, mc1)] = (mr1, mc1, mr2, mc2)
            for r in range(mr1, mr2 + 1):
                for c in range(mc1, mc2 + 1):
                    if (r, c) != (mr1, mc1):
                        covered.add((r, c))
    table = Table()
    head = r1 + 1 if title else r1  # the row that may be a header row
    numeric_head = False
    head_end = head  # last row reached by the header row's merges
    for r in range(r1, r2 + 1):
        row: list[Cell] = []
        for c in range(c1, c2 + 1):
            if (r, c) in covered:
                continue
            value = cells.get((r, c))
            cell = Cell(_cell_blocks(value, pictures) if value is not None else [])
            if (r, c) in spans:
                sr1, sc1, sr2, sc2 = spans[(r, c)]
                cell.colspan, cell.rowspan = sc2 - sc1 + 1, sr2 - sr1 + 1
                if r == head:
                    head_end = max(head_end, sr2)
            if r == head and value is not None and value.numeric:
                numeric_head = True
            row.append(cell)
        table.rows.append(row)
    n_head = 1 if title else 0
    if head_end < r2 and not numeric_head:
        n_head = head_end - r1 + 1
    for row in table.rows[:n_head]:
        for cell in row:
            cell.header = True
    return table_block(table)


_NO_STYLE: frozenset = frozenset()


def _cell_blocks(value: CellValue, pictures: dict[str, str]) -> list[Block]:
    """A cell's content: its text, or the picture placed in it."""
    if value.image is not None:
        name = pictures.get(value.image[0])
        if name:
            return [image_block(name, alt=value.image[1])]
    return [text_block_from(value)]


def _load_pictures(pkg: Package, data: SheetData, intake: Pictures) -> dict[str, str]:
    """Image part → document image name for the sheet's in-cell pictures (each once)."""
    out: dict[str, str] = {}
    for value in data.cells.values():
        if value.image is not None and value.image[0] not in out:
            part = value.image[0]
            out[part] = _picture(pkg, part, intake, "in-cell picture") or ""
    return out


def _picture(pkg: Package, part: str, intake: Pictures, what: str) -> str | None:
    """The document's name for the image part ``part``, through the workbook's intake
    (a part placed on many sheets or cells is stored once); a warning when it is missing."""
    missing = []

    def read() -> tuple[bytes, str] | None:
        raw = read_image(pkg, part)  # None: missing, unreadable or too large (warned)
        if not raw:
            missing.append(part)
        return (raw, image_ext(part)) if raw else None
    name = intake.take(("part", part), read, part)
    if missing:
        intake.doc.warnings.append(f"{part}: {what} missing or unreadable")
    return name


def _spans(value: CellValue):
    if isinstance(value.text, str):
        return [text_span(value.text, link=value.link)]
    return [text_span(t, style, link=value.link) for t, style in value.text]


def text_block_from(value: CellValue) -> Block:
    """A cell's text as a block: one line per line of the cell, runs kept as spans."""
    text = value.text
    if isinstance(text, str) and "\n" not in text and "\r" not in text:  # the common case
        return Block(BlockType.TEXT, lines=[Line([Span(SpanType.TEXT, text, _NO_STYLE,
                                                       value.link)])])
    lines: list[Line] = [Line([])]
    for span in _spans(value):
        pieces = span.content.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        for i, piece in enumerate(pieces):
            if i:
                lines.append(Line([]))
            if piece:
                lines[-1].spans.append(text_span(piece, span.style, span.link))
    lines = [l for l in lines if any(s.content.strip() for s in l.spans)] or [Line([])]
    block = text_block([])
    block.lines = lines
    return block


# ---------------------------------------------------------------------------------------
# Drawings: pictures, charts, text boxes


def _chartsheet_drawings(pkg: Package, part: str) -> list[str]:
    """The drawing r:ids of a chartsheet part (a chartsheet is one drawing, no cells)."""
    root = pkg.xml_recovering(part)
    if root is None:
        return []
    return [r_attr(el, "id") for el in root.iter()
            if local(el.tag) == "drawing" and r_attr(el, "id")]


def _drawing_items(pkg: Package, sheet_part: str, drawing_ids: list[str], doc: Document,
                   resolver: "_RefResolver", intake: Pictures):
    items = []
    rels = pkg.rels(sheet_part)
    for rid in drawing_ids:
        rel = rels.get(rid)
        if rel is None or rel.external:
            continue
        try:
            objects = read_drawing(pkg, rel.target)
        except Exception as exc:  # a drawing is never worth losing the sheet for
            doc.warnings.append(f"{rel.target}: unreadable drawing ({exc.__class__.__name__})")
            continue
        for obj in objects:
            block = _drawing_block(pkg, obj, doc, resolver, intake)
            if block is not None:
                items.append(((obj.row, obj.col), [block]))
    return items


def _drawing_block(pkg: Package, obj: Anchored, doc: Document,
                   resolver: "_RefResolver", intake: Pictures) -> Block | None:
    if obj.kind == "image":
        name = _picture(pkg, obj.part, intake, "image")
        # a picture left out (unsafe, past the total) keeps its alt text in its place
        return image_block(name or "", alt=obj.alt) if name or obj.alt else None
    if obj.kind == "text":
        block = text_block([])
        block.lines = [Line([text_span(p)]) for p in obj.paragraphs]
        return block
    try:
        chart = read_chart(pkg, obj.part, resolver)
    except Exception as exc:
        doc.warnings.append(f"{obj.part}: unreadable chart ({exc.__class__.__name__})")
        return None
    if chart is None:
        return None
    caption = chart.type_name + (f": {chart.title}" if chart.title else "")
    n = max([len(chart.categories)] + [len(v) for _, v in chart.series])
    if not chart.series or n == 0:
        return text_block([text_span(caption)])
    cats = chart.categories or [str(i + 1) for i in range(n)]
    table = Table()
    table.rows.append([Cell([], header=True)] +
                      [Cell([text_block([text_span(name)])], header=True)
                       for name, _ in chart.series])
    for i in range(n):
        row = [Cell([text_block([text_span(cats[i] if i < len(cats) else "")])])]
        for _, vals in chart.series:
            v = vals[i] if i < len(vals) else ""
            row.append(Cell([text_block([text_span(v)])] if v else []))
        table.rows.append(row)
    return table_block(table, captions=[text_block([text_span(caption)])], sub_type="chart")


class _RefResolver:
    """Cell texts of a chart reference such as ``'Sheet 1'!$B$2:$B$9``.

    Used only for charts without cached points; a referenced sheet that was not read
    yet (a later or hidden one) is read on demand, once.
    """

    def __init__(self, pkg: Package, wb, shared: list, codes: list[str]):
        self.pkg, self.wb, self.shared, self.codes = pkg, wb, shared, codes
        self.sheets: dict[str, SheetData | None] = {}

    def __call__(self, ref: str) -> list[str] | None:
        ref = ref.strip().lstrip("(").rstrip(")")
        if "," in ref or "!" not in ref:
            return None  # multi-area references: no guess
        name, _, cells = ref.rpartition("!")
        name = name.strip()
        if name.startswith("'") and name.endswith("'"):
            name = name[1:-1].replace("''", "'")
        rng = split_range(cells)
        if rng is None:
            return None
        data = self._sheet(name)
        if data is None:
            return None
        r1, c1, r2, c2 = rng
        if (r2 - r1 + 1) * (c2 - c1 + 1) > 10_000:
            return None
        out = []
        for r in range(r1, r2 + 1):
            for c in range(c1, c2 + 1):
                value = data.cells.get((r, c))
                text = "" if value is None else value.text
                out.append(text if isinstance(text, str) else "".join(t for t, _ in text))
        return out

    def _sheet(self, name: str) -> SheetData | None:
        if name not in self.sheets:
            ref = next((s for s in self.wb.sheets if s.name == name and s.part), None)
            self.sheets[name] = (read_sheet(self.pkg, ref.part, self.shared, self.codes,
                                            self.wb.date1904) if ref else None)
        return self.sheets[name]
