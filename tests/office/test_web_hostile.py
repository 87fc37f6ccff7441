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


# -- item 6: a picture is read once, whatever it is called -------------------------------

def _png(size: int) -> bytes:
    """A PNG signature followed by ``size`` bytes (pictures are copied, never decoded)."""
    return b"\x89PNG\r\n\x1a\n" + bytes(size)


def test_every_spelling_of_an_epub_picture_is_one_picture(tmp_path):
    import zipfile

    spellings = ["p.png", "./p.png", "././p.png", "sub/../p.png", "./sub/.././p.png"] * 20
    body = "".join(f'<p>x</p><img src="{s}" alt="a"/>' for s in spellings)
    book = tmp_path / "book.epub"
    with zipfile.ZipFile(book, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml", _CONTAINER)
        z.writestr("OEBPS/content.opf", _opf(["c1.xhtml", "c2.xhtml"]))
        z.writestr("OEBPS/c1.xhtml", _chapter(body))
        z.writestr("OEBPS/c2.xhtml", _chapter(body))
        z.writestr("OEBPS/p.png", _png(4 << 20))
    r = parse_batch(tmp_path, book)
    assert r.returncode == 0, r.stderr
    images = list((tmp_path / "out" / "book" / "images").iterdir())
    assert len(images) == 1  # 200 references, one file
    md = (tmp_path / "out" / "book" / "book.md").read_text()
    assert md.count(f"images/{images[0].name}") == 200


def test_odt_case_variants_and_mhtml_cid_spellings_are_one_picture(tmp_path):
    import base64
    import zipfile

    frames = "".join(f'<draw:frame><draw:image xlink:href="{n}"/></draw:frame>'
                     for n in ["Pictures/P.png", "pictures/p.png", "PICTURES/P.PNG"] * 10)
    odt = tmp_path / "cases.odt"
    with zipfile.ZipFile(odt, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text",
                   compress_type=zipfile.ZIP_STORED)
        z.writestr("content.xml",
                   '<?xml version="1.0"?><office:document-content '
                   'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
                   'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
                   'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
                   'xmlns:xlink="http://www.w3.org/1999/xlink"><office:body><office:text>'
                   f'<text:p>odt {frames}</text:p></office:text></office:body></office:document-content>')
        z.writestr("Pictures/P.png", _png(1 << 20))
    r = parse_batch(tmp_path, odt)
    assert r.returncode == 0, r.stderr
    assert len(list((tmp_path / "out" / "cases" / "images").iterdir())) == 1
    refs = "".join(f'<img src="{s}">' for s in ["cid:pic", "cid:<pic>", "cid: pic ", "cid:<pic"] * 10)
    mht = tmp_path / "cids.mht"
    mht.write_bytes(b"MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=\"B\"\r\n\r\n"
                    b"--B\r\nContent-Type: text/html\r\n\r\n<html><body><p>cids</p>" + refs.encode()
                    + b"</body></html>\r\n--B\r\nContent-Type: image/png\r\nContent-ID: <pic>\r\n"
                    b"Content-Transfer-Encoding: base64\r\n\r\n" + base64.encodebytes(_png(1 << 20))
                    + b"\r\n--B--\r\n")
    r = parse_batch(tmp_path, mht)
    assert r.returncode == 0, r.stderr
    assert len(list((tmp_path / "out" / "cids" / "images").iterdir())) == 1


def test_a_picture_left_out_for_its_size_says_so_without_v(tmp_path):
    folder = tmp_path / "page"
    folder.mkdir()
    (folder / "big.png").write_bytes(_png(65 << 20))
    bad = folder / "big.html"
    bad.write_text('<html><body><p>big</p><img src="big.png" alt="the big one">'
                   '<img src="./big.png" alt="again"></body></html>')
    r = parse_batch(tmp_path, bad)  # no -v
    cut = [line for line in r.stderr.splitlines() if "content cut:" in line and "big.png" in line]
    assert len(cut) == 1 and "64 MiB" in cut[0], r.stderr
    assert "the big one" in (tmp_path / "out" / "big" / "big.md").read_text()


def test_the_pictures_of_a_page_stop_at_the_documents_total(monkeypatch, tmp_path):
    from mineru_tui.office import pictures
    from mineru_tui.office.html.reader import read_html

    monkeypatch.setattr(pictures, "MAX_PICTURES_BYTES", 3 << 20)
    monkeypatch.setattr(pictures.Pictures.__init__, "__defaults__", (3 << 20, 64 << 20))
    for i in range(5):
        (tmp_path / f"p{i}.png").write_bytes(_png(1 << 20))
    page = tmp_path / "many.html"
    page.write_text("<html><body>" + "".join(f'<img src="p{i}.png" alt="p{i}">' for i in range(5))
                    + "</body></html>")
    doc = read_html(page)
    assert len(doc.images) == 2
    assert sum("add up to more than 3 MiB" in w for w in doc.warnings) == 1


# -- item 7: an EPUB is read one chapter at a time; its navigation document is counted ----

def test_an_epub_keeps_one_chapter_tree_at_a_time(tmp_path):
    """12 chapters of 3 MiB of dense XHTML: about 100 MB of tree each, 1.3 GB if every tree
    were kept (as before); read in a child limited to 700 MB of address space."""
    import zipfile

    chapters = [f"c{i}.xhtml" for i in range(12)]
    book = tmp_path / "dense.epub"
    with zipfile.ZipFile(book, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml", _CONTAINER)
        z.writestr("OEBPS/content.opf", _opf(chapters))
        for i, c in enumerate(chapters):
            z.writestr(f"OEBPS/{c}", _chapter(f"<h1>chapter {i}</h1>" + "<p>a</p>" * (3 << 17)))
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (700 << 20, 700 << 20));"
            "from mineru_tui.office.html import blocks; blocks.MAX_PIECES = 1000;"
            "from mineru_tui.office.epub.reader import read_epub;"
            "doc = read_epub(sys.argv[1]); print(len(doc.pages), sum('content cut' in w for w in doc.warnings))")
    r = subprocess.run([sys.executable, "-c", code, str(book)], cwd=ROOT, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["1", "1"]  # cut in the first chapter, with one warning


def test_footnotes_across_chapters_are_found_and_numbered_in_reference_order(tmp_path):
    import zipfile

    from mineru_tui.document import to_markdown
    from mineru_tui.office.epub.reader import read_epub

    chapters = [f"c{i}.xhtml" for i in range(6)]
    book = tmp_path / "notes.epub"
    with zipfile.ZipFile(book, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml", _CONTAINER)
        z.writestr("OEBPS/content.opf", _opf(chapters))
        for i, c in enumerate(chapters):
            if i < 5:  # references in chapters 0-4, in reverse order of their notes
                body = f'<p>see<a epub:type="noteref" href="c5.xhtml#n{4 - i}">*</a></p>'
            else:  # the notes, the last one pointing at the first
                body = "".join(f'<aside epub:type="footnote" id="n{k}"><p>note {k}'
                               + ('<a epub:type="noteref" href="#n0">*</a>' if k == 4 else "")
                               + "</p></aside>" for k in range(5))
            z.writestr(f"OEBPS/{c}", _chapter(f"<h1>chapter {i}</h1>{body}").replace(
                "<html ", '<html xmlns:epub="http://www.idpf.org/2007/ops" '))
    md = to_markdown(read_epub(book))
    for k in range(5):
        assert f"[^{5 - k}]: note {k}" in md, md
    assert "[^1]: note 4[^5]" in md.replace("\\", "")


def test_the_epub_navigation_document_is_charged_to_the_parse_budget(tmp_path, monkeypatch):
    import zipfile

    from mineru_tui.errors import InputError
    from mineru_tui.office.epub import reader as epub

    monkeypatch.setattr(epub, "EPUB_BUDGET", 1 << 20)
    book = tmp_path / "nav.epub"
    with zipfile.ZipFile(book, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml", _CONTAINER)
        z.writestr("OEBPS/content.opf", _opf(["c1.xhtml"], nav="nav.xhtml"))
        z.writestr("OEBPS/c1.xhtml", _chapter("<p>short</p>"))
        z.writestr("OEBPS/nav.xhtml", _chapter('<nav epub:type="toc"><ol>'
                                               + '<li><a href="c1.xhtml">c</a></li>' * 60000
                                               + "</ol></nav>"))
    try:
        epub.read_epub(book)
    except InputError as e:
        assert "parse budget" in str(e)
    else:
        raise AssertionError("a 2 MiB navigation document passed a 1 MiB budget")


# -- item 8: limits checked before the memory is spent ---------------------------------

def test_an_html_page_stops_at_its_pieces_with_a_cut(tmp_path, monkeypatch):
    from mineru_tui.office.html import blocks
    from mineru_tui.office.html.reader import read_html

    monkeypatch.setattr(blocks, "MAX_PIECES", 2_000)
    page = tmp_path / "li.html"
    page.write_text("<html><body><ul>" + "<li>a" * 50_000 + "</ul></body></html>")
    doc = read_html(page)
    items = [b for b in doc.iter_blocks() if b.marker]
    assert 500 <= len(items) <= 2_000
    assert sum(w.startswith("content cut:") and "2,000" in w for w in doc.warnings) == 1


def test_an_html_tree_stops_at_its_elements(monkeypatch):
    from mineru_tui.office.html import parse

    monkeypatch.setattr(parse, "MAX_ELEMENTS", 1_000)
    root, cut = parse.parse_html_bounded("<html><body>" + "<p>a</p>" * 100_000 + "</body></html>")
    kept = sum(1 for _ in root.iter())
    assert cut and 1_000 <= kept <= 1_000 + parse._FEED // len("<p>a</p>") + 3  # one feed over
    root, cut = parse.parse_html_bounded("<html><body>" + "<p>a</p>" * 500 + "</body></html>")
    assert not cut and sum(1 for _ in root.iter()) == 502  # html, body, 500 p


def test_rtf_paragraphs_and_cells_without_rows_are_bounded(tmp_path, monkeypatch):
    from mineru_tui.office.rtf import reader as rtf

    monkeypatch.setattr(rtf, "MAX_RTF_PARAGRAPHS", 1_000)
    pars = tmp_path / "pars.rtf"
    pars.write_bytes(rb"{\rtf1 " + rb"a\par " * 20_000 + b"}")
    doc = rtf.read_rtf(pars)
    assert len(doc.pages[0].para_blocks) <= 1_001  # the paragraph being read when cut is kept
    assert any(w.startswith("content cut:") and "paragraphs" in w for w in doc.warnings)
    cells = tmp_path / "cells.rtf"
    cells.write_bytes(rb"{\rtf1\trowd\cellx100 " + rb"\intbl a\cell " * 20_000 + b"}")  # no \row
    doc = rtf.read_rtf(cells)
    assert any(w.startswith("content cut:") and "cells" in w for w in doc.warnings)


def test_a_csv_line_of_commas_is_cut_before_its_row_is_built(tmp_path):
    bad = tmp_path / "commas.csv"
    bad.write_text("a,b\n1,2\n" + "," * (20 << 20) + "\n3,4\n")  # 20 million empty fields
    r = parse_batch(tmp_path, bad)
    assert "content cut:" in r.stderr
    md = (tmp_path / "out" / "commas" / "commas.md").read_text()
    assert "| 1 | 2 |" in md or "<td>1</td>" in md
    many = tmp_path / "many.csv"
    many.write_text("a,b\n" + ("," * 4000 + "\n") * 400)  # 1.6 million separators, short lines
    r = parse_batch(tmp_path, many)
    assert "content cut:" in r.stderr


def test_a_docx_picture_is_capped_before_it_is_read_and_read_once(tmp_path, monkeypatch):
    from tests.docx_fixtures import build_docx, image_run, p

    from mineru_tui.office import pictures
    from mineru_tui.office.docx.reader import read_docx

    monkeypatch.setattr(pictures.Pictures.__init__, "__defaults__", (1 << 30, 1 << 20))
    read = []
    real = pictures.Pictures._take
    monkeypatch.setattr(pictures.Pictures, "_take",
                        lambda self, r, label, size: real(self, lambda: read.append(label) or r(), label, size))
    path = tmp_path / "big.docx"
    path.write_bytes(build_docx(p("text") + "<w:p>" + image_run("rIdBig", "big") + image_run("rIdBig", "again")
                                + image_run("rIdSmall", "small") + "</w:p>",
                                images={"rIdBig": _png(2 << 20), "rIdSmall": _png(1000)}))
    doc = read_docx(path)
    assert len(doc.images) == 1  # the small one; the big one never read
    assert read == ["'/word/media/image2.png'"]
    assert sum(w.startswith("content cut:") and "image1.png" in w for w in doc.warnings) == 1
