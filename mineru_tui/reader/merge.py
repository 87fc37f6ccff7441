"""Paragraphs and tables that continue onto the next page, joined as MinerU 4.0.12 joins them.

MinerU drops the model's ``txt_contd_tgt`` flag across pages and applies deterministic rules
(``mineru-hybrid-details.md`` §8); we apply the ones that need no line geometry:

* **Paragraphs** (``text``, ``ref_text``): the last one on page n, looking back past pictures,
  tables, code and page furniture and stopping at titles, equations and lists, and the first
  one on page n+1. The earlier must not end with ``. ! ? 。 ！ ？ ) ） " ” : ： ; ；``, the
  later must not start with a digit or an uppercase letter, and their widths must differ by
  less than the smaller width. (MinerU also checks where the first and last lines start and
  end; VLM blocks have no lines, so that check is not made.)
* **Tables**: the last table of page n and the first table of page n+1, with only page
  furniture between them; no caption on the second (unless it says it continues:
  "continued", "(续表)", "续表"), no footnote under the first, widths within 10 %, and the
  same number of columns. The second's rows are appended to the first (a repeated header
  row is dropped).

The later block stays in its page, emptied, with ``merged_into_previous`` set, so the middle
JSON still shows where it was; Markdown and the content list show the joined block once.
"""

from __future__ import annotations

import re

from mineru_tui.document import Block, BlockType, Document, text_span
from mineru_tui.reader.mapping import set_extra

_END_PUNCT = tuple(". ! ? 。 ！ ？ ) ） \" ” : ： ; ；".split())
_SKIP_BACK = {BlockType.IMAGE, BlockType.TABLE, BlockType.CODE, "chart", BlockType.HEADER,
              BlockType.FOOTER, BlockType.PAGE_NUMBER, BlockType.ASIDE_TEXT, BlockType.PAGE_FOOTNOTE}
_PARA = {BlockType.TEXT, BlockType.REF_TEXT}
_CONTINUED = re.compile(r"continued|cont\.|续表", re.I)
_ROW = re.compile(r"<tr\b[^>]*>.*?</tr>", re.S | re.I)
_CELL = re.compile(r"<t[dh]\b([^>]*)>", re.I)
_COLSPAN = re.compile(r'colspan\s*=\s*"?(\d+)', re.I)
_CJK = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")


def merge_across_pages(doc: Document) -> int:
    """Join continuing paragraphs and tables in place; returns how many joins were made."""
    joins = 0
    for prev, cur in zip(doc.pages, doc.pages[1:]):
        if _merge_paragraph(prev.para_blocks, cur.para_blocks, prev.page_size, cur.page_size):
            joins += 1
        if _merge_table(prev.para_blocks, cur.para_blocks, prev.page_size, cur.page_size):
            joins += 1
    return joins


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
    seq = reversed(blocks) if last else iter(blocks)
    furniture = {BlockType.HEADER, BlockType.FOOTER, BlockType.PAGE_NUMBER, BlockType.ASIDE_TEXT,
                 BlockType.PAGE_FOOTNOTE}
    for b in seq:
        if b.type == BlockType.TABLE and not _merged(b):
            return b
        if b.type in furniture:
            continue
        return None
    return None


def _html(block: Block) -> tuple[Block, str] | None:
    for kid in block.blocks:
        if kid.type == BlockType.TABLE_BODY and kid.lines and kid.lines[0].spans:
            span = kid.lines[0].spans[0]
            if span.html:
                return kid, span.html
    return None


def _columns(row: str) -> int:
    return sum(int(m.group(1)) if (m := _COLSPAN.search(attrs)) else 1 for attrs in _CELL.findall(row))


def _merge_table(prev_blocks, cur_blocks, prev_size, cur_size) -> bool:
    a, b = _tables(prev_blocks, last=True), _tables(cur_blocks, last=False)
    if a is None or b is None:
        return False
    if any(k.type == BlockType.TABLE_FOOTNOTE for k in a.blocks):
        return False
    caps = [k for k in b.blocks if k.type == BlockType.TABLE_CAPTION]
    if caps and not any(_CONTINUED.search(_text(c)) for c in caps):
        return False
    wa, wb = _width(a, prev_size), _width(b, cur_size)
    if wa and wb and abs(wa - wb) / max(wa, wb) >= 0.10:
        return False
    ha, hb = _html(a), _html(b)
    if ha is None or hb is None:
        return False
    rows_a, rows_b = _ROW.findall(ha[1]), _ROW.findall(hb[1])
    if not rows_a or not rows_b or _columns(rows_a[-1]) != _columns(rows_b[0]):
        return False
    if rows_b[0] == rows_a[0]:
        rows_b = rows_b[1:]  # the header row repeated on the new page
    body_a = ha[0].lines[0].spans[0]
    end = ha[1].rfind("</table>")
    body_a.html = ha[1][:end] + "".join(rows_b) + ha[1][end:]
    hb[0].lines[0].spans[0].html = ""
    set_extra(b, merged_into_previous=True)
    return True
