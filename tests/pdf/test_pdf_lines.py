"""The line reader on real PDFs from public test suites (``tests/corpus/pdf_lines``, origins
and licences in its SOURCES.tsv): right-to-left text in logical order, two columns read one
after the other, a line of one column never bridging two of another, tight leading, and the
same characters read the same way by ``--effort low`` and by the default effort's blocks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mineru_tui.pdf import open_pdf, page_lines, text_for_blocks, text_only_page
from mineru_tui.pdf.bidi_order import logical_order, mirrored
from mineru_tui.pdf.chars import page_chars

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "pdf_lines"


def _low(name: str) -> list[str]:
    """``--effort low``'s blocks of the file's first page, as plain text."""
    with open_pdf(CORPUS / name) as doc:
        return ["".join(s.content for ln in b.lines for s in ln.spans) for b in text_only_page(doc[0])]


def _lines(name: str):
    with open_pdf(CORPUS / name) as doc:
        return page_lines([c for c in page_chars(doc[0]) if c.visible])


def _whole_page_block(name: str) -> str:
    """The default effort's reading of one text block covering the whole page."""
    with open_pdf(CORPUS / name) as doc:
        page = doc[0]
        [text] = text_for_blocks(page, [("text", (0.0, 0.0, 1.0, 1.0))], page.render().size)
        return text


def test_tight_leading_keeps_two_lines_apart():
    # pypdf's r6-empty-password.pdf: "pdf encryption test" over "password: asdfzxcv", the
    # second line's font box reaching into the first (their letters used to interleave)
    assert _low("pypdf__r6-empty-password.pdf") == ["pdf encryption test password: asdfzxcv"]
    assert [ln.text for ln in _lines("pypdf__r6-empty-password.pdf")] == [
        "pdf encryption test", "password: asdfzxcv"]
    assert _whole_page_block("pypdf__r6-empty-password.pdf") == "pdf encryption test password: asdfzxcv"


def test_right_to_left_text_is_read_in_logical_order():
    text = " ".join(_low("docling__right_to_left_02.pdf"))
    # "Accordingly, the Egyptian government puts..." as it is read, not as it is drawn
    assert "وعليه، فإن الحكومة المصرية تضع" in text
    assert "ةيرصملا ةموكحلا" not in text
    assert "(2024 - 2026)" in text  # numbers left to right inside the Arabic, brackets turned back
    # a lam-alef ligature, which PDFium's own text gives alef first ("اإلنسخن")
    assert "الإنسخن المصري" in text and "اإلنسخن" not in text
    lines = _lines("docling__right_to_left_02.pdf")
    assert sum(ln.rtl for ln in lines) >= len(lines) - 1  # the page number is the other
    # the default effort's text blocks read the same characters the same way
    block = _whole_page_block("docling__right_to_left_02.pdf")
    assert "وعليه، فإن الحكومة المصرية تضع" in block and "ةيرصملا ةموكحلا" not in block


def test_two_columns_are_read_one_after_the_other():
    # the FAA handbook's page: two columns with a 12-pt gutter, figures in the left one
    text = "\n".join(_low("docling__amt_handbook_sample.pdf"))
    assert "the inner race of the bearing is clamped to the supporting structure by the nut" in text
    assert "clamped the most common" not in text
    left_end = text.index("The wing type that is")
    assert left_end < text.index("the most common ranges in size for No. 6 up to")
    lines = _lines("docling__amt_handbook_sample.pdf")
    left = {ln.block for ln in lines if ln.text.startswith("pulleys, provided the inner race")}
    right = {ln.block for ln in lines if ln.text.startswith("the most common ranges in size")}
    assert len(left) == len(right) == 1 and left != right
    first = next(ln for ln in lines if ln.text.startswith("pulleys, provided the inner race"))
    second = next(ln for ln in lines if ln.text.startswith("the most common ranges in size"))
    assert first.stretch == second.stretch is not None and (first.column, second.column) == (0, 1)
    # its section titles are set in Times-Italic, the body in Times-Roman
    heading = next(ln for ln in lines if ln.text == "Stainless Steel Self-Locking Nut")
    body = next(ln for ln in lines if ln.text.startswith("pulleys, provided"))
    assert heading.italic and not heading.bold and not body.italic
    # the fractions' raised numerators stay on their line, tagged as MinerU tags them
    assert any("up to <sup>1</sup>⁄4 inch, the" in ln.text for ln in lines)


def test_a_line_of_one_column_never_bridges_two_lines_of_another():
    # two pages side by side; a 13-pt checkbox line in one column used to gather two 9-pt
    # lines into one row and interleave their letters ("isnttaeffr lnaawtiyoenrasl")
    lines = _lines("../pdf/table_mislabeled_as_picture.pdf")  # committed once, with its groundtruth
    texts = [ln.text for ln in lines]
    assert "staff lawyers coordinate to uniformly challenge common violations of national and" in texts
    assert "international due process rights and human rights?" in texts
    i = texts.index("24. If your country has an institutional legal aid provider (e.g. public defender), do the")
    assert texts[i + 1].startswith("staff lawyers coordinate")
    # the public shape the structure reader builds on: size, weight, block
    question = lines[i]
    option = next(ln for ln in lines if ln.text.endswith("Yes, at the national (federal) level"))
    assert question.bold and not option.bold
    assert question.size == pytest.approx(9, abs=0.2)
    # the left page is read before the right one
    assert texts.index("international due process rights and human rights?") < next(
        k for k, t in enumerate(texts) if t.startswith("26. If your country allows legal aid"))


@pytest.mark.parametrize("visual, logical", [
    ("abc", "abc"),
    # Hebrew drawn right to left inside English
    ("see \u05dd\u05d5\u05dc\u05e9 here", "see \u05e9\u05dc\u05d5\u05dd here"),
    # an Arabic line with a number: digits stay left to right
    ("\u0629\u062d\u0641\u0635 12 \u0649\u0644\u0639", "\u0639\u0644\u0649 12 \u0635\u0641\u062d\u0629"),
    # Latin inside Arabic keeps its order; brackets drawn in the right-to-left run turn back
    ("(PDF file) \u0631\u064a\u0628\u0643 \u0641\u0644\u0645",
     "\u0645\u0644\u0641 \u0643\u0628\u064a\u0631 (PDF file)"),
    # a bracket pair around Arabic is drawn with the shapes that face the word
    ("(\u0645\u0644\u0627\u0639\u0644\u0627) \u0627\u0628\u062d\u0631\u0645",
     "\u0645\u0631\u062d\u0628\u0627 (\u0627\u0644\u0639\u0627\u0644\u0645)"),
    # a number before Arabic words stays one number ("2-5 استاندارد"; read from the left its
    # digits followed Arabic letters and came out "5-2")
    ("\u062f\u0631\u0627\u062f\u0646\u0627\u062a\u0633\u0627 2-5",
     "2-5 \u0627\u0633\u062a\u0627\u0646\u062f\u0627\u0631\u062f"),
    # after Arabic letters digits are Arabic numbers, which a hyphen does not join (UAX #9
    # draws "تلفن 021-1234" as "1234-021 نفلت")
    ("1234-021 \u0646\u0641\u0644\u062a", "\u062a\u0644\u0641\u0646 021-1234"),
])
def test_visual_order_back_to_logical(visual, logical):
    order, odd = logical_order(list(visual))
    assert "".join(mirrored(visual[i]) if odd[i] else visual[i] for i in order) == logical


def test_lines_carry_their_boxes_in_reading_order():
    lines = _lines("docling__amt_handbook_sample.pdf")
    blocks = [ln.block for ln in lines]
    assert blocks == sorted(blocks)  # numbered in reading order
    for ln in lines:
        x0, y0, x1, y1 = ln.box
        assert 0 <= x0 < x1 <= 612 and 0 <= y0 < y1 <= 792
        assert ln.height > 0 and ln.size > 0 and not re.search(r"\s{2,}", ln.text)


def test_a_blank_page_has_no_blocks_and_needs_no_model(tmp_path):
    from testkit.pdf_fixtures import Page, text_lines, write_pdf

    from mineru_tui.pdf import classify_page

    path = write_pdf(tmp_path / "blank.pdf", [Page(items=[]), Page(items=text_lines(["a"]))])
    with open_pdf(path) as doc:
        assert classify_page(doc[0]).blank and not classify_page(doc[1]).blank
        assert text_only_page(doc[0]) == []


def test_vertical_japanese_reads_its_columns_right_to_left():
    # pdf.js's vertical.pdf: "あいうえお" in the right column, "日本語" left of it
    assert [ln.text for ln in _lines("pdfjs__vertical.pdf")] == ["あいうえお", "日本語"]
    assert _low("pdfjs__vertical.pdf") == ["あいうえお", "日本語"]
    assert _whole_page_block("pdfjs__vertical.pdf") == "あいうえお日本語"


def test_ligature_glyphs_of_two_arabic_letters_keep_their_order():
    # pdf.js's ArabicCIDTrueType.pdf: "انواع الخطوط العربية" four times, the "لخ" of the
    # second word drawn as one glyph mapped to both letters
    assert [ln.text for ln in _lines("pdfjs__ArabicCIDTrueType.pdf")] == ["انواع الخطوط العربية"] * 4


def test_letters_beyond_the_bmp_and_deep_subscripts():
    # pdf.js's bug1529502.pdf: an algorithm in mathematical italic (U+1D400 on, which PDFium
    # gives as UTF-16 halves) with subscripts lowered by 0.4 em
    texts = [ln.text for ln in _lines("pdfjs__bug1529502.pdf")]
    assert texts[0] == "1 ∶ 𝑝 ← Master Password from user"
    assert "7 ∶ k<sub>𝐴</sub> ← HKDF(k<sub>𝐴</sub>, version, 𝐼, ‖k<sub>𝑚</sub>‖)" in texts
    assert not any(0xD800 <= ord(ch) <= 0xDFFF for t in texts for ch in t)


def test_columns_around_text_that_spans_them(tmp_path):
    # a header, two columns, a caption across both, two shorter columns, a page number;
    # the left column of the top stretch pauses for a figure while the right one goes on
    from testkit.pdf_fixtures import Page, text_lines, write_pdf

    items = text_lines(["RUNNING HEADER OF THE JOURNAL ARTICLE ACROSS THE PAGE WIDTH"], top=760, size=10)
    items += text_lines([f"left top {i} words" for i in range(3)], top=730, size=10, leading=12)
    items += text_lines([f"left after figure {i}" for i in range(2)], top=658, size=10, leading=12)
    items += text_lines([f"right top {i} words" for i in range(8)], x=320, top=730, size=10, leading=12)
    items += text_lines(["Figure 1: a caption that spans both of the columns of this page"], top=600, size=10)
    items += text_lines([f"left bottom {i} words" for i in range(4)], top=570, size=10, leading=12)
    items += text_lines([f"right bottom {i} words" for i in range(2)], x=320, top=570, size=10, leading=12)
    items += text_lines(["Page 7"], x=290, top=60, size=9)
    with open_pdf(write_pdf(tmp_path / "columns.pdf", [Page(items=items)])) as doc:
        lines = page_lines([c for c in page_chars(doc[0]) if c.visible])
    assert [ln.text for ln in lines] == (
        ["RUNNING HEADER OF THE JOURNAL ARTICLE ACROSS THE PAGE WIDTH"]
        + [f"left top {i} words" for i in range(3)] + [f"left after figure {i}" for i in range(2)]
        + [f"right top {i} words" for i in range(8)]
        + ["Figure 1: a caption that spans both of the columns of this page"]
        + [f"left bottom {i} words" for i in range(4)] + [f"right bottom {i} words" for i in range(2)]
        + ["Page 7"])
    assert len({ln.block for ln in lines}) == 7
    # the header, the caption and the page number stand alone; the two stretches of columns
    # are two side-by-side pairs
    alone = [ln.text for ln in lines if ln.stretch is None]
    assert alone == ["RUNNING HEADER OF THE JOURNAL ARTICLE ACROSS THE PAGE WIDTH",
                     "Figure 1: a caption that spans both of the columns of this page", "Page 7"]
    pairs = {(ln.stretch, ln.column) for ln in lines if ln.stretch is not None}
    assert len(pairs) == 4 and {c for _, c in pairs} == {0, 1}


def test_a_latin_word_against_arabic_letters_is_a_word_of_its_own():
    # docling's right_to_left_01.pdf (Word): "R و Python من الأدوات" is drawn with no space
    # between "Python" and "من" (the space sits on Python's far side), and the title's
    # "وPython" touch; PDFium's own text runs them together ("Pythonمن")
    text = " ".join(_low("docling__right_to_left_01.pdf"))
    assert "البرمجة بلغة R و Python من الأدوات القوية" in text
    assert "تحسين الإنتاجية وحل المشكلات من خلال البرمجة بلغة R و Python" in text
    assert not re.search(r"[A-Za-z][\u0600-\u06ff]|[\u0600-\u06ff][A-Za-z]", text)
    # the default effort's text blocks read the same characters the same way
    block = _whole_page_block("docling__right_to_left_01.pdf")
    assert "البرمجة بلغة R و Python من الأدوات القوية" in block
    assert not re.search(r"[A-Za-z][\u0600-\u06ff]|[\u0600-\u06ff][A-Za-z]", block)


def test_a_run_redrawn_over_itself_is_read_once(tmp_path):
    # fake bold made by drawing a run again later in the page, past PDFium's own check
    # (the last few characters of a line): IBM's Redpaper figures came out "SSpeciiffiies"
    from testkit.pdf_fixtures import FFI, Page, Text, write_pdf

    others = [Text(72, 600 - 20 * k, f"Another line number {k}") for k in range(8)]
    items = [Text(72, 700, "Specifies that the row permission"), Text(72, 680, "an " + FFI + "x"),
             *others, Text(72.2, 700.1, "Specifies that the row"),  # a hair off
             Text(72, 680, "an " + FFI + "x")]  # the very same spot
    path = write_pdf(tmp_path / "redrawn.pdf", [Page(items=items)])
    with open_pdf(path) as doc:
        page = doc[0]
        texts = [ln.text for ln in page_lines(page_chars(page))]
        [block] = text_for_blocks(page, [("text", (0.0, 0.0, 1.0, 0.2))], page.render().size)
        low = [b for b in text_only_page(page)]
    assert texts[:2] == ["Specifies that the row permission", "an ffix"]  # the ligature's own letters stay
    assert block == "Specifies that the row permission an ffix"
    assert "".join(s.content for ln in low[0].lines for s in ln.spans).startswith(
        "Specifies that the row permission an ffix")


def test_a_number_keeps_its_order_where_arabic_letters_follow_it():
    # docling's right_to_left_03.pdf: "5% آخرين محموله" (the last delivery, 5%) is drawn
    # with the Persian on the number's left; read from the left, the digits seemed to follow
    # Arabic letters (UAX #9's W2) and the percent sign came out in front ("%5")
    lines = _lines("docling__right_to_left_03.pdf")
    texts = [ln.text for ln in lines]
    assert "5% آخرين محموله قابل تحويل" in texts and not any("%5" in t for t in texts)
    # the default effort's text block over that table cell reads it the same way
    x0, y0, x1, y1 = lines[texts.index("5% آخرين محموله قابل تحويل")].box
    with open_pdf(CORPUS / "docling__right_to_left_03.pdf") as doc:
        page = doc[0]
        w, h = page.size_pt
        box = ((x0 - 2) / w, (y0 - 2) / h, (x1 + 2) / w, (y1 + 2) / h)
        assert text_for_blocks(page, [("text", box)], page.render().size) == [
            "5% آخرين محموله قابل تحويل"]


def test_low_reads_a_page_without_the_characters_pdfium_cannot_map(tmp_path):
    # IBM's Redpaper has a page whose sidebar font maps to nothing (18% of its characters):
    # the page failed the checks as a whole and --effort low dropped all of it
    from mineru_tui.convert import ConvertOptions, convert
    from mineru_tui.document import to_markdown, to_middle_json
    from testkit.pdf_fixtures import UNMAPPED, Page, Text, text_lines, write_pdf

    body = text_lines(["the text layer of this page carries every word of the paragraph",
                       "so the low effort reads it even when a sidebar cannot be mapped"])
    sidebar = [Text(400 + 20 * k, 500 - 14 * k, (UNMAPPED + " ") * 12, size=10) for k in range(3)]
    path = write_pdf(tmp_path / "unmapped.pdf", [Page(items=body + sidebar)])
    doc = convert(path, ConvertOptions(engine=None, effort="low"))
    md = to_markdown(doc)
    assert "carries every word of the paragraph so the low effort reads it" in md
    assert UNMAPPED not in md
    cut = [w for w in doc.warnings if "36 characters have no Unicode mapping and were left out" in w]
    assert len(cut) == 1 and cut[0].startswith("content cut:")
    assert to_middle_json(doc)["pdf_info"][0]["unmapped_left_out"] == 36
    # a page whose mappable text alone is too little to go by still needs the model
    few = [Text(72, 700, "a title"), *(Text(72 + 20 * k, 600 - 14 * k, (UNMAPPED + " ") * 30) for k in range(6))]
    path = write_pdf(tmp_path / "mostly-unmapped.pdf", [Page(items=few), Page(items=body)])
    doc = convert(path, ConvertOptions(engine=None, effort="low"))
    assert any("page 1 was not read: the model is needed" in w for w in doc.warnings)
    assert not any("left out" in w for w in doc.warnings)


def test_a_footnote_at_the_foot_of_the_page_is_not_a_running_footer(tmp_path):
    # IBM's Redpaper: "¹ http://www.idtheftcenter.org" in the bottom tenth of the page was
    # taken for a running title with its page number ("1 ...") and left out
    from mineru_tui.convert import ConvertOptions, convert
    from mineru_tui.document import to_markdown
    from testkit.pdf_fixtures import Page, Text, text_lines, write_pdf

    body = text_lines(["The Identity Theft Resource Center reports that almost five thousand",
                       "breaches have occurred since it began to track them"])
    notes = [Text(72, 63, "1", size=6), Text(75.5, 60, " http://www.idtheftcenter.org", size=9)]
    folio = [Text(300, 30, "Chapter one page 7", size=9)]  # a running footer still goes
    path = write_pdf(tmp_path / "footnote.pdf", [Page(items=body + notes + folio),
                                                 Page(items=body + [Text(300, 30, "Chapter one page 8", size=9)])])
    md = to_markdown(convert(path, ConvertOptions(engine=None, effort="low")))
    assert "http://www.idtheftcenter.org" in md
    assert "Chapter one page" not in md
