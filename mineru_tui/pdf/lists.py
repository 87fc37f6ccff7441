"""Lists without a model: paragraphs that start with a bullet or a number.

A bullet is a typographic bullet, dash or box, or a glyph from a symbol font that PDFium
cannot map to Unicode: Word's Symbol and Wingdings bullets come out as private-use code
points (U+F0B7, U+F0A7, U+F076…) or as C1 controls (U+0084, U+0095), so any private-use
or control character that starts a paragraph and is followed by text counts as one.
Numbering is ``1.``, ``1)``, ``(1)``, ``a.``, ``a)``, ``(a)``, ``i.``, ``iv)``.

Consecutive items become one list block (MinerU's ``list`` with item children); an
item's depth comes from how far its marker stands right of the list's leftmost marker.
"""

from __future__ import annotations

import re

BULLET_CHARS = ("\u2022\u25e6\u25aa\u25ab\u2023\u2219\u00b7\u2043\u25cf\u25cb\u25a0\u25a1"
                "\u25b6\u25ba\u27a2\u2794\u2713\u2714\u2717\u2605\u2606\u2666\u25c6\u25c7"
                "\u2013\u2014\u2212*\u00bb\u203a>o\u00a7\uf0b7\uf0a7\uf076\uf0d8\uf0fc\uf06e"
                "\uf0a8\uf0e0\uf0f0\uf02d")
_BULLET = re.compile(r"^([" + re.escape(BULLET_CHARS) + r"\-]|[\u0080-\u009f\ue000-\uf8ff])\s*(?=\S)")
_NUMBER = re.compile(r"^(?:\(?(\d{1,3}|[a-z]|[ivx]{1,5})[.)]|\((\d{1,3}|[a-z]|[ivx]{1,5})\))\s+(?=\S)")
INDENT = 8.0  # points of indentation per nesting level
MAX_DEPTH = 5


def list_item(text: str) -> tuple[str, str] | None:
    """``(marker, text without it)`` when ``text`` starts a list item: marker ``-`` for a
    bullet, ``N.`` for a number (the document's own number; letters and roman numerals are
    numbered by position later). None otherwise."""
    m = _BULLET.match(text)
    if m:
        rest = text[m.end():]
        # "o" and ">" start ordinary sentences too: only with a space after them
        if m.group(1) in "o>-*" and not text[1:2].isspace():
            return None
        return "-", rest
    m = _NUMBER.match(text)
    if m:
        token = m.group(1) or m.group(2)
        if token.isdigit() and len(text) > m.end() and text[m.end()].isdigit():
            return None
        return (f"{int(token)}." if token.isdigit() else "#."), text[m.end():]
    return None


def starts_item(text: str) -> bool:
    """True when a line's text starts a list item (a paragraph break goes before it)."""
    return list_item(text) is not None


def is_bare_bullet(text: str) -> bool:
    """A line that is only a bullet (drawn apart from its text by a tab)."""
    t = text.strip()
    return len(t) == 1 and bool(_BULLET.match(t + "x"))


def gather_lists(blocks: list, xs: list[float]) -> list:
    """``blocks`` (``mineru_tui.document.Block`` in reading order) with runs of list items
    turned into list blocks; ``xs`` is each block's left edge (its marker's position)."""
    from mineru_tui.document import Block, BlockType, Line, list_block
    from mineru_tui.document.model import SpanType

    out: list = []
    run: list[tuple[Block, str, float]] = []

    def flush():
        if not run:
            return
        if len(run) == 1 and run[0][1] != "-" and not run[0][1].startswith("1"):
            # a lone "3." or "(b)" paragraph is more often a numbered sentence than a list
            out.append(run[0][0])
            run.clear()
            return
        left = min(x for _, _, x in run)
        items, counters = [], {}
        for block, marker, x in run:
            depth = min(int((x - left + INDENT / 2) // INDENT), MAX_DEPTH)
            if marker == "#.":
                counters[depth] = counters.get(depth, 0) + 1
                marker = f"{counters[depth]}."
            item = Block(BlockType.TEXT, lines=block.lines, bbox=block.bbox, depth=depth,
                         marker=marker, extra=dict(block.extra))
            items.append(item)
        first = run[0][0]
        lb = list_block(items, sub_type="text")
        xs0 = [b.bbox for b, _, _ in run if b.bbox]
        if xs0:
            lb.bbox = [min(b[0] for b in xs0), min(b[1] for b in xs0),
                       max(b[2] for b in xs0), max(b[3] for b in xs0)]
        lb.extra = dict(first.extra)
        out.append(lb)
        run.clear()

    for block, x in zip(blocks, xs):
        found = None
        if block.type == BlockType.TEXT and block.lines and block.lines[0].spans:
            first = block.lines[0].spans[0]
            if first.type == SpanType.TEXT:
                found = list_item(first.content)
        if found is None:
            flush()
            out.append(block)
            continue
        marker, rest = found
        if run and abs(x - min(rx for _, _, rx in run)) > MAX_DEPTH * INDENT:
            flush()  # an item far off to the side: another column's list
        spans = list(block.lines[0].spans)
        spans[0] = type(first)(first.type, rest, first.style, first.link)
        if not rest:
            spans = spans[1:]
        block.lines = [Line(spans, bbox=block.lines[0].bbox)] + block.lines[1:]
        run.append((block, marker, x))
    flush()
    return out
