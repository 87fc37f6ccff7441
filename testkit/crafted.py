"""Small crafted files for the bounded-work tests (issue 32): each a few kilobytes that asks
a reader for far more work than its size. Built at test time, never committed; the
measurements in docs/hostile-inputs.md build the same files (``bench/hostile_office.py``)."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

ODF_NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
          'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
          'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
          'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"')


def odf(path: Path, body: str, kind: str = "text", styles: str = "") -> Path:
    """An OpenDocument package of ``kind`` whose ``office:<kind>`` body is ``body``."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", f"application/vnd.oasis.opendocument.{kind}")
        z.writestr("content.xml", f'<office:document-content {ODF_NS}>'
                                  f'<office:automatic-styles>{styles}</office:automatic-styles>'
                                  f'<office:body><office:{kind}>{body}</office:{kind}>'
                                  f'</office:body></office:document-content>')
    return path


def nested_repeated_table(levels: int = 32, repeat: int = 1000) -> str:
    """A table whose one cell, repeated ``repeat`` times, holds the next level's table:
    ``repeat ** levels`` cells once expanded (item 1)."""
    inner = "<text:p>x</text:p>"
    for _ in range(levels):
        inner = (f'<table:table><table:table-row><table:table-cell '
                 f'table:number-columns-repeated="{repeat}">{inner}</table:table-cell>'
                 f'</table:table-row></table:table>')
    return inner


def odt_list(start: str, num_format: str = "a", style_start: str | None = None
             ) -> tuple[str, str]:
    """(body, styles) of a numbered list in ``num_format`` whose first item starts at
    ``start`` (items 2 and 15), or, with ``style_start``, whose list style starts there."""
    begin = f' text:start-value="{style_start}"' if style_start is not None else ""
    styles = (f'<text:list-style style:name="L1"><text:list-level-style-number text:level="1" '
              f'style:num-format="{num_format}" style:num-suffix="."{begin}/></text:list-style>')
    item = f' text:start-value="{start}"' if start else ""
    body = (f'<text:list text:style-name="L1"><text:list-item{item}>'
            f'<text:p>first</text:p></text:list-item><text:list-item><text:p>second</text:p>'
            f'</text:list-item></text:list>')
    return body, styles


# -- OLE compound files -----------------------------------------------------------------------

FREE, END, FATSECT = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD


def _chain(fat: list[int], first: int, count: int, links: list[int] | None) -> None:
    """Append a chain of ``count`` sectors starting at ``first`` to ``fat``: in order, or as
    ``links`` say (sector numbers relative to ``first``)."""
    if links is None:
        fat += [first + k + 1 for k in range(count - 1)] + [END]
    else:
        fat += [first + k for k in links] + [FREE] * (count - len(links))


def cfb(streams: dict[str, bytes], chains: dict[str, list[int]] | None = None,
        sizes: dict[str, int] | None = None, mini: dict[str, bytes] | None = None,
        mini_chains: dict[str, list[int]] | None = None) -> bytes:
    """A CFB (OLE2 v3, 512-byte sectors) holding ``streams`` in the FAT (each padded to the
    4096-byte mini-stream cutoff) and ``mini`` (small streams) in the mini stream.
    ``chains``/``mini_chains`` override a stream's chain (sector numbers relative to its
    first sector: ``[0]`` makes its first sector point at itself), ``sizes`` its declared
    size: the crafted loops of item 11."""
    chains, sizes, mini, mini_chains = chains or {}, sizes or {}, mini or {}, mini_chains or {}
    data = {n: streams[n] + b"\0" * max(0, 4096 - len(streams[n])) for n in streams}
    data = {n: d + b"\0" * (-len(d) % 512) for n, d in data.items()}
    minifat: list[int] = []
    ministream, starts = b"", {}
    for n, d in mini.items():
        count = max(1, -(-len(d) // 64))
        starts[n] = len(minifat)
        _chain(minifat, len(minifat), count, mini_chains.get(n))
        ministream += d + b"\0" * (count * 64 - len(d))
    minifat_bytes = struct.pack(f"<{len(minifat)}I", *minifat) if minifat else b""
    minifat_bytes += b"\0" * (-len(minifat_bytes) % 512)
    ministream_sectors = ministream + b"\0" * (-len(ministream) % 512)
    entries = [("Root Entry", 5)] + [(n, 2) for n in [*streams, *mini]]
    n_dir = (len(entries) + 3) // 4
    n_data = (sum(len(d) for d in data.values()) + len(minifat_bytes)
              + len(ministream_sectors)) // 512
    n_fat = 1
    while n_fat * 128 < n_fat + n_dir + n_data:
        n_fat += 1
    fat = [FATSECT] * n_fat
    _chain(fat, n_fat, n_dir, None)
    minifat_at = root_at = END
    if minifat:
        minifat_at = len(fat)
        _chain(fat, len(fat), len(minifat_bytes) // 512, None)
        root_at = len(fat)
        _chain(fat, len(fat), len(ministream_sectors) // 512, None)
    body = minifat_bytes + ministream_sectors
    for n in streams:
        starts[n] = len(fat)
        _chain(fat, len(fat), len(data[n]) // 512, chains.get(n))
        body += data[n]
    fat += [FREE] * (n_fat * 128 - len(fat))
    header = bytearray(512)
    header[:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    struct.pack_into("<HHHHH", header, 24, 0x3E, 3, 0xFFFE, 9, 6)
    struct.pack_into("<IIIIIIIII", header, 40, 0, n_fat, n_fat, 0, 4096, minifat_at,
                     len(minifat_bytes) // 512, END, 0)
    struct.pack_into("<109I", header, 76, *(list(range(n_fat)) + [FREE] * (109 - n_fat)))
    directory = bytearray()
    for i, (name, etype) in enumerate(entries):
        e = bytearray(128)
        raw = name.encode("utf-16-le") + b"\0\0"
        e[:len(raw)] = raw
        struct.pack_into("<HBB", e, 64, len(raw), etype, 1)
        child = 1 if etype == 5 and len(entries) > 1 else FREE
        right = i + 1 if etype == 2 and i + 1 < len(entries) else FREE
        struct.pack_into("<III", e, 68, FREE, right, child)
        if etype == 5:
            struct.pack_into("<II", e, 116, root_at, len(ministream))
        elif name in mini:
            struct.pack_into("<II", e, 116, starts[name], sizes.get(name, len(mini[name])))
        else:
            struct.pack_into("<II", e, 116, starts[name],
                             sizes.get(name, max(len(streams[name]), 4096)))
        directory += e
    directory += b"\0" * (n_dir * 512 - len(directory))
    fat_bytes = struct.pack(f"<{n_fat * 128}I", *fat)
    return bytes(header) + fat_bytes + bytes(directory) + body


# -- PowerPoint 97-2003 -----------------------------------------------------------------------

def _rec(rtype: int, body: bytes, container: bool = False, inst: int = 0) -> bytes:
    return struct.pack("<HHI", (inst << 4) | (0xF if container else 0), rtype, len(body)) + body


def ppt(slides: int, text: bytes, edits: int = 1, directory: int = 2) -> bytes:
    """A .ppt whose ``slides`` slides all name one slide record holding ``text`` (a
    UTF-16 text atom; item 3), found through ``edits`` UserEditAtoms that all name one
    persist directory of ``directory`` entries (item 10)."""
    slide = _rec(0x03EE, _rec(0x0FA0, text), container=True)
    persists = b"".join(_rec(0x03F3, struct.pack("<IIIII", 1, 0, 0, 256 + i, 0))
                        for i in range(slides))
    document = _rec(0x03E8, _rec(0x0FF0, persists, container=True), container=True)
    doc_at = len(slide)
    dir_at = doc_at + len(document)
    offsets = [0, doc_at] + [0] * (directory - 2)  # persist 1: the slide, 2: the document
    entries = b""
    for first in range(0, len(offsets), 4095):
        chunk = offsets[first:first + 4095]
        entries += struct.pack("<I", (first + 1) | (len(chunk) << 20))
        entries += struct.pack(f"<{len(chunk)}I", *chunk)
    directory_rec = _rec(0x1772, entries)
    stream = slide + document + directory_rec
    edit_at = len(stream)
    for i in range(edits):
        last = edit_at + (i + 1) * 36 if i + 1 < edits else 0
        stream += _rec(0x0FF5, struct.pack("<IHBBIIIII", 0, 0, 0, 3, last, dir_at, 2, 0, 0))
    user = struct.pack("<HHIIII", 0, 0x0FF6, 20, 20, 0xE391C05F, edit_at) + b"\0" * 8
    return cfb({"PowerPoint Document": stream}, mini={"Current User": user})


# -- Word 97-2003 -----------------------------------------------------------------------------

CLX, PLCFTXBXTXT = 33, 56  # FibRgFcLcb97 indexes


def doc(text: str, pieces: list[tuple[int, int, int]] | None = None, txbx: int = 0,
        boxes: list[int] | None = None) -> bytes:
    """A minimal Word 97 .doc: ``text`` (cp1252) in the ``WordDocument`` stream, described
    by ``pieces`` ((cp, cp_end, byte offset of the text) each; one piece of the whole text
    by default: item 4 crafts pieces that cover it again and again). The last ``txbx``
    characters are the text-box story, cut into boxes at the CPs ``boxes`` (item 5 makes
    every other box the whole story again)."""
    base = 1024  # the text starts here in WordDocument, after the FIB
    fib = bytearray(base)
    struct.pack_into("<HH", fib, 0, 0xA5EC, 0xC1)
    struct.pack_into("<H", fib, 10, 0x0200)  # fWhichTblStm: 1Table
    pos = 32
    struct.pack_into("<H", fib, pos, 14)
    pos += 2 + 28
    struct.pack_into("<H", fib, pos, 22)
    lw = [0] * 22
    lw[3] = len(text) - txbx  # ccpText
    lw[3 + 6] = txbx  # ccpTxbx
    struct.pack_into("<22i", fib, pos + 2, *lw)
    pos += 2 + 88
    struct.pack_into("<H", fib, pos, 93)
    fclcb = pos + 2
    word = bytes(fib) + text.encode("cp1252")
    pieces = pieces or [(0, len(text), base)]
    plc = struct.pack(f"<{len(pieces) + 1}I", *[p[0] for p in pieces], pieces[-1][1])
    plc += b"".join(struct.pack("<HIH", 0, ((p[2] * 2) | 0x40000000), 0) for p in pieces)
    table = b"\x02" + struct.pack("<I", len(plc)) + plc
    entries = {CLX: (0, len(table))}
    if boxes:
        plcf = struct.pack(f"<{len(boxes)}I", *boxes)
        plcf += b"".join(struct.pack("<iiHiiHi", 0, 0, 0, 0, 0, 0, i + 1)
                         for i in range(len(boxes) - 1))
        entries[PLCFTXBXTXT] = (len(table), len(plcf))
        table += plcf
    word = bytearray(word)
    for index, (fc, lcb) in entries.items():
        struct.pack_into("<II", word, fclcb + 8 * index, fc, lcb)
    return cfb({"WordDocument": bytes(word), "1Table": table})


# -- Excel 97-2003 ----------------------------------------------------------------------------

def xls_empty() -> bytes:
    """A BIFF8 workbook of one empty sheet ("Sheet1")."""
    def rec(rtype: int, body: bytes) -> bytes:
        return struct.pack("<HH", rtype, len(body)) + body

    def bof(kind: int) -> bytes:
        return rec(0x0809, struct.pack("<HHHHII", 0x0600, kind, 0x0DBB, 0x07CC, 0, 6))

    name = "Sheet1".encode("latin-1")
    globals_ = bof(0x0005) + rec(0x0042, struct.pack("<H", 1200))  # CODEPAGE: UTF-16
    sheet_rec_len = 4 + 4 + 2 + 2 + len(name)
    sheet_at = len(globals_) + sheet_rec_len + 4  # after BOUNDSHEET and EOF
    globals_ += rec(0x0085, struct.pack("<IBBBB", sheet_at, 0, 0, len(name), 0) + name)
    globals_ += rec(0x000A, b"")
    sheet = bof(0x0010) + rec(0x0200, struct.pack("<IIHHH", 0, 0, 0, 0, 0)) + rec(0x000A, b"")
    return cfb({"Workbook": globals_ + sheet})
