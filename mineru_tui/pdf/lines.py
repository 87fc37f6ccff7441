"""Characters into lines, lines into text: the rules MinerU 4.0.12 applies to PDF characters.

* Characters are read in their own direction: a block whose text runs upwards (a rotated
  table label, a margin note) is turned upright before lines are formed.
* A character joins a line when their vertical extents overlap enough; lines run top to
  bottom, characters left to right. Tall blocks of upright characters stacked one per line
  are vertical writing and read as columns, right to left.
* Within a line a space goes where the PDF has one or where the gap between glyphs exceeds
  a quarter of the median glyph width. Smaller glyphs above/below the baseline become
  ``<sup>``/``<sub>`` runs (MinerU writes the same tags).
* Ligatures are expanded, PDFium's soft hyphen (U+0002) becomes ``-``, spacing accents drawn
  over a letter are composed with it.
* Lines are joined with one space, except a word hyphenated at a line end (joined without
  the hyphen), digit ranges, URLs and CJK text (joined without a space).
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from dataclasses import dataclass

from mineru_tui.pdf.chars import STANDARD_TOLERANCE, Box, Char

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

LINE_OVERLAP = 0.3  # share of the smaller height two boxes must share to be one line
SPACE_GAP = 0.25  # gap, in median glyph widths, that counts as a space
SCRIPT_SIZE = 0.85  # glyphs smaller than this share of the line's size may be scripts


def is_private_use(ch: str) -> bool:
    return "\ue000" <= ch <= "\uf8ff"


def is_cjk(ch: str) -> bool:
    o = ord(ch)
    return (0x3040 <= o <= 0x30FF or 0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF
            or 0xF900 <= o <= 0xFAFF or 0xAC00 <= o <= 0xD7AF or 0x20000 <= o <= 0x2FA1F
            or 0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFFEF)


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
    """A line of characters in reading order; ``box`` is in the display frame."""

    chars: list[Char]
    box: Box
    direction: int
    text: str = ""
    height: float = 0.0  # font height (loose boxes) of the line's largest glyphs


@dataclass
class _Glyph:
    char: Char
    box: Box  # upright frame
    loose: Box
    baseline: float


def dominant_direction(chars: list[Char]) -> int:
    """The direction most non-space characters run in (0 when there are none)."""
    counts: dict[int, int] = {}
    for c in chars:
        if not c.text.isspace():
            counts[c.direction] = counts.get(c.direction, 0) + 1
    return max(counts, key=lambda d: (counts[d], d == 0)) if counts else 0


def build_lines(chars: list[Char], direction: int | None = None,
                box: Box | None = None, split_gap: float | None = None) -> list[TextLine]:
    """Group ``chars`` into lines in reading order.

    Characters running in another direction than ``direction`` (default: the dominant one)
    are left out, as are those tilted by more than ``MAX_TILT`` and lines made only of
    tilted characters (a diagonal watermark, not faux italics). ``box`` (display frame) is
    the block the characters belong to (kept for callers; vertical writing is recognised
    from the glyphs themselves). With
    ``split_gap``, a line is cut where the gap between two glyphs exceeds ``split_gap``
    times the line's height (columns side by side on a page without layout blocks).
    """
    if direction is None:
        direction = dominant_direction(chars)
    from mineru_tui.pdf.chars import MAX_TILT

    glyphs = [_Glyph(c, upright(c.box, direction), upright(c.loose, direction),
                     _upright_point(c.origin, direction)[1])
              for c in chars if c.direction == direction and c.tilt <= MAX_TILT]
    solid = sorted((g for g in glyphs if not g.char.text.isspace()),
                   key=lambda g: (g.box[1], g.box[0]))
    spaces = [g for g in glyphs if g.char.text.isspace()]
    rows = _cluster(solid, axis=1)
    if direction == 0 and len(solid) >= 3 and _is_vertical(rows, solid):
        return _columns(solid, direction)
    rows = [r for r in rows if any(g.char.tilt <= STANDARD_TOLERANCE for g in r)]
    extents = [(min(x.box[1] for x in r), max(x.box[3] for x in r)) for r in rows]
    for g in spaces:  # a space belongs to the line its centre (or baseline) falls in
        cy = (g.loose[1] + g.loose[3]) / 2
        for r, (top, bottom) in zip(rows, extents):
            if top <= cy <= bottom or top <= g.baseline <= bottom:
                r.append(g)
                break
    for r in rows:
        r.sort(key=lambda g: ((g.box[0] + g.box[2]) / 2, g.char.index))
    if split_gap is not None:
        rows = [piece for r in rows for piece in _split_row(r, split_gap)]
    lines = []
    for r in sorted(rows, key=lambda r: (min(g.box[1] for g in r), min(g.box[0] for g in r))):
        cs = [g.char for g in r]
        line = TextLine(cs, _union([c.box for c in cs if not c.text.isspace()] or
                                   [c.box for c in cs]), direction)
        line.text = _line_text(r)
        line.height = max((g.loose[3] - g.loose[1] for g in r if not g.char.text.isspace()),
                          default=0.0)
        if line.text:
            lines.append(line)
    return lines


def _split_row(row: list[_Glyph], split_gap: float) -> list[list[_Glyph]]:
    solid = [g for g in row if not g.char.text.isspace()]
    if not solid:
        return []
    height = max(g.loose[3] - g.loose[1] for g in solid)
    pieces, prev = [[]], None
    for g in row:
        if g.char.text.isspace():
            pieces[-1].append(g)
            continue
        if prev is not None and g.loose[0] - prev.loose[2] > split_gap * height:
            pieces.append([])
        pieces[-1].append(g)
        prev = g
    return [p for p in pieces if any(not g.char.text.isspace() for g in p)]


def _cluster(glyphs: list[_Glyph], axis: int) -> list[list[_Glyph]]:
    """Glyphs sorted along ``axis`` grouped where their extents on that axis overlap."""
    groups: list[tuple[list[_Glyph], list[float]]] = []
    for g in glyphs:
        lo, hi = g.box[axis], g.box[axis + 2]
        if axis == 1 and hi - lo < 0.5 * (g.loose[3] - g.loose[1]):
            lo, hi = g.loose[1], g.loose[3]  # accents, dots, dashes: place by font height
        best, best_score = None, LINE_OVERLAP
        for members, ext in groups[-4:]:  # only recent groups can still overlap
            inter = min(hi, ext[1]) - max(lo, ext[0])
            smaller = max(min(hi - lo, ext[1] - ext[0]), 1e-6)
            score = inter / smaller
            if score > best_score:
                best, best_score = (members, ext), score
        if best is None:
            groups.append(([g], [lo, hi]))
        else:
            best[0].append(g)
            best[1][0], best[1][1] = min(best[1][0], lo), max(best[1][1], hi)
    return [m for m, _ in groups]


def _is_vertical(rows: list[list[_Glyph]], glyphs: list[_Glyph]) -> bool:
    """CJK glyphs standing in tall narrow columns, far apart across each row: vertical
    writing (MinerU reads a block as vertical when most of its lines are > 2 times taller
    than wide)."""
    if sum(is_cjk(g.char.text) for g in glyphs) < 0.5 * len(glyphs):
        return False
    widths = sorted(g.box[2] - g.box[0] for g in glyphs)
    char_w = max(widths[len(widths) // 2], 1e-6)
    gaps = [b.box[0] - a.box[2] for r in rows
            for a, b in zip(sorted(r, key=lambda g: g.box[0]), sorted(r, key=lambda g: g.box[0])[1:])]
    if gaps and statistics.median(gaps) < char_w:
        return False
    cols = _cluster(sorted(glyphs, key=lambda g: (g.box[0], g.box[1])), axis=0)
    ratios = [(max(g.box[3] for g in c) - min(g.box[1] for g in c))
              / max(max(g.box[2] for g in c) - min(g.box[0] for g in c), 1e-6) for c in cols]
    return statistics.median(ratios) > 2.0


def _columns(glyphs: list[_Glyph], direction: int) -> list[TextLine]:
    cols = _cluster(sorted(glyphs, key=lambda g: (g.box[0], g.box[1])), axis=0)
    lines = []
    for col in sorted(cols, key=lambda c: -max(g.box[2] for g in c)):  # right to left
        col.sort(key=lambda g: (g.box[1], g.char.index))
        cs = [g.char for g in col]
        lines.append(TextLine(cs, _union([c.box for c in cs]), direction,
                              _clean("".join(c.text for c in cs)),
                              max(g.loose[2] - g.loose[0] for g in col)))
    return [ln for ln in lines if ln.text]


def _union(boxes: list[Box]) -> Box:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))


def _line_text(row: list[_Glyph]) -> str:
    """One line's text: spaces from the PDF and from gaps, scripts tagged, cleaned."""
    solid = [g for g in row if not g.char.text.isspace()]
    if not solid:
        return ""
    sizes = [g.loose[3] - g.loose[1] for g in solid]
    main = max(sizes)
    body = [g for g, s in zip(solid, sizes) if s >= SCRIPT_SIZE * main] or solid
    baseline = statistics.median(g.baseline for g in body)
    width = statistics.median(max(g.loose[2] - g.loose[0], 1e-3) for g in body)
    parts: list[tuple[str, str]] = []  # (text, script) with script in "", "sup", "sub"
    right = None  # right edge of the glyphs so far (an accent may end before its letter)
    space = ""  # "pdf" for a space in the file, "generated" for one PDFium added
    for g, s in zip(row, [g.loose[3] - g.loose[1] for g in row]):
        if g.char.text.isspace():
            if right is not None and space != "pdf":
                space = "generated" if g.char.generated else "pdf"
            continue
        script = ""
        if s < SCRIPT_SIZE * main:
            if g.baseline < baseline - 0.2 * main:
                script = "sup"
            elif g.baseline > baseline + 0.1 * main:
                script = "sub"
        if right is not None:
            wide = g.loose[0] - right > SPACE_GAP * width
            # PDFium adds spaces between text objects; geometry decides whether they are real
            if space == "pdf" or wide:
                parts.append((" ", script if script and parts and parts[-1][1] == script else ""))
        parts.append((g.char.text if not g.char.hyphen else "\x02", script))
        right = g.loose[2] if right is None else max(right, g.loose[2])
        space = ""
    _compose_accents(parts, [g for g in row if not g.char.text.isspace()])
    out, current = [], ""
    for text, script in parts:
        if script != current:
            if current:
                out.append(f"</{current}>")
            if script:
                out.append(f"<{script}>")
            current = script
        out.append(text)
    if current:
        out.append(f"</{current}>")
    return _clean("".join(out)).strip()


def _compose_accents(parts: list[tuple[str, str]], glyphs: list[_Glyph]) -> None:
    """A spacing accent drawn over a neighbouring letter becomes a combining mark on it."""
    solid_idx = [i for i, (t, _) in enumerate(parts) if t != " "]
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
                    parts[j] = (unicodedata.normalize("NFC", parts[j][0] + mark), parts[j][1])
                    parts[i] = ("", parts[i][1])
                    # a space put between the accent and its letter goes too
                    lo, hi = sorted((i, j))
                    for s in range(lo + 1, hi):
                        if parts[s][0] == " ":
                            parts[s] = ("", parts[s][1])
                    break


def _clean(text: str) -> str:
    for lig, plain in LIGATURES.items():
        text = text.replace(lig, plain)
    return text.replace("\r\n", "")


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
    if _URL_TAIL.search(prev) and not first.isspace() and not first.isupper():
        return prev + nxt
    return prev + " " + nxt
