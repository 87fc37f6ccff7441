"""The document model's renderers: Markdown, content list, middle JSON."""

from __future__ import annotations

import json

import pytest

from mineru_tui.document import (Block, BlockType, Cell, Document, Line, Page, Span,
                                 SpanType, Table, block_to_md, checkbox_span, equation_block,
                                 escape_md,
                                 image_block, list_block, number_blocks, plain_text,
                                 safe_url, spans_to_md, table_block, text_block, text_span,
                                 title_block, to_content_list, to_markdown, to_middle_json)
from mineru_tui.document.html_table import table_html


def cell(text: str, **kw) -> Cell:
    return Cell([text_block([text_span(text)])], **kw)


def item(text: str, depth: int, marker: str = "-") -> Block:
    return text_block([text_span(text)], depth=depth, marker=marker)


def doc_of(*blocks: Block, discarded=()) -> Document:
    return Document(pages=[Page(0, list(blocks), list(discarded))])


# ---------------------------------------------------------------------------------------
# tables


def test_simple_table_is_a_pipe_table():
    t = Table([[cell("Name", header=True), cell("Qty", header=True)],
               [cell("a|b"), cell("2")]])
    md = block_to_md(table_block(t))
    assert md == "| Name | Qty |\n|---|---|\n| a\\|b | 2 |"


def test_merged_cells_give_html_with_spans():
    t = Table([[cell("Head", colspan=2, header=True)],
               [cell("tall", rowspan=2), cell("x")],
               [cell("y")]])
    md = block_to_md(table_block(t))
    assert md == ('<table><tr><th colspan="2">Head</th></tr>'
                  '<tr><td rowspan="2">tall</td><td>x</td></tr><tr><td>y</td></tr></table>')


def test_ragged_or_nested_tables_are_html():
    inner = table_block(Table([[cell("in")]]))
    nested = Table([[Cell([inner]), cell("b")], [cell("c"), cell("d")]])
    md = block_to_md(table_block(nested))
    assert md.startswith("<table>") and "<td><table><tr><td>in</td></tr></table></td>" in md
    ragged = Table([[cell("a"), cell("b")], [cell("c")]])
    assert block_to_md(table_block(ragged)).startswith("<table>")


def test_table_html_escapes_text_and_keeps_safe_links_only():
    t = Table([[Cell([text_block([text_span("<b>&", link="https://x.org/?a=1&b=2")])]),
                Cell([text_block([text_span("bad", link="javascript:alert(1)")])])],
               [cell("1"), cell("2")]])
    t.rows[0][0].colspan = 1
    html = table_html(t)
    assert '<a href="https://x.org/?a=1&amp;b=2">&lt;b&gt;&amp;</a>' in html
    assert "javascript" not in html and "<td>bad</td>" in html


def test_table_captions_and_footnotes_around_the_body():
    b = table_block(Table([[cell("a")]]), captions=[text_block([text_span("Table 1")])],
                    footnotes=[text_block([text_span("Source: us")])])
    assert block_to_md(b) == "Table 1\n\n| a |\n|---|\n\nSource: us"
    [entry] = to_content_list(doc_of(b))
    assert entry["table_caption"] == ["Table 1"] and entry["table_footnote"] == ["Source: us"]
    assert entry["table_body"] == "<table><tr><td>a</td></tr></table>"


def test_vlm_html_table_body_passes_through():
    b = table_block(html_body="<table><tr><td>v</td></tr></table>")
    assert block_to_md(b) == "<table><tr><td>v</td></tr></table>"


# ---------------------------------------------------------------------------------------
# lists


def test_nested_list_indentation_follows_the_parent_marker():
    b = list_block([item("one", 0, "1."), item("sub a", 1), item("deep", 2, "i."),
                    item("sub b", 1), item("two", 0, "2."), item("ten", 0, "10.")])
    assert block_to_md(b) == ("1. one\n"
                              "   - sub a\n"
                              "     - i. deep\n"  # "i." is no CommonMark marker
                              "   - sub b\n"
                              "2. two\n"
                              "10. ten")


def test_list_item_with_two_lines_is_indented_under_its_marker():
    it = Block(BlockType.TEXT, lines=[Line([text_span("first")]), Line([text_span("second")])],
               depth=0, marker="-")
    assert block_to_md(list_block([it])) == "- first\n  second"


def test_list_content_list_items_flatten_in_order():
    b = list_block([item("a", 0), item("b", 1), item("c", 0)])
    [entry] = to_content_list(doc_of(b))
    assert entry == {"type": "list", "sub_type": "text", "list_items": ["a", "b", "c"],
                     "page_idx": 0}


# ---------------------------------------------------------------------------------------
# equations


def test_inline_and_display_equations():
    line = text_block([text_span("Energy "), Span(SpanType.INLINE_EQUATION, " E=mc^2 "),
                       text_span(" holds.")])
    assert block_to_md(line) == "Energy $E=mc^2$ holds."
    disp = equation_block(r"\frac{a}{b}")
    assert block_to_md(disp) == "$$\n\\frac{a}{b}\n$$"
    cl = to_content_list(doc_of(line, disp))
    assert cl[0]["text"] == "Energy $E=mc^2$ holds."
    assert cl[1] == {"type": "equation", "img_path": "", "text": "$$\n\\frac{a}{b}\n$$",
                     "text_format": "latex", "page_idx": 0}
    assert block_to_md(equation_block("  ")) == ""


# ---------------------------------------------------------------------------------------
# links


@pytest.mark.parametrize("url", [
    "javascript:alert(1)", "JavaScript:alert(1)", "  javascript:alert(1)",
    "java\tscript:alert(1)", "java\nscript:alert(1)", "\x01javascript:alert(1)",
    "data:text/html;base64,PHNjcmlwdD4=", "vbscript:msgbox(1)", "VBScript:x",
    "livescript:x", "jar:file:/x!/", "unknownscheme:payload",
    # what a Markdown reader decodes (entities, backslash escapes) must not smuggle one in
    "javascript&#58;alert(1)", "javascript&colon;alert(1)", "jav&#97;script:alert(1)",
    "&#106;avascript:alert(1)", "java&#x09;script:alert(1)", "javascript\\:alert(1)",
    # the reader's disk: file URLs, UNC and absolute paths, and relative paths
    "file:///etc/passwd", "FILE://host/share/x", "\\\\host\\share\\x", "//host/share/x",
    "/etc/passwd", "C:\\Users\\me\\x.docx", "other.docx", "../../etc/passwd",
    "ftp://example.org/x", "tel:+123", "smb://host/share",
    # obfuscated schemes, judged after normalising
    "%6Aavascript:alert(1)", "%256Aavascript:alert(1)", "&#x25;6Aavascript:alert(1)",
    "java\u200bscript:alert(1)", "\u200bjavascript:alert(1)", "j\u00adavascript:alert(1)",
    "jаvascript:alert(1)",  # Cyrillic a
    "ｊavascript:alert(1)", "ｈttps://example.org",  # full-width: NFKC makes them ASCII
    "httрs://example.org",  # Cyrillic er: a browser would take it for a relative path
    "%68ttps://example.org", "https&#58;//example.org",
])
def test_unsafe_links_are_dropped_keeping_the_text(url):
    assert safe_url(url) is None
    assert spans_to_md([text_span("click", link=url)]) == "click"
    mid = to_middle_json(doc_of(text_block([text_span("click", link=url)])))
    assert "link" not in mid["pdf_info"][0]["para_blocks"][0]["lines"][0]["spans"][0]


@pytest.mark.parametrize("url,target", [
    ("https://example.org/a b", "https://example.org/a%20b"),
    ("https://en.wikipedia.org/wiki/Foo_(bar)", "https://en.wikipedia.org/wiki/Foo_%28bar%29"),
    ("mailto:me@example.org", "mailto:me@example.org"),
    ("#_Toc123", "#_Toc123"), ("HTTPS://x.org", "HTTPS://x.org"),
    ("https://x.org/?q=a&amp;b", "https://x.org/?q=a&amp;b"),
])
def test_safe_links_keep_their_target(url, target):
    assert spans_to_md([text_span("see", link=url)]) == f"[see]({target})"


def test_link_with_styles_and_spaces():
    md = spans_to_md([text_span("go "), text_span(" here ", ("bold",), link="https://a.b")])
    assert md == "go  [**here**](https://a.b) "


# ---------------------------------------------------------------------------------------
# images


def test_image_paths_relative_for_folders_and_bare_for_stdout():
    doc = Document()
    name = doc.add_image(b"png", "PNG")
    assert name == "image_001.png" and doc.add_image(b"2", ".jpg") == "image_002.jpg"
    doc.pages.append(Page(0, [image_block(name, "a [chart]",
                                          captions=[text_block([text_span("Figure 1")])])]))
    assert to_markdown(doc) == "![a \\[chart\\]](images/image_001.png)\n\nFigure 1\n"
    assert to_markdown(doc, image_prefix="") == "![a \\[chart\\]](image_001.png)\n\nFigure 1\n"
    [entry] = to_content_list(doc, image_prefix="")
    assert entry == {"type": "image", "img_path": "image_001.png",
                     "image_caption": ["Figure 1"], "image_footnote": [], "page_idx": 0}


def test_image_inside_a_table_cell():
    t = Table([[Cell([image_block("image_001.png", 'say "hi"')]), cell("x")]], )
    html = table_html(t, "images/")
    assert '<img src="images/image_001.png" alt="say &quot;hi&quot;">' in html


# ---------------------------------------------------------------------------------------
# escaping and styles


@pytest.mark.parametrize("text,md", [
    ("a*b_c`d", "a\\*b\\_c\\`d"),
    ("[not](a link)", "\\[not\\](a link)"),
    ("<script>", "\\<script\\>"),
    ("# not a heading", "\\# not a heading"),
    ("## not a heading either", "\\## not a heading either"),
    ("- not a list", "\\- not a list"),
    ("+ nor this", "\\+ nor this"),
    ("1. nor this", "1\\. nor this"),
    ("2023) nor this", "2023\\) nor this"),
    ("---", "\\---"),
    ("C# and F#", "C# and F#"),
    ("-5 degrees", "-5 degrees"),
])
def test_escaping_plain_text(text, md):
    assert escape_md(text) == md


def test_line_starts_inside_a_span_are_escaped_too():
    b = text_block([text_span("first line\n# not a heading\n- not a list\n===")])
    assert block_to_md(b) == "first line\n\\# not a heading\n\\- not a list\n\\==="


def test_styles():
    spans = [text_span("b", ("bold",)), text_span(" "), text_span("i", ("italic",)),
             text_span(" "), text_span("s", ("strike",)), text_span(" x"),
             text_span("2", ("superscript",)), text_span(" H"), text_span("2", ("subscript",)),
             text_span("O "), text_span("a`b", ("code",)), text_span(" "),
             text_span("bi", ("bold", "italic"))]
    assert spans_to_md(spans) == ("**b** *i* ~~s~~ x<sup>2</sup> H<sub>2</sub>O "
                                  "`` a`b `` ***bi***")


def test_neighbouring_spans_of_one_style_merge():
    spans = [text_span("a", ("bold",)), text_span("b", ("bold",)), text_span(" c")]
    assert spans_to_md(spans) == "**ab** c"


def test_whitespace_stays_outside_markers():
    assert spans_to_md([text_span("x"), text_span(" bold ", ("bold",)), text_span("y")]) \
        == "x **bold** y"


# ---------------------------------------------------------------------------------------
# titles, notes, footnotes, code, discarded blocks


def test_titles_levels_clamped():
    assert block_to_md(title_block([text_span("Top")], 1)) == "# Top"
    assert block_to_md(title_block([text_span("Deep")], 9)) == "###### Deep"
    assert block_to_md(title_block([text_span("Low")], 0)) == "# Low"
    [entry] = to_content_list(doc_of(title_block([text_span("T")], 3)))
    assert entry == {"type": "text", "text": "T", "text_level": 3, "page_idx": 0}


def test_footnotes_and_speaker_notes():
    body = text_block([text_span("Claim"), Span(SpanType.FOOTNOTE_REF, "1")])
    note = Block(BlockType.PAGE_FOOTNOTE, lines=[Line([text_span("Proof.")])], note_id="1")
    notes = Block(BlockType.NOTES, lines=[Line([text_span("say this")]),
                                          Line([text_span("then that")])])
    doc = doc_of(body, notes, note)
    assert to_markdown(doc) == "Claim[^1]\n\n> say this\n> then that\n\n[^1]: Proof.\n"
    cl = to_content_list(doc)
    assert cl[0]["text"] == "Claim[^1]"
    assert cl[1] == {"type": "text", "text": "say this\nthen that", "sub_type": "notes",
                     "page_idx": 0}
    assert cl[2] == {"type": "page_footnote", "text": "Proof.", "page_idx": 0}


def test_code_block():
    code = Block(BlockType.CODE, sub_type="python", blocks=[
        Block(BlockType.CODE_BODY, lines=[Line([text_span("x = 1")]), Line([text_span("y = 2")])])])
    assert block_to_md(code) == "```python\nx = 1\ny = 2\n```"


def test_discarded_blocks_left_out_of_markdown_but_listed():
    header = text_block([text_span("Company confidential")], type=BlockType.HEADER)
    doc = doc_of(text_block([text_span("Body")]), discarded=[header])
    assert to_markdown(doc) == "Body\n"
    assert to_content_list(doc)[-1] == {"type": "header", "text": "Company confidential",
                                        "page_idx": 0}


def test_empty_document_and_empty_blocks():
    assert to_markdown(Document()) == ""
    assert to_markdown(doc_of(text_block([text_span("   ")]))) == ""
    assert to_content_list(doc_of(text_block([]))) == []


def test_plain_text_joins_children():
    b = list_block([item("a", 0), item("b", 0)])
    assert plain_text(b) == "a\nb"


# ---------------------------------------------------------------------------------------
# middle JSON


def test_middle_json_shape():
    t = Table([[cell("a", colspan=2)], [cell("b"), cell("c")]])
    doc = Document(pages=[
        Page(0, [title_block([text_span("T", ("bold",), link="https://a.b")], 2),
                 table_block(t), list_block([item("x", 0, "1.")])], page_size=(612, 792)),
        Page(1, [text_block([text_span("p2")])], name="Sheet2"),
    ])
    number_blocks(doc)
    mid = to_middle_json(doc)
    json.dumps(mid)  # serialisable
    assert mid["_backend"] == "office" and mid["_version_name"].startswith("mineru-tui ")
    p0, p1 = mid["pdf_info"]
    assert p0["page_idx"] == 0 and p0["page_size"] == [612, 792] and p0["discarded_blocks"] == []
    assert p1["page_name"] == "Sheet2" and p1["page_size"] is None
    title, table, lst = p0["para_blocks"]
    assert title["type"] == "title" and title["level"] == 2 and title["index"] == 0
    assert title["lines"][0]["spans"][0] == {"type": "text", "content": "T", "style": ["bold"],
                                             "link": "https://a.b"}
    body = table["blocks"][0]
    assert body["type"] == "table_body"
    span = body["lines"][0]["spans"][0]
    assert span["type"] == "table" and span["html"].startswith('<table><tr><td colspan="2">')
    assert lst["type"] == "list" and lst["blocks"][0]["marker"] == "1."
    assert lst["blocks"][0]["depth"] == 0


def test_middle_json_image_span_names_the_file():
    mid = to_middle_json(doc_of(image_block("image_001.png", "alt")))
    img = mid["pdf_info"][0]["para_blocks"][0]
    assert img["type"] == "image" and img["blocks"][0]["type"] == "image_body"
    assert img["blocks"][0]["lines"][0]["spans"][0] == {"type": "image", "content": "alt",
                                                        "image_path": "image_001.png"}


# ---------------------------------------------------------------------------------------
# check boxes


def _box_line(*spans: Span) -> str:
    return spans_to_md(list(spans))


def test_check_boxes_are_raw_task_list_boxes():
    assert _box_line(checkbox_span(True), text_span(" Design")) == "[x] Design"
    assert _box_line(checkbox_span(False), text_span(" Docs")) == "[ ] Docs"
    # a box's brackets are its own: the text next to it is still escaped
    assert _box_line(checkbox_span(True), text_span(" a [b]")) == "[x] a \\[b\\]"
    # never merged into the text around it, even with the same (empty) style
    merged = block_to_md(text_block([text_span("Pick "), checkbox_span(False),
                                     text_span(" tea")]))
    assert merged == "Pick [ ] tea"


@pytest.mark.parametrize("spans, md", [
    # "[x](...)" would be a link, "[x][...]" a reference, "[x]: ..." a definition
    ([checkbox_span(True), text_span("(see note)")], "\\[x\\](see note)"),
    ([checkbox_span(False), text_span(": pending")], "\\[ \\]: pending"),
    ([checkbox_span(True), text_span("site", link="https://e.x/")],
     "\\[x\\][site](https://e.x/)"),
    ([checkbox_span(True), checkbox_span(False), text_span(" both")], "\\[x\\]\\[ \\] both"),
    ([Span(SpanType.FOOTNOTE_REF, "1"), checkbox_span(True)], "[^1]\\[x\\]"),
    ([text_span("Wow!"), checkbox_span(True)], "Wow!\\[x\\]"),
    # inside a link's text the box is escaped like any bracket
    ([checkbox_span(True, link="https://e.x/"), text_span(" go", link="https://e.x/")],
     "[\\[x\\] go](https://e.x/)"),
    # a space is enough to keep it literal
    ([checkbox_span(True), text_span(" (see note)")], "[x] (see note)"),
])
def test_check_boxes_are_escaped_where_they_could_form_a_link(spans, md):
    assert _box_line(*spans) == md


def test_check_boxes_parse_as_literal_text_or_task_items():
    import markdown_it as md_it  # test extra: parses our Markdown as CommonMark does
    lines = [[checkbox_span(True), text_span("(a)")],
             [checkbox_span(False), text_span(": b")],
             [checkbox_span(True), text_span("c", link="https://e.x/")],
             [checkbox_span(True), text_span(" d")]]
    md = to_markdown(doc_of(*[text_block(l) for l in lines]))
    html_out = md_it.MarkdownIt("commonmark").render(md)
    for want in ("[x](a)", "[ ]: b", "[x] d"):
        assert want in html_out
    assert html_out.count("<a ") == 1  # only the real link "c"
    items = list_block([text_block([checkbox_span(True), text_span(" done")], depth=0, marker="-")])
    assert block_to_md(items) == "- [x] done"


def test_check_boxes_in_content_list_and_middle_json():
    doc = doc_of(text_block([checkbox_span(True), text_span(" Design")]),
                 text_block([checkbox_span(False), text_span(" Docs")]))
    assert [e["text"] for e in to_content_list(doc)] == ["[x] Design", "[ ] Docs"]
    spans = [s for b in to_middle_json(doc)["pdf_info"][0]["para_blocks"]
             for l in b["lines"] for s in l["spans"]]
    assert spans[0] == {"type": "text", "content": "[x]", "checked": True}
    assert spans[2] == {"type": "text", "content": "[ ]", "checked": False}
    assert "checked" not in spans[1]
    assert plain_text(doc.pages[0].para_blocks[0]) == "[x] Design"


# ---------------------------------------------------------------------------------------
# VLM pages: MinerU's VLM content list, and the Office one unchanged


def _vlm_blocks():
    ref = text_block([text_span("[1] A. Author, 2024.")], type=BlockType.REF_TEXT)
    chart = image_block("image_001.jpg", alt="a bar chart of sales", sub_type="chart",
                        captions=[text_block([text_span("Figure 1")])])
    code = Block(BlockType.CODE, sub_type="code",
                 blocks=[text_block([text_span("x = `1`\n```")], type=BlockType.CODE_BODY)])
    algo = Block(BlockType.CODE, sub_type="algorithm",
                 blocks=[text_block([text_span("1: loop")], type=BlockType.CODE_BODY)])
    furniture = [text_block([text_span(t)], type=k) for t, k in
                 (("Journal", BlockType.HEADER), ("p. 3", BlockType.PAGE_NUMBER),
                  ("arXiv:1", BlockType.ASIDE_TEXT), ("* note", BlockType.PAGE_FOOTNOTE),
                  ("footer", BlockType.FOOTER))]
    return [ref, chart, code, algo], furniture


def test_vlm_content_list_follows_mineru():
    blocks, furniture = _vlm_blocks()
    doc = Document(pages=[Page(0, blocks, furniture)], backend="vlm")
    ref, chart, code, algo, *rest = to_content_list(doc)
    assert ref == {"type": "ref_text", "text": "[1] A. Author, 2024.", "page_idx": 0}
    assert chart == {"type": "image", "img_path": "images/image_001.jpg",
                     "image_caption": ["Figure 1"], "image_footnote": [],
                     "content": "a bar chart of sales", "sub_type": "chart", "page_idx": 0}
    assert code["code_body"] == "````txt\nx = `1`\n```\n````"  # a fence the body cannot close
    assert algo["code_body"] == "1: loop" and algo["sub_type"] == "algorithm"
    assert [(e["type"], e["text"]) for e in rest] == [
        ("header", "Journal"), ("page_number", "p. 3"), ("aside_text", "arXiv:1"),
        ("page_footnote", "* note"), ("footer", "footer")]
    # the Markdown leaves page furniture out and fences code; the middle JSON keeps it all
    md = to_markdown(doc)
    assert "Journal" not in md and "arXiv" not in md and "footer" not in md
    assert "````\nx = `1`\n```\n````" in md and "![a bar chart of sales](images/image_001.jpg)" in md
    mid = to_middle_json(doc)
    assert mid["_backend"] == "vlm"
    assert [b["type"] for b in mid["pdf_info"][0]["discarded_blocks"]] == [
        "header", "page_number", "aside_text", "page_footnote", "footer"]


def test_office_content_list_has_no_vlm_keys():
    blocks, _ = _vlm_blocks()
    ref, chart, code, _ = to_content_list(Document(pages=[Page(0, blocks)]))
    assert ref["type"] == "text" and "content" not in chart and "sub_type" not in chart
    assert code["code_body"] == "x = `1`\n```"


def test_content_list_boxes_are_scaled_to_0_1000_as_mineru_does():
    # MinerU: int(x * 1000 / page_width), truncated, per axis; the middle JSON keeps page units
    b = text_block([text_span("x")])
    b.bbox = [61.2, 79.2, 550.8, 712.79]
    doc = Document(pages=[Page(0, [b], page_size=(612.0, 792.0))])
    [entry] = to_content_list(doc)
    assert entry["bbox"] == [100, 100, 900, 899]
    assert to_middle_json(doc)["pdf_info"][0]["para_blocks"][0]["bbox"] == b.bbox
    no_size = Document(pages=[Page(0, [b])])
    assert to_content_list(no_size)[0]["bbox"] == [61, 79, 551, 713]
