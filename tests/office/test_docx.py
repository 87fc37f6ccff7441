"""The .docx reader on the corpus (text and structure of the origin projects' groundtruth)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mineru_tui.document import (BlockType, SpanType, plain_text, to_content_list, to_markdown,
                                 walk)
from mineru_tui.office.docx import read_docx

CORPUS = Path(__file__).parents[1] / "corpus" / "office"
DOCX = sorted(CORPUS.glob("*.docx"))
WORD = re.compile(r"\w+", re.UNICODE)


def all_text(doc) -> str:
    """Markdown plus the discarded header/footer text, whitespace normalised."""
    parts = [to_markdown(doc, image_prefix="")]
    parts += [plain_text(b) for page in doc.pages for b in page.discarded_blocks]
    return " ".join(" ".join(parts).split())


def groundtruth_words(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".native":  # pandoc AST: the Str leaves are the words
        text = " ".join(re.findall(r'Str "((?:[^"\\]|\\.)*)"', text))
        text = re.sub(r"\\(\d+)", lambda m: chr(int(m.group(1))), text)  # "\160": U+00A0
    else:  # Markdown: drop math (LaTeX spelling is the OMML converter's business)
        text = re.sub(r"\$\$.*?\$\$|\$[^$\n]*\$", " ", text, flags=re.S)
        text = text.replace("<!-- image -->", " ")
    return WORD.findall(text)


def recall(words: list[str], text: str) -> float:
    have = set(WORD.findall(text))
    return sum(w in have for w in words) / max(1, len(words))


def plain_all(doc) -> str:
    """Plain text of every block (table cells included) and the headers/footers."""
    parts = []
    for page in doc.pages:
        for b in walk(page.para_blocks + page.discarded_blocks):
            if b.type == BlockType.TABLE_BODY:
                parts += [cell_text(c) for t in tables_in(b) for r in t.rows for c in r]
            elif b.lines:
                parts.append(plain_text(b))
    return " ".join(" ".join(parts).split())


def tables_in(block):
    return [s.table for line in block.lines for s in line.spans if s.table is not None]


def titles(doc):
    return [(b.level, plain_text(b)) for b in doc.iter_blocks() if b.type == BlockType.TITLE]


def tables(doc):
    spans = [s for b in doc.iter_blocks() if b.type == BlockType.TABLE_BODY
             for line in b.lines for s in line.spans if s.table is not None]
    return [s.table for s in spans]


def cell_text(cell) -> str:
    return " ".join(plain_text(b) for b in cell.blocks).strip()


@pytest.fixture(scope="module")
def parsed():
    return {p.name: read_docx(p) for p in DOCX}


def test_corpus_has_docx():
    assert len(DOCX) >= 8


@pytest.mark.parametrize("path", DOCX, ids=lambda p: p.name)
def test_every_corpus_file_parses(path, parsed):
    doc = parsed[path.name]
    assert doc.backend == "office"
    assert len(doc.pages) == 1
    assert to_markdown(doc).strip()
    assert to_content_list(doc)
    assert not [w for w in doc.warnings if "damaged" in w], doc.warnings


GROUNDTRUTH = sorted((CORPUS / "groundtruth").glob("*.docx.*"))


@pytest.mark.parametrize("gt", GROUNDTRUTH, ids=lambda p: p.name)
def test_groundtruth_text_appears(gt, parsed):
    source = gt.name.rsplit(".", 1)[0]
    words = groundtruth_words(gt)
    assert words
    if not gt.name.startswith("unstructured__"):
        assert recall(words, all_text(parsed[source])) == 1.0
    else:
        # Chunked output: every chunk line (they cut words at chunk overlaps) is a
        # verbatim piece of the document's text.
        text = plain_all(parsed[source])
        lines = [" ".join(l.split()) for l in gt.read_text(encoding="utf-8").splitlines()]
        missing = [l for l in lines if l and l not in text]
        assert not missing


def test_word_sample_headings_lists_image_caption_table(parsed):
    doc = parsed["docling__word_sample.docx"]
    # Title is level 1, so Heading 1 and 2 sit below it (as docling's groundtruth has them).
    assert titles(doc) == [(1, "Swimming in the lake"), (2, "Let’s swim!"), (3, "Let’s eat")]
    lists = [b for b in doc.iter_blocks() if b.type == BlockType.LIST]
    assert [[(i.marker, plain_text(i)) for i in lst.blocks] for lst in lists] == [
        [("-", "You can relax and look around"), ("-", "Paddle about"), ("-", "Enjoy summer warmth")],
        [("1.", "Wear sunglasses"), ("2.", "Don’t forget to drink water"), ("3.", "Use sun cream")],
        [("1.", "Leaves"), ("2.", "Berries"), ("3.", "Grain")],
    ]
    images = [b for b in doc.iter_blocks() if b.type == BlockType.IMAGE]
    assert len(images) == 1 and len(doc.images) == 1
    data = next(iter(doc.images.values()))
    assert data.startswith(b"\x89PNG")
    captions = [plain_text(k) for k in images[0].blocks if k.type == BlockType.IMAGE_CAPTION]
    assert captions == ["Figure 1: This is a cute duckling"]
    [table] = tables(doc)
    assert len(table.rows) == 4 and all(len(r) == 3 for r in table.rows)
    assert cell_text(table.rows[2][1]) == "Blueberry, Strawberry, Cranberry"
    assert "Hmm, what else…" in [plain_text(b) for b in doc.pages[0].para_blocks]  # numId 0
    assert [b.type for b in doc.pages[0].discarded_blocks] == [BlockType.FOOTER]


def test_word_tables_merged_cells(parsed):
    doc = parsed["docling__word_tables.docx"]
    found = tables(doc)
    assert len(found) == 7
    spans = {(cell_text(c), c.colspan, c.rowspan) for t in found for r in t.rows for c in r
             if c.colspan > 1 or c.rowspan > 1}
    assert ("Merged Cell 1.1 1.2", 2, 1) in spans
    assert ("Merged Cell 2.1 2.2", 2, 1) in spans
    assert ("Merged Cell 1.1 2.1", 1, 2) in spans
    assert ("Merged Cell 3.1 4.1", 1, 2) in spans
    assert ("Merged Cell 4.4 5.4", 1, 2) in spans
    assert ("Merged Cell 0.2 1.2", 1, 2) in spans
    # The merged text is stored once (covered cells are omitted), unlike docling's repeat.
    md = to_markdown(doc)
    assert md.count("Merged Cell 1.1 2.1") == 2  # in two tables, once each
    assert '<td rowspan="2">Merged Cell 1.1 2.1</td>' in md
    # Every row of the uniform table has its three cells.
    assert [[cell_text(c) for c in r] for r in found[0].rows][1] == ["Cell 1.0", "Cell 1.1", "Cell 1.2"]


def test_pandoc_lists_depth_and_markers(parsed):
    doc = parsed["pandoc__lists.docx"]
    lists = [b for b in doc.pages[0].para_blocks if b.type == BlockType.LIST]
    got = [[(i.depth, i.marker, plain_text(i)) for i in lst.blocks] for lst in lists]
    assert got[0] == [(0, "1.", "one"), (0, "2.", "two"), (1, "a.", "a"), (1, "b.", "b")]
    assert got[1] == [(0, "-", "one"), (0, "-", "two"), (1, "-", "three"),
                      (2, "-", "four\nSub paragraph"), (0, "-", "Same list")]
    assert got[2] == [(0, "-", "Different list adjacent to the one above.")]
    assert titles(doc) == [(2, "Some nested lists")]


def test_pandoc_notes_footnote_and_endnote(parsed):
    doc = parsed["pandoc__notes.docx"]
    refs = [s.content for b in doc.iter_blocks() for line in b.lines for s in line.spans
            if s.type == SpanType.FOOTNOTE_REF]
    assert refs == ["1", "2"]
    notes = [(b.note_id, plain_text(b)) for b in doc.pages[0].para_blocks
             if b.type == BlockType.PAGE_FOOTNOTE]
    assert notes == [("1", "My note."), ("2", "This is an endnote at the end of the document.")]
    md = to_markdown(doc)
    assert "Test footnote.[^1] Test endnote.[^2]" in md
    assert md.rstrip().endswith("[^2]: This is an endnote at the end of the document.")


def test_mammoth_text_box_once(parsed):
    doc = parsed["mammoth__text-box.docx"]
    # The box exists as a DrawingML Choice and a VML Fallback: read it once.
    assert to_markdown(doc).count("Datum plane") == 1


def test_stress016_image_headers_footers(parsed):
    doc = parsed["poi__stress016.docx"]
    assert len(doc.images) == 1
    assert next(iter(doc.images.values())).startswith(b"\x89PNG")
    kinds = {b.type for b in doc.pages[0].discarded_blocks}
    assert kinds == {BlockType.HEADER, BlockType.FOOTER, BlockType.IMAGE}  # the logo is in the header
    assert "image_001.png" not in to_markdown(doc)
    assert any(e["type"] == "image" and e["img_path"] == "images/image_001.png"
               for e in to_content_list(doc))
    assert "Notice of Privacy Practices" in " ".join(plain_text(b) for b in doc.pages[0].discarded_blocks)
    items = [i for b in doc.iter_blocks() if b.type == BlockType.LIST for i in b.blocks]
    assert len(items) >= 20


def test_equations_counts(parsed):
    doc = parsed["docling__equations.docx"]
    gt = (CORPUS / "groundtruth" / "docling__equations.docx.md").read_text(encoding="utf-8")
    display = [b for b in doc.iter_blocks() if b.type == BlockType.INTERLINE_EQUATION]
    inline = [s for b in doc.iter_blocks() for line in b.lines for s in line.spans
              if s.type == SpanType.INLINE_EQUATION]
    assert len(display) == gt.count("$$") // 2 == 19
    gt_inline = re.sub(r"\$\$.*?\$\$", "", gt, flags=re.S).count("$") // 2
    assert len(inline) == gt_inline == 8
    assert all(s.content.strip() for s in inline)
    # The list keeps its inline equations inside the items.
    lists = [b for b in doc.iter_blocks() if b.type == BlockType.LIST]
    assert len(lists) == 1 and len(lists[0].blocks) == 3


def test_equations_are_latex(parsed):
    md = to_markdown(parsed["docling__equations.docx"])
    assert re.search(r"\$A\s*=\s*\\pi\s*r\^\{2\}\s*\$", md)
    assert "\\frac" in md and "\\sum" in md


def test_outline_levels_make_headings_as_in_words_navigation_pane():
    # pandoc's test file sets w:outlineLvl="2" directly on its "Goal:" paragraphs (no
    # heading style): Word lists them as level-3 headings, so do we.
    doc = read_docx(CORPUS / "pandoc__lists_level_override.docx")
    heads = [(b.level, plain_text(b)) for b in doc.iter_blocks() if b.type == BlockType.TITLE]
    goals = [h for h in heads if h[1].startswith("Goal:")]
    assert len(goals) >= 4 and {level for level, _ in goals} == {3}
    # MinerU's CJK demo: numbered headings whose level comes from w:outlineLvl alone.
    doc = read_docx(CORPUS / "mineru__docx_01.docx")
    heads = [(b.level, plain_text(b)) for b in doc.iter_blocks() if b.type == BlockType.TITLE]
    assert (2, "1. 有序列表构成的章节标题") in heads and (3, "1.1. 显式空白字符表示") in heads
    # ...but its table-of-contents lines (same words, no outline level) stay text
    assert not any("iii" in text for _, text in heads)


def test_outline_level_rule_edges(tmp_path):
    from tests.docx_fixtures import build_docx, cell, p, table
    styles = ('<w:style w:type="paragraph" w:styleId="Zag"><w:name w:val="Заголовок раздела"/>'
              '<w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>'
              '<w:style w:type="paragraph" w:styleId="Sub"><w:name w:val="sub"/>'
              '<w:basedOn w:val="Zag"/></w:style>')
    body = (p("Direct", '<w:outlineLvl w:val="0"/>') + p("Styled", '<w:pStyle w:val="Zag"/>')
            + p("Based on", '<w:pStyle w:val="Sub"/>') + p("Body text", '<w:outlineLvl w:val="9"/>')
            + p("", '<w:outlineLvl w:val="0"/>')
            + table([[cell(p("In a cell", '<w:outlineLvl w:val="0"/>')), cell(p("x"))]]))
    path = tmp_path / "o.docx"
    path.write_bytes(build_docx(body, {"styles": styles}))
    doc = read_docx(path)
    heads = [(b.level, plain_text(b)) for b in doc.iter_blocks() if b.type == BlockType.TITLE]
    assert heads == [(1, "Direct"), (2, "Styled"), (2, "Based on")]
