"""Filling text-like layout blocks with the PDF's own characters (MinerU's txt-mode path).

The layout model finds blocks on the rendered page; their boxes are normalised (0-1) to that
image, i.e. to the display frame. A box becomes PDF points through the render scale (pixels
per point) and the page's /Rotate (the display frame already includes it), and a character
goes to the smallest block that contains the centre of its glyph box (of any type: the
characters of a formula inside a paragraph's box stay out of the paragraph). MinerU first finds line boxes
with an OCR detector and assigns characters to those; without a detector, lines are rebuilt
from the characters themselves (see :mod:`mineru_tui.pdf.lines`), which is what its note on
the simple equivalent describes.

A block gets None (the model reads it) when it has no characters, or when its characters
look unreliable: private-use glyphs (MinerU's rule: at least 2, in a run of 2 or at 5 % of
the text) or undecodable characters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mineru_tui.pdf.chars import Box, Char, page_chars
from mineru_tui.pdf.lines import build_lines, is_private_use, join_lines, upright

# MinerU's NOT_EXTRACT_TYPES (the types the VLM never reads on a txt document), plus
# aside_text (margin notes), which the text layer reads as well as any other text.
TEXT_LAYER_TYPES = frozenset({
    "text", "title", "doc_title", "paragraph_title", "header", "footer", "page_number",
    "page_footnote", "ref_text", "table_caption", "image_caption", "caption", "table_footnote",
    "image_footnote", "footnote", "code_caption", "phonetic", "aside_text",
})

# Punctuation that may hang past a line's end (or start) and still belongs to it.
CLOSING_PUNCT = set(".!?)]}:;,-\u2014\u2013\u201d\u2019\"'\u3002\uff01\uff1f\uff09\u3001\uff0c\uff1b\uff1a\u300b\u300d\u300f")
OPENING_PUNCT = set("([{\u201c\u2018\u300a\u300c\u300e\uff08<")
_HANGING = CLOSING_PUNCT | OPENING_PUNCT


def block_boxes_pt(page, blocks: Sequence[tuple[str, Sequence[float]]],
                   image_size: tuple[int, int]) -> list[Box]:
    """The blocks' boxes in display-frame points.

    Boxes normalised to the rendered image (values within 0-1; a little overshoot is
    tolerated) are scaled by the image size; larger values are taken as pixels of that
    image. Pixels become points through the render scale, which is the image size over the
    displayed page size.
    """
    w_pt, h_pt = page.size_pt
    sx, sy = image_size[0] / w_pt, image_size[1] / h_pt  # pixels per point
    out = []
    for _, b in blocks:
        x0, y0, x1, y1 = (float(v) for v in b)
        if max(abs(x0), abs(y0), abs(x1), abs(y1)) <= 1.5:  # no real pixel box is this small
            x0, x1 = x0 * image_size[0], x1 * image_size[0]
            y0, y1 = y0 * image_size[1], y1 * image_size[1]
        out.append((min(x0, x1) / sx, min(y0, y1) / sy, max(x0, x1) / sx, max(y0, y1) / sy))
    return out


def _inside(x: float, y: float, b: Box) -> bool:
    return b[0] <= x <= b[2] and b[1] <= y <= b[3]


def assign_chars(chars: list[Char], boxes: list[Box], eligible: list[bool]) -> list[list[Char]]:
    """Each character to the smallest eligible box holding its centre; punctuation hanging
    past a box's end (or start, for opening marks) in the reading direction joins it by its
    inner edge (MinerU's line-end/line-start rule)."""
    buckets: list[list[Char]] = [[] for _ in boxes]
    order = sorted((i for i, ok in enumerate(eligible) if ok),
                   key=lambda i: (boxes[i][2] - boxes[i][0]) * (boxes[i][3] - boxes[i][1]))
    for c in chars:
        cx, cy = c.cx, c.cy
        home = next((i for i in order if _inside(cx, cy, boxes[i])), None)
        if home is None and c.text in _HANGING:
            # in the character's own upright frame: its inner edge, its vertical centre
            x0, y0, x1, y1 = upright(c.box, c.direction)
            x = x0 if c.text in CLOSING_PUNCT else x1
            home = next((i for i in order
                         if _inside(x, (y0 + y1) / 2, upright(boxes[i], c.direction))), None)
        if home is not None:
            buckets[home].append(c)
    return buckets


def _unreliable(text: str, chars: list[Char]) -> str | None:
    """Why the block's characters should not be trusted, or None."""
    pua = [c for c in chars if is_private_use(c.text)]
    if len(pua) >= 2:
        run = re.search(r"[\ue000-\uf8ff]{2}", "".join(c.text for c in chars))
        solid = sum(1 for c in chars if not c.text.isspace())
        if run or len(pua) / max(solid, 1) >= 0.05:
            return "private-use glyphs"
    bad = sum(1 for c in chars if c.map_error or c.text == "\ufffd"
              or (ord(c.text) < 32 and c.text not in "\t\n\r\x02"))
    if bad >= 2:
        return "undecodable characters"
    return None


def text_for_blocks(page, blocks: Sequence[tuple[str, Sequence[float]]],
                    image_size: tuple[int, int], chars: list[Char] | None = None,
                    ) -> list[str | None]:
    """The text-layer text of each block, in the blocks' order.

    ``blocks`` are ``(type, (x0, y0, x1, y1))`` with boxes normalised to the rendered image
    of ``page`` (size ``image_size``). Only :data:`TEXT_LAYER_TYPES` get text; every other
    block, and a text block without usable characters, gets None (the model reads it).
    Text is in reading order with ligatures expanded, line-end hyphenation joined, and
    sub/superscripts as ``<sub>``/``<sup>`` runs (see :func:`text_to_spans`).
    ``chars`` may pass the page's characters when the caller already has them.
    """
    if chars is None:
        chars = page_chars(page)
    if chars is None:  # too many characters: MinerU gives the page to OCR
        return [None] * len(blocks)
    boxes = block_boxes_pt(page, blocks, image_size)
    eligible = [t in TEXT_LAYER_TYPES for t, _ in blocks]
    # every block takes the characters it holds, so a formula, table or figure inside a
    # paragraph's box keeps its characters out of the paragraph (MinerU masks them too)
    buckets = assign_chars(chars, boxes, [True] * len(boxes))
    out: list[str | None] = []
    for ok, box, members in zip(eligible, boxes, buckets):
        if not ok or not any(not c.text.isspace() for c in members):
            out.append(None)
            continue
        lines = build_lines(members, box=box)
        text = join_lines([ln.text for ln in lines])
        if not text.strip() or _unreliable(text, members):
            out.append(None)
        else:
            out.append(text)
    return out


_SCRIPT = re.compile(r"<(sup|sub)>(.*?)</\1>", re.DOTALL)


def text_to_spans(text: str):
    """Text with ``<sup>``/``<sub>`` runs as document spans (superscript/subscript styles)."""
    from mineru_tui.document import text_span

    if "<" not in text:  # most text: no script runs to look for
        return [text_span(text)] if text else []
    spans, pos = [], 0
    for m in _SCRIPT.finditer(text):
        if m.start() > pos:
            spans.append(text_span(text[pos:m.start()]))
        style = "superscript" if m.group(1) == "sup" else "subscript"
        spans.append(text_span(m.group(2), (style,)))
        pos = m.end()
    if pos < len(text):
        spans.append(text_span(text[pos:]))
    return spans
