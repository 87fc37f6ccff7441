"""Paragraphs and tables that continue onto the next page, joined as MinerU 4.0.12 joins them.

MinerU drops the model's ``txt_contd_tgt`` flag across pages and applies deterministic rules
(``mineru-hybrid-details.md`` §8); we apply the ones that need no line geometry:

* **Paragraphs** (``text``, ``ref_text``): the last one on page n, looking back past pictures,
  tables, code and page furniture and stopping at titles, equations and lists, and the first
  one on page n+1. The earlier must not end with ``. ! ? 。 ！ ？ ) ） " ” : ： ; ；``, the
  later must not start with a digit or an uppercase letter, and their widths must differ by
  less than the smaller width. (MinerU also checks where the first and last lines start and
  end; VLM blocks have no lines, so that check is not made.)
* **Tables**, at every effort (the model's HTML tables and the text layer's structured ones):
  the last table of page n and the first table of page n+1, with only page furniture between
  them; no caption on the second (unless it says it continues: "continued", "(续表)",
  "续表"), no footnote under the first, widths within 10 %, and the same number of columns
  (the table's widest row, not the boundary rows: a merged cell there does not stop it).
  Chains run over any number of pages: a part joined to page n-1's table is itself joined
  to page n+1's. On every continuation the repeated header (the rows marked as header, or
  the first row when none is) is dropped; a row split by the page break (the rest of the
  last row: fewer cells, or an empty first cell while the last row's has text) is joined
  cell by cell into the last row; every other row is appended.

A later part stays in its page with its caption, footnotes, box and picture, its body
emptied, ``merged_into_previous`` and ``rows_printed_here`` set, so the middle JSON still
shows where each part was printed; Markdown and the content list show the joined table once.
"""

from __future__ import annotations

import html
import re

from mineru_tui.document import Block, BlockType, Document, Span, plain_text, text_span
from mineru_tui.reader.mapping import set_extra

_END_PUNCT = tuple(". ! ? 。 ！ ？ ) ） \" ” : ： ; ；".split())
_SKIP_BACK = {BlockType.IMAGE, BlockType.TABLE, BlockType.CODE, "chart", BlockType.HEADER,
              BlockType.FOOTER, BlockType.PAGE_NUMBER, BlockType.ASIDE_TEXT, BlockType.PAGE_FOOTNOTE}
_PARA = {BlockType.TEXT, BlockType.REF_TEXT}
_CONTINUED = re.compile(r"continued|cont\.|续表", re.I)
_ROW = re.compile(r"<tr\b[^>]*>.*?</tr>", re.S | re.I)
_CELLS = re.compile(r"<t[dh]\b([^>]*)>(.*?)</t[dh]\s*>", re.S | re.I)
_CELL_TAG = re.compile(r"<(t[dh])\b", re.I)
_TAGS = re.compile(r"<[^>]+>")
_COLSPAN = re.compile(r'colspan\s*=\s*"?(\d+)', re.I)
_CJK = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")


def merge_across_pages(doc: Document) -> int:
    """Join continuing paragraphs and tables in place; returns how many joins were made."""
    joins = 0
    hosts: dict[int, Block] = {}  # a table part joined to an earlier one -> the first part
    for prev, cur in zip(doc.pages, doc.pages[1:]):
        joins += merge_pair(prev, cur, hosts)
    return joins


def merge_pair(prev, cur, hosts: dict[int, Block]) -> int:
    """Join what continues from page ``prev`` onto the next page ``cur`` (in place); returns
    how many joins were made. ``hosts`` carries a table chain from pair to pair (start with
    ``{}``); afterwards it holds only what the next pair needs (see :func:`chain_host`)."""
    joins = int(_merge_paragraph(prev.para_blocks, cur.para_blocks, prev.page_size, cur.page_size))
    joins += _merge_table(prev.para_blocks, cur.para_blocks, prev.page_size, cur.page_size, hosts)
    host = chain_host(cur, hosts)
    hosts.clear()
    if host is not None:
        hosts[id(_tables(cur.para_blocks, last=True))] = host
    return joins


def chain_host(page, hosts: dict[int, Block]) -> Block | None:
    """The table on an earlier page that ``page``'s last table continues (the next page's
    part may still join it), or None."""
    last = _tables(page.para_blocks, last=True)
    return hosts.get(id(last)) if last is not None else None


def _text(block: Block) -> str:
    return "".join(s.content for line in block.lines for s in line.spans).strip()


def _merged(block: Block) -> bool:
    return bool(block.extra.get("merged_into_previous"))


def _width(block: Block, page_size) -> float:
    if not block.bbox or not page_size or not page_size[0]:
        return 0.0
    return (block.bbox[2] - block.bbox[0]) / page_size[0]


def _last_paragraph(blocks: list[Block]) -> Block | None:
    for b in reversed(blocks):
        if _merged(b):
            continue
        if b.type in _PARA and _text(b):
            return b
        if b.type in _SKIP_BACK:
            continue
        return None  # a title, equation or list ends the search
    return None


def _first_paragraph(blocks: list[Block]) -> Block | None:
    for b in blocks:
        if b.type in _PARA and _text(b):
            return b
        if b.type in _SKIP_BACK:
            continue
        return None
    return None


def _merge_paragraph(prev_blocks, cur_blocks, prev_size, cur_size) -> bool:
    a, b = _last_paragraph(prev_blocks), _first_paragraph(cur_blocks)
    if a is None or b is None or a.type != b.type:
        return False
    ta, tb = _text(a), _text(b)
    if ta.endswith(_END_PUNCT) or tb[:1].isdigit() or tb[:1].isupper():
        return False
    wa, wb = _width(a, prev_size), _width(b, cur_size)
    if wa and wb and abs(wa - wb) >= min(wa, wb):
        return False
    sep = "" if _CJK.search(ta[-1:] + tb[:1]) else " "
    first, *rest = b.lines
    a.lines[-1].spans.extend(([text_span(sep)] if sep else []) + first.spans)
    a.lines.extend(rest)
    b.lines = []
    set_extra(b, merged_into_previous=True)
    return True


def _tables(blocks: list[Block], last: bool) -> Block | None:
    """The last (or first) table of a page with only page furniture after (before) it; a
    part already joined to an earlier page's table counts (so chains run on)."""
    seq = reversed(blocks) if last else iter(blocks)
    furniture = {BlockType.HEADER, BlockType.FOOTER, BlockType.PAGE_NUMBER, BlockType.ASIDE_TEXT,
                 BlockType.PAGE_FOOTNOTE}
    for b in seq:
        if b.type == BlockType.TABLE and (last or not _merged(b)):
            return b
        if b.type in furniture:
            continue
        return None
    return None


def _body(block: Block) -> Span | None:
    for kid in block.blocks:
        if kid.type == BlockType.TABLE_BODY and kid.lines and kid.lines[0].spans:
            return kid.lines[0].spans[0]
    return None


class _Grid:
    """A table body's rows, from its HTML (the model) or its :class:`Table` (the text
    layer), with what merging needs: each row's cell texts and width, and edits."""

    def __init__(self, span: Span):
        self.span = span
        if span.table is not None:
            self.rows = span.table.rows
            self.html = None
        else:
            self.html = span.html or ""
            self.rows = _ROW.findall(self.html)

    def cells(self, row) -> list[tuple[str, int]]:
        """(text, colspan) of each cell of a row."""
        if self.html is None:
            return [(_cell_text(c), max(1, c.colspan)) for c in row]
        return [(_strip_tags(inner), int(m.group(1)) if (m := _COLSPAN.search(attrs)) else 1)
                for attrs, inner in _CELLS.findall(row)]

    def texts(self, row) -> list[str]:
        return [t for t, _ in self.cells(row)]

    def width(self, row) -> int:
        return sum(span for _, span in self.cells(row))

    def table_width(self) -> int:
        return max((self.width(r) for r in self.rows), default=0)

    def header_rows(self) -> int:
        """How many leading rows are marked as a header (``<th>`` / ``Cell.header``); 1 when
        none is (a continuation repeating the first row is still a repeated header)."""
        n = 0
        for row in self.rows:
            header = all(c.header for c in row) if self.html is None else \
                bool(row) and not re.search(r"<td\b", row, re.I) and re.search(r"<th\b", row, re.I)
            if not header:
                break
            n += 1
        return max(n, 1)

    def append(self, rows: list) -> None:
        if self.html is None:
            self.rows.extend(rows)
            return
        end = self.html.rfind("</table>")
        end = len(self.html) if end < 0 else end
        self.html = self.html[:end] + "".join(rows) + self.html[end:]
        self.span.html = self.html
        self.rows = _ROW.findall(self.html)

    def join_into_last(self, other: "_Grid", row) -> None:
        """A row split by the page break: each non-empty cell of ``row`` (the part on the
        next page) is added to the same column of this table's last row."""
        last = self.rows[-1]
        texts = other.texts(row)
        if self.html is None:
            for cell, more in zip(last, row):
                if _cell_text(more):
                    cell.blocks.extend(more.blocks)
            return
        cells = _CELLS.findall(last)
        merged = "".join(
            f"<{_tag(last, k)}{attrs}>{inner}{(' ' + html.escape(texts[k])) if k < len(texts) and texts[k] else ''}"
            f"</{_tag(last, k)}>" for k, (attrs, inner) in enumerate(cells))
        start = last.index(">") + 1
        new_last = last[:start] + merged + "</tr>"
        pos = self.html.rfind(last)
        self.html = self.html[:pos] + new_last + self.html[pos + len(last):]
        self.span.html = self.html
        self.rows = _ROW.findall(self.html)


def _cell_text(cell) -> str:
    return " ".join(plain_text(b) for b in cell.blocks).strip()


def _strip_tags(markup: str) -> str:
    return " ".join(html.unescape(_TAGS.sub(" ", markup)).split())


def _tag(row: str, k: int) -> str:
    return [m.group(1).lower() for m in _CELL_TAG.finditer(row)][k]


def _norm_row(texts: list[str]) -> list[str]:
    return [" ".join(t.split()).casefold() for t in texts]


def _split_row(host: _Grid, part: _Grid, first) -> bool:
    """Whether ``first`` (the next page's first row) is the rest of the host's last row.

    Two shapes: the model gave the fragment fewer cells than the table has columns (empty
    cells left out), or it has them all but its first cell (the row's key) is empty while
    the last row's is not, and the fragment has text somewhere else."""
    if not host.rows or not part.texts(first):
        return False
    last_texts = host.texts(host.rows[-1])
    texts = part.texts(first)
    if not any(texts) or not any(last_texts):
        return False
    if part.width(first) < host.table_width():
        return all(part.width(r) == host.table_width() for r in part.rows[1:]) and len(part.rows) > 1
    return not texts[0] and bool(last_texts[0]) and len(texts) == len(last_texts)


def _merge_table(prev_blocks, cur_blocks, prev_size, cur_size, hosts: dict) -> bool:
    a, b = _tables(prev_blocks, last=True), _tables(cur_blocks, last=False)
    if a is None or b is None or a is b:
        return False
    if any(k.type == BlockType.TABLE_FOOTNOTE for k in a.blocks):
        return False  # a footnote under the part on page n ends the table there
    caps = [k for k in b.blocks if k.type == BlockType.TABLE_CAPTION]
    if caps and not any(_CONTINUED.search(_text(c)) for c in caps):
        return False
    wa, wb = _width(a, prev_size), _width(b, cur_size)
    if wa and wb and abs(wa - wb) / max(wa, wb) >= 0.10:
        return False
    host_block = hosts.get(id(a), a)
    sa, sb = _body(host_block), _body(b)
    if sa is None or sb is None or (sa.table is None) != (sb.table is None):
        return False
    host, part = _Grid(sa), _Grid(sb)
    if not host.rows or not part.rows:
        return False
    rows = list(part.rows)
    # a header repeated on the new page: dropped (compared by text, as printed)
    n = host.header_rows()
    if len(rows) > n and [_norm_row(part.texts(r)) for r in rows[:n]] == \
            [_norm_row(host.texts(r)) for r in host.rows[:n]]:
        rows = rows[n:]
    elif _norm_row(part.texts(rows[0])) == _norm_row(host.texts(host.rows[0])) and len(rows) > 1:
        rows = rows[1:]
    split = _split_row(host, part, rows[0])
    body_rows = rows[1:] if split else rows
    if body_rows and max(part.width(r) for r in body_rows) != host.table_width():
        return False  # not the same columns: two tables
    if split:
        host.join_into_last(part, rows[0])
    host.append(body_rows)
    printed = len(part.rows)
    sb.table, sb.html = None, ""  # its rows are in the first part now
    set_extra(b, merged_into_previous=True, rows_printed_here=printed)
    hosts[id(b)] = host_block
    return True
