"""Markdown safety of the legacy readers' newer rules (PPT numbering and character runs,
DOC text boxes and comments, XLS chart titles and series names) with any text: real files from the corpus whose text is
replaced in place (same stream size, so the OLE container stays valid)."""

from __future__ import annotations

import shutil
from pathlib import Path

import olefile
from hypothesis import HealthCheck, example, given, settings

from tests.document.test_markdown_safety import assert_safe, text

CORPUS = Path(__file__).parents[1] / "corpus" / "odf_legacy"


def _patched(tmp_path: Path, name: str, stream: str, edits: list[tuple[bytes, bytes]]) -> Path:
    """A copy of corpus file ``name`` with byte runs of ``stream`` replaced (same lengths)."""
    path = tmp_path / name
    shutil.copy(CORPUS / name, path)
    with olefile.OleFileIO(str(path), write_mode=True) as ole:
        data = ole.openstream(stream).read()
        for old, new in edits:
            assert len(old) == len(new) and data.count(old) >= 1, old
            data = data.replace(old, new)
        ole.write_stream(stream, data)
    return path


def _fit(t: str, n: int, codec: str) -> bytes:
    """``t`` encoded, cut or padded with spaces to exactly ``n`` characters."""
    if codec == "cp1252":
        t = t.encode("cp1252", "replace").decode("cp1252")
    else:  # one UTF-16 unit per character: no surrogate pairs
        t = "".join(c if ord(c) < 0xD800 or 0xE000 <= ord(c) < 0x10000 else "?" for c in t)
    return (t + " " * n)[:n].encode(codec)


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(t=text)
@example(t="<script>alert(1)</script>")
@example(t="1. *a* [x](javascript:y)")
@example(t="| a | b |\n|---|")
def test_any_text_in_numbered_slides_text_boxes_and_comments(tmp_path, t):
    from mineru_tui.convert import convert

    # numbered items (cp1252 text atom) and bulleted placeholder text (UTF-16 atom)
    items = b"List item4\rList item5\rList item6"
    ppt = _patched(tmp_path, "docling__legacy_sample.ppt", "PowerPoint Document", [
        (items, _fit(t, 10, "cp1252") + b"\r" + _fit(t[::-1], 10, "cp1252") + b"\r"
         + _fit(t, 10, "cp1252")),
        ("With foo".encode("utf-16-le"), _fit(t, 8, "utf-16-le"))])
    assert_safe(convert(ppt))
    # a text box's text (UTF-16) and a comment, a text box and body text (cp1252)
    box = "This is a line of text.".encode("utf-16-le")
    assert_safe(convert(_patched(tmp_path, "poi__Bug41898.doc", "WordDocument",
                                 [(box, _fit(t, 23, "utf-16-le"))])))
    fields = _patched(tmp_path, "poi__test-fields.doc", "WordDocument", [
        (b"Field in comment", _fit(t, 16, "cp1252")),
        (b"Field in text box", _fit(t, 17, "cp1252"))])
    assert_safe(convert(fields))
    charts = _patched(tmp_path, "poi__WithThreeCharts.xls", "Workbook", [
        ("Pie Chart Title Thingy".encode("utf-16-le"), _fit(t, 22, "utf-16-le")),
        ("1st Column".encode("utf-16-le"), _fit(t[::-1], 10, "utf-16-le"))])
    assert_safe(convert(charts))
