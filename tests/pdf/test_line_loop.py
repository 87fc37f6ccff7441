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

from mineru_tui.pdf import glyph_loops, lines, open_pdf
from mineru_tui.pdf.chars import Char, page_chars

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
