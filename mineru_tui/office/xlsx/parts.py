"""The workbook-level parts of an .xlsx/.xlsm package, each parsed once into plain data.

* :class:`Package` — the zip: case-tolerant part lookup, relationships, safe XML parsing.
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
import zipfile
from dataclasses import dataclass, field

from lxml import etree

from mineru_tui.office.numfmt import BUILTIN_FORMATS

R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
R_NS_STRICT = "http://purl.oclc.org/ooxml/officeDocument/relationships"
MAX_PART_BYTES = 512 * 1024 * 1024  # refuse to inflate a single absurd part

# A run of rich text: (text, styles). A cell's text is a str or a list of runs.
Run = tuple[str, frozenset]


def local(tag) -> str:
    """An element's tag without its namespace (comments and PIs give "")."""
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]


def r_attr(el, name: str) -> str | None:
    """A relationship attribute (``r:id``, ``r:embed``) in either OOXML flavour."""
    return el.get(f"{{{R_NS}}}{name}") or el.get(f"{{{R_NS_STRICT}}}{name}")


@dataclass
class Rel:
    id: str
    type: str  # the last path segment of the relationship type: "worksheet", "image"...
    target: str  # a part name inside the zip, or the external URL
    external: bool = False


class Package:
    """An OOXML zip with relationship lookup. Part names are matched case-insensitively."""

    def __init__(self, zf: zipfile.ZipFile, warnings: list[str]):
        self.zf = zf
        self.warnings = warnings
        self._names = {}
        for info in zf.infolist():
            name = info.filename.replace("\\", "/").lstrip("/")
            self._names.setdefault(name.lower(), info)
        self._rels: dict[str, dict[str, Rel]] = {}

    def has(self, name: str) -> bool:
        return name.lower() in self._names

    def open(self, name: str):
        """A readable stream of a part (the caller closes it), or None if missing/huge."""
        info = self._names.get(name.lower())
        if info is None:
            return None
        if info.file_size > MAX_PART_BYTES:
            self.warnings.append(f"{name}: part too large ({info.file_size} bytes), skipped")
            return None
        try:
            return self.zf.open(info)
        except Exception as exc:  # bad compression method, encrypted entry...
            self.warnings.append(f"{name}: cannot open part ({exc.__class__.__name__})")
            return None

    def read(self, name: str, limit: int = MAX_PART_BYTES) -> bytes | None:
        info = self._names.get(name.lower())
        if info is None:
            return None
        if info.file_size > limit:
            self.warnings.append(f"{name}: part too large ({info.file_size} bytes), skipped")
            return None
        try:
            return self.zf.read(info)
        except Exception as exc:  # CRC error, truncated member...
            self.warnings.append(f"{name}: cannot read part ({exc.__class__.__name__})")
            return None

    def xml(self, name: str):
        """The parsed root element of a part, or None (with a warning if it is corrupt)."""
        data = self.read(name)
        if data is None:
            return None
        try:
            return etree.fromstring(data, _PARSER)
        except etree.XMLSyntaxError:
            pass
        # Damaged XML: take what a recovering parse can still see.
        try:
            root = etree.fromstring(data, _RECOVER)
        except Exception:
            root = None
        self.warnings.append(f"{name}: corrupt XML" + (", read in recovery mode" if root is not None
                                                       else ", skipped"))
        return root

    def names(self) -> list[str]:
        return [info.filename.replace("\\", "/").lstrip("/") for info in self._names.values()]

    def rels(self, part: str) -> dict[str, Rel]:
        """The relationships of ``part`` (``""`` for the package root), by id."""
        if part in self._rels:
            return self._rels[part]
        folder, base = posixpath.split(part)
        rels_name = posixpath.join(folder, "_rels", base + ".rels")
        out: dict[str, Rel] = {}
        root = self.xml(rels_name) if self.has(rels_name) else None
        if root is not None:
            for el in root:
                if local(el.tag) != "Relationship":
                    continue
                rid, target = el.get("Id"), el.get("Target") or ""
                if not rid:
                    continue
                rtype = (el.get("Type") or "").rstrip("/").rsplit("/", 1)[-1]
                external = (el.get("TargetMode") or "").lower() == "external"
                out[rid] = Rel(rid, rtype, target if external else resolve(folder, target),
                               external)
        self._rels[part] = out
        return out


def resolve(folder: str, target: str) -> str:
    """A relationship target as a part name (targets are relative to the source's folder)."""
    target = target.replace("\\", "/")
    if target.startswith("/"):
        return posixpath.normpath(target.lstrip("/"))
    return posixpath.normpath(posixpath.join(folder, target)).lstrip("/")


_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
_RECOVER = etree.XMLParser(resolve_entities=False, no_network=True, recover=True)


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
    for rel in pkg.rels("").values():
        if rel.type == "officeDocument" and not rel.external and pkg.has(rel.target):
            return rel.target
    return "xl/workbook.xml"


def read_workbook(pkg: Package) -> Workbook:
    """Sheets in tab order. Without a readable workbook.xml, every worksheet part is a sheet."""
    part = find_workbook_part(pkg)
    wb = Workbook(part)
    root = pkg.xml(part) if pkg.has(part) else None
    rels = pkg.rels(part)
    if root is not None:
        for el in root.iter():
            name = local(el.tag)
            if name == "workbookPr":
                wb.date1904 = (el.get("date1904") or "").lower() in ("1", "true")
            elif name == "sheet":
                rel = rels.get(r_attr(el, "id") or "")
                kind = rel.type if rel else "worksheet"
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
    part = next((r.target for r in pkg.rels(workbook_part).values() if r.type == "styles"),
                "xl/styles.xml")
    root = pkg.xml(part) if pkg.has(part) else None
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
                 if r.type == "sharedStrings"), "xl/sharedStrings.xml")
    stream = pkg.open(part)
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
