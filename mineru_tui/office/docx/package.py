"""The .docx package: parts, their XML and their relationships.

python-docx opens the package (it is the gate: a file it cannot open is an
:class:`~mineru_tui.errors.InputError`). The readers only see :class:`PartRef`, a
thin view with lazily parsed XML, so a part whose XML is broken fails on its own
(the caller turns that into a warning) instead of failing the file.
"""

from __future__ import annotations

import posixpath
import zipfile
from pathlib import Path

from mineru_tui.errors import InputError

_W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

# Parsing untrusted XML: no entities, no network, no giant trees.
_PARSER = None


def parse_xml(data: bytes):
    """Parse a part's bytes with a hardened lxml parser."""
    global _PARSER
    from lxml import etree
    if _PARSER is None:
        _PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False,
                                  load_dtd=False)
    return etree.fromstring(data, _PARSER)


class PartRef:
    """One package part as the readers need it: name, XML, bytes, relationships."""

    __slots__ = ("_part", "_xml")

    def __init__(self, part):
        self._part = part
        self._xml = None

    @property
    def name(self) -> str:
        return str(self._part.partname)

    @property
    def ext(self) -> str:
        return self._part.partname.ext or "bin"

    def xml(self):
        """The part's root element (python-docx already parsed most parts)."""
        if self._xml is None:
            element = getattr(self._part, "element", None)
            self._xml = element if element is not None else parse_xml(self._part.blob)
        return self._xml

    def blob(self) -> bytes:
        return self._part.blob

    @property
    def content_type(self) -> str:
        return self._part.content_type or ""

    def external_target(self, rid: str) -> str | None:
        """The target URL of an external relationship (hyperlinks, linked images)."""
        rel = self._part.rels.get(rid)
        if rel is None or not rel.is_external:
            return None
        return rel.target_ref

    def related(self, rid: str) -> "PartRef | None":
        part = self._part.related_parts.get(rid)
        return PartRef(part) if part is not None else None

    def related_by_type(self, kind: str) -> list["PartRef"]:
        """Internal parts related by a relationship type ending in ``/kind``, in rId order."""
        rels = [rel for rel in self._part.rels.values()
                if not rel.is_external and rel.reltype.rsplit("/", 1)[-1] == kind]
        rels.sort(key=lambda rel: (len(rel.rId), rel.rId))
        return [PartRef(rel.target_part) for rel in rels]


_STRICT = [(b"http://purl.oclc.org/ooxml/wordprocessingml/main",
            b"http://schemas.openxmlformats.org/wordprocessingml/2006/main"),
           (b"http://purl.oclc.org/ooxml/officeDocument/relationships",
            b"http://schemas.openxmlformats.org/officeDocument/2006/relationships"),
           (b"http://purl.oclc.org/ooxml/officeDocument/math",
            b"http://schemas.openxmlformats.org/officeDocument/2006/math"),
           (b"http://purl.oclc.org/ooxml/drawingml/main",
            b"http://schemas.openxmlformats.org/drawingml/2006/main"),
           (b"http://purl.oclc.org/ooxml/drawingml/wordprocessingDrawing",
            b"http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"),
           (b"http://purl.oclc.org/ooxml/drawingml/picture",
            b"http://schemas.openxmlformats.org/drawingml/2006/picture")]


def transitional(data: bytes) -> bytes:
    """Strict OOXML (ISO 29500 strict) spelled with the transitional namespaces we read."""
    if b"purl.oclc.org/ooxml/" in data:
        for strict, trans in _STRICT:
            data = data.replace(strict, trans)
    return data


class ZipPartRef:
    """The same view as :class:`PartRef`, read straight from the zip.

    Used only when python-docx refuses a package because one secondary part is broken
    or missing (it loads every part eagerly); the body can still be read.
    """

    __slots__ = ("_zip", "name", "_xml", "_rels")

    def __init__(self, zf, name: str):
        self._zip = zf
        self.name = name
        self._xml = None
        self._rels = None

    @property
    def ext(self) -> str:
        base = self.name.rsplit("/", 1)[-1]
        return base.rsplit(".", 1)[-1] if "." in base else "bin"

    def blob(self) -> bytes:
        return self._zip.read(self.name.lstrip("/"))

    @property
    def content_type(self) -> str:
        """Guessed from the extension ([Content_Types].xml is not consulted here)."""
        return {"html": "text/html", "htm": "text/html", "xhtml": "application/xhtml+xml",
                "txt": "text/plain", "rtf": "application/rtf"}.get(self.ext.lower(), "")

    def xml(self):
        if self._xml is None:
            self._xml = parse_xml(transitional(self.blob()))
        return self._xml

    def _relationships(self) -> dict:
        if self._rels is None:
            self._rels = {}
            folder, base = posixpath.split(self.name)
            rels_name = posixpath.join(folder, "_rels", base + ".rels").lstrip("/")
            try:
                root = parse_xml(self._zip.read(rels_name))
            except Exception:
                return self._rels
            for rel in root:
                rid, target = rel.get("Id"), rel.get("Target") or ""
                if not rid:
                    continue
                external = (rel.get("TargetMode") or "").lower() == "external"
                if not external:
                    target = (target if target.startswith("/")
                              else posixpath.normpath(posixpath.join(folder, target)))
                    target = "/" + target.lstrip("/")
                self._rels[rid] = (rel.get("Type") or "", target, external)
        return self._rels

    def external_target(self, rid: str) -> str | None:
        rel = self._relationships().get(rid)
        return rel[1] if rel and rel[2] else None

    def _exists(self, name: str) -> bool:
        try:
            self._zip.getinfo(name.lstrip("/"))
            return True
        except KeyError:
            return False

    def related(self, rid: str) -> "ZipPartRef | None":
        rel = self._relationships().get(rid)
        if rel is None or rel[2] or not self._exists(rel[1]):
            return None
        return ZipPartRef(self._zip, rel[1])

    def related_by_type(self, kind: str) -> list["ZipPartRef"]:
        rels = sorted(((rid, rel) for rid, rel in self._relationships().items()
                       if not rel[2] and rel[0].rsplit("/", 1)[-1] == kind),
                      key=lambda item: (len(item[0]), item[0]))
        return [ZipPartRef(self._zip, rel[1]) for _, rel in rels if self._exists(rel[1])]


def _open_leniently(path: str | Path) -> ZipPartRef | None:
    """The main part straight from the zip, if it is there and its XML parses."""
    try:
        zf = zipfile.ZipFile(str(path))
        package = ZipPartRef(zf, "/")
        package.name = "/"
        rels = package._relationships()
        for rtype, target, external in rels.values():
            if not external and rtype.endswith("/officeDocument"):
                main = ZipPartRef(zf, target)
                main.xml()
                return main
    except Exception:
        return None
    return None


def open_main_part(path: str | Path) -> tuple["PartRef | ZipPartRef", list[str]]:
    """Open the package and return its main document part, with any warnings.

    python-docx opens it; if python-docx refuses (it loads every part, so one broken
    part is enough) but the main document itself is readable, the zip is read
    directly and a warning says so. Otherwise: :class:`InputError`.
    """
    from docx.package import Package
    try:
        package = Package.open(str(path))
        return PartRef(package.main_document_part), []
    except Exception as exc:  # python-docx raises many kinds; the user needs one line
        reason = " ".join(str(exc).split()) or type(exc).__name__
    main = _open_leniently(path)
    if main is not None and main.xml().find(f"{{{_W_NS}}}body") is not None:
        return main, [f"python-docx could not open the package ({reason[:200]}); "
                      "read the parts that are intact"]
    raise InputError(f"{Path(path).name}: not a readable Word document ({reason[:200]})")
