"""Decide what a file is from its bytes (never its name), and refuse what cannot be read.

:func:`detect` returns a :class:`Detected` for inputs this tool recognises and raises
:class:`~mineru_tui.errors.InputError` (one line) for everything else: a missing or empty
file, an unknown type, a corrupt or truncated zip, a zip bomb, a password-protected Office
file.

Office files are OOXML zips; their kind comes from the content type of the package's main
part (``[Content_Types].xml``), so a ``.docm`` or ``.dotx`` is read as Word and a ``.xlsm``
as Excel, whatever the file is called. An OpenDocument zip is known by its ``mimetype``
member, a legacy ``.doc``/``.xls``/``.ppt`` by the streams of its OLE compound file, an RTF
file by its ``{\\rtf`` start.

Zip limits (see :class:`ZipLimits`) are checked on the central directory before any reader
decompresses anything: the sum of the declared uncompressed sizes, the number of members and
the compression ratio of large members. The declared sizes are also what bounds reading:
Python's :mod:`zipfile`, which the Office readers (:mod:`mineru_tui.office.package`) read through, never
returns more than a member's declared size and fails the CRC check when the data do not
match, so a member that lies about its size cannot inflate past the limit.
"""

from __future__ import annotations

import os
import re
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from mineru_tui.errors import InputError, os_reason
from mineru_tui.kinds import DIRECT_KINDS
from mineru_tui.kinds import PAGE_KINDS as _PAGE_KINDS

KIND_DOCX = "docx"
KIND_PPTX = "pptx"
KIND_XLSX = "xlsx"
KIND_PDF = "pdf"
KIND_IMAGE = "image"
# Web and text formats, read directly like Office files (mineru_tui/office/html, epub, csv).
KIND_HTML, KIND_MHTML, KIND_EPUB, KIND_CSV = "html", "mhtml", "epub", "csv"
# OpenDocument, RTF and the legacy binary Office formats: read directly too.
KIND_ODT, KIND_ODS, KIND_ODP = "odt", "ods", "odp"
KIND_RTF = "rtf"
KIND_DOC, KIND_XLS, KIND_PPT = "doc", "xls", "ppt"

# Which kinds are read from their structure and which page by page with the model: the
# table of kinds says (mineru_tui/kinds.py), once for detection, reading and progress.
OFFICE_KINDS = DIRECT_KINDS
PAGE_KINDS = _PAGE_KINDS  # read page by page with the model
# What a user may hand in, in the words of the error lines that list it (one list for all).
SUPPORTED = (".docx, .pptx, .xlsx, .odt, .ods, .odp, .rtf, .doc, .xls, .ppt, PDF, PNG, JPEG, "
             "TIFF, WebP, BMP, HTML, MHTML, EPUB, CSV/TSV")


class RecognisedError(InputError):
    """A file recognised as a document this version cannot read (password-protected, .xlsb,
    an OpenDocument kind other than text, spreadsheet or presentation). Folder walks report
    these instead of skipping them quietly."""


# Names that mark a file as meant to be a document, so that a broken one found in a folder
# is reported rather than skipped. Only a hint for reporting: the type comes from the bytes.
DOCUMENT_SUFFIXES = frozenset({
    ".docx", ".docm", ".dotx", ".dotm", ".pptx", ".pptm", ".ppsx", ".ppsm", ".potx", ".potm",
    ".xlsx", ".xlsm", ".xltx", ".xltm", ".xlsb", ".doc", ".dot", ".xls", ".xlt", ".ppt", ".pps",
    ".pot", ".pdf", ".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".bmp", ".odt", ".ods",
    ".odp", ".rtf", ".ott", ".ots", ".otp", ".odg"})
DOCUMENT_SUFFIXES |= {".html", ".htm", ".xhtml", ".xht", ".mht", ".mhtml", ".epub", ".csv",
                      ".tsv", ".tab"}  # web and text formats


def is_reported(path: Path, error: InputError) -> bool:
    """Whether a folder walk (``parse DIR``, ``watch``) reports a file that ``detect`` refused
    with ``error``, instead of skipping it quietly as "not a document": a file recognised as a
    document, or one named like one."""
    return isinstance(error, RecognisedError) or path.suffix.lower() in DOCUMENT_SUFFIXES


@dataclass(frozen=True)
class Detected:
    """What a file is: ``kind`` is one of docx/pptx/xlsx/odt/ods/odp/rtf/doc/xls/ppt/pdf/image;
    ``subtype`` refines it ("docm", "dotx", "xlsm", "ott", "png", "jpeg"...)."""

    kind: str
    subtype: str


@dataclass(frozen=True)
class ZipLimits:
    """What an OOXML zip may declare before it is refused as a zip bomb.

    ``max_total`` bounds the sum of the members' uncompressed sizes (1 GiB), ``max_members``
    the number of members, and ``max_ratio`` the uncompressed/compressed ratio of any member
    larger than ``ratio_min_size`` (small members compress absurdly well and are harmless).
    Ordinary Office XML compresses 5-50:1; deflate cannot exceed about 1030:1.
    """

    max_total: int = 1 << 30
    max_members: int = 20_000
    max_ratio: float = 200.0
    ratio_min_size: int = 16 << 20


DEFAULT_LIMITS = ZipLimits()

# Main-part content types (the part that _rels/.rels names as officeDocument).
_MAIN_TYPES = {
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml": (KIND_DOCX, "docx"),
    "application/vnd.ms-word.document.macroenabled.main+xml": (KIND_DOCX, "docm"),
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml": (KIND_DOCX, "dotx"),
    "application/vnd.ms-word.template.macroenabledtemplate.main+xml": (KIND_DOCX, "dotm"),
    "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml": (KIND_PPTX, "pptx"),
    "application/vnd.ms-powerpoint.presentation.macroenabled.main+xml": (KIND_PPTX, "pptm"),
    "application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml": (KIND_PPTX, "ppsx"),
    "application/vnd.ms-powerpoint.slideshow.macroenabled.main+xml": (KIND_PPTX, "ppsm"),
    "application/vnd.openxmlformats-officedocument.presentationml.template.main+xml": (KIND_PPTX, "potx"),
    "application/vnd.ms-powerpoint.template.macroenabled.main+xml": (KIND_PPTX, "potm"),
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml": (KIND_XLSX, "xlsx"),
    "application/vnd.ms-excel.sheet.macroenabled.main+xml": (KIND_XLSX, "xlsm"),
    "application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml": (KIND_XLSX, "xltx"),
    "application/vnd.ms-excel.template.macroenabled.main+xml": (KIND_XLSX, "xltm"),
}

_ENCRYPTED = ("password-protected (encrypted) Office file: remove the password in Office "
              "(File > Info > Protect) and save a copy, then parse that")

_HEAD = 1024  # bytes read to sniff a type


def detect(path: str | os.PathLike, limits: ZipLimits = DEFAULT_LIMITS) -> Detected:
    """Identify ``path`` by its content; raise :class:`InputError` when it cannot be parsed.

    Reads the first kilobyte, then only what the type needs: the zip directory and members
    (bounded by ``limits``), or an OLE file's directory sectors (bounded). A FIFO, socket or
    device is refused without being read (opening is non-blocking).
    """
    p = Path(path)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise InputError("no such file") from None
    except IsADirectoryError:
        raise InputError("is a folder, not a file") from None
    except OSError as e:
        raise InputError(f"cannot read the file: {os_reason(e)}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputError("is a folder, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"not a regular file ({_file_type(st.st_mode)})")
        if st.st_size == 0:
            raise InputError("empty file")
        head = os.read(fd, _HEAD)
    except OSError as e:
        raise InputError(f"cannot read the file: {os_reason(e)}") from None
    finally:
        os.close(fd)

    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return _detect_zip(p, limits)
    if head.startswith(_CFB_MAGIC):
        return _detect_cfb(p)
    # A magic number at offset 0 wins: PDF readers accept "%PDF-" anywhere in the first
    # kilobyte, but a PNG whose text chunk mentions "%PDF-" is a PNG.
    image = None if head.startswith(b"%PDF-") else _image_type(head)
    if image:
        return Detected(KIND_IMAGE, image)
    if b"%PDF-" in head:
        return Detected(KIND_PDF, "pdf")
    if head.startswith(b"{\\rtf"):  # before the text formats: RTF is text too
        return Detected(KIND_RTF, "rtf")
    web = detect_text(p, head)
    if web is not None:
        return web
    raise InputError(f"unknown file type (supported: {SUPPORTED})")


def _file_type(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"


# ---------------------------------------------------------------------------------------
# Images


# The one picture sniffer of the package: page images here, and every picture a document
# holds (office/pictures.py, the HTTP engines' data URLs). A name or a declared type is
# never enough: a script named ``x.png`` or a text file starting ``BM`` is no picture.
PAGE_IMAGE_TYPES = ("png", "jpeg", "tiff", "webp", "bmp")  # what the page reader reads
RASTER_TYPES = PAGE_IMAGE_TYPES + ("gif",)  # what an image model server accepts
_EXTENSIONS = {"jpeg": "jpg"}  # a picture type's file extension, where it differs
_BMP_HEADER_SIZES = (12, 40, 52, 56, 64, 108, 124)  # BITMAPCOREHEADER ... BITMAPV5HEADER


def image_type(data: bytes) -> str | None:
    """The picture type of ``data`` from its first bytes — png, jpeg, gif, bmp, tiff, webp,
    ico, avif or svg — or None when it is not a picture a viewer shows."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "gif"
    if data.startswith((b"II*\x00", b"MM\x00*")):
        return "tiff"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    # "BM" alone would match text files; a bitmap also has a known DIB header size.
    if len(data) >= 18 and data[:2] == b"BM":
        return "bmp" if struct.unpack_from("<I", data, 14)[0] in _BMP_HEADER_SIZES else None
    if data.startswith(b"\x00\x00\x01\x00"):
        return "ico"
    if data[4:12] in (b"ftypavif", b"ftypavis"):
        return "avif"
    head = data[:1024].lstrip().lower()
    if head.startswith((b"<svg", b"<?xml")) and b"<svg" in head:
        return "svg"
    return None


def image_ext(data: bytes) -> str | None:
    """A file extension for the picture ``data`` is (``jpg`` for JPEG), or None."""
    kind = image_type(data)
    return _EXTENSIONS.get(kind, kind) if kind else None


def image_format(data: bytes) -> str:
    """The raster type of ``data`` for an image model server (``image/<type>``); raises
    ValueError for anything else."""
    kind = image_type(data)
    if kind not in RASTER_TYPES:
        raise ValueError("not an image (unknown format)")
    return kind


def _image_type(head: bytes) -> str | None:
    """The type of a page image (a file the page reader reads), or None."""
    kind = image_type(head)
    return kind if kind in PAGE_IMAGE_TYPES else None


# ---------------------------------------------------------------------------------------
# OOXML zips


def _detect_zip(p: Path, limits: ZipLimits) -> Detected:
    try:
        zf = zipfile.ZipFile(p)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError) as e:
        why = "it has no zip directory" if "not a zip file" in str(e) else "its zip directory is damaged"
        raise InputError(f"corrupt or truncated zip file: {why}", _detail(e)) from None
    with zf:
        infos = zf.infolist()
        check_zip_limits(infos, limits)
        names = {i.filename for i in infos}
        if "[Content_Types].xml" not in names:
            if "mimetype" in names:
                mime = _read_member(zf, "mimetype", 200).decode("ascii", "replace").strip()
                if mime.startswith("application/vnd.oasis.opendocument."):
                    _check_crcs(zf, infos)
                    return _odf_kind(mime)
            if _is_epub(zf, names):
                _check_crcs(zf, infos)
                return Detected(KIND_EPUB, "epub")
            raise InputError("a zip archive but not an Office document "
                             "(it has no [Content_Types].xml)")
        main = _main_part_type(zf)
        if main is None:
            raise InputError("an Office Open XML package without a Word, PowerPoint or "
                             "Excel main part")
        if main in ("application/vnd.ms-excel.sheet.binary.macroenabled.main",):
            raise RecognisedError("binary Excel workbook (.xlsb): not supported; save it as .xlsx")
        if main not in _MAIN_TYPES:
            raise InputError(f"unsupported Office package type ({main})")
        _check_crcs(zf, infos)
        kind, subtype = _MAIN_TYPES[main]
        return Detected(kind, subtype)


def check_zip_limits(infos: list[zipfile.ZipInfo], limits: ZipLimits = DEFAULT_LIMITS) -> None:
    """Refuse a zip whose central directory declares absurd sizes (a zip bomb)."""
    if len(infos) > limits.max_members:
        raise InputError(f"refused: zip has {len(infos)} members "
                         f"(limit {limits.max_members}); possibly a zip bomb")
    total = 0
    for info in infos:
        total += info.file_size
        if total > limits.max_total:
            raise InputError(f"refused: zip declares over {_size(limits.max_total)} "
                             f"uncompressed; possibly a zip bomb")
        if info.file_size > limits.ratio_min_size:
            ratio = info.file_size / max(info.compress_size, 1)
            if ratio > limits.max_ratio:
                raise InputError(f"refused: zip member {info.filename!r} expands "
                                 f"{ratio:.0f}:1 to {_size(info.file_size)}; "
                                 f"possibly a zip bomb")


def _detail(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


def _size(n: int) -> str:
    if n >= 1 << 30:
        return f"{n / (1 << 30):.1f} GiB"
    if n >= 1 << 20:
        return f"{n / (1 << 20):.1f} MiB"
    return f"{n} bytes"


def _read_member(zf: zipfile.ZipFile, name: str, limit: int) -> bytes:
    try:
        with zf.open(name) as f:
            return f.read(limit)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError,
            NotImplementedError) as e:
        raise InputError(f"corrupt or truncated zip file: its part {name!r} is damaged",
                         _detail(e)) from None
    except RuntimeError as e:  # e.g. "encrypted, password required"
        raise InputError(f"an encrypted zip: its part {name!r} needs a password",
                         _detail(e)) from None


def _main_part_type(zf: zipfile.ZipFile) -> str | None:
    """Content type of the officeDocument part (falls back to any known main type)."""
    from xml.etree import ElementTree as ET  # stdlib; small XML, parsed once

    def parse(name: str):
        data = _read_member(zf, name, 4 << 20)
        if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
            raise InputError(f"refused: {name} declares a DTD or entities")
        try:
            return ET.fromstring(data)
        except ET.ParseError as e:
            raise InputError(f"not a readable Office file: its {name} is malformed XML",
                             _detail(e)) from None

    ct = parse("[Content_Types].xml")
    overrides: dict[str, str] = {}
    defaults: dict[str, str] = {}
    for el in ct:
        tag = el.tag.rsplit("}", 1)[-1]
        if tag == "Override":
            overrides[el.get("PartName", "").lower()] = el.get("ContentType", "").lower()
        elif tag == "Default":
            defaults[el.get("Extension", "").lower()] = el.get("ContentType", "").lower()

    target = None
    if "_rels/.rels" in zf.NameToInfo:
        for rel in parse("_rels/.rels"):
            if rel.get("Type", "").endswith("/officeDocument"):
                target = rel.get("Target", "")
                break
    if target:
        part = "/" + target.lstrip("/")
        # Resolve "./" and "../" segments of the package-relative target.
        segs: list[str] = []
        for seg in part.split("/")[1:]:
            if seg == "..":
                if segs:
                    segs.pop()
            elif seg not in ("", "."):
                segs.append(seg)
        part = "/" + "/".join(segs)
        ctype = overrides.get(part.lower())
        if ctype is None and "." in part:
            ctype = defaults.get(part.rsplit(".", 1)[1].lower())
        if ctype:
            return ctype
    for ctype in overrides.values():
        if ctype in _MAIN_TYPES or ctype.endswith(".binary.macroenabled.main"):
            return ctype
    return None


def _check_crcs(zf: zipfile.ZipFile, infos: list[zipfile.ZipInfo]) -> None:
    """Decompress every member once to catch truncated data and CRC mismatches early.

    Bounded by the zip limits checked before; costs about a millisecond per MiB.
    """
    for info in infos:
        if info.is_dir():
            continue
        try:
            with zf.open(info) as f:
                while f.read(1 << 20):
                    pass
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as e:
            raise InputError(f"corrupt or truncated zip file: its part {info.filename!r} "
                             f"is damaged", _detail(e)) from None
        except NotImplementedError as e:  # unsupported compression method
            raise InputError(f"its part {info.filename!r} uses a zip compression this tool "
                             f"cannot read", _detail(e)) from None
        except RuntimeError as e:
            raise InputError(f"an encrypted zip: its part {info.filename!r} needs a "
                             f"password", _detail(e)) from None


def _is_epub(zf: zipfile.ZipFile, names: set[str]) -> bool:
    """An EPUB: its ``mimetype`` member says so, or (a sloppy one without it) it has the
    ``META-INF/container.xml`` that names its package document."""
    if "mimetype" in names:
        mime = _read_member(zf, "mimetype", 200).decode("ascii", "replace").strip()
        if mime == "application/epub+zip":
            return True
        if mime:
            return False
    return "META-INF/container.xml" in names


# ---------------------------------------------------------------------------------------
# Text formats: HTML, MHTML, CSV/TSV (only when the bytes are no known binary format)

_HTML_SUFFIXES = (".html", ".htm", ".xhtml", ".xht", ".shtml")
_MHTML_SUFFIXES = (".mht", ".mhtml")
_CSV_SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv"}
_HTML_START = re.compile(rb"(?:\s|<!--.*?-->|<\?xml[^>]*\?>)*<(?:!doctype\s+html|html|head|body)[\s>/]",
                         re.I | re.S)
_HEADER_LINE = re.compile(rb"[A-Za-z][A-Za-z0-9-]*:")
_TEXT_HEAD = 8192  # bytes looked at to tell a text format


def detect_text(p: Path, head: bytes) -> Detected | None:
    """HTML, MHTML or CSV/TSV, or None.

    HTML is recognised by its content (a doctype, ``<html>``, ``<head>`` or ``<body>`` first,
    after comments and an XML declaration), whatever the name; an ``.html``-named text
    file is HTML too. MHTML is a MIME message whose headers name ``multipart/related``
    or ``text/html`` (or carry ``MIME-Version`` under an ``.mht`` name). CSV/TSV cannot be
    told from text by content, so the name decides there, for text only (no NUL bytes).
    """
    suffix = p.suffix.lower()
    if len(head) == _HEAD:
        try:
            with open(p, "rb") as f:
                head = f.read(_TEXT_HEAD)
        except OSError:
            pass
    text = _as_ascii(head)
    if text is None:
        return None
    if _HTML_START.match(text):
        return Detected(KIND_HTML, "xhtml" if b"xmlns" in text[:2048] else "html")
    headers = _mime_headers(text)
    if headers is not None:
        ctype = headers.get(b"content-type", b"").lower()
        if b"multipart/related" in ctype or (b"text/html" in ctype and b"mime-version" in headers) \
                or (suffix in _MHTML_SUFFIXES and b"mime-version" in headers):
            return Detected(KIND_MHTML, "mhtml")
    if not _looks_like_text(text):
        return None  # binary data under a text name
    if suffix in _HTML_SUFFIXES:
        return Detected(KIND_HTML, "xhtml" if suffix in (".xhtml", ".xht") else "html")
    if suffix in _CSV_SUFFIXES:
        return Detected(KIND_CSV, _CSV_SUFFIXES[suffix])
    return None


_CONTROL = bytes(range(0, 9)) + bytes(range(14, 32)) + b"\x7f"


def _looks_like_text(head: bytes) -> bool:
    """Text has (almost) no control bytes; random or compressed data has one in ten."""
    controls = len(head) - len(head.translate(None, _CONTROL))
    return controls <= len(head) // 100


def _as_ascii(head: bytes) -> bytes | None:
    """The head with a UTF-8/16 byte-order mark undone (UTF-16 narrowed to its ASCII
    bytes); None when it holds NUL bytes, so is no text."""
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    elif head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        codec = "utf-16-le" if head[:2] == b"\xff\xfe" else "utf-16-be"
        body = head[2:len(head) - (len(head) % 2)]
        return body.decode(codec, "replace").encode("ascii", "replace")
    if b"\x00" in head:
        return None
    return head


def _mime_headers(text: bytes) -> dict[bytes, bytes] | None:
    """The header fields of a MIME message at the start of ``text``, or None."""
    headers: dict[bytes, bytes] = {}
    last = None
    for line in text.splitlines()[:60]:
        if not line.strip():
            return headers if headers else None
        if line[:1] in (b" ", b"\t") and last is not None:
            headers[last] += b" " + line.strip()
            continue
        if not _HEADER_LINE.match(line):
            return None
        name, _, value = line.partition(b":")
        last = name.strip().lower()
        headers[last] = value.strip()
    return headers or None


# ---------------------------------------------------------------------------------------
# OLE compound files (CFB): encrypted OOXML or legacy binary Office


_ODF_TYPES = {"text": KIND_ODT, "text-template": KIND_ODT, "text-master": KIND_ODT,
              "text-web": KIND_ODT, "spreadsheet": KIND_ODS, "spreadsheet-template": KIND_ODS,
              "presentation": KIND_ODP, "presentation-template": KIND_ODP,
              "graphics": KIND_ODP, "graphics-template": KIND_ODP}
_ODF_SUBTYPES = {"text": "odt", "text-template": "ott", "text-master": "odm", "text-web": "oth",
                 "spreadsheet": "ods", "spreadsheet-template": "ots", "presentation": "odp",
                 "presentation-template": "otp", "graphics": "odg", "graphics-template": "otg"}


def _odf_kind(mime: str) -> Detected:
    """The kind of an OpenDocument package from its ``mimetype`` member."""
    sub = mime.removeprefix("application/vnd.oasis.opendocument.")
    if sub not in _ODF_TYPES:
        raise RecognisedError(f"OpenDocument {sub} file: not supported (text, spreadsheet "
                              "and presentation documents are)")
    return Detected(_ODF_TYPES[sub], _ODF_SUBTYPES[sub])


def _detect_cfb(p: Path) -> Detected:
    """An OLE compound file: a legacy Word, Excel or PowerPoint file, or refused."""
    try:
        names = cfb_stream_names(p)
    except ValueError as e:
        raise InputError("corrupt or truncated OLE compound file (the container of "
                         "legacy and encrypted Office files)", str(e)) from None
    except OSError as e:
        raise InputError(f"cannot read the file: {os_reason(e)}") from None
    lower = {n.lower() for n in names}
    if "encryptioninfo" in lower or "encryptedpackage" in lower:
        raise RecognisedError(_ENCRYPTED)
    if "worddocument" in lower:
        return Detected(KIND_DOC, "doc")
    if "workbook" in lower or "book" in lower:
        return Detected(KIND_XLS, "xls")
    if "powerpoint document" in lower:
        return Detected(KIND_PPT, "ppt")
    raise InputError("an OLE compound file that is not a Word, Excel or PowerPoint document")


_CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_FREESECT, _ENDOFCHAIN = 0xFFFFFFFF, 0xFFFFFFFE
_MAX_DIR_ENTRIES = 100_000
_MAX_CFB_READ = 16 << 20  # bytes of DIFAT, FAT and directory sectors read to find names


def cfb_stream_names(path: str | os.PathLike, max_read: int = _MAX_CFB_READ) -> list[str]:
    """Names of the entries in a CFB (OLE2) file's directory, in directory order.

    A small reader of the [MS-CFB] header, DIFAT, FAT and directory chain: only names are
    needed, so stream data are never read, and only the sectors on the way are (at most
    ``max_read`` bytes, whatever the file's size). Every chain is guarded against loops and
    against lengths the file cannot hold. Raises ``ValueError`` on a broken file.
    """
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        header = f.read(512)
        if len(header) < 512 or not header.startswith(_CFB_MAGIC):
            raise ValueError("header too short")
        shift = struct.unpack_from("<H", header, 30)[0]
        if shift not in (9, 12):
            raise ValueError(f"bad sector shift {shift}")
        ssize = 1 << shift
        per = ssize // 4  # sector numbers per sector
        n_fat, first_dir = struct.unpack_from("<II", header, 44)
        first_difat, n_difat = struct.unpack_from("<II", header, 68)
        nsect = max(size - ssize, 0) // ssize  # sectors after the header
        budget = max_read

        def sector(i: int) -> bytes:
            nonlocal budget
            if i >= nsect:
                raise ValueError(f"sector {i} past end of file")
            budget -= ssize
            if budget < 0:
                raise ValueError(f"more than {max_read} bytes of directory structures")
            f.seek((i + 1) * ssize)
            data = f.read(ssize)
            if len(data) < ssize:
                raise ValueError(f"sector {i} truncated")
            return data

        def numbers(i: int) -> tuple[int, ...]:
            return struct.unpack(f"<{per}I", sector(i))

        # FAT sector numbers: 109 in the header, the rest along the DIFAT chain.
        if n_fat > nsect:
            raise ValueError(f"header declares {n_fat} FAT sectors in a file of {nsect}")
        fat_sectors = [s for s in struct.unpack_from("<109I", header, 76) if s != _FREESECT]
        d, seen = first_difat, set()
        while d not in (_ENDOFCHAIN, _FREESECT) and len(fat_sectors) < n_fat:
            if d in seen or len(seen) >= min(n_difat, nsect):
                raise ValueError("broken DIFAT chain (loops or runs past its length)")
            seen.add(d)
            ents = numbers(d)
            fat_sectors += [s for s in ents[:-1] if s != _FREESECT]
            d = ents[-1]
        del fat_sectors[max(n_fat, 1):]

        fat: dict[int, tuple[int, ...]] = {}  # FAT sectors read so far, by index

        def next_sector(s: int) -> int:
            k = s // per
            if k >= len(fat_sectors):
                raise ValueError(f"sector {s} is not covered by the FAT")
            if k not in fat:
                fat[k] = numbers(fat_sectors[k])
            return fat[k][s % per]

        names: list[str] = []
        s, visited = first_dir, set()
        while s != _ENDOFCHAIN:
            if s in visited:
                raise ValueError("broken directory chain (loops)")
            visited.add(s)
            chunk = sector(s)
            for off in range(0, ssize, 128):
                entry = chunk[off:off + 128]
                nlen = struct.unpack_from("<H", entry, 64)[0]
                etype = entry[66]
                if etype == 0 or not 2 <= nlen <= 64:
                    continue
                names.append(entry[:nlen - 2].decode("utf-16-le", "replace"))
                if len(names) > _MAX_DIR_ENTRIES:
                    raise ValueError("too many directory entries")
            s = next_sector(s)
    if not names:
        raise ValueError("empty directory")
    return names
