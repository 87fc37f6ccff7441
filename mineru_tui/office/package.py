"""The OPC package under every .docx, .pptx and .xlsx: parts, content types, relationships.

One reader for the three formats. A part is read and parsed only when a reader asks for
it, so one broken part costs that part only: :meth:`Package.blob` and :meth:`Package.xml`
raise :class:`PartError` (one line naming the part), and each format reader decides what
that part's loss means (usually a warning in ``Document.warnings``). What makes the whole
file unreadable is an :class:`~mineru_tui.errors.InputError`:

* the zip cannot be opened, or the directory Python's :mod:`zipfile` found is not the
  file's own (a truncated package whose last intact directory is an embedded workbook's:
  the embedded file is never taken for the document);
* no main part (the ``officeDocument`` relationship of ``_rels/.rels``);
* the **parse budget** is spent: the decompressed bytes handed to parsers across all
  parts may not exceed :data:`PARSE_BUDGET` (see :class:`BudgetError`). The package
  raises a spent budget itself when it is closed (leaving its ``with`` block), so a
  reader that turned the failing part into a warning still fails the file: no reader
  has to remember to check.

XML is parsed with one hardened lxml set-up: no entities, no DTD, no network, no huge
trees. Strict OOXML (ISO 29500 strict) namespaces are read as their transitional twins.
Part names are matched exactly, then case-insensitively (as Office does).
"""

from __future__ import annotations

import posixpath
import zipfile
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from mineru_tui.errors import InputError, cut_warning

# Decompressed XML all parsers of one file may read together, per format. The cost of a
# byte depends on what the reader builds from it: a crafted Word body of one-letter
# paragraphs costs about 4 s and 55 MB per MiB in the Word reader, a worksheet about
# 0.2 s per MiB (and its cells are capped). docs/office-bench.md measures the bombs.
# Ordinary documents stay far below: a 500-page report is a few MiB of XML.
PARSE_BUDGET = {"docx": 32 << 20, "pptx": 32 << 20, "xlsx": 256 << 20,
                "odt": 32 << 20, "odp": 32 << 20, "ods": 256 << 20}
CACHE_MAX = 4 << 20  # parts larger than this are parsed for one use and not kept

PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False,
                         load_dtd=False)
RECOVER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False,
                          load_dtd=False, recover=True)

NS_PR = "http://schemas.openxmlformats.org/package/2006/relationships"
R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"

# Strict namespaces and their transitional twins (the element vocabulary is the same).
_STRICT = tuple((b"http://purl.oclc.org/ooxml/" + s, b"http://schemas.openxmlformats.org/" + t)
                for s, t in ((b"wordprocessingml/main", b"wordprocessingml/2006/main"),
                             (b"presentationml/main", b"presentationml/2006/main"),
                             (b"officeDocument/relationships",
                              b"officeDocument/2006/relationships"),
                             (b"officeDocument/math", b"officeDocument/2006/math"),
                             (b"drawingml/main", b"drawingml/2006/main"),
                             (b"drawingml/wordprocessingDrawing",
                              b"drawingml/2006/wordprocessingDrawing"),
                             (b"drawingml/picture", b"drawingml/2006/picture"),
                             (b"drawingml/chart", b"drawingml/2006/chart"),
                             (b"drawingml/diagram", b"drawingml/2006/diagram")))

# Image content types to file extensions (the part name's extension otherwise).
_IMAGE_TYPES = {
    "image/png": "png", "image/jpeg": "jpg", "image/jpg": "jpg", "image/gif": "gif",
    "image/bmp": "bmp", "image/tiff": "tiff", "image/x-emf": "emf", "image/x-wmf": "wmf",
    "image/svg+xml": "svg", "image/webp": "webp", "image/x-icon": "ico",
}


def local(el) -> str:
    """The local name of an element or a tag ("" for comments and processing instructions)."""
    tag = getattr(el, "tag", el)
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def transitional(data: bytes) -> bytes:
    """Strict OOXML bytes spelled with the transitional namespaces the readers know."""
    if b"purl.oclc.org/ooxml/" in data:
        for strict, trans in _STRICT:
            data = data.replace(strict + b'"', trans + b'"').replace(strict + b"'", trans + b"'")
    return data


def parse_xml(data: bytes):
    """Parse untrusted XML bytes with the hardened parser (raises ``XMLSyntaxError``)."""
    return etree.fromstring(data, PARSER)


class PartError(Exception):
    """One part is missing, unreadable or not well-formed XML (the message says which)."""


class BudgetError(InputError):
    """The file asks to parse more decompressed XML than :data:`PARSE_BUDGET` allows."""


@dataclass(frozen=True)
class Rel:
    """One relationship: ``type`` is the full URI, ``target`` a part name or a URL."""

    rid: str
    type: str
    target: str
    external: bool

    @property
    def kind(self) -> str:
        """The last segment of the type ("officeDocument", "image", "worksheet"...)."""
        return self.type.rstrip("/").rsplit("/", 1)[-1]

    def is_a(self, kind: str) -> bool:
        """True when the relationship type ends with ``/kind`` (transitional or strict)."""
        return self.type.endswith("/" + kind)


def resolve(folder: str, target: str) -> str:
    """A relationship target as a part name (targets are relative to the source's folder)."""
    target = target.replace("\\", "/")
    if target.startswith("/"):
        return posixpath.normpath(target.lstrip("/"))
    return posixpath.normpath(posixpath.join(folder, target)).lstrip("/")


class Package:
    """An open OPC zip: parts parsed on demand and cached, relationships, content types.

    Part names are given without a leading slash (``"word/document.xml"``); the root's
    relationships are ``rels("")``. ``kind`` ("docx", "pptx", "xlsx") picks the parse
    budget from :data:`PARSE_BUDGET`; ``budget`` (bytes) overrides it.
    """

    def __init__(self, path: str | Path, kind: str, budget: int | None = None):
        try:
            self._zip = zipfile.ZipFile(path)
        except (OSError, zipfile.BadZipFile, ValueError, EOFError, NotImplementedError) as exc:
            raise InputError("not a readable Office file (its zip structure is broken)",
                             _one_line(exc)) from None
        try:
            check_own_directory(self._zip)
        except InputError:
            self._zip.close()
            raise
        self._exact: dict[str, zipfile.ZipInfo] = {}
        self._lower: dict[str, zipfile.ZipInfo] = {}
        for info in self._zip.infolist():
            name = info.filename.replace("\\", "/").lstrip("/")
            self._exact[name] = info  # a repeated name: the last entry, as zipfile reads it
            self._lower.setdefault(name.lower(), info)
        self.budget = PARSE_BUDGET[kind] if budget is None else budget
        self.parsed = 0  # decompressed XML bytes handed to parsers so far
        self.over_budget: BudgetError | None = None
        self.warnings: list[str] = []
        self._xml: dict[str, etree._Element] = {}
        self._rels: dict[str, dict[str, Rel]] = {}
        self._types: dict[str, str] | None = None

    def close(self) -> None:
        self._zip.close()

    def __enter__(self) -> "Package":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        """Close; then a spent budget fails the file, whatever the reader made of it.

        An exception already on its way out is replaced by the budget (the budget is why
        the part failed); an interrupt is not.
        """
        self.close()
        if self.over_budget is not None and (exc is None or isinstance(exc, Exception)) \
                and exc is not self.over_budget:
            raise self.over_budget

    # -- parts ---------------------------------------------------------------------

    def _info(self, name: str) -> zipfile.ZipInfo | None:
        name = name.replace("\\", "/").lstrip("/")
        return self._exact.get(name) or self._lower.get(name.lower())

    def has(self, name: str) -> bool:
        return self._info(name) is not None

    def member(self, name: str) -> str | None:
        """The stored name of the member ``name`` resolves to (any spelling of its case),
        or None: one identity for every spelling of one member (office/pictures.py)."""
        info = self._info(name)
        return None if info is None else info.filename

    def size(self, name: str) -> int | None:
        """The member's declared uncompressed size (what reading it may cost), or None."""
        info = self._info(name)
        return None if info is None else info.file_size

    def names(self) -> list[str]:
        """The part names (first spelling of each, case-insensitively)."""
        return [info.filename.replace("\\", "/").lstrip("/") for info in self._lower.values()]

    def _spend(self, name: str, size: int) -> None:
        if self.over_budget is None and self.parsed + size > self.budget:
            self.over_budget = BudgetError(
                f"refused: the file holds more than {_mib(self.budget)} of XML to read "
                f"(the parse budget for this format; reached at {name}); possibly a "
                f"decompression bomb")
        if self.over_budget is not None:
            raise self.over_budget
        self.parsed += size

    def check_budget(self) -> None:
        """Raise the :class:`BudgetError` met while reading, if any (leaving the
        package's ``with`` block does this too)."""
        if self.over_budget is not None:
            raise self.over_budget

    def blob(self, name: str) -> bytes:
        """The part's bytes; :class:`PartError` when it is missing or unreadable."""
        info = self._info(name)
        if info is None:
            raise PartError(f"missing part {name}")
        try:
            return self._zip.read(info)
        except Exception as exc:  # zlib/CRC/zip errors: one broken member only
            raise PartError(f"unreadable part {name}: {_one_line(exc)}") from None

    def stream(self, name: str):
        """A readable stream of the part (for streaming parsers; the caller closes it)."""
        info = self._info(name)
        if info is None:
            raise PartError(f"missing part {name}")
        self._spend(name, info.file_size)
        try:
            return self._zip.open(info)
        except Exception as exc:  # bad compression method, encrypted entry...
            raise PartError(f"unreadable part {name}: {_one_line(exc)}") from None

    def xml(self, name: str) -> etree._Element:
        """The part parsed as XML (cached); :class:`PartError` when it is broken."""
        key = name.lstrip("/")
        root = self._xml.get(key)
        if root is None:
            info = self._info(key)
            if info is not None:
                self._spend(key, info.file_size)
            data = transitional(self.blob(key))
            try:
                root = etree.fromstring(data, PARSER)
            except etree.XMLSyntaxError as exc:
                raise PartError(f"corrupt XML in {name}: {_one_line(exc)}") from None
            if len(data) <= CACHE_MAX:
                self._xml[key] = root
        return root

    def xml_recovering(self, name: str) -> etree._Element | None:
        """The part's XML, or what a recovering parse still sees in damaged XML.

        Never raises: a missing part gives None, a broken one a warning (and None when
        nothing could be recovered).
        """
        try:
            return self.xml(name)
        except PartError as exc:
            if not self.has(name) or not str(exc).startswith("corrupt XML"):
                if self.has(name):
                    self.warnings.append(str(exc))
                return None
        try:
            root = etree.fromstring(transitional(self._zip.read(self._info(name))), RECOVER)
        except Exception:
            root = None
        self.warnings.append(f"{name}: corrupt XML" + (", read in recovery mode"
                                                       if root is not None else ", skipped"))
        return root

    def try_blob(self, name: str, limit: int | None = None) -> bytes | None:
        """The part's bytes, or None: missing (silently), larger than ``limit`` or
        unreadable (with a warning in :attr:`warnings`)."""
        info = self._info(name)
        if info is None:
            return None
        if limit is not None and info.file_size > limit:
            self.warnings.append(cut_warning(f"{name}: part too large ({info.file_size} bytes, "
                                             f"the limit is {limit}), skipped"))
            return None
        try:
            return self.blob(name)
        except PartError as exc:
            self.warnings.append(str(exc))
            return None

    def try_stream(self, name: str):
        """:meth:`stream`, or None: missing (silently) or unreadable (with a warning)."""
        if self._info(name) is None:
            return None
        try:
            return self.stream(name)
        except PartError as exc:
            self.warnings.append(str(exc))
            return None

    def content_type(self, name: str) -> str:
        """The part's content type from ``[Content_Types].xml`` (override, then default)."""
        if self._types is None:
            self._types = self._content_types()
        key = name.lstrip("/")
        info = self._info(key)
        if info is not None:
            found = self._types.get(info.filename.lstrip("/").lower())
            if found is not None:
                return found
        return self._types.get("." + posixpath.splitext(key)[1].lstrip(".").lower(), "")

    def image_ext(self, name: str) -> str:
        """A file extension for an image part, from its content type or its name."""
        ext = _IMAGE_TYPES.get(self.content_type(name).lower())
        if ext:
            return ext
        return posixpath.splitext(name)[1].lstrip(".").lower() or "bin"

    def _content_types(self) -> dict[str, str]:
        out: dict[str, str] = {}
        try:
            root = self.xml("[Content_Types].xml")
        except PartError:
            return out
        for el in root:
            tag = local(el)
            if tag == "Default" and el.get("Extension"):
                out["." + el.get("Extension").lower()] = el.get("ContentType", "")
            elif tag == "Override" and el.get("PartName"):
                out.setdefault(el.get("PartName").lstrip("/").lower(), el.get("ContentType", ""))
        return out

    # -- relationships -------------------------------------------------------------

    def rels(self, name: str) -> dict[str, Rel]:
        """The part's relationships by id (``""`` for the package root); empty when the
        part has none or its relationships part is broken."""
        key = name.lstrip("/")
        found = self._rels.get(key)
        if found is not None:
            return found
        folder, base = posixpath.split(key)
        rels_name = posixpath.join(folder, "_rels", base + ".rels")
        found = {}
        try:
            root = self.xml(rels_name) if self.has(rels_name) else None
        except PartError:
            root = None
        for el in (root if root is not None else ()):
            if local(el) != "Relationship":
                continue
            rid, target = el.get("Id"), el.get("Target") or ""
            if not rid:
                continue
            external = (el.get("TargetMode") or "").lower() == "external"
            found[rid] = Rel(rid, el.get("Type") or "", target if external
                             else resolve(folder, target), external)
        self._rels[key] = found
        return found

    def related(self, name: str, kind: str) -> str | None:
        """The part name of the first internal relationship of ``kind`` (e.g. "slideLayout")."""
        for rel in self.rels(name).values():
            if rel.is_a(kind) and not rel.external:
                return rel.target
        return None

    def main_part(self) -> str | None:
        """The document's main part: the root relationships' ``officeDocument`` target,
        when that part exists (None otherwise)."""
        for rel in self.rels("").values():
            if rel.is_a("officeDocument") and not rel.external and self.has(rel.target):
                return rel.target
        return None


def check_own_directory(zf: zipfile.ZipFile) -> None:
    """Refuse (:class:`InputError`) a zip whose directory is not the file's own.

    When a package is cut, its own end-of-directory record is lost and :mod:`zipfile`
    may find the record of a package stored inside it (an embedded workbook, uncompressed
    in ``ppt/embeddings/``). That directory's entries then start deep inside the file,
    where an OOXML package's entries start at byte 0.
    """
    infos = zf.infolist()
    if infos and min(info.header_offset for info in infos) > 0:
        raise InputError("damaged package: its zip directory is missing (the file looks "
                         "cut short); the only directory left belongs to a file embedded "
                         "in it, which is not the document")


def _mib(n: int) -> str:
    return f"{n / (1 << 20):g} MiB"


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200] or type(exc).__name__
