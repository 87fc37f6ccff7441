"""Tests of the .pptx reader: the corpus files and small presentations built here."""

from __future__ import annotations

import copy
import html
import io
import re
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from mineru_tui.document import (BlockType, SpanType, plain_text, to_content_list,
                                 to_markdown, to_middle_json, walk)
from mineru_tui.errors import InputError
from mineru_tui.office.pptx import read_pptx
from mineru_tui.office.pptx.order import reading_order
from mineru_tui.office.pptx.smartart import diagram_items, read_diagram
from mineru_tui.office.pptx.text import number_marker

CORPUS = Path(__file__).parents[1] / "corpus" / "office"
GROUNDTRUTH = CORPUS / "groundtruth"
PPTX_FILES = sorted(CORPUS.glob("*.pptx"))

A = "http://schemas.openxmlformats.org/drawingml/2006/main"
P = "http://schemas.openxmlformats.org/presentationml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


# ---------------------------------------------------------------------------------------
# helpers


def text_of(doc) -> str:
    """Every bit of text the document renders (Markdown, HTML tables unescaped)."""
    return html.unescape(to_markdown(doc)).replace("\\", "")


def blocks(doc, type_=None):
    out = [b for p in doc.pages for b in walk(p.para_blocks)]
    return [b for b in out if type_ is None or b.type == type_]


def tables(doc):
    """Structured tables of the document, in order."""
    out = []
    for b in blocks(doc, BlockType.TABLE_BODY):
        for line in b.lines:
            for s in line.spans:
                if s.type == SpanType.TABLE and s.table is not None:
                    out.append(s.table)
    return out


def cell_texts(table):
    return [[plain_text_cell(c) for c in row] for row in table.rows]


def plain_text_cell(cell):
    return " ".join(plain_text(b) for b in cell.blocks).strip()


def list_items(doc):
    return [(i.depth, i.marker, plain_text(i)) for b in blocks(doc, BlockType.LIST)
            for i in b.blocks]


def new_prs():
    from pptx import Presentation
    return Presentation()


def save(prs, tmp_path, name="t.pptx") -> Path:
    path = tmp_path / name
    prs.save(path)
    return path


def rewrite_zip(src: Path, dst: Path, edit) -> Path:
    """Copy a zip, passing each member through ``edit(name, data)`` (None drops it)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = edit(info.filename, zin.read(info.filename))
            if data is not None:
                zout.writestr(info.filename, data)
    return dst


def png_bytes() -> bytes:
    from PIL import Image
    buf = io.BytesIO()
    Image.new("RGB", (4, 3), (200, 10, 10)).save(buf, "PNG")
    return buf.getvalue()


def add_box(slide, text, x, y, w=2.0, h=1.0):
    from pptx.util import Inches
    box = slide.shapes.add_textbox(Inches(x), Inches(y), Inches(w), Inches(h))
    box.text_frame.text = text
    return box


# ---------------------------------------------------------------------------------------
# corpus


@pytest.mark.parametrize("path", PPTX_FILES, ids=lambda p: p.name)
def test_corpus_file_parses(path):
    doc = read_pptx(path)
    assert doc.pages, "no slides"
    assert [p.page_idx for p in doc.pages] == list(range(len(doc.pages)))
    assert all(p.name == f"Slide {i + 1}" for i, p in enumerate(doc.pages))
    assert all(p.page_size and p.page_size[0] > p.page_size[1] > 0 for p in doc.pages)
    assert text_of(doc).strip()
    to_content_list(doc)
    to_middle_json(doc)


def _md_words(md: str) -> list[str]:
    md = re.sub(r"[#|*_`\[\]()>-]", " ", md)
    return [w for w in md.split() if re.search(r"\w", w)]


def test_docling_sample_groundtruth_text():
    doc = read_pptx(CORPUS / "docling__powerpoint_sample.pptx")
    ours = text_of(doc).split()
    ours_text = " ".join(ours)
    missing = [w for w in _md_words((GROUNDTRUTH / "docling__powerpoint_sample.pptx.md").read_text())
               if w not in ours_text]
    assert not missing


def test_docling_sample_structure():
    doc = read_pptx(CORPUS / "docling__powerpoint_sample.pptx")
    assert len(doc.pages) == 3
    titles = [(b.level, plain_text(b)) for b in blocks(doc, BlockType.TITLE)]
    # the title slide's ctrTitle is level 1, the other slide titles sit under it
    assert titles == [(1, "Test Table Slide"), (2, "Second slide title")]
    assert doc.pages[0].para_blocks[0].type == BlockType.TITLE
    (table,) = tables(doc)
    assert table.has_merges()
    first, second = table.rows[0], table.rows[1]
    assert [(plain_text_cell(c), c.colspan, c.header) for c in first] == [
        ("", 1, True), ("Class1", 3, True), ("Class2", 3, True)]
    assert [(plain_text_cell(c), c.colspan) for c in second][:3] == [
        ("", 1), ("A merged with B", 2), ("C", 1)]
    rowspans = {plain_text_cell(row[0]): row[0].rowspan for row in table.rows if row}
    assert rowspans["R3"] == 2 and rowspans["R4"] == 3
    assert len(table.rows[5]) == 6  # the row under R3's merge has no covered cell
    # every grid row has 7 columns once spans and covered cells are counted
    covered = [0] * len(table.rows)
    for r, row in enumerate(table.rows):
        for c in row:
            for k in range(1, c.rowspan):
                covered[r + k] += c.colspan
    assert all(sum(c.colspan for c in row) + covered[r] == 7 for r, row in enumerate(table.rows))
    # lists: bullets from the master's body style, numbers from buAutoNum
    items = list_items(doc)
    assert (0, "-", "With foo") in items and (0, "-", "And baz things") in items
    assert [m for _, m, t in items if t.startswith("List item")] == ["1.", "2.", "3."]
    assert [m for _, m, t in items if t in ("List1", "List2", "List3")] == ["1.", "2.", "3."]
    texts = [plain_text(b) for b in blocks(doc, BlockType.TEXT)]
    assert "Let’s introduce a list" in texts  # buNone overrides the body bullet
    # speaker notes, last on their page
    notes = [(p.page_idx, plain_text(p.para_blocks[-1])) for p in doc.pages
             if p.para_blocks and p.para_blocks[-1].type == BlockType.NOTES]
    assert notes == [(1, "Some notes on the second slide."),
                     (2, "Final notes on the third slide.\nSecond line of notes.")]


def test_docling_sample_reading_order_of_side_by_side_boxes():
    doc = read_pptx(CORPUS / "docling__powerpoint_sample.pptx")
    md = to_markdown(doc)
    order = ["List item4", "I1", "Some info", "Item A", "Maybe a list", "List1", "l1"]
    positions = [md.index(t) for t in order]
    assert positions == sorted(positions)
    # on slide 2 the left column (the body placeholder) comes before the right rectangle
    assert md.index("Let’s introduce") < md.index("A rectangle shape")


def _native_words(path: Path) -> list[str]:
    return [html.unescape(w) for w in re.findall(r'Str "((?:[^"\\]|\\.)*)"', path.read_text())]


def test_pandoc_tables_groundtruth_and_cells():
    doc = read_pptx(CORPUS / "pandoc__tables.pptx")
    ours = text_of(doc)
    missing = [w for w in _native_words(GROUNDTRUTH / "pandoc__tables.pptx.native") if w not in ours]
    assert not missing
    assert len(doc.pages) == 2
    found = tables(doc)
    assert len(found) == 2
    for table in found:
        texts = cell_texts(table)
        assert texts[0] == ["Right", "Left", "Center", "Default"]
        assert texts[1:] == [["12"] * 4, ["123"] * 4, ["1"] * 4]
        assert all(c.header for c in table.rows[0])
    assert [plain_text(b) for b in blocks(doc, BlockType.TITLE)] == ["A Table, with a caption"]
    assert blocks(doc, BlockType.TITLE)[0].level == 1  # no title slide in this deck


def test_shapecrawler_groups_and_cjk():
    doc = read_pptx(CORPUS / "shapecrawler__autoshape-grouping.pptx")
    text = text_of(doc)
    for word in ("Shape 1", "Shape 2", "Text Box 1", "Text Box 2", "世界", "TEMP", "AutoShape 1"):
        assert word in text
    # the only slide is hidden: included, with a warning
    assert any("hidden" in w for w in doc.warnings)
    # a group's children stay together, top child first (chOff/chExt transformed)
    assert text.index("Text Box 1") < text.index("Text Box 2") < text.index("TextBox 3")
    assert text.index("Shape 1") < text.index("Shape 2")
    notes = [b for b in doc.pages[0].para_blocks if b.type == BlockType.NOTES]
    assert [plain_text(b) for b in notes] == ["Presentation Title Slide - Required"]
    hidden_skipped = read_pptx(CORPUS / "shapecrawler__autoshape-grouping.pptx",
                               include_hidden=False)
    assert hidden_skipped.pages == []


def test_chart_corpus_data_table():
    doc = read_pptx(CORPUS / "pythonpptx__cht-charts.pptx")
    charts = blocks(doc, BlockType.TABLE)
    assert len(charts) == 1 and charts[0].sub_type == "chart"
    (table,) = tables(doc)
    texts = cell_texts(table)
    assert texts[0] == ["", "Series 1", "Series 2", "Series 3"]
    assert texts[1] == ["Category 1", "4.3", "2.4", "2"]
    assert [r[0] for r in texts[1:]] == [f"Category {i}" for i in range(1, 5)]
    assert to_content_list(doc)[0]["sub_type"] == "chart"


# ---------------------------------------------------------------------------------------
# presentations built here


def test_two_column_layout_reading_order(tmp_path):
    prs = new_prs()
    slide = prs.slides.add_slide(prs.slide_layouts[3])  # Two Content: no xfrm on the slide
    slide.shapes.title.text = "Two columns"
    left, right = slide.placeholders[1], slide.placeholders[2]
    right.text_frame.text = "Right one"
    right.text_frame.add_paragraph().text = "Right two"
    left.text_frame.text = "Left one"
    left.text_frame.add_paragraph().text = "Left two"
    # free text boxes in two columns, rows aligned: still read column by column
    slide2 = prs.slides.add_slide(prs.slide_layouts[6])
    add_box(slide2, "B-top", 5.5, 1.0, 3.5, 1.0)
    add_box(slide2, "A-bottom", 0.5, 2.2, 3.5, 1.0)
    add_box(slide2, "A-top", 0.5, 1.0, 3.5, 1.0)
    add_box(slide2, "B-bottom", 5.5, 2.2, 3.5, 1.0)
    add_box(slide2, "Footer line", 0.5, 6.0, 9.0, 0.5)
    doc = read_pptx(save(prs, tmp_path))
    first = [plain_text(b) for b in doc.pages[0].para_blocks]
    assert first[0] == "Two columns"
    assert doc.pages[0].para_blocks[0].type == BlockType.TITLE
    assert first[1:] == ["Left one\nLeft two", "Right one\nRight two"]
    # placeholders inherit their boxes from the layout: left column is left of the right
    bx = [b.bbox for b in doc.pages[0].para_blocks]
    assert bx[1][2] <= bx[2][0]
    # body placeholder text is bulleted by the master's body style
    assert [(d, m) for d, m, _ in list_items(doc)] == [(0, "-")] * 4
    second = [plain_text(b) for b in doc.pages[1].para_blocks]
    assert second == ["A-top", "A-bottom", "B-top", "B-bottom", "Footer line"]


def test_group_shapes_with_child_offsets(tmp_path):
    from pptx.util import Inches
    prs = new_prs()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    add_box(slide, "Below", 0.5, 5.0)
    group = slide.shapes.add_group_shape()
    inner = group.shapes.add_group_shape()
    add_box(inner, "Child two", 20.0, 1.0)
    add_box(inner, "Child one", 20.0, 0.0)
    add_box(slide, "Above", 0.5, 0.5)
    # map the group's child space (x from 20 in) onto the slide at (0.5 in, 2 in)
    for grp, off, ch in ((group, (0.5, 2.0), (0.5, 2.0)), (inner, (0.5, 2.0), (20.0, 0.0))):
        xfrm = grp._element.find(f"{{{P}}}grpSpPr/{{{A}}}xfrm")
        for el in list(xfrm):
            xfrm.remove(el)
        for tag, (x, y) in (("off", off), ("ext", (2.0, 2.0)), ("chOff", ch), ("chExt", (2.0, 2.0))):
            el = etree.SubElement(xfrm, f"{{{A}}}{tag}")
            if tag in ("off", "chOff"):
                el.set("x", str(int(Inches(x)))), el.set("y", str(int(Inches(y))))
            else:
                el.set("cx", str(int(Inches(x)))), el.set("cy", str(int(Inches(y))))
    doc = read_pptx(save(prs, tmp_path))
    texts = [plain_text(b) for b in doc.pages[0].para_blocks]
    assert texts == ["Above", "Child one", "Child two", "Below"]
    child = doc.pages[0].para_blocks[1]
    assert child.bbox[0] == pytest.approx(36.0, abs=0.5)  # 0.5 in on the slide, in points
    assert child.bbox[1] == pytest.approx(144.0, abs=0.5)


def test_runs_styles_and_hyperlinks(tmp_path):
    prs = new_prs()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    box = add_box(slide, "", 1, 1, 6, 2)
    p = box.text_frame.paragraphs[0]
    for text, attr in (("bold ", "bold"), ("italic ", "italic"), ("under ", "underline"),
                       ("link", None), (" x", None), ("2", "sup"), (" H", None), ("2", "sub")):
        run = p.add_run()
        run.text = text
        if attr in ("bold", "italic", "underline"):
            setattr(run.font, attr, True)
        elif attr == "sup":
            run.font._rPr.set("baseline", "30000")
        elif attr == "sub":
            run.font._rPr.set("baseline", "-25000")
        if text == "link":
            run.hyperlink.address = "https://example.com/a?b=1"
    strike = p.add_run()
    strike.text = " gone"
    strike.font._rPr.set("strike", "sngStrike")
    clicked = add_box(slide, "Whole shape", 1, 4)
    clicked.click_action.hyperlink.address = "https://example.org/"
    second = prs.slides.add_slide(prs.slide_layouts[6])
    jump = add_box(slide, "Go to slide two", 4, 4)
    jump.click_action.target_slide = second
    doc = read_pptx(save(prs, tmp_path))
    assert {s.link for b in blocks(doc) for l in b.lines for s in l.spans
            if s.content == "Go to slide two"} == {"#slide-2"}
    spans = {s.content: s for b in blocks(doc) for l in b.lines for s in l.spans}
    assert spans["bold "].style == {"bold"}
    assert spans["italic "].style == {"italic"}
    assert spans["under "].style == {"underline"}
    assert spans["link"].link == "https://example.com/a?b=1"
    assert spans["2"].style in ({"superscript"}, {"subscript"})
    assert {s.content: s.style for b in blocks(doc) for l in b.lines for s in l.spans
            if s.content == " gone"}[" gone"] == {"strike"}
    assert spans["Whole shape"].link == "https://example.org/"
    md = to_markdown(doc)
    assert "[link](https://example.com/a?b=1)" in md
    assert "<sup>2</sup>" in md and "<sub>2</sub>" in md


def _set_bullet(paragraph, kind, **attrs):
    ppr = paragraph._p.get_or_add_pPr()
    el = etree.SubElement(ppr, f"{{{A}}}{kind}")
    for k, v in attrs.items():
        el.set(k, v)


def test_numbered_list_levels_and_bullets(tmp_path):
    prs = new_prs()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    box = add_box(slide, "Intro", 1, 1, 6, 4)
    tf = box.text_frame
    spec = [("One", 0, "buAutoNum", {"type": "arabicPeriod"}),
            ("Two", 0, "buAutoNum", {"type": "arabicPeriod"}),
            ("Two a", 1, "buAutoNum", {"type": "alphaLcParenR"}),
            ("Two b", 1, "buAutoNum", {"type": "alphaLcParenR"}),
            ("Dot", 2, "buChar", {"char": "•"}),
            ("Three", 0, "buAutoNum", {"type": "arabicPeriod"}),
            ("Plain", 0, "buNone", {}),
            ("Five", 0, "buAutoNum", {"type": "romanUcPeriod", "startAt": "5"}),
            ("Six", 0, "buAutoNum", {"type": "romanUcPeriod", "startAt": "5"})]
    for text, level, kind, attrs in spec:
        para = tf.add_paragraph()
        para.text = text
        para.level = level
        _set_bullet(para, kind, **attrs)
    doc = read_pptx(save(prs, tmp_path))
    kinds = [b.type for b in doc.pages[0].para_blocks]
    assert kinds == [BlockType.TEXT, BlockType.LIST, BlockType.TEXT, BlockType.LIST]
    assert list_items(doc) == [(0, "1.", "One"), (0, "2.", "Two"), (1, "a)", "Two a"),
                               (1, "b)", "Two b"), (2, "-", "Dot"), (0, "3.", "Three"),
                               (0, "V.", "Five"), (0, "VI.", "Six")]
    md = to_markdown(doc)
    # Markers CommonMark can't parse ("a)", "V.") become bullets that keep their label.
    assert "1. One\n2. Two\n   - a) Two a\n   - b) Two b\n     - Dot\n3. Three" in md
    assert "- V. Five\n- VI. Six" in md
    assert number_marker("alphaUcParenBoth", 28) == "(AB)"
    assert number_marker("romanLcPeriod", 14) == "xiv."


def test_picture_with_alt_text_and_missing_picture(tmp_path):
    from pptx.util import Inches
    prs = new_prs()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    pic = slide.shapes.add_picture(io.BytesIO(png_bytes()), Inches(1), Inches(1))
    pic._element.nvPicPr.cNvPr.set("descr", "A red dot")
    add_box(slide, "After the picture", 1, 4)
    again = prs.slides.add_slide(prs.slide_layouts[6])
    again.shapes.add_picture(io.BytesIO(png_bytes()), Inches(1), Inches(1))
    path = save(prs, tmp_path)
    doc = read_pptx(path)
    images = blocks(doc, BlockType.IMAGE)
    assert len(images) == 2 and len(doc.images) == 1  # one media part, shown twice
    images = images[:1]
    span = images[0].blocks[0].lines[0].spans[0]
    assert span.content == "A red dot"
    assert doc.images[span.image_path] == png_bytes()
    assert span.image_path.endswith(".png")
    assert f"![A red dot](images/{span.image_path})" in to_markdown(doc)
    # the media part removed, or garbage instead of PNG: a warning, the rest still read
    for edit in (lambda n, d: None if n.startswith("ppt/media/") else d,
                 lambda n, d: b"not a png" if n.startswith("ppt/media/") else d):
        broken = read_pptx(rewrite_zip(path, tmp_path / "broken.pptx", edit))
        # each picture keeps a placeholder named by its alt text (python-pptx writes the
        # file name, "image.png", when none is given); no image file
        assert [plain_text(b) for b in blocks(broken, BlockType.IMAGE)] == [
            "Missing image: A red dot", "Missing image: image.png"]
        assert broken.images == {}
        assert any("picture" in w for w in broken.warnings)
        assert "After the picture" in text_of(broken)


def test_linked_and_dangling_pictures(tmp_path):
    """A picture linked to a file (r:link) is never opened: a placeholder names it."""
    from pptx.util import Inches
    prs = new_prs()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    for i in range(4):
        pic = slide.shapes.add_picture(io.BytesIO(png_bytes()), Inches(1 + 2 * i), Inches(1))
        pic._element.nvPicPr.cNvPr.set("descr", ["Logo", "", "Chart pic", "Gone"][i])
    path = save(prs, tmp_path)
    targets = ["file:////Users/me/Pictures/logo%20v2.png", "C:\\pics\\local.jpg",
               "https://example.com/chart.png"]

    def edit(name, data):
        if name == "ppt/slides/slide1.xml":
            for i in range(3):  # r:embed="rIdN" -> r:link="rIdX{i}" (what PowerPoint writes)
                data = re.sub(rb'r:embed="rId\d+"', f'r:link="rIdX{i}"'.encode(), data, count=1)
            data = re.sub(rb'r:embed="rId\d+"', b'r:embed="rIdNowhere"', data, count=1)
        elif name == "ppt/slides/_rels/slide1.xml.rels":
            rels = "".join(
                f'<Relationship Id="rIdX{i}" Type="http://schemas.openxmlformats.org/'
                f'officeDocument/2006/relationships/image" Target="{html.escape(t)}" '
                f'TargetMode="External"/>' for i, t in enumerate(targets))
            data = data.replace(b"</Relationships>", rels.encode() + b"</Relationships>")
        return data

    doc = read_pptx(rewrite_zip(path, tmp_path / "linked.pptx", edit))
    images = blocks(doc, BlockType.IMAGE)
    assert [plain_text(b) for b in images] == [
        "Linked image: Logo (logo v2.png, not embedded)",
        "Linked image: local.jpg (not embedded)",
        "Linked image: Chart pic",
        "Missing image: Gone"]
    # a web target is a link the reader can follow, never an image a viewer would fetch
    assert images[2].blocks[0].lines[0].spans[0].link == "https://example.com/chart.png"
    md = to_markdown(doc)
    assert "[Linked image: Chart pic](https://example.com/chart.png)" in md
    assert "![" not in md and doc.images == {}  # nothing read for them: no image files
    assert sum("outside the presentation" in w for w in doc.warnings) == 3
    assert any("dangling" in w for w in doc.warnings)


def test_notes_footer_placeholders_and_hidden_slide(tmp_path):
    prs = new_prs()
    slide = prs.slides.add_slide(prs.slide_layouts[1])
    slide.shapes.title.text = "Slide with notes"
    slide.placeholders[1].text_frame.text = "Body"
    slide.notes_slide.notes_text_frame.text = "Say this first.\nThen this."
    layout_tree = prs.slide_layouts[1].shapes._spTree
    for sp in layout_tree.iter(f"{{{P}}}sp"):
        ph = sp.find(f".//{{{P}}}ph")
        if ph is not None and ph.get("type") in ("sldNum", "ftr"):
            clone = copy.deepcopy(sp)
            body = clone.find(f"{{{P}}}txBody")
            for para in body.findall(f"{{{A}}}p"):
                body.remove(para)
            text = "7" if ph.get("type") == "sldNum" else "Company footer"
            body.append(etree.fromstring(f'<a:p xmlns:a="{A}"><a:r><a:t>{text}</a:t></a:r></a:p>'))
            slide.shapes._spTree.append(clone)
    prs.slides.add_slide(prs.slide_layouts[1])  # empty placeholders only
    hidden = prs.slides.add_slide(prs.slide_layouts[6])
    add_box(hidden, "Secret slide", 1, 1)
    hidden._element.set("show", "0")
    doc = read_pptx(save(prs, tmp_path))
    assert len(doc.pages) == 3
    page = doc.pages[0]
    assert page.para_blocks[-1].type == BlockType.NOTES
    assert plain_text(page.para_blocks[-1]) == "Say this first.\nThen this."
    assert "> Say this first.\n> Then this." in to_markdown(doc)
    discarded = {(b.type, plain_text(b)) for b in page.discarded_blocks}
    assert discarded == {(BlockType.PAGE_NUMBER, "7"), (BlockType.FOOTER, "Company footer")}
    assert "Company footer" not in to_markdown(doc)
    assert doc.pages[1].para_blocks == []
    assert "Secret slide" in text_of(doc)
    assert any("hidden slide 3" in w for w in doc.warnings)
    assert len(read_pptx(tmp_path / "t.pptx", include_hidden=False).pages) == 2


def test_table_merges_built_with_python_pptx(tmp_path):
    from pptx.util import Inches
    prs = new_prs()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    shape = slide.shapes.add_table(3, 3, Inches(1), Inches(1), Inches(6), Inches(2))
    table = shape.table
    for r in range(3):
        for c in range(3):
            table.cell(r, c).text = f"r{r}c{c}"
    table.cell(0, 0).merge(table.cell(0, 1))
    table.cell(1, 2).merge(table.cell(2, 2))
    doc = read_pptx(save(prs, tmp_path))
    (t,) = tables(doc)
    assert [[(plain_text_cell(c), c.colspan, c.rowspan) for c in row] for row in t.rows] == [
        [("r0c0 r0c1", 2, 1), ("r0c2", 1, 1)],  # merging moves the text to the origin
        [("r1c0", 1, 1), ("r1c1", 1, 1), ("r1c2 r2c2", 1, 2)],
        [("r2c0", 1, 1), ("r2c1", 1, 1)]]
    assert all(c.header for c in t.rows[0])  # python-pptx sets firstRow="1"
    assert 'colspan="2"' in to_markdown(doc) and 'rowspan="2"' in to_markdown(doc)


def test_chart_built_with_python_pptx_and_broken_chart(tmp_path):
    from pptx.chart.data import CategoryChartData, XyChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches
    prs = new_prs()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    data = CategoryChartData(number_format="0.0%")
    data.categories = ["東京", "Paris"]
    data.add_series("Share", (0.125, 0.5))
    frame = slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(1),
                                   Inches(4), Inches(3), data)
    frame.chart.has_title = True
    frame.chart.chart_title.text_frame.text = "Market share"
    xy = XyChartData()
    series = xy.add_series("Points")
    series.add_data_point(1, 10)
    series.add_data_point(2.5, 20)
    slide.shapes.add_chart(XL_CHART_TYPE.XY_SCATTER, Inches(5), Inches(1), Inches(4),
                           Inches(3), xy)
    add_box(slide, "Under the charts", 1, 5)
    path = save(prs, tmp_path)
    doc = read_pptx(path)
    charts = blocks(doc, BlockType.TABLE)
    assert [c.sub_type for c in charts] == ["chart", "chart"]
    captions = [[plain_text(b) for b in c.blocks if b.type == BlockType.TABLE_CAPTION]
                for c in charts]
    # The chart type before the title, as the xlsx and docx readers caption charts.
    assert captions[0] == ["Column chart: Market share"]
    assert captions[1][0].startswith("Scatter chart")
    first, second = tables(doc)
    assert cell_texts(first) == [["", "Share"], ["東京", "12.5%"], ["Paris", "50.0%"]]
    assert cell_texts(second) == [["", "Points"], ["1", "10"], ["2.5", "20"]]
    # a chart part that is missing or corrupt: a warning, the other chart and text stay
    for edit in (lambda n, d: None if n == "ppt/charts/chart1.xml" else d,
                 lambda n, d: d[:100] if n == "ppt/charts/chart1.xml" else d):
        broken = read_pptx(rewrite_zip(path, tmp_path / "broken.pptx", edit))
        assert len(tables(broken)) == 1
        assert any("chart" in w for w in broken.warnings)
        assert "Under the charts" in text_of(broken)
    # a chart whose caches are gone: no table, but its type and title stay as a line
    def no_cache(n, d):
        if n != "ppt/charts/chart1.xml":
            return d
        return re.sub(rb"<c:(str|num)Cache>.*?</c:(str|num)Cache>", b"", d, flags=re.S)
    bare = read_pptx(rewrite_zip(path, tmp_path / "bare.pptx", no_cache))
    assert len(tables(bare)) == 1
    assert "Column chart: Market share" in text_of(bare)
    assert any("no cached data" in w for w in bare.warnings)


DATA_MODEL = f"""<dgm:dataModel xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram"
    xmlns:a="{A}">
  <dgm:ptLst>
    <dgm:pt modelId="0" type="doc"><dgm:t><a:p><a:r><a:t>ignored doc text</a:t></a:r></a:p></dgm:t></dgm:pt>
    <dgm:pt modelId="2"><dgm:t><a:bodyPr/><a:p><a:r><a:t>Second</a:t></a:r></a:p></dgm:t></dgm:pt>
    <dgm:pt modelId="1"><dgm:t><a:p><a:r><a:t>First</a:t></a:r></a:p></dgm:t></dgm:pt>
    <dgm:pt modelId="3"><dgm:t><a:p><a:r><a:t>Child of </a:t></a:r><a:r><a:t>first</a:t></a:r></a:p></dgm:t></dgm:pt>
    <dgm:pt modelId="9" type="parTrans"><dgm:t><a:p><a:r><a:t>transition</a:t></a:r></a:p></dgm:t></dgm:pt>
    <dgm:pt modelId="8" type="pres"/>
    <dgm:pt modelId="4"><dgm:t><a:p><a:r><a:t>漢字</a:t></a:r></a:p></dgm:t></dgm:pt>
  </dgm:ptLst>
  <dgm:cxnLst>
    <dgm:cxn modelId="10" srcId="0" destId="2" srcOrd="1"/>
    <dgm:cxn modelId="11" srcId="0" destId="1" srcOrd="0"/>
    <dgm:cxn modelId="12" srcId="1" destId="3" srcOrd="0"/>
    <dgm:cxn modelId="13" type="presOf" srcId="1" destId="8"/>
  </dgm:cxnLst>
</dgm:dataModel>"""


def test_smartart_data_model_text():
    root = etree.fromstring(DATA_MODEL.encode())
    assert diagram_items(root) == [(0, "First"), (1, "Child of first"), (0, "Second"),
                                   (0, "漢字")]
    block = read_diagram(root)
    assert block.type == BlockType.LIST
    assert [(i.depth, i.marker, plain_text(i)) for i in block.blocks] == [
        (0, "-", "First"), (1, "-", "Child of first"), (0, "-", "Second"), (0, "-", "漢字")]
    assert read_diagram(etree.fromstring(b"<x/>")) is None


def test_smartart_in_a_presentation(tmp_path):
    from pptx.opc.constants import RELATIONSHIP_TYPE as RT
    from pptx.opc.package import Part
    from pptx.opc.packuri import PackURI
    prs = new_prs()
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text = "Process"
    part = Part(PackURI("/ppt/diagrams/data1.xml"),
                "application/vnd.openxmlformats-officedocument.drawingml.diagramData+xml",
                prs.part.package, DATA_MODEL.encode())
    rid = slide.part.relate_to(part, RT.DIAGRAM_DATA)
    frame = etree.fromstring(f"""<p:graphicFrame xmlns:p="{P}" xmlns:a="{A}" xmlns:r="{R}">
      <p:nvGraphicFramePr><p:cNvPr id="9" name="Diagram 1"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>
      <p:xfrm><a:off x="914400" y="1828800"/><a:ext cx="5486400" cy="3200400"/></p:xfrm>
      <a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/diagram">
        <dgm:relIds xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram"
            r:dm="{rid}" r:lo="rIdX" r:qs="rIdY" r:cs="rIdZ"/>
      </a:graphicData></a:graphic></p:graphicFrame>""")
    slide.shapes._spTree.append(frame)
    broken_frame = copy.deepcopy(frame)
    broken_frame.find(f".//{{{A}}}graphicData")[0].set(f"{{{R}}}dm", "rId999")
    slide.shapes._spTree.append(broken_frame)
    doc = read_pptx(save(prs, tmp_path))
    assert list_items(doc) == [(0, "-", "First"), (1, "-", "Child of first"),
                               (0, "-", "Second"), (0, "-", "漢字")]
    assert any("diagram" in w for w in doc.warnings)


MATH_PARA = (
    f'<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">'
    f'<mc:Choice xmlns:a14="http://schemas.microsoft.com/office/drawing/2010/main" Requires="a14">'
    f'<a14:m><m:oMathPara xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math">'
    f'<m:oMath><m:r><m:t>x=1</m:t></m:r></m:oMath></m:oMathPara></a14:m></mc:Choice>'
    f'<mc:Fallback><a:r xmlns:a="{A}"><a:t>[image]</a:t></a:r></mc:Fallback></mc:AlternateContent>')
MATH_INLINE = (
    '<a14:m xmlns:a14="http://schemas.microsoft.com/office/drawing/2010/main">'
    '<m:oMath xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math">'
    '<m:r><m:t>y</m:t></m:r></m:oMath></a14:m>')


def test_omml_equations_in_text(tmp_path):
    prs = new_prs()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    box = add_box(slide, "", 1, 1, 6, 3)
    p1 = box.text_frame.paragraphs[0]
    p1._p.append(etree.fromstring(MATH_PARA))
    p2 = box.text_frame.add_paragraph()
    p2.text = "where "
    p2._p.append(etree.fromstring(MATH_INLINE))
    doc = read_pptx(save(prs, tmp_path))
    eq = blocks(doc, BlockType.INTERLINE_EQUATION)
    assert len(eq) == 1 and "x" in eq[0].lines[0].spans[0].content
    inline = [s for b in blocks(doc, BlockType.TEXT) for l in b.lines for s in l.spans
              if s.type == SpanType.INLINE_EQUATION]
    assert len(inline) == 1 and inline[0].content.strip() == "y"
    assert "[image]" not in to_markdown(doc)  # the fallback picture text is not read


def test_not_a_presentation(tmp_path):
    bad = tmp_path / "bad.pptx"
    bad.write_bytes(b"hello, not a zip")
    with pytest.raises(InputError) as err:
        read_pptx(bad)
    assert "\n" not in str(err.value)
    other = tmp_path / "other.pptx"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("word/document.xml", "<doc/>")
    with pytest.raises(InputError):
        read_pptx(other)


def test_corrupt_slide_is_a_warning(tmp_path):
    prs = new_prs()
    for text in ("first slide", "second slide"):
        add_box(prs.slides.add_slide(prs.slide_layouts[6]), text, 1, 1)
    path = save(prs, tmp_path)
    broken = rewrite_zip(path, tmp_path / "b.pptx",
                         lambda n, d: b"<p:sld" if n == "ppt/slides/slide1.xml" else d)
    doc = read_pptx(broken)
    assert len(doc.pages) == 2 and doc.pages[0].para_blocks == []
    assert "second slide" in text_of(doc)
    assert any("slide 1" in w for w in doc.warnings)


def test_reading_order_unit():
    # a background picture covering everything is read first, then the columns
    boxes = [(0, 0, 100, 100), (60, 10, 30, 20), (10, 10, 30, 20), (10, 40, 30, 20)]
    assert reading_order(boxes) == [0, 2, 3, 1]
    # a full-width title band above two columns
    boxes = [(10, 50, 40, 40), (0, 0, 100, 20), (60, 50, 40, 40)]
    assert reading_order(boxes) == [1, 0, 2]
    # rows of boxes whose vertical gap is wider than the horizontal one: row by row
    boxes = [(0, 0, 45, 10), (50, 0, 45, 10), (0, 40, 45, 10), (50, 40, 45, 10)]
    assert reading_order(boxes) == [0, 1, 2, 3]
    assert reading_order([]) == []


CHARTEX = """<cx:chartSpace xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"
    xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    xmlns:cx="http://schemas.microsoft.com/office/drawing/2014/chartex">
  <cx:chartData>
    <cx:data id="0">
      <cx:strDim type="cat"><cx:f>Sheet1!$A$2:$A$4</cx:f>
        <cx:lvl ptCount="3"><cx:pt idx="0">Start</cx:pt><cx:pt idx="1">Gain</cx:pt><cx:pt idx="2">End</cx:pt></cx:lvl>
      </cx:strDim>
      <cx:numDim type="val"><cx:f>Sheet1!$B$2:$B$4</cx:f>
        <cx:lvl ptCount="3" formatCode="General"><cx:pt idx="0">100</cx:pt><cx:pt idx="1">20.5</cx:pt><cx:pt idx="2">120.5</cx:pt></cx:lvl>
      </cx:numDim>
    </cx:data>
  </cx:chartData>
  <cx:chart>
    <cx:title pos="t"><cx:tx><cx:txData><cx:v>Bridge</cx:v></cx:txData></cx:tx></cx:title>
    <cx:plotArea><cx:plotAreaRegion>
      <cx:series layoutId="waterfall"><cx:tx><cx:txData><cx:f>Sheet1!$B$1</cx:f><cx:v>Cash</cx:v></cx:txData></cx:tx><cx:dataId val="0"/></cx:series>
    </cx:plotAreaRegion></cx:plotArea>
  </cx:chart>
</cx:chartSpace>"""


def test_office2016_chart_in_alternate_content(tmp_path):
    from pptx.opc.package import Part
    from pptx.opc.packuri import PackURI
    prs = new_prs()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    part = Part(PackURI("/ppt/charts/chartEx1.xml"),
                "application/vnd.ms-office.chartex+xml", prs.part.package, CHARTEX.encode())
    rid = slide.part.relate_to(part, "http://schemas.microsoft.com/office/2014/relationships/chartEx")
    alt = etree.fromstring(f"""<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"
        xmlns:p="{P}" xmlns:a="{A}" xmlns:r="{R}">
      <mc:Choice xmlns:cx1="http://schemas.microsoft.com/office/drawing/2015/9/8/chartex" Requires="cx1">
        <p:graphicFrame>
          <p:nvGraphicFramePr><p:cNvPr id="5" name="Chart 4"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>
          <p:xfrm><a:off x="914400" y="914400"/><a:ext cx="5486400" cy="3200400"/></p:xfrm>
          <a:graphic><a:graphicData uri="http://schemas.microsoft.com/office/drawing/2014/chartex">
            <cx:chart xmlns:cx="http://schemas.microsoft.com/office/drawing/2014/chartex" r:id="{rid}"/>
          </a:graphicData></a:graphic>
        </p:graphicFrame>
      </mc:Choice>
      <mc:Fallback>
        <p:sp><p:nvSpPr><p:cNvPr id="5" name="Chart 4"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr/>
          <p:txBody><a:bodyPr/><a:p><a:r><a:t>This chart isn't available</a:t></a:r></a:p></p:txBody></p:sp>
      </mc:Fallback>
    </mc:AlternateContent>""")
    slide.shapes._spTree.append(alt)
    doc = read_pptx(save(prs, tmp_path))
    (chart,) = blocks(doc, BlockType.TABLE)
    assert chart.sub_type == "chart"
    assert [plain_text(b) for b in chart.blocks if b.type == BlockType.TABLE_CAPTION] == [
        "Waterfall chart: Bridge"]
    assert cell_texts(tables(doc)[0]) == [["", "Cash"], ["Start", "100"], ["Gain", "20.5"],
                                          ["End", "120.5"]]
    assert "isn't available" not in text_of(doc)


def test_omml_in_a_slide_is_latex():
    from mineru_tui.office.pptx.text import _math_spans
    frac = etree.fromstring(
        '<a14:m xmlns:a14="http://schemas.microsoft.com/office/drawing/2010/main" '
        'xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"><m:oMathPara>'
        '<m:oMath><m:f><m:num><m:r><m:t>a</m:t></m:r></m:num><m:den><m:r><m:t>b</m:t></m:r>'
        '</m:den></m:f></m:oMath></m:oMathPara></a14:m>')
    (span,) = _math_spans(frac)
    assert span.type == SpanType.INTERLINE_EQUATION and span.content == r"\frac{a}{b}"


def test_review_comments_legacy_and_threaded(tmp_path):
    from pptx.opc.package import Part
    from pptx.opc.packuri import PackURI
    prs = new_prs()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    add_box(slide, "Reviewed text", 1, 1)
    slide.notes_slide.notes_text_frame.text = "Notes first"
    pkg = prs.part.package
    authors = Part(PackURI("/ppt/commentAuthors.xml"),
                   "application/vnd.openxmlformats-officedocument.presentationml.commentAuthors+xml",
                   pkg, f'<p:cmAuthorLst xmlns:p="{P}"><p:cmAuthor id="0" name="Ann Lee" '
                        f'initials="AL" lastIdx="1" clrIdx="0"/></p:cmAuthorLst>'.encode())
    prs.part.relate_to(authors, "http://schemas.openxmlformats.org/officeDocument/2006/"
                                "relationships/commentAuthors")
    legacy = Part(PackURI("/ppt/comments/comment1.xml"),
                  "application/vnd.openxmlformats-officedocument.presentationml.comments+xml",
                  pkg, f'<p:cmLst xmlns:p="{P}"><p:cm authorId="0" dt="2024-01-01T00:00:00" '
                       f'idx="1"><p:pos x="1" y="1"/><p:text>Check this number</p:text></p:cm>'
                       f'</p:cmLst>'.encode())
    slide.part.relate_to(legacy, "http://schemas.openxmlformats.org/officeDocument/2006/"
                                 "relationships/comments")
    p188 = "http://schemas.microsoft.com/office/powerpoint/2018/8/main"
    modern_authors = Part(PackURI("/ppt/authors.xml"),
                          "application/vnd.ms-powerpoint.authors+xml", pkg,
                          f'<p188:authorLst xmlns:p188="{p188}"><p188:author id="{{A1}}" '
                          f'name="Bo Chen" initials="BC" userId="b" providerId="None"/>'
                          f'</p188:authorLst>'.encode())
    prs.part.relate_to(modern_authors,
                       "http://schemas.microsoft.com/office/2018/10/relationships/authors")
    modern = Part(PackURI("/ppt/comments/modernComment_1.xml"),
                  "application/vnd.ms-powerpoint.comments+xml", pkg,
                  f'<p188:cmLst xmlns:p188="{p188}" xmlns:a="{A}"><p188:cm id="{{C1}}" '
                  f'authorId="{{A1}}"><p188:replyLst><p188:reply id="{{R1}}" authorId="{{A1}}">'
                  f'<p188:txBody><a:bodyPr/><a:p><a:r><a:t>Fixed</a:t></a:r></a:p></p188:txBody>'
                  f'</p188:reply></p188:replyLst><p188:txBody><a:bodyPr/><a:p><a:r><a:t>意见</a:t>'
                  f'</a:r></a:p></p188:txBody></p188:cm></p188:cmLst>'.encode())
    slide.part.relate_to(modern, "http://schemas.microsoft.com/office/2018/10/relationships/comments")
    doc = read_pptx(save(prs, tmp_path))
    page = doc.pages[0]
    kinds = [(b.type, plain_text(b)) for b in page.para_blocks]
    assert kinds == [(BlockType.TEXT, "Reviewed text"), (BlockType.NOTES, "Notes first")]
    # Comments are kept in the JSON (discarded blocks) but out of the Markdown.
    comments = [(b.type, plain_text(b)) for b in page.discarded_blocks
                if b.type == BlockType.ASIDE_TEXT]
    assert "Check this number" not in to_markdown(doc)
    assert comments == [(BlockType.ASIDE_TEXT, "Ann Lee (AL): Check this number"),
                     (BlockType.ASIDE_TEXT, "Bo Chen (BC): 意见"),
                     (BlockType.ASIDE_TEXT, "Bo Chen (BC): Fixed")]


def test_shapes_without_positions_keep_file_order(tmp_path):
    prs = new_prs()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    for text in ("first", "second", "third"):
        box = add_box(slide, text, 1, 1)
        xfrm = box._element.spPr.find(f"{{{A}}}xfrm")
        box._element.spPr.remove(xfrm)
    add_box(slide, "placed at the top", 1, 0.1)
    doc = read_pptx(save(prs, tmp_path))
    texts = [plain_text(b) for b in doc.pages[0].para_blocks]
    assert texts[:3] == ["first", "second", "third"] and len(texts) == 4


def test_chart_number_formats():
    # the same Excel number formats as spreadsheet cells and xlsx charts (numfmt)
    from mineru_tui.office.charts import format_number
    assert format_number("43831", "m/d/yyyy") == "1/1/2020"
    assert format_number("43831", "yyyy-mm-dd") == "2020-01-01"
    assert format_number("0.125", "0.0%") == "12.5%"
    assert format_number("1234567.891", "#,##0.00") == "1,234,567.89"
    assert format_number("2.3999999999999999", "General") == "2.4"
    assert format_number("7", None) == "7"
    assert format_number("n/a", "General") == "n/a"


def test_strict_ooxml_namespaces(tmp_path):
    prs = new_prs()
    slide = prs.slides.add_slide(prs.slide_layouts[1])
    slide.shapes.title.text = "Strict title"
    slide.placeholders[1].text_frame.text = "Strict body"
    path = save(prs, tmp_path)
    pairs = ((b"http://schemas.openxmlformats.org/presentationml/2006/main",
              b"http://purl.oclc.org/ooxml/presentationml/main"),
             (b"http://schemas.openxmlformats.org/drawingml/2006/main",
              b"http://purl.oclc.org/ooxml/drawingml/main"),
             (b"http://schemas.openxmlformats.org/officeDocument/2006/relationships",
              b"http://purl.oclc.org/ooxml/officeDocument/relationships"))

    def to_strict(name, data):
        for old, new in pairs:
            data = data.replace(old, new)
        return data

    doc = read_pptx(rewrite_zip(path, tmp_path / "strict.pptx", to_strict))
    assert [plain_text(b) for b in doc.pages[0].para_blocks] == ["Strict title", "Strict body"]
    assert list_items(doc) == [(0, "-", "Strict body")]
