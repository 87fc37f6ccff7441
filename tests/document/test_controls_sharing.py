"""The control-character pass copies only what it changes: the original document is never
modified, and a document holding no control character is walked, not copied."""

from __future__ import annotations

from pathlib import Path

import pytest

from mineru_tui.convert import convert
from mineru_tui.document import BlockType, to_markdown
from mineru_tui.document.controls import without_controls

CORPUS = Path(__file__).parents[1] / "corpus" / "odf_legacy"


def test_clean_parts_are_shared_and_dirty_ones_copied():
    doc = convert(CORPUS / "poi__WithThreeCharts.xls")
    clean = without_controls(doc)
    assert clean is not doc and all(a is b for a, b in zip(clean.pages, doc.pages))
    # a control and a bidi override in one cell of one chart: that path is copied, cleaned
    chart = next(b for b in doc.pages[1].para_blocks if b.type == BlockType.TABLE)
    body = next(b for b in chart.blocks if b.type == BlockType.TABLE_BODY)
    table = body.lines[0].spans[0].table
    span = table.rows[1][0].blocks[0].lines[0].spans[0]
    span.content = "1\x1b[31m\u202e"
    cleaned = without_controls(doc)
    assert span.content == "1\x1b[31m\u202e"  # the original is left as it was
    assert cleaned.pages[0] is doc.pages[0] and cleaned.pages[1] is not doc.pages[1]
    other = [b for b in doc.pages[1].para_blocks if b is not chart]
    assert all(any(b is c for c in cleaned.pages[1].para_blocks) for b in other)
    assert "\x1b" not in to_markdown(doc) and "\u202e" not in to_markdown(doc)
    assert "| 1\\[31m | 10 |" in to_markdown(doc)  # the rest of the text kept (escaped)


def test_an_output_set_cleans_each_page_once(tmp_path, monkeypatch):
    """The Markdown, the content list and MinerU 4's middle JSON each need a page without
    controls; writing the set cleans each page once for all three, and the files are what
    each writer gives on its own (a dirty cell's control gone from every one of them)."""
    from mineru_tui import output
    from mineru_tui.document import controls, to_content_list

    doc = convert(CORPUS / "poi__WithThreeCharts.xls")
    chart = next(b for b in doc.pages[1].para_blocks if b.type == BlockType.TABLE)
    body = next(b for b in chart.blocks if b.type == BlockType.TABLE_BODY)
    body.lines[0].spans[0].table.rows[1][0].blocks[0].lines[0].spans[0].content = "1\x1b[31m"
    cleaned = []
    real = controls._clean_page

    def counting(page):
        cleaned.append(id(page))
        return real(page)

    monkeypatch.setattr(controls, "_clean_page", counting)
    written = output.write_outputs(doc, tmp_path, "set")
    assert sorted(cleaned) == sorted(id(p) for p in doc.pages)  # each page once
    md = (written.path / "set.md").read_text(encoding="utf-8")
    assert md == to_markdown(doc)
    assert "\x1b" not in md and "| 1\\[31m | 10 |" in md
    import json

    listed = json.loads((written.path / "set_content_list.json").read_text(encoding="utf-8"))
    assert listed == json.loads(json.dumps(to_content_list(doc)))
    assert "\x1b" not in (written.path / "middle_json.json").read_text(encoding="utf-8")


def test_shared_cleaning_gives_what_page_without_controls_gives():
    from mineru_tui.document.controls import SharedCleaning, page_without_controls

    doc = convert(CORPUS / "poi__WithThreeCharts.xls")
    chart = next(b for b in doc.pages[1].para_blocks if b.type == BlockType.TABLE)
    chart.blocks[0].lines[0].spans[0].content = "x\u202ey"
    shared = SharedCleaning(keep=1)
    for page in doc.pages + doc.pages:  # the second round is past what it keeps: cleaned again
        assert shared(page) == page_without_controls(page)
    assert shared(doc.pages[-1]) is shared(doc.pages[-1])  # the one it keeps: the same object


def _page_with(text: str, where: str):
    """A page of the model with ``text`` in one place (every kind of place a string sits)."""
    from mineru_tui.document.model import Block, Cell, Line, Page, Span, Table

    def span(content="plain words", **kw):
        return Span(content=content, bbox=[1.0, 2.0, 3.0, 4.0], **kw)

    inner = Block("text", lines=[Line([span(text if where == "cell" else "cell words")])])
    table = Table(rows=[[Cell(blocks=[inner]), Cell()]])
    body = Block("table_body", lines=[Line([span("", type="table", table=table,
                                                 html=text if where == "html" else None)])])
    items = Block("list", blocks=[Block("text", depth=0, marker=text if where == "marker" else "-",
                                        lines=[Line([span(link=text if where == "link" else None)])])])
    return Page(0, para_blocks=[
        Block("title", level=1, lines=[Line([span(text if where == "span" else "Title")])],
              extra={"source": "text_layer", "note": text if where == "extra" else 1.5}),
        Block("table", blocks=[body]), items],
        discarded_blocks=[Block(text if where == "type" else "footer",
                                lines=[Line([span(style=frozenset({"bold"}))])])],
        page_size=(612.0, 792.0), name=text if where == "name" else None,
        extra={"page_no": 1, "text_layer": {"chars": 12}})


PLACES = ("span", "cell", "html", "marker", "link", "extra", "type", "name")


def test_a_page_without_controls_is_its_own_clean_copy_without_the_walk(monkeypatch):
    from mineru_tui.document import controls

    walked = []
    monkeypatch.setattr(controls, "_clean", lambda value, depth=0: walked.append(value) or value)
    for where in PLACES:
        page = _page_with("tab\tnew\nline \u00e9 \u2003 \U0001f600", where)  # kept characters
        assert controls.page_without_controls(page) is page
    assert walked == []


@pytest.mark.parametrize("control", ["\x1b", "\x00", "\x7f", "\x9b", "\u202e", "\u2066", "\udc80"])
def test_a_control_anywhere_on_a_page_is_cleaned_as_the_full_walk_cleans_it(control):
    from mineru_tui.document import controls

    for where in PLACES:
        page = _page_with(f"a{control}b", where)
        clean = controls.page_without_controls(page)
        assert clean is not page and clean == controls._clean(page), where
        assert control not in repr(clean).encode("ascii", "backslashreplace").decode("unicode_escape")


def test_an_object_the_quick_look_does_not_know_goes_through_the_full_walk(monkeypatch):
    from mineru_tui.document import controls
    from mineru_tui.document.model import Span

    class Marked(Span):
        pass

    page = _page_with("plain", "span")
    page.para_blocks[0].lines[0].spans.append(Marked(content="x"))
    walked = []
    real = controls._clean

    def counting(value, depth=0):
        if depth == 0:
            walked.append(value)
        return real(value, depth)

    monkeypatch.setattr(controls, "_clean", counting)
    assert controls.page_without_controls(page) is page and walked == [page]  # walked, unchanged


def test_shared_tables_build_a_tables_html_once_per_write(monkeypatch):
    from mineru_tui.document import html_table
    from mineru_tui.document.model import Cell, Table

    def table(text):
        return Table(rows=[[Cell(blocks=[html_table_block(text)])]])

    def html_table_block(text):
        from mineru_tui.document.model import Block, Line, Span, SpanType
        return Block(type=BlockType.TEXT, bbox=[0, 0, 1, 1],
                     lines=[Line(bbox=[0, 0, 1, 1], spans=[Span(type=SpanType.TEXT, content=text, bbox=[0, 0, 1, 1])])])

    walks = []
    walk = html_table._table_walk
    monkeypatch.setattr(html_table, "_table_walk", lambda t, p: walks.append(t) or walk(t, p))
    a, b = table("a & b"), table("c")
    alone = html_table.table_html(a)
    assert html_table.table_html(a) == alone and len(walks) == 2  # outside: built every time
    with html_table.shared_tables():
        assert [html_table.table_html(t) for t in (a, b, a, b)] == [alone, html_table.table_html(b)] * 2
        assert len(walks) == 4  # a and b once each
        assert html_table.table_html(a, "images/") == alone and len(walks) == 5  # another prefix: its own
    a.rows[0][0].blocks[0].lines[0].spans[0].content = "changed"
    assert "changed" in html_table.table_html(a)  # after the write, nothing remembered
