"""Structure for the model-free reading, over the line reader's output.

:mod:`.text_only` reads a page's characters into lines (``.chars``, ``.box``, ``.text``,
``.height``) and lines into paragraphs; this module is the narrow door through which it
gets the page's structure: faces (:mod:`.fonts`), ruling lines and tables
(:mod:`.rules`, :mod:`.tables`), link annotations (:mod:`.links`), headings
(:mod:`.headings`) and lists (:mod:`.lists`). Page furniture needs every page and is
handled after the document is read (:mod:`.furniture`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from mineru_tui.pdf.chars import Box, Char
from mineru_tui.pdf.fonts import PLAIN, FontStyle, family, font_styles
from mineru_tui.pdf.headings import BOLD_SHARE, Candidate
from mineru_tui.pdf.headings import heading_levels as _levels
from mineru_tui.pdf.lines import TextLine
from mineru_tui.pdf.lists import gather_lists, is_bare_bullet, starts_item

__all__ = ["PageStructure", "gather_lists", "join_bare_bullets", "split_type_sizes", "starts_item"]


@dataclass
class PageStructure:
    """What a page offers beyond its characters, read once per page."""

    styles: dict[int, FontStyle] = field(default_factory=dict)
    rules: list = field(default_factory=list)
    links: list[tuple[str, str, Box]] = field(default_factory=list)  # (text, uri, box)
    links_cut: bool = False  # the page's bound on link text left some links as plain text
    frames: list[Box] = field(default_factory=list)  # ruled boxes that are not tables
    line_order: dict[int, int] = field(default_factory=dict)  # id(line) -> reading position
    page_area: float = 0.0
    table_lines: list = field(default_factory=list)  # the lines the tables took
    _faces: dict[int, tuple] = field(default_factory=dict, repr=False)
    _object_faces: dict | None = field(default=None, repr=False)  # text object -> its face
    # id(line) -> (line, its face counts): each line counted once per page; the line is held
    # so its id is not reused by a line made later
    _counted: dict[int, tuple] = field(default_factory=dict, repr=False)

    @classmethod
    def read(cls, page, chars: list[Char]) -> PageStructure:
        """Faces, rules and links of ``page`` (each best effort: a page whose drawing or
        annotations PDFium cannot walk is still read as plain text)."""
        from mineru_tui.pdf.links import linked_texts, page_links
        from mineru_tui.pdf.rules import page_rules

        out = cls()
        try:
            out.page_area = page.size_pt[0] * page.size_pt[1]
        except Exception:  # noqa: BLE001 - a page without a size: no border check
            out.page_area = 0.0
        try:
            out.styles = font_styles(page, chars)
        except Exception:  # noqa: BLE001 - a missing face only loses bold headings
            out.styles = {}
        try:
            out.rules = page_rules(page)
        except Exception:  # noqa: BLE001 - no rules: tables come from aligned columns only
            out.rules = []
        try:
            links = page_links(page)
            upright = [c for c in chars if c.direction == 0] if links else []
            out.links = linked_texts(links, upright)  # the characters indexed once
            out.links_cut = out.links.cut
        except Exception:  # noqa: BLE001 - links are an extra
            out.links = []
        return out

    def line_face(self, line: TextLine) -> tuple[bool, bool, str]:
        """(all bold, all italic, the family nearly all of it is in, or "")."""
        key = id(line)
        face = self._faces.get(key)
        if face is None:
            solid, bold, italic, _, counts = self._line_counts(line)
            fam = max(counts, key=counts.get) if counts else ""
            face = self._faces[key] = ((bold / solid if solid else 0.0) >= BOLD_SHARE,
                                       (italic / solid if solid else 0.0) >= BOLD_SHARE,
                                       fam if solid and counts[fam] >= BOLD_SHARE * solid else "")
        return face

    def _line_counts(self, line: TextLine) -> tuple[int, int, int, int, dict[str, int]]:
        """``_face_counts(line)``, worked out once per page."""
        held = self._counted.get(id(line))
        if held is None or held[0] is not line:
            held = self._counted[id(line)] = (line, self._face_counts(line))
        return held[1]

    def _face_counts(self, line: TextLine) -> tuple[int, int, int, int, dict[str, int]]:
        """Of ``line``'s non-space characters: how many, how many bold, italic and mono, and
        how many in each font family (first met first): ``fonts.share`` and
        ``fonts.main_family`` counted together, by text object (a line has a few)."""
        faces = self._object_faces
        if faces is None:  # each text object's face, once per page
            faces = self._object_faces = {key: (family(st.name), st.bold, st.italic, st.mono)
                                          for key, st in self.styles.items()}
        plain = (family(PLAIN.name), PLAIN.bold, PLAIN.italic, PLAIN.mono)
        counts: dict[str, int] = {}
        bold = italic = mono = solid = 0
        for key, n in Counter([c.text_object for c in line.chars if not c.text.isspace()]).items():
            f, b, i, m = faces.get(key, plain)
            counts[f] = counts.get(f, 0) + n
            bold, italic, mono, solid = bold + b * n, italic + i * n, mono + m * n, solid + n
        return solid, bold, italic, mono, counts

    def _face_of(self, lines: list[TextLine]) -> tuple[float, float, float, str]:
        """(bold share, italic share, mono share, main family) of the non-space characters of
        ``lines`` together, as ``fonts.share`` and ``fonts.main_family`` give them for their
        characters: summed from each line's counts (whole numbers, so the shares come out
        the same), each line counted once a page)."""
        solid = bold = italic = mono = 0
        counts: dict[str, int] = {}
        for ln in lines:
            n, b, i, m, families = self._line_counts(ln)
            solid, bold, italic, mono = solid + n, bold + b, italic + i, mono + m
            for f, k in families.items():
                counts[f] = counts.get(f, 0) + k
        if not solid:
            return 0.0, 0.0, 0.0, ""
        return bold / solid, italic / solid, mono / solid, max(counts, key=counts.get)

    def breaks(self, above: TextLine, below: TextLine) -> bool:
        """True when ``below`` cannot continue the paragraph ``above`` ends: one is all bold
        (or all italic) and the other not, or they are set in two different font families
        (a sans-serif subheading over serif body text of nearly the same size)."""
        a, b = self.line_face(above), self.line_face(below)
        return a[:2] != b[:2] or bool(a[2] and b[2] and a[2] != b[2])

    def take_tables(self, chars: list[Char], lines: list[TextLine]):
        """``(tables, the lines outside them)``: ``chars`` are the page's visible characters
        (a table's cells may hold turned text), ``lines`` the lines of its upright ones."""
        from mineru_tui.pdf.tables import find_tables

        try:
            tables = find_tables(chars, lines, self.rules, self.frames)
        except (ValueError, ZeroDivisionError, IndexError, OverflowError):
            # a degenerate drawing (zero-size boxes, NaN coordinates): the page is still read,
            # as text without tables, rather than lost
            return [], lines
        # a framed drawing holds several lines (a box round a title and a logo is no drawing)
        self.frames = [f for f in self.frames if sum(_centre_in(ln.box, f) for ln in lines) >= 4]
        if not tables:
            return [], lines
        self.line_order = {id(ln): i for i, ln in enumerate(lines)}
        for t in tables:  # where the table's first line was read: its place in reading order
            inside = [i for i, ln in enumerate(lines) if _centre_in(ln.box, t.box)]
            t.at = min(inside) if inside else len(lines)
        rest = [ln for ln in lines if not any(_centre_in(ln.box, t.box) for t in tables)]
        self.table_lines = [ln for ln in lines if any(_centre_in(ln.box, t.box) for t in tables)]
        return tables, rest

    def place_tables(self, paras: list, tables: list, make) -> list:
        """``paras`` (in reading order, over lines in reading order) with a paragraph made by
        ``make(table)`` for each table, where the table's first line was read."""
        out = list(paras)
        for t in sorted(tables, key=lambda t: t.at, reverse=True):
            k = next((i for i, p in enumerate(out) if p.lines
                      and self.line_order.get(id(p.lines[0]), -1) > t.at), len(out))
            out.insert(k, make(t))
        return out

    def heading_levels(self, paras: list, texts: list[str], body_height: float) -> list[int | None]:
        """Heading level (or None) of each paragraph (``.lines``; tables are never headings)."""
        # the body is all the page's text, tables' included (a form page is mostly table)
        every = [_Lines(p.lines) for p in paras if p.lines] + [_Lines(self.table_lines)]
        body_height = _body_height(every) or body_height
        cands = []
        for p, text in zip(paras, texts):
            bold, italic, mono, fam = self._face_of(p.lines)
            cands.append(Candidate(text, len(p.lines), p.height, bold, italic, mono, fam,
                                   getattr(p, "block", None)))
        body_lines = [ln for group in every for ln in group.lines
                      if abs(ln.height - body_height) <= 0.1 * body_height]
        body_bold, body_italic, _, body_family = self._face_of(body_lines)
        levels = _levels(cands, body_height, body_bold, body_italic, body_family)
        # text in a framed drawing (a syntax diagram, a labelled figure) is no heading; a
        # border round the whole page is no such frame
        frames = [f for f in self.frames
                  if not self.page_area or (f[2] - f[0]) * (f[3] - f[1]) < 0.8 * self.page_area]
        return [None if not p.lines or any(_centre_in(p.display_box(), f) for f in frames) else lv
                for p, lv in zip(paras, levels)]

    def linked(self, spans: list, para) -> list:
        """``spans`` of a paragraph with the page's links under it applied."""
        if not self.links or not para.lines:
            return spans
        from mineru_tui.pdf.links import apply_links

        box = para.display_box()
        mine = [(t, u) for t, u, b in self.links if _overlap(b, box)]
        return apply_links(spans, mine) if mine else spans


@dataclass
class _Lines:
    lines: list


def _body_height(paras: list) -> float:
    """The type height most of the page's letters are set in: the median line height,
    weighted by the letters of each line (rounding to whole points would put 11.5-pt body
    text and 10-pt figure labels in the same bucket on one page and not on another)."""
    weighted = sorted((ln.height, len(ln.text)) for p in paras for ln in p.lines if ln.height > 0)
    total = sum(n for _, n in weighted)
    if not total:
        return 0.0
    run = 0
    for h, n in weighted:
        run += n
        if run >= total / 2:
            return h
    return weighted[-1][0]


def _centre_in(b: Box, box: Box) -> bool:
    x, y = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def _overlap(a: Box, b: Box) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def join_bare_bullets(lines: list[TextLine]) -> list[TextLine]:
    """A line that is only a bullet (set apart from its text by a tab, so the line reader
    cut it off) joins the line to its right on the same row."""
    out: list[TextLine] = []
    used: set[int] = set()
    for i, ln in enumerate(lines):
        if i in used:
            continue
        if is_bare_bullet(ln.text):
            cy = (ln.box[1] + ln.box[3]) / 2
            right = [j for j, o in enumerate(lines) if j not in used and j != i and o.box[0] >= ln.box[2]
                     and o.box[1] <= cy <= o.box[3] and o.box[0] - ln.box[2] < 6 * max(ln.height, 1.0)]
            if right:
                j = min(right, key=lambda j: lines[j].box[0])
                o = lines[j]
                used.add(j)
                ln = TextLine(ln.chars + o.chars, (min(ln.box[0], o.box[0]), min(ln.box[1], o.box[1]),
                                                   max(ln.box[2], o.box[2]), max(ln.box[3], o.box[3])),
                              ln.direction, ln.text.strip() + " " + o.text, max(ln.height, o.height))
        out.append(ln)
    return out


SIZE_STEP = 2.0  # type this many times smaller than the rest of its line is set apart from it


def split_type_sizes(lines: list[TextLine]) -> list[TextLine]:
    """A line that starts or ends with words in type less than half the size of the rest,
    set apart by a gap, is two lines: a small "Chapter 1." label on the baseline of a
    26-pt chapter title, a small tag after a large title, are not part of the title. A
    single glyph (a drop cap, a note mark) is never cut off."""
    from mineru_tui.pdf.lines import build_lines

    out: list[TextLine] = []
    for ln in lines:
        cut = _size_cut(ln) if ln.direction == 0 and not ln.rtl else None
        if cut is None:
            out.append(ln)
            continue
        for part in (ln.chars[:cut], ln.chars[cut:]):
            for new in build_lines(part, 0):
                new.block, new.stretch, new.column = ln.block, ln.stretch, ln.column
                out.append(new)
    return out


def _size_cut(ln: TextLine) -> int | None:
    # type size read from the glyphs' font-height boxes: the font size a producer writes
    # can be folded into the text matrix, differently from one text object to the next
    looses = [c.loose for c in ln.chars if not c.text.isspace()]
    sizes = [bottom - top for _, top, _, bottom in looses if bottom > top]
    if len(sizes) < 4 or max(sizes) < SIZE_STEP * min(sizes):  # most lines: one size, or
        return None  # sub- and superscripts; the glyphs' places only for the others
    solid = [i for i, c in enumerate(ln.chars) if not c.text.isspace() and c.loose[3] > c.loose[1]]
    n = len(sizes)
    head_max, head_min = sizes[:1], sizes[:1]
    for v in sizes[1:]:
        head_max.append(max(head_max[-1], v))
        head_min.append(min(head_min[-1], v))
    tail_max, tail_min = [sizes[-1]] * n, [sizes[-1]] * n
    for i in range(n - 2, -1, -1):
        tail_max[i], tail_min[i] = max(tail_max[i + 1], sizes[i]), min(tail_min[i + 1], sizes[i])
    for k in range(2, n - 1):  # two glyphs a side at least: a drop cap, a note mark stay
        if head_max[k - 1] * SIZE_STEP <= tail_min[k]:
            small = head_max[k - 1]
        elif tail_max[k] * SIZE_STEP <= head_min[k - 1]:
            small = tail_max[k]
        else:
            continue
        left, right = ln.chars[solid[k - 1]], ln.chars[solid[k]]
        if right.box[0] - left.box[2] >= small:  # a gap of at least the small type's size
            return solid[k]
    return None
