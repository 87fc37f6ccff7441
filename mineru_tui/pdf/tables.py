"""Tables without a model: rebuilt from the page's ruling lines and from aligned columns.

Three kinds are found, in this order:

* **Ruled grids.** Horizontal and vertical rules (:mod:`.rules`) that cross each other form
  a grid; each rule position is a row or column boundary, and where a boundary is not drawn
  between two grid cells they are one merged cell (``colspan``/``rowspan``).
* **Rules without verticals** (booktabs: top, middle and bottom rules). Between the first
  and the last rule, rows are the text lines and columns the x-ranges that the cells of the
  fullest rows occupy; a cell that spans several of them (a grouped header) gets a colspan.
* **Unruled aligned columns.** Three or more consecutive rows, each made of two or more
  pieces of text far apart (short pieces, not lines of prose filling two text columns),
  read the same way as the booktabs kind. A table of contents (entries, dot leaders, page
  numbers) is one too, its leaders dropped.

A table of right-to-left text is read from the right: its first cell is the rightmost
(the HTML and the pipe table keep reading order, as a right-to-left page shows them).

Each cell's text is read with the line reader (:func:`~mineru_tui.pdf.lines.build_lines`),
so cells get the same spacing, script and hyphenation rules as paragraphs. The result is
the document model's :class:`~mineru_tui.document.model.Table`: the renderers write a pipe
table when nothing is lost and HTML with spans otherwise.
"""

from __future__ import annotations

import functools
import re
import statistics
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from mineru_tui.pdf.chars import Box, Char
from mineru_tui.pdf.rules import Rule

TOUCH = 3.0  # points: a rule ending this close to another still meets it
CELL_SPLIT = 1.0  # a gap of this many line heights separates two cells of a row
ROW_GAP = 2.5  # line heights: rows further apart end an unruled table
MIN_ROWS = 3
PROSE_CHARS = 20  # a piece this long that fills its column is a line of prose
MAX_CELL_WORDS = 12
PANEL_WORDS = 25  # a table whose typical cell holds more words than this is panels of text
PANEL_ROWS = 3  # (when it has no more rows than this)
MAX_RULES = 1500  # a page drawing more straight lines than this is a chart or a map
MAX_CELLS = 3000


@dataclass
class FoundTable:
    """A table and the display-frame box its characters came from."""

    box: Box
    table: object  # mineru_tui.document.model.Table
    at: int = 0  # reading position of the table's first line among the page's lines


def find_tables(chars: list[Char], lines: list, rules: list[Rule],
                frames: list[Box] | None = None) -> list[FoundTable]:
    """Tables on a page: ``chars`` are its visible characters, ``lines`` the line reader's
    lines of its upright ones (``.box``, ``.text``, ``.height``), ``rules`` its ruling lines.
    Upright characters make the rows and columns; a ruled cell of turned text (a column
    title set vertically) is read in its own direction. Ruled regions that hold text but
    are no table (a framed figure, a boxed note) are added to ``frames`` when it is given."""
    found: list[FoundTable] = []
    centred = _Centred(chars)
    for region, hs, vs in (_ruled_regions(rules) if len(rules) <= MAX_RULES else []):
        every = centred.inside(region)  # (the page's characters looked through once)
        inside = [c for c in every if c.direction == 0]
        if not any(not c.text.isspace() for c in inside):
            continue
        # a box of crossing rules is a grid or a frame; only rules without verticals
        # (booktabs) leave the columns to the text
        table = _grid_table(every, hs, vs) if len(vs) >= 2 else _column_table(inside)
        if table is not None and _plausible(table) and not any(_overlap(region, f.box) for f in found):
            found.append(FoundTable(region, table))
        elif table is not None and _panels(table):
            continue  # a page's design: its text is read as paragraphs, headings and all
        elif frames is not None and len(vs) >= 2:  # a closed box, not stacked rules
            frames.append(region)
    taken = [f.box for f in found]
    free = ([ln for ln in lines if not any(_centre_in(ln.box, b) for b in taken)] if taken
            else list(lines))
    found += _contents_tables(free)
    taken = [f.box for f in found]
    rest = [ln for ln in free if not any(_centre_in(ln.box, b) for b in taken)] if taken else free
    for region in _aligned_regions(rest):
        held = [len(ln.text) >= PROSE_CHARS for ln in rest if _centre_in(ln.box, region)]
        if sum(held) > 0.6 * len(held):  # mostly long lines: columns of prose, no need to look
            continue
        inside = centred.inside(region, upright=True)
        table = _column_table(inside, strict=True)
        if table is not None:
            found.append(FoundTable(region, table))
    return found


_CONTENTS_LINE = re.compile(r"^(.*?\S)(?:\s*\.){3,}\s*(\S{1,8})$")
_DOTS = re.compile(r"\.\s*\.\s*\.")  # what _CONTENTS_LINE's leader starts with
_SECTION_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.?|[A-Z]\.)$")


def _contents_tables(lines: list) -> list[FoundTable]:
    """Runs of three or more lines "entry . . . . page" (a table of contents) as tables of
    two columns, entry and page, the dot leaders dropped."""
    from mineru_tui.document.model import Cell, Table

    out: list[FoundTable] = []
    run: list[tuple] = []

    def number_of(ln, numbers):
        """A section number (one of ``numbers``) set apart to the left of an entry, on its row."""
        cy = (ln.box[1] + ln.box[3]) / 2
        left = [n for n in numbers if n.box[2] <= ln.box[0] + 1 and n.box[1] <= cy <= n.box[3]
                and ln.box[0] - n.box[2] < 80]
        return max(left, key=lambda n: n.box[2]) if left else None

    def close():
        if len(run) >= MIN_ROWS:
            rows, boxes = [], []
            numbers = [n for n in lines if _SECTION_NUMBER.match(n.text.strip())]
            for ln, m in run:
                entry, num = m.group(1), number_of(ln, numbers)
                if num is not None:
                    entry = num.text.strip() + " " + entry
                    boxes.append(num.box)
                boxes.append(ln.box)
                rows.append([Cell([_text_block(entry)]),
                             Cell([_text_block(m.group(2))])])
            box = (min(b[0] for b in boxes), min(b[1] for b in boxes),
                   max(b[2] for b in boxes), max(b[3] for b in boxes))
            out.append(FoundTable(box, Table(rows)))
        run.clear()

    for ln in sorted(lines, key=lambda ln: (ln.box[1], ln.box[0])):
        # a leader is three dots with nothing but spaces between: most lines have none, and
        # need no match (which tries every split of a line with many full stops)
        m = _CONTENTS_LINE.match(ln.text.strip()) if _DOTS.search(ln.text) else None
        if m and run and ln.box[1] - run[-1][0].box[3] > ROW_GAP * max(ln.height, 1.0):
            close()
        if m:
            run.append((ln, m))
    close()
    return out


# where a right-to-left letter may start (is_rtl's ranges): a text without any has none
_RTL_LETTER = re.compile("[\u0590-\u08ff\ufb1d-\ufefc]")


def is_rtl(chars: list[Char]) -> bool:
    """Mostly right-to-left letters (Hebrew, Arabic, Syriac, Thaana, N'Ko): the table's
    columns read from the right, so its first cell is the rightmost."""
    if not _RTL_LETTER.search("".join([c.text for c in chars])):
        return False  # most tables: not one character of those scripts
    letters = [c.text for c in chars if c.text.isalpha()]
    rtl = sum(1 for t in letters if "\u0590" <= t <= "\u08ff" or "\ufb1d" <= t <= "\ufefc")
    return bool(letters) and rtl > 0.5 * len(letters)


def _plausible(table) -> bool:
    """A table has text in three or more cells over two or more rows, none holding most of
    it: a framed figure with a label, or a box around a paragraph, is not one."""
    from mineru_tui.document.model import plain_text

    sizes = [len(plain_text(b)) for row in table.rows for c in row for b in c.blocks]
    sizes = [n for n in sizes if n]
    rows = sum(1 for row in table.rows if any(c.blocks for c in row))
    return (len(sizes) >= 3 and rows >= 2 and max(sizes) <= 0.7 * sum(sizes)
            and not _panels(table))


def _panels(table) -> bool:
    """A few rows of cells that hold paragraphs (most filled cells over ``PANEL_WORDS``
    words): panels of a page's design (a back cover's columns between coloured bands), not
    a table. A longer table of prose cells (requirements, a glossary) stays a table."""
    from mineru_tui.document.model import plain_text

    rows = [[len(plain_text(b).split()) for c in row for b in c.blocks] for row in table.rows]
    words = [n for row in rows for n in row if n]
    return (bool(words) and sum(1 for row in rows if any(row)) <= PANEL_ROWS
            and statistics.median(words) > PANEL_WORDS)


def _overlap(a: Box, b: Box) -> bool:
    """The two boxes share more than half of the smaller one."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return False
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return w * h > 0.5 * smaller


class _Centred:
    """A page's characters with their centres worked out once (on the first question), for
    the characters inside each of its table regions."""

    def __init__(self, chars: list[Char]):
        self.chars = chars
        self._centres: list[tuple[Char, float, float, bool]] | None = None

    def inside(self, box: Box, upright: bool = False, pad: float = 1.0) -> list[Char]:
        """The characters (those running upright only, with ``upright``), in their order,
        whose centre lies in ``box`` grown by ``pad`` on each side."""
        if self._centres is None:
            self._centres = [(c, (c.box[0] + c.box[2]) / 2, (c.box[1] + c.box[3]) / 2,
                              c.direction == 0) for c in self.chars]
        x0, y0, x1, y1 = box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad
        return [c for c, x, y, up in self._centres
                if (up or not upright) and x0 <= x <= x1 and y0 <= y <= y1]


def _centre_in(b: Box, box: Box) -> bool:
    x, y = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


# ---------------------------------------------------------------- ruled regions


def _ruled_regions(rules: list[Rule]) -> list[tuple[Box, list[Rule], list[Rule]]]:
    """Groups of rules that form a table: crossing rules, or three or more horizontal
    rules of about the same extent stacked up (two when verticals join them)."""
    n = len(rules)
    parent = list(range(n))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    crossed = set()
    for i in range(n):  # first the rules that cross: boxes and grids
        for j in range(i + 1, n):
            if rules[i].horizontal != rules[j].horizontal and _meet(rules[i], rules[j]):
                parent[find(i)] = find(j)
                crossed.update((i, j))
    free = [i for i in range(n) if i not in crossed and rules[i].horizontal]
    for k, i in enumerate(free):  # then free horizontal rules stacked up (booktabs)
        for j in free[k + 1:]:
            if _meet(rules[i], rules[j]):
                parent[find(i)] = find(j)
    groups: dict[int, list[Rule]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(rules[i])
    out = []
    for g in groups.values():
        hs = [r for r in g if r.horizontal]
        vs = [r for r in g if not r.horizontal]
        if len(hs) < 2 or (not vs and len(hs) < 3):
            continue
        box = (min([r.a for r in hs] + [r.at for r in vs]), min([r.at for r in hs] + [r.a for r in vs]),
               max([r.b for r in hs] + [r.at for r in vs]), max([r.at for r in hs] + [r.b for r in vs]))
        if box[2] - box[0] < 30 or box[3] - box[1] < 10:
            continue
        out.append((box, hs, vs))
    return out


def _meet(r: Rule, s: Rule) -> bool:
    if r.horizontal != s.horizontal:
        h, v = (r, s) if r.horizontal else (s, r)
        return h.a - TOUCH <= v.at <= h.b + TOUCH and v.a - TOUCH <= h.at <= v.b + TOUCH
    if not r.horizontal:
        return False
    # stacked horizontal rules of (nearly) the same extent: booktabs' top/mid/bottom rules
    overlap = min(r.b, s.b) - max(r.a, s.a)
    shorter = min(r.b - r.a, s.b - s.a)
    longer = max(r.b - r.a, s.b - s.a)
    return (overlap >= 0.9 * shorter and shorter >= 0.6 * longer and abs(r.at - s.at) > TOUCH
            and abs(r.at - s.at) < 400)


def _positions(values: list[float], tol: float = 2.0) -> list[float]:
    out: list[float] = []
    for v in sorted(values):
        if out and v - out[-1] <= tol:
            continue
        out.append(v)
    return out


def _grid_table(chars: list[Char], hs: list[Rule], vs: list[Rule]):
    """A table from a grid of crossing rules; cells the rules do not separate are merged."""
    from mineru_tui.document.model import Cell, Table

    ys = _positions([r.at for r in hs] + [r.a for r in vs] + [r.b for r in vs], 3.0)
    xs = _positions([r.at for r in vs] + [r.a for r in hs] + [r.b for r in hs], 3.0)
    if len(ys) < 2 or len(xs) < 3:
        return None
    extra = _text_rows([c for c in chars if c.direction == 0], xs, ys)
    if extra:
        hs = hs + extra
        ys = _positions(ys + [r.at for r in extra], 1.0)
    nr, nc = len(ys) - 1, len(xs) - 1
    if nr * nc > MAX_CELLS:
        return None

    def vline(x, y0, y1):
        need = 0.6 * (y1 - y0)
        return any(abs(r.at - x) <= TOUCH and min(r.b, y1) - max(r.a, y0) >= need for r in vs)

    def hline(y, x0, x1):
        need = 0.6 * (x1 - x0)
        return any(abs(r.at - y) <= TOUCH and min(r.b, x1) - max(r.a, x0) >= need for r in hs)

    parent = list(range(nr * nc))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for r in range(nr):
        for c in range(nc):
            if c + 1 < nc and not vline(xs[c + 1], ys[r], ys[r + 1]):
                parent[find(r * nc + c)] = find(r * nc + c + 1)
            if r + 1 < nr and not hline(ys[r + 1], xs[c], xs[c + 1]):
                parent[find(r * nc + c)] = find((r + 1) * nc + c)
    spans: dict[int, list[int]] = {}  # root -> [r0, c0, r1, c1]
    for r in range(nr):
        for c in range(nc):
            s = spans.setdefault(find(r * nc + c), [r, c, r, c])
            s[0], s[1], s[2], s[3] = min(s[0], r), min(s[1], c), max(s[2], r), max(s[3], c)
    texts: dict[int, list[Char]] = {}
    row_of, col_of = _indexer(ys), _indexer(xs)
    for ch in chars:
        r = row_of(ch.cy)
        c = col_of(ch.cx)
        if r is not None and c is not None:
            texts.setdefault(find(r * nc + c), []).append(ch)
    # rows or columns with no text anywhere (double rules, a border's margin) are dropped
    used_rows = {r for root, s in spans.items() if root in texts for r in range(s[0], s[2] + 1)}
    used_cols = {c for root, s in spans.items() if root in texts for c in range(s[1], s[3] + 1)}
    rows_keep = sorted(used_rows)
    cols_keep = sorted(used_cols)
    if len(cols_keep) < 2 or len(rows_keep) < 1 or not used_rows:
        return None
    rmap = {r: i for i, r in enumerate(rows_keep)}
    cmap = {c: i for i, c in enumerate(cols_keep)}
    grid_rows: list[list[Cell]] = [[] for _ in rows_keep]
    seen = set()
    rtl = is_rtl(chars)
    for r in rows_keep:
        for c in (reversed(cols_keep) if rtl else cols_keep):
            root = find(r * nc + c)
            if root in seen:
                continue
            s = spans[root]
            top = min(x for x in range(s[0], s[2] + 1) if x in rmap)
            cols_in = [x for x in range(s[1], s[3] + 1) if x in cmap]
            first = max(cols_in) if rtl else min(cols_in)  # a cell starts at its reading side
            if top != r or first != c:
                continue
            seen.add(root)
            rowspan = sum(1 for x in range(s[0], s[2] + 1) if x in rmap)
            colspan = sum(1 for x in range(s[1], s[3] + 1) if x in cmap)
            grid_rows[rmap[r]].append(Cell(_cell_blocks(texts.get(root, [])), colspan, rowspan,
                                           header=rmap[r] == 0))
    rows = [row for row in grid_rows if row]
    if len(rows) < 2 and not any(c.colspan > 1 for row in rows for c in row):
        return None
    return Table(rows)


def _text_rows(chars: list[Char], xs: list[float], ys: list[float]) -> list[Rule]:
    """Rows the rules do not draw: where two or more cells of a ruled row each hold the
    same two or more text lines (one record per line, as a stacked "OTSL / HTML"), a
    rule is drawn between those lines across those cells; a cell holding one line there
    stays one cell spanning them (a rowspan)."""
    out: list[Rule] = []
    # each character's centre worked out once, not once per row of the grid
    placed = [(c, (c.box[0] + c.box[2]) / 2, (c.box[1] + c.box[3]) / 2)
              for c in chars if not c.text.isspace()]
    # ... and sorted from the top once, so a row's band is found by bisection (what a band
    # holds is only counted, measured and sorted: its order does not matter); a NaN centre
    # leaves no order to bisect, and the bands are then scanned for
    by_y = sorted(placed, key=lambda p: p[2]) if all(p[2] == p[2] for p in placed) else None
    centre_ys = [p[2] for p in by_y] if by_y is not None else []
    for r in range(len(ys) - 1):
        top, bottom = ys[r], ys[r + 1]
        if by_y is None:
            band = [p for p in placed if top <= p[2] <= bottom]
        elif top == top and bottom == bottom:  # (no character lies between NaN edges)
            band = by_y[bisect_left(centre_ys, top):bisect_right(centre_ys, bottom)]
        else:
            band = []
        if len(band) < 4:
            continue
        height = statistics.median(c.box[3] - c.box[1] for c, _, _ in band)
        centres = sorted(y for _, _, y in band)
        rows = [[centres[0]]]
        for y in centres[1:]:
            if y - rows[-1][-1] > 0.6 * height:
                rows.append([y])
            else:
                rows[-1].append(y)
        if len(rows) < 2:
            continue
        mids = [(max(a) + min(b)) / 2 for a, b in zip(rows, rows[1:])]
        split_cols = []
        bounds = [-1e9] + mids + [1e9]
        for c in range(len(xs) - 1):
            cell = [p for p in band if xs[c] <= p[1] <= xs[c + 1]]
            lines = [[ch for ch, _, y in cell if lo < y <= hi] for lo, hi in zip(bounds, bounds[1:])]
            # one record per line: every line there, none filling the cell (wrapped text does)
            if cell and all(lines) and all(
                    max(ch.box[2] for ch in ln) - min(ch.box[0] for ch in ln) < 0.75 * (xs[c + 1] - xs[c])
                    for ln in lines):
                split_cols.append(c)
        if len(split_cols) >= 2:
            for c in split_cols:
                out += [Rule(True, m, xs[c], xs[c + 1]) for m in mids]
    return out


def _index(edges: list[float], v: float) -> int | None:
    """The first gap ``i`` of ``edges`` holding ``v``, one point of slack each side."""
    for i in range(len(edges) - 1):
        if edges[i] - 1 <= v <= edges[i + 1] + 1:
            return i
    return None


def _indexer(edges: list[float]):
    """``_index`` over ``edges`` for many values: with ``edges`` ascending (``_positions``),
    the first gap whose far side reaches ``v`` is the answer if its near side does too (a
    later gap's near side lies further on), found by bisection."""
    if not all(e == e for e in edges):  # a NaN leaves the order undefined: scan
        return functools.partial(_index, edges)
    tops = [e + 1 for e in edges[1:]]
    n = len(tops)

    def index(v: float) -> int | None:
        i = bisect_left(tops, v)
        return i if i < n and edges[i] - 1 <= v <= tops[i] else None
    return index


def _text_block(text: str):
    """A cell's paragraph: the line reader's ``<sup>``/``<sub>`` runs become styled spans."""
    from mineru_tui.document import text_block
    from mineru_tui.pdf.blocks_text import text_to_spans

    return text_block(text_to_spans(text))


def _cell_blocks(chars: list[Char]) -> list:
    from mineru_tui.pdf.lines import build_lines, join_lines

    if not chars:
        return []
    text = join_lines([ln.text for ln in build_lines(chars)])  # in the cell's own direction
    return [_text_block(text)] if text else []


# ---------------------------------------------------------------- tables from text columns


_LEADER = re.compile(r"(?:\s*\.){3,}\s*")  # dot leaders of a table of contents


def _words(text: str) -> int:
    """Words of a piece, leader dots not counted."""
    return len(_LEADER.sub(" ", text).split())


def _pieces(chars: list[Char]) -> list:
    from mineru_tui.pdf.lines import build_lines

    return build_lines(chars, 0, split_gap=CELL_SPLIT)


def _rows(pieces: list) -> list[list]:
    """Pieces grouped into rows where their heights overlap, top to bottom."""
    rows: list[tuple[list, list[float]]] = []
    for p in sorted(pieces, key=lambda p: (p.box[1] + p.box[3]) / 2):
        y0, y1 = p.box[1], p.box[3]
        for members, ext in rows[-3:]:
            inter = min(y1, ext[1]) - max(y0, ext[0])
            if inter > 0.5 * min(y1 - y0, ext[1] - ext[0]):
                members.append(p)
                ext[0], ext[1] = min(ext[0], y0), max(ext[1], y1)
                break
        else:
            rows.append(([p], [y0, y1]))
    return [sorted(m, key=lambda p: p.box[0]) for m, _ in rows]


def _column_table(chars: list[Char], strict: bool = False):
    """A table from the aligned pieces of text in ``chars`` (no vertical rules), or None."""
    from mineru_tui.document.model import Cell, Table

    pieces = [p for p in _pieces(chars) if p.text]
    if not pieces:
        return None
    rows = _rows(pieces)
    full = max(len(r) for r in rows)
    if full < 2:
        return None
    # columns: the x-ranges the pieces of the fullest rows cover, merged where they overlap
    spans = sorted((p.box[0], p.box[2]) for r in rows if len(r) >= max(2, full - 1) for p in r)
    cols: list[list[float]] = []
    for a, b in spans:
        if cols and a <= cols[-1][1]:
            cols[-1][1] = max(cols[-1][1], b)
        else:
            cols.append([a, b])
    if len(cols) < 2:
        return None
    table_rows, filled_rows = [], 0
    prose = pieces_in_cols = 0
    col_pieces, col_prose = [0] * len(cols), [0] * len(cols)
    rtl = is_rtl(chars)
    rows = _join_header_lines(rows)
    for r in rows:
        cells: list[list] = [[] for _ in cols]
        spans_of: list[tuple[int, int]] = []
        for p in r:
            hit = [i for i, (a, b) in enumerate(cols) if min(b, p.box[2]) - max(a, p.box[0]) > 0]
            if not hit:
                centre = (p.box[0] + p.box[2]) / 2
                hit = [min(range(len(cols)), key=lambda i: abs((cols[i][0] + cols[i][1]) / 2 - centre))]
            cells[hit[0]].append(p)
            spans_of.append((hit[0], hit[-1]))
            width = cols[hit[0]][1] - cols[hit[0]][0]
            pieces_in_cols += 1
            col_pieces[hit[0]] += 1
            if (len(p.text) >= PROSE_CHARS and p.box[2] - p.box[0] >= 0.85 * width and len(hit) == 1
                    and not _LEADER.search(p.text)):
                prose += 1
                col_prose[hit[0]] += 1
        row: list[Cell] = []
        c = 0
        while c < len(cols):
            span_end = max([e for s, e in spans_of if s == c] or [c])
            text = _LEADER.sub(" ", " ".join(p.text for p in cells[c])).strip()
            blocks = [_text_block(text)] if text else []
            row.append(Cell(blocks, colspan=span_end - c + 1, header=not table_rows))
            c = span_end + 1
        if sum(1 for x in cells if x) >= 2:
            filled_rows += 1
        table_rows.append(row[::-1] if rtl else row)
    if strict:
        words = [_words(p.text) for p in pieces]
        # a column of wrapped prose (a paragraph's lines filling it) is a text column beside
        # others, not a table's
        wrapped = any(n >= MIN_ROWS and k >= 0.6 * n for n, k in zip(col_pieces, col_prose))
        if (filled_rows < MIN_ROWS or prose > 0.4 * pieces_in_cols or wrapped
                or statistics.median(words) > MAX_CELL_WORDS):
            return None
    elif filled_rows < 2:
        return None
    return Table(table_rows)


def _join_header_lines(rows: list[list]) -> list[list]:
    """The first row's cells continued on a second line ("State funded" over "legal aid"):
    one piece, each under a piece of the first row, closer than the rows below are apart,
    becomes part of that piece's cell."""
    if len(rows) < 4:
        return rows
    gaps = [min(p.box[1] for p in b) - max(p.box[3] for p in a) for a, b in zip(rows[1:], rows[2:])]
    usual = statistics.median(gaps)
    first, second = rows[0], rows[1]
    gap = min(p.box[1] for p in second) - max(p.box[3] for p in first)
    if len(second) != 1 or len(first) < 2 or gap >= 0.6 * usual:
        return rows
    piece = second[0]
    above = [p for p in first if min(p.box[2], piece.box[2]) - max(p.box[0], piece.box[0]) > 0]
    if len(above) != 1:
        return rows
    head = above[0]
    joined = type(head)(head.chars + piece.chars,
                        (min(head.box[0], piece.box[0]), head.box[1], max(head.box[2], piece.box[2]),
                         piece.box[3]), head.direction, head.text + " " + piece.text, head.height)
    return [[joined if p is head else p for p in first]] + rows[2:]


def _aligned_regions(lines: list) -> list[Box]:
    """Boxes of runs of rows made of several far-apart pieces (unruled table candidates)."""
    from mineru_tui.pdf.lists import starts_item

    # a list item beside a table is another column's list, not the table's first column
    rows = _rows([ln for ln in lines if ln.text and not starts_item(ln.text)])
    out: list[Box] = []
    run: list[list] = []

    def close():
        if len(run) >= MIN_ROWS:
            ps = _table_pieces(run)
            out.append((min(p.box[0] for p in ps), min(p.box[1] for p in ps),
                        max(p.box[2] for p in ps), max(p.box[3] for p in ps)))
        run.clear()

    pending: list[list] = []  # a single piece right under a table's first row: its header wraps
    for r in rows:
        height = max(p.box[3] - p.box[1] for p in r)
        tabular = len(r) >= 2 and all(_words(p.text) <= MAX_CELL_WORDS for p in r)
        prev = (pending or run or [None])[-1]
        gap = min(p.box[1] for p in r) - max(p.box[3] for p in prev) if prev else 0.0
        if tabular:
            if run and gap > ROW_GAP * height:
                pending.clear()
                close()
            run.extend(pending)
            pending.clear()
            run.append(r)
        elif len(run) == 1 and not pending and _header_line(run[0], r, gap, height):
            pending.append(r)
        else:
            pending.clear()
            close()
    close()
    return out


def _header_line(first: list, r: list, gap: float, height: float) -> bool:
    """``r`` continues a column title of the first row on a second line ("State funded" over
    "legal aid"): one short piece under a piece of the first row, about a line's leading below
    it (the rows of the table below are then checked to be further apart than that)."""
    if len(r) != 1 or _words(r[0].text) > MAX_CELL_WORDS or gap >= 0.8 * height:
        return False
    piece = r[0]
    return any(min(p.box[2], piece.box[2]) - max(p.box[0], piece.box[0]) > 0 for p in first)


def _table_pieces(run: list[list]) -> list:
    """The pieces of a run of rows that belong to the table: a piece far to the left or right
    of everything the other rows hold is a line of a text column beside the table that
    happens to share one of its rows (a question's last line level with a table's header)."""
    keep = []
    for i, r in enumerate(run):
        others = [p for j, o in enumerate(run) if j != i for p in o]
        lo, hi = min(p.box[0] for p in others), max(p.box[2] for p in others)
        far = [3 * (p.box[3] - p.box[1]) for p in r]
        keep += [p for p, d in zip(r, far) if lo - d <= p.box[2] and p.box[0] <= hi + d]
    return keep
