"""OpenDocument, RTF and legacy .doc/.xls/.ppt read directly, on real files from public
test suites (tests/corpus/odf_legacy/SOURCES.tsv) and a few made here for code pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from mineru_tui.convert import ConvertError, convert
from mineru_tui.document import BlockType, to_markdown

CORPUS = Path(__file__).parents[1] / "corpus" / "odf_legacy"
# Files refused on purpose, and how their one line starts.
REFUSED = {"calamine__issue_385.xls": "password-protected",
           "calamine__pass_protected.ods": "password-protected",
           "poi__PasswordProtected.doc": "password-protected",
           "poi__Password_Protected-hello.ppt": "password-protected",
           "poi__xor-encryption-abc.xls": "password-protected",
}
FILES = sorted(p for p in CORPUS.iterdir() if p.is_file() and p.name != "SOURCES.tsv")


def md(name: str) -> str:
    return to_markdown(convert(CORPUS / name))


def blocks(name: str):
    return list(convert(CORPUS / name).iter_blocks())


# Files whose whole content is hidden on purpose.
EMPTY = {"pandoc__hiddenTextByStyle.odt"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_corpus_file_converts_or_is_refused_in_one_line(path):
    try:
        doc = convert(path)
    except ConvertError as e:
        assert "\n" not in e.reason
        if path.name in REFUSED:
            assert e.reason.startswith(REFUSED[path.name])
            return
        raise
    assert path.name not in REFUSED
    assert bool(to_markdown(doc).strip()) != (path.name in EMPTY), path.name


def test_sources_list_every_file():
    listed = {line.split("\t")[0] for line in (CORPUS / "SOURCES.tsv").read_text().splitlines()[1:]}
    assert listed == {p.name for p in FILES}


# -- OpenDocument ---------------------------------------------------------------------------

def test_odt_table_spans_lists_notes_and_formula():
    spans = md("pandoc__tableWithSpans.odt")
    assert '<th rowspan="2">H1 Rowspan 2</th>' in spans
    assert '<td colspan="2" rowspan="2">Columnspan &amp; Rowspan 2</td>' in spans
    assert "   - 3.1. New level!" in md("pandoc__orderedListMixed.odt")
    assert md("pandoc__footnote.odt") == ("Some text[^1] with a footnote.\n\n"
                                          "[^1]: Footnote text\n")
    assert "E=m\\cdot{c}^{2}" in md("pandoc__formula.odt")
    assert "[external link](http://example.com/)" in md("pandoc__externalLink.odt")
    heads = [(b.level, b.lines[0].spans[0].content) for b in blocks("pandoc__headers.odt")
             if b.type == BlockType.TITLE]
    assert heads[:2] == [(1, "A header (Lv 1)"), (2, "Another header (Lv 2)")]


def test_odt_hidden_text_by_style_is_left_out():
    doc = convert(CORPUS / "pandoc__hiddenTextByStyle.odt")
    assert to_markdown(doc) == ""
    assert doc.warnings == ["no content found: the document is empty, or all of its text is "
                            "hidden"]


def test_odt_comments_are_aside_text_at_the_end():
    doc = convert(CORPUS / "odfdo__note.odt")
    last = doc.pages[0].para_blocks[-1]
    assert last.type == BlockType.ASIDE_TEXT
    assert to_markdown(doc).endswith("Auteur inconnu: Sauf qu'il est commenté !\n")
    assert "Sauf" not in to_markdown(doc).split("[^1]:")[0]  # not in the running text


def test_odt_chart_objects_are_data_tables():
    doc = convert(CORPUS / "odfdo__chart.odt")
    charts = [b for b in doc.iter_blocks() if b.type == BlockType.TABLE and b.sub_type == "chart"]
    assert len(charts) == 1
    text = to_markdown(doc)
    assert "Column chart\n\n|  | Column 2 | Column 3 |" in text and "| Row 3 | 50 | 360 |" in text
    assert "NaN" not in text  # the chart's hidden column


def test_odt_images_are_package_members():
    doc = convert(CORPUS / "pandoc__image.odt")
    assert len(doc.images) == 1 and next(iter(doc.images.values()))[:2] == b"\xff\xd8"


def test_ods_sheets_as_shown_with_merges_and_odp_notes():
    ducks = md("docling__odf_table_with_title_01.ods")
    assert "| 2019 | 120 |" in ducks
    assert any(c.rowspan > 1 or c.colspan > 1
               for b in blocks("calamine__merged_cells.ods") if b.type == BlockType.TABLE_BODY
               for row in b.lines[0].spans[0].table.rows for c in row)
    slides = convert(CORPUS / "docling__odf_presentation_01.odp")
    assert len(slides.pages) == 3
    notes = [b for b in slides.iter_blocks() if b.type == BlockType.NOTES]
    assert "Some notes on the second slide." in to_markdown(slides) and notes


def test_odp_list_level_without_a_number_format_shows_its_text_bare():
    # list style L4 numbers its levels with style:num-format="" (no number, no prefix or
    # suffix): LibreOffice shows "Let's introduce a list" without a label, as the .pptx of the
    # same deck (buNone) gives it; the next list (L5) keeps its bullets
    slides = md("docling__odf_presentation_01.odp")
    assert "\n\nLet’s introduce a list\n\n- With foo\n- Bar\n- And baz things\n" in slides


# -- RTF ------------------------------------------------------------------------------------

def test_rtf_structure():
    assert md("pandoc__heading.rtf").startswith("# Heading 1\n\n## Heading 2\n\n### Heading 3")
    assert "| A | B | C | D |" in md("pandoc__table_simple.rtf")
    assert "[^1]: See Sahlins" in md("pandoc__footnote.rtf")
    assert md("pandoc__link.rtf") == "[pandoc](http://pandoc.org)\n"
    lists = md("pandoc__list_complex.rtf")
    assert "2. Two\n   - a. Three" in lists and "7. Seven Start\n8. Eight Continue" in lists
    assert md("pandoc__list_legacy.rtf").startswith("1. A\n2. Numbered\n3. List\n- A")
    assert "αä" in md("pandoc__unicode.rtf")
    assert md("pandoc__accent.rtf") == "le café où on ne fume pas\n"
    assert convert(CORPUS / "pandoc__image.rtf").images


@pytest.mark.parametrize("header,body,expected", [
    # Czech in cp1250, declared by the document's code page and by a font's charset
    (b"\\ansi\\ansicpg1250", "Příliš žluťoučký kůň".encode("cp1250"), "Příliš žluťoučký kůň"),
    (b"\\ansi{\\fonttbl{\\f0\\fcharset238 Arial;}}\\f0", "úpěl ďábelské ódy".encode("cp1250"),
     "úpěl ďábelské ódy"),
    # Japanese: double-byte cp932 pairs, by charset 128 and by \ansicpg932
    (b"\\ansi{\\fonttbl{\\f1\\fcharset128 MS Mincho;}}\\f1", "日本語の文書".encode("cp932"),
     "日本語の文書"),
    (b"\\ansi\\ansicpg932", "ｶﾀｶﾅと漢字".encode("cp932"), "ｶﾀｶﾅと漢字"),
])
def test_rtf_code_pages(tmp_path, header, body, expected):
    escaped = "".join(f"\\'{b:02x}" for b in body).encode("ascii")
    path = tmp_path / "cp.rtf"
    path.write_bytes(b"{\\rtf1" + header + b" " + escaped + b"\\par}")
    assert to_markdown(convert(path)) == expected + "\n"


@pytest.mark.parametrize("name,expected", [
    ("rtfparserkit__testJapaneseJisEncodingTwoFonts.rtf", "中國"),  # \fcharset128 pairs
    ("rtfparserkit__test10001Encoding.rtf", "お読みください"),  # Mac Japanese code page
    ("rtfparserkit__testNecCharacters.rtf", "時に表層10㎜ほど"),  # NEC extensions of cp932
    ("rtfparserkit__testMultiByteHex.rtf", "お元気ですか？"),
    ("rtfparserkit__test950Encoding.rtf", "©"),  # Big5
    ("rtfparserkit__test10007Encoding.rtf", "Комманда"),  # Mac Cyrillic
    ("rtfparserkit__testGreekEncoding.rtf", "Ω"),
    ("rtfparserkit__testUnicode.rtf", "Johann Strauß\n\nBelgië René Magritte"),
])
def test_rtf_code_pages_in_real_files(name, expected):
    assert expected in md(name)


def test_rtf_math_is_omml_converted_to_latex(tmp_path):
    path = tmp_path / "math.rtf"
    path.write_bytes(rb"{\rtf1\ansi{\mmath{\*\moMathPara{\*\moMath{\mr A=}"
                     rb"{\mf{\mfPr{\mtype noBar}}{\mnum{\mr n}}{\mden{\mr k}}}"
                     rb"{\mnary{\mnaryPr{\mchr \u8721?}{\mlimLoc undOvr}{\msubHide on}}"
                     rb"{\msup{\mr n}}{\me{\mr x}}}}}}\par "
                     rb"Formula: {\mmath {\*\moMath {\mr E}{\mr =}{\mr m}{\msSup {\me {\mr c}}"
                     rb"{\msup {\mr 2}}}}{\mmathPict {\*\shppict{\pict\pngblip 89504e47}}}}"
                     rb" follows.\par}")
    doc = convert(path)
    assert to_markdown(doc) == ("$$\nA=\\genfrac{}{}{0pt}{}{n}{k}\\sum^{n}x\n$$\n\n"
                                "Formula: $E=mc^{2}$ follows.\n")
    assert not doc.images  # the fallback picture of the equation is not content


def test_rtf_nested_tables(tmp_path):
    path = tmp_path / "nested.rtf"
    path.write_bytes(rb"{\rtf1\trowd\cellx5000\pard\intbl\itap1 Before\par"
                     rb"\pard\intbl\itap2 A\nestcell B\nestcell{\*\nesttableprops\trowd\cellx2000"
                     rb"\cellx4000\nestrow}{\nonesttables FALLBACK\par}"
                     rb"\pard\intbl\itap1 After\cell\row\pard\itap0 Outside\par}")
    out = to_markdown(convert(path))
    assert out == ("<table><tr><td>Before<br><table><tr><td>A</td><td>B</td></tr></table>"
                   "<br>After</td></tr></table>\n\nOutside\n")


def test_rtf_merges_and_broken_input(tmp_path):
    path = tmp_path / "m.rtf"
    path.write_bytes(b"{\\rtf1\\trowd\\clmgf\\cellx100\\clmrg\\cellx200\\cellx300\\pard\\intbl A\\cell"
                     b"\\cell B\\cell\\row\\trowd\\clvmgf\\cellx100\\cellx200\\pard\\intbl C\\cell D"
                     b"\\cell\\row\\trowd\\clvmrg\\cellx100\\cellx200\\pard\\intbl\\cell E\\cell\\row}")
    out = to_markdown(convert(path))
    assert '<td colspan="2">A</td><td>B</td>' in out and '<td rowspan="2">C</td>' in out
    deep = tmp_path / "deep.rtf"
    deep.write_bytes(b"{\\rtf1" + b"{" * 5000 + b"}" * 5000 + b"}")
    with pytest.raises(ConvertError) as exc:
        convert(deep)
    assert "nested deeper" in exc.value.reason


# -- legacy binary Office -------------------------------------------------------------------

def test_xls_values_as_shown_and_merges():
    ducks = md("docling__legacy_sample.xls")
    assert "| 2019 | 120 |" in ducks and "Number of freshwater ducks per year" in ducks
    formats = md("xlrd__Formate.xls")
    assert "97.4%" in formats and "1,000.30 €" in formats and "03/07/1907" in formats
    merged = md("calamine__merge_cells.xls")
    assert "colspan" in merged or "rowspan" in merged


def test_xls_pictures_from_the_drawing_records():
    doc = convert(CORPUS / "calamine__picture.xls")
    assert sorted(n.rsplit(".", 1)[1] for n in doc.images) == ["jpg", "png"]
    assert [sum(b.type == BlockType.IMAGE for b in p.para_blocks) for p in doc.pages] == [1, 1]
    assert next(iter(doc.images.values()))[:2] == b"\xff\xd8"


def test_encrypted_xls_is_refused_in_one_line():
    with pytest.raises(ConvertError) as exc:
        convert(CORPUS / "calamine__issue_385.xls")
    assert exc.value.reason.startswith("password-protected")


def test_doc_headings_tables_lists():
    doc = md("docling__legacy_sample.doc")
    assert "# Swimming in the lake" in doc and "## Let’s eat" in doc
    assert "| **Leaves** | Ash, Elm, Maple | 50 |" in doc  # bold from the character runs
    assert "- You can relax and look around" in doc
    assert "1. Wear sunglasses\n2. Don’t forget to drink water" in doc  # numbers from the LVLs
    greek = md("docling__greek_heading_styles.doc")  # localised heading style names
    assert greek.startswith("# Überschriften in nicht‑englischer Sprache\n\n## Problem")
    assert "[http://hipsum.co](http://hipsum.co)" in md("textract__raw_text.doc")


def test_doc_headers_and_footers_are_discarded_blocks_as_in_its_docx_twin():
    # the sample's footer is a PAGE field (its shown result, "2"), in the header story's odd
    # footer; the .docx of the same document gives the same footer
    from mineru_tui.document import plain_text

    def kept(path):
        return [(b.type, plain_text(b)) for b in convert(path).pages[0].discarded_blocks]

    assert kept(CORPUS / "docling__legacy_sample.doc") == [(BlockType.FOOTER, "2")]
    assert kept(CORPUS.parent / "office" / "docling__word_sample.docx") == [(BlockType.FOOTER, "2")]
    assert "PAGE" not in md("docling__legacy_sample.doc")  # neither the field code nor the footer
    assert kept(CORPUS / "docling__greek_heading_styles.doc") == []  # no header story


def test_ppt_links():
    text = md("poi__WithLinks.ppt")
    assert "[http://slashdot.org/](http://slashdot.org/)" in text
    assert "[Jakarta HSSF](http://jakarta.apache.org/poi/hssf/)" in text


def test_word6_text_is_read_with_a_warning():
    doc = convert(CORPUS / "poi__Word6_sections.doc")
    assert to_markdown(doc) == "This is a test.\n\nThis is a new section.\n"
    assert any("Word 6.0/95" in w for w in doc.warnings)


def test_ppt_slides_titles_and_notes():
    doc = convert(CORPUS / "docling__legacy_sample.ppt")
    assert len(doc.pages) == 3
    text = to_markdown(doc)
    assert "## Second slide title" in text and "> Some notes on the second slide." in text
    assert "A rectangle shape with this text inside." in text
    # the table shape: its cells laid on the grid of their edges, merges kept
    assert '<td colspan="3">Class1</td>' in text and '<td rowspan="3">R4</td>' in text
    assert "- With foo\n- Bar" in text  # bulleted body text
    assert "![](images/image_001.png)" in md("poi__ppt_with_png.ppt")
    # a file saved many times keeps old copies of its slides: only the live ones are read
    basic = convert(CORPUS / "poi__basic_test_ppt_file.ppt")
    assert [p.para_blocks[0].lines[0].spans[0].content for p in basic.pages] == [
        "This is a test title", "This is the title on page 2"]


def test_ppt_automatic_numbering():
    # numbered text boxes (a shape's ___PPT9 numbering entry) among bulleted ones
    text = md("docling__legacy_sample.ppt")
    assert "1. List item4\n2. List item5\n3. List item6" in text
    assert "Maybe a list?\n\n1. List1\n2. List2\n3. List3" in text
    assert "- I1\n- I2" in text and "- With foo\n- Bar" in text  # bullets stay bullets
    # placeholders numbered from a start value, in other schemes (POI's numbers.ppt)
    doc = convert(CORPUS / "poi__numbers.ppt")
    first = [b for b in doc.pages[0].para_blocks if b.type == BlockType.LIST]
    markers = [[i.marker for i in b.blocks] for b in first]
    assert markers == [["4.", "5."], ["c)", "d)"]]  # arabic from 4; lower letters ) from 3
    second = [[i.marker for i in b.blocks] for b in doc.pages[1].para_blocks
              if b.type == BlockType.LIST]
    assert second == [["9)"], ["C.", "D."]]
    assert to_markdown(doc).count("4. This is a text placeholder that\n5. follows") == 1


def test_xls_embedded_charts():
    doc = convert(CORPUS / "poi__WithThreeCharts.xls")
    charts = [(p.name, b) for p in doc.pages for b in p.para_blocks if b.sub_type == "chart"]
    assert [name for name, _ in charts] == ["Sheet2", "Sheet2", "Sheet3"]
    text = to_markdown(doc)
    # series named in the chart, values read from the cells of the sheet they point at
    assert "Line chart\n\n| 1st Column | 2nd Column |\n|---|---|\n| 1 | 10 |" in text
    assert "Pie chart: Pie Chart Title Thingy\n\n| Series 1 |\n|---|\n| 10 |" in text
    assert "Area chart: Sheet 3 Chart with Title\n\n| Squares | Base Numbers |\n|---|---|\n" \
           "| 25 | 5 |" in text
    # a chart on the third sheet of a workbook whose data is on that sheet
    assert "Line chart\n\n| Series 1 |\n|---|\n| 100 |\n| 200 |" in md("xlrd__Formate.xls")
    # chart sheets (which xlrd leaves out) are pages of their own, in the workbook's order
    doc = convert(CORPUS / "poi__44010-TwoCharts.xls")
    assert [p.name for p in doc.pages] == ["auto_1", "Graph1", "Graph2"]
    scatter = to_markdown(doc).split("## Graph1\n\n")[1]
    assert scatter.startswith("Scatter chart: taux\n\n|  | taux |\n|---|---|\n|  |  |\n"
                              "| 4 | 46.4 |")
    assert "## Graph2\n\nLine chart: TEST\n\n" in to_markdown(doc)


def test_ppt_character_formatting():
    doc = convert(CORPUS / "poi__Single_Coloured_Page_With_Fonts_and_Alignments.ppt")
    spans = [s for b in doc.iter_blocks() for line in b.lines for s in line.spans]
    looks = {s.content.split(",")[0]: set(s.style) for s in spans}
    assert looks == {"This is a title": set(), "This is the subtitle": {"bold"},
                     "This bit is blue and italic": {"italic"},
                     "This bit is red (normal)": set(), "This bit is underlined": {"underline"}}
    assert "**This is the subtitle, in bold**\n\n*This bit is blue and italic*" in \
        to_markdown(doc)


def test_ppt_numbering_records_cut_anywhere_never_raise():
    import struct as st

    import olefile

    from mineru_tui.office.ppt.reader import _numbering9, _paragraph_styles
    # the real StyleTextProp9Atom and StyleTextPropAtom of a numbered box, cut at every byte
    with olefile.OleFileIO(str(CORPUS / "docling__legacy_sample.ppt")) as ole:
        data = ole.openstream("PowerPoint Document").read()
    nine = data.index(bytes.fromhex("ac0f1a000000")) + 6  # the atom with two entries
    for cut in range(nine, nine + 26 + 1):
        _numbering9(data, nine, cut)
    assert _numbering9(data, nine, nine + 26) == [None, (3, 1)]
    props = data.index(b"\xa1\x0f", data.index(b"Maybe a list?"))
    length = st.unpack_from("<I", data, props + 2)[0]
    text = "Maybe a list?\nList1\nList2\nList3"
    for cut in range(props + 6, props + 6 + length + 1):
        _paragraph_styles(data, props + 6, cut, text, [None, (3, 1)])
    assert [n for _, _, n in _paragraph_styles(data, props + 6, props + 6 + length, text,
                                               [None, (3, 1)])] == [None] + [(3, 1)] * 3


def test_doc_text_boxes_and_comments():
    # a document whose only text is in two text boxes of a drawing canvas
    assert md("poi__Bug41898.doc") == "This is a line of text.\n\nすれはテキスト行です。\n"
    # text boxes holding tables, read after the paragraph that anchors them
    text = md("poi__Bug46817.doc")
    assert text.index("INFORMACJA O WYBORZE") < text.index("| Gmina Cekcyn |") \
        < text.index("| Nazwa wykonawcy |")
    assert "| ul. Szkolna 2 | 89-511 |" in text
    # a text box's field result, and a review comment with its author, at the end
    doc = convert(CORPUS / "poi__test-fields.doc")
    text = to_markdown(doc)
    assert "19/11/2010 14:49:00\n\nField in text box: 2\n\nHere is a link" in text
    asides = [b for b in doc.iter_blocks() if b.type == BlockType.ASIDE_TEXT]
    assert [b.lines[0].spans[0].content for b in asides] == [
        "Fridrich Strba: Field in comment: 19/11/2010"]
    assert text.rstrip().endswith("Fridrich Strba: Field in comment: 19/11/2010")


@pytest.mark.parametrize("streams,reason", [
    (["WordDocument", "1Table"], "not a readable Word 97-2003 document"),
    (["Workbook"], "not a readable Excel 97-2003 workbook"),
    (["PowerPoint Document"], "not a readable PowerPoint 97-2003 presentation"),
])
def test_legacy_files_without_their_data_fail_in_one_line(tmp_path, streams, reason):
    from tests.cli_fixtures import cfb_bytes

    path = tmp_path / "x.bin"
    path.write_bytes(cfb_bytes(streams))  # the streams are named but hold nothing
    with pytest.raises(ConvertError) as exc:
        convert(path)
    assert exc.value.reason.startswith(reason) and "\n" not in exc.value.reason


@pytest.mark.parametrize("name", [p.name for p in FILES])
def test_truncated_files_fail_in_one_line_or_read(tmp_path, name):
    data = (CORPUS / name).read_bytes()
    for cut in (len(data) // 3, len(data) // 2, len(data) - 100):
        path = tmp_path / name
        path.write_bytes(data[:cut])
        try:
            convert(path)
        except ConvertError as e:
            assert "\n" not in e.reason and "internal error" not in e.reason, e.reason


# -- bounds: the same one-line refusals and "content cut:" warnings as the Office readers -----

def test_odf_parse_budget(monkeypatch):
    from mineru_tui.office import package

    monkeypatch.setitem(package.PARSE_BUDGET, "odt", 1000)
    with pytest.raises(ConvertError) as exc:
        convert(CORPUS / "docling__text_document_01.odt")
    assert exc.value.reason.startswith("refused: ") and "parse budget" in exc.value.reason
    monkeypatch.setitem(package.PARSE_BUDGET, "ods", 1000)
    with pytest.raises(ConvertError):
        convert(CORPUS / "odfdo__two_sheets.ods")


def test_table_and_sheet_cuts_warn(monkeypatch):
    from mineru_tui.errors import is_cut_warning
    from mineru_tui.office.doc import reader as doc_reader
    from mineru_tui.office.odf import reader as odf_reader
    from mineru_tui.office.odf import sheets as odf_sheets
    from mineru_tui.office.rtf import reader as rtf_reader
    from mineru_tui.office.xls import reader as xls_reader

    cases = [(odf_reader, "MAX_TABLE_CELLS", 5, "pandoc__tableWithSpans.odt"),
             (odf_sheets, "MAX_CELLS", 3, "odfdo__two_sheets.ods"),
             (rtf_reader, "MAX_TABLE_CELLS", 3, "pandoc__table_simple.rtf"),
             (xls_reader, "MAX_CELLS", 3, "xlrd__Formate.xls"),
             (doc_reader, "MAX_TABLE_CELLS", 3, "docling__legacy_sample.doc")]
    for module, name, value, file in cases:
        monkeypatch.setattr(module, name, value)
        doc = convert(CORPUS / file)
        assert any(is_cut_warning(w) for w in doc.warnings), (file, doc.warnings)


def test_ppt_record_cap_warns(monkeypatch):
    from mineru_tui.errors import is_cut_warning
    from mineru_tui.office.ppt import reader as ppt_reader

    monkeypatch.setattr(ppt_reader, "MAX_RECORDS", 50)
    doc = convert(CORPUS / "docling__legacy_sample.ppt")
    assert any(is_cut_warning(w) for w in doc.warnings)


def test_deep_odf_nesting_is_cut(tmp_path):
    import zipfile

    from mineru_tui.errors import is_cut_warning

    ns = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"')
    body = "<text:section>" * 200 + "<text:p>deep</text:p>" + "</text:section>" * 200
    path = tmp_path / "deep.odt"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        z.writestr("content.xml", f'<office:document-content {ns}><office:body><office:text>'
                                  f'{body}</office:text></office:body></office:document-content>')
    doc = convert(path)
    assert any(is_cut_warning(w) for w in doc.warnings)


def test_ods_repeated_rows_are_expanded_within_bounds(tmp_path):
    import zipfile

    from mineru_tui.errors import is_cut_warning

    ns = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"')
    rows = ('<table:table-row table:number-rows-repeated="3"><table:table-cell '
            'office:value-type="float" table:number-columns-repeated="2"><text:p>7</text:p>'
            '</table:table-cell></table:table-row>'
            '<table:table-row table:number-rows-repeated="1048000"><table:table-cell/>'
            '</table:table-row>'  # formatting only: costs nothing
            '<table:table-row table:number-rows-repeated="5000"><table:table-cell>'
            '<text:p>x</text:p></table:table-cell></table:table-row>')
    path = tmp_path / "rep.ods"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        z.writestr("content.xml", f'<office:document-content {ns}><office:body>'
                                  f'<office:spreadsheet><table:table table:name="S">{rows}'
                                  f'</table:table></office:spreadsheet></office:body>'
                                  f'</office:document-content>')
    doc = convert(path)
    text = to_markdown(doc)
    assert "| 7 | 7 |\n|---|---|\n| 7 | 7 |\n| 7 | 7 |" in text
    assert text.count("x") <= 1000 + 10  # the 5000 repeats kept 1000 times, with a warning
    assert any(is_cut_warning(w) for w in doc.warnings)


def test_a_folder_of_the_new_formats_is_parsed_and_reported(tmp_path):
    import shutil

    from tests.cli_fixtures import cli, error_lines

    root = tmp_path / "in"
    root.mkdir()
    for name in ("docling__text_document_01.odt", "pandoc__footnote.rtf",
                 "docling__legacy_sample.xls", "docling__legacy_sample.doc",
                 "docling__legacy_sample.ppt", "odfdo__two_sheets.ods",
                 "odfdo__example.odp", "poi__PasswordProtected.doc"):
        shutil.copy(CORPUS / name, root / name.split("__", 1)[1])
    (root / "notes.txt").write_text("not a document\n")
    r = cli("parse", "-q", root, "-o", tmp_path / "out")
    assert r.exit_code == 1  # the encrypted one is reported, the rest are written
    errors = error_lines(r.stderr)
    assert len(errors) == 1
    assert errors[0].startswith(f"error: {root / 'PasswordProtected.doc'}: password-protected")
    written = sorted(p.name for p in (tmp_path / "out").iterdir() if p.is_dir())
    assert written == ["example", "footnote", "legacy_sample", "legacy_sample_2",
                       "legacy_sample_3", "text_document_01", "two_sheets"]
