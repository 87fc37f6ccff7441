"""A small, lazy OPC (zip package) reader for .pptx: parts, content types, relationships.

Why not ``pptx.Presentation``: python-pptx parses every XML part of the package when it
opens it, so one corrupt chart or diagram part makes the whole file unreadable, and its
import alone costs ~0.2 s. Here a part is read and parsed only when the reader asks for
it, and a broken part is an exception for that part only (the caller turns it into a
warning). The XML parser never resolves entities nor touches the network.
"""

from __future__ import annotations

import posixpath
import zipfile
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from mineru_tui.errors import InputError

_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False,
                          remove_blank_text=False)

NS_PR = "http://schemas.openxmlformats.org/package/2006/relationships"
NS_CT = "http://schemas.openxmlformats.org/package/2006/content-types"

# Part extensions to image file extensions (content type wins when it is known).
_IMAGE_TYPES = {
    "image/png": "png", "image/jpeg": "jpg", "image/jpg": "jpg", "image/gif": "gif",
    "image/bmp": "bmp", "image/tiff": "tiff", "image/x-emf": "emf", "image/x-wmf": "wmf",
    "image/svg+xml": "svg", "image/webp": "webp", "image/x-icon": "ico",
}


# Strict OOXML namespaces and their transitional twins: strict parts are read as if
# they were transitional (the element vocabulary is the same).
_STRICT = (
    (b"http://purl.oclc.org/ooxml/presentationml/main",
     b"http://schemas.openxmlformats.org/presentationml/2006/main"),
    (b"http://purl.oclc.org/ooxml/drawingml/main",
     b"http://schemas.openxmlformats.org/drawingml/2006/main"),
    (b"http://purl.oclc.org/ooxml/drawingml/chart",
     b"http://schemas.openxmlformats.org/drawingml/2006/chart"),
    (b"http://purl.oclc.org/ooxml/drawingml/diagram",
     b"http://schemas.openxmlformats.org/drawingml/2006/diagram"),
    (b"http://purl.oclc.org/ooxml/officeDocument/relationships",
     b"http://schemas.openxmlformats.org/officeDocument/2006/relationships"),
    (b"http://purl.oclc.org/ooxml/officeDocument/math",
     b"http://schemas.openxmlformats.org/officeDocument/2006/math"),
)


def _from_strict(data: bytes) -> bytes:
    for strict, transitional in _STRICT:
        data = data.replace(strict + b'"', transitional + b'"')
    return data


class PartError(Exception):
    """A part that is missing or cannot be parsed (the message says which)."""


@dataclass(frozen=True)
class Rel:
    """One relationship: ``type`` is the full URI, ``target`` a part name or a URL."""

    rid: str
    type: str
    target: str
    external: bool

    def is_a(self, kind: str) -> bool:
        """True when the relationship type ends with ``/kind`` (transitional or strict)."""
        return self.type.endswith("/" + kind)


class Package:
    """An open OPC zip: parse parts on demand, cache them, resolve relationships."""

    def __init__(self, path: str | Path):
        try:
            self._zip = zipfile.ZipFile(path)
        except (OSError, zipfile.BadZipFile, ValueError) as exc:
            raise InputError(f"{Path(path).name}: cannot open as a PowerPoint file ({exc})") from None
        self._names = {n.lstrip("/"): n for n in self._zip.namelist()}
        self._xml: dict[str, etree._Element] = {}
        self._rels: dict[str, dict[str, Rel]] = {}
        self._types = self._content_types()

    def close(self) -> None:
        self._zip.close()

    # -- raw access ----------------------------------------------------------------

    def has(self, partname: str) -> bool:
        return partname.lstrip("/") in self._names

    def blob(self, partname: str) -> bytes:
        """The part's bytes; :class:`PartError` when it is missing or unreadable."""
        name = self._names.get(partname.lstrip("/"))
        if name is None:
            raise PartError(f"missing part {partname}")
        try:
            return self._zip.read(name)
        except Exception as exc:  # zlib/CRC/zip errors: one broken member only
            raise PartError(f"unreadable part {partname}: {exc}") from None

    def xml(self, partname: str) -> etree._Element:
        """The part parsed as XML (cached); :class:`PartError` when it is broken."""
        key = partname.lstrip("/")
        root = self._xml.get(key)
        if root is None:
            data = self.blob(key)
            if b"purl.oclc.org/ooxml/" in data:
                data = _from_strict(data)
            try:
                root = etree.fromstring(data, _PARSER)
            except etree.XMLSyntaxError as exc:
                raise PartError(f"corrupt XML in {partname}: {exc}") from None
            self._xml[key] = root
        return root

    def content_type(self, partname: str) -> str:
        key = partname.lstrip("/")
        return self._types.get(key) or self._types.get(
            "." + posixpath.splitext(key)[1].lstrip(".").lower(), "")

    def image_ext(self, partname: str) -> str:
        """A file extension for an image part, from its content type or its name."""
        ext = _IMAGE_TYPES.get(self.content_type(partname).lower())
        if ext:
            return ext
        return posixpath.splitext(partname)[1].lstrip(".").lower() or "bin"

    # -- relationships -------------------------------------------------------------

    def rels(self, partname: str) -> dict[str, Rel]:
        """The part's relationships by id (empty when it has none or they are broken)."""
        key = partname.lstrip("/")
        found = self._rels.get(key)
        if found is not None:
            return found
        folder, base = posixpath.split(key)
        rels_name = posixpath.join(folder, "_rels", base + ".rels")
        found = {}
        if self.has(rels_name):
            try:
                root = self.xml(rels_name)
            except PartError:
                root = None
            for el in (root if root is not None else ()):
                if el.tag != f"{{{NS_PR}}}Relationship":
                    continue
                rid, target = el.get("Id"), el.get("Target") or ""
                external = el.get("TargetMode") == "External"
                if not rid:
                    continue
                if not external:
                    if target.startswith("/"):
                        target = target.lstrip("/")
                    else:
                        target = posixpath.normpath(posixpath.join(folder, target))
                found[rid] = Rel(rid, el.get("Type") or "", target, external)
        self._rels[key] = found
        return found

    def related(self, partname: str, kind: str) -> str | None:
        """The part name of the first internal relationship of ``kind`` (e.g. "slideLayout")."""
        for rel in self.rels(partname).values():
            if rel.is_a(kind) and not rel.external:
                return rel.target
        return None

    def _content_types(self) -> dict[str, str]:
        out: dict[str, str] = {}
        try:
            root = self.xml("[Content_Types].xml")
        except PartError:
            return out
        for el in root:
            tag = etree.QName(el).localname if isinstance(el.tag, str) else ""
            if tag == "Default" and el.get("Extension"):
                out["." + el.get("Extension").lower()] = el.get("ContentType", "")
            elif tag == "Override" and el.get("PartName"):
                out[el.get("PartName").lstrip("/")] = el.get("ContentType", "")
        return out


# ---------------------------------------------------------------------------------------
# Namespaces of PresentationML / DrawingML, and a tag helper

NS = {
    "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
    "p": "http://schemas.openxmlformats.org/presentationml/2006/main",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "c": "http://schemas.openxmlformats.org/drawingml/2006/chart",
    "dgm": "http://schemas.openxmlformats.org/drawingml/2006/diagram",
    "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006",
    "a14": "http://schemas.microsoft.com/office/drawing/2010/main",
    "m": "http://schemas.openxmlformats.org/officeDocument/2006/math",
}


def q(tag: str) -> str:
    """``"a:p"`` → ``"{http://...drawingml/2006/main}p"``."""
    prefix, _, local = tag.partition(":")
    return f"{{{NS[prefix]}}}{local}"


def local(el) -> str:
    """An element's local name ("" for comments and processing instructions)."""
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rpartition("}")[2]


R_ID = q("r:id")
R_EMBED = q("r:embed")
R_LINK = q("r:link")
