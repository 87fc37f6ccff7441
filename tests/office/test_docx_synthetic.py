"""The .docx reader on small files built here: python-docx for the basics, raw XML for the rest."""

from __future__ import annotations

import io

import pytest

from tests.docx_fixtures import (PNG, build_docx, cell, heading_styles, image_run, numbering, numpr,
                           p, run, table)
from mineru_tui.document import BlockType, SpanType, plain_text, to_markdown
from mineru_tui.errors import InputError
from mineru_tui.office.docx import read_docx


def read(tmp_path, data: bytes, name: str = "t.docx"):
    path = tmp_path / name
    path.write_bytes(data)
    doc = read_docx(path)
    # The reader's catch-all for damaged elements must not be hiding our own bugs.
    assert not [w for w in doc.warnings if "damaged" in w], doc.warnings
    return doc


def blocks(doc):
    return doc.pages[0].para_blocks


def spans(doc):
    return [s for b in doc.iter_blocks() for line in b.lines for s in line.spans]


def tables(doc):
    return [s.table for s in spans(doc) if s.table is not None]


def ctext(c) -> str:
    return " ".join(t for t in (plain_text(b) for b in c.blocks) if t)


# ------------------------------------------------------------------ python-docx built


def test_python_docx_document(tmp_path):
    import docx
    from docx.enum.text import WD_BREAK
    from docx.shared import Inches
    from PIL import Image

    d = docx.Document()
    d.add_heading("Report", 0)  # Title style
    d.add_heading("Intro", 1)
    para = d.add_paragraph("plain ")
    para.add_run("bold").bold = True
    para.add_run(" ")
    para.add_run("ital").italic = True
    para.add_run(" ")
    para.add_run("under").underline = True
    para.add_run(" ")
    r = para.add_run("gone")
    r.font.strike = True
    para.add_run(" x")
    r = para.add_run("2")
    r.font.superscript = True
    para.add_run(" H")
    r = para.add_run("2")
    r.font.subscript = True
    para.add_run("O")
    br = d.add_paragraph("line one")
    br.runs[0].add_break()
    br.add_run("line two\tafter tab")
    br.runs[-1].add_break(WD_BREAK.PAGE)
    d.add_heading("Details", 2)
    d.add_paragraph("first", style="List Bullet")
    d.add_paragraph("second", style="List Bullet")
    d.add_paragraph("one", style="List Number")
    d.add_paragraph("two", style="List Number")
    t = d.add_table(rows=3, cols=3)
    for i in range(3):
        for j in range(3):
            t.cell(i, j).text = f"c{i}{j}"
    a = t.cell(0, 0).merge(t.cell(0, 1))
    a.text = "wide"
    b = t.cell(1, 2).merge(t.cell(2, 2))
    b.text = "tall"
    buf = io.BytesIO()
    Image.new("RGB", (4, 3), (200, 10, 10)).save(buf, "PNG")
    buf.seek(0)
    d.add_picture(buf, width=Inches(1))
    d.sections[0].header.paragraphs[0].text = "Running head"
    d.sections[0].footer.paragraphs[0].text = "Page foot"
    path = tmp_path / "built.docx"
    d.save(path)

    doc = read_docx(path)
    assert [(b.level, plain_text(b)) for b in doc.iter_blocks() if b.type == BlockType.TITLE] == [
        (1, "Report"), (2, "Intro"), (3, "Details")]
    styled = {s.content: s.style for s in spans(doc) if s.type == SpanType.TEXT}
    assert styled["bold"] == {"bold"} and styled["ital"] == {"italic"}
    assert styled["under"] == {"underline"} and styled["gone"] == {"strike"}
    assert styled["2"] in ({"superscript"}, {"subscript"})
    assert sum(1 for s in spans(doc) if s.content == "2" and s.style == {"subscript"}) == 1
    two_lines = next(b for b in blocks(doc) if plain_text(b).startswith("line one"))
    assert [plain_text_line(l) for l in two_lines.lines] == ["line one", "line two\tafter tab"]
    lists = [b for b in blocks(doc) if b.type == BlockType.LIST]
    assert [[(i.marker, plain_text(i)) for i in lst.blocks] for lst in lists] == [
        [("-", "first"), ("-", "second")], [("1.", "one"), ("2.", "two")]]
    [tbl] = tables(doc)
    assert [(ctext(c), c.colspan, c.rowspan) for c in tbl.rows[0]] == [("wide", 2, 1), ("c02", 1, 1)]
    assert [(ctext(c), c.rowspan) for c in tbl.rows[1]] == [("c10", 1), ("c11", 1), ("tall", 2)]
    assert len(tbl.rows[2]) == 2
    assert len(doc.images) == 1 and next(iter(doc.images.values())).startswith(b"\x89PNG")
    md = to_markdown(doc)
    assert "**bold**" in md and "*ital*" in md and "~~gone~~" in md and "<sup>2</sup>" in md
    assert "![](images/image_001.png)" in md
    disc = {(b.type, plain_text(b)) for b in doc.pages[0].discarded_blocks}
    assert disc == {(BlockType.HEADER, "Running head"), (BlockType.FOOTER, "Page foot")}
    assert "Running head" not in md


def plain_text_line(line) -> str:
    return "".join(s.content for s in line.spans).strip()


# ------------------------------------------------------------------ raw XML features


def test_tracked_changes_and_comments(tmp_path):
    body = ("<w:p>" + run("Kept ") +
            "<w:ins w:id=\"1\" w:author=\"a\">" + run("inserted ") + "</w:ins>"
            "<w:del w:id=\"2\" w:author=\"a\"><w:r><w:delText>deleted </w:delText></w:r></w:del>"
            "<w:moveFrom w:id=\"3\" w:author=\"a\">" + run("movedaway ") + "</w:moveFrom>"
            "<w:moveTo w:id=\"4\" w:author=\"a\">" + run("movedhere ") + "</w:moveTo>"
            '<w:commentRangeStart w:id="0"/>' + run("text") + '<w:commentRangeEnd w:id="0"/>'
            '<w:r><w:commentReference w:id="0"/></w:r></w:p>'
            '<w:tbl><w:tr>' + cell(p("row kept")) + '</w:tr>'
            '<w:tr><w:trPr><w:del w:id="5" w:author="a"/></w:trPr>' + cell(p("row deleted")) + '</w:tr></w:tbl>')
    comments = '<w:comment w:id="0" w:author="a"><w:p><w:r><w:t>A REMARK</w:t></w:r></w:p></w:comment>'
    doc = read(tmp_path, build_docx(body, {"comments": comments}))
    md = to_markdown(doc)
    assert "Kept inserted movedhere text" in md
    for gone in ("deleted", "movedaway", "A REMARK", "row deleted"):
        assert gone not in md
    assert "row kept" in md


def test_hyperlinks_rels_anchors_and_fields(tmp_path):
    body = ('<w:p><w:hyperlink r:id="rL1">' + run("external") + '</w:hyperlink> '
            '<w:hyperlink w:anchor="sec2">' + run("internal") + '</w:hyperlink></w:p>'
            '<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r>'
            '<w:r><w:instrText xml:space="preserve"> HYPERLINK "https://example.org/a b" \\o "tip" </w:instrText></w:r>'
            '<w:r><w:fldChar w:fldCharType="separate"/></w:r>' + run("field link") +
            '<w:r><w:fldChar w:fldCharType="end"/></w:r>' + run(" after") + '</w:p>'
            '<w:p><w:fldSimple w:instr=" HYPERLINK \\l &quot;bm1&quot; ">' + run("simple") + '</w:fldSimple>'
            '<w:hyperlink r:id="rL2">' + run("evil") + '</w:hyperlink></w:p>'
            '<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>PAGE</w:instrText></w:r>'
            '<w:r><w:fldChar w:fldCharType="separate"/></w:r>' + run("7") +
            '<w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>')
    doc = read(tmp_path, build_docx(body, links={"rL1": "https://example.com/x",
                                                 "rL2": "javascript:alert(1)"}))
    links = {s.content: s.link for s in spans(doc) if s.link}
    assert links == {"external": "https://example.com/x", "internal": "#sec2",
                     "field link": "https://example.org/a b", "simple": "#bm1",
                     "evil": "javascript:alert(1)"}
    md = to_markdown(doc)
    assert "[external](https://example.com/x)" in md and "[internal](#sec2)" in md
    assert "[field link](https://example.org/a%20b) after" in md
    assert "HYPERLINK" not in md and "javascript" not in md and "evil" in md
    assert "7" in md.split("\n")[-2]  # the PAGE field shows its cached result only


def _omml_frac():
    return ('<m:f><m:num><m:r><m:t>a</m:t></m:r></m:num>'
            '<m:den><m:r><m:t>b</m:t></m:r></m:den></m:f>')


def test_omml_inline_and_display(tmp_path):
    body = ('<w:p>' + run("Inline ") + '<m:oMath><m:r><m:t>x</m:t></m:r></m:oMath>' + run(" here.") + '</w:p>'
            '<w:p><m:oMathPara><m:oMath>' + _omml_frac() + '</m:oMath></m:oMathPara></w:p>'
            '<w:p><m:oMath><m:r><m:t>y=1</m:t></m:r></m:oMath></w:p>')
    doc = read(tmp_path, build_docx(body))
    kinds = [b.type for b in blocks(doc)]
    assert kinds == [BlockType.TEXT, BlockType.INTERLINE_EQUATION, BlockType.INTERLINE_EQUATION]
    inline = [s for s in spans(doc) if s.type == SpanType.INLINE_EQUATION]
    assert [s.content for s in inline] == ["x"]
    md = to_markdown(doc)
    assert "Inline $x$ here." in md
    assert "$$\ny=1\n$$" in md.replace(" ", "")
    try:
        import mineru_tui.office.omml  # noqa: F401
    except ImportError:
        assert "$$\nab\n$$" in md  # plain-text fallback, with a warning
        assert any("OMML" in w for w in doc.warnings)
    else:
        assert "\\frac{a}{b}" in md


def test_nested_tables_and_vmerge(tmp_path):
    inner = table([[cell(p("in1")), cell(p("in2"))]])
    body = table([
        [cell(p("A"), '<w:vMerge w:val="restart"/>'), cell(p("B"), '<w:gridSpan w:val="2"/>')],
        [cell(p(""), "<w:vMerge/>"), cell(p("C")), cell(p("D") + inner)],
        [cell(p(""), '<w:vMerge w:val="continue"/>'), cell(p("E")), cell(p("F"))],
        [cell(p("G")), cell(p("H")), cell(p("I"))],
    ], grid=3)
    doc = read(tmp_path, build_docx(body))
    outer, nested = tables(doc)[0], None
    rows = [[(ctext(c), c.colspan, c.rowspan) for c in r] for r in outer.rows]
    assert rows[0] == [("A", 1, 3), ("B", 2, 1)]
    assert [c[0] for c in rows[1]] == ["C", "D"]
    assert [c[0] for c in rows[2]] == ["E", "F"]
    assert [c[0] for c in rows[3]] == ["G", "H", "I"]
    d_cell = outer.rows[1][1]
    nested = [b for b in d_cell.blocks if b.type == BlockType.TABLE]
    assert len(nested) == 1
    html = to_markdown(doc)
    assert '<td rowspan="3">A</td>' in html and '<td colspan="2">B</td>' in html
    assert "<table><tr><td>in1</td><td>in2</td></tr></table>" in html


def test_rtl_and_cjk_text_intact(tmp_path):
    hebrew = "שלום עולם"
    arabic = "مرحبا بالعالم"
    cjk = "中文文本，日本語のテキスト，한국어"
    body = (p(hebrew, "<w:bidi/>", "<w:rtl/>") + p(arabic, "<w:bidi/>", "<w:rtl/>") + p(cjk)
            + '<w:p><w:r><w:t>漢</w:t></w:r><w:r><w:ruby><w:rubyPr/><w:rt><w:r><w:t>かん</w:t></w:r></w:rt>'
              '<w:rubyBase><w:r><w:t>字</w:t></w:r></w:rubyBase></w:ruby></w:r></w:p>')
    doc = read(tmp_path, build_docx(body))
    assert [plain_text(b) for b in blocks(doc)] == [hebrew, arabic, cjk, "漢字"]


def test_alternate_content_textbox_and_vml_image(tmp_path):
    box = ('<w:txbxContent>' + p("Boxed text") + p("Second line") + '</w:txbxContent>')
    body = ('<w:p>' + run("Before ") + '<w:r><mc:AlternateContent><mc:Choice Requires="wps">'
            '<w:drawing><wp:anchor><wp:docPr id="2" name="Text Box 1"/><a:graphic><a:graphicData>'
            f'<wps:wsp><wps:txbx>{box}</wps:txbx></wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing>'
            '</mc:Choice><mc:Fallback><w:pict><v:shape><v:textbox>' + box +
            '</v:textbox></v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r>' + run("after.") + '</w:p>'
            # A legacy VML picture only the Fallback has.
            '<w:p><w:r><mc:AlternateContent><mc:Choice Requires="w99"><w:unknownThing/></mc:Choice>'
            '<mc:Fallback><w:pict><v:shape alt="vml alt"><v:imagedata r:id="rImg"/></v:shape></w:pict>'
            '</mc:Fallback></mc:AlternateContent></w:r></w:p>')
    doc = read(tmp_path, build_docx(body, images={"rImg": PNG}))
    md = to_markdown(doc)
    assert md.count("Boxed text") == 1 and md.count("Second line") == 1
    assert [b.type for b in blocks(doc)] == [BlockType.TEXT, BlockType.TEXT, BlockType.TEXT,
                                             BlockType.TEXT, BlockType.IMAGE]
    assert [plain_text(b) for b in blocks(doc)[:4]] == ["Before", "Boxed text", "Second line", "after."]
    assert "![vml alt](images/image_001.png)" in md


def test_images_anchored_grouped_alt_and_captions(tmp_path):
    group = ('<w:r><w:drawing><wp:anchor><wp:docPr id="3" name="Group" descr="group alt"/>'
             '<a:graphic><a:graphicData><wpg:wgp xmlns:wpg="http://schemas.microsoft.com/office/word/2010/wordprocessingGroup">'
             '<pic:pic><pic:nvPicPr><pic:cNvPr id="4" name="a" descr="first"/></pic:nvPicPr>'
             '<pic:blipFill><a:blip r:embed="rImg1"/></pic:blipFill></pic:pic>'
             '<pic:pic><pic:nvPicPr><pic:cNvPr id="5" name="b"/></pic:nvPicPr>'
             '<pic:blipFill><a:blip r:embed="rImg2"/></pic:blipFill></pic:pic>'
             '</wpg:wgp></a:graphicData></a:graphic></wp:anchor></w:drawing></w:r>')
    seq = ('<w:p><w:pPr><w:pStyle w:val="Caption"/></w:pPr>' + run("Table ") +
           '<w:fldSimple w:instr=" SEQ Table \\* ARABIC ">' + run("1") + '</w:fldSimple>'
           + run(": Numbers") + '</w:p>')
    fig_caption = ('<w:p>' + run("Figure ") + '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
                   '<w:r><w:instrText>SEQ Figure</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>'
                   + run("1") + '<w:r><w:fldChar w:fldCharType="end"/></w:r>' + run(": A duck") + '</w:p>')
    body = ('<w:p>' + image_run("rImg1", "inline alt") + '</w:p>' + fig_caption
            + seq + table([[cell(p("1")), cell(p("2"))]])
            + '<w:p>' + group + '</w:p>'
            + '<w:p>' + image_run("rMissing") + run("survives") + '</w:p>')
    doc = read(tmp_path, build_docx(body, {"styles": heading_styles()},
                                    images={"rImg1": PNG, "rImg2": PNG + b"x"}))
    kinds = [b.type for b in blocks(doc)]
    assert kinds == [BlockType.IMAGE, BlockType.TABLE, BlockType.IMAGE, BlockType.IMAGE, BlockType.TEXT]
    fig, tbl = blocks(doc)[0], blocks(doc)[1]
    assert [(k.type, plain_text(k)) for k in fig.blocks[1:]] == [(BlockType.IMAGE_CAPTION, "Figure 1: A duck")]
    assert [(k.type, plain_text(k)) for k in tbl.blocks[:1]] == [(BlockType.TABLE_CAPTION, "Table 1: Numbers")]
    alts = [s.content for s in spans(doc) if s.type == SpanType.IMAGE]
    assert alts == ["inline alt", "first", "group alt"]
    assert len(doc.images) == 2  # the same image part twice is stored once
    assert any("missing" in w for w in doc.warnings)
    assert plain_text(blocks(doc)[-1]) == "survives"


def test_headings_styles_numbered_headings_and_lists(tmp_path):
    num = numbering([("decimal", "%1."), ("decimal", "%1.%2"), ("lowerLetter", "(%3)")],
                    abstract="0", nums={"1": ""})
    num += numbering([("upperRoman", "%1."), ("bullet", "•")], abstract="1",
                     nums={"2": "", "3": '<w:lvlOverride w:ilvl="0"><w:startOverride w:val="5"/></w:lvlOverride>'})
    body = (p("Intro", '<w:pStyle w:val="Heading1"/>' + numpr("1", 0))
            + p("Scope", '<w:pStyle w:val="Heading2"/>' + numpr("1", 1))
            + p("Aims", '<w:pStyle w:val="Heading2"/>' + numpr("1", 1))
            + p("Custom", '<w:pStyle w:val="MyChapter"/>')
            + p("Outline", '<w:outlineLvl w:val="2"/>')
            + p("Strong words", "", '<w:rStyle w:val="Strong"/>')
            + p("quoted", '<w:pStyle w:val="Quote"/>')
            + p("roman one", numpr("2", 0)) + p("bullet", numpr("2", 1)) + p("roman two", numpr("2", 0))
            + p("restarted", numpr("3", 0))
            + p("not a list", numpr("0", 0)))
    doc = read(tmp_path, build_docx(body, {"styles": heading_styles(), "numbering": num}))
    heads = [(b.level, plain_text(b)) for b in doc.iter_blocks() if b.type == BlockType.TITLE]
    assert heads == [(1, "1. Intro"), (2, "1.1 Scope"), (2, "1.2 Aims"), (2, "Custom"), (3, "Outline")]
    assert all("bold" not in s.style for b in doc.iter_blocks() if b.type == BlockType.TITLE
               for line in b.lines for s in line.spans)
    styled = {s.content: s.style for s in spans(doc)}
    assert styled["Strong words"] == {"bold"} and styled["quoted"] == {"italic"}
    lists = [b for b in blocks(doc) if b.type == BlockType.LIST]
    got = [[(i.depth, i.marker, plain_text(i)) for i in lst.blocks] for lst in lists]
    # numId 3 shares abstract 1 with numId 2 but restarts at 5; numId 0 is no list.
    assert got == [[(0, "I.", "roman one"), (1, "-", "bullet"), (0, "II.", "roman two"),
                    (0, "V.", "restarted")]]
    assert plain_text(blocks(doc)[-1]) == "not a list"
    md = to_markdown(doc)
    assert "## 1.1 Scope" in md and "Intro" in md.splitlines()[0]


def test_footnotes_endnotes_symbols_sdt_smarttag(tmp_path):
    foot = ('<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
            '<w:footnote w:id="1"><w:p><w:r><w:footnoteRef/></w:r>' + run(" Foot ") +
            '<w:hyperlink r:id="rL">' + run("site") + '</w:hyperlink></w:p></w:footnote>')
    end = '<w:endnote w:id="1"><w:p><w:r><w:endnoteRef/></w:r>' + run(" End text") + '</w:p></w:endnote>'
    body = ('<w:p>' + run("See") + '<w:r><w:footnoteReference w:id="1"/></w:r>' + run(" and")
            + '<w:r><w:endnoteReference w:id="1"/></w:r>' + run(" again")
            + '<w:r><w:footnoteReference w:id="1"/></w:r></w:p>'
            '<w:p><w:r><w:sym w:font="Symbol" w:char="F061"/><w:sym w:font="Symbol" w:char="F0B3"/>'
            '<w:sym w:font="Wingdings" w:char="F0FC"/></w:r></w:p>'
            '<w:sdt><w:sdtPr/><w:sdtContent>' + p("in control") + '</w:sdtContent></w:sdt>'
            '<w:p><w:smartTag w:uri="u" w:element="place">' + run("Paris") + '</w:smartTag>'
            '<w:sdt><w:sdtContent>' + run(" inline sdt") + '</w:sdtContent></w:sdt></w:p>')
    data = build_docx(body, {"footnotes": foot, "endnotes": end})
    doc = read(tmp_path, data)
    refs = [s.content for s in spans(doc) if s.type == SpanType.FOOTNOTE_REF]
    assert refs == ["1", "2", "1"]
    notes = [(b.note_id, plain_text(b)) for b in blocks(doc) if b.type == BlockType.PAGE_FOOTNOTE]
    assert notes == [("1", "Foot site"), ("2", "End text")]
    texts = [plain_text(b) for b in blocks(doc)]
    assert "α≥✓" in texts and "in control" in texts and "Paris inline sdt" in texts


def test_corrupt_parts_degrade(tmp_path):
    body = p("Item", numpr("1", 0)) + p("Heading", '<w:pStyle w:val="Heading1"/>') + '<w:p>' + image_run("rImg") + '</w:p>'
    # Malformed numbering and styles XML: python-docx refuses the package, the body is still read.
    data = build_docx(body, {"numbering": "<w:abstractNum", "styles": heading_styles()},
                      images={"rImg": PNG},
                      raw={"word/styles.xml": b"<not xml", "word/numbering.xml": b"<<<"})
    doc = read(tmp_path, data)
    assert "Item" in to_markdown(doc) and "Heading" in to_markdown(doc)
    assert doc.warnings
    # Without styles, "Heading1" still reads as a heading (by its id), and the list
    # without numbering definitions is still a list.
    assert [(b.type, b.level) for b in blocks(doc)[:2]] == [(BlockType.LIST, None), (BlockType.TITLE, 1)]
    assert len(doc.images) == 1
    # Numbering XML that parses but makes no sense: still a list, no crash.
    weird = ('<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="x"><w:start w:val="q"/></w:lvl></w:abstractNum>'
             '<w:num w:numId="1"><w:abstractNumId w:val="9"/></w:num>')
    doc = read(tmp_path, build_docx(body, {"numbering": weird}, images={"rImg": PNG}), "weird.docx")
    items = [i for b in blocks(doc) if b.type == BlockType.LIST for i in b.blocks]
    assert [plain_text(i) for i in items] == ["Item"]
    # An image relationship whose part is missing from the zip.
    data = build_docx(body, images={"rImg": PNG})
    import zipfile
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for item in src.infolist():
            if not item.filename.startswith("word/media/"):
                zf.writestr(item, src.read(item))
    doc = read(tmp_path, out.getvalue(), "noimage.docx")
    assert "Item" in to_markdown(doc) and not doc.images and doc.warnings


@pytest.mark.parametrize("data", [b"", b"not a zip at all", build_docx("")[:200]])
def test_unreadable_files_raise_input_error(tmp_path, data):
    with pytest.raises(InputError) as err:
        read(tmp_path, data, "bad.docx")
    # one line, and without the file name: the CLI puts it in front of the reason
    assert "\n" not in str(err.value) and "bad.docx" not in str(err.value)


def test_zip_without_document_raises_input_error(tmp_path):
    import zipfile
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("hello.txt", "hi")
    with pytest.raises(InputError):
        read(tmp_path, buf.getvalue())


def test_caption_kind_and_side(tmp_path):
    # This document captions tables below (Table 0 says so unambiguously), so "Table 1",
    # between two tables, goes to the one above it.
    body = (table([[cell(p("t0"))]]) + p("Table 0: below", '<w:pStyle w:val="Caption"/>') + p("text")
            + table([[cell(p("t1"))]]) + p("Table 1: below", '<w:pStyle w:val="Caption"/>')
            + table([[cell(p("t2"))]]) + p("Figure 2: above the figure", '<w:pStyle w:val="Caption"/>')
            + '<w:p>' + image_run("rImg") + '</w:p>' + p("A caption near nothing", '<w:pStyle w:val="Caption"/>'))
    doc = read(tmp_path, build_docx(body, {"styles": heading_styles()}, images={"rImg": PNG}))
    t0, _, t1, t2, fig, lone = blocks(doc)
    assert [plain_text(k) for k in t0.blocks if k.type == BlockType.TABLE_CAPTION] == ["Table 0: below"]
    assert [plain_text(k) for k in t1.blocks if k.type == BlockType.TABLE_CAPTION] == ["Table 1: below"]
    assert not [k for k in t2.blocks if k.type == BlockType.TABLE_CAPTION]
    assert [plain_text(k) for k in fig.blocks if k.type == BlockType.IMAGE_CAPTION] == ["Figure 2: above the figure"]
    assert lone.type == BlockType.TEXT


def test_unfinished_field_does_not_hide_text_and_heading_breaks(tmp_path):
    body = ('<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>BROKEN</w:instrText></w:r></w:p>'
            + p("still here")
            + '<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr>' + run("Two") + '<w:r><w:br/></w:r>' + run("lines") + '</w:p>')
    doc = read(tmp_path, build_docx(body, {"styles": heading_styles()}))
    assert [plain_text(b) for b in blocks(doc)] == ["still here", "Two lines"]


def test_caption_defaults_table_above(tmp_path):
    body = (table([[cell(p("t1"))]]) + p("Table 2: ambiguous", '<w:pStyle w:val="Caption"/>')
            + table([[cell(p("t2"))]]))
    doc = read(tmp_path, build_docx(body, {"styles": heading_styles()}))
    t1, t2 = blocks(doc)
    assert [plain_text(k) for k in t2.blocks if k.type == BlockType.TABLE_CAPTION] == ["Table 2: ambiguous"]


def _rewrite(data: bytes, edits: dict[str, list[tuple[bytes, bytes]]]) -> bytes:
    import zipfile
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for item in src.infolist():
            blob = src.read(item)
            for old, new in edits.get(item.filename, []):
                blob = blob.replace(old, new)
            zf.writestr(item, blob)
    return out.getvalue()


def test_macro_enabled_and_strict_packages(tmp_path):
    body = p("Hello") + '<w:p><w:hyperlink r:id="rL">' + run("link") + '</w:hyperlink></w:p>'
    base = build_docx(body, links={"rL": "https://example.com"})
    docm = _rewrite(base, {"[Content_Types].xml": [(
        b"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
        b"application/vnd.ms-word.document.macroEnabled.main+xml")]})
    doc = read(tmp_path, docm, "m.docm")
    assert "Hello" in to_markdown(doc) and "[link](https://example.com)" in to_markdown(doc)
    strict_w = b"http://purl.oclc.org/ooxml/wordprocessingml/main"
    strict_r = b"http://purl.oclc.org/ooxml/officeDocument/relationships"
    trans_w = b"http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    trans_r = b"http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    strict = _rewrite(base, {"word/document.xml": [(trans_w, strict_w), (trans_r, strict_r)],
                             "_rels/.rels": [(trans_r, strict_r)],
                             "word/_rels/document.xml.rels": [(trans_r, strict_r)]})
    doc = read(tmp_path, strict, "s.docx")
    assert "Hello" in to_markdown(doc) and "[link](https://example.com)" in to_markdown(doc)


def test_mutated_corpus_documents_never_crash(tmp_path):
    """Remove, move and garble random elements of real documents: a Document or an InputError."""
    import random
    import zipfile
    from pathlib import Path

    from lxml import etree

    rng = random.Random(3)
    corpus = Path(__file__).parents[1] / "corpus" / "office"
    for name in ("docling__word_sample.docx", "docling__word_tables.docx", "docling__equations.docx",
                 "pandoc__notes.docx", "mammoth__text-box.docx"):
        src = zipfile.ZipFile(corpus / name)
        root = etree.fromstring(src.read("word/document.xml"))
        for trial in range(6):
            tree = etree.fromstring(etree.tostring(root))
            nodes = list(tree.iter())[2:]
            for el in rng.sample(nodes, min(len(nodes), 25)):
                parent = el.getparent()
                if parent is None:
                    continue
                action = rng.randrange(4)
                if action == 0:
                    parent.remove(el)
                elif action == 1:
                    for key in list(el.attrib):
                        el.set(key, rng.choice(["", "-1", "x", "99999999", "restart"]))
                elif action == 2:
                    tree.find(".//{*}body").append(el)  # move it to the body's end
                else:
                    el.text = "garbled \u202e\ufeff"
            out = io.BytesIO()
            with zipfile.ZipFile(out, "w") as zf:
                for item in src.infolist():
                    data = etree.tostring(tree) if item.filename == "word/document.xml" else src.read(item)
                    zf.writestr(item.filename, data)
            path = tmp_path / f"{trial}_{name}"
            path.write_bytes(out.getvalue())
            try:
                doc = read_docx(path)
            except InputError:
                continue
            to_markdown(doc)


def test_code_styles(tmp_path):
    styles = ('<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>'
              '<w:style w:type="paragraph" w:styleId="SourceCode"><w:name w:val="Source Code"/></w:style>'
              '<w:style w:type="character" w:styleId="VerbatimChar"><w:name w:val="Verbatim Char"/></w:style>')
    body = (p("Run ") + p("def f(x):", '<w:pStyle w:val="SourceCode"/>')
            + p("    return x", '<w:pStyle w:val="SourceCode"/>') + p("Then ", "", "")
            + '<w:p>' + run("call ") + run("f(1)", '<w:rStyle w:val="VerbatimChar"/>') + '</w:p>')
    doc = read(tmp_path, build_docx(body, {"styles": styles}))
    kinds = [b.type for b in blocks(doc)]
    assert kinds == [BlockType.TEXT, BlockType.CODE, BlockType.TEXT, BlockType.TEXT]
    md = to_markdown(doc)
    assert "```\ndef f(x):\n    return x\n```" in md
    assert "call `f(1)`" in md


def test_smartart_text_and_html_alt_chunk(tmp_path):
    dgm = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
    data = (f'<dgm:dataModel xmlns:dgm="{dgm}" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">'
            '<dgm:ptLst><dgm:pt modelId="0" type="doc"><dgm:t><a:p><a:r><a:t>Root</a:t></a:r></a:p></dgm:t></dgm:pt>'
            '<dgm:pt modelId="1"><dgm:t><a:p><a:r><a:t>Step one</a:t></a:r></a:p></dgm:t></dgm:pt>'
            '<dgm:pt modelId="2" type="parTrans"><dgm:t><a:p><a:r><a:t>HIDDEN</a:t></a:r></a:p></dgm:t></dgm:pt>'
            '<dgm:pt modelId="3"><dgm:t><a:p><a:r><a:t>Step two</a:t></a:r></a:p></dgm:t></dgm:pt>'
            '</dgm:ptLst></dgm:dataModel>').encode()
    html = (b"<html><head><style>p{}</style></head><body><h2>Imported</h2><p>From <b>HTML</b></p>"
            b"<ul><li><p>item</p></li></ul><script>alert(1)</script></body></html>")
    body = (p("Before") + '<w:p><w:r><w:drawing><wp:inline><wp:docPr id="1" name="Diagram"/><a:graphic>'
            '<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/diagram">'
            f'<dgm:relIds xmlns:dgm="{dgm}" r:dm="rDm" r:lo="rLo" r:qs="rQs" r:cs="rCs"/>'
            '</a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>'
            '<w:altChunk r:id="rChunk"/>' + p("After"))
    others = {"rDm": (RT_BASE + "diagramData", "diagrams/data1.xml",
                      "application/vnd.openxmlformats-officedocument.drawingml.diagramData+xml", data),
              "rChunk": (RT_BASE + "aFChunk", "chunk.html", "text/html", html)}
    doc = read(tmp_path, build_docx(body, others=others))
    assert [plain_text(b) for b in blocks(doc)] == [
        "Before", "Root", "Step one", "Step two", "Imported", "From HTML", "item", "After"]
    assert blocks(doc)[4].type == BlockType.TITLE and blocks(doc)[4].level == 2


RT_BASE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"


def test_html_alt_chunk_keeps_lists_tables_links_and_pictures(tmp_path):
    import base64

    png = "data:image/png;base64," + base64.b64encode(PNG).decode()
    html = (f'<html><body><ol start="3"><li>three</li><li><i>four</i></li></ol>'
            f'<table><tr><th colspan="2">Head</th></tr><tr><td>a</td><td>b</td></tr></table>'
            f'<p><a href="https://example.org/x">web</a> <a href="file:///etc/passwd">local</a> '
            f'<a href="javascript:alert(1)" onclick="alert(2)">js</a></p>'
            f'<p><img src="{png}" alt="pic"></p></body></html>').encode()
    doc = read(tmp_path, build_docx(p("Before") + '<w:altChunk r:id="rChunk"/>', others={
        "rChunk": (RT_BASE + "aFChunk", "chunk.html", "text/html", html)}))
    assert list(doc.images.values()) == [PNG]
    assert to_markdown(doc, "") == (
        "Before\n\n3. three\n4. *four*\n\n"
        '<table><tr><th colspan="2">Head</th></tr><tr><td>a</td><td>b</td></tr></table>\n\n'
        "[web](https://example.org/x) local js\n\n![pic](image_001.png)\n")


def test_header_rows_grid_before_and_sdt_cells(tmp_path):
    body = ('<w:tbl><w:tblGrid><w:gridCol/><w:gridCol/><w:gridCol/></w:tblGrid>'
            '<w:tr><w:trPr><w:tblHeader/></w:trPr>' + cell(p("H1")) + cell(p("H2")) + cell(p("H3")) + '</w:tr>'
            '<w:tr><w:trPr><w:gridBefore w:val="1"/></w:trPr>' + cell(p("late"), '<w:gridSpan w:val="2"/>') + '</w:tr>'
            '<w:tr><w:sdt><w:sdtContent>' + cell(p("s1")) + cell(p("s2")) + cell(p("s3")) + '</w:sdtContent></w:sdt></w:tr>'
            '</w:tbl>')
    doc = read(tmp_path, build_docx(body))
    [tbl] = tables(doc)
    assert [c.header for c in tbl.rows[0]] == [True, True, True]
    assert [(ctext(c), c.colspan) for c in tbl.rows[1]] == [("", 1), ("late", 2)]
    assert [ctext(c) for c in tbl.rows[2]] == ["s1", "s2", "s3"]
    assert "<th>H1</th>" in to_markdown(doc)


C_NS = "http://schemas.openxmlformats.org/drawingml/2006/chart"


def _read_with_chart(tmp_path, chart_xml: bytes):
    """A document whose one paragraph holds an inline chart (part charts/chart1.xml)."""
    body = ('<w:p><w:r><w:drawing><wp:inline><wp:docPr id="1" name="Chart 1"/><a:graphic>'
            f'<a:graphicData uri="{C_NS}"><c:chart xmlns:c="{C_NS}" r:id="rChart"/></a:graphicData>'
            '</a:graphic></wp:inline></w:drawing></w:r></w:p>')
    others = {"rChart": (RT_BASE + "chart", "charts/chart1.xml",
                         "application/vnd.openxmlformats-officedocument.drawingml.chart+xml", chart_xml)}
    return read(tmp_path, build_docx(body, others=others))


def test_chart_as_data_table(tmp_path):
    c = C_NS
    def ser(name, vals):
        pts = "".join(f'<c:pt idx="{i}"><c:v>{v}</c:v></c:pt>' for i, v in enumerate(vals))
        cats = "".join(f'<c:pt idx="{i}"><c:v>{v}</c:v></c:pt>' for i, v in enumerate(["Q1", "Q2"]))
        return (f'<c:ser><c:tx><c:strRef><c:strCache><c:pt idx="0"><c:v>{name}</c:v></c:pt></c:strCache></c:strRef></c:tx>'
                f'<c:cat><c:strRef><c:strCache>{cats}</c:strCache></c:strRef></c:cat>'
                f'<c:val><c:numRef><c:numCache>{pts}</c:numCache></c:numRef></c:val></c:ser>')
    chart = (f'<c:chartSpace xmlns:c="{c}" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">'
             '<c:chart><c:title><c:tx><c:rich><a:p><a:r><a:t>Sales</a:t></a:r></a:p></c:rich></c:tx></c:title>'
             '<c:plotArea><c:barChart>' + ser("North", [1, 2]) + ser("South", [3, 4.5]) +
             '</c:barChart></c:plotArea></c:chart></c:chartSpace>').encode()
    doc = _read_with_chart(tmp_path, chart)
    [block] = blocks(doc)
    assert block.type == BlockType.TABLE and block.sub_type == "chart"
    assert [plain_text(k) for k in block.blocks if k.type == BlockType.TABLE_CAPTION] == ["Bar chart: Sales"]
    [tbl] = tables(doc)
    assert [[ctext(c) for c in r] for r in tbl.rows] == [["", "North", "South"], ["Q1", "1", "3"],
                                                       ["Q2", "2", "4.5"]]


def test_untitled_chart_named_by_type_values_as_shown(tmp_path):
    c = C_NS
    chart = (f'<c:chartSpace xmlns:c="{c}"><c:chart><c:autoTitleDeleted val="0"/><c:plotArea>'
             '<c:lineChart><c:ser><c:tx><c:v>A</c:v></c:tx><c:val><c:numRef><c:numCache>'
             '<c:formatCode>General</c:formatCode><c:pt idx="0"><c:v>4.4000000000000004</c:v></c:pt>'
             '</c:numCache></c:numRef></c:val></c:ser><c:ser><c:tx><c:v>B</c:v></c:tx><c:val><c:numLit>'
             '<c:pt idx="0"><c:v>2</c:v></c:pt></c:numLit></c:val></c:ser></c:lineChart>'
             '<c:barChart><c:barDir val="col"/><c:ser><c:val><c:numLit><c:pt idx="0"><c:v>1</c:v></c:pt>'
             '</c:numLit></c:val></c:ser></c:barChart></c:plotArea></c:chart></c:chartSpace>').encode()
    doc = _read_with_chart(tmp_path, chart)
    [block] = blocks(doc)
    assert [plain_text(k) for k in block.blocks if k.type == BlockType.TABLE_CAPTION] == [
        "Line / Column chart"]
    [tbl] = tables(doc)
    assert [[ctext(c) for c in r] for r in tbl.rows] == [["A", "B", "Series 3"], ["4.4", "2", "1"]]


# ------------------------------------------------------------------ check boxes


def _checkbox_sdt(checked: str | None, glyph: str) -> str:
    state = f'<w14:checked w14:val="{checked}"/>' if checked is not None else ""
    return (f'<w:sdt><w:sdtPr><w:id w:val="7"/><w14:checkbox>{state}'
            '<w14:checkedState w14:val="2612" w14:font="MS Gothic"/>'
            '<w14:uncheckedState w14:val="2610" w14:font="MS Gothic"/></w14:checkbox></w:sdtPr>'
            f'<w:sdtContent>{run(glyph)}</w:sdtContent></w:sdt>')


def _form_checkbox(state: str) -> str:
    return ('<w:r><w:fldChar w:fldCharType="begin"><w:ffData><w:name w:val="Check1"/>'
            f'<w:enabled/><w:checkBox><w:sizeAuto/>{state}</w:checkBox></w:ffData></w:fldChar></w:r>'
            '<w:r><w:instrText xml:space="preserve"> FORMCHECKBOX </w:instrText></w:r>'
            '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>')


def test_checkbox_content_controls_give_their_state(tmp_path):
    body = (f'<w:p>{_checkbox_sdt("1", "☒")}{run(" Design")}</w:p>'
            f'<w:p>{_checkbox_sdt("0", "☐")}{run(" Docs")}</w:p>'
            f'<w:p>{_checkbox_sdt(None, "☐")}{run(" Tests")}</w:p>'
            + table([[cell(p("Pick:") + f'<w:p>{_checkbox_sdt("true", "☒")}{run(" Tea")}</w:p>')]]))
    doc = read(tmp_path, build_docx(body))
    texts = [plain_text(b) for b in blocks(doc)[:3]]
    assert texts == ["[x] Design", "[ ] Docs", "[ ] Tests"]
    assert [ctext(c) for c in tables(doc)[0].rows[0]] == ["Pick: [x] Tea"]
    md = to_markdown(doc, "")
    assert "☒" not in md and "☐" not in md
    assert md.startswith("[x] Design\n\n[ ] Docs\n\n[ ] Tests\n\n")  # raw, task-list style
    assert "| Pick:<br>[x] Tea |" in md
    box = blocks(doc)[0].lines[0].spans[0]
    assert (box.content, box.checked) == ("[x]", True)


def test_checkbox_before_a_parenthesis_or_link_stays_literal(tmp_path):
    link = '<w:hyperlink r:id="rLink"><w:r><w:t>spec</w:t></w:r></w:hyperlink>'
    body = (f'<w:p>{_checkbox_sdt("1", "☒")}{run("(optional)")}</w:p>'
            f'<w:p>{_checkbox_sdt("0", "☐")}{link}</w:p>'
            f'<w:p>{_checkbox_sdt("0", "☐")}{run(": later")}</w:p>')
    doc = read(tmp_path, build_docx(body, links={"rLink": "https://example.com/spec"}))
    assert to_markdown(doc, "").strip().split("\n\n") == [
        "\\[x\\](optional)", "\\[ \\][spec](https://example.com/spec)", "\\[ \\]: later"]


def test_legacy_form_checkbox_fields(tmp_path):
    on, off = '<w:default w:val="1"/>', '<w:checked w:val="0"/>'
    body = (f'<w:p>{_form_checkbox(on)}{run(" on by default")}</w:p>'
            f'<w:p>{_form_checkbox(on + off)}{run(" unticked since")}</w:p>'
            f'<w:p>{_form_checkbox("<w:checked/>")}{run(" ticked")}</w:p>'
            f'<w:p>{_form_checkbox("")}{run(" never")}</w:p>')
    doc = read(tmp_path, build_docx(body))
    assert [plain_text(b) for b in blocks(doc)] == [
        "[x] on by default", "[ ] unticked since", "[x] ticked", "[ ] never"]


def test_leading_checkbox_glyphs_only(tmp_path):
    body = p("☑ done") + p("☐todo") + p("a ☒ in the middle stays") + p("✓ a tick is not a box")
    doc = read(tmp_path, build_docx(body))
    assert [plain_text(b) for b in blocks(doc)] == [
        "[x] done", "[ ] todo", "a ☒ in the middle stays", "✓ a tick is not a box"]
    assert to_markdown(doc, "").split("\n\n")[:2] == ["[x] done", "[ ] todo"]
    assert [s.checked for s in blocks(doc)[1].lines[0].spans] == [False, None]


# ------------------------------------------------------------------ linked (external) pictures


def test_linked_pictures_are_placeholders_never_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("do not read me")
    linked = image_run("rLocal", "a red square").replace('r:embed="rLocal"', 'r:link="rLocal"')
    web = image_run("rWeb", "logo").replace('r:embed="rWeb"', 'r:link="rWeb"')
    both = image_run("rImg", "cached").replace('r:embed="rImg"', 'r:embed="rImg" r:link="rWeb"')
    body = (p("Before") + f"<w:p>{linked}</w:p>" + f"<w:p>{web}</w:p>" + f"<w:p>{both}</w:p>"
            + '<w:p><w:r><w:pict><v:shape><v:imagedata r:id="rVml" o:title="vml pic"/></v:shape>'
            '</w:pict></w:r></w:p>')
    doc = read(tmp_path, build_docx(body, images={"rImg": PNG}, linked_images={
        "rLocal": secret.as_uri(), "rWeb": "https://example.com/logo.png",
        "rVml": "file:///C:/Users/me/Pictures/chart%201.emf"}))
    images = [b for b in blocks(doc) if b.type == BlockType.IMAGE]
    assert len(images) == 4
    assert len(doc.images) == 1  # only the embedded copy has bytes
    md = to_markdown(doc, "")
    assert "do not read me" not in md and all(b"do not read" not in v for v in doc.images.values())
    assert "Linked image: a red square (secret.txt, not embedded)" in md.replace("\\", "")
    assert "[Linked image: logo](https://example.com/logo.png)" in md
    assert "![cached](image_001.png)" in md  # an embedded copy wins over the link
    assert "Linked image: vml pic (chart 1.emf, not embedded)" in md
    assert "C:/Users" not in md  # the author's local path stays out
    assert any("outside the document" in w for w in doc.warnings)


# ------------------------------------------------------------------ several equations in one paragraph


def _omath(text: str) -> str:
    return f"<m:oMath><m:r><m:t>{text}</m:t></m:r></m:oMath>"


def test_sibling_equations_are_separate_display_equations(tmp_path):
    body = (p("Three siblings:")
            + "<w:p>" + _omath("a=b") + run(" ") + _omath("c=d") + _omath("e=f") + "</w:p>"
            + "<w:p><m:oMathPara><m:oMathParaPr/>" + _omath("x=1") + "<m:oMath/>" + _omath("y=2")
            + "</m:oMathPara></w:p>"
            + "<w:p>" + run("inline ") + _omath("z") + run(" and ") + _omath("w") + "</w:p>")
    doc = read(tmp_path, build_docx(body))
    kinds = [(b.type, plain_text(b)) for b in blocks(doc)]
    eq = BlockType.INTERLINE_EQUATION
    assert [k for k in kinds if k[0] == eq] == [(eq, "a=b"), (eq, "c=d"), (eq, "e=f"),
                                                 (eq, "x=1"), (eq, "y=2")]
    md = to_markdown(doc, "")
    assert md.count("$$") == 10
    assert "inline $z$ and $w$" in md  # math among text stays inline
