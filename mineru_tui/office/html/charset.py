"""Which character set an HTML (or CSV) file is written in.

The order is the HTML standard's, with one check added: a byte-order mark; then what the
transport says (an MHTML part's ``charset``); then the document's own declaration (``<meta
charset>``, ``<meta http-equiv="Content-Type">`` or an XML declaration, looked for in the
first 4 KiB); then a statistical detector (``charset-normalizer``) on a bounded sample.

A declaration is trusted only as far as the bytes allow: text declared as a single-byte
Western set (Latin-1, cp1252, ASCII) that is valid UTF-8 with non-ASCII letters is UTF-8
(a page saved as UTF-8 without updating its ``<meta>``), a declared UTF-8 that does not
decode goes to the detector, and a Western declaration on text the detector reads as
clearly another script (an Arabic page declared ``iso-8859-1``) gives way to the detector.
"""

from __future__ import annotations

import codecs
import re

_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF32_LE, "utf-32"),
         (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))
_META = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)""", re.I)
_XML_DECL = re.compile(rb"""^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9_.\-]+)["']""")
_WESTERN = {"latin-1", "iso8859-1", "cp1252", "ascii", "iso8859-15"}
_WIDE = ["utf_16", "utf_16_be", "utf_16_le", "utf_32", "utf_32_be", "utf_32_le", "utf_7"]
SAMPLE = 256 << 10  # bytes the detector looks at; enough to tell scripts apart


def bom_encoding(data: bytes) -> str | None:
    """The encoding a byte-order mark at the start of ``data`` names, if any."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    return None


def codec(name: str | None) -> str | None:
    """Python's canonical codec name for a declared charset; None when unknown.

    HTML says a declared ``iso-8859-1`` or ``ascii`` means windows-1252 (browsers have always
    read it so), and ``utf-16`` declared inside the bytes means UTF-8 (the bytes parsed).
    """
    if not name:
        return None
    try:
        found = codecs.lookup(name.strip().strip("\"'").lower()).name
    except (LookupError, ValueError):
        return None
    if found in ("latin-1", "iso8859-1", "ascii"):
        return "cp1252"
    return found


def declared_encoding(data: bytes) -> str | None:
    """The charset the document declares in its first 4 KiB (meta or XML declaration)."""
    head = data[:4096]
    m = _XML_DECL.match(head) or _META.search(head)
    name = codec(m.group(1).decode("ascii", "replace")) if m else None
    if name and name.startswith("utf-16"):
        return "utf-8"
    return name


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        return e.start >= len(data) - 3  # a sample cut inside the last character
    return True


def detect_encoding(data: bytes, transport: str | None = None, declared: bool = True) -> str:
    """The codec to decode ``data`` with (always one Python knows).

    ``transport`` is a charset given outside the bytes (an MHTML part's header);
    ``declared`` says whether to look for an in-document declaration (HTML, not CSV).
    """
    bom = bom_encoding(data)
    if bom:
        return bom
    sample = data[:SAMPLE]
    name = codec(transport) or (declared_encoding(data) if declared else None)
    non_ascii = any(b >= 0x80 for b in sample)
    if not non_ascii:
        return name or "utf-8"
    if name in (None, "cp1252", "iso8859-15") and _utf8(sample):
        return "utf-8"
    if name == "utf-8":
        return "utf-8" if _utf8(sample) else _detector(sample, None)
    if name is not None and name not in _WESTERN:
        try:
            sample.decode(name)
            return name
        except UnicodeDecodeError:
            return _detector(sample, name)
    return _detector(sample, name)


def _detector(sample: bytes, declared: str | None) -> str:
    """charset-normalizer's best reading, unless the declared one reads as well."""
    from charset_normalizer import from_bytes

    # Without a byte-order mark, UTF-16/32 text has NUL bytes (its ASCII letters); UTF-7 is
    # a mail encoding. Excluded, so a short Shift-JIS line is not taken for UTF-16.
    exclude = [] if b"\x00" in sample else _WIDE
    best = from_bytes(sample, cp_exclusion=exclude).best()
    if best is None:
        return declared or "cp1252"
    found = codec(best.encoding) or "cp1252"
    if declared is None or found == declared:
        return found
    try:
        mine = from_bytes(sample, cp_isolation=[declared]).best()
    except Exception:  # a codec charset-normalizer does not know
        mine = None
    if mine is not None and mine.chaos <= best.chaos + 0.05:
        return declared
    return found


def decode(data: bytes, encoding: str) -> str:
    """``data`` as text; undecodable bytes become U+FFFD, never an error."""
    return data.decode(encoding, "replace")
