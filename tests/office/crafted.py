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


def odt_list(start: str, num_format: str = "a") -> tuple[str, str]:
    """(body, styles) of a numbered list in ``num_format`` whose item starts at ``start``
    (items 2 and 15)."""
    styles = (f'<text:list-style style:name="L1"><text:list-level-style-number text:level="1" '
              f'style:num-format="{num_format}" style:num-suffix="."/></text:list-style>')
    body = (f'<text:list text:style-name="L1"><text:list-item text:start-value="{start}">'
            f'<text:p>first</text:p></text:list-item><text:list-item><text:p>second</text:p>'
            f'</text:list-item></text:list>')
    return body, styles


# -- OLE compound files -----------------------------------------------------------------------

FREE, END, FATSECT = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD


def cfb(streams: dict[str, bytes], chains: dict[str, list[int]] | None = None,
        sizes: dict[str, int] | None = None) -> bytes:
    """A CFB (OLE2 v3, 512-byte sectors) holding ``streams``, each in the FAT (padded to
    the 4096-byte mini-stream cutoff). ``chains`` overrides a stream's FAT chain (sector
    numbers relative to its first sector: ``[0]`` makes its first sector point at itself),
    ``sizes`` its declared size: the crafted loops of item 11."""
    chains, sizes = chains or {}, sizes or {}
    names = list(streams)
    data = {n: streams[n] + b"\0" * max(0, 4096 - len(streams[n])) for n in names}
    data = {n: d + b"\0" * (-len(d) % 512) for n, d in data.items()}
    entries = [("Root Entry", 5)] + [(n, 2) for n in names]
    n_dir = (len(entries) + 3) // 4
    n_data = sum(len(d) // 512 for d in data.values())
    n_fat = 1
    while n_fat * 128 < n_fat + n_dir + n_data:
        n_fat += 1
    fat = [FATSECT] * n_fat
    fat += [n_fat + i + 1 for i in range(n_dir - 1)] + [END]
    starts, body = {}, b""
    for n in names:
        first = len(fat)
        count = len(data[n]) // 512
        starts[n] = first
        if n in chains:
            links = [first + k for k in chains[n]]
            fat += links + [FREE] * (count - len(links))
        else:
            fat += [first + k + 1 for k in range(count - 1)] + [END]
        body += data[n]
    fat += [FREE] * (n_fat * 128 - len(fat))
    header = bytearray(512)
    header[:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    struct.pack_into("<HHHHH", header, 24, 0x3E, 3, 0xFFFE, 9, 6)
    struct.pack_into("<IIIIIIIII", header, 40, 0, n_fat, n_fat, 0, 4096, END, 0, END, 0)
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
        if etype == 2:
            struct.pack_into("<II", e, 116, starts[name], sizes.get(name, len(streams[name])))
        else:
            struct.pack_into("<II", e, 116, END, 0)
        directory += e
    directory += b"\0" * (n_dir * 512 - len(directory))
    fat_bytes = struct.pack(f"<{n_fat * 128}I", *fat)
    return bytes(header) + fat_bytes + bytes(directory) + body
