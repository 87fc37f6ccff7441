"""The document-wide heading-level pass (document/headings.py)."""

from __future__ import annotations

from mineru_tui.document import Block, BlockType, Document, Line, Page, text_span
from mineru_tui.document.headings import OutlineEntry, level_headings, section_depth


def title(text, height=None, level=2, page_box_top=100, **extra):
    b = Block(BlockType.TITLE, lines=[Line([text_span(text)])], level=level,
              bbox=[72, page_box_top, 400, page_box_top + (height or 12)])
    b.extra.update(extra)
    if height:
        b.extra["type_height"] = height
    return b


def para(text):
    return Block(BlockType.TEXT, lines=[Line([text_span(text)])], bbox=[72, 300, 540, 340])


def doc(*pages):
    return Document([Page(i, list(blocks), page_size=(612, 792)) for i, blocks in enumerate(pages)],
                    backend="vlm")


def levels(d):
    return [(b.level, b.lines[0].spans[0].content) for p in d.pages for b in p.para_blocks
            if b.type == BlockType.TITLE]


def test_section_numbers():
    assert [section_depth(t) for t in ("4 Results", "4.1 Data", "4.1.2 Cleaning", "A.1 Tables",
                                       "Chapter 3 Methods", "IV. Discussion", "Results", "4")] == \
        [1, 2, 3, 2, 1, 1, None, None]


def test_numbering_under_a_document_title_and_sizes_agree_across_pages():
    # every title came out of its page as level 2 or 3; the document decides
    d = doc([title("A Study", 24, 2), title("1 Introduction", 16, 3), para("x"),
             title("1.1 Scope", 13, 3)],
            [title("Acknowledgements", 16, 3), title("2 Method", 16, 2), title("2.1 Setup", 13, 2),
             title("Notes on setup", 13, 3)])
    level_headings(d)
    assert levels(d) == [(1, "A Study"), (2, "1 Introduction"), (3, "1.1 Scope"),
                         (2, "Acknowledgements"), (2, "2 Method"), (3, "2.1 Setup"),
                         (3, "Notes on setup")]


def test_sizes_alone_and_no_level_skipped():
    d = doc([title("Report", 30), title("Big part", 20), title("Small part", 11)],
            [title("Other small part", 11), title("Tiny", 9)])
    level_headings(d)
    # 30, 20, 11, 9: four sizes; the first title is 1, none more than one below the one before
    assert levels(d) == [(1, "Report"), (2, "Big part"), (3, "Small part"), (3, "Other small part"),
                         (4, "Tiny")]
    d = doc([title("Only small", 11), title("Smaller", 9)])
    level_headings(d)
    assert levels(d) == [(1, "Only small"), (2, "Smaller")]


def test_the_outline_decides_and_promotes_a_short_line():
    d = doc([title("Guide", 20), para("Getting started"), title("Install", 12)],
            [title("Configure", 12), para("A long paragraph that is not in the outline at all.")])
    d.pages[1].extra["page_no"] = 2
    outline = [OutlineEntry(1, "Guide", 0), OutlineEntry(2, "Getting started", 0),
               OutlineEntry(3, "Install", 0), OutlineEntry(4, "Configure", 1)]
    level_headings(d, outline)
    # the outline's depths stand, even a skip it makes (3 -> 4 is one level; kept exact)
    assert levels(d) == [(1, "Guide"), (2, "Getting started"), (3, "Install"), (4, "Configure")]
    assert d.pages[0].para_blocks[1].extra["heading_from"] == "outline"


def test_a_missing_number_in_the_sequence_is_a_title():
    d = doc([title("1 One", 16), title("1.1 Sub", 13), para("2 A section title long enough to be "
                                                             "set on two lines of its own"),
             title("2.1 Sub", 13)])
    level_headings(d)
    assert [lv for lv, _ in levels(d)] == [1, 2, 1, 2]
    assert d.pages[0].para_blocks[2].extra["heading_from"] == "numbering"


def test_scans_use_the_models_labels_and_box_heights():
    # no type heights: the title boxes' heights per line
    d = doc([title("Annual report", None, 1, vlm_type="doc_title"),
             title("Overview", None, 2, vlm_type="paragraph_title"),
             title("Costs", None, 2, vlm_type="paragraph_title")])
    d.pages[0].para_blocks[0].bbox = [72, 50, 500, 90]   # 40 high
    d.pages[0].para_blocks[1].bbox = [72, 100, 300, 122]  # 22 high
    d.pages[0].para_blocks[2].bbox = [72, 200, 300, 214]  # 14 high
    level_headings(d)
    assert levels(d) == [(1, "Annual report"), (2, "Overview"), (3, "Costs")]


def test_office_documents_keep_their_levels():
    d = doc([title("Heading 3 first", 10, 3)])
    d.backend = "office"
    assert level_headings(d) == 0 and levels(d) == [(3, "Heading 3 first")]
