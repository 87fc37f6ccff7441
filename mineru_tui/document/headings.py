"""One heading-level pass over a whole document read from pages (PDFs and page images).

Pages are read one at a time, and each page's reading can only guess a title's level from
that page (the model says ``doc_title`` or ``paragraph_title``; the text layer compares the
type with the page's body text). This pass looks at every title of the document together,
with every signal there is, strongest first:

1. **The PDF's outline** (bookmarks): a title whose text and page match an entry takes the
   entry's depth; an entry that matches a short text block on its page makes it a title.
2. **Section numbers**: ``4`` / ``4.1`` / ``4.1.2``, ``A.1``, ``Chapter 3``, ``IV.`` give
   the depth below the document's title; a short text block whose number is the one missing
   from the sequence (``2 ...`` between ``1.2`` and ``2.1``) is a title too.
3. **Type size**: titles are grouped by the height of their type (the text layer's, or the
   title box's height per line on a scan), largest first, for the whole document at once:
   a size seen on page 3 means the same level on page 40. A size group that holds numbered
   titles takes their level; the others fit in between by size.
4. **The document title**: an unnumbered title before the first numbered one, larger than
   them (or the model's ``doc_title``), is level 1 and the sections go below it.

Then the levels are made to read as an outline: none goes more than one level below the
title before it (unless the PDF's outline says so), and the top one is level 1.
Office documents keep the levels their styles give; this pass is not run on them.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from mineru_tui.document.model import Block, BlockType, Document, plain_text

SAME_SIZE = 0.92  # type within 8 % of a group's largest is that group's size
MAX_PROMOTED_WORDS = 16  # an outline entry makes a text block a title only when it is short

_CHAPTER = re.compile(r"^(?:chapter|part|appendix|annex|book|chapitre|kapitel|capítulo|capitolo)\s+"
                      r"(?:\d+|[ivxlcdm]+|[a-z])\b", re.I)
_DECIMAL = re.compile(r"^(\d{1,2}(?:\.\d{1,3})*)\.?(?=\s|$)")
_LETTERED = re.compile(r"^([A-Z])((?:\.\d{1,3})+)\.?(?=\s|$)")
_ROMAN = re.compile(r"^(?=[IVXLC])(M{0,3}(?:C[MD]|D?C{0,3})(?:X[CL]|L?X{0,3})(?:I[XV]|V?I{0,3}))\.(?=\s)")
_LETTER = re.compile(r"^[A-Z]\.(?=\s)")


@dataclass
class OutlineEntry:
    """One bookmark: its depth (1 = top), title and 0-based page index (None: no page)."""

    level: int
    title: str
    page: int | None


@dataclass
class _Title:
    block: Block
    page: int  # the page's index in the file (0-based)
    text: str
    height: float | None
    number: int | None = None  # section depth from its numbering
    level: int | None = None
    from_outline: bool = False


def section_depth(text: str) -> int | None:
    """How deep a heading's numbering puts it (``4`` 1, ``4.1`` 2, ``A.1`` 2, ``Chapter 3``
    1, ``IV.`` 1), or None when it is not numbered."""
    text = text.strip()
    if _CHAPTER.match(text):
        return 1
    if m := _DECIMAL.match(text):
        parts = m.group(1).split(".")
        return len(parts) if len(text) > len(m.group(0)) else None  # "4" alone is no title
    if m := _LETTERED.match(text):
        return 1 + m.group(2).count(".")
    if _ROMAN.match(text) or _LETTER.match(text):
        return 1
    return None


def _key(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in text if ch.isalnum())


def _unnumbered_key(text: str) -> str:
    text = text.strip()
    for rx in (_CHAPTER, _DECIMAL, _LETTERED, _ROMAN, _LETTER):
        m = rx.match(text)
        if m:
            return _key(text[m.end():])
    return _key(text)


def _matches(a: str, b: str) -> bool:
    ka, kb = _key(a), _key(b)
    if not ka or not kb:
        return False
    if ka == kb or _unnumbered_key(a) == _unnumbered_key(b) != "":
        return True
    short, long_ = sorted((ka, kb), key=len)
    return len(short) >= 6 and long_.startswith(short)  # a title cut at a line end


def _height(block: Block) -> float | None:
    h = block.extra.get("type_height")
    if h:
        return float(h)
    if block.bbox:
        lines = max(1, len([l for l in block.lines if any(s.content.strip() for s in l.spans)]))
        return (block.bbox[3] - block.bbox[1]) / lines
    return None


def _page_number(page, index: int) -> int:
    no = page.extra.get("page_no")
    return int(no) - 1 if isinstance(no, int) else index


def _collect(doc: Document, outline: list[OutlineEntry]) -> list[_Title]:
    titles: list[_Title] = []
    pending = list(outline)
    for n, page in enumerate(doc.pages):
        where = _page_number(page, n)
        for block in page.para_blocks:
            text = plain_text(block).replace("\n", " ").strip()
            if block.type not in (BlockType.TITLE, BlockType.TEXT) or not text:
                continue
            entry = next((e for e in pending if _matches(e.title, text)
                          and (e.page is None or e.page <= where <= e.page + 1)), None)
            if block.type == BlockType.TEXT:
                if entry is None or len(text.split()) > MAX_PROMOTED_WORDS or block.blocks:
                    continue
                block.type = BlockType.TITLE  # the outline says this line is a heading
                block.extra["heading_from"] = "outline"
            title = _Title(block, where, text, _height(block), section_depth(text))
            if entry is not None:
                pending.remove(entry)
                title.level, title.from_outline = entry.level, True
            titles.append(title)
    return titles


def _number_of(text: str) -> tuple[int, ...] | None:
    m = _DECIMAL.match(text.strip())
    return tuple(int(x) for x in m.group(1).split(".")) if m else None


def _follows(a: tuple[int, ...] | None, b: tuple[int, ...]) -> bool:
    """Whether section ``b`` can come right after section ``a`` (1.2 → 1.3, 1.2.1, 2)."""
    if a is None:
        return b in ((1,), (1, 1))
    if len(b) == len(a) + 1:
        return b[:-1] == a and b[-1] == 1
    k = len(b)
    return k <= len(a) and b[:-1] == a[:k - 1] and b[-1] == a[k - 1] + 1


def _numbered_gaps(doc: Document, titles: list[_Title]) -> list[_Title]:
    """Text blocks that are the missing section of a numbered sequence (``2 A long title
    over two lines`` between ``1.2`` and ``2.1``): titles too, with their number's depth."""
    numbered = {id(t.block): _number_of(t.text) for t in titles if _number_of(t.text)}
    if len(numbered) < 2:
        return titles
    order = []
    for n, page in enumerate(doc.pages):
        for block in page.para_blocks:
            if block.type in (BlockType.TITLE, BlockType.TEXT):
                order.append((n, block))
    by_block = {id(t.block): t for t in titles}
    out: list[_Title] = []
    previous: tuple[int, ...] | None = None
    for k, (n, block) in enumerate(order):
        if id(block) in by_block:
            out.append(by_block[id(block)])
            previous = numbered.get(id(block), previous)
            continue
        text = plain_text(block).replace("\n", " ").strip()
        number = _number_of(text)
        if number is None or text.endswith((".", ":", ";", ",")) or len(text.split()) > 40:
            continue
        nxt = next((numbered[id(b)] for _, b in order[k + 1:] if id(b) in numbered), None)
        if _follows(previous, number) and (nxt is None or _follows(number, nxt)):
            block.type = BlockType.TITLE
            block.extra["heading_from"] = "numbering"
            page = doc.pages[n]
            out.append(_Title(block, _page_number(page, n), text, None, len(number)))
            previous = number
    return out


def _size_groups(titles: list[_Title]) -> dict[int, int]:
    """Each title's size group (0 = the largest type), by its index in ``titles``."""
    sized = sorted(((t.height, i) for i, t in enumerate(titles) if t.height), reverse=True)
    groups: dict[int, int] = {}
    top, g = None, -1
    for h, i in sized:
        if top is None or h < top * SAME_SIZE:
            top, g = h, g + 1
        groups[i] = g
    return groups


def _fallback_levels(titles: list[_Title]) -> None:
    groups = _size_groups(titles)
    numbered = [i for i, t in enumerate(titles) if t.number is not None]
    first_numbered = numbered[0] if numbered else len(titles)
    numbered_groups = {groups[i] for i in numbered if i in groups}
    doc_title = None
    for i, t in enumerate(titles[:first_numbered]):
        model_says = t.block.extra.get("vlm_type") == "doc_title"
        larger = i in groups and all(groups[i] < g for g in numbered_groups) if numbered_groups \
            else groups.get(i) == 0
        if t.number is None and (model_says or larger):
            doc_title = i
            break
    base = 1 if doc_title is not None else 0
    # a size group's level, learned from the numbered titles in it
    learned: dict[int, int] = {}
    for g in numbered_groups:
        votes = Counter(base + titles[i].number for i in numbered if groups.get(i) == g)
        learned[g] = votes.most_common(1)[0][0]
    if doc_title is not None and doc_title in groups:
        learned.setdefault(groups[doc_title], 1)
    for i, t in enumerate(titles):
        if t.level is not None:
            continue
        if i == doc_title:
            t.level = 1
        elif t.number is not None:
            t.level = base + t.number
        elif i in groups:
            t.level = _group_level(groups[i], learned)
        else:
            t.level = t.block.level or 2


def _group_level(g: int, learned: dict[int, int]) -> int:
    """The level of size group ``g``: learned, or one below the nearest larger group's, or
    one above the nearest smaller group's, or its rank when nothing was learned."""
    if g in learned:
        return learned[g]
    above = [k for k in learned if k < g]
    if above:
        k = max(above)
        return learned[k] + (g - k)
    below = [k for k in learned if k > g]
    if below:
        k = min(below)
        return max(1, learned[k] - (k - g))
    return g + 1


def _as_outline(titles: list[_Title]) -> None:
    """No title more than one level below the title before it (an outline's own depths
    stand), and the top level is 1."""
    if not titles:
        return
    shift = min(t.level for t in titles) - 1
    previous = 0
    for t in titles:
        t.level -= shift
        if not t.from_outline and t.level > previous + 1:
            t.level = previous + 1
        t.level = max(1, min(t.level, 6))
        previous = t.level


def level_headings(doc: Document, outline: list[OutlineEntry] | None = None) -> int:
    """Give every title of a page-read document its level (see the module text); returns
    how many titles there are. Office documents (``backend != "vlm"``) are left alone."""
    if doc.backend != "vlm":
        return 0
    titles = _collect(doc, [e for e in (outline or []) if e.title.strip()])
    titles = _numbered_gaps(doc, titles)
    _fallback_levels(titles)
    _as_outline(titles)
    for t in titles:
        t.block.level = t.level
    return len(titles)


def heading_candidates(page, outline: bool) -> list[tuple[int, Block]]:
    """(position, block) of the para blocks of ``page`` that :func:`level_headings` may look
    at or change: its titles, its numbered text blocks (a missing section of a numbered
    sequence) and, when the PDF has an ``outline``, its short text blocks (an entry may
    make one a title). Its other blocks change nothing there, so a document of only these
    blocks, one page per page, gets the same levels (a document not in memory)."""
    out = []
    for i, block in enumerate(page.para_blocks):
        if block.type == BlockType.TITLE:
            out.append((i, block))
        elif block.type == BlockType.TEXT:
            text = plain_text(block).replace("\n", " ").strip()
            if _number_of(text) is not None or (
                    outline and text and not block.blocks and len(text.split()) <= MAX_PROMOTED_WORDS):
                out.append((i, block))
    return out
