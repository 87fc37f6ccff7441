"""The line reader's two implementations (pdf/lines.py and pdf/columns.py in Python, their
glyph loops in pdf/_lineloop.c) give the same lines, field for field: on every page of every
corpus PDF, on the 300-page set ``bench/effort_low.py`` reads, and on made-up characters that
reach the rules the corpus seldom does (scripts, ligatures, CJK spacing, fake bold, turned
text, odd numbers). Without the C loops (not built, or turned off) the lines are still read."""

from __future__ import annotations

import math
import random
import shutil
from dataclasses import fields
from pathlib import Path

import pytest

from mineru_tui.pdf import columns, glyph_loops, lines, open_pdf
from mineru_tui.pdf.chars import Char, page_chars
from mineru_tui.pdf.columns import PIECE_BASELINE, PIECE_GAP, SPACED_PIECE_GAP

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
PDFS = sorted((CORPUS / "pdf").glob("*.pdf")) + sorted((CORPUS / "pdf_lines").glob("*.pdf"))
built = pytest.mark.skipif(lines._compiled() is None, reason="the C line loops were not built")


def _same(v):
    """A field as a comparable value: NaN equal to NaN, types kept (1 is not 1.0), the
    characters of a line by identity (both readers are given the very same Char objects)."""
    if isinstance(v, float):
        return ("float", "nan" if math.isnan(v) else v)
    if isinstance(v, tuple):
        return ("tuple", tuple(_same(x) for x in v))
    if isinstance(v, list):
        return ("list", tuple(id(x) for x in v))
    return (type(v).__name__, v)


def _record(made) -> list[tuple]:
    return [tuple(_same(getattr(ln, f.name)) for f in fields(ln)) for ln in made]


def _both(monkeypatch, read) -> tuple[list, list]:
    """``read()``'s lines by the Python loops and by the C ones."""
    monkeypatch.setenv("MINERU_TUI_PURE_LINES", "1")
    python = _record(read())
    monkeypatch.setenv("MINERU_TUI_PURE_LINES", "0")
    compiled = _record(read())
    return python, compiled


def _readings(chars: list[Char]):
    """Every way the text path reads characters into lines: a page's lines in each
    direction, a layout block's lines and a table cell's (cut at wide gaps)."""
    by_direction: dict[int, list[Char]] = {}
    for c in chars:
        by_direction.setdefault(c.direction, []).append(c)
    for direction, mine in sorted(by_direction.items()):
        yield f"page_lines {direction}", lambda m=mine, d=direction: lines.page_lines(m, d)
        yield f"build_lines {direction}", lambda m=mine, d=direction: lines.build_lines(m, d)
        yield f"cell {direction}", lambda m=mine, d=direction: lines.build_lines(m, d, split_gap=1.0)
    yield "build_lines", lambda: lines.build_lines(chars)


def _assert_same(monkeypatch, chars: list[Char], where: str) -> int:
    counted = 0
    for name, read in _readings(chars):
        python, compiled = _both(monkeypatch, read)
        assert len(compiled) == len(python), f"{where}, {name}"
        for k, (a, b) in enumerate(zip(python, compiled)):
            assert a == b, f"{where}, {name}, line {k}"
        counted += len(python)
    return counted


def test_corpus_is_there():
    assert len(PDFS) >= 15


@built
@pytest.mark.parametrize("path", PDFS, ids=lambda p: p.name)
def test_compiled_loops_give_the_same_lines(path, monkeypatch):
    counted = 0
    with open_pdf(path) as pdf:
        for page in pdf:
            chars = page_chars(page) or []
            counted += _assert_same(monkeypatch, [c for c in chars if c.visible], f"page {page.number}")
            if any(not c.visible for c in chars):  # an OCR layer is read too (classify, tables)
                counted += _assert_same(monkeypatch, chars, f"page {page.number}, all")
    if path.name != "pypdf__r6-empty-password.pdf":  # an encrypted file whose page has no text
        assert counted > 0


@built
def test_compiled_loops_give_the_same_lines_on_the_300_page_set(tmp_path, monkeypatch):
    """The PDF of ``bench/effort_low.py`` and ``bench/pdf_lines_cost.py``, read as
    ``--effort low`` reads it (each page's visible characters by direction)."""
    from testkit.pdf_fixtures import joined_pdf

    pdf_path = joined_pdf(tmp_path / "joined.pdf", 300)
    counted = 0
    with open_pdf(pdf_path) as pdf:
        assert len(pdf) == 300
        for page in pdf:
            visible = [c for c in page_chars(page) or [] if c.visible]
            by_direction: dict[int, list[Char]] = {}
            for c in visible:
                by_direction.setdefault(c.direction, []).append(c)
            for direction, mine in by_direction.items():
                python, compiled = _both(monkeypatch, lambda m=mine, d=direction: lines.page_lines(m, d))
                assert python == compiled, f"page {page.number}, direction {direction}"
                counted += len(python)
    assert counted > 10_000


def _char(text, x, y, size=10.0, *, index, obj=1, direction=0, tilt=0.0, generated=False,
          hyphen=False, bold=False, italic=False, width=None) -> Char:
    """A character drawn at (x, baseline y) in the display frame, turned to ``direction``."""
    x, y, w = float(x), float(y), 0.5 * size if width is None else width
    box = (x, y - 0.7 * size, x + w, y)
    loose = (x, y - 0.9 * size, x + w, y + 0.25 * size)
    origin = (x, y)
    for _ in range(direction // 90):  # the display frame of text running `direction`
        box = (box[1], -box[2], box[3], -box[0])
        loose = (loose[1], -loose[2], loose[3], -loose[0])
        origin = (origin[1], -origin[0])
    return Char(text, box, loose, origin, direction, tilt, size, index, generated, hyphen,
                False, True, obj, bold, italic)


def _run(text: str, x: float, y: float, first: int, size=10.0, **kw) -> list[Char]:
    return [_char(t, x + k * 0.55 * size, y, size, index=first + k, **kw) for k, t in enumerate(text)]


def _made_up_page() -> list[Char]:
    """A page of the cases the C loops hand over to Python or treat on their own."""
    cs: list[Char] = []
    cs += _run("E = mc", 50, 100, 0) + _run("2", 83, 96, 6, size=6.0)  # a raised script
    cs += _run("H", 50, 130, 10) + _run("2", 56, 133, 11, size=6.0) + _run("O", 60, 130, 12)
    cs += _run("e\ufb03cient \ufb01le", 50, 160, 20, bold=True)  # ligatures, bold
    cs += _run("word-", 50, 190, 40) + [_char("\x02", 78, 190, index=45, hyphen=True)]
    cs += _run("漢字", 50, 220, 50, size=12.0) + [_char(" ", 63, 220, index=52, generated=True)]
    cs += _run("かな", 80, 220, 53, size=12.0)  # a wide generated gap between CJK: no space
    cs += _run("café naïve ^x~", 50, 250, 60, italic=True)  # spacing accents: Python's rules
    cs += _run("مرحبا Python", 50, 280, 80)  # right to left: Python's rules
    cs += _run("a\u0301b", 50, 310, 100)  # a combining mark: Python's rules
    cs += _run("left", 50, 340, 110) + [_char(" ", 72, 340, index=114)] + _run("right", 200, 340, 115)
    bold = _run("Bold", 50, 370, 130, obj=7)
    cs += bold + [_char(c.text, c.origin[0] + 0.2, c.origin[1], index=140 + k, obj=8)
                  for k, c in enumerate(bold)]  # drawn twice by another object: fake bold
    cs += _run("tilted", 50, 400, 150, tilt=12.0) + _run("steep", 50, 430, 160, tilt=45.0)
    for direction, first in ((90, 200), (180, 220), (270, 240)):
        cs += _run("turned", 300, 100 + first, first, direction=direction)
    cs += _run("col one", 50, 500, 300) + _run("col two", 300, 500, 310)  # two columns
    cs += _run("col one", 50, 512, 320) + _run("col two", 300, 512, 330)
    return cs


@built
def test_made_up_cases_give_the_same_lines(monkeypatch):
    page = _made_up_page()
    assert _assert_same(monkeypatch, page, "made up") > 20
    # and the C loops did take them: their glyphs, and lines of plain text made in C
    monkeypatch.delenv("MINERU_TUI_PURE_LINES", raising=False)
    glyphs = lines._glyphs(page, 0)
    assert all(type(g) is glyph_loops.loops.Glyph for g in glyphs)
    rows = glyph_loops.loops.rows(glyphs, None)
    assert rows and sum(glyph_loops.loops.line(r) is not None for r in rows) >= 5
    assert len(glyphs) < sum(c.direction == 0 and c.tilt <= 30 for c in page)  # fake bold dropped


@built
def test_odd_numbers_are_left_to_python(monkeypatch):
    """Int boxes, NaN and infinite boxes and sizes: the C loops hand them over, so both
    readers give the same lines, or raise the same error."""
    rng = random.Random(30)
    odd = [float("nan"), float("inf"), -float("inf"), 0, 3, -0.0, 1e308]
    for trial in range(40):
        cs = _run("odd numbers here", 50, 100, 0) + _run("and more", 50, 114, 20)
        k = rng.randrange(len(cs))
        c = cs[k]
        field = rng.choice(["box", "loose", "size", "origin"])
        value = rng.choice(odd)
        if field == "size":
            c.size = value
        elif field == "origin":
            c.origin = (c.origin[0], value) if rng.random() < 0.5 else (value, c.origin[1])
        else:
            b = list(getattr(c, field))
            b[rng.randrange(4)] = value
            setattr(c, field, tuple(b))
        outcomes = []
        for pure in ("1", "0"):
            monkeypatch.setenv("MINERU_TUI_PURE_LINES", pure)
            try:
                outcomes.append(("lines", _record(lines.page_lines(cs, 0))))
            except Exception as e:  # noqa: BLE001 - both must fail alike
                outcomes.append(("error", type(e)))
        assert outcomes[0] == outcomes[1], f"trial {trial}: {field} = {value!r}"


@built
def test_random_pages_give_the_same_lines(monkeypatch):
    """Characters strewn at random (seeded): overlapping lines, scripts, spaces of both
    kinds, repeats, all the scripts the rules tell apart."""
    rng = random.Random(2026)
    alphabet = list("abcxyzABC0123.,;-–—“”•") + list("漢字かなカナ한글") + list("مرحباשלום") + [
        "\ufb01", "\ufb02", "\u0301", "^", "~", "\u00e9", "\x02"]
    for trial in range(30):
        cs = []
        for i in range(rng.randrange(5, 200)):
            t = " " if rng.random() < 0.15 else rng.choice(alphabet)
            size = rng.choice([6.0, 8.0, 10.0, 10.0, 10.0, 12.0, 24.0])
            cs.append(_char(t, rng.uniform(0, 400), rng.choice([100.0, 112.0, 124.0, 131.5])
                            + rng.uniform(-3, 3), size, index=i, obj=rng.choice([1, 2, 3]),
                            generated=t == " " and rng.random() < 0.5, hyphen=t == "\x02",
                            bold=rng.random() < 0.3, italic=rng.random() < 0.2,
                            tilt=rng.choice([0.0, 0.0, 0.0, 0.05, 5.0, 40.0]),
                            direction=rng.choice([0, 0, 0, 90, 180, 270])))
        _assert_same(monkeypatch, cs, f"trial {trial}")


def test_compiled_loops_are_built_where_a_compiler_is():
    """``pip install`` builds them (setup.py) wherever a C compiler is found."""
    if not any(shutil.which(cc) for cc in ("cc", "gcc", "clang")):
        pytest.skip("no C compiler on this machine: the Python loops are the ones used")
    assert lines._compiled() is not None, "pip install -e . should have built mineru_tui.pdf._lineloop"


def test_pure_lines_turns_the_compiled_loops_off(monkeypatch):
    monkeypatch.setenv("MINERU_TUI_PURE_LINES", "1")
    assert lines.compiled_lines() is None
    glyphs = lines._glyphs(_run("plain", 50, 100, 0), 0)
    assert glyphs and all(type(g) is lines._Glyph for g in glyphs)


@built
def test_pure_lines_calls_no_compiled_loop(monkeypatch):
    """With ``MINERU_TUI_PURE_LINES=1`` every step runs in Python, even once the C loops
    are set up (none of them is called)."""
    def refuse(*args):
        raise AssertionError("a C loop was called")

    lines.compiled_lines()  # set up
    for name in ("glyphs", "core_groups", "rows", "line", "letters", "pieces", "cut"):
        monkeypatch.setattr(glyph_loops.loops, name, refuse)
    monkeypatch.setenv("MINERU_TUI_PURE_LINES", "1")
    with open_pdf(CORPUS / "pdf" / "2305.03393v1-pg9.pdf") as pdf:
        chars = page_chars(pdf[0])
    assert lines.page_lines(chars) and lines.build_lines(chars, split_gap=1.0)
    assert lines._is_vertical(lines._glyphs(_run("漢字かな", 50, 100, 0), 0)) is False


def test_lines_are_read_without_the_compiled_loops(monkeypatch):
    """A missing extension (no compiler at install) leaves the Python loops."""
    def read():
        with open_pdf(CORPUS / "pdf" / "multi_page.pdf") as pdf:
            visible = [c for c in page_chars(pdf[0]) if c.visible]
            return [(ln.text, ln.box, ln.height, ln.size, ln.bold, ln.block)
                    for ln in lines.page_lines(visible)]

    expected = read()
    monkeypatch.setattr(glyph_loops, "loops", None)  # as glyph_loops finds it then
    lines._compiled.cache_clear()
    try:
        assert lines.compiled_lines() is None
        assert read() == expected
    finally:
        lines._compiled.cache_clear()
    assert expected


# ---- the rules' edges: each threshold met exactly and missed by one float either side ----

def _edges(v: float) -> tuple[float, float, float]:
    return math.nextafter(v, -math.inf), v, math.nextafter(v, math.inf)


def _span(bottom: float, height: float) -> float:
    """A top such that ``bottom - top == height`` in floats (as the readers subtract)."""
    top = bottom - height
    for _ in range(8):
        if bottom - top == height:
            return top
        top = math.nextafter(top, -math.inf if bottom - top < height else math.inf)
    raise AssertionError(f"no float top for {bottom} - {height}")


def _tall(text, x, y, loose_height, *, index, size=10.0) -> Char:
    """A character of width 5 on baseline ``y`` whose loose box is exactly ``loose_height``
    tall (the box a glyph's height is read from), reaching 1 below the baseline."""
    bottom = y + 1.0
    return Char(text, (x, y - 7.0, x + 5.0, y), (x, _span(bottom, loose_height), x + 5.0, bottom),
                (x, y), 0, 0.0, size, index, False, False, False, True, 1, False, False)


def _edge_page() -> list[Char]:
    """One short line per case, 40 apart, each set so that a threshold of lines.py or
    columns.py decides it by a hair (a glyph ``a`` ends at x = 0, so a gap is an x)."""
    cs: list[Char] = []

    def line(*made: Char):
        cs.extend(made)

    width, main = 5.0, 11.5  # a size-10 glyph of _char: 5 wide, loose 11.5 tall
    cases = []
    # a gap that counts as a space; a space of the file between glyphs that (nearly) touch
    cases += [("gap", g) for g in _edges(lines.SPACE_GAP * width)]
    cases += [("pdf space", g) for g in _edges(lines.SPACE_TOUCH * width)]
    cases += [("pdf then generated", 0.5), ("generated then pdf", 0.5)]
    # raised and lowered scripts: a small glyph's baseline against the line's
    cases += [("script height", 0.0), ("body height", 0.0), ("zero width", 0.0)]
    cases += [("bold half", 0.0), ("size median", 0.0)]
    cases += [("fake bold", d) for d in _edges(0.07 * 10.0)] + [("tilt", 30.0)]
    cases += [("fake bold small", d) for d in _edges(0.07 * 1.0)]  # near is 0.07 pt at least
    cases += [("fake bold cells", 1.9)]  # a repeat in the 4-pt cell to the right, 1.9 away
    cases += [("flat loose", 0.0), ("staircase", 0.0)]
    # pieces (columns._pieces): a gap and a baseline step in font heights
    cases += [("piece gap", g) for g in _edges(PIECE_GAP * main)]
    cases += [("spaced piece gap", g) for g in _edges(SPACED_PIECE_GAP * main)]
    # steps in y are exact on baseline 0 only: these cases stand side by side there, 100 apart
    level = [("sup", v) for v in _edges(0.0 - 0.2 * main)] + [("sub", v) for v in _edges(0.0 + 0.1 * main)]
    level += [("piece baseline", d) for d in _edges(PIECE_BASELINE * main)]
    for k, (case, v) in enumerate(cases + level):
        base, i = 100.0 + 40.0 * k, 1000 * (k + 1)
        if k >= len(cases):
            base = 0.0
        a = _char("a", -5.0, base, index=i)
        if case == "gap":
            line(a, _char("b", v, base, index=i + 1))
        elif case == "pdf space":
            line(a, _char(" ", 0.0, base, index=i + 1, width=0.0), _char("b", v, base, index=i + 2))
        elif case in ("pdf then generated", "generated then pdf"):
            first = case.startswith("generated")
            line(a, _char(" ", 0.0, base, index=i + 1, width=0.0, generated=first),
                 _char(" ", 0.1, base, index=i + 2, width=0.0, generated=not first),
                 _char("b", v, base, index=i + 3))
        elif case in ("sup", "sub"):  # a small glyph whose baseline is `v`
            line(a, _char("b", 0.0, base, index=i + 1), _char("2", 5.0, v, 6.0, index=i + 2))
        elif case == "script height":  # raised, exactly the script size: no script
            line(_tall("a", -5.0, base, 20.0, index=i), _tall("b", 0.0, base, 20.0, index=i + 1),
                 _tall("2", 5.0, base - 6.0, lines.SCRIPT_SIZE * 20.0, index=i + 2, size=8.0))
        elif case == "body height":  # exactly the script size: body (its size counts)
            line(_tall("a", -5.0, base, 20.0, index=i),
                 _tall("b", 0.0, base, lines.SCRIPT_SIZE * 20.0, index=i + 1, size=20.0))
        elif case == "zero width":  # widths below 1e-3 count as 1e-3
            line(*[_char(t, 0.01 * n, base, index=i + n, width=0.0) for n, t in enumerate("abc")])
        elif case == "bold half":  # half the letters bold (and italic): the line is not
            line(_char("a", -5.0, base, index=i, bold=True, italic=True), _char("b", 0.0, base, index=i + 1))
        elif case == "size median":
            b = _char("b", 0.0, base, index=i + 1)
            b.size = 12.0
            line(a, b)
        elif case == "fake bold":  # drawn again by another object, `v` to the right
            a.origin = (0.0, base)
            line(a, Char("a", a.box, a.loose, (v, base), 0, 0.0, 10.0, i + 1, False, False, False,
                         True, 2, False, False))
        elif case == "fake bold small":  # a 1-pt character: near is 0.07
            a = _char("a", 0.0, base, 1.0, index=i)
            line(a, Char("a", a.box, a.loose, (v, base), 0, 0.0, 1.0, i + 1, False, False, False,
                         True, 2, False, False))
        elif case == "fake bold cells":  # the second at 2.2 in its cell (x / 4 = 0.55): the
            # cell looked at beside its own is the right one, where the first is, 1.9 away
            a = _char("a", 4.1, base, 28.0, index=i)
            line(a, Char("a", a.box, a.loose, (4.1 - v, base), 0, 0.0, 28.0, i + 1, False, False,
                         False, True, 2, False, False))
        elif case == "flat loose":  # a loose box of no height: the box's is taken
            b = _char("b", 0.0, base, index=i + 1)
            b.loose = (b.loose[0], base, b.loose[2], base)
            line(a, b)
        elif case == "staircase":  # four thin lines, then a tall glyph whose core covers
            # each of them wholly (a tie of shares), the first four groups back
            line(*[_char("x", 10.0 * n, base + 3.0 * n, 2.0, index=i + n) for n in range(4)],
                 _char("B", 50.0, base + 10.0, 20.0, index=i + 4))
        elif case == "tilt":
            line(a, _char("b", 0.0, base, index=i + 1, tilt=v))
        elif case in ("piece gap", "spaced piece gap"):
            spaced = case.startswith("spaced")
            line(a, *([_char(" ", 0.0, base, index=i + 1, width=0.0)] if spaced else []),
                 _char("b", v, base, index=i + 2))
        elif case == "piece baseline":  # b's baseline `v` lower, its loose box as a's
            b = _char("b", 0.0, base, index=i + 1)
            b.origin = (0.0, base + v)
            line(a, b)
        if k >= len(cases):  # moved right: x = 0 is 100 * (its place among them)
            shift = 100.0 * (k - len(cases))
            for c in cs[-3:]:
                if c.index >= i:
                    c.box = (c.box[0] + shift, c.box[1], c.box[2] + shift, c.box[3])
                    c.loose = (c.loose[0] + shift, c.loose[1], c.loose[2] + shift, c.loose[3])
                    c.origin = (c.origin[0] + shift, c.origin[1])
    return cs


def _pieces_record(pieces) -> list[tuple]:
    return [(tuple(id(g.char) for g in p.glyphs), p.x0, p.x1, p.top, p.bottom, p.height, p.baseline)
            for p in pieces]


@built
def test_the_rules_edges_give_the_same_lines(monkeypatch):
    """Every threshold met exactly and missed by one float on either side: a ``>`` written
    ``>=`` in C (or the other way) gives other lines, or other pieces, than Python's."""
    page = _edge_page()
    assert _assert_same(monkeypatch, page, "edges") > 40
    monkeypatch.setenv("MINERU_TUI_PURE_LINES", "1")
    python = _pieces_record(columns._pieces(lines._glyphs(page, 0)))
    monkeypatch.setenv("MINERU_TUI_PURE_LINES", "0")
    glyphs = lines._glyphs(page, 0)
    assert glyphs and type(glyphs[0]) is glyph_loops.loops.Glyph
    assert _pieces_record(columns._pieces(glyphs)) == python


def _groups_record(groups) -> list[tuple]:
    return [(tuple(id(g.char) for g in members), tuple(ext)) for members, ext in groups]


def _rows_record(rows) -> list[tuple]:
    return [tuple(id(g.char) for g in r) for r in rows]


@built
def test_the_rules_edges_give_the_same_groups_and_rows(monkeypatch):
    """The steps lines are made of, compared on their own where a line can hide a
    difference: core groups (in drawing order, as fed) and rows in reading order."""
    page = _edge_page()
    made = {}
    for pure in ("1", "0"):
        monkeypatch.setenv("MINERU_TUI_PURE_LINES", pure)
        glyphs = lines._glyphs(page, 0)
        # rows as _lines asks for them: C's own loop (lines._ordered_rows is Python's)
        rows = glyph_loops.loops.rows if pure == "0" else lines._ordered_rows
        made[pure] = (_groups_record(lines._core_groups([g for g in glyphs if not g.space])),
                      _rows_record(rows(glyphs, None)), _rows_record(rows(glyphs, 1.0)))
    assert type(glyphs[0]) is glyph_loops.loops.Glyph
    assert made["0"] == made["1"]


def _rows_edge_page() -> list[Char]:
    """Rows joined and spaces placed where a rule of ``_join_scripts`` or of
    ``_ordered_rows`` decides by a hair; each case 1000 below the last. Glyphs of
    :func:`_tall`: loose height h gives a core from h / 2 above the baseline to h / 10 below."""
    cs: list[Char] = []
    # a space placed among eight thin rows (loose height 8, baselines 5 apart, cores 4.8
    # tall): the space, 100 tall, looks a quarter of its height below its baseline (x = 121)
    # among the rows whose cores' tops reach x: exactly row 5's top, so bisect_right gives
    # 6 and rows 2..6 are looked at; all hold its baseline in their bands (0.25 * 100
    # wide), so it goes to row 2 (a start point a little lower or higher gives row 1 or 3)
    for n in range(8):
        y = 100.0 + 5.0 * n
        cs += [_tall("a", 0.0, y, 8.0, index=10 * n), _tall("b", 10.0, y, 8.0, index=10 * n + 1)]
    cs.append(_tall(" ", 5.0, 96.0, 100.0, index=99))
    # a raised row exactly the script size (0.85) of the row below, 9.5 above it (its core
    # overlaps the row's by less than LINE_OVERLAP): a script, joined to the row
    base = 1100.0
    cs += [_tall("a", 0.0, base, 20.0, index=100), _tall("b", 5.0, base, 20.0, index=101),
           _tall("2", 10.0, base - 9.5, lines.SCRIPT_SIZE * 20.0, index=102, size=8.5)]
    # a small row midway (11.75 each way) between two rows it could be a script of: it
    # joins the one above, the first of two at the same distance
    base = 2100.0
    cs += [_tall("a", 0.0, base - 11.75, 24.0, index=200), _tall("b", 5.0, base - 11.75, 24.0, index=201),
           _tall("x", 5.0, base, 4.0, index=202, size=2.0),
           _tall("c", 0.0, base + 11.75, 24.0, index=203), _tall("d", 5.0, base + 11.75, 24.0, index=204)]
    return cs


@built
def test_script_rows_and_spaces_at_the_edges_give_the_same_rows(monkeypatch):
    """A script row exactly the script size, a script row midway between two rows, a space
    whose start point is exactly a row's top: the same rows (and lines) in C and Python."""
    page = _rows_edge_page()
    monkeypatch.setenv("MINERU_TUI_PURE_LINES", "1")
    glyphs = lines._glyphs(page, 0)
    python = [_rows_record(lines._ordered_rows(glyphs, split)) for split in (None, 1.0)]
    monkeypatch.setenv("MINERU_TUI_PURE_LINES", "0")
    glyphs = lines._glyphs(page, 0)
    assert type(glyphs[0]) is glyph_loops.loops.Glyph
    made = [glyph_loops.loops.rows(glyphs, split) for split in (None, 1.0)]  # as _lines asks
    assert None not in made, "the C loops handed the rows over to Python"
    assert [_rows_record(r) for r in made] == python
    by_index = {id(c): c.index for c in page}
    rows = [sorted(by_index[i] for i in r) for r in python[0]]
    # the cases went the ways described: row 2 took the space, the scripts joined
    assert [0, 1] in rows and [20, 21, 99] in rows and [100, 101, 102] in rows
    assert [200, 201, 202] in rows and [203, 204] in rows
    assert _assert_same(monkeypatch, page, "rows' edges") >= 11
