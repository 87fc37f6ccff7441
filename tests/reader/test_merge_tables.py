"""Tables continued across pages (reader/merge.py): chains of any length, repeated headers,
rows split by the page break, at every effort (the model's HTML tables and the text layer's
structured ones), every row kept and every part left where it was printed."""

from __future__ import annotations

from mineru_tui.convert import ConvertOptions, convert
from mineru_tui.document import (Block, BlockType, Cell, Document, Line, Page, Table, table_block,
                                 text_block, text_span, to_content_list, to_markdown)
from mineru_tui.reader.merge import merge_across_pages
from testkit import pdf_fixtures as pf
from testkit.mineru4_outline import html_rows

SIZE = (612, 792)
BOX = [72, 72, 540, 700]


def html_table(rows, header=True):
    out = "<table>"
    for i, r in enumerate(rows):
        tag = "th" if header and i == 0 else "td"
        out += "<tr>" + "".join(f"<{tag}>{c}</{tag}>" for c in r) + "</tr>"
    return out + "</table>"


def html_page(i, rows, caption=None, footnote=None):
    t = table_block(html_body=html_table(rows),
                    captions=[text_block([text_span(caption)])] if caption else (),
                    footnotes=[text_block([text_span(footnote)])] if footnote else ())
    t.bbox = list(BOX)
    number = Block(BlockType.PAGE_NUMBER, lines=[Line([text_span(str(i + 1))])], bbox=[300, 760, 310, 770])
    return Page(i, [t], [number], page_size=SIZE)


def body_rows(doc):
    tables = [e for e in to_content_list(doc) if e["type"] == "table" and e["table_body"]]
    return [html_rows(e["table_body"])[0] for e in tables]


HEAD = ["Year", "Item", "Amount"]


def test_a_five_page_table_is_one_table_with_every_row_and_one_header():
    pages = [html_page(i, [HEAD] + [[str(2000 + 10 * i + k), f"item {i}.{k}", str(k)] for k in range(10)])
             for i in range(5)]
    doc = Document(pages, backend="vlm")
    assert merge_across_pages(doc) == 4
    (rows,) = body_rows(doc)
    assert rows[0] == HEAD and rows.count(HEAD) == 1
    assert len(rows) == 1 + 50  # every data row of every page
    assert [r[1] for r in rows[1:]] == [f"item {i}.{k}" for i in range(5) for k in range(10)]
    for page in doc.pages[1:]:  # each part stays on its page, marked, with its row count
        part = page.para_blocks[0]
        assert part.extra["merged_into_previous"] is True and part.extra["rows_printed_here"] == 11
        assert part.bbox == BOX
    assert to_markdown(doc).count("| Year | Item | Amount |") + to_markdown(doc).count("<th>Year</th>") <= 1


def test_a_row_split_by_the_page_break_is_joined_cell_by_cell():
    p1 = html_page(0, [HEAD, ["2001", "first", "1"], ["2002", "a long description", "2"]])
    # page 2 repeats the header, then the rest of 2002's row (no key), then a new row
    p2 = html_page(1, [HEAD, ["", "that goes on", ""], ["2003", "third", "3"]])
    doc = Document([p1, p2], backend="vlm")
    merge_across_pages(doc)
    (rows,) = body_rows(doc)
    assert rows == [HEAD, ["2001", "first", "1"], ["2002", "a long description that goes on", "2"],
                    ["2003", "third", "3"]]


def test_a_fragment_with_fewer_cells_is_the_rest_of_the_last_row():
    p1 = html_page(0, [HEAD, ["2001", "first", "1"]])
    t2 = table_block(html_body="<table><tr><td>continued</td></tr>"
                               "<tr><td>2002</td><td>second</td><td>2</td></tr></table>")
    t2.bbox = list(BOX)
    doc = Document([p1, Page(1, [t2], page_size=SIZE)], backend="vlm")
    merge_across_pages(doc)
    (rows,) = body_rows(doc)
    assert rows == [HEAD, ["2001 continued", "first", "1"], ["2002", "second", "2"]]


def test_what_ends_a_table_and_what_does_not():
    rows = [HEAD, ["1", "a", "x"]]
    # a caption that says it continues does not stop it, and is kept on its part
    doc = Document([html_page(0, rows), html_page(1, rows, caption="Table 1 (continued)")], backend="vlm")
    assert merge_across_pages(doc) == 1
    assert any(k.type == BlockType.TABLE_CAPTION for k in doc.pages[1].para_blocks[0].blocks)
    # a new caption, a footnote under the first part, other columns: two tables
    for a, b in ((html_page(0, rows), html_page(1, rows, caption="Table 2")),
                 (html_page(0, rows, footnote="Source: x"), html_page(1, rows)),
                 (html_page(0, rows), html_page(1, [["a", "b"], ["1", "2"]]))):
        doc = Document([a, b], backend="vlm")
        assert merge_across_pages(doc) == 0 and len(body_rows(doc)) == 2


def structured_page(i, rows):
    table = Table([[Cell([text_block([text_span(c)])], header=(k == 0)) for c in r]
                   for k, r in enumerate(rows)])
    t = table_block(table)
    t.bbox = list(BOX)
    return Page(i, [t], page_size=SIZE)


def test_text_layer_tables_join_too():
    pages = [structured_page(i, [HEAD] + [[str(i), f"r{i}{k}", "0"] for k in range(3)]) for i in range(3)]
    doc = Document(pages, backend="vlm")
    assert merge_across_pages(doc) == 2
    (rows,) = body_rows(doc)
    assert rows[0] == HEAD and len(rows) == 1 + 9


def _ruled_table_pdf(path, pages, rows_per_page):
    """A PDF whose ruled table runs over ``pages`` pages, its header repeated on each."""
    out, n = [], 0
    for _ in range(pages):
        data = [HEAD] + [[str(1000 + n + k), f"thing {n + k}", str((n + k) * 3)] for k in range(rows_per_page)]
        n += rows_per_page
        xs, top, h = [72, 200, 400, 540], 720, 24
        ys = [top - r * h for r in range(len(data) + 1)]
        items = pf.grid(xs, ys)
        for r, row in enumerate(data):
            for c, text in enumerate(row):
                items.append(pf.Text(xs[c] + 4, ys[r] - 16, text, 11))
        out.append(pf.Page(items=items))
    return pf.write_pdf(path, out)


def test_a_three_page_text_layer_table_at_effort_low(tmp_path):
    pdf = _ruled_table_pdf(tmp_path / "t.pdf", pages=3, rows_per_page=8)
    doc = convert(pdf, ConvertOptions(effort="low"))
    tables = body_rows(doc)
    assert len(tables) == 1, tables
    rows = tables[0]
    assert rows[0] == HEAD and len(rows) == 1 + 24
    assert [r[1] for r in rows[1:]] == [f"thing {k}" for k in range(24)]


def test_a_chain_joins_the_same_when_the_pages_are_on_disk(tmp_path):
    """The page reader's passes across pages hold a few pages at a time (reader/assemble.py):
    a five-page table chain and the page furniture come out as with every page in memory."""
    from mineru_tui.document.page_store import PageStore
    from mineru_tui.reader.assemble import across_pages

    def pages():
        return [html_page(i, [HEAD] + [[str(2000 + 10 * i + k), f"item {i}.{k}", str(k)] for k in range(10)])
                for i in range(5)] + [html_page(5, [["other", "columns"]])]

    in_memory = Document(pages(), backend="vlm")
    records = [{"mode": "two-stage"}] * 6
    across_pages(in_memory, records, None)
    store = PageStore(tmp_path)
    for p in pages():
        store.append(p)
    on_disk = Document(store, backend="vlm")
    across_pages(on_disk, records, None)
    assert [p for p in store] == in_memory.pages
    (rows, other) = body_rows(on_disk)
    assert len(rows) == 51 and other == [["other", "columns"]]
