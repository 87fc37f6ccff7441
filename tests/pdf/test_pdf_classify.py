"""Per-page text-layer decisions on a mixed PDF made in the test, and MinerU's
document-level answer for comparison; the model-free text-only reading."""

from __future__ import annotations

import pytest
from testkit.pdf_fixtures import PUA1, PUA2, Image, Page, Text, text_lines, write_pdf

from mineru_tui.document import BlockType
from mineru_tui.document.model import plain_text
from mineru_tui.pdf import (
    NeedsModelError,
    classify_document,
    classify_page,
    open_pdf,
    text_only_page,
)
from mineru_tui.pdf.classify import sample_indices

BODY = ["This born-digital page carries plenty of real text in its layer."] * 4


def _mixed(tmp_path):
    ocr_layer = [Image(0, 0, 612, 792)] + [Text(t.x, t.y, t.text, mode=3)
                                           for t in text_lines(BODY)]
    pages = [
        Page(items=text_lines(BODY)),                                    # 1 digital
        Page(items=[Image(36, 36, 540, 720)]),                           # 2 scan, no text
        Page(items=ocr_layer),                                           # 3 scan + OCR layer
        Page(items=text_lines(["Appendix B"])),                          # 4 a few characters
        Page(items=text_lines(["#$%& !@#$ ((**)) !!?? <<>> ~~^^"] * 6)),  # 5 garbled
        Page(width=60, height=700, items=text_lines(BODY, x=2)),         # 6 a ribbon
        Page(items=[Image(0, 0, 612, 792)] + text_lines(BODY)),          # 7 visible text on a background
        Page(rotate=90, items=text_lines(BODY)),                         # 8 digital, rotated
        Page(items=text_lines(BODY) + [Image(0, 0, 612, 792)]),          # 9 text under a scan
    ]
    return write_pdf(tmp_path / "mixed.pdf", pages)


def test_each_page_is_decided_on_its_own(tmp_path):
    with open_pdf(_mixed(tmp_path)) as doc:
        decisions = [classify_page(p) for p in doc]
    assert [d.use_text_layer for d in decisions] == [True, False, False, False, False, False,
                                                     True, True, False]
    reasons = [d.reason for d in decisions]
    solid = sum(len(line.replace(" ", "")) for line in BODY)
    assert reasons[0] == f"The page has a usable text layer ({solid} characters)."
    assert reasons[1] == "The page has no text layer."
    assert reasons[2] == reasons[8] == ("The text is a hidden layer behind a scanned image "
                                        "(an OCR layer).")
    assert reasons[3] == "The text layer has only 9 characters (fewer than 50)."
    assert "punctuation" in reasons[4]
    assert "elongated" in reasons[5]


def test_the_document_answer_is_mineru_s(tmp_path):
    with open_pdf(_mixed(tmp_path)) as doc:
        verdict = classify_document(doc)
    assert verdict.kind == "ocr" and "Page 6" in verdict.reason  # the ribbon page
    digital = write_pdf(tmp_path / "digital.pdf", [Page(items=text_lines(BODY))] * 3
                        + [Page(items=[Image(36, 36, 540, 720)])])
    with open_pdf(digital) as doc:  # 3 text pages + 1 scan: MinerU calls it all "txt"
        verdict = classify_document(doc)
        assert verdict.kind == "txt"
        # ... while per page, the scan still goes to the model
        assert [classify_page(p).use_text_layer for p in doc] == [True, True, True, False]


def test_private_use_characters_make_the_layer_unreliable(tmp_path):
    text = "Normal words here. " * 20 + (PUA1 + PUA2 + " ") * 6  # 12 of 332 characters
    path = write_pdf(tmp_path / "ctl.pdf", [Page(items=text_lines([text[i:i + 90] for i in
                                                                    range(0, len(text), 90)],
                                                                   size=6))])
    with open_pdf(path) as doc:
        d = classify_page(doc[0])
    assert not d.use_text_layer and "control or private-use" in d.reason


def test_sampling_spreads_over_the_document():
    assert sample_indices(4) == [0, 1, 2, 3]
    picks = sample_indices(100)
    assert len(picks) == 10 and picks[0] == 0 and picks[-1] == 99


def test_text_only_reads_columns_in_order(tmp_path):
    items = text_lines(["A Report Title"], top=740, size=22)
    items += text_lines(["Left column, first paragraph, whose", "second line is hyphen-",
                         "ated here."], top=690, size=10)
    items += text_lines(["Left column, second paragraph.", "- a dash item", "- another item"],
                        top=630, size=10)
    items += text_lines(["Right column, first paragraph", "continues here."], x=320, top=690,
                        size=10)
    items += text_lines(["Right column, last paragraph."], x=320, top=630, size=10)
    items += [Text(590, 300, "arXiv:2509.22186 margin", size=9, angle=90),
              Text(72, 600, "hidden OCR words", mode=3)]
    path = write_pdf(tmp_path / "paper.pdf", [Page(items=items), Page(rotate=270, items=items)])
    expected = [
        (BlockType.TITLE, "A Report Title"),
        (BlockType.TEXT, "Left column, first paragraph, whose second line is hyphenated here."),
        (BlockType.TEXT, "Left column, second paragraph."),
        (BlockType.LIST, "a dash item\nanother item"),  # dash items are a list
        (BlockType.TEXT, "Right column, first paragraph continues here."),
        (BlockType.TEXT, "Right column, last paragraph."),
        (BlockType.ASIDE_TEXT, "arXiv:2509.22186 margin"),
    ]
    with open_pdf(path) as doc:
        for page in doc:
            blocks = text_only_page(page)
            got = [(b.type, plain_text(b)) for b in blocks]
            assert got == expected
            assert [b.index for b in blocks] == list(range(len(expected)))
            w, h = page.size_pt
            assert all(0 <= b.bbox[0] < b.bbox[2] <= w and 0 <= b.bbox[1] < b.bbox[3] <= h
                       for b in blocks)
            assert blocks[0].level == 1


def test_text_only_reports_pages_that_need_the_model(tmp_path):
    path = _mixed(tmp_path)
    with open_pdf(path, "2,3,4") as doc:
        pages = list(doc)
        for page in pages[:2]:
            with pytest.raises(NeedsModelError) as err:
                text_only_page(page)
            assert str(err.value).startswith(f"page {page.number} needs the model: ")
        # a page with only a few characters and no image is still read
        blocks = text_only_page(pages[2])
        assert [b.lines[0].spans[0].content for b in blocks] == ["Appendix B"]


@pytest.mark.parametrize("rotate", [0, 90])
def test_text_only_blocks_used_as_a_layout_give_the_same_text(tmp_path, rotate):
    """The two readings agree: blocks found from the text layer, handed back as a layout
    (normalised boxes, a little margin), are filled with the same text."""
    from mineru_tui.pdf import text_for_blocks

    items = text_lines(["A Short Title"], top=740, size=20)
    items += text_lines(["One paragraph that is long enough to wrap over", "two lines of text."],
                        top=690)
    items += text_lines(["Another paragraph in the right column."], x=380, top=690)
    path = write_pdf(tmp_path / "rt.pdf", [Page(rotate=rotate, items=items)])
    with open_pdf(path) as doc:
        page = doc[0]
        w, h = page.size_pt
        blocks = text_only_page(page)
        layout = [(b.type, ((b.bbox[0] - 2) / w, (b.bbox[1] - 2) / h, (b.bbox[2] + 2) / w,
                            (b.bbox[3] + 2) / h)) for b in blocks]
        texts = text_for_blocks(page, layout, page.render().size)
    assert texts == ["".join(s.content for s in b.lines[0].spans) for b in blocks]
    assert len(blocks) == 3
    assert {b.angle for b in blocks} == ({None} if rotate == 0 else {90})  # MinerU's angle
