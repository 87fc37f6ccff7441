"""Structure at ``--effort low`` on real PDFs (tests/corpus/pdf, origins in SOURCES.tsv):
headings from size, weight and face; lists from bullets (symbol-font glyphs too) and
numbers; tables from ruling lines (spans kept) and from aligned columns; links from link
annotations; running headers and page numbers left out."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from mineru_tui.convert import ConvertOptions, convert
from mineru_tui.document import BlockType, to_markdown
from mineru_tui.document.model import plain_text, walk
from mineru_tui.pdf import open_pdf
from mineru_tui.pdf.headings import Candidate, heading_levels
from mineru_tui.pdf.lists import list_item
from mineru_tui.pdf.chars import Char
from mineru_tui.pdf.rules import Rule, page_rules
from mineru_tui.pdf.tables import _grid_table

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests/corpus/pdf"
_cache: dict[str, object] = {}


def low(name: str):
    """The file read at effort low (once per test run)."""
    if name not in _cache:
        _cache[name] = convert(CORPUS / name, ConvertOptions(effort="low"))
    return _cache[name]


def blocks(doc, kind: str) -> list:
    return [b for p in doc.pages for b in walk(p.para_blocks) if b.type == kind]


def titles(doc) -> list[str]:
    return [plain_text(b) for b in blocks(doc, BlockType.TITLE)]


def test_every_committed_pdf_is_listed_in_sources():
    listed = {line.split("\t")[0] for line in (CORPUS / "SOURCES.tsv").read_text().splitlines()[1:]}
    assert {p.name for p in CORPUS.iterdir() if p.suffix in (".pdf", ".md")} == listed


# ------------------------------------------------------------------------------ headings


def test_bold_body_size_section_titles_are_headings():
    # Word: 11 section titles in Times New Roman Bold at (nearly) body size
    got = titles(low("multi_page.pdf"))
    want = [m.group(1) for m in re.finditer(r"^## (.+)$", (CORPUS / "multi_page.md").read_text(), re.M)]
    assert got == want


def test_numbered_bold_section_titles_are_headings_and_a_bold_caption_is_not():
    doc = low("2305.03393v1-pg9.pdf")
    assert titles(doc) == ["5.1 Hyper Parameter Optimization", "5.2 Quantitative Results"]
    # "Table 1." is bold too, but starts a caption
    assert any(plain_text(b).startswith("Table 1.") for b in blocks(doc, BlockType.TEXT))


def test_larger_type_is_a_heading_and_code_is_not():
    doc = low("code_and_formula.pdf")
    assert titles(doc) == ["JavaScript Code Example", "Formula"]
    assert not any("function add" in t for t in titles(doc))


def test_heading_levels_follow_size_relative_to_the_body():
    paras = [Candidate("Big Title", 1, 20, 1.0, 0), Candidate("Section", 1, 14, 1.0, 0),
             Candidate("Subsection", 1, 12, 1.0, 0), Candidate("Bold title", 1, 10, 1.0, 0),
             Candidate("2.1.3 Numbered", 1, 10, 1.0, 0), Candidate("Body text.", 4, 10, 0.0, 0)]
    assert heading_levels(paras, body_height=10) == [1, 2, 3, 3, 4, None]
    # the same sizes give the same levels on a page without the big title
    assert heading_levels(paras[1:], body_height=10) == [2, 3, 3, 4, None]


def test_a_face_of_its_own_marks_a_heading():
    # an italic title-case line over a roman body (the FAA handbook's "Elastic Stop Nut"), a
    # sans-serif line a little larger than a serif body; italic prose and same-family lines
    # are not headings
    paras = [Candidate("Elastic Stop Nut", 1, 10, 0.0, 1.0, family="times"),
             Candidate("(2) 생명보험 표준약관 재해분류표", 1, 10.7, 0.0, 0.0, family="kopubdotum"),
             Candidate("an emphasised aside in italics", 1, 10, 0.0, 1.0, family="times"),
             Candidate("Same family line", 1, 10.7, 0.0, 0.0, family="kopubbatang")]
    assert heading_levels(paras, body_height=10, body_family="kopubbatang") == [3, 3, None, None]


def test_sentences_and_small_type_are_not_headings():
    paras = [Candidate("This bold sentence ends with a period like prose does.", 1, 10, 1.0, 0),
             Candidate("Figure label", 1, 7, 1.0, 0), Candidate("Table 2: Results", 1, 10, 1.0, 0)]
    assert heading_levels(paras, body_height=10) == [None, None, None]


def test_a_run_of_alike_standouts_is_labels_and_lead_ins_and_addresses_are_not_headings():
    body = Candidate("Body text that runs on for a while, as body text does.", 4, 10, 0.0, 0)
    tags = [Candidate(t, 2, 12, 1.0, 0) for t in ("Implement roles", "Leverage row permissions",
                                                  "Protect columns")]
    assert heading_levels(tags + [body], body_height=10) == [None, None, None, None]
    # the same in three columns (navigation labels beside a page's title) are not one run
    spread = [Candidate(t.text, 2, 12, 1.0, 0, block=k) for k, t in enumerate(tags)]
    assert heading_levels(spread + [body], body_height=10) == [3, 3, 3, None]
    # two alike headings in a row, or numbered ones, stay headings
    assert heading_levels(tags[:2] + [body], body_height=10) == [3, 3, None]
    numbered = [Candidate(f"2.{i} Part {i}", 1, 12, 1.0, 0) for i in (1, 2, 3)]
    assert heading_levels(numbered + [body], body_height=10) == [3, 3, 3, None]
    lead = [Candidate("For more information:", 1, 11, 1.0, 0), Candidate("ibm.com/redbooks", 1, 11, 1.0, 0),
            Candidate("See www.example.org", 1, 12, 1.0, 0)]
    assert heading_levels(lead + [body], body_height=10) == [None, None, None, None]


def test_a_chapter_label_on_the_title_baseline_and_the_large_chapter_number():
    # an IBM Redpaper's chapter page: a large "1", then a 7-pt "Chapter 1." on the baseline
    # of the 26-pt title "Securing and protecting IBM DB2 data"
    doc = low("redp5110_pages_5_18.pdf")
    first = [b for b in walk(doc.pages[0].para_blocks)]
    assert titles(doc)[:2] == ["1", "Securing and protecting IBM DB2 data"]
    assert any(b.type == BlockType.TEXT and plain_text(b) == "Chapter 1." for b in first)
    # a page number or a footnote number at body size stays text
    assert not any(t.isdigit() and t != "1" for t in titles(doc))


def test_a_back_cover_is_panels_of_text_not_a_table():
    # page-wide rules and a vertical one frame the back cover's columns: paragraphs in them
    # are text, its bold taglines are labels, its 12-pt bold slogan a heading
    doc = low("redp5110_pages_5_18.pdf")
    back = doc.pages[1]
    assert not [b for b in walk(back.para_blocks) if b.type == BlockType.TABLE]
    got = [plain_text(b) for b in walk(back.para_blocks) if b.type == BlockType.TITLE]
    assert "BUILDING TECHNICAL INFORMATION BASED ON PRACTICAL EXPERIENCE" in got
    for text in ("Implement roles and separation of duties", "For more information:", "ibm.com/redbooks"):
        assert text not in got
    paras = [plain_text(b) for b in walk(back.para_blocks) if b.type == BlockType.TEXT]
    assert any(p.startswith("This IBM Redpaper publication provides information") for p in paras)
    assert "Implement roles and separation of duties" in paras


# ------------------------------------------------------------------------------ lists


def test_symbol_font_bullets_start_list_items():
    # Word's Symbol bullets: PDFium maps them to U+2022 here
    doc = low("multi_page.pdf")
    items = [b for lst in blocks(doc, BlockType.LIST) for b in lst.blocks]
    assert [plain_text(b) for b in items[:2]] == [
        "IBM MT/ST (Magnetic Tape/Selectric Typewriter): Introduced in 1964, this machine combined "
        "IBM's Selectric typewriter with magnetic tape storage. It allowed users to record, edit, "
        "and replay typed content—an early example of digital text storage.",
        "Wang Laboratories: In the 1970s, Wang introduced dedicated word processing machines. "
        "These devices, like the Wang 1200, featured small screens and floppy disks, making them "
        "revolutionary for their time."]
    lists = blocks(doc, BlockType.LIST)
    assert all(b.marker == "-" for b in lists[0].blocks)
    numbered = [b.marker for lst in lists for b in lst.blocks if b.marker != "-"]
    assert numbered[:5] == ["1.", "2.", "3.", "4.", "5."]  # "1. Undo/Redo: ..." and so on


def test_unmapped_bullet_glyphs_start_list_items_and_leave_the_text():
    # check boxes drawn in a symbol font come out of PDFium as U+0084
    doc = low("table_mislabeled_as_picture.pdf")
    md = to_markdown(doc)
    # (a line that the line reader interleaves with another column may still hold one)
    assert not re.search(r"\x84 (They|Yes|No|Don)", md)
    items = [b for lst in blocks(doc, BlockType.LIST) for b in lst.blocks]
    assert len(items) >= 15 and not any(plain_text(b).startswith("\x84") for b in items)
    assert "- They work in parallel to State funded private practitioners" in md
    assert "- Don’t know" in md


def test_numbered_and_bulleted_lists_from_word():
    md = to_markdown(low("word365_structure.pdf"))
    assert "- Liste\n- Liste 2\n- Liste 3" in md
    assert "1. Liste numérotée\n2. Liste numérotée" in md


@pytest.mark.parametrize("text, want", [
    ("\u2022 item", ("-", "item")), ("\uf0b7 item", ("-", "item")), ("\x84 item", ("-", "item")),
    ("3) third", ("3.", "third")), ("(b) second", ("#.", "second")), ("iv. fourth", ("#.", "fourth")),
    ("of the people", None), ("2020. 3. 11", None), ("- minus", ("-", "minus")), ("-5 degrees", None),
    ("e.g. this", None)])
def test_list_markers(text, want):
    assert list_item(text) == want


# ------------------------------------------------------------------------------ tables


def test_ruled_table_keeps_row_and_column_spans():
    doc = low("2305.03393v1-pg9.pdf")
    [table] = [b for b in blocks(doc, BlockType.TABLE)]
    body = next(b for b in table.blocks if b.type == BlockType.TABLE_BODY)
    t = body.lines[0].spans[0].table
    header = [(plain_text(c.blocks[0]), c.colspan, c.rowspan) for c in t.rows[0]]
    assert header == [("# enc-layers", 1, 2), ("# dec-layers", 1, 2), ("Language", 1, 2),
                      ("TEDs", 3, 1), ("mAP (0.75)", 1, 2), ("Inference time (secs)", 1, 2)]
    assert [plain_text(c.blocks[0]) for c in t.rows[1]] == ["simple", "complex", "all"]
    # stacked records (OTSL over HTML) are rows; the shared layer counts span them
    assert [(plain_text(c.blocks[0]), c.rowspan) for c in t.rows[2]][:3] == [("6", 2), ("6", 2), ("OTSL", 1)]
    assert [plain_text(c.blocks[0]) for c in t.rows[3]] == ["HTML", "0.969", "0.927", "0.955", "0.857", "5.39"]
    md = to_markdown(doc)
    assert '<th colspan="3">TEDs</th>' in md  # merged cells: HTML, not a lossy pipe table
    # the table's characters are not also read as paragraphs
    assert md.count("0.965") == 1


def test_ruled_word_table_is_a_pipe_table():
    md = to_markdown(low("word365_structure.pdf"))
    assert "| Ligne 1 | Alouette | Farfadet |" in md or "<td>Ligne 1</td><td>Alouette</td>" in md
    assert "Belette" in md and md.count("Belette") == 1


def test_unruled_aligned_columns_are_a_table():
    doc = low("table_mislabeled_as_picture.pdf")
    tables = blocks(doc, BlockType.TABLE)
    assert tables
    text = " ".join(plain_text(b) for t in tables for b in walk([t]))
    md = to_markdown(doc)
    assert "State funded" in md and "Persons with disabilities" in md
    assert "Internally displaced persons" in md
    assert tables and "CSOs" in (text + md)


def test_unruled_table_beside_a_text_column_keeps_its_wrapped_header_and_not_the_column():
    # two pages side by side: the right page's table (a check mark, a group, two columns of
    # stars) has a header wrapped on two lines ("State funded" over "legal aid"), level with
    # the left page's question and options
    doc = low("table_mislabeled_as_picture.pdf")
    [table] = blocks(doc, BlockType.TABLE)
    body = next(b for b in table.blocks if b.type == BlockType.TABLE_BODY)
    rows = body.lines[0].spans[0].table.rows
    cells = [[plain_text(b) for c in row for b in c.blocks] for row in rows]
    assert cells[0] == ["State funded legal aid", "CSOs"]
    assert cells[1][-3:] == ["Persons with disabilities", "*", "*"]
    assert len(rows) == 8
    # the left page's lines stay outside it, and the header is no heading
    text = " ".join(" ".join(r) for r in cells)
    assert "accused children" not in text and "Yes, at" not in text
    assert not {"CSOs", "State funded legal aid"} & set(titles(doc))


def test_a_few_rows_of_paragraph_cells_are_panels_and_a_long_prose_table_is_a_table():
    from mineru_tui.document.model import Cell, Table
    from mineru_tui.pdf.tables import _panels, _text_block

    prose = " ".join(["word"] * 40)
    panels = Table([[Cell([_text_block(prose)]), Cell([_text_block(prose)])],
                    [Cell([_text_block("REDP-5110-00")]), Cell([])]])
    assert _panels(panels)
    rows = [[Cell([_text_block(f"R{i}")]), Cell([_text_block(prose)]), Cell([_text_block(prose)])]
            for i in range(6)]
    assert not _panels(Table(rows))
    short = Table([[Cell([_text_block("a b")]), Cell([_text_block("c")])]] * 2)
    assert not _panels(short)


def test_turned_column_titles_in_a_ruled_table_are_its_header(tmp_path):
    # column titles set vertically (reading upwards) in a ruled grid's header row, as IBM's
    # Redbooks set them, belong to the table, not to text in the margin
    from testkit import pdf_fixtures as F

    xs, ys = [72, 252, 312, 372], [700, 600, 580, 560, 540]
    items = F.grid(xs, ys) + [F.Text(80, 640, "User action", size=10),
                              F.Text(287, 610, "JOBCTL", size=10, angle=90),
                              F.Text(347, 610, "SECADM", size=10, angle=90)]
    for y, action in zip((586, 566, 546), ("Change the degree", "Start a monitor", "Read the plan")):
        items += [F.Text(80, y, action, size=10), F.Text(280, y, "X", size=10), F.Text(340, y, "X", size=10)]
    items += F.text_lines(["A paragraph under the table, as body text goes on below it."], top=500, size=10)
    path = F.write_pdf(tmp_path / "turned.pdf", [F.Page(items=items)])
    doc = convert(path, ConvertOptions(effort="low"))
    [table] = blocks(doc, BlockType.TABLE)
    body = next(b for b in table.blocks if b.type == BlockType.TABLE_BODY)
    rows = body.lines[0].spans[0].table.rows
    assert [plain_text(c.blocks[0]) for c in rows[0]] == ["User action", "JOBCTL", "SECADM"]
    assert [plain_text(c.blocks[0]) for c in rows[1]] == ["Change the degree", "X", "X"]
    assert not blocks(doc, BlockType.ASIDE_TEXT)  # and not read again beside the page


def test_rules_are_read_from_path_objects():
    with open_pdf(CORPUS / "2305.03393v1-pg9.pdf") as doc:
        rules = page_rules(doc.page(0))
    horizontal = [r for r in rules if r.horizontal and r.b - r.a > 300]
    assert len(horizontal) >= 5  # the table's full-width rules
    assert all(0 <= r.at <= 792 for r in rules)


# ------------------------------------------------------------------------------ links


def test_link_annotations_become_links():
    md = to_markdown(low("test-punkt.pdf"))
    assert "[https://dell-research-harvard.github.io/HJDataset/](https://dell-research-harvard.github.io/HJDataset/)" in md


def test_links_only_where_annotated_and_only_web_targets():
    doc = low("pdffill-demo.pdf")
    links = [s.link for p in doc.pages for b in walk(p.para_blocks) for ln in b.lines for s in ln.spans if s.link]
    assert links and all(re.match(r"^(https?:|mailto:)", u) for u in links)
    assert "[Online Help](http://www.pdfill.com/pdf_drawing.html)" in to_markdown(doc)


# ------------------------------------------------------------------------------ furniture


def test_page_numbers_are_left_out():
    doc = low("issue-33-lorem-ipsum.pdf")
    numbers = [(p.page_idx, plain_text(b)) for p in doc.pages for b in p.discarded_blocks
               if b.type == BlockType.PAGE_NUMBER]
    assert numbers == [(0, "1"), (1, "2")]
    assert not re.search(r"^\s*[12]\s*$", to_markdown(doc), re.M)


def test_running_headers_repeated_across_pages_are_left_out():
    doc = low("pdffill-demo.pdf")
    headers = {plain_text(b) for p in doc.pages for b in p.discarded_blocks if b.type == BlockType.HEADER}
    assert {"First Page", "Next Page"} <= headers
    first = to_markdown(doc).split("PDFill: PDF Drawing")[1][:600]
    assert "Previous Page" not in first


def test_a_running_head_read_as_one_line_with_its_number():
    from mineru_tui.document import Block, Line, Page, text_span
    from mineru_tui.pdf.furniture import drop_furniture

    def block(text, y, kind=BlockType.TEXT):
        return Block(kind, lines=[Line([text_span(text)])], bbox=[100, y, 400, y + 9])

    page = Page(0, page_size=(612, 792), para_blocks=[
        block("Optimized Table Tokenization 9", 90), block("Chapter 3", 95, BlockType.TITLE),
        block("In the year 2019 we saw", 100), block("Body text in the middle 12", 400)])
    drop_furniture([page])
    assert [plain_text(b) for b in page.discarded_blocks] == ["Optimized Table Tokenization 9"]
    assert [plain_text(b) for b in page.para_blocks] == [
        "Chapter 3", "In the year 2019 we saw", "Body text in the middle 12"]


def test_a_single_page_keeps_its_top_lines():
    # nothing repeats on one page: only a bare page number could go
    doc = low("code_and_formula.pdf")
    assert titles(doc)[0] == "JavaScript Code Example"


# ------------------------------------------------------------------------------ the bench


def test_bench_scores_the_committed_subset(tmp_path):
    sys.path.insert(0, str(ROOT / "bench"))
    import pdf_text

    md = (CORPUS / "multi_page.md").read_text()
    perfect = pdf_text.score_file(md, md)
    assert perfect["words"] == 1.0 and perfect["order"] == 1.0
    assert perfect["head_found"] == perfect["head_ref"] == 11
    ours = pdf_text.score_file(md, to_markdown(low("multi_page.pdf")))
    assert ours["head_found"] == 11 and ours["words"] > 0.95
    table = (CORPUS / "2305.03393v1-pg9.md").read_text()
    scored = pdf_text.score_file(table, to_markdown(low("2305.03393v1-pg9.pdf")))
    assert len(scored["tables"]) == 1 and scored["tables"][0] > 0.9
    assert pdf_text.score_file(table, "no table here")["tables"] == [0.0]


def _char(text: str, x: float, y: float, w: float = 6.0) -> Char:
    box = (x, y, x + w, y + 8)
    return Char(text=text, box=box, loose=box, origin=(x, y + 8), direction=0, tilt=0.0,
                size=8.0, index=0)


def test_a_right_to_left_table_starts_at_its_right_edge():
    # a 2 x 2 ruled grid; the right column holds the labels, as a Persian form sets them
    hs = [Rule(True, y, 0, 200) for y in (0, 20, 40)]
    vs = [Rule(False, x, 0, 40) for x in (0, 100, 200)]
    chars = [_char("ب", 150, 6), _char("ا", 50, 6), _char("د", 150, 26), _char("ج", 50, 26)]
    table = _grid_table(chars, hs, vs)
    assert [[plain_text(c.blocks[0]) for c in row] for row in table.rows] == [["ب", "ا"], ["د", "ج"]]
    latin = [_char("b", 150, 6), _char("a", 50, 6), _char("d", 150, 26), _char("c", 50, 26)]
    assert [[plain_text(c.blocks[0]) for c in row] for row in _grid_table(latin, hs, vs).rows] == \
        [["a", "b"], ["c", "d"]]


def test_korean_report_subheadings_table_and_running_header():
    doc = low("normal_4pages.pdf")
    got = titles(doc)
    # sans-serif (Dotum) subheadings over a serif (Batang) body, barely larger
    for heading in ("(2) 생명보험 표준약관 재해분류표", "(1) 상위법에 반하는 보험약관의 해석",
                    "(3) 신종위험에 대비하는 보험상품 개발 필요", "5 맺으며"):
        assert heading in got
    md = to_markdown(doc)
    assert "| 구분 | 개정전 | 개정후 |" in md and "| 분류 | 1군 감염병 | 1급 감염병 |" in md
    # the running title at the top of pages 2 and 4 is furniture; on page 1 it is the masthead
    headers = [(p.page_idx, plain_text(b)) for p in doc.pages for b in p.discarded_blocks
               if b.type == BlockType.HEADER]
    assert (1, "이슈와 논점") in headers and (3, "이슈와 논점") in headers
    assert len(re.findall(r"^(?:#+ )?이슈와 논점$", md, re.M)) == 1


def test_a_table_of_contents_is_a_table_of_entries_and_pages():
    md = to_markdown(low("GeoBase_NHNC1_Data_Model_UML_EN.pdf"))
    # dot leaders dropped; section numbers set apart to the left rejoin their entries
    assert "| 1 OVERVIEW | 6 |\n|---|---|\n| 2 LRS | 6 |\n| 2.1 LRS MODEL | 7 |" in md
    assert "| 3.1.5 Toponymy (external package) | 18 |" in md
    assert "....." not in md


def test_mail_and_web_links_from_annotations():
    md = to_markdown(low("GeoBase_NHNC1_Data_Model_UML_EN.pdf"))
    assert "[geoginfo@RNCan.gc.ca](mailto:geoginfo@RNCan.gc.ca)" in md
    assert "[www.GeoGratis.gc.ca](http://www.geogratis.gc.ca/)" in md


def test_a_ruled_revision_table_is_a_pipe_table():
    md = to_markdown(low("GeoBase_NHNC1_Data_Model_UML_EN.pdf"))
    assert "| Date | Version | Description |\n|---|---|---|\n| September 2002 | Draft 01 |" in md


def test_a_running_title_beside_the_page_number_is_furniture():
    # LaTeX (llncs): "Optimized Table Tokenization … 9" sits 12 % down the page
    doc = low("2305.03393v1-pg9.pdf")
    gone = {(b.type, plain_text(b)) for p in doc.pages for b in p.discarded_blocks}
    # read as two blocks (title, number) or as one line ending with the number
    assert gone in ({(BlockType.PAGE_NUMBER, "9"),
                     (BlockType.HEADER, "Optimized Table Tokenization for Table Structure Recognition")},
                    {(BlockType.HEADER, "Optimized Table Tokenization for Table Structure Recognition 9")})
    assert to_markdown(doc).startswith("order to compute the TED score.")


def test_cell_text_keeps_its_scripts_as_styles():
    from mineru_tui.pdf.tables import _text_block

    spans = _text_block("E=mc<sup>2</sup> and H<sub>2</sub>O").lines[0].spans
    assert [(s.content, sorted(s.style)) for s in spans] == [
        ("E=mc", []), ("2", ["superscript"]), (" and H", []), ("2", ["subscript"]), ("O", [])]


def test_a_table_search_that_fails_leaves_the_page_as_text(monkeypatch):
    import mineru_tui.pdf.tables as tables

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a degenerate drawing")

    monkeypatch.setattr(tables, "find_tables", broken)
    monkeypatch.setenv("MINERU_TUI_PAGE_PROBE", "0")  # the patch is here: read the page here
    doc = convert(CORPUS / "2305.03393v1-pg9.pdf", ConvertOptions(effort="low"))
    assert not blocks(doc, BlockType.TABLE)
    assert "5.1 Hyper Parameter Optimization" in titles(doc) and "0.965" in to_markdown(doc)


def test_a_table_takes_the_reading_place_of_its_first_line(monkeypatch):
    # for a line reader that gives lines in reading order (columns first): the table goes
    # where its first line was read, between the paragraphs around it
    from types import SimpleNamespace as NS

    import mineru_tui.pdf.tables as tables
    from mineru_tui.pdf.structure import PageStructure
    from mineru_tui.pdf.tables import FoundTable

    lines = [NS(box=(0, y, 100, y + 8), text=t) for y, t in
             [(0, "before"), (20, "cell a"), (30, "cell b"), (50, "after"), (70, "last")]]
    monkeypatch.setattr(tables, "find_tables", lambda *a: [FoundTable((0, 18, 100, 40), None)])
    ps = PageStructure()
    found, rest = ps.take_tables([], lines)
    assert [ln.text for ln in rest] == ["before", "after", "last"] and found[0].at == 1
    paras = [NS(lines=[ln]) for ln in rest]
    ordered = ps.place_tables(paras, found, lambda t: NS(lines=[], table=t))
    assert [p.lines[0].text if p.lines else "TABLE" for p in ordered] == ["before", "TABLE", "after", "last"]


def test_grid_cell_index_by_bisection_matches_the_scan():
    """A character's grid row/column, found by bisection, is the one the plain scan finds:
    at an edge, within the point of slack (the first gap wins), beyond it, and for NaN."""
    from mineru_tui.pdf.tables import _index, _indexer

    edges = [10.0, 20.0, 21.5, 40.0]
    values = [v + d for v in (*edges, 0.0, 15.0, 30.0, 60.0) for d in (-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5)]
    for e in (edges, [], [5.0], [10.0, float("nan"), 30.0]):
        index = _indexer(e)
        assert [index(v) for v in values + [float("nan")]] == [_index(e, v) for v in values + [float("nan")]]
    assert _indexer(edges)(21.0) == 0 and _indexer(edges)(22.0) == 1  # overlapping slack: the first


def test_text_stats_counts_each_character_kind():
    """text_stats counted by distinct character: spaces left out, soft hyphens not abnormal,
    map errors on non-space characters only, punctuation runs of four with two kinds."""
    from dataclasses import replace

    from mineru_tui.pdf.classify import text_stats

    chars = [_char(t, 10.0 * i, 0.0) for i, t in enumerate("ab .,;: c ---- x\x02y")]
    chars[1] = replace(chars[1], map_error=True)
    chars[2] = replace(chars[2], map_error=True)  # a space: not counted
    chars[-2] = replace(chars[-2], hyphen=True)
    s = text_stats(chars)
    assert (s.chars, s.map_errors, s.abnormal, s.punct, s.punct_in_runs) == (14, 1, 0, 8, 4)
    assert s.scripts == {"latin": 5}
    assert text_stats(chars[:-2] + [replace(chars[-2], hyphen=False), chars[-1]]).abnormal == 1


def test_right_to_left_is_judged_on_letters_only():
    """``is_rtl`` skips its count when no character of those scripts is there; where some
    are, only letters count (a Hebrew sof pasuq or an Arabic-Indic digit is no letter)."""
    from mineru_tui.pdf.tables import is_rtl

    def chars(text):
        return [_char(t, 10 * i, 0) for i, t in enumerate(text)]

    assert not is_rtl(chars("abc 123")) and not is_rtl([])
    assert is_rtl(chars("שלום a"))
    assert not is_rtl(chars("ab\u05c3\u05c3\u05c3\u0661\u0662"))  # marks and digits: no letters
    assert is_rtl(chars("a\u05d0\u05d1\u0661\u0662"))  # two letters of three
    assert not is_rtl(chars("ab\u05d0"))


def test_rows_drawn_in_ruled_cells_do_not_depend_on_how_the_characters_are_found():
    """_text_rows finds a ruled row's characters by bisection over their centres sorted once;
    a character with a NaN centre sends it back to the plain scan (and lies in no row). Both
    find the same rows, whatever order the characters come in."""
    import random

    from mineru_tui.pdf.tables import _text_rows

    xs, ys = [0.0, 100.0, 200.0, 300.0], [0.0, 40.0, 60.0]
    chars = []
    for col in range(3):  # the first ruled row: two records per cell, one line each
        for line, y in enumerate((6.0, 22.0)):
            chars += [_char(t, 100 * col + 5 + 6 * k, y) for k, t in enumerate(f"r{line}c{col}")]
    chars += [_char(t, 10 + 6 * k, 46.0) for k, t in enumerate("one line")]  # the second row
    rules = _text_rows(chars, xs, ys)
    assert sorted((r.at, r.a, r.b) for r in rules) == [(18.0, x, x + 100) for x in (0.0, 100.0, 200.0)]
    shuffled = chars[:]
    random.Random(7).shuffle(shuffled)
    assert _text_rows(shuffled, xs, ys) == rules
    nan = _char("z", float("nan"), float("nan"))
    assert _text_rows(chars + [nan], xs, ys) == rules
    assert _text_rows(chars, xs, [0.0, float("nan"), 60.0]) == []


def test_rows_drawn_by_bisection_match_the_scan_on_random_grids():
    """Seeded random ruled grids, characters often centred exactly on a row's edge: the rows
    found by bisection equal the plain scan's (which a NaN-centred character forces)."""
    import random

    from mineru_tui.pdf.tables import _text_rows

    rng = random.Random(30)
    nan = _char("z", float("nan"), float("nan"))
    found = 0
    for _ in range(300):
        xs = [0.0, 100.0, 200.0, 300.0]
        ys = [0.0, 40.0, 80.0, 120.0]
        chars = []
        for _ in range(rng.randrange(4, 40)):
            y = rng.choice([*ys, *(rng.uniform(0, 120) for _ in range(3)), 6.0, 22.0, 46.0, 62.0])
            x = rng.choice([5.0, 40.0, 105.0, 150.0, 205.0, 250.0])
            chars.append(_char(rng.choice("ab1."), x, y - 4.0))  # centred on y
        rules = _text_rows(chars, xs, ys)
        assert _text_rows(chars + [nan], xs, ys) == rules
        found += bool(rules)
    assert found > 10  # the grids draw rows often enough to compare


def test_punctuation_runs_are_counted_as_the_plain_walk_counts_them():
    """text_stats' runs of four or more ASCII punctuation marks with two kinds at least, on
    seeded random texts (found over the page's text in one string), equal the character walk
    the check is defined by."""
    import random

    from mineru_tui.pdf.classify import _ASCII_PUNCT, text_stats

    def walked(texts):
        total, run = 0, []
        for t in texts + [" "]:
            if t in _ASCII_PUNCT:
                run.append(t)
                continue
            if len(run) >= 4 and len(set(run)) >= 2:
                total += len(run)
            run = []
        return total

    rng = random.Random(30)
    alphabet = list(".,;:-!?()[]a b\u00e9\u4e00") + ["\n"]
    for _ in range(400):
        texts = [rng.choice(alphabet) for _ in range(rng.randrange(0, 60))]
        chars = [_char(t, 5.0 * i, 0.0) for i, t in enumerate(texts)]
        assert text_stats(chars).punct_in_runs == walked(texts), texts
