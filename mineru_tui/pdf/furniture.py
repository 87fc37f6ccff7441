"""Page furniture without a model: running headers, footers and page numbers.

MinerU leaves headers, footers and page numbers out of the Markdown (they go to the
middle JSON's ``discarded_blocks``). Read from the text layer alone, a block is furniture
when it lies in the top or bottom band of its page and either

* its text, with digits ignored, comes back in the same band on other pages (a running
  title, "Page 3 of 9", a chapter name in the footer), or
* it is only a page number (``7``, ``- 7 -``, ``Page 7``, ``7 / 12``, ``vii``).

A page number may sit a little further in (the top or bottom 15 %: LaTeX's running heads),
and a block on the same row as a page number is the running title or footer beside it
(``Chapter 3. Access Control … 27``, ``© 2014 … iii``); so is a one-line text block there
that ends or starts with a page number (the two read as one line).
"""

from __future__ import annotations

import re

BAND = 0.1  # share of the page height at the top and at the bottom where furniture lives
WIDE_BAND = 0.15  # where a page number (and the running title on its row) may still be
MIN_SHARE = 0.3  # a text repeated on this share of the pages (and at least two) repeats

_PAGE_NUMBER = re.compile(r"^(?:(?:page|p\.|seite|página|pagina)\s*)?[-–—(\[]?\s*(?:\d{1,4}|[ivxlc]{1,7})"
                          r"\s*[-–—)\]]?(?:\s*(?:/|of|von|de)\s*\d{1,4})?$", re.IGNORECASE)


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"\d+", "#", text.casefold())).strip()


def _band(bbox, height: float, share: float = BAND) -> str | None:
    if not bbox or height <= 0:
        return None
    if bbox[3] <= share * height:
        return "top"
    if bbox[1] >= (1 - share) * height:
        return "bottom"
    return None


_HEAD_NUMBER = re.compile(r"^(?:\d{1,3}|[ivxlc]{1,7})\s+\S.*\D$|^\D.*\S\s+(?:\d{1,3}|[ivxlc]{1,7})$",
                          re.IGNORECASE)


def _running_head(block) -> bool:
    """One line of body text (not a title) with a page number at one end: a running title
    and its page number read as one line ("Optimized Table Tokenization … 9")."""
    from mineru_tui.document import BlockType
    from mineru_tui.document.model import plain_text

    text = plain_text(block).strip()
    spans = block.lines[0].spans if block.lines else []
    if spans and "superscript" in (spans[0].style or ()):
        return False  # a footnote: its number is a raised mark ("¹ http://www.ponemon.org/")
    return (block.type == BlockType.TEXT and len(block.lines) == 1 and "\n" not in text
            and len(text.split()) <= 15 and bool(_HEAD_NUMBER.match(text)))


def _same_row(a, b) -> bool:
    inter = min(a[3], b[3]) - max(a[1], b[1])
    return inter > 0.5 * min(a[3] - a[1], b[3] - b[1])


def drop_furniture(pages: list) -> int:
    """Move furniture blocks of ``pages`` (``mineru_tui.document.Page`` read from the text
    layer, boxes in points of the displayed page) to their ``discarded_blocks`` as
    ``header``, ``footer`` or ``page_number``. Returns how many blocks moved.

    The same in two steps for pages that are not all in memory: :func:`page_marks` of each
    page as it is read, then :func:`drop_marked` on each page with every page's marks."""
    marks = [page_marks(page) for page in pages]
    repeats = repeated(marks)
    return sum(drop_marked(page, m, repeats, len(pages)) for page, m in zip(pages, marks))


Marks = list  # per para block: (band, text key) or None, and whether it is beside a page number


def page_marks(page) -> Marks:
    """What :func:`drop_furniture` needs to know of one page: for each of its para blocks,
    its band and text key (None: not in a band), and whether it shares a page number's row."""
    from mineru_tui.document.model import plain_text

    height = (page.page_size or (0, 0))[1]
    # a page number a little further in (LaTeX's running heads sit lower than a
    # tenth of the page), and whatever shares its row: the running title beside it
    numbers = [b for b in page.para_blocks if _band(b.bbox, height, WIDE_BAND)
               and _PAGE_NUMBER.match(plain_text(b).strip())]
    beside = {id(b) for b in page.para_blocks if _band(b.bbox, height, WIDE_BAND)
              and any(n is not b and _same_row(b.bbox, n.bbox) for n in numbers)}
    row = []
    for b in page.para_blocks:
        band = _band(b.bbox, height)
        text = plain_text(b)
        if band is None and (b in numbers or id(b) in beside or _running_head(b)):
            band = _band(b.bbox, height, WIDE_BAND)
        if band is None or not text or len(text) > 200:
            row.append(None)
            continue
        row.append(((band, _key(text)), id(b) in beside))
    return row


def repeated(marks: list[Marks]) -> dict[tuple[str, str], int]:
    """On how many pages each (band, text key) of ``marks`` (one per page) comes."""
    seen: dict[tuple[str, str], set[int]] = {}
    for i, row in enumerate(marks):
        for mark in row:
            if mark is not None:
                seen.setdefault(mark[0], set()).add(i)
    return {key: len(pages) for key, pages in seen.items()}


def drop_marked(page, marks: Marks, repeats: dict[tuple[str, str], int], pages: int) -> int:
    """:func:`drop_furniture`'s move for one ``page`` of ``pages``, given its
    :func:`page_marks` and every page's :func:`repeated` keys."""
    from mineru_tui.document import BlockType
    from mineru_tui.document.model import plain_text

    need = max(2, round(MIN_SHARE * pages))
    moved = 0
    keep = []
    for b, mark in zip(page.para_blocks, marks):
        if mark is None:
            keep.append(b)
            continue
        key, near = mark
        band = key[0]
        if _PAGE_NUMBER.match(plain_text(b).strip()):
            b.type = BlockType.PAGE_NUMBER
        elif _running_head(b):
            b.type = BlockType.HEADER if band == "top" else BlockType.FOOTER
        elif (pages > 1 and repeats[key] >= need) or near:
            # repeated, or on the page number's row ("Chapter 3. Access Control   27")
            b.type = BlockType.HEADER if band == "top" else BlockType.FOOTER
        else:
            keep.append(b)
            continue
        b.level = None
        page.discarded_blocks.append(b)
        moved += 1
    page.para_blocks = keep
    return moved
