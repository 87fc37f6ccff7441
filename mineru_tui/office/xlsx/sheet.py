"""One worksheet part (``xl/worksheets/sheetN.xml``) read in a single streaming pass.

The result is plain data: the non-empty cells with the text the sheet shows (cached
formula values, numbers through their number format, shared and inline rich text), the
merged ranges, the hyperlinks and the drawing relationship ids. The ``dimension``
element is ignored: the used range comes from the cells themselves.

Huge sheets are capped (:data:`MAX_CELLS` values, :data:`MAX_SCANNED` cells looked
at); a damaged part keeps every row read before the damage. Both add a warning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from lxml import etree

from mineru_tui.office.numfmt import (datetime_to_serial, format_general, format_number,
                                           format_text, is_date_format)
from mineru_tui.errors import cut_warning
from mineru_tui.office.package import Package, local
from mineru_tui.office.xlsx.parts import Run, r_attr, rich_text

MAX_CELLS = 100_000  # non-empty cells kept per sheet (~1 MB of Markdown)
MAX_SCANNED = 1_000_000  # cell elements looked at per sheet (formatted empty cells count)

_DISPIMG_F = re.compile(r'^\s*=?\s*(?:_xlfn\.)?DISPIMG\(\s*"([^"]+)"', re.I)
_HYPERLINK_F = re.compile(r'^\s*=?\s*HYPERLINK\(\s*"([^"]+)"', re.I)


@dataclass(slots=True)
class CellValue:
    """What one cell shows: ``text`` (a str, or rich-text runs), and facts about it."""

    text: str | list[Run]
    numeric: bool = False  # a number, date, boolean or error (not text)
    link: str | None = None
    image: tuple[str, str] | None = None  # a picture placed in the cell: (part, alt text)


@dataclass
class SheetData:
    cells: dict[tuple[int, int], CellValue] = field(default_factory=dict)  # (row, col), 1-based
    merges: list[tuple[int, int, int, int]] = field(default_factory=list)  # r1, c1, r2, c2
    hyperlinks: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    drawing_ids: list[str] = field(default_factory=list)  # r:ids of <drawing>
    uncached_formulas: int = 0


_REF = re.compile(r"\$?([A-Za-z]{1,3})\$?(\d+)$")
_COLS: dict[str, int] = {}


def col_index(letters: str) -> int:
    """``"AB"`` → 28."""
    n = _COLS.get(letters)
    if n is None:
        n = 0
        for ch in letters.upper():
            n = n * 26 + (ord(ch) - 64)
        _COLS[letters] = n
    return n


def split_ref(ref: str) -> tuple[int, int] | None:
    """``"B12"`` → (12, 2); None when it is not a cell reference."""
    m = _REF.match(ref)
    if m is None:
        return None
    return int(m.group(2)), col_index(m.group(1))


def split_range(ref: str) -> tuple[int, int, int, int] | None:
    """``"A1:C3"`` (or ``"B2"``) → (r1, c1, r2, c2), normalised so r1<=r2, c1<=c2."""
    parts = ref.split(":")
    a = split_ref(parts[0])
    b = split_ref(parts[-1])
    if a is None or b is None:
        return None
    return min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1])


def read_sheet(pkg: Package, part: str, shared: list, codes: list[str], date1904: bool,
               cell_images: dict[int, tuple[str, str]] | None = None,
               wps_images: dict[str, tuple[str, str]] | None = None) -> SheetData | None:
    """The cells, merges, links and drawings of one worksheet part (None if missing).

    ``cell_images`` maps value-metadata indexes (``c/@vm``) to in-cell pictures;
    ``wps_images`` maps WPS picture names to the pictures ``DISPIMG`` formulas show.
    """
    stream = pkg.try_stream(part)
    if stream is None:
        pkg.warnings.append(f"{part}: worksheet part missing")
        return None
    data = SheetData()
    cells = data.cells
    n_shared = len(shared)
    n_codes = len(codes)
    bad_shared = 0
    scanned = 0
    row_no = 0
    capped = False
    # Number formats resolved once per style index: (code, is_date).
    fmt_cache: dict[int, tuple[str, bool]] = {}
    tag_c = tag_v = tag_f = tag_is = None
    try:
        with stream:
            ctx = etree.iterparse(stream, events=("end",),
                                  tag=("{*}row", "{*}mergeCell", "{*}hyperlink", "{*}drawing"),
                                  resolve_entities=False, no_network=True)
            for _, el in ctx:
                name = local(el.tag)
                if name == "row":
                    if tag_c is None:  # the sheet's own namespace, for plain tag compares
                        ns = el.tag[:-3]
                        tag_c, tag_v, tag_f, tag_is = (ns + "c", ns + "v", ns + "f", ns + "is")
                    r = el.get("r")
                    row_no = int(r) if r and r.isdigit() else row_no + 1
                    col_no = 0
                    for c in el:
                        if c.tag != tag_c:
                            continue
                        scanned += 1
                        ref = c.get("r")
                        m = _REF.match(ref) if ref else None
                        col_no = col_index(m.group(1)) if m else col_no + 1
                        if cell_images:
                            vm = c.get("vm")
                            pic = cell_images.get(int(vm)) if vm and vm.isdigit() else None
                            if pic is not None:  # its cached value is just #VALUE!
                                cells[(row_no, col_no)] = CellValue(pic[1], image=pic)
                                continue
                        t = c.get("t") or "n"
                        v = f = inline = None
                        for kid in c:
                            kt = kid.tag
                            if kt == tag_v:
                                v = kid.text if kid.text is not None else ""
                            elif kt == tag_f:
                                f = kid
                            elif kt == tag_is:
                                inline = kid
                        # No cached value: no <v>, or an empty one that is not a string result.
                        if inline is None and (v is None or (not v and t != "str"
                                                             and f is not None)):
                            if f is not None and f.text:
                                data.uncached_formulas += 1
                                cells[(row_no, col_no)] = CellValue("=" + f.text)
                            continue
                        s = c.get("s")
                        style = int(s) if s and s.isdigit() else 0
                        fmt = fmt_cache.get(style)
                        if fmt is None:
                            code = codes[style] if style < n_codes else "General"
                            fmt = fmt_cache[style] = (code, is_date_format(code))
                        value = _cell_value(t, v, inline, fmt, shared, n_shared, date1904)
                        if value is None:
                            continue
                        if value is _MISSING:
                            bad_shared += 1
                            continue
                        if wps_images and f is not None and f.text and "DISPIMG" in f.text.upper():
                            m = _DISPIMG_F.match(f.text)
                            pic = wps_images.get(m.group(1)) if m else None
                            if pic is not None:
                                cells[(row_no, col_no)] = CellValue(pic[1], image=pic)
                                continue
                        if f is not None and f.text and "HYPERLINK" in f.text.upper():
                            m = _HYPERLINK_F.match(f.text)
                            if m:
                                value.link = m.group(1)
                        cells[(row_no, col_no)] = value
                    el.clear()
                    while el.getprevious() is not None:
                        del el.getparent()[0]
                    if len(cells) >= MAX_CELLS or scanned >= MAX_SCANNED:
                        capped = True
                        break
                elif name == "mergeCell":
                    rng = split_range(el.get("ref") or "")
                    if rng is not None:
                        data.merges.append(rng)
                elif name == "hyperlink":
                    data.hyperlinks.append((el.get("ref") or "", r_attr(el, "id"),
                                            el.get("location")))
                elif name == "drawing":
                    rid = r_attr(el, "id")
                    if rid:
                        data.drawing_ids.append(rid)
    except Exception as exc:  # XMLSyntaxError, zlib errors, truncated zip member...
        pkg.warnings.append(f"{part}: damaged worksheet ({exc.__class__.__name__}); "
                            f"kept the {len(cells)} cells read before the damage")
    if capped:
        pkg.warnings.append(cut_warning(
            f"{part}: sheet too large; kept the first {len(cells)} cells (up to row {row_no}, "
            f"the limit is {MAX_CELLS} values per sheet); merges and links after the cells "
            "skipped"))
    if bad_shared:
        pkg.warnings.append(f"{part}: {bad_shared} cells point at missing shared strings")
    return data


def _blank(text) -> bool:
    """True for text that shows nothing (empty or only whitespace, plain or in runs)."""
    if not text:
        return True
    if isinstance(text, str):
        return text.isspace()
    return all(t.isspace() or not t for t, _ in text)


_MISSING = CellValue("")  # a shared-string index that points nowhere


def _cell_value(t: str, v: str | None, inline, fmt: tuple[str, bool], shared: list,
                n_shared: int, date1904: bool) -> CellValue | None:
    """The shown value of one cell, or None when it shows nothing."""
    code, is_date = fmt
    if t == "s":
        if not v or not v.strip():  # <v/>: an empty cell, not a broken reference
            return None
        try:
            text = shared[int(v)]
        except (ValueError, TypeError, IndexError):
            return _MISSING
        if _blank(text):
            return None
        if isinstance(text, str) and "@" in code:
            text = format_text(text, code)
        return CellValue(text)
    if t == "inlineStr":
        text = rich_text(inline) if inline is not None else (v or "")
        return None if _blank(text) else CellValue(text)
    if t == "str":  # a formula's string result
        return None if _blank(v) else CellValue(v)
    if t == "b":
        return CellValue("TRUE" if (v or "").strip() in ("1", "true") else "FALSE", True)
    if t == "e":
        return CellValue(v, True) if v else None
    if t == "d":  # an ISO 8601 date stored as text
        try:
            serial = datetime_to_serial(datetime.fromisoformat(v.strip().rstrip("Z")), date1904)
        except (ValueError, AttributeError):
            return CellValue(v, True) if v else None
        return CellValue(format_number(serial, code if is_date else "yyyy-mm-dd hh:mm:ss",
                                       date1904).replace(" 00:00:00", ""), True)
    # A number (t="n" or anything unknown)
    if not v:
        return None
    try:
        x = float(v)
    except ValueError:
        return CellValue(v.strip(), False) if v.strip() else None
    if code == "General":
        return CellValue(format_general(x), True)
    return CellValue(format_number(x, code, date1904), True)
