"""The web and RTF readers, and what they share, against crafted hostile files (issue 32,
items 6, 7, 8, 9, 12, 13, 14 and 16). Every file is built here, small; each case runs
``parse BAD GOOD -o OUT`` in a child under a 2.5 GB address-space limit, and checks that
the bad file ends in output, a `content cut:` warning or one `error:` line, that the good
file after it is read, and that nothing under ``-o`` can run a script."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MEMORY = int(2.5 * (1 << 30))  # the bound per file


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def parse_batch(tmp_path: Path, bad: Path, *extra: str) -> subprocess.CompletedProcess:
    """``parse BAD good.html -o out`` in a child limited to 2.5 GB; the good page must be
    read whatever happened to the bad file, and no internal error is allowed."""
    good = tmp_path / "good.html"
    good.write_text("<html><body><p>the good page</p></body></html>")
    r = subprocess.run([sys.executable, "-m", "mineru_tui", "parse", str(bad), str(good),
                        "-o", str(tmp_path / "out"), *extra],
                       cwd=ROOT, capture_output=True, text=True, timeout=600,
                       preexec_fn=_limited)
    assert "the good page" in (tmp_path / "out" / "good" / "good.md").read_text()
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr, r.stderr[-2000:]
    return r


def _nested_html_tables(depth: int) -> str:
    return ("<html><body>" + "<table><tr><td>a</td><td>" * depth + "deepest"
            + "</td></tr></table>" * depth + "</body></html>")


def _nested_rtf_tables(depth: int) -> bytes:
    """A table in a cell of a table, ``depth`` levels (``\\itap``, ``\\nestcell``)."""
    inner = b""
    for k in range(depth, 1, -1):  # built from the innermost level out
        inner = inner + (rb"\pard\intbl\itap%d a\nestcell b\nestcell"
                         rb"{\*\nesttableprops\trowd\cellx2000\cellx4000\nestrow}" % k)
    return (rb"{\rtf1\trowd\cellx5000" + inner + rb"\pard\intbl\itap1 a\cell b\cell\row"
            rb"\pard\itap0 Outside\par}")


def test_html_tables_nested_as_deep_as_the_reader_goes_are_written(tmp_path):
    bad = tmp_path / "nest.html"
    bad.write_text(_nested_html_tables(300))  # 54 crashed the writer; the reader keeps 160 elements
    r = parse_batch(tmp_path, bad)
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "out" / "nest" / "nest.md").read_text()
    assert md.count("<table>") >= 54 and "deepest" in md
    assert (tmp_path / "out" / "nest" / "nest_content_list.json").is_file()


def test_rtf_tables_nested_64_levels_are_written_and_deeper_ones_join_the_64th(tmp_path):
    bad = tmp_path / "nest.rtf"
    bad.write_bytes(_nested_rtf_tables(64))  # 56 crashed the writer
    r = parse_batch(tmp_path, bad)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "nest" / "nest.md").read_text().count("<table>") == 64
    deeper = tmp_path / "deeper.rtf"
    deeper.write_bytes(_nested_rtf_tables(200))
    r = parse_batch(tmp_path, deeper, "-v")
    assert "nested deeper than 64 levels" in r.stderr
    md = (tmp_path / "out" / "deeper" / "deeper.md").read_text()
    assert md.count("<table>") == 64 and md.count(">a<") >= 200  # every level's text kept


def test_the_writers_take_any_depth_of_nested_tables():
    from mineru_tui.document import Document, Page, text_block, text_span
    from mineru_tui.document.content_list import to_content_list
    from mineru_tui.document.markdown import to_markdown
    from mineru_tui.document.middle_json import to_middle_json
    from mineru_tui.document.model import Cell, Table, table_block

    block = text_block([text_span("deepest\x1b[31m")])
    for _ in range(2000):  # far past Python's 1,000 frames
        block = table_block(Table([[Cell([text_block([text_span("a")])]), Cell([block])]]))
    doc = Document(pages=[Page(0, para_blocks=[block])])
    md = to_markdown(doc)
    assert md.count("<table>") == 2000 and "deepest[31m" in md and "\x1b" not in md
    assert to_content_list(doc)[0]["table_body"].count("<table>") == 2000
    assert to_middle_json(doc)["pdf_info"][0]["para_blocks"][0]


EVIL_SVG = b"""<?xml version="1.0"?>
<!DOCTYPE svg [<!ENTITY x "boom">]>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
     xmlns:h="http://www.w3.org/1999/xhtml" onload="alert(1)" width="10" height="10">
<script>alert(2)</script><h:script>alert(3)</h:script>
<foreignObject><h:iframe src="http://127.0.0.1/x"/></foreignObject>
<a xlink:href="javascript:alert(4)"><text x="1" y="5">kept text &x;</text></a>
<image href="http://127.0.0.1/p.png"/><use xlink:href="other.svg#a"/><use href="#g"/>
<set attributeName="onmouseover" to="alert(5)"/><animate attributeName="href" values="javascript:x"/>
<style>@import url(http://127.0.0.1/s.css); rect { fill: url(http://127.0.0.1/f); }</style>
<rect fill="url(http://127.0.0.1/z#a)" style="fill:\\75rl(http://127.0.0.1/e)" width="5" height="5"/>
</svg>"""

LIVE = (b"<script", b"onload", b"onmouseover", b"foreignObject", b"javascript:", b"127.0.0.1",
        b"other.svg", b"iframe", b"<!ENTITY", b"@import")


def _assert_nothing_live(out: Path) -> list[Path]:
    written = [p for p in out.rglob("*") if p.is_file()]
    for path in written:
        data = path.read_bytes()
        if path.parent.name == "images":
            assert path.suffix.lower() not in (".html", ".htm", ".xhtml", ".js", ".xml"), path
            assert not any(bad.lower() in data.lower() for bad in LIVE), (path, data[:400])
    return written


def test_svg_pictures_are_cleaned_before_they_reach_images(tmp_path):
    import base64

    folder = tmp_path / "page"
    folder.mkdir()
    (folder / "beside.svg").write_bytes(EVIL_SVG)
    (folder / "named.png").write_bytes(EVIL_SVG)  # an SVG under a raster name
    uri = "data:image/svg+xml;base64," + base64.b64encode(EVIL_SVG).decode()
    bad = folder / "svg.html"
    bad.write_text(f'<html><body><p>text</p><img src="{uri}" alt="inline">'
                   '<img src="beside.svg" alt="beside"><img src="named.png" alt="named"></body></html>')
    r = parse_batch(tmp_path, bad)
    assert r.returncode == 0, r.stderr
    images = sorted((tmp_path / "out" / "svg" / "images").iterdir())
    assert len(images) >= 2
    _assert_nothing_live(tmp_path / "out")
    for image in images:
        assert b"kept text" in image.read_bytes() and b"<svg" in image.read_bytes()


def test_svg_parts_of_mhtml_and_epub_are_cleaned(tmp_path):
    import base64
    import zipfile

    mht = tmp_path / "page.mht"
    mht.write_bytes(b"MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=\"B\"; "
                    b"type=\"text/html\"\r\n\r\n--B\r\nContent-Type: text/html\r\n"
                    b"Content-Location: http://example.com/\r\n\r\n"
                    b"<html><body><p>mht</p><img src=\"cid:pic\"></body></html>\r\n--B\r\n"
                    b"Content-Type: image/svg+xml\r\nContent-ID: <pic>\r\n"
                    b"Content-Transfer-Encoding: base64\r\n\r\n"
                    + base64.encodebytes(EVIL_SVG) + b"\r\n--B--\r\n")
    r = parse_batch(tmp_path, mht)
    assert r.returncode == 0, r.stderr
    assert list((tmp_path / "out" / "page" / "images").iterdir())
    book = tmp_path / "book.epub"
    with zipfile.ZipFile(book, "w") as z:
        z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml", _CONTAINER)
        z.writestr("OEBPS/content.opf", _opf(["ch1.xhtml"], extra='<item id="p" href="p.svg" '
                                                   'media-type="image/svg+xml"/>'))
        z.writestr("OEBPS/ch1.xhtml", _chapter('<p>epub</p><img src="p.svg" alt="p"/>'))
        z.writestr("OEBPS/p.svg", EVIL_SVG)
    r = parse_batch(tmp_path, book)
    assert r.returncode == 0, r.stderr
    assert list((tmp_path / "out" / "book" / "images").iterdir())
    _assert_nothing_live(tmp_path / "out")


_CONTAINER = ('<?xml version="1.0"?><container version="1.0" '
              'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
              '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
              '</rootfiles></container>')


def _opf(chapters: list[str], extra: str = "", nav: str | None = None) -> str:
    items = "".join(f'<item id="c{i}" href="{c}" media-type="application/xhtml+xml"/>'
                    for i, c in enumerate(chapters))
    if nav:
        items += f'<item id="nav" href="{nav}" media-type="application/xhtml+xml" properties="nav"/>'
    spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters)))
    return ('<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
            '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>T</dc:title></metadata>'
            f'<manifest>{items}{extra}</manifest><spine>{spine}</spine></package>')


def _chapter(body: str) -> str:
    return ('<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>c</title>'
            f'</head><body>{body}</body></html>')


def test_a_picture_with_a_name_that_runs_is_written_as_bin():
    from mineru_tui.document import Document

    doc = Document()
    assert doc.add_image(b"<html><script>x</script></html>", "html").endswith(".bin")
    assert doc.add_image(b"\x89PNG\r\n\x1a\nrest", "png").endswith(".png")
    assert doc.add_image(b"<svg <<< not xml at all", "svg") == ""  # nothing to clean: left out
    assert any(w.startswith("content cut:") and "SVG" in w for w in doc.warnings)


def test_a_text_file_starting_bm_is_not_a_picture(tmp_path):
    from mineru_tui.detect import image_type

    folder = tmp_path / "page"
    folder.mkdir()
    (folder / "notes.txt").write_bytes(b"BM notes: remember the milk\n" * 10)
    bad = folder / "bm.html"
    bad.write_text('<html><body><p>see</p><img src="notes.txt" alt="the notes"></body></html>')
    r = parse_batch(tmp_path, bad)
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "out" / "bm" / "images").exists()
    assert "the notes" in (tmp_path / "out" / "bm" / "bm.md").read_text()
    assert image_type(b"BM notes: remember the milk\n") is None
    bmp = b"BM" + (70).to_bytes(4, "little") + b"\0" * 8 + (40).to_bytes(4, "little") + b"\0" * 52
    assert image_type(bmp) == "bmp"
