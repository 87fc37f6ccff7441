"""A page's text cut into blocks before its lines are formed: columns first, then rows.

Rows clustered over a whole page let a line of one column bridge two lines of the next
(their letters then interleave), and a gutter narrower than a line height joins two columns
line by line. So the page is first cut into blocks by recursive XY cuts, as MinerU's
readers order their blocks, over *pieces*: runs of glyphs drawn one after the other on one
baseline without a wide gap (a word, a line of one column, a table cell).

At each step, a gap across the whole set of pieces cuts it into columns (read left to
right; right to left on a page of right-to-left text). Without one, the pieces are cut into
bands (rows). A gutter that several bands share marks a stretch of columns: bands that
cross it (a title or a paragraph spanning the columns) end the stretch, so the stretch is
read column by column and the spanning text in its place; a band with text on one side
only goes with the band it closely follows (a column's last line) or precedes (a heading).
Each cut part is cut again; a part that cannot be cut is one block.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from operator import attrgetter

from mineru_tui.pdf.bidi_order import bidi_class
from mineru_tui.pdf.glyph_loops import loops_for

PIECE_GAP = 1.2  # a gap wider than this many font heights ends a piece
SPACED_PIECE_GAP = 2.0  # ... or this many, when the file puts a space in it (a word gap)
PIECE_BASELINE = 0.3  # baselines this many font heights apart are not one piece
BAND_GAP = 1.0  # bands closer than this many font heights are lines of one stretch
GUTTER = 0.5  # the narrowest gap, in font heights, that can separate two columns

_INDEX = attrgetter("char.index")  # a glyph's place in the page's drawing order
_TEXT = attrgetter("char.text")


@dataclass(slots=True)
class _Piece:
    glyphs: list = field(default_factory=list)
    x0: float = 0.0
    x1: float = 0.0
    top: float = 0.0  # the glyphs' cores (baseline bands), so tight leading still leaves gaps
    bottom: float = 0.0
    height: float = 0.0
    baseline: float = 0.0


@dataclass(slots=True)
class TextBlock:
    """A block of the page: its glyphs, and the side-by-side blocks it stands among.

    ``stretch`` numbers the cut that set it beside other blocks (columns of text, or of a
    table without rules), ``column`` is its place there in reading order; ``stretch`` is
    None for a block with nothing beside it.
    """

    glyphs: list
    stretch: int | None = None
    column: int = 0


def text_blocks(glyphs: list, right_to_left: bool | None = None) -> list[TextBlock]:
    """``glyphs`` (the line reader's upright glyphs) grouped into blocks in reading order.

    Columns are read right to left when ``right_to_left`` (default: when most letters are
    right-to-left ones)."""
    pieces = _pieces(glyphs)
    if not pieces:
        return []
    loops = loops_for(glyphs) if right_to_left is None else None
    counts = loops.letters(glyphs) if loops is not None else None
    if counts is not None:  # C glyphs: counted in C
        right_to_left = counts[1] > counts[2]
    elif right_to_left is None:
        r = l_ = 0
        for t, n in Counter(map(_TEXT, glyphs)).items():  # each distinct character's class once
            c = bidi_class(t)
            if c in ("R", "AL"):
                r += n
            elif c == "L":
                l_ += n
        right_to_left = r > l_
    return [TextBlock([g for p in leaf for g in p.glyphs], stretch, column)
            for leaf, stretch, column in _cut(pieces, right_to_left)]


def _pieces(glyphs: list) -> list[_Piece]:
    loops = loops_for(glyphs)
    if loops is not None:  # glyphs made in C: the same pieces in C
        made = loops.pieces(glyphs)
        if made is not None:
            return made
    # written out (comparisons for min and max, fields in locals): this runs for every
    # glyph of the page
    pieces: list[_Piece] = []
    current: _Piece | None = None
    spaced = False  # the file has a space between this glyph and the one before
    for g in sorted(glyphs, key=_INDEX):
        if g.space:
            if current is not None:
                current.glyphs.append(g)
                spaced = spaced or not g.char.generated
            continue
        h = g.height
        left, _, right, _ = g.loose
        if current is not None:
            ch = current.height
            near = h if h > ch else ch  # max(current.height, h)
            gap = left - current.x1
            other = current.x0 - right
            if other > gap:
                gap = other
            if 0.0 > gap:
                gap = 0.0  # max(gap, other, 0.0)
            wide = (SPACED_PIECE_GAP if spaced else PIECE_GAP) * near
            spaced = False
            if abs(g.baseline - current.baseline) <= PIECE_BASELINE * near and gap <= wide:
                current.glyphs.append(g)
                x0, x1, top, bottom = current.x0, current.x1, g.top, g.bottom
                current.x0 = left if left < x0 else x0  # min(x0, left)
                current.x1 = right if right > x1 else x1  # max(x1, right)
                if top < current.top:
                    current.top = top
                if bottom > current.bottom:
                    current.bottom = bottom
                current.height = near
                current.baseline = g.baseline
                continue
        current = _Piece([g], left, right, g.top, g.bottom, h, g.baseline)
        pieces.append(current)
    return pieces


def _split(pieces: list[_Piece], vertical: bool, min_gap: float) -> list[list[_Piece]]:
    """Pieces split where a gap of at least ``min_gap`` runs across all of them: along x
    (columns) when ``vertical``, else along y (bands)."""
    if vertical:
        items = sorted(pieces, key=lambda p: p.x0)
        groups, end = [[items[0]]], items[0].x1
        for p in items[1:]:
            if p.x0 - end >= min_gap:
                groups.append([p])
            else:
                groups[-1].append(p)
            end = max(end, p.x1)
        return groups
    items = sorted(pieces, key=lambda p: p.top)
    groups, end = [[items[0]]], items[0].bottom
    for p in items[1:]:
        if p.top > end:
            groups.append([p])
        else:
            groups[-1].append(p)
        end = max(end, p.bottom)
    return groups


def _gaps(band: list[_Piece], min_gap: float) -> list[tuple[float, float]]:
    items = sorted(band, key=lambda p: p.x0)
    out, end = [], items[0].x1
    for p in items[1:]:
        if p.x0 - end >= min_gap:
            out.append((end, p.x0))
        end = max(end, p.x1)
    return out


def _gutter(gaps: list[list[tuple[float, float]]], min_gap: float) -> tuple[float, float] | None:
    """The gap shared by the most bands (at least two), narrowed to what they all leave free."""
    best, best_count = None, 1
    seen = set()
    for own in gaps:
        for a, b in own:
            key = (round(a), round(b))
            if key in seen:  # a table's rows share their gaps: count each once
                continue
            seen.add(key)
            lo, hi, count = a, b, 0
            for other in gaps:
                for c, d in other:
                    if min(hi, d) - max(lo, c) >= min_gap:
                        lo, hi, count = max(lo, c), min(hi, d), count + 1
                        break
            if count > best_count or (count == best_count and best and hi - lo > best[1] - best[0]):
                best, best_count = (lo, hi), count
    return best


def _cut(pieces: list[_Piece], rtl: bool) -> list[tuple[list[_Piece], int | None, int]]:
    """The pieces' blocks in reading order, each with its (stretch, column) place.

    Each part is cut again until it cannot be; the parts wait on an explicit stack (a
    staircase of hundreds of levels would pass Python's recursion limit), taken in the
    order a depth-first walk reads them, so stretches are numbered as they are met."""
    loops = loops_for(pieces[0].glyphs) if type(pieces) is list and pieces else None
    if loops is not None:  # pieces of glyphs made in C: the same cut in C
        made = loops.cut(pieces, rtl)
        if made is not None:
            return made
    out: list[tuple[list[_Piece], int | None, int]] = []
    stretches = 0
    stack: list[tuple[list[_Piece], tuple[int | None, int]]] = [(pieces, (None, 0))]
    while stack:
        part, place = stack.pop()
        cut = _cut_once(part, rtl)
        if cut is None:
            out.append((part, *place))
            continue
        parts, are_columns = cut
        if are_columns:
            children = [(c, (stretches, k)) for k, c in enumerate(parts)]
            stretches += 1
        else:
            children = [(g, place) for g in parts]
        stack.extend(reversed(children))
    return out


def _cut_once(pieces: list[_Piece], rtl: bool) -> tuple[list[list[_Piece]], bool] | None:
    """One cut of ``pieces``: ``(parts, True)`` for columns side by side, ``(parts, False)``
    for stretches one above the other, None when they are one block."""
    if len(pieces) <= 1:
        return None
    heights = sorted(p.height for p in pieces)
    min_gap = GUTTER * heights[len(heights) // 2]
    columns = _split(pieces, True, min_gap)
    if len(columns) > 1:
        if rtl:
            columns.reverse()
        return columns, True
    bands = _split(pieces, False, 0.0)
    if len(bands) == 1:
        return None
    gutter = _gutter([_gaps(b, min_gap) for b in bands], min_gap)
    if gutter is None:
        return None  # one column: a single block
    lo, hi = gutter
    # bands with text across the gutter end a stretch of columns; runs of either kind
    # are cut again on their own
    kinds: list[str | None] = []
    for band in bands:
        if any(p.x0 < hi and p.x1 > lo for p in band):
            kinds.append("cross")
        elif any(p.x1 <= lo for p in band) and any(p.x0 >= hi for p in band):
            kinds.append("split")
        else:
            kinds.append(None)  # text on one side only
    # text on one side goes with the band it follows closely (the last line of a column,
    # a paragraph's short last line), else with the band it closely precedes (a heading),
    # else it stands alone
    close = heights[len(heights) // 2] * BAND_GAP
    tops = [min(p.top for p in b) for b in bands]
    bottoms = [max(p.bottom for p in b) for b in bands]
    i = 0
    while i < len(kinds):
        if kinds[i] is not None:
            i += 1
            continue
        j = i  # a run of one-sided bands i..j-1, taken together
        while j < len(kinds) and kinds[j] is None:
            j += 1
        if i > 0 and tops[i] - bottoms[i - 1] <= close:
            kind = kinds[i - 1]
        elif j < len(kinds) and tops[j] - bottoms[j - 1] <= close:
            kind = kinds[j]
        else:
            kind = "cross"
        kinds[i:j] = [kind] * (j - i)
        i = j
    groups: list[list[_Piece]] = []
    kind_prev = None
    for band, kind in zip(bands, kinds):
        if groups and kind == kind_prev:
            groups[-1].extend(band)
        else:
            groups.append(list(band))
        kind_prev = kind
    if len(groups) == 1:
        return None
    return groups, False
