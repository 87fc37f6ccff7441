"""Word 6.0 and Word 95 documents (nFib 101-105): their text, paragraph by paragraph.

Their file information block differs from Word 97's: the text of a simple ("non-complex")
file lies between ``fcMin`` and ``ccpText`` single-byte characters later; a complex one
(fast-saved) has a piece table (``fcClx``/``lcbClx`` at 0x160) of single-byte pieces in the
WordDocument stream itself. Styles, tables and notes are not read: each paragraph (and each
table cell) becomes a paragraph. Characters are cp1252 (the Western code page these files
almost always use).
"""

from __future__ import annotations

import struct

from mineru_tui.document import Document, Page, text_span
from mineru_tui.office.doc.fib import strip_fields
from mineru_tui.office.flow import BREAK, Flow

MAX_CHARS = 50_000_000


def read_word6(word: bytes) -> Document:
    """The text of a Word 6/95 WordDocument stream as paragraphs (``ValueError`` if broken)."""
    if len(word) < 0x168:
        raise ValueError("file information block too short")
    flags = struct.unpack_from("<H", word, 0x0A)[0]
    fc_min = struct.unpack_from("<I", word, 0x18)[0]
    ccp_text = max(0, struct.unpack_from("<i", word, 0x34)[0])
    if ccp_text > MAX_CHARS:
        raise ValueError("too many characters")
    raw = b""
    if flags & 0x0004:  # complex: a piece table
        fc_clx, lcb_clx = struct.unpack_from("<II", word, 0x160)
        raw = _pieces(word, word[fc_clx:fc_clx + lcb_clx], ccp_text)
    if not raw:
        raw = word[fc_min:fc_min + ccp_text]
    text = raw.decode("cp1252", "replace")
    doc = Document(backend="office")
    flow = Flow()
    buf: list[str] = []
    for ch in strip_fields(text):
        if ch in "\r\x07\x0c":
            flow.paragraph([text_span("".join(buf))])
            buf.clear()
        elif ch == "\x0b":
            buf.append(BREAK)
        elif ch == "\t":
            buf.append(" ")
        elif ch >= " " or ch == "\xa0":
            buf.append(ch)
    if buf:
        flow.paragraph([text_span("".join(buf))])
    doc.pages.append(Page(page_idx=0, para_blocks=flow.finish()))
    doc.warnings.append("a Word 6.0/95 document: its text is read, without styles, tables "
                        "or notes")
    return doc


def _pieces(word: bytes, clx: bytes, count: int) -> bytes:
    pos = 0
    while pos < len(clx) and clx[pos] == 0x01:
        pos += 3 + struct.unpack_from("<H", clx, pos + 1)[0]
    if pos + 5 > len(clx) or clx[pos] != 0x02:
        return b""
    lcb = struct.unpack_from("<I", clx, pos + 1)[0]
    plc = clx[pos + 5:pos + 5 + lcb]
    n = (len(plc) - 4) // 12
    if n <= 0:
        return b""
    cps = struct.unpack_from(f"<{n + 1}I", plc, 0)
    out = bytearray()
    for i in range(n):
        fc = struct.unpack_from("<I", plc, 4 * (n + 1) + 8 * i + 2)[0] & 0x3FFFFFFF
        out += word[fc:fc + max(0, cps[i + 1] - cps[i])]
        if len(out) >= count:
            break
    return bytes(out[:count])
