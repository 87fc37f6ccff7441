"""MinerU 4's output set as we write it, without MinerU installed: the names beside the 3.x
set, --mineru-format, and the middle JSON 2.0's own rules (indices, boxes, titles, lists,
tables continued across pages). MinerU 4 reading it is tests/document/test_mineru4_reader.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mineru_tui.convert import ConvertOptions, convert
from mineru_tui.document import (Block, BlockType, Document, Line, Page, list_block, table_block,
                                 text_block, text_span, title_block)
from mineru_tui.document.mineru4 import to_middle_v2, to_structured_content
from mineru_tui.output import write_outputs

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
V3 = {"{s}.md", "{s}_middle.json", "{s}_content_list.json"}
V4 = {"markdown.md", "middle_json.json", "structured_content.json"}


@pytest.mark.parametrize("fmt,expected", [("both", V3 | V4), ("3", V3), ("4", V4)])
def test_mineru_format_chooses_the_sets(tmp_path, fmt, expected):
    src = CORPUS / "office" / "docling__word_sample.docx"
    doc = convert(src, ConvertOptions())
    out = write_outputs(doc, tmp_path, "w", source=src, mineru_format=fmt).path
    files = {p.name for p in out.iterdir() if p.is_file() and not p.name.startswith(".")}
    assert files == {n.format(s="w") for n in expected}
    assert (out / "images").is_dir()  # one images/ folder serves both sets
    manifest = json.loads((out / ".mineru-tui.json").read_text())
    assert {n.format(s="w") for n in expected} <= set(manifest["files"])


def test_mineru_format_on_the_command_line(tmp_path):
    from tests.cli_fixtures import cli

    src = CORPUS / "office" / "pandoc__lists.docx"
    r = cli("parse", src, "--mineru-format", "4", "-o", tmp_path)
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in (tmp_path / "pandoc__lists").iterdir()) == \
        [".mineru-tui.json", "markdown.md", "middle_json.json", "structured_content.json"]
    r = cli("parse", src, "--mineru-format", "5", "-o", tmp_path)
    assert r.exit_code == 2 and "--mineru-format" in r.output


def _pdf_doc() -> Document:
    """Two PDF pages in points: a title, a nested list, and a table continued on page 2."""
    def table(rows, bbox, cont=False):
        b = table_block(html_body="<table>" + "".join(
            "<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows) + "</table>")
        b.bbox = bbox
        if cont:
            b.extra["merged_into_previous"] = True
        return b

    items = [text_block([text_span("one")]), text_block([text_span("two")]),
             text_block([text_span("deep")])]
    for item, depth, marker in zip(items, (0, 2, 0), ("1.", "-", "2.")):
        item.depth, item.marker = depth, marker
    title = title_block([text_span("Report")], 1)
    title.bbox = [72, 72, 300, 90]
    section = title_block([text_span("Scope")], 2)
    section.bbox = [72, 100, 300, 115]
    lst = list_block(items)
    lst.bbox = [72, 120, 400, 200]
    p1 = Page(0, [title, section, lst, table([["a", "b"], ["1", "2"]], [72, 300, 540, 700])],
              [Block(BlockType.PAGE_NUMBER, lines=[Line([text_span("1")])], bbox=[300, 760, 310, 770])],
              page_size=(612, 792))
    p2 = Page(1, [table([], [72, 72, 540, 400], cont=True)], page_size=(612, 792))
    return Document([p1, p2], backend="vlm", meta={"kind": "pdf", "effort": "medium"})


def test_middle_json_2_follows_the_schema_rules():
    middle = to_middle_v2(_pdf_doc(), source="r.pdf")
    assert (middle["schema"], middle["schema_version"]) == ("docvortex.middle", "2.0")
    assert middle["metadata"] == {"file_suffix": "pdf",
                                  "producer": {"name": "mineru-tui", "version": middle[
                                      "metadata"]["producer"]["version"]}}
    p1, p2 = middle["pages"]
    assert [b["index"] for b in p1["blocks"]] == list(range(len(p1["blocks"])))
    assert [b["type"] for b in p1["blocks"]] == ["doc_title", "paragraph_title", "list", "table",
                                                 "page_number"]
    assert p1["blocks"][0]["level"] == 1 and p1["blocks"][1]["level"] == 2
    for b in p1["blocks"] + p2["blocks"]:  # fractions of the page, x1 > x0, y1 > y0
        x0, y0, x1, y1 = b["bbox"]
        assert 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1
    assert p1["blocks"][0]["bbox"] == pytest.approx([72 / 612, 72 / 792, 300 / 612, 90 / 792],
                                                    abs=1e-4)
    # the list: markers in the text, a deeper item nested one level (never an empty level)
    lst = p1["blocks"][2]
    assert [k["type"] for k in lst["content"]] == ["text", "list", "text"]
    assert lst["content"][0]["content"] == [{"type": "text", "content": "1. one"}]
    assert lst["content"][1]["content"][0]["content"] == [{"type": "text", "content": "- two"}]
    # the table: the body at the parent's index and box; page 2's part stays where printed
    table = p1["blocks"][3]
    assert table["content"][0]["index"] == table["index"]
    assert table["content"][0]["bbox"] == table["bbox"]
    assert p2["blocks"][0]["continues_prev"] is True
    structured = to_structured_content(middle)
    assert structured["pages"][1]["blocks"][0]["continues_prev"] is True
    assert "index" not in structured["pages"][0]["blocks"][0]
    assert structured["pages"][0]["blocks"][2]["content"] == "1. one\n    - two\n2. deep"


def test_office_files_have_no_boxes_and_flash_tier():
    doc = convert(CORPUS / "office" / "docling__word_sample.docx", ConvertOptions())
    middle = to_middle_v2(doc, source="x.docx")
    assert middle["metadata"]["file_suffix"] == "docx"
    assert middle["extensions"]["mineru"] == {"tier": "flash", "parse_mode": "txt"}
    assert not any("bbox" in b for p in middle["pages"] for b in p["blocks"])


def test_structured_text_escaping_takes_its_shortcuts_only_where_nothing_changes():
    """structured._escape skips the tag search on text without "<" (over random texts of the
    characters its rules see, the result is the full rule's), and a paragraph of only "-"
    (a rule line) is told by str.strip and still escaped."""
    import html
    import random

    from mineru_tui.document.mineru4 import structured

    def escaped(text):  # the rule in full: tag-like parts kept as escaped HTML
        parts, pos = [], 0
        for m in structured._HTML_LIKE.finditer(text):
            parts.append(structured._SPECIAL.sub(r"\\\1", text[pos:m.start()]))
            parts.append(html.escape(m.group(0), quote=False))
            pos = m.end()
        return "".join(parts + [structured._SPECIAL.sub(r"\\\1", text[pos:])])

    rnd = random.Random(30)
    for _ in range(20000):
        text = "".join(rnd.choice("<>/!-_*`~$\\ a#+\n") for _ in range(rnd.randint(0, 10)))
        assert structured._escape(text) == escaped(text), repr(text)

    def text_md(text):
        return structured._text_md([{"type": "text", "content": text}])

    assert [text_md(t) for t in ("---", "-", "- -", "a-", "-a", "")] == ["\\---", "\\-", "\\- -", "a-", "-a", ""]
