"""File-type detection from bytes, and every way an input can be refused."""

from __future__ import annotations

import io
import shutil
import struct
import zipfile
from pathlib import Path

import pytest

from mineru_tui.detect import (Detected, RecognisedError, ZipLimits, cfb_stream_names,
                               check_zip_limits, detect)
from mineru_tui.errors import InputError
from tests.cli_fixtures import (CT_DOCM, CT_DOCX, CT_PPTX, CT_XLSM, CT_XLSX, cfb_bytes,
                            ooxml_bytes, zip_with_declared_size)

CORPUS = Path(__file__).parents[1] / "corpus" / "office"
CORPUS_FILES = sorted(p for p in CORPUS.iterdir() if p.is_file() and p.suffix != ".tsv")


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def refused(path: Path, limits: ZipLimits | None = None) -> str:
    with pytest.raises(InputError) as exc:
        detect(path, limits) if limits else detect(path)
    msg = str(exc.value)
    assert "\n" not in msg and msg
    return msg


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_corpus_kind_comes_from_bytes_not_name(path, tmp_path):
    expected = path.suffix.lstrip(".")
    assert detect(path).kind == expected
    # Same bytes under a wrong name and under no extension: same answer.
    other = shutil.copy(path, tmp_path / "misnamed.pdf")
    assert detect(other).kind == expected
    bare = shutil.copy(path, tmp_path / "noext")
    assert detect(bare).kind == expected


@pytest.mark.parametrize("ctype,kind,subtype", [
    (CT_DOCX, "docx", "docx"), (CT_DOCM, "docx", "docm"), (CT_PPTX, "pptx", "pptx"),
    (CT_XLSX, "xlsx", "xlsx"), (CT_XLSM, "xlsx", "xlsm"),
    ("application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml",
     "docx", "dotx"),
])
def test_main_part_content_type_decides(tmp_path, ctype, kind, subtype):
    p = write(tmp_path, "file.zip", ooxml_bytes(ctype))
    assert detect(p) == Detected(kind, subtype)


def test_missing_empty_and_directory(tmp_path):
    assert refused(tmp_path / "nope.docx") == "no such file"
    assert refused(write(tmp_path, "empty.docx", b"")) == "empty file"
    assert refused(tmp_path) == "is a folder, not a file"


def test_unknown_types(tmp_path):
    assert "unknown file type" in refused(write(tmp_path, "a.docx", b"hello, world\n"))
    # "BM" alone (a text file starting with BM) is not a bitmap.
    assert "unknown file type" in refused(write(tmp_path, "b.txt", b"BMW and Audi\n" * 4))
    assert "unknown file type" in refused(write(tmp_path, "c.bin", bytes(range(256)) * 8))


def test_rtf_is_recognised_by_its_bytes(tmp_path):
    assert detect(write(tmp_path, "x.doc", b"{\\rtf1\\ansi hello}")) == Detected("rtf", "rtf")


@pytest.mark.parametrize("data,subtype", [
    (b"\x89PNG\r\n\x1a\n" + b"\0" * 32, "png"),
    (b"\xff\xd8\xff\xe0\0\x10JFIF\0", "jpeg"),
    (b"II*\0\x08\0\0\0" + b"\0" * 16, "tiff"),
    (b"MM\0*\0\0\0\x08" + b"\0" * 16, "tiff"),
    (b"RIFF\x24\0\0\0WEBPVP8 " + b"\0" * 16, "webp"),
    (b"BM" + struct.pack("<IHHII", 70, 0, 0, 54, 40) + b"\0" * 40, "bmp"),
])
def test_images(tmp_path, data, subtype):
    assert detect(write(tmp_path, "img.docx", data)) == Detected("image", subtype)


def test_pdf_header_may_follow_junk(tmp_path):
    assert detect(write(tmp_path, "a", b"%PDF-1.7\n%\xe2\xe3\n")).kind == "pdf"
    assert detect(write(tmp_path, "b", b"\0" * 500 + b"%PDF-1.4\n")).kind == "pdf"
    assert "unknown" in refused(write(tmp_path, "c", b"\0" * 1100 + b"%PDF-1.4\n"))


def test_truncated_zip(tmp_path):
    data = (CORPUS / "docling__word_tables.docx").read_bytes()
    msg = refused(write(tmp_path, "half.docx", data[: len(data) // 2]))
    assert msg.startswith("corrupt or truncated zip")


def test_corrupt_central_directory(tmp_path):
    data = bytearray((CORPUS / "docling__word_tables.docx").read_bytes())
    cd = data.rfind(b"PK\x01\x02")
    data[cd:cd + 4] = b"XXXX"
    assert refused(write(tmp_path, "bad.docx", bytes(data))).startswith("corrupt")


def test_member_failing_crc(tmp_path):
    body = b"<w:document>" + b"text " * 2000 + b"</w:document>"
    data = bytearray(ooxml_bytes(CT_DOCX, main_xml=body))
    # Flip a byte inside the compressed data of word/document.xml.
    off = data.find(b"word/document.xml") + len("word/document.xml") + 40
    data[off] ^= 0xFF
    msg = refused(write(tmp_path, "crc.docx", bytes(data)))
    assert msg == "corrupt or truncated zip file: its part 'word/document.xml' is damaged"


def test_member_whose_real_size_exceeds_its_declared_size(tmp_path):
    # A member claiming 10 bytes that holds 64: zipfile stops at 10 and the CRC fails.
    p = write(tmp_path, "liar.docx", zip_with_declared_size("word/media/x.bin", 10))
    assert "its part 'word/media/x.bin' is damaged" in refused(p)


def test_zip_that_is_not_office(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("readme.txt", "hi")
    assert "not an Office document" in refused(write(tmp_path, "a.docx", buf.getvalue()))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        z.writestr("content.xml", "<x/>")
    assert detect(write(tmp_path, "b.docx", buf.getvalue())) == Detected("odt", "odt")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.chart")
    with pytest.raises(RecognisedError, match="OpenDocument chart"):
        detect(write(tmp_path, "c.odt", buf.getvalue()))


def test_package_of_unknown_type(tmp_path):
    p = write(tmp_path, "v.docx", ooxml_bytes("application/vnd.ms-visio.drawing.main+xml"))
    assert "unsupported Office package type" in refused(p)


def test_content_types_with_dtd_refused(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("[Content_Types].xml", '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a '
                   '"aaaa">]><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
                   'content-types">&a;</Types>')
    assert "DTD" in refused(write(tmp_path, "dtd.docx", buf.getvalue()))


def test_zip_bomb_declared_size(tmp_path):
    # A crafted header: the member declares 5 GiB (a zip64-free lie in 4 bytes is at most
    # 4 GiB, so declare 0xFFFF0000) while holding 64 bytes.
    p = write(tmp_path, "bomb.docx", zip_with_declared_size("word/media/big.bin", 0xFFFF0000))
    msg = refused(p)
    assert msg.startswith("refused:") and "zip bomb" in msg


def test_zip_bomb_limits_are_parameters(tmp_path):
    zeros = b"\0" * 200_000  # deflates about 1000:1
    p = write(tmp_path, "z.docx", ooxml_bytes(CT_DOCX, extra={"word/media/z.bin": zeros}))
    assert detect(p).kind == "docx"  # fine with the default limits
    ratio = ZipLimits(max_ratio=50, ratio_min_size=100_000)
    assert "expands" in refused(p, ratio)
    assert "uncompressed" in refused(p, ZipLimits(max_total=150_000))
    assert "members" in refused(p, ZipLimits(max_members=3))


def test_check_zip_limits_on_infos():
    info = zipfile.ZipInfo("a")
    info.file_size, info.compress_size = 2 << 30, 10 << 20
    with pytest.raises(InputError, match="zip bomb"):
        check_zip_limits([info])


def test_encrypted_ooxml_minimal_cfb(tmp_path):
    p = write(tmp_path, "secret.docx",
              cfb_bytes(["EncryptionInfo", "EncryptedPackage", "\x06DataSpaces"]))
    with pytest.raises(RecognisedError, match="password-protected"):
        detect(p)


def test_encrypted_ooxml_real(tmp_path):
    """A file really encrypted by msoffcrypto-tool (test-only dependency, if installed)."""
    ooxml = pytest.importorskip("msoffcrypto.format.ooxml")
    out = tmp_path / "real-secret.xlsx"
    with open(CORPUS / "unstructured__stanley-cups.xlsx", "rb") as src, open(out, "wb") as dst:
        ooxml.OOXMLFile(src).encrypt("pw", dst)
    assert "EncryptionInfo" in cfb_stream_names(out)
    assert "password-protected" in refused(out)


@pytest.mark.parametrize("streams,kind", [
    (["WordDocument", "1Table", "\x05SummaryInformation"], "doc"),
    (["Workbook", "\x05SummaryInformation"], "xls"),
    (["Book"], "xls"),
    (["PowerPoint Document", "Current User"], "ppt"),
])
def test_legacy_office(tmp_path, streams, kind):
    # Recognised by their streams, whatever the name; read directly (no LibreOffice).
    assert detect(write(tmp_path, "old.bin", cfb_bytes(streams))) == Detected(kind, kind)


def test_cfb_directory_spanning_sectors(tmp_path):
    names = [f"S{i}" for i in range(9)] + ["WordDocument"]  # 11 entries: 3 sectors
    p = write(tmp_path, "many.doc", cfb_bytes(names))
    assert cfb_stream_names(p) == ["Root Entry"] + names
    assert detect(p).kind == "doc"


def test_other_and_broken_cfb(tmp_path):
    assert "not a Word, Excel or PowerPoint" in refused(write(tmp_path, "a.msg",
                                                              cfb_bytes(["__substg1.0"])))
    head_only = cfb_bytes(["WordDocument"])[:512]
    assert refused(write(tmp_path, "b.doc", head_only)).startswith("corrupt or truncated OLE")


# ---------------------------------------------------------------------------------------
# hostile OLE files and special files (issue 9): bounded reading, loops caught


def cfb_with(streams: list[str], **fields: int) -> bytearray:
    """cfb_bytes with header fields patched: n_fat, first_dir, first_difat, n_difat."""
    data = bytearray(cfb_bytes(streams))
    offsets = {"n_fat": 44, "first_dir": 48, "first_difat": 68, "n_difat": 72}
    for name, value in fields.items():
        struct.pack_into("<I", data, offsets[name], value)
    return data


def refused_within(path: Path, max_bytes: int = 1 << 20) -> str:
    """The refusal, checking that finding it allocated at most ``max_bytes``."""
    import tracemalloc

    tracemalloc.start()
    try:
        msg = refused(path)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < max_bytes, peak
    return msg


@pytest.mark.parametrize("entry", [0xFFFFFFFF, 0])
def test_cfb_difat_pointing_to_itself(tmp_path, entry):
    data = cfb_with(["WordDocument"], n_fat=2, first_difat=2, n_difat=0xFFFFFFFF)
    difat = [entry] * 127 + [2]  # sector 2: entries, then "next DIFAT sector: 2"
    data += struct.pack("<128I", *difat)
    assert len(data) == 2048
    p = write(tmp_path, "loop.doc", bytes(data))
    if entry == 0xFFFFFFFF:  # nothing but the loop: broken
        assert refused_within(p).startswith("corrupt or truncated OLE compound file")
        with pytest.raises(ValueError, match="DIFAT"):
            cfb_stream_names(tmp_path / "loop.doc")
    else:  # the entries give the FAT sectors the header asks for: the loop is never taken
        assert detect(p).kind == "doc"
        from mineru_tui.convert import ConvertError, convert
        with pytest.raises(ConvertError) as exc:  # no stream data behind the names: one line
            convert(p)
        assert "\n" not in exc.value.reason and "internal error" not in exc.value.reason


def test_cfb_directory_chain_loop_and_absurd_fat_count(tmp_path):
    data = cfb_with(["WordDocument"])
    struct.pack_into("<I", data, 512 + 4 * 1, 1)  # FAT: directory sector 1 -> 1
    p = write(tmp_path, "dirloop.doc", bytes(data))
    with pytest.raises(ValueError, match="directory chain"):
        cfb_stream_names(p)
    assert refused_within(p).startswith("corrupt or truncated OLE compound file")
    p = write(tmp_path, "fat.doc", bytes(cfb_with(["WordDocument"], n_fat=0xFFFFFFFF)))
    assert refused_within(p).startswith("corrupt or truncated OLE compound file")


def test_huge_ole_file_is_named_without_reading_it(tmp_path):
    p = write(tmp_path, "huge.doc", cfb_bytes(["WordDocument"]))
    with open(p, "r+b") as f:
        f.truncate(3 << 30)  # 3 GiB, sparse: costs no disk
    import tracemalloc
    tracemalloc.start()
    try:
        assert detect(p).kind == "doc"
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, peak


def test_special_files_are_not_regular(tmp_path):
    import os

    os.mkfifo(tmp_path / "pipe.docx")
    assert refused(tmp_path / "pipe.docx") == "not a regular file (a named pipe)"
    assert refused(Path("/dev/null")) == "not a regular file (a device)"


def test_a_png_that_mentions_pdf_in_its_first_kilobyte_is_a_png(tmp_path):
    """Issue 19: the magic number at offset 0 wins over "%PDF-" further in (a tEXt chunk)."""
    import io

    from PIL import Image, PngImagePlugin

    from mineru_tui.detect import detect

    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "%PDF-1.7 not a pdf")
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), "white").save(buf, "PNG", pnginfo=info)
    assert b"%PDF-" in buf.getvalue()[:1024]
    (tmp_path / "x.png").write_bytes(buf.getvalue())
    assert detect(tmp_path / "x.png").kind == "image"
    # a PDF with a few bytes before its header is still a PDF
    (tmp_path / "y.pdf").write_bytes(b"\n\n%PDF-1.7\n%%EOF\n")
    assert detect(tmp_path / "y.pdf").kind == "pdf"
