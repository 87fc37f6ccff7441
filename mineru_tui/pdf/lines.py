"""Characters into lines, lines into text: one line reader for the whole text path.

Public shape (what ``--effort low``, the default effort's text blocks and the structure
reading built on top use):

* :func:`page_lines` ``(chars, direction=None) -> list[TextLine]``: a page's lines in reading
  order. The page is first cut into blocks by recursive XY cuts (:mod:`.columns`: columns
  before rows), then rows are formed inside each block. Each :class:`TextLine` has ``text``,
  ``box`` (display-frame points, origin top left), ``block`` (the block it was read in,
  numbered in reading order), ``stretch`` and ``column`` (the side-by-side blocks it stands
  among, and its place there), ``height`` (font height of its text), ``size`` (font size in
  points), ``bold``, ``italic``, ``rtl`` and ``chars`` (in reading order).
* :func:`build_lines` ``(chars) -> list[TextLine]``: the lines of one layout block (no cuts).
* :func:`join_lines` ``(texts) -> str``: a block's lines as one paragraph.

The rules, MinerU 4.0.12's where it has them:

* Characters are read in their own direction: a block whose text runs upwards (a rotated
  table label, a margin note) is turned upright before lines are formed.
* A character joins a line when their cores overlap: the band from the glyph's baseline up
  to half its font height, so lines set with tight leading stay apart (loose font boxes
  overlap there) while raised and lowered scripts stay on their line. Lines run top to
  bottom. Tall blocks of upright CJK characters are vertical writing, read as columns, right
  to left.
* Within a line, characters run left to right; a line of right-to-left text is put back into
  reading order by the Unicode bidirectional algorithm (:mod:`.bidi_order`).
* A glyph drawn again over itself by another text object (fake bold) is read once.
* A space goes where the PDF has one (unless the glyphs touch), where the gap between
  glyphs exceeds a quarter of the median glyph width, and between a right-to-left letter
  and a Latin one. Smaller glyphs above/below the
  baseline become ``<sup>``/``<sub>`` runs (MinerU writes the same tags).
* Ligatures are expanded, PDFium's soft hyphen (U+0002) becomes ``-``, spacing accents drawn
  over a letter are composed with it, Arabic presentation forms become plain letters.
* Lines are joined with one space, except a word hyphenated at a line end (joined without
  the hyphen), digit ranges, URLs and CJK text (joined without a space).
"""

from __future__ import annotations

import bisect
import functools
import re
import statistics
import unicodedata
from dataclasses import dataclass
from operator import attrgetter, itemgetter

from mineru_tui.pdf.bidi_order import bidi_class, is_rtl_char, logical_order, mirrored, rtl_base
from mineru_tui.pdf import glyph_loops
from mineru_tui.pdf.chars import MAX_TILT, STANDARD_TOLERANCE, Box, Char
from mineru_tui.pdf.glyph_loops import loops_for

LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
             "\ufb05": "ft", "\ufb06": "st"}
# Spacing accents and the combining marks they become when drawn over a letter.
SPACING_ACCENTS = {"\u00a8": "\u0308", "\u00b4": "\u0301", "`": "\u0300", "\u02c6": "\u0302",
                   "^": "\u0302", "\u02dc": "\u0303", "~": "\u0303", "\u00b8": "\u0327",
                   "\u02da": "\u030a", "\u02c7": "\u030c", "\u00af": "\u0304", "\u02d8": "\u0306",
                   "\u02d9": "\u0307", "\u02dd": "\u030b", "\u02db": "\u0328"}
LINE_END_HYPHENS = "-\u00ad\u2010\u2011\u2043\x02"
# Hyphenated prefixes MinerU keeps at a line end ("self-" + "aware" -> "self-aware").
KEEP_HYPHEN_WORDS = {"open", "non", "self", "cross", "anti", "pre", "post", "co", "semi",
                     "multi", "quasi"}

LINE_OVERLAP = 0.3  # share of the smaller core two glyphs must share to be one line
CORE = 0.5  # a glyph's core: from the baseline up this share of its font height
SPACE_GAP = 0.25  # gap, in median glyph widths, that counts as a space
SPACE_TOUCH = 0.02  # glyphs closer than this (median glyph widths) touch: no space between
SCRIPT_SIZE = 0.85  # glyphs smaller than this share of the line's size may be scripts


def is_private_use(ch: str) -> bool:
    return "\ue000" <= ch <= "\uf8ff"


def is_cjk(ch: str) -> bool:
    o = ord(ch)
    return (0x3040 <= o <= 0x30FF or 0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF
            or 0xF900 <= o <= 0xFAFF or 0xAC00 <= o <= 0xD7AF or 0x20000 <= o <= 0x2FA1F
            or 0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFFEF)


def _is_han_kana(ch: str) -> bool:
    """Chinese or Japanese script (not Hangul, which spaces its words)."""
    return bool(ch) and is_cjk(ch[-1]) and not 0xAC00 <= ord(ch[-1]) <= 0xD7AF


def upright(box: Box, direction: int) -> Box:
    """``box`` in a frame turned so that text running in ``direction`` (display degrees,
    counter-clockwise) reads left to right, lines going down."""
    x0, y0, x1, y1 = box
    if direction == 90:  # text runs up: x' = -v, y' = u
        return (-y1, x0, -y0, x1)
    if direction == 180:
        return (-x1, -y1, -x0, -y0)
    if direction == 270:  # text runs down: x' = v, y' = -u
        return (y0, -x1, y1, -x0)
    return box


def _upright_point(p: tuple[float, float], direction: int) -> tuple[float, float]:
    return upright((p[0], p[1], p[0], p[1]), direction)[:2]


@dataclass
class TextLine:
    """A line of characters in reading order; ``box`` is in the display frame.

    ``chars`` are in logical order (right-to-left runs put back in reading order), ``text``
    is the line's text after MinerU's rules. ``height`` is the font height (loose boxes) of
    its text (not of one big symbol), ``size`` the font size in points of its body text,
    ``bold``/``italic`` whether most of its letters are bold/italic. ``block`` numbers the
    part of the page the line was read in (:func:`page_lines`: a column of a stretch, in
    reading order; 0 for a layout block's lines); ``stretch`` numbers the cut that set that
    block beside others (columns of text, or of a table without rules; None when nothing
    stands beside it) and ``column`` is the block's place there; ``rtl`` marks a line whose
    base direction is right to left.
    """

    chars: list[Char]
    box: Box
    direction: int
    text: str = ""
    height: float = 0.0
    size: float = 0.0
    bold: bool = False
    italic: bool = False
    block: int = 0
    stretch: int | None = None
    column: int = 0
    rtl: bool = False


@dataclass(slots=True)
class _Glyph:
    char: Char
    box: Box  # upright frame
    loose: Box
    baseline: float
    top: float = 0.0  # the glyph's core: from half a font height above the baseline
    bottom: float = 0.0  # to just below it; rows are clustered on this, not on loose boxes
    height: float = 0.0  # the loose box's height (a field: the line reader asks often)
    # asked of every glyph several times, so worked out once when it is made:
    space: bool = False  # its text is white space
    row_key: tuple = ()  # (bottom, left): the order rows are gathered in
    visual_key: tuple = ()  # the order along its line (:func:`_visual_key`)


# C-level field readers: ``min(map(_TOP, row))`` runs without a Python frame per glyph
_TOP, _BOTTOM, _HEIGHT = attrgetter("top"), attrgetter("bottom"), attrgetter("height")
_BOX, _LOOSE, _BASELINE = attrgetter("box"), attrgetter("loose"), attrgetter("baseline")
_ROW_KEY, _VISUAL_KEY = attrgetter("row_key"), attrgetter("visual_key")
_TEXT, _SIZE = attrgetter("char.text"), attrgetter("char.size")
_BOLD, _ITALIC = attrgetter("bold"), attrgetter("italic")  # of a Char
_X0, _Y0, _X1, _Y1 = itemgetter(0), itemgetter(1), itemgetter(2), itemgetter(3)


def compiled_lines():
    """The C glyph loops (:mod:`._lineloop`, built by ``pip install``), set up with this
    module's rules, or None when they were not built or ``MINERU_TUI_PURE_LINES=1`` asks for
    the Python loops. Both give equal lines (``tests/pdf/test_line_loop.py``)."""
    import os

    if os.environ.get("MINERU_TUI_PURE_LINES") == "1":
        return None
    return _compiled()


@functools.cache
def _compiled():
    loop = glyph_loops.loops
    if loop is None:  # built where a C compiler was found (setup.py): optional
        return None
    from mineru_tui.pdf import columns

    loop.setup(Char, bidi_class, unicodedata.combining, LIGATURES, columns._Piece,
               (MAX_TILT, CORE, LINE_OVERLAP, columns.PIECE_GAP, columns.SPACED_PIECE_GAP,
                columns.PIECE_BASELINE, STANDARD_TOLERANCE, SCRIPT_SIZE, SPACE_GAP, SPACE_TOUCH,
                columns.GUTTER, columns.BAND_GAP))
    return loop


def _glyphs(chars: list[Char], direction: int) -> list[_Glyph]:
    """The glyphs of the ``chars`` running in ``direction`` (tilted by at most MAX_TILT), in
    the upright frame, without those drawn again over themselves by another text object.

    Fake bold is often made by drawing a run twice, a hair apart or at the very same spot;
    PDFium drops a repeat only among the last few characters of one line, so a run redrawn
    piece by piece later on the page ("SSpeciiffiies tthhatt" in IBM's Redpaper figures)
    comes through doubled. A character is a repeat when an earlier one (of any direction)
    from another text object has the same text and its origin lies within PDFium's own
    distance (0.07 of the font size) across and along. Characters of one object (the letters
    of a ligature share a box) are never repeats of each other.
    """
    loop = compiled_lines()
    if loop is not None:  # the same glyphs (as _lineloop.Glyph), unless the input is odd
        made = loop.glyphs(chars, direction) if type(chars) is list else None
        if made is not None:
            return made
    # one pass, written out: this runs for every character of the page
    seen: dict[tuple[str, int, int], list[Char]] = {}  # kept characters by (text, 4-pt cell)
    get = seen.get
    out: list[_Glyph] = []
    add = out.append
    make = _Glyph
    for c in chars:
        text, obj = c.text, c.text_object
        space = text.isspace()
        if obj and not space:
            size = c.size
            near = 0.07 * (1.0 if 1.0 > size else size)  # max(size, 1.0), NaN kept as max does
            x, y = c.origin
            # 4-pt cells: a repeat within 2 pt lies in this cell or the next one on the side
            # of the cell's middle the character is on (all cells around for type over 28 pt)
            fx, fy = x / 4, y / 4
            kx, ky = int(fx // 1), int(fy // 1)
            if near <= 2:
                kx2 = kx + 1 if fx - kx >= 0.5 else kx - 1
                ky2 = ky + 1 if fy - ky >= 0.5 else ky - 1
                own = get((text, kx, ky))  # this character's own cell
                b, d, e = get((text, kx, ky2)), get((text, kx2, ky)), get((text, kx2, ky2))
                if (own or b or d or e) and _repeats((own, b, d, e), c, x, y, near):
                    continue
            else:
                found = [get((text, i, j)) for i in (kx - 1, kx, kx + 1) for j in (ky - 1, ky, ky + 1)]
                own = found[4]
                if any(found) and _repeats(found, c, x, y, near):
                    continue
            if own is None:
                seen[(text, kx, ky)] = [c]
            else:
                own.append(c)
        if c.direction != direction or c.tilt > MAX_TILT:
            continue
        if direction == 0:  # most pages: the display frame is already upright
            box, loose, baseline = c.box, c.loose, c.origin[1]
        else:
            box, loose = upright(c.box, direction), upright(c.loose, direction)
            baseline = _upright_point(c.origin, direction)[1]
        h = loose[3] - loose[1]
        if h <= 0:
            h = max(box[3] - box[1], 1e-3)
            loose = (loose[0], box[1], loose[2], box[3])
        if not loose[1] - 0.1 * h <= baseline <= loose[3] + 0.1 * h:
            baseline = loose[3] - 0.2 * h  # no usable origin: the usual descent
        # x-height glyphs, accents and dots all sit on the baseline: a core from the
        # baseline up to half the font height keeps lines apart however tight the leading
        bottom = baseline + 0.1 * h
        x = (box[0] + box[2]) / 2
        if text >= _RTL_FIRST and is_rtl_char(text):  # no right-to-left letter before Hebrew
            visual = (x, 0 if text in _ALEFS else 1, -c.index)
        else:
            visual = (x, 0, c.index)
        add(make(c, box, loose, baseline, baseline - CORE * h, bottom, loose[3] - loose[1],
                 space, (bottom, box[0]), visual))
    return out


def _repeats(buckets, c: Char, x: float, y: float, near: float) -> bool:
    """Whether a character in ``buckets`` (earlier ones of ``c``'s text in the cells around
    it), of another text object and the same direction, has its origin within ``near``."""
    obj, direction = c.text_object, c.direction
    for bucket in buckets:
        if bucket:
            for o in bucket:
                ox, oy = o.origin
                if (o.text_object != obj and o.direction == direction
                        and abs(ox - x) < near and abs(oy - y) < near):
                    return True
    return False


def dominant_direction(chars: list[Char]) -> int:
    """The direction most non-space characters run in (0 when there are none)."""
    counts: dict[int, int] = {}
    for c in chars:
        if not c.text.isspace():
            counts[c.direction] = counts.get(c.direction, 0) + 1
    return max(counts, key=lambda d: (counts[d], d == 0)) if counts else 0


def build_lines(chars: list[Char], direction: int | None = None,
                box: Box | None = None, split_gap: float | None = None) -> list[TextLine]:
    """Group ``chars`` (one layout block's) into lines in reading order.

    Characters running in another direction than ``direction`` (default: the dominant one)
    are left out, as are those tilted by more than ``MAX_TILT`` and lines made only of
    tilted characters (a diagonal watermark, not faux italics). Upright CJK glyphs standing
    in columns are vertical writing, read right to left. ``box`` (the block, display frame)
    is accepted for callers and unused: vertical writing is recognised from the glyphs. With
    ``split_gap``, a line is cut where the gap between two glyphs exceeds ``split_gap``
    times the line's height. A whole page is better read with :func:`page_lines`, which
    finds its columns first.
    """
    if direction is None:
        direction = dominant_direction(chars)
    glyphs = _glyphs(chars, direction)
    solid = [g for g in glyphs if not g.space]
    if len(solid) >= 3 and direction == 0 and _is_vertical(solid):
        return _columns(solid, direction)
    return _lines(glyphs, direction, split_gap)


def page_lines(chars: list[Char], direction: int | None = None) -> list[TextLine]:
    """A page's lines in reading order, each with the ``block`` it was read in.

    The page's text is first cut into blocks by recursive XY cuts over its text pieces
    (runs of glyphs drawn one after the other on one baseline, so a line of one column never
    bridges two lines of another): columns are found before rows, a stretch where several
    lines in a row share a gutter is read column by column (right to left on a page of
    right-to-left text), and a line that spans the gutter ends the stretch. Lines are then
    formed inside each block as :func:`build_lines` forms them. Characters running in
    another direction than ``direction`` (default: the dominant one) are left out.
    """
    from mineru_tui.pdf.columns import text_blocks

    if direction is None:
        direction = dominant_direction(chars)
    glyphs = _glyphs(chars, direction)
    solid = [g for g in glyphs if not g.space]
    if not solid:
        return []
    # vertical writing reads its columns right to left; a horizontal running head or page
    # number on such a page is a block of its own, read as a line
    vertical = len(solid) >= 3 and direction == 0 and _is_vertical(solid)
    out: list[TextLine] = []
    for n, block in enumerate(text_blocks(glyphs, right_to_left=vertical or None)):
        block_solid = [g for g in block.glyphs if not g.space] if vertical else []
        if vertical and block_solid and _is_vertical(block_solid):
            lines = _columns(block_solid, direction)
        else:
            lines = _lines(block.glyphs, direction, None)
        for line in lines:
            line.block, line.stretch, line.column = n, block.stretch, block.column
            out.append(line)
    return out


def _lines(glyphs: list[_Glyph], direction: int, split_gap: float | None) -> list[TextLine]:
    rows = None
    loops = loops_for(glyphs)
    if loops is not None:  # glyphs made in C: the same rows formed in C
        rows = loops.rows(glyphs, split_gap)
    if rows is None:
        rows = _ordered_rows(glyphs, split_gap)
    lines = []
    for r in rows:
        line = _make_line(r, direction)
        if line.text:
            lines.append(line)
    return lines


def _ordered_rows(glyphs: list[_Glyph], split_gap: float | None) -> list[list[_Glyph]]:
    """The rows of :func:`_lines` in reading order, each left to right, its spaces placed."""
    solid = [g for g in glyphs if not g.space]
    solid.sort(key=_ROW_KEY)  # by (bottom, left)
    spaces = [g for g in glyphs if g.space]
    rows = _rows(solid)
    rows = [r for r in rows if any(g.char.tilt <= STANDARD_TOLERANCE for g in r)]
    cores = [(min(map(_TOP, r)), max(map(_BOTTOM, r))) for r in rows]
    order = sorted(range(len(rows)), key=lambda k: cores[k][0])
    rows = [rows[k] for k in order]
    cores = [cores[k] for k in order]
    extents = None  # the rows' loose extents, for the few spaces no core holds
    tops = [c[0] for c in cores]
    for g in spaces:  # a space goes to the line whose baseline band holds its baseline
        home = None
        # rows are ordered by their cores' tops: only a few around the space can hold it
        k = bisect.bisect_right(tops, g.baseline + 0.25 * g.height)
        for j in range(max(0, k - 4), min(len(rows), k + 1)):
            ctop, cbottom = cores[j]
            if ctop - 0.25 * g.height <= g.baseline <= cbottom + 0.25 * g.height:
                home = rows[j]
                break
        if home is None:
            if extents is None:
                extents = [(min(map(_Y0, map(_LOOSE, r))), max(map(_Y1, map(_LOOSE, r))))
                           for r in rows]
            cy = (g.loose[1] + g.loose[3]) / 2
            for j in range(max(0, k - 4), min(len(rows), k + 1)):
                if extents[j][0] <= cy <= extents[j][1]:
                    home = rows[j]
                    break
        if home is not None:
            home.append(g)
    for r in rows:
        r.sort(key=_VISUAL_KEY)
    if split_gap is not None:
        rows = [piece for r in rows for piece in _split_row(r, split_gap)]
    return sorted(rows, key=lambda r: (min(map(_BOTTOM, r)), min(map(_X0, map(_BOX, r)))))


_ALEFS = "\u0627\u0623\u0625\u0622\u0671"


def _make_line(row: list[_Glyph], direction: int) -> TextLine:
    loops = loops_for(row)
    if loops is not None:  # glyphs made in C: a row of plain text made a line in C
        made = loops.line(row)
        if made is not None:
            cs, box, text, height, size, bold, italic = made
            return TextLine(cs, box, direction, text, height, size, bold, italic)
    solid = [g for g in row if not g.space]
    main, body, (text, order, rtl) = _line_text(row, solid)
    cs = [row[i].char for i in order]
    boxes = [c.box for c in cs if not c.text.isspace()] or [c.box for c in cs]
    line = TextLine(cs, _union(boxes), direction, text, rtl=rtl)
    if solid:
        line.height = main
        sizes = sorted(map(_SIZE, body))
        line.size = sizes[len(sizes) // 2]
        letters = [g.char for g in body if g.char.text.isalnum()] or [g.char for g in body]
        line.bold = sum(map(_BOLD, letters)) * 2 > len(letters)
        line.italic = sum(map(_ITALIC, letters)) * 2 > len(letters)
    return line


def _main_height(solid: list[_Glyph]) -> float:
    """The font height of a line's text: the largest that at least a quarter of its glyphs
    reach, so one big glyph (a checkbox, a symbol) does not make the rest look small."""
    heights = sorted(map(_HEIGHT, solid))
    need = max(1, len(heights) // 4)
    for h in reversed(heights):  # tallest first
        if len(heights) - bisect.bisect_left(heights, 0.95 * h) >= need:
            return h
    return heights[-1]


def _median(values) -> float:
    """``statistics.median``, without its checks (a line reader's hot path)."""
    data = sorted(values)
    n = len(data)
    if n % 2:
        return data[n // 2]
    return (data[n // 2 - 1] + data[n // 2]) / 2


def _split_row(row: list[_Glyph], split_gap: float) -> list[list[_Glyph]]:
    solid = [g for g in row if not g.space]
    if not solid:
        return []
    height = max(map(_HEIGHT, solid))
    pieces, prev = [[]], None
    for g in row:
        if g.space:
            pieces[-1].append(g)
            continue
        if prev is not None and g.loose[0] - prev.loose[2] > split_gap * height:
            pieces.append([])
        pieces[-1].append(g)
        prev = g
    return [p for p in pieces if any(not g.space for g in p)]


def _overlap(lo: float, hi: float, ext: list[float]) -> float:
    """How much [lo, hi] and ``ext`` overlap, as a share of the shorter of the two."""
    return (min(hi, ext[1]) - max(lo, ext[0])) / max(min(hi - lo, ext[1] - ext[0]), 1e-6)


def _group_overlapping(glyphs, extent) -> list[tuple[list[_Glyph], list[float]]]:
    """Glyphs, in the order given, each joined to the recent group whose extent (``extent(g)``
    gives a glyph's (lo, hi)) it overlaps most beyond LINE_OVERLAP, else starting a group;
    each group with its extent."""
    groups: list[tuple[list[_Glyph], list[float]]] = []
    for g in glyphs:
        lo, hi = extent(g)
        best, best_score = None, LINE_OVERLAP
        for members, ext in groups[-4:]:  # only recent groups can still overlap
            e0, e1 = ext
            # _overlap, inlined: this runs for every glyph against up to four groups
            shorter = hi - lo if hi - lo < e1 - e0 else e1 - e0
            score = ((hi if hi < e1 else e1) - (lo if lo > e0 else e0)) / (
                shorter if shorter > 1e-6 else 1e-6)
            if score > best_score:
                best, best_score = (members, ext), score
        if best is None:
            groups.append(([g], [lo, hi]))
        else:
            best[0].append(g)
            best[1][0], best[1][1] = min(best[1][0], lo), max(best[1][1], hi)
    return groups


def _core_groups(glyphs: list[_Glyph]) -> list[tuple[list[_Glyph], list[float]]]:
    """:func:`_group_overlapping` over the glyphs' cores (``top``, ``bottom``), written out:
    it runs for every glyph of the page. A group the glyph does not overlap at all (a line
    above it, the common case) is passed over before the share is worked out; its share
    could not have passed LINE_OVERLAP."""
    loops = loops_for(glyphs)
    if loops is not None:  # glyphs made in C: the same groups in C
        made = loops.core_groups(glyphs)
        if made is not None:
            return made
    groups: list[tuple[list[_Glyph], list[float]]] = []
    for g in glyphs:
        lo, hi = g.top, g.bottom
        best, best_score = None, LINE_OVERLAP
        for group in groups[-4:]:  # only recent groups can still overlap
            e0, e1 = group[1]
            if e1 <= lo or e0 >= hi:
                continue
            shorter = hi - lo if hi - lo < e1 - e0 else e1 - e0
            score = ((hi if hi < e1 else e1) - (lo if lo > e0 else e0)) / (
                shorter if shorter > 1e-6 else 1e-6)
            if score > best_score:
                best, best_score = group, score
        if best is None:
            groups.append(([g], [lo, hi]))
        else:
            best[0].append(g)
            ext = best[1]
            e0, e1 = ext
            ext[0] = lo if lo < e0 else e0  # min(e0, lo)
            ext[1] = hi if hi > e1 else e1  # max(e1, hi)
    return groups


def _rows(glyphs: list[_Glyph]) -> list[list[_Glyph]]:
    """Glyphs sorted by baseline grouped where their cores (baseline bands) overlap."""
    groups = _core_groups(glyphs)
    # a raised glyph met before its line (a numerator, a footnote mark) may have started a
    # group of its own that the line then passed by: such groups join the line they overlap
    merged: list[tuple[list[_Glyph], list[float]]] = []
    for members, ext in sorted(groups, key=lambda m: m[1][1]):
        for other in reversed(merged[-4:]):
            if _overlap(ext[0], ext[1], other[1]) > LINE_OVERLAP:
                other[0].extend(members)
                other[1][0], other[1][1] = min(other[1][0], ext[0]), max(other[1][1], ext[1])
                break
        else:
            merged.append((members, ext))
    return _join_scripts([m for m, _ in merged])


def _join_scripts(rows: list[list[_Glyph]]) -> list[list[_Glyph]]:
    """A row of small glyphs set off the baseline of the row next to it (a subscript
    lowered further than its core reaches, a raised exponent) joins that row when it lies
    within the row's width."""
    if len(rows) < 2:
        return rows
    facts = []
    for r in rows:
        baselines = sorted(map(_BASELINE, r))
        loose = list(map(_LOOSE, r))
        facts.append((_main_height(r), baselines[len(baselines) // 2],
                      min(map(_X0, loose)), max(map(_X1, loose))))
    order = sorted(range(len(rows)), key=lambda k: facts[k][1])
    gone = set()
    for pos, k in enumerate(order):
        h, base, x0, x1 = facts[k]
        best = None
        for near in (pos - 1, pos + 1):
            if not 0 <= near < len(order) or order[near] in gone:
                continue
            j = order[near]
            hj, bj, xj0, xj1 = facts[j]
            if (h <= SCRIPT_SIZE * hj and abs(base - bj) <= 0.5 * hj
                    and x0 >= xj0 - 0.5 * hj and x1 <= xj1 + 0.5 * hj):
                if best is None or abs(base - bj) < abs(base - facts[best][1]):
                    best = j
        if best is not None:
            rows[best].extend(rows[k])
            gone.add(k)
    return [r for k, r in enumerate(rows) if k not in gone]


def _cluster_x(glyphs: list[_Glyph]) -> list[list[_Glyph]]:
    """Glyphs sorted by x grouped where their horizontal extents overlap (columns)."""
    ordered = sorted(glyphs, key=lambda g: (g.box[0], g.box[1]))
    return [m for m, _ in _group_overlapping(ordered, lambda g: (g.box[0], g.box[2]))]


def _is_vertical(glyphs: list[_Glyph]) -> bool:
    """CJK glyphs standing in tall narrow columns, far apart across each row: vertical
    writing (MinerU reads a block as vertical when most of its lines are > 2 times taller
    than wide)."""
    loops = loops_for(glyphs)
    counts = loops.letters(glyphs) if loops is not None else None
    if counts is not None:  # C glyphs: counted in C
        if counts[0] < 0.5 * len(glyphs):
            return False
    else:
        texts = list(map(_TEXT, glyphs))
        if texts and max(texts) < "\u3000":  # no CJK at all (none comes before U+3000)
            return False
        if sum(is_cjk(t) for t in texts if t >= "\u3000") < 0.5 * len(glyphs):
            return False
    rows = _rows(sorted(glyphs, key=lambda g: (g.bottom, g.box[0])))
    widths = sorted(g.box[2] - g.box[0] for g in glyphs)
    char_w = max(widths[len(widths) // 2], 1e-6)
    gaps = []
    for r in rows:
        r = sorted(r, key=lambda g: g.box[0])
        gaps += [b.box[0] - a.box[2] for a, b in zip(r, r[1:])]
    if gaps and statistics.median(gaps) < char_w:
        return False
    cols = _cluster_x(glyphs)
    ratios = [(max(g.box[3] for g in c) - min(g.box[1] for g in c))
              / max(max(g.box[2] for g in c) - min(g.box[0] for g in c), 1e-6) for c in cols]
    return statistics.median(ratios) > 2.0


def _columns(glyphs: list[_Glyph], direction: int) -> list[TextLine]:
    cols = _cluster_x(glyphs)
    lines = []
    for col in sorted(cols, key=lambda c: -max(g.box[2] for g in c)):  # right to left
        col.sort(key=lambda g: (g.box[1], g.char.index))
        cs = [g.char for g in col]
        sizes = sorted(c.size for c in cs)
        lines.append(TextLine(cs, _union([c.box for c in cs]), direction,
                              _clean("".join(c.text for c in cs)),
                              max(g.loose[2] - g.loose[0] for g in col), sizes[len(sizes) // 2],
                              sum(c.bold for c in cs) * 2 > len(cs)))
    return [ln for ln in lines if ln.text]


def _union(boxes: list[Box]) -> Box:
    return (min(map(_X0, boxes)), min(map(_Y0, boxes)), max(map(_X1, boxes)), max(map(_Y1, boxes)))


def _line_text(row: list[_Glyph], solid: list[_Glyph]):
    """One line's text from its glyphs left to right (``solid``: those that are not spaces):
    spaces from the PDF and from gaps, scripts tagged, right-to-left runs in reading order,
    cleaned. Returns ``(main height, body glyphs, (text, order, rtl))``: the line's font
    height (:func:`_main_height`) and its glyphs of that size (not scripts), its text, the
    glyphs' reading order (indices into ``row``) and whether the line reads right to left."""
    if not solid:
        return 0.0, solid, ("", list(range(len(row))), False)
    main = _main_height(solid)
    body = [g for g in solid if g.height >= SCRIPT_SIZE * main] or solid
    baseline = _median(map(_BASELINE, body))
    width = _median([1e-3 if 1e-3 > w else w  # max(w, 1e-3)
                     for w in [g.loose[2] - g.loose[0] for g in body]])
    parts: list[tuple[str, str, int]] = []  # (text, script, index in row or -1 for a space)
    add = parts.append
    right = None  # right edge of the glyphs so far (an accent may end before its letter)
    base_of: dict[int, int] = {}  # a combining mark's index in row -> its letter's
    space = ""  # "pdf" for a space in the file, "generated" for one PDFium added
    scripts = accents = False  # whether any part is a script / a spacing accent
    small, sup, sub = SCRIPT_SIZE * main, baseline - 0.2 * main, baseline + 0.1 * main
    spaced, touch = SPACE_GAP * width, SPACE_TOUCH * width
    last = ""  # the text of the last part that is not a space ("" before the first)
    rtl_first, accent_marks = _RTL_FIRST, SPACING_ACCENTS  # (locals: asked per glyph)
    for i, g in enumerate(row):
        c = g.char
        text = c.text
        if g.space:
            if right is not None and space != "pdf":
                space = "generated" if c.generated else "pdf"
            continue
        # (no combining mark comes before U+0300)
        if text >= "\u0300" and unicodedata.combining(text) and parts:
            # a mark drawn over its letter (Arabic vowels, tanween): no space, no gap; it
            # goes with the letter it overlaps most, whichever side of it it was sorted to
            add((text, parts[-1][1], i))
            last = text
            base_of[i] = _mark_base(row, i)
            continue
        script = ""
        if g.height < small:
            if g.baseline < sup:
                script = "sup"
            elif g.baseline > sub:
                script = "sub"
        if right is not None:
            gap = g.loose[0] - right
            # PDFium adds spaces between text objects; geometry decides whether they are
            # real. A space of the file between two glyphs that touch is none either (Word
            # writes one inside Arabic words with a tanween).
            # Between Chinese or Japanese characters only the file's own spaces count
            # (MinerU drops generated ones: justified CJK text is spaced out).
            wide = gap > spaced and not (  # (no CJK character comes before U+3000)
                text >= "\u3000" and last and _is_han_kana(last) and _is_han_kana(text))
            if (space == "pdf" and gap > touch) or wide or (
                    last and (text >= rtl_first or last >= rtl_first)
                    and _direction_break(_last_letter(parts), text)):
                add((" ", script if script and parts and parts[-1][1] == script else "", -1))
        if c.hyphen:
            text = "\x02"
        elif text in accent_marks:
            accents = True
        if script:
            scripts = True
        add((text, script, i))
        last = text
        edge = g.loose[2]
        right = edge if right is None or edge > right else right  # max(right, edge)
        space = ""
    if accents:
        _compose_accents(parts, solid)
        parts = [p for p in parts if p[0]]
    texts = [p[0] for p in parts]
    # (no right-to-left letter comes before U+0590: most lines have none)
    rtl = bool(texts) and max(texts) >= _RTL_FIRST and rtl_base(texts)
    order = list(range(len(row)))
    if texts and max(texts) >= _RTL_FIRST and (rtl or any(is_rtl_char(t) for t in texts)):
        perm, odd = logical_order(texts, rtl)
        parts = [(mirrored(parts[k][0]) if odd[k] else parts[k][0], parts[k][1], parts[k][2])
                 for k in perm]
        parts = _marks_after_letters(parts, base_of)
        order = [p[2] for p in parts if p[2] >= 0]
    elif base_of:
        parts = _marks_after_letters(parts, base_of)
        order = [p[2] for p in _marks_after_letters([("", "", k) for k in order], base_of)]
    if not scripts:
        joined = "".join([p[0] for p in parts])
    else:
        out, current = [], ""
        for text, script, _ in parts:
            if script != current:
                if current:
                    out.append(f"</{current}>")
                if script:
                    out.append(f"<{script}>")
                current = script
            out.append(text)
        if current:
            out.append(f"</{current}>")
        joined = "".join(out)
    return main, body, (_clean(joined).strip(), order, rtl)


def _mark_base(row: list[_Glyph], i: int) -> int:
    """The letter a combining mark at ``row[i]`` is drawn on: of the letters just before and
    just after it (left to right), the one its box overlaps more (the one before on a tie)."""
    def letter(indices) -> int | None:
        for j in indices:
            t = row[j].char.text
            if not t.isspace() and not unicodedata.combining(t):
                return j
        return None

    mark = row[i].box
    best, best_overlap = None, -1.0
    for j in (letter(range(i - 1, -1, -1)), letter(range(i + 1, len(row)))):
        if j is not None:
            b = row[j].box
            overlap = min(mark[2], b[2]) - max(mark[0], b[0])
            if overlap > best_overlap:
                best, best_overlap = j, overlap
    return i - 1 if best is None else best


def _marks_after_letters(parts: list[tuple[str, str, int]],
                         base_of: dict[int, int]) -> list[tuple[str, str, int]]:
    """Each combining mark right after the letter it is drawn on (a right-to-left run's
    reordering, or a mark sorted left of its letter's middle, may have put it before)."""
    present = {p[2] for p in parts}
    marks: dict[int, list[tuple[str, str, int]]] = {}
    for p in parts:
        if p[2] in base_of and base_of[p[2]] in present:
            marks.setdefault(base_of[p[2]], []).append(p)
    out = []
    for p in parts:
        if p[2] in base_of and base_of[p[2]] in present:
            continue
        out.append(p)
        out.extend(marks.get(p[2], ()))
    return out


_RTL_FIRST = "\u0590"  # no right-to-left letter comes before Hebrew


def _last_letter(parts: list[tuple[str, str, int]]) -> str:
    """The last character put in a line so far, looking past the marks drawn over it."""
    for text, _, _ in reversed(parts):
        if text and not unicodedata.combining(text[-1]):
            return text
    return ""


def _direction_break(before: str, after: str) -> bool:
    """A right-to-left letter drawn against a left-to-right one: two words, whatever the
    gap. Arabic and Hebrew words hold no Latin letters, and Word sets the space between a
    Latin word and the Arabic after it on the far side of the Latin run (none is drawn
    between them: "R و Python من" comes out "Pythonمن" in PDFium's own text)."""
    if not (before[-1:].isalpha() and after[:1].isalpha()):
        return False
    a, b = bidi_class(before[-1]), bidi_class(after[0])
    return (a == "L" and b in ("R", "AL")) or (a in ("R", "AL") and b == "L")


def _compose_accents(parts: list[tuple[str, str, int]], glyphs: list[_Glyph]) -> None:
    """A spacing accent drawn over a neighbouring letter becomes a combining mark on it."""
    solid_idx = [i for i, p in enumerate(parts) if p[0] != " "]
    for k, i in enumerate(solid_idx):
        mark = SPACING_ACCENTS.get(parts[i][0])
        if mark is None:
            continue
        g = glyphs[k]
        for nk in (k - 1, k + 1):
            if 0 <= nk < len(glyphs) and glyphs[nk].char.text.isalpha():
                n = glyphs[nk]
                inter = min(g.box[2], n.box[2]) - max(g.box[0], n.box[0])
                if inter > 0.5 * max(g.box[2] - g.box[0], 1e-6):
                    j = solid_idx[nk]
                    parts[j] = (unicodedata.normalize("NFC", parts[j][0] + mark),
                                parts[j][1], parts[j][2])
                    parts[i] = ("", parts[i][1], parts[i][2])
                    # a space put between the accent and its letter goes too
                    lo, hi = sorted((i, j))
                    for s in range(lo + 1, hi):
                        if parts[s][0] == " ":
                            parts[s] = ("", parts[s][1], -1)
                    break


def _clean(text: str) -> str:
    if not text.isascii():  # ligatures and presentation forms are not ASCII
        for lig, plain in LIGATURES.items():
            text = text.replace(lig, plain)
        if _PRESENTATION_FORMS.search(text):  # Arabic letters in their drawn (joined) shapes
            text = _PRESENTATION_FORMS.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)
    return text.replace("\r\n", "")


_PRESENTATION_FORMS = re.compile("[\ufb50-\ufdff\ufe70-\ufefe]+")
_URL_TAIL = re.compile(r"(?:https?://|www\.)\S*$", re.IGNORECASE)


def join_lines(lines: list[str]) -> str:
    """Lines of one block as one paragraph, the way MinerU joins them."""
    out = ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if not out:
            out = line
            continue
        out = _join(out, line)
    return out.replace("\x02", "-")


def _join(prev: str, nxt: str) -> str:
    last, first = prev[-1], nxt[0]
    if last in LINE_END_HYPHENS and len(prev) >= 2:
        word = re.search(r"(\w+)[" + re.escape(LINE_END_HYPHENS) + r"]$", prev)
        before = prev[-2]
        if before.isdigit() and first.isdigit():
            return prev[:-1] + "-" + nxt
        if word and before.isalpha() and first.islower():
            w = word.group(1)
            if w.isupper() or w.lower() in KEEP_HYPHEN_WORDS:
                return prev[:-1] + "-" + nxt
            return prev[:-1] + nxt
        if last == "\x02":  # PDFium's line-end hyphen before something else: keep it
            return prev[:-1] + "-" + nxt
        return prev + nxt if is_cjk(first) else prev + " " + nxt
    if is_cjk(last) or is_cjk(first):
        return prev + nxt
    if (_URL_TAIL.search(prev) and not first.isspace() and not first.isupper()
            and not nxt.startswith(("<sup>", "<sub>"))):  # a footnote mark starts a new note
        return prev + nxt
    return prev + " " + nxt
