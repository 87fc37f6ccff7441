"""Text-layer characters into layout blocks, on PDFs made in the tests: box mapping through
the render scale and /Rotate, reading order, ligatures, hyphenation, scripts, private-use
glyphs, rotated and invisible text."""

from __future__ import annotations

import pytest
from testkit.pdf_fixtures import FI, FL, PUA1, PUA2, Image, Page, Text, text_lines, write_pdf

from mineru_tui.pdf import open_pdf, text_for_blocks, text_to_spans
from mineru_tui.pdf.chars import Char
from mineru_tui.pdf.lines import build_lines, join_lines

# Helvetica advance widths at 12 pt, to place scripts right after their base text
_W = {"E": 8.004, "=": 7.008, "m": 9.996, "c": 6.0, "H": 8.664, " ": 3.336, "s": 6.0,
      "o": 6.672, "a": 6.672, "n": 6.672, "d": 6.672}


def _report_items():
    items = text_lines(["Results of the Study"], top=740, size=20)
    items += text_lines([f"The {FI}rst {FL}ow of this paragraph is hyphen-",
                         "ated across lines, and a self-",
                         "aware sentence ends here."], top=700)
    items += text_lines(["Right column text stays", "in its own block."], x=340, top=700)
    # "so E=mc²", then "H₂O" on the next line
    x1, x2 = (72 + sum(_W[c] for c in s) for s in ("so E=mc", "and H"))
    items += [Text(72, 600, "so E=mc"), Text(x1 + 0.3, 605, "2", size=7),
              Text(x1 + 4.5, 600, " holds"), Text(72, 583, "and H"),
              Text(x2 + 0.3, 580, "2", size=7), Text(x2 + 4.5, 583, "O is wet.")]
    items += text_lines([f"icons {PUA1}{PUA2} here"], top=450)
    items += [Text(520, 300, "Sideways note", size=10, angle=90)]
    items += [Image(72, 100, 200, 120)]
    return items


# Blocks in user space (left, bottom, right, top); each test maps them to the display frame
# of the page it is on, normalised, as the layout model would give them.
_BLOCKS = [
    ("title", (60, 730, 330, 765)),
    ("text", (60, 660, 330, 715)),      # the hyphenated paragraph, left column
    ("text", (330, 680, 600, 715)),     # right column
    ("text", (60, 570, 330, 615)),      # scripts
    ("text", (60, 440, 330, 465)),      # private-use glyphs
    ("aside_text", (505, 290, 535, 400)),
    ("image", (70, 95, 280, 225)),
    ("text", (300, 100, 500, 200)),     # empty region
    ("table", (60, 660, 330, 715)),     # not a text type, even over text
]
_EXPECTED = [
    "Results of the Study",
    ("The first flow of this paragraph is hyphenated across lines, and a self-aware sentence "
     "ends here."),
    "Right column text stays in its own block.",
    "so E=mc<sup>2</sup> holds and H<sub>2</sub>O is wet.",
    None,
    "Sideways note",
    None,
    None,
    None,
]


def _normalised(page, box):
    w, h = page.size_pt
    u0, v0, u1, v1 = page.rect_to_display(*box)
    return (u0 / w, v0 / h, u1 / w, v1 / h)


@pytest.mark.parametrize("rotate", [0, 90, 180, 270])
def test_blocks_get_their_text_on_every_rotation(tmp_path, rotate):
    path = write_pdf(tmp_path / "report.pdf", [Page(rotate=rotate, items=_report_items())])
    with open_pdf(path) as doc:
        page = doc[0]
        image = page.render()
        blocks = [(t, _normalised(page, b)) for t, b in _BLOCKS]
        assert text_for_blocks(page, blocks, image.size) == _EXPECTED


def test_boxes_map_through_the_render_scale(tmp_path):
    """The same boxes given in pixels of a render at another scale give the same text."""
    path = write_pdf(tmp_path / "report.pdf", [Page(rotate=90, items=_report_items())])
    with open_pdf(path) as doc:
        page = doc[0]
        size = (1000, round(1000 * page.size_pt[1] / page.size_pt[0]))
        blocks = [(t, [v * s for v, s in zip(_normalised(page, b), size * 2)])
                  for t, b in _BLOCKS[:3]]
        assert text_for_blocks(page, blocks, size) == _EXPECTED[:3]
        # a normalised box overshooting the page a little is still normalised
        x0, y0, x1, y1 = _normalised(page, _BLOCKS[2][1])
        over = ("text", (x0, y0, x1, 1.02) if page.rotation == 90 else (x0, y0, 1.02, y1))
        assert text_for_blocks(page, [over], size) == [_EXPECTED[2]]


def test_invisible_text_fills_blocks_and_watermarks_do_not(tmp_path):
    items = [Text(72, 700, "Visible words and"), Text(180, 700, " hidden words", mode=3),
             Text(100, 650, "DIAGONAL WATERMARK", size=30, angle=45)]
    path = write_pdf(tmp_path / "w.pdf", [Page(items=items)])
    with open_pdf(path) as doc:
        page = doc[0]
        out = text_for_blocks(page, [("text", (0, 0, 1, 1))], page.render().size)
    assert out == ["Visible words and hidden words"]


def test_a_formula_inside_a_paragraph_keeps_its_characters(tmp_path):
    items = text_lines(["A paragraph before the formula", "x + y = z", "and after it."])
    path = write_pdf(tmp_path / "f.pdf", [Page(items=items)])
    with open_pdf(path) as doc:
        page = doc[0]
        blocks = [("text", _normalised(page, (60, 670, 400, 735))),
                  ("equation", _normalised(page, (65, 699, 200, 710)))]
        assert text_for_blocks(page, blocks, page.render().size) == [
            "A paragraph before the formula and after it.", None]


@pytest.mark.parametrize("rotate", [0, 90])
def test_punctuation_hanging_past_the_box_joins_it(tmp_path, rotate):
    path = write_pdf(tmp_path / "p.pdf", [Page(rotate=rotate,
                                               items=[Text(72, 700, "It ends here.")])])
    with open_pdf(path) as doc:
        page = doc[0]
        # the full stop spans x 136.4-137.7: a box ending at 136.9 misses its centre but
        # holds its left edge, so it still belongs; one ending at 136.0 holds neither
        size = page.render().size
        box = _normalised(page, (60, 695, 136.9, 715))
        assert text_for_blocks(page, [("text", box)], size) == ["It ends here."]
        cut = _normalised(page, (60, 695, 136.0, 715))
        assert text_for_blocks(page, [("text", cut)], size) == ["It ends here"]


def _char(text, x0, y0, x1, y1, i, size=10.0):
    # a display-frame character (y grows downwards); loose box = font height
    return Char(text, (x0, y0, x1, y1), (x0, y1 - size * 0.8, x1, y1 + size * 0.2), (x0, y1),
                0, 0.0, size, i)


def test_ligature_code_points_are_expanded():
    chars = [_char(c, 10 + 6 * i, 10, 15 + 6 * i, 20, i) for i, c in enumerate("\ufb01ne \ufb02y")]
    chars += [_char(c, 10 + 6 * i, 40, 15 + 6 * i, 50, 10 + i)
              for i, c in enumerate("o\ufb03ce \ufb00 \ufb04 \ufb05 \ufb06")]
    assert [ln.text for ln in build_lines(chars)] == ["fine fly", "office ff ffl ft st"]


@pytest.mark.parametrize("lines, text", [
    (["hyphen-", "ated"], "hyphenated"),
    (["hyphen\x02", "ated"], "hyphenated"),      # PDFium's soft line-end hyphen
    (["self-", "aware"], "self-aware"),           # prefixes MinerU keeps
    (["NATO-", "led"], "NATO-led"),               # all-caps words keep theirs
    (["pages 10-", "20"], "pages 10-20"),
    (["well-", "Known"], "well- Known"),          # capital after: not hyphenation
    (["see https://example.org/a/", "b/c"], "see https://example.org/a/b/c"),
    # footnotes one under the other: the next one's mark does not continue the URL
    (["<sup>1</sup> http://www.idtheftcenter.org", "<sup>2</sup> http://www.ponemon.org/"],
     "<sup>1</sup> http://www.idtheftcenter.org <sup>2</sup> http://www.ponemon.org/"),
    (["中文", "文本"], "中文文本"),
    (["one", "", "two"], "one two"),
])
def test_line_joining(lines, text):
    assert join_lines(lines) == text


def test_spacing_accents_compose_with_their_letter():
    accent = _char("\u00b4", 10.5, 5, 14.5, 9, 1)
    accent.loose = (10.5, 12, 14.5, 22)  # font height, like the letters'
    chars = [_char("e", 10, 10, 15, 20, 0), accent, _char("t", 15.5, 10, 18.5, 20, 2),
             _char("e", 19, 10, 24, 20, 3)]
    assert build_lines(chars)[0].text == "\u00e9te"


def test_vertical_writing_reads_columns_right_to_left():
    chars = [_char(c, 50, 10 + 12 * i, 60, 20 + 12 * i, i) for i, c in enumerate("縦書き")]
    chars += [_char(c, 30, 10 + 12 * i, 40, 20 + 12 * i, 3 + i) for i, c in enumerate("の本")]
    lines = build_lines(chars)
    assert [ln.text for ln in lines] == ["縦書き", "の本"]


def test_text_to_spans_styles_scripts():
    spans = text_to_spans("E=mc<sup>2</sup> and H<sub>2</sub>O")
    assert [(s.content, sorted(s.style)) for s in spans] == [
        ("E=mc", []), ("2", ["superscript"]), (" and H", []), ("2", ["subscript"]), ("O", [])]


def test_a_page_with_too_many_characters_gives_no_text(tmp_path, monkeypatch):
    import mineru_tui.pdf.blocks_text as bt

    path = write_pdf(tmp_path / "many.pdf", [Page(items=text_lines(["some words here"]))])
    monkeypatch.setattr(bt, "page_chars", lambda page: None)  # as page_chars over 65,535
    with open_pdf(path) as doc:
        assert text_for_blocks(doc[0], [("text", (0, 0, 1, 1))], (1700, 2200)) == [None]


def test_spaced_out_chinese_takes_no_space_but_its_own():
    # justified CJK text: glyphs set apart by more than a quarter of their width
    chars = [_char(c, 10 + 14 * i, 10, 20 + 14 * i, 20, i) for i, c in enumerate("中文文本")]
    assert build_lines(chars)[0].text == "中文文本"
    chars.insert(2, _char(" ", 38, 10, 38, 20, 9))  # a space of the file's own still counts
    assert build_lines(chars)[0].text == "中文 文本"
    latin = [_char(c, 10 + 14 * i, 10, 20 + 14 * i, 20, i) for i, c in enumerate("ab")]
    assert build_lines(latin)[0].text == "a b"


def test_a_vertical_page_reads_its_columns_right_to_left_and_its_page_number_as_a_line():
    from mineru_tui.pdf.lines import page_lines

    chars = [_char(c, 150, 10 + 12 * i, 160, 20 + 12 * i, i) for i, c in enumerate("縦書きの")]
    chars += [_char(c, 130, 10 + 12 * i, 140, 20 + 12 * i, 4 + i) for i, c in enumerate("本です")]
    chars += [_char(c, 80 + 6 * i, 100, 85 + 6 * i, 108, 8 + i, size=8) for i, c in enumerate("12")]
    assert [ln.text for ln in page_lines(chars)] == ["縦書きの", "本です", "12"]


def test_latin_drawn_against_arabic_is_a_word_of_its_own():
    # "Py" drawn touching the Arabic "مَن" (its fatha drawn last, over the meem): no space in
    # the file, none in the gap, yet two words, in reading order
    chars = [_char("ن", 10, 10, 15, 20, 3), _char("م", 15, 10, 20, 20, 2),
             _char("\u064e", 16, 10, 20, 20, 0), _char("P", 20, 10, 25, 20, 4),
             _char("y", 25, 10, 30, 20, 5)]
    assert build_lines(chars)[0].text == "Py مَن"
    latin = [_char(c, 10 + 5 * i, 10, 15 + 5 * i, 20, i) for i, c in enumerate("Python")]
    assert build_lines(latin)[0].text == "Python"  # touching letters of one script stay one word


def test_a_combining_mark_goes_with_the_letter_it_is_drawn_on():
    # an acute drawn over the "e", its middle left of the letter's: sorted before it, it
    # used to land on the "n" ("ńe")
    chars = [_char("n", 10, 10, 15, 20, 0), _char("e", 15, 10, 20, 20, 1),
             _char("\u0301", 14.5, 10, 17, 20, 2), _char("t", 20, 10, 23, 20, 3)]
    line = build_lines(chars)[0]
    assert line.text == "ne\u0301t"
    assert [c.text for c in line.chars] == ["n", "e", "\u0301", "t"]
