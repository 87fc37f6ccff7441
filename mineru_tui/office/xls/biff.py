"""The record stream of a BIFF8 workbook (the ``Workbook`` stream of an .xls file)."""

from __future__ import annotations

import struct
from collections.abc import Iterator

MAX_RECORDS = 2_000_000  # records read per stream (a bound against crafted files)
BOF, EOF, CONTINUE = 0x0809, 0x000A, 0x003C


def records(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(record type, body) of each record, in order, at most :data:`MAX_RECORDS`; a record
    cut by the end of the stream gives what is left of its body."""
    pos = count = 0
    while pos + 4 <= len(data) and count < MAX_RECORDS:
        rtype, size = struct.unpack_from("<HH", data, pos)
        yield rtype, data[pos + 4:pos + 4 + size]
        pos += 4 + size
        count += 1
