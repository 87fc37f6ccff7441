"""The HTML, MHTML, EPUB and CSV readers on small hand-made inputs: structure, safety,
character sets and bounds (the real files are in test_web_corpus.py)."""

from __future__ import annotations

import base64
import io
import os
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mineru_tui.cli import app
from mineru_tui.convert import ConvertError, convert
from mineru_tui.detect import detect
from mineru_tui.document import BlockType, to_content_list, to_markdown, to_middle_json
from mineru_tui.errors import InputError
from mineru_tui.office import EMPTY_WARNING

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


def html(tmp_path: Path, body: str, name: str = "page.html", head: str = "") -> Path:
    path = tmp_path / name
    path.write_text(f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>",
                    encoding="utf-8")
    return path


def md(path: Path) -> str:
    return to_markdown(convert(path), "")


# ---------------------------------------------------------------------------------------
# detection by bytes


def test_text_formats_are_told_by_content_then_name(tmp_path):
    assert detect(html(tmp_path, "<p>x</p>", "notes.txt")).kind == "html"  # content wins
    (tmp_path / "frag.htm").write_text("just <b>text</b>")
    assert detect(tmp_path / "frag.htm").kind == "html"  # an .htm name for text
    (tmp_path / "t.csv").write_text("a,b\n1,2\n")
    assert detect(tmp_path / "t.csv") .kind == "csv"
    (tmp_path / "t.txt").write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="unknown file type"):
        detect(tmp_path / "t.txt")  # CSV is never guessed from text alone
    (tmp_path / "bin.csv").write_bytes(b"a,b\x00\x01\x02")
    with pytest.raises(InputError):
        detect(tmp_path / "bin.csv")
    (tmp_path / "u16.html").write_bytes("\ufeff<html><body>é</body></html>".encode("utf-16-le"))
    assert detect(tmp_path / "u16.html").kind == "html"
    assert "é" in md(tmp_path / "u16.html")


def test_an_html_name_on_a_docx_is_read_as_docx(tmp_path):
    from tests.docx_fixtures import build_docx, run
    path = tmp_path / "report.html"
    path.write_bytes(build_docx("<w:p>" + run("from Word") + "</w:p>"))
    assert detect(path).kind == "docx"
    assert md(path) == "from Word\n"


def test_mhtml_and_epub_are_recognised(tmp_path):
    (tmp_path / "a.bin").write_bytes(_mhtml())
    assert detect(tmp_path / "a.bin").kind == "mhtml"
    (tmp_path / "b.zip").write_bytes(_epub({"c1.xhtml": _xhtml("<p>x</p>")}))
    assert detect(tmp_path / "b.zip").kind == "epub"


# ---------------------------------------------------------------------------------------
# HTML: structure


def test_headings_lists_and_numbering(tmp_path):
    out = md(html(tmp_path, """
        <h1>Top</h1><h3>Third</h3>
        <ol start="4"><li>four</li><li value="9">nine</li><li>ten<ul><li>inner</li></ul></li></ol>
        <ol type="a"><li>x</li><li>y</li></ol>
        <ol reversed><li>r3</li><li>r2</li><li>r1</li></ol>
        <dl><dt>Term</dt><dd>Meaning</dd></dl>"""))
    assert out.startswith("# Top\n\n### Third\n\n4. four\n9. nine\n10. ten\n    - inner\n")
    assert "- a. x\n- b. y" in out
    assert "3. r3\n2. r2\n1. r1" in out
    assert "- **Term**\n  - Meaning" in out


def test_tables_keep_spans_clipped_to_the_table(tmp_path):
    doc = convert(html(tmp_path, """<table><caption>Cap</caption>
        <thead><tr><th colspan="2">H</th><th rowspan="99">R</th></tr></thead>
        <tbody><tr><td>a</td><td colspan="100000">b</td></tr></tbody></table>"""))
    table = next(b for b in doc.iter_blocks() if b.type == BlockType.TABLE)
    t = next(s.table for b in table.blocks for l in b.lines for s in l.spans if s.table)
    assert [(c.colspan, c.rowspan, c.header) for c in t.rows[0]] == [(2, 1, True), (1, 2, True)]
    assert t.rows[1][1].colspan == 1000  # the HTML standard's cap
    assert table.blocks[0].type == BlockType.TABLE_CAPTION
    out = to_markdown(doc)
    assert 'colspan="2"' in out and 'rowspan="2"' in out and out.startswith("Cap")


def test_layout_tables_give_their_content(tmp_path):
    out = md(html(tmp_path, '<table><tr><td><h2>Inside</h2><p>text</p></td></tr></table>'
                            '<table role="presentation"><tr><td>a</td><td>b</td></tr></table>'))
    assert out == "## Inside\n\ntext\n\na\n\nb\n"


def test_inline_styles_code_and_breaks(tmp_path):
    out = md(html(tmp_path, "<p>H<sub>2</sub>O is <b>bold</b>, <em>it</em> and <code>a|b</code>"
                            "<br>next line</p><pre class='language-py'>x = 1\n  y</pre>"))
    assert out == ("H<sub>2</sub>O is **bold**, *it* and `a|b`\nnext line\n\n"
                   "```py\nx = 1\n  y\n```\n")


def test_footnotes_pandoc_and_epub_style(tmp_path):
    out = md(html(tmp_path, """<p>Claim<a href="#fn1" class="footnote-ref" role="doc-noteref"><sup>1</sup></a>
        and more<sup><a href="#n2">[2]</a></sup>.</p>
        <section class="footnotes"><hr><ol><li id="fn1"><p>First note.<a href="#fnref1" class="footnote-back">↩︎</a></p></li></ol></section>
        <aside id="n2">Second note.</aside>"""))
    assert out == "Claim[^1] and more[^2].\n\n[^1]: First note.\n\n[^2]: Second note.\n"


# ---------------------------------------------------------------------------------------
# HTML: only the static document, only safe links and local pictures


def test_scripts_styles_forms_and_handlers_never_reach_the_output(tmp_path):
    doc = convert(html(tmp_path, """<script>alert('s')</script><style>p{}</style>
        <noscript>enable js</noscript><template><p>tpl</p></template>
        <form action="/x"><label>Name</label><input value="secret-value"><button>Go</button>
        <select><option>opt</option></select><textarea>ta</textarea></form>
        <p onclick="alert('h')" hidden>hidden</p><p style="display:none">none</p>
        <p onmouseover="alert(1)">shown <a href="javascript:alert(2)">js link</a>
        <a href="https://example.org/" onclick="x()">web</a> <a href="file:///etc/passwd">f</a></p>
        <iframe src="https://evil.example/"></iframe><object data="x.swf">obj</object>""",
                          head="<title>T</title><script>alert(3)</script>"))
    out, mid = to_markdown(doc), str(to_middle_json(doc))
    assert out == "Name\n\nshown js link [web](https://example.org/) f\n"
    for bad in ("alert", "secret-value", "enable js", "tpl", "hidden", "none", "passwd", "obj",
                "evil", "javascript", "onclick", "opt", "ta\n"):
        assert bad not in out and bad not in mid, bad


def test_images_from_data_uris_and_the_folder_only(tmp_path):
    folder = tmp_path / "site"
    (folder / "img").mkdir(parents=True)
    (folder / "img" / "a.png").write_bytes(PNG)
    (tmp_path / "secret.png").write_bytes(PNG + b"secret")
    (folder / "link.png").symlink_to(tmp_path / "secret.png")
    (folder / "fake.png").write_bytes(b"<script>alert(1)</script>")
    data = "data:image/png;base64," + base64.b64encode(PNG).decode()
    doc = convert(html(folder, f"""<img src="img/a.png" alt="local"><img src="../secret.png" alt="up">
        <img src="link.png" alt="symlink"><img src="{folder}/img/a.png" alt="absolute">
        <img src="https://example.org/x.png" alt="remote"><img src="{data}" alt="inline">
        <img src="data:text/html,<script>x</script>" alt="html"><img src="fake.png" alt="fake">"""))
    assert sorted(doc.images) == ["image_001.png", "image_002.png"]
    assert all(v == PNG for v in doc.images.values())
    out = to_markdown(doc, "")
    # the picture on the web is referenced by its address (not fetched, not in images/);
    # the others outside the folder, the symbolic link out and the fake leave their alt
    # text, as a browser shows a picture it cannot load
    assert out == ("![local](image_001.png) up symlink absolute ![remote](https://example.org/x.png)"
                   "![inline](image_002.png) html fake\n")


def test_web_pictures_are_referenced_by_address_never_fetched(tmp_path, monkeypatch):
    import socket

    def no_network(*args, **kwargs):
        raise AssertionError("the reader opened a connection")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    body = """<p><img src="/static/a.png" alt="site"> <img src="//cdn.example.net/b.jpg" alt="cdn">
        <img src="c.gif"> <img src="ftp://example.org/d.png" alt=""></p>
        <p><img src="javascript:alert(1)" alt="js"></p>
        <table><tr><th>h</th><th>i</th></tr><tr><td><img src="e.png" alt="cell"></td><td>x</td></tr></table>"""
    doc = convert(html(tmp_path, body, head='<link rel="canonical" href="https://en.example.org/wiki/Duck">'))
    assert doc.images == {}
    out = to_markdown(doc)
    assert out.startswith("![site](https://en.example.org/static/a.png)\n\n"
                          "![cdn](https://cdn.example.net/b.jpg)\n\n![](https://en.example.org/wiki/c.gif)\n\n"
                          "js\n")  # a refused picture leaves its alt text, nothing else
    assert '<img src="https://en.example.org/wiki/e.png" alt="cell">' in out
    assert "ftp" not in out and "javascript" not in out
    images = [(e["img_path"], e["img_url"]) for e in to_content_list(doc) if e["type"] == "image"]
    assert images == [("", "https://en.example.org/static/a.png"), ("", "https://cdn.example.net/b.jpg"),
                      ("", "https://en.example.org/wiki/c.gif")]
    mid = str(to_middle_json(doc))
    assert "'image_url': 'https://cdn.example.net/b.jpg'" in mid
    # without a stated address, only absolute (and protocol-relative) sources are kept
    doc = convert(html(tmp_path, '<p><img src="/static/a.png" alt="site"></p><img src="//cdn.example.net/b.jpg">'))
    assert to_markdown(doc) == "site\n\n![](https://cdn.example.net/b.jpg)\n"
    entry = next(e for e in to_content_list(doc) if e["type"] == "image")
    assert entry["img_path"] == "" and entry["img_url"] == "https://cdn.example.net/b.jpg"


def test_relative_links_resolve_against_an_http_base_only(tmp_path):
    out = md(html(tmp_path, '<a href="/wiki/Duck">duck</a> <a href="#s">here</a>',
                  head='<link rel="x"><base href="https://en.example.org/a/">'))
    assert out == "[duck](https://en.example.org/wiki/Duck) [here](#s)\n"
    out = md(html(tmp_path, '<a href="/wiki/Duck">duck</a>', head='<base href="file:///x/">'))
    assert out == "duck\n"


# ---------------------------------------------------------------------------------------
# HTML: character sets


@pytest.mark.parametrize("text, encoding, meta", [
    ("مرحبا بالعالم، هذه صفحة عربية طويلة بما يكفي لتعرف عليها", "cp1256", "iso-8859-1"),
    ("日本語のページです。文字コードを正しく判定します。", "shift_jis", "shift_jis"),
    ("Ünïcödé page saved as UTF-8 with an old meta", "utf-8", "windows-1252"),
    ("Grüße aus Köln, eine Seite ohne Angabe des Zeichensatzes", "cp1252", None),
])
def test_charsets(tmp_path, text, encoding, meta):
    head = f'<meta charset="{meta}">' if meta else ""
    page = f"<html><head>{head}</head><body><p>{text}</p></body></html>"
    path = tmp_path / "c.html"
    path.write_bytes(page.encode(encoding))
    assert md(path) == text + "\n"


# ---------------------------------------------------------------------------------------
# MHTML


def _mhtml() -> bytes:
    png = base64.encodebytes(PNG).decode()
    return (
        "From: <Saved by Blink>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/related;\r\n"
        "\ttype=\"text/html\"; boundary=\"B\"\r\n\r\n--B\r\nContent-Type: text/html; charset=utf-8\r\n"
        "Content-Transfer-Encoding: quoted-printable\r\nContent-Location: https://ex.org/p/page.html\r\n\r\n"
        "<html><body><h1>Caf=C3=A9</h1><img src=3D\"pic.png\" alt=3D\"by location\">"
        "<img src=3D\"cid:img2@x\" alt=3D\"by cid\"><a href=3D\"other.html\">rel</a></body></html>\r\n"
        f"--B\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n"
        f"Content-Location: https://ex.org/p/pic.png\r\n\r\n{png}\r\n"
        f"--B\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n"
        f"Content-ID: <img2@x>\r\n\r\n{png}\r\n--B--\r\n").encode()


def test_mhtml_page_and_its_pictures(tmp_path):
    path = tmp_path / "saved.mhtml"
    path.write_bytes(_mhtml())
    doc = convert(path)
    assert to_markdown(doc, "") == ("# Café\n\n![by location](image_001.png)![by cid](image_002.png)"
                                    "[rel](https://ex.org/p/other.html)\n")


def test_mhtml_without_a_page_is_refused(tmp_path):
    path = tmp_path / "x.mht"
    path.write_bytes(b"MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=B\r\n\r\n"
                     b"--B\r\nContent-Type: image/png\r\n\r\nxx\r\n--B--\r\n")
    with pytest.raises(ConvertError, match="without an HTML page"):
        convert(path)


# ---------------------------------------------------------------------------------------
# EPUB


def _xhtml(body: str, title: str = "c") -> bytes:
    return (f'<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml" '
            f'xmlns:epub="http://www.idpf.org/2007/ops"><head><title>{title}</title></head>'
            f"<body>{body}</body></html>").encode()


def _epub(chapters: dict[str, bytes], spine: list[str] | None = None, extra=None,
          nav: str | None = None) -> bytes:
    spine = spine or list(chapters)
    items = "".join(f'<item id="i{i}" href="{n}" media-type="application/xhtml+xml"/>'
                    for i, n in enumerate(chapters))
    if nav:
        items += '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>'
    refs = "".join(f'<itemref idref="i{list(chapters).index(n)}"/>' for n in spine)
    opf = (f'<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
           f'<metadata/><manifest>{items}</manifest><spine>{refs}</spine></package>')
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("mimetype", "application/epub+zip")
        z.writestr("META-INF/container.xml",
                   '<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" version="1.0">'
                   '<rootfiles><rootfile full-path="OEBPS/content.opf" '
                   'media-type="application/oebps-package+xml"/></rootfiles></container>')
        z.writestr("OEBPS/content.opf", opf)
        for n, data in chapters.items():
            z.writestr(f"OEBPS/{n}", data)
        if nav:
            z.writestr("OEBPS/nav.xhtml", _xhtml(nav))
        for n, data in (extra or {}).items():
            z.writestr(n, data)
    return buf.getvalue()


def test_epub_spine_order_links_notes_and_toc(tmp_path):
    path = tmp_path / "book.epub"
    path.write_bytes(_epub({
        "b.xhtml": _xhtml('<h1 id="two">Two</h1><p>See <a href="a.xhtml#one">one</a>, '
                          '<a href="a.xhtml">the start</a> and <a href="https://ex.org">web</a>'
                          '<a epub:type="noteref" href="notes.xhtml#n1">1</a>.</p>'),
        "a.xhtml": _xhtml('<h1 id="one">One</h1><p>First &amp; <img src="../pic.png" alt="p"/></p>'),
        "notes.xhtml": _xhtml('<aside epub:type="footnote" id="n1"><p>The note.</p></aside>'),
    }, spine=["a.xhtml", "b.xhtml", "notes.xhtml"], extra={"pic.png": PNG, "OEBPS/pic.png": PNG},
        nav='<nav epub:type="toc"><ol><li><a href="a.xhtml">Chapter A</a></li>'
            '<li><a href="b.xhtml#two">Chapter B</a></li></ol></nav>'))
    doc = convert(path)
    assert [p.name for p in doc.pages] == ["Chapter A", "Chapter B"]  # the notes chapter: all notes
    assert to_markdown(doc, "") == (
        "# One\n\nFirst & ![p](image_001.png)\n\n# Two\n\nSee [one](#one), [the start](#a) and "
        "[web](https://ex.org)[^1].\n\n[^1]: The note.\n")
    assert list(doc.images.values()) == [PNG]  # ../pic.png: a member at the package's root


def test_epub_pictures_come_from_the_package(tmp_path):
    path = tmp_path / "pics.epub"
    path.write_bytes(_epub({"c.xhtml": _xhtml('<p><img src="img/p.png" alt="in"/>'
                                               '<img src="../../../etc/x.png" alt="out"/></p>')},
                           extra={"OEBPS/img/p.png": PNG}))
    doc = convert(path)
    assert list(doc.images.values()) == [PNG]
    assert to_markdown(doc, "") == "![in](image_001.png) out\n"  # out of the book: its alt text


def test_drm_and_broken_epubs_are_refused_in_one_line(tmp_path):
    enc = ('<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
           'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:CipherData>'
           '<enc:CipherReference URI="OEBPS/c.xhtml"/></enc:CipherData></enc:EncryptedData></encryption>')
    (tmp_path / "drm.epub").write_bytes(_epub({"c.xhtml": b"\x8f\x02garbage"},
                                              extra={"META-INF/encryption.xml": enc}))
    with pytest.raises(ConvertError, match="DRM"):
        convert(tmp_path / "drm.epub")
    r = CliRunner().invoke(app, ["parse", str(tmp_path / "drm.epub")])
    assert r.exit_code != 0 and len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.stderr
    empty = io.BytesIO()
    with zipfile.ZipFile(empty, "w") as z:
        z.writestr("mimetype", "application/epub+zip")
    (tmp_path / "empty.epub").write_bytes(empty.getvalue())
    with pytest.raises(ConvertError, match="no package document"):
        convert(tmp_path / "empty.epub")


def test_epub_parse_budget(tmp_path, monkeypatch):
    import mineru_tui.office.epub.reader as reader
    monkeypatch.setattr(reader, "EPUB_BUDGET", 4000)
    path = tmp_path / "big.epub"
    path.write_bytes(_epub({f"c{i}.xhtml": _xhtml("<p>" + "word " * 300 + "</p>")
                            for i in range(5)}))
    with pytest.raises(ConvertError, match="refused: the file holds more than"):
        convert(path)


# ---------------------------------------------------------------------------------------
# CSV / TSV


def test_csv_dialects_encodings_and_numbers_as_written(tmp_path):
    (tmp_path / "s.csv").write_text('id;name;amount\n007;"Smith; J.";1,50\n008;"two\nlines";1e3\n')
    assert md(tmp_path / "s.csv") == ("| id | name | amount |\n|---|---|---|\n"
                                      "| 007 | Smith; J. | 1,50 |\n| 008 | two<br>lines | 1e3 |\n")
    (tmp_path / "t.tsv").write_bytes("名前\t年齢\n佐藤\t30\n".encode("cp932"))
    assert md(tmp_path / "t.tsv") == "| 名前 | 年齢 |\n|---|---|\n| 佐藤 | 30 |\n"
    (tmp_path / "r.csv").write_text("a,b\n1\n1,2,3\n")
    assert md(tmp_path / "r.csv") == ("| a | b |  |\n|---|---|---|\n| 1 |  |  |\n| 1 | 2 | 3 |\n")


def test_huge_csv_is_cut_with_a_warning(tmp_path, monkeypatch):
    import mineru_tui.office.csv.reader as reader
    monkeypatch.setattr(reader, "MAX_CELLS", 100)
    (tmp_path / "h.csv").write_text("".join(f"{i},{i * 2}\n" for i in range(1000)))
    doc = convert(tmp_path / "h.csv")
    assert any(w.startswith("content cut: ") for w in doc.warnings), doc.warnings
    table = next(s.table for b in doc.iter_blocks() for l in b.lines for s in l.spans if s.table)
    assert len(table.rows) == 50
    r = CliRunner().invoke(app, ["parse", str(tmp_path / "h.csv")])
    assert r.exit_code == 0 and "content cut:" in r.stderr


# ---------------------------------------------------------------------------------------
# bounds


def test_deep_nesting_is_read_as_text_without_a_traceback(tmp_path):
    path = html(tmp_path, "<div>" * 5000 + "deep text" + "</div>" * 5000 + "<p>after</p>")
    doc = convert(path)
    out = to_markdown(doc)
    assert "deep text" in out and "after" in out
    assert doc.warnings


def test_html_parse_budget(tmp_path, monkeypatch):
    import mineru_tui.office.html.reader as reader
    monkeypatch.setattr(reader, "MAX_HTML_BYTES", 1000)
    path = html(tmp_path, "<p>" + "x" * 2000 + "</p>")
    with pytest.raises(ConvertError, match="refused"):
        convert(path)


def test_table_cell_cut(tmp_path, monkeypatch):
    import mineru_tui.office.html.blocks as blocks
    monkeypatch.setattr(blocks, "MAX_TABLE_CELLS", 10)
    rows = "".join(f"<tr><td>{i}</td><td>x</td></tr>" for i in range(20))
    doc = convert(html(tmp_path, f"<table>{rows}</table>"))
    assert any(w.startswith("content cut: ") for w in doc.warnings)


def test_a_folder_walk_takes_the_new_formats(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    html(src, "<p>page</p>", "a.html")
    (src / "b.csv").write_text("x,y\n1,2\n")
    (src / "c.epub").write_bytes(_epub({"c.xhtml": _xhtml("<p>book</p>")}))
    (src / "d.mhtml").write_bytes(_mhtml())
    (src / "e.html").write_bytes(b"\x00\x01binary")
    (src / "notes.txt").write_text("plain")
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["parse", str(src), "-o", str(out)])
    assert r.exit_code != 0  # e.html is broken, and says so
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["a", "b", "c", "d"]
    assert "e.html" in r.stderr and "notes.txt" not in r.stderr
    assert os.path.exists(out / "c" / "c.md")


def test_a_saved_page_resolves_links_against_its_stated_address(tmp_path):
    out = md(html(tmp_path, '<a href="/wiki/Goose">goose</a> <a href="//cdn.example.org/x">cdn</a>',
                  head='<link rel="canonical" href="https://en.example.org/wiki/Duck">'))
    assert out == "[goose](https://en.example.org/wiki/Goose) [cdn](https://cdn.example.org/x)\n"
    out = md(html(tmp_path, '<a href="/wiki/Goose">goose</a>',
                  head='<meta property="og:url" content="javascript:alert(1)">'))
    assert out == "goose\n"


def test_mathml_becomes_latex(tmp_path):
    out = md(html(tmp_path, """<p>Inline <math alttext="x equals a squared"><mi>x</mi><mo>=</mo>
        <msup><mi>a</mi><mn>2</mn></msup></math> and
        <math display="block"><mfrac><mn>1</mn><msqrt><mi>π</mi></msqrt></mfrac></math></p>
        <math><semantics><mi>y</mi><annotation encoding="application/x-tex">y_{tex}</annotation></semantics></math>"""))
    assert out == ("Inline $x={a}^{2}$ and\n\n$$\n\\frac{1}{\\sqrt{\\pi}}\n$$\n\n$y_{tex}$\n")


def test_elementary_maths_keeps_its_numbers_apart():
    # pandoc's features.epub (W3C's EPUB test 0100): a long division, <mlongdiv>
    out = to_markdown(convert(Path(__file__).parents[1] / "corpus" / "web" / "pandoc__features.epub"))
    assert "\\begin{array}{r}435.3 \\\\ 3\\big) 1306 \\\\ 12 \\\\ 10 \\\\ 9 \\\\ 16 \\\\ 15" in out


def test_figures_keep_their_caption_once(tmp_path):
    data = "data:image/png;base64," + base64.b64encode(PNG).decode()
    out = md(html(tmp_path, f'<figure><img src="{data}" alt="A duck"><figcaption>A duck'
                            f'</figcaption></figure><figure><img src="{data}" alt="other">'
                            f'<figcaption>Fig. 2</figcaption></figure>'))
    assert out == "![](image_001.png)\n\nA duck\n\n![other](image_001.png)\n\nFig. 2\n"


def test_epub_zip_limits_apply_before_reading(tmp_path):
    from mineru_tui.detect import ZipLimits
    path = tmp_path / "many.epub"
    path.write_bytes(_epub({f"c{i}.xhtml": _xhtml(f"<p>{i}</p>") for i in range(30)}))
    assert detect(path).kind == "epub"
    with pytest.raises(InputError, match="refused: zip has .* members"):
        detect(path, ZipLimits(max_members=10))
    cut = tmp_path / "cut.epub"
    cut.write_bytes(path.read_bytes()[:-200])
    with pytest.raises(InputError, match="corrupt or truncated"):
        detect(cut)


def test_odd_text_inputs(tmp_path):
    (tmp_path / "c.html").write_text("<!-- only a comment -->")
    doc = convert(tmp_path / "c.html")
    assert to_markdown(doc) == "" and doc.warnings  # empty, and says so
    (tmp_path / "r.html").write_bytes(bytes(range(1, 256)) * 20)
    with pytest.raises(InputError, match="unknown file type"):
        detect(tmp_path / "r.html")  # binary data under an .html name
    (tmp_path / "e.csv").write_bytes(b"\xef\xbb\xbf")
    assert convert(tmp_path / "e.csv").warnings == [EMPTY_WARNING]


def test_ruby_annotations_follow_their_base(tmp_path):
    out = md(html(tmp_path, "<p><ruby>漢字<rp>(</rp><rt>かんじ</rt><rp>)</rp></ruby> and "
                            "<ruby>2H<sub>2</sub><rt>hydrogen</rt></ruby></p>"))
    assert out == "漢字(かんじ) and 2H<sub>2</sub>(hydrogen)\n"


def test_mhtml_bounds(tmp_path, monkeypatch):
    import mineru_tui.office.html.mhtml as mhtml
    path = tmp_path / "a.mhtml"
    path.write_bytes(_mhtml())
    monkeypatch.setattr(mhtml, "MAX_PARTS", 1)
    with pytest.raises(ConvertError, match="more than 1 parts"):
        convert(path)
    monkeypatch.setattr(mhtml, "MAX_MHTML_BYTES", 100)
    with pytest.raises(ConvertError, match="larger than"):
        convert(path)


def test_progress_names_chapters_and_tables(tmp_path):
    (tmp_path / "b.epub").write_bytes(_epub({"a.xhtml": _xhtml("<h1>One</h1><p>x</p>"),
                                             "b.xhtml": _xhtml("<h1>Two</h1><p>y</p>")}))
    (tmp_path / "t.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    r = CliRunner().invoke(app, ["parse", "-v", str(tmp_path / "b.epub"), str(tmp_path / "t.csv"),
                                 str(html(tmp_path, "<p>z</p>"))])
    assert r.exit_code == 0, r.stderr
    lines = r.stderr.splitlines()
    assert ": ok (2 chapters, " in lines[0] and ": ok (1 table, " in lines[1], lines
    assert ": ok (1 page, " in lines[2], lines


def test_list_item_text_after_a_picture_is_kept(tmp_path):
    # Wikipedia's galleries: <li> holding a picture, then its caption
    png = "data:image/png;base64," + base64.b64encode(PNG).decode()
    out = md(html(tmp_path, f'<ol><li><div><img src="{png}" alt="logo"></div><div>The caption</div></li>'
                            f'<li>text <table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>'
                            f'after</li></ol>'))
    assert out == ("![logo](image_001.png)\n\n1. The caption\n2. text\n\n| a | b |\n|---|---|\n| c | d |\n\n"
                   "- after\n")


def test_real_pages_reference_their_web_pictures():
    corpus = Path(__file__).parents[1] / "corpus" / "web"
    blog = to_markdown(convert(corpus / "markitdown__test_blog.html"))
    # relative sources resolved against the page's canonical address, absolute ones kept
    assert "![AutoGen](https://microsoft.github.io/autogen/img/ag.svg)" in blog
    assert "![Chi Wang](https://github.com/sonichi.png)" in blog
    for name in ("docling__html_rich_table_cells.html", "docling__html_rich_table_cells.mhtml"):
        doc = convert(corpus / name)
        assert doc.images == {}
        assert ('<img src="https://upload.wikimedia.org/wikipedia/commons/thumb/a/ab/Witkopeend_-_white-headed_'
                'duck_-_Oxyura_leucocephala_3.tif/lossy-page1-250px-Witkopeend_-_white-headed_duck_-_Oxyura_'
                'leucocephala_3.tif.jpg" alt="White-headed duck thumbnail">') in to_markdown(doc)
    # a picture missing from the repository, on a page that states no address: its alt text
    assert "Example image" in to_markdown(convert(corpus / "docling__example_01.html"))
