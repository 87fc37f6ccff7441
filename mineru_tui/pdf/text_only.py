"""The model-free level: a page read from its text layer alone (MinerU's ``flash`` on a
``txt`` document), for users without the model.

Without a layout model, blocks are rebuilt from the characters: visible characters form
lines in reading order (:func:`~mineru_tui.pdf.lines.page_lines`: the page cut into blocks,
columns before rows, by recursive XY cuts), and lines one under the other in the same
block with the same size and left/right overlap form a paragraph. A paragraph in clearly
larger type than the page's body text is a title. Text in another direction (a rotated margin note) becomes
``aside_text`` blocks after the page's main text.

Pages whose text layer is missing or unreliable raise :class:`NeedsModelError`: they are
scans or images, and only the model can read them.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from mineru_tui.pdf import structure
from mineru_tui.pdf.chars import Box, page_chars
from mineru_tui.pdf.classify import classify_page
from mineru_tui.pdf.gc_pause import collector_paused
from mineru_tui.pdf.lines import TextLine, join_lines, page_lines, upright

PARAGRAPH_GAP = 0.9  # a vertical gap above this many line heights starts a new paragraph
IMAGE_PAGE_SHARE = 0.5  # a page this much covered by images is a scan, even with some text


class NeedsModelError(Exception):
    """The page has no usable text layer: only the model can read it."""

    def __init__(self, page_number: int, reason: str):
        super().__init__(f"page {page_number} needs the model: {reason}")
        self.page_number = page_number
        self.reason = reason


@dataclass
class _Para:
    lines: list[TextLine]
    box: Box  # upright frame
    height: float  # typical line (font) height
    block: int = 0  # the block of the page its lines were read in
    table: object = None  # a table found on the page (structure.tables.FoundTable)

    def display_box(self) -> Box:
        if self.table is not None:
            return self.table.box
        return (min(ln.box[0] for ln in self.lines), min(ln.box[1] for ln in self.lines),
                max(ln.box[2] for ln in self.lines), max(ln.box[3] for ln in self.lines))


def text_only_page(page, without_unmapped: bool = False) -> list:
    """The page's text blocks (``mineru_tui.document.Block``) in reading order, read from the
    text layer alone. Boxes are in display-frame points (origin top left), the frame of
    ``page.size_pt``. Raises :class:`NeedsModelError` for pages without a usable text layer;
    a blank page (nothing drawn) has no blocks. With ``without_unmapped``, the characters
    PDFium cannot map to Unicode are left out first, and what remains is checked and read
    (see :func:`unmapped_count`).
    """
    with collector_paused():
        return _text_only_page(page, without_unmapped)


def _text_only_page(page, without_unmapped: bool) -> list:
    from mineru_tui.document import Block, BlockType, Line, table_block
    from mineru_tui.pdf.blocks_text import text_to_spans

    chars = page_chars(page)
    if without_unmapped and chars is not None:
        chars = [c for c in chars if not c.map_error]
    decision = classify_page(page, chars)
    if decision.blank:  # nothing drawn: an empty page, not one for the model
        return []
    if not decision.use_text_layer:
        # a divider page's few characters are its text; a page's few that remain once its
        # unmapped ones are left out are not enough to go by
        few = (chars is not None and decision.reason.startswith("The text layer has only")
               and not without_unmapped)
        if not (few and _image_share(page) < IMAGE_PAGE_SHARE):
            raise NeedsModelError(page.number, decision.reason)
    visible = [c for c in chars if c.visible]
    if not any(not c.text.isspace() for c in visible):
        raise NeedsModelError(page.number, "The page has no visible text.")

    directions = {c.direction for c in visible}
    if len(directions) == 1:  # most pages: all their text runs one way, nothing to count
        main = directions.pop()
        by_direction: dict[int, list] = {main: list(visible)}
    else:
        by_direction = {}
        for c in visible:
            by_direction.setdefault(c.direction, []).append(c)
        main = max(by_direction, key=lambda d: (sum(not c.text.isspace() for c in by_direction[d]),
                                                d == 0))
    page_structure = structure.PageStructure.read(page, visible)
    blocks: list[Block] = []
    table_boxes: list[Box] = []
    for direction in [main] + sorted(d for d in by_direction if d != main):
        mine = by_direction[direction]
        if direction != main and table_boxes:  # turned text in a table's cells is the table's
            mine = [c for c in mine if not any(_centre_in(c, b) for b in table_boxes)]
        lines = page_lines(mine, direction)  # in reading order
        tables = []
        if direction == 0 and direction == main:
            tables, lines = page_structure.take_tables(visible, lines)
            table_boxes = [t.box for t in tables]
        lines = structure.split_type_sizes(structure.join_bare_bullets(lines))
        paras = _paragraphs(lines, direction, page_structure.breaks)
        if not paras and not tables:
            continue
        body = _body_height(paras) if paras else 0.0
        ordered = page_structure.place_tables(paras, tables, lambda t: _Para([], t.box, 0.0, table=t))
        texts = [join_lines([ln.text for ln in p.lines]) for p in ordered]
        levels = page_structure.heading_levels(ordered, texts, body) if direction == main else []
        made, xs = [], []
        for k, (para, text) in enumerate(zip(ordered, texts)):
            shown = para.display_box()
            box = [round(v, 2) for v in shown]
            if para.table is not None:
                block = table_block(para.table.table)
                block.bbox = box
                made.append(block)
                xs.append(box[0])
                continue
            if not text:
                continue
            if direction != main:
                kind = BlockType.ASIDE_TEXT
            elif levels and levels[k] is not None:
                kind = BlockType.TITLE
            else:
                kind = BlockType.TEXT
            # MinerU's angle turns the block counter-clockwise to upright: text reading
            # downwards (direction 270, counter-clockwise) has angle 90
            spans = page_structure.linked(text_to_spans(text), para)
            block = Block(kind, lines=[Line(spans, bbox=list(box))], bbox=box,
                          angle=(360 - direction) % 360 or None)
            if kind == BlockType.TITLE:
                block.level = levels[k]
                block.extra["type_height"] = round(para.height, 2)  # document/headings.py
            made.append(block)
            xs.append(upright(shown, direction)[0])
        blocks += structure.gather_lists(made, xs) if direction == main else made
    for i, block in enumerate(blocks):
        block.index = i
    out = TextLayerBlocks(blocks)
    if page_structure.links_cut:
        from mineru_tui.pdf.links import MAX_PAGE_LINK_CHARS

        out.cuts.append(f"page {page.number}: more than {MAX_PAGE_LINK_CHARS:,} characters under "
                        "its links; the rest of its links are left as plain text")
    return out


class TextLayerBlocks(list):
    """:func:`text_only_page`'s blocks, with ``cuts``: what a bound left out of the page, each
    a sentence for a ``content cut:`` warning."""

    def __init__(self, blocks=()):
        super().__init__(blocks)
        self.cuts: list[str] = []


def _centre_in(c, box: Box) -> bool:
    return box[0] <= c.cx <= box[2] and box[1] <= c.cy <= box[3]


def unmapped_count(page) -> int:
    """How many of the page's characters PDFium cannot map to Unicode (a font without a
    usable ToUnicode map: control codes in the text). A page with too many fails the text
    layer checks as a whole; at ``--effort low`` the rest of it can still be read, without
    them (:func:`text_only_page` with ``without_unmapped``), as MinerU's ``flash`` reads such
    a page of a document it found to be text."""
    chars = page_chars(page)
    return sum(1 for c in chars or () if c.map_error and not c.text.isspace())


def _image_share(page) -> float:
    from mineru_tui.pdf.classify import _image_rects

    w, h = page.size_pt
    best = 0.0
    for x0, y0, x1, y1 in _image_rects(page):
        area = max(0.0, min(x1, w) - max(x0, 0)) * max(0.0, min(y1, h) - max(y0, 0))
        best = max(best, area / (w * h))
    return best


def _paragraphs(lines: list[TextLine], direction: int, breaks=lambda a, b: False) -> list[_Para]:
    """Lines (in reading order) gathered into paragraphs, within the block each was read in.
    A line starting a list item starts a new one, and so does a line that ``breaks(previous
    line, line)`` says cannot continue it (a bold heading of body size right above its text)."""
    paras: list[_Para] = []
    for ln in lines:
        box = upright(ln.box, direction)
        height = ln.height or box[3] - box[1]
        home = None
        same_block = [p for p in paras[-1:] if p.block == ln.block]
        for p in ([] if structure.starts_item(ln.text) else same_block):  # an item starts anew
            if breaks(p.lines[-1], ln):
                continue
            gap = box[1] - p.box[3]
            if gap > PARAGRAPH_GAP * max(height, p.height):
                continue
            overlap = min(box[2], p.box[2]) - max(box[0], p.box[0])
            similar = abs(height - p.height) <= 0.2 * max(height, p.height)
            if gap >= -0.3 * height and overlap > 0 and similar:
                home = p
                break
        if home is None:
            paras.append(_Para([ln], box, height, ln.block))
        else:
            home.lines.append(ln)
            home.box = (min(home.box[0], box[0]), min(home.box[1], box[1]),
                        max(home.box[2], box[2]), max(home.box[3], box[3]))
            home.height = statistics.median(x.height for x in home.lines)
    return paras


def _body_height(paras: list[_Para]) -> float:
    """The line height of most of the page's text (weighted by characters)."""
    weights: dict[float, int] = {}
    for p in paras:
        key = round(p.height, 0)
        weights[key] = weights.get(key, 0) + sum(len(ln.text) for ln in p.lines)
    return max(weights, key=weights.get)
