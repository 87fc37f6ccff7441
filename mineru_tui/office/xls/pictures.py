"""Pictures of an .xls workbook, read from its BIFF drawing records.

xlrd does not read drawings. The workbook's drawing group (``MSODRAWINGGROUP`` and its
``CONTINUE`` records in the globals substream) holds the blip store with the pictures'
bytes; each sheet's ``MSODRAWING`` records hold its shapes, whose ``pib`` property names a
blip. PNG and JPEG pictures are returned per sheet, in the order of the sheets' substreams.
"""

from __future__ import annotations

import struct
from pathlib import Path

from mineru_tui.office.xls.biff import BOF, CONTINUE, EOF, MAX_RECORDS, records

_DRAWING_GROUP, _DRAWING = 0x00EB, 0x00EC


def sheet_pictures(path: str | Path) -> list[list[tuple[bytes, str]]]:
    """For each sheet substream, its pictures as (bytes, extension); [] when there are none."""
    from mineru_tui.office.doc.fib import _blip
    from mineru_tui.office.ole import Ole

    with Ole(path) as ole:
        data = ole.stream("Workbook") or ole.stream("Book") or b""
    group = bytearray()
    sheets: list[bytearray] = []
    depth, substream, prev = 0, -1, None
    for rtype, body in records(data):
        if rtype == BOF:
            if depth == 0:
                substream += 1
                if substream > 0:
                    sheets.append(bytearray())
            depth += 1
        elif rtype == EOF:
            depth = max(0, depth - 1)
        elif substream == 0 and (rtype == _DRAWING_GROUP
                                 or rtype == CONTINUE and prev == _DRAWING_GROUP):
            group += body
            prev = _DRAWING_GROUP  # a CONTINUE after it still belongs to the group
            continue
        elif substream > 0 and rtype == _DRAWING:
            sheets[-1] += body
        prev = rtype
    if not group:
        return [[] for _ in sheets]
    blips = []
    for fo_pos in _records(bytes(group), 0xF007):
        b = fo_pos + 8
        cb_name = group[b + 33] if b + 34 <= len(group) else 0
        inner = b + 36 + cb_name
        try:
            blips.append(_blip(bytes(group), inner, len(group)) if inner + 8 <= len(group) else None)
        except struct.error:
            blips.append(None)
    out = []
    for drawing in sheets:
        found = []
        for pib in _pibs(bytes(drawing)):
            if 1 <= pib <= len(blips) and blips[pib - 1] is not None:
                found.append(blips[pib - 1])
        out.append(found)
    return out


def _records(buf: bytes, wanted: int):
    """Offsets of OfficeArt records of type ``wanted`` (containers are entered)."""
    pos, n = 0, 0
    while pos + 8 <= len(buf) and n < MAX_RECORDS:
        ver_inst, rtype, length = struct.unpack_from("<HHI", buf, pos)
        n += 1
        if rtype == wanted:
            yield pos
        pos += 8 if ver_inst & 0x0F == 0x0F else 8 + length


def _pibs(buf: bytes) -> list[int]:
    """The blip ids (``pib``) of the shapes in a sheet's drawing records."""
    out = []
    for pos in _records(buf, 0xF00B):
        count = struct.unpack_from("<H", buf, pos)[0] >> 4
        for k in range(count):
            off = pos + 8 + 6 * k
            if off + 6 > len(buf):
                break
            opid, op = struct.unpack_from("<HI", buf, off)
            if opid & 0x3FFF == 0x0104 and opid & 0x4000:
                out.append(op)
    return out
