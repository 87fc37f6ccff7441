"""Builders for small hostile or odd input files used by the tests."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

from typer.testing import CliRunner

from mineru_tui.cli import app
from mineru_tui.document import Document, Page, image_block, text_block, text_span, title_block

CT_DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
CT_DOCM = "application/vnd.ms-word.document.macroEnabled.main+xml"
CT_PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"
CT_XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
CT_XLSM = "application/vnd.ms-excel.sheet.macroEnabled.main+xml"

_MAIN = {CT_DOCX: "word/document.xml", CT_DOCM: "word/document.xml",
         CT_PPTX: "ppt/presentation.xml", CT_XLSX: "xl/workbook.xml",
         CT_XLSM: "xl/workbook.xml"}


def ooxml_bytes(main_type: str, extra: dict[str, bytes] | None = None,
                main_xml: bytes = b"<doc/>") -> bytes:
    """A minimal OOXML package: content types, package rels and a main part."""
    part = _MAIN.get(main_type, "main/part.xml")
    ct = ('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/'
          '2006/content-types"><Default Extension="rels" ContentType="application/'
          'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" '
          f'ContentType="application/xml"/><Override PartName="/{part}" '
          f'ContentType="{main_type}"/></Types>')
    rels = ('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/'
            'package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.'
            'openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
            f'Target="{part}"/></Relationships>')
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", ct)
        z.writestr("_rels/.rels", rels)
        z.writestr(part, main_xml)
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return buf.getvalue()


def cfb_bytes(stream_names: list[str]) -> bytes:
    """A minimal valid CFB (OLE2, v3, 512-byte sectors) whose streams are all empty.

    Enough for a reader of the directory: header, one FAT sector, the directory chain.
    """
    entries = [("Root Entry", 5)] + [(n, 2) for n in stream_names]
    per = 512 // 128
    n_dir = (len(entries) + per - 1) // per
    ENDCHAIN, FREE, FATSECT = 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFD
    # sector 0 = FAT, sectors 1..n_dir = directory chain
    fat = [FATSECT] + [i + 1 for i in range(1, n_dir)] + [ENDCHAIN]
    fat += [FREE] * (128 - len(fat))
    header = bytearray(512)
    header[:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    struct.pack_into("<HHHHH", header, 24, 0x3E, 3, 0xFFFE, 9, 6)
    struct.pack_into("<IIIIIIIII", header, 40, 0, 1, 1, 0, 4096, ENDCHAIN, 0, ENDCHAIN, 0)
    difat = [0] + [FREE] * 108
    struct.pack_into("<109I", header, 76, *difat)
    dir_bytes = bytearray()
    for i, (name, etype) in enumerate(entries):
        e = bytearray(128)
        raw = name.encode("utf-16-le") + b"\x00\x00"
        e[:len(raw)] = raw
        struct.pack_into("<HBB", e, 64, len(raw), etype, 1)
        left, right, child = FREE, FREE, FREE
        if etype == 5:
            child = 1 if len(entries) > 1 else FREE
        elif i + 1 < len(entries):
            right = i + 1
        struct.pack_into("<III", e, 68, left, right, child)
        struct.pack_into("<II", e, 116, ENDCHAIN, 0)
        dir_bytes += e
    dir_bytes += b"\x00" * (n_dir * 512 - len(dir_bytes))
    return bytes(header) + struct.pack("<128I", *fat) + bytes(dir_bytes)


def zip_with_declared_size(name: str, declared: int, payload: bytes = b"x" * 64,
                           main_type: str = CT_DOCX) -> bytes:
    """An OOXML zip whose member ``name`` claims ``declared`` uncompressed bytes.

    The sizes in the local header and central directory are patched after writing, so a
    "huge" member costs a few bytes (a crafted bomb header, not a real one).
    """
    data = bytearray(ooxml_bytes(main_type, extra={name: payload}))
    raw = name.encode()
    real = struct.pack("<I", len(payload))
    # local file header: size at offset 22; central directory header: size at offset 24
    for sig, off in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        pos = 0
        while (pos := data.find(sig, pos)) != -1:
            hdr_name_off = 30 if sig == b"PK\x03\x04" else 46
            nlen = struct.unpack_from("<H", data, pos + (26 if sig == b"PK\x03\x04" else 28))[0]
            if bytes(data[pos + hdr_name_off:pos + hdr_name_off + nlen]) == raw:
                assert bytes(data[pos + off:pos + off + 4]) == real
                struct.pack_into("<I", data, pos + off, declared)
            pos += 4
    return bytes(data)


# ---------------------------------------------------------------------------------------
# The CLI tests' fake document and runner (their fixtures are in tests/cli/conftest.py)

ROOT = Path(__file__).resolve().parent.parent
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 24


def fake_doc(path, kind) -> Document:
    """A small document naming its source, with one image and one warning."""
    doc = Document()
    name = doc.add_image(PNG, "png")
    doc.pages.append(Page(0, [
        title_block([text_span(f"From {Path(path).name}")], 1),
        text_block([text_span(f"A {kind} file.")]),
        image_block(name, "picture"),
    ]))
    doc.warnings.append("skipped an odd part")
    return doc


def cli(*args: str):
    """Run ``mineru-tui ARGS`` in-process (Typer's runner; stdout and stderr apart)."""
    return CliRunner().invoke(app, [str(a) for a in args], prog_name="mineru-tui")


def error_lines(stderr: str) -> list[str]:
    """The ``error: ...`` lines of a run's stderr."""
    return [line for line in stderr.splitlines() if line.startswith("error: ")]
