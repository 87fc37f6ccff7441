"""The workbook-level parts of an .xlsx/.xlsm package, each parsed once into plain data.

* :func:`read_workbook` — ``xl/workbook.xml`` + rels: sheets in tab order with their
  visibility and part names, and the 1904 date system flag.
* :func:`read_styles` — ``xl/styles.xml``: each cell style index's number format code.
* :func:`read_shared_strings` — ``xl/sharedStrings.xml``: plain strings, or runs with
  styles for rich text.

Every reader degrades: a corrupt part adds a warning and yields what was read before
the damage (or nothing), never an exception.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from lxml import etree

from mineru_tui.office.numfmt import BUILTIN_FORMATS
from mineru_tui.office.package import Package, local

R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
R_NS_STRICT = "http://purl.oclc.org/ooxml/officeDocument/relationships"

# A run of rich text: (text, styles). A cell's text is a str or a list of runs.
Run = tuple[str, frozenset]


def r_attr(el, name: str) -> str | None:
    """A relationship attribute (``r:id``, ``r:embed``) in either OOXML flavour."""
    return el.get(f"{{{R_NS}}}{name}") or el.get(f"{{{R_NS_STRICT}}}{name}")


# ---------------------------------------------------------------------------------------
# Workbook


@dataclass
class SheetRef:
    name: str
    part: str | None  # the sheet's part name in the zip
    state: str = "visible"  # visible | hidden | veryHidden
    kind: str = "worksheet"  # worksheet | chartsheet | macrosheet | dialogsheet


@dataclass
class Workbook:
    part: str
    sheets: list[SheetRef] = field(default_factory=list)
    date1904: bool = False


def find_workbook_part(pkg: Package) -> str:
    return pkg.main_part() or "xl/workbook.xml"


def read_workbook(pkg: Package) -> Workbook:
    """Sheets in tab order. Without a readable workbook.xml, every worksheet part is a sheet."""
    part = find_workbook_part(pkg)
    wb = Workbook(part)
    root = pkg.xml_recovering(part) if pkg.has(part) else None
    rels = pkg.rels(part)
    if root is not None:
        for el in root.iter():
            name = local(el.tag)
            if name == "workbookPr":
                wb.date1904 = (el.get("date1904") or "").lower() in ("1", "true")
            elif name == "sheet":
                rel = rels.get(r_attr(el, "id") or "")
                kind = rel.kind if rel else "worksheet"
                wb.sheets.append(SheetRef(el.get("name") or f"Sheet{len(wb.sheets) + 1}",
                                          rel.target if rel and not rel.external else None,
                                          el.get("state") or "visible", kind))
    # Without a usable sheet list or relationships, fall back to the worksheet parts in
    # the zip, in numeric order: named sheets without a part take the unclaimed ones.
    unresolved = [s for s in wb.sheets if s.part is None or not pkg.has(s.part)]
    if not wb.sheets or unresolved:
        claimed = {s.part.lower() for s in wb.sheets if s.part and pkg.has(s.part)}
        parts = sorted((n for n in pkg.names()
                        if n.lower().startswith("xl/worksheets/") and n.lower().endswith(".xml")
                        and n.lower() not in claimed), key=_natural_key)
        if parts:
            pkg.warnings.append("workbook sheet list or relationships unreadable; "
                                "reading worksheet parts directly")
        if not wb.sheets:
            wb.sheets = [SheetRef(posixpath.splitext(posixpath.basename(p))[0].capitalize(), p)
                         for p in parts]
        else:
            for ref, part in zip(unresolved, parts):
                ref.part, ref.kind = part, "worksheet"
    return wb


def _natural_key(name: str):
    import re
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name.lower())]


# ---------------------------------------------------------------------------------------
# Styles: only what shows a value — each cellXfs entry's number format code.


def read_styles(pkg: Package, workbook_part: str) -> list[str]:
    """Number format code per cell style index (``c/@s``); General for unknown ones."""
    part = next((r.target for r in pkg.rels(workbook_part).values() if r.kind == "styles"),
                "xl/styles.xml")
    root = pkg.xml_recovering(part) if pkg.has(part) else None
    if root is None:
        return []
    custom: dict[int, str] = {}
    codes: list[str] = []
    for el in root:
        name = local(el.tag)
        if name == "numFmts":
            for nf in el:
                try:
                    custom[int(nf.get("numFmtId"))] = nf.get("formatCode") or "General"
                except (TypeError, ValueError):
                    continue
        elif name == "cellXfs":
            for xf in el:
                if local(xf.tag) != "xf":
                    continue
                try:
                    fid = int(xf.get("numFmtId") or 0)
                except ValueError:
                    fid = 0
                codes.append(custom.get(fid) or BUILTIN_FORMATS.get(fid, "General"))
    return codes


# ---------------------------------------------------------------------------------------
# Shared strings


def run_style(rpr) -> frozenset:
    """Span styles from a run's ``rPr`` (``<b/>``, ``<i val="0"/>``, ``<vertAlign>``...)."""
    if rpr is None:
        return frozenset()
    out = set()
    for el in rpr:
        name = local(el.tag)
        val = (el.get("val") or "").lower()
        on = val not in ("0", "false", "none")
        if name == "b" and on:
            out.add("bold")
        elif name == "i" and on:
            out.add("italic")
        elif name == "strike" and on:
            out.add("strike")
        elif name == "u" and on:
            out.add("underline")
        elif name == "vertAlign" and val in ("superscript", "subscript"):
            out.add(val)
    return frozenset(out)


def rich_text(si) -> str | list[Run]:
    """The text of an ``<si>`` or ``<is>``: a str, or runs when some run has styles.

    Phonetic guides (``<rPh>``) are left out: they repeat the text's reading.
    """
    runs: list[Run] = []
    for el in si:
        name = local(el.tag)
        if name == "t":
            runs.append((el.text or "", frozenset()))
        elif name == "r":
            text = "".join(t.text or "" for t in el if local(t.tag) == "t")
            rpr = next((x for x in el if local(x.tag) == "rPr"), None)
            runs.append((text, run_style(rpr)))
    if any(style for _, style in runs):
        return [(_unescape(t), st) for t, st in runs if t]
    return _unescape("".join(t for t, _ in runs))


def _unescape(text: str) -> str:
    """Undo OOXML's ``_xHHHH_`` escapes (control characters in strings)."""
    if "_x" not in text:
        return text
    import re
    return re.sub(r"_x([0-9A-Fa-f]{4})_",
                  lambda m: chr(int(m.group(1), 16)) if int(m.group(1), 16) else "", text)


def read_shared_strings(pkg: Package, workbook_part: str) -> list[str | list[Run]]:
    """All shared strings, in order. A damaged part keeps the strings before the damage."""
    part = next((r.target for r in pkg.rels(workbook_part).values()
                 if r.kind == "sharedStrings"), "xl/sharedStrings.xml")
    stream = pkg.try_stream(part)
    if stream is None:
        return []
    out: list[str | list[Run]] = []
    try:
        with stream:
            for _, el in etree.iterparse(stream, events=("end",), tag="{*}si",
                                         resolve_entities=False, no_network=True):
                out.append(rich_text(el))
                el.clear()
                while el.getprevious() is not None:
                    del el.getparent()[0]
    except Exception as exc:
        pkg.warnings.append(f"{part}: corrupt shared strings after {len(out)} entries "
                            f"({exc.__class__.__name__}); later strings missing")
    return out
