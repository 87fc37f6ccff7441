"""A running text flow for the readers of word-processor formats (ODT, RTF, DOC).

Those formats give a sequence of paragraphs, some of them list items, some of them
headings, with tables, pictures and notes among them. :class:`Flow` turns that sequence
into the document model's blocks: consecutive list items become one ``list`` block, notes
become ``page_footnote`` blocks at the end, and counters number list items the way the
format asks (:class:`Counters`). The Word reader (``office/docx``) has its own richer
machinery; this one is deliberately small.
"""

from __future__ import annotations

from mineru_tui.document import (Block, BlockType, Line, Span, SpanType, equation_block,
                                 list_block, text_span, title_block)
from mineru_tui.document.model import merge_spans
from mineru_tui.office.numfmt import word_counter

MAX_DEPTH = 8  # list depth kept (deeper items sit at this depth)


class Flow:
    """Blocks in reading order, with list items grouped and notes collected."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.notes: list[Block] = []
        self._list: Block | None = None

    def paragraph(self, spans: list[Span], *, level: int | None = None,
                  depth: int | None = None, marker: str | None = None) -> None:
        """A paragraph: a heading when ``level`` is given, a list item when ``marker`` is.

        A span whose content is exactly ``BREAK`` is a line break inside the paragraph.
        """
        meaningful = [s for s in spans if s.type != SpanType.TEXT or s.content.strip()]
        if not meaningful:
            return
        if level:
            # Bold is a heading's look, not emphasis (as the Word reader drops it).
            flat = [text_span(" ") if s.content == BREAK and s.type == SpanType.TEXT else
                    Span(s.type, s.content, s.style - {"bold"}, s.link) if s.type == SpanType.TEXT
                    else s for s in spans]
            self.add(title_block(merge_spans(_strip(flat)), level))
            return
        lines = split_lines(spans)
        if marker is not None:
            item = Block(BlockType.TEXT, lines=lines, depth=max(0, min(depth or 0, MAX_DEPTH)),
                         marker=marker)
            if self._list is None:
                self._list = list_block([])
                self.blocks.append(self._list)
            self._list.blocks.append(item)
        elif all(s.type == SpanType.INLINE_EQUATION for s in meaningful):
            for s in meaningful:  # an equation alone in its paragraph is displayed
                self.add(equation_block(s.content))
        else:
            self.add(Block(BlockType.TEXT, lines=lines))

    def continue_item(self, spans: list[Span]) -> bool:
        """A further paragraph of the open list's last item (False when no list is open)."""
        if self._list is None or not self._list.blocks:
            return False
        if any(s.type != SpanType.TEXT or s.content.strip() for s in spans):
            self._list.blocks[-1].lines += split_lines(spans)
        return True

    def add(self, block: Block) -> None:
        """Any other block (a table, an image, an equation); it ends an open list."""
        self._list = None
        self.blocks.append(block)

    def end_list(self) -> None:
        self._list = None

    def note(self, label: str, spans: list[Span]) -> None:
        """A footnote or endnote body, written at the end under ``label``."""
        self.notes.append(Block(BlockType.PAGE_FOOTNOTE, lines=split_lines(spans) or [Line()],
                                note_id=label))

    def finish(self) -> list[Block]:
        """The blocks, then the notes."""
        self._list = None
        return self.blocks + self.notes


BREAK = "\n"  # a span holding only this is a line break


def split_lines(spans: list[Span]) -> list[Line]:
    """Spans cut into lines at ``BREAK`` spans, each merged and stripped; empty lines dropped."""
    lines: list[Line] = []
    cur: list[Span] = []
    for s in spans + [text_span(BREAK)]:
        if s.type == SpanType.TEXT and s.content == BREAK and not s.is_checkbox:
            cur = merge_spans(_strip(cur))
            if cur:
                lines.append(Line(cur))
            cur = []
        else:
            cur.append(s)
    return lines


def _strip(spans: list[Span]) -> list[Span]:
    """Leading and trailing white space of a paragraph dropped (its layout, not text)."""
    spans = list(spans)
    while spans and spans[0].type == SpanType.TEXT and not spans[0].is_checkbox:
        s = spans[0]
        text = s.content.lstrip()
        if text:
            spans[0] = Span(s.type, text, s.style, s.link)
            break
        spans.pop(0)
    while spans and spans[-1].type == SpanType.TEXT and not spans[-1].is_checkbox:
        s = spans[-1]
        text = s.content.rstrip()
        if text:
            spans[-1] = Span(s.type, text, s.style, s.link)
            break
        spans.pop()
    return spans


def note_ref(label: str) -> Span:
    """The reference to note ``label`` in the text."""
    return Span(SpanType.FOOTNOTE_REF, label)


class Counters:
    """List counters per list and level: ``next(key, level, start)`` gives the item's number.

    Starting an item at ``level`` resets the deeper levels, as word processors do.
    """

    def __init__(self) -> None:
        self._counts: dict[object, list[int]] = {}

    def next(self, key: object, level: int, start: int = 1) -> int:
        counts = self._counts.setdefault(key, [])
        level = max(0, min(level, MAX_DEPTH))
        while len(counts) <= level:
            counts.append(0)
        del counts[level + 1:]
        counts[level] = counts[level] + 1 if counts[level] else start
        return counts[level]

    def set(self, key: object, level: int, value: int) -> None:
        """Make the next item at ``level`` number ``value + 1`` (an item's own start value)."""
        counts = self._counts.setdefault(key, [])
        while len(counts) <= level:
            counts.append(0)
        counts[level] = value

    def restart(self, key: object) -> None:
        self._counts.pop(key, None)

    def current(self, key: object) -> list[int]:
        return list(self._counts.get(key, []))


def counter_text(n: int, fmt: str) -> str:
    """``n`` in a counter format: ODF's ``1 a A i I`` or Word's ``decimal``, ``lowerRoman``..."""
    return word_counter(n, _ODF_FORMATS.get(fmt, fmt))


_ODF_FORMATS = {"1": "decimal", "a": "lowerLetter", "A": "upperLetter", "i": "lowerRoman",
                "I": "upperRoman", "": "none"}


def plain(text: str, style: frozenset[str] = frozenset(), link: str | None = None) -> Span:
    return text_span(text, style, link)
