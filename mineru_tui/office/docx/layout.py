"""The container pass: what a run of blocks becomes once all of it has been read.

The body reader hands over :class:`Piece` records (a block plus what it learned about
it); :func:`finish` attaches captions to their table or figure, gathers consecutive
list items into list blocks (continuation paragraphs included) and code paragraphs
into one code block.
"""

from __future__ import annotations

from dataclasses import dataclass

from mineru_tui.document import (Block, BlockType, Line, Span, SpanType, list_block,
                                 plain_text)


@dataclass
class Piece:
    """A block with what the container pass needs to know about it."""

    block: Block
    caption: str = ""  # "" (not a caption), "table", "figure" or "any"
    list_id: str | None = None
    used: bool = False
    indented: bool = False  # an unnumbered paragraph indented like a list's continuation
    code: bool = False  # a paragraph in a code style ("Source Code", "HTML Preformatted")


def finish(outs: list[Piece]) -> list[Block]:
    """Attach captions, then group consecutive list items into list blocks."""
    _attach_captions(outs)
    result: list[Block] = []
    current: Block | None = None
    current_id: str | None = None
    code_body: Block | None = None
    for o in outs:
        if o.used:
            continue
        if o.code:  # consecutive code paragraphs: one code block, a line each
            current = None
            lines = [Line([Span(SpanType.TEXT, "".join(s.content for s in l.spans))])
                     for l in o.block.lines]
            if code_body is None:
                code_body = Block(BlockType.CODE_BODY)
                result.append(Block(BlockType.CODE, blocks=[code_body], sub_type="code"))
            code_body.lines += lines
            continue
        code_body = None
        if (current is not None and o.indented and o.block.type == BlockType.TEXT
                and current.blocks):
            current.blocks[-1].lines += o.block.lines  # a paragraph continuing the item
            continue
        if o.list_id is not None:
            if current is None or (o.block.depth == 0 and o.list_id != current_id):
                current = list_block([])
                current_id = o.list_id
                result.append(current)
            current.blocks.append(o.block)
        else:
            current = None
            result.append(o.block)
    return result


def _captioned(o: Piece | None, kind: str) -> bool:
    """True when ``o`` is a table/figure block that has no caption yet."""
    if o is None or o.used or o.block.type != kind:
        return False
    want = BlockType.IMAGE_CAPTION if kind == BlockType.IMAGE else BlockType.TABLE_CAPTION
    return not any(b.type == want for b in o.block.blocks)


def _caption_kind(o: Piece) -> str:
    if o.caption != "any":
        return o.caption
    head = plain_text(o.block).lstrip().lower()
    if head.startswith(("table", "tab.", "tableau", "tabelle", "表")):
        return "table"
    if head.startswith(("figure", "fig.", "fig ", "image", "picture", "chart", "abbildung", "图", "図")):
        return "figure"
    return "any"


def _attach_captions(outs: list[Piece]) -> None:
    """Move caption paragraphs into the table or figure block next to them.

    A caption that names its kind ("Table 2", SEQ Figure) only goes to that kind. When
    both neighbours qualify, the side this document's unambiguous captions use wins;
    without evidence, Word's defaults: table captions above, figure captions below.
    """
    caps = [i for i, o in enumerate(outs) if o.caption and o.block.type == BlockType.TEXT]
    if not caps:
        return
    kinds = {i: _caption_kind(outs[i]) for i in caps}

    def sides(i: int) -> tuple[Piece | None, Piece | None]:
        wanted = {"table": (BlockType.TABLE,), "figure": (BlockType.IMAGE,)}.get(
            kinds[i], (BlockType.TABLE, BlockType.IMAGE))
        prev = outs[i - 1] if i > 0 else None
        nxt = outs[i + 1] if i + 1 < len(outs) else None
        prev = prev if prev is not None and any(_captioned(prev, k) for k in wanted) else None
        nxt = nxt if nxt is not None and any(_captioned(nxt, k) for k in wanted) else None
        return prev, nxt

    below = {BlockType.TABLE: 0, BlockType.IMAGE: 0}  # votes: caption after its block
    above = {BlockType.TABLE: 0, BlockType.IMAGE: 0}
    for i in caps:
        prev, nxt = sides(i)
        if prev is not None and nxt is None:
            below[prev.block.type] += 1
        elif nxt is not None and prev is None:
            above[nxt.block.type] += 1
    for i in caps:
        o = outs[i]
        prev, nxt = sides(i)
        if prev is not None and nxt is not None:
            score_prev = below[prev.block.type] - above[prev.block.type]
            score_next = above[nxt.block.type] - below[nxt.block.type]
            if score_prev == score_next:  # Word's defaults
                target = prev if prev.block.type == BlockType.IMAGE else nxt
                if prev.block.type == BlockType.TABLE and nxt.block.type == BlockType.TABLE:
                    target = nxt
            else:
                target = prev if score_prev > score_next else nxt
        else:
            target = prev or nxt
        if target is None:
            continue
        kids = target.block.blocks
        if target.block.type == BlockType.TABLE:
            o.block.type = BlockType.TABLE_CAPTION
            at = next((j for j, b in enumerate(kids) if b.type == BlockType.TABLE_BODY), 0)
        else:
            o.block.type = BlockType.IMAGE_CAPTION
            at = next((j + 1 for j, b in enumerate(kids) if b.type == BlockType.IMAGE_BODY), len(kids))
        kids.insert(at, o.block)
        o.used = True
