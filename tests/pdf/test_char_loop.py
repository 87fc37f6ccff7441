"""The character loop's two implementations (pdf/chars.py in Python, pdf/_charloop.c in C)
give the same characters, field for field, on every page of every corpus PDF; and without
the C one (not built, or turned off) the characters are still read."""

from __future__ import annotations

import math
import shutil
import sys
from dataclasses import astuple
from pathlib import Path

import pytest

from mineru_tui.pdf import chars, open_pdf
from mineru_tui.pdf.pdfium import owned

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
PDFS = sorted((CORPUS / "pdf").glob("*.pdf")) + sorted((CORPUS / "pdf_lines").glob("*.pdf"))


def _fields(c: chars.Char) -> tuple:
    """Every field, NaN equal to NaN (a degenerate box may hold one)."""
    def same(v):
        if isinstance(v, float) and math.isnan(v):
            return "nan"
        if isinstance(v, tuple):
            return tuple(same(x) for x in v)
        return (type(v).__name__, v)

    return tuple(same(v) for v in astuple(c))


def _both(page):
    """Both loops' characters; and the text objects' fonts each loop gathered, equal."""
    python_fonts, compiled_fonts = {}, {}
    with owned():
        python = chars._read_chars_owned(page, chars.MAX_NATIVE_CHARS, compiled=False,
                                         fonts=python_fonts)
        compiled = chars._read_chars_owned(page, chars.MAX_NATIVE_CHARS, compiled=True,
                                           fonts=compiled_fonts)
    assert compiled_fonts == python_fonts, f"page {page.number}"
    assert set(python_fonts) <= {c.text_object for c in python or ()}
    return python, compiled


def test_corpus_is_there():
    assert len(PDFS) >= 15


@pytest.mark.skipif(chars._compiled() is None, reason="the C character loop was not built")
@pytest.mark.parametrize("path", PDFS, ids=lambda p: p.name)
def test_compiled_loop_gives_the_same_characters(path):
    counted = 0
    with open_pdf(path) as pdf:
        for page in pdf:
            python, compiled = _both(page)
            assert (python is None) == (compiled is None)
            if python is None:
                continue
            assert len(compiled) == len(python), f"page {page.number}"
            for a, b in zip(python, compiled):
                assert _fields(a) == _fields(b), f"page {page.number}, character {a.index}"
            counted += len(python)
    if path.name != "pypdf__r6-empty-password.pdf":  # an encrypted file whose page has no text
        assert counted > 0


def test_compiled_loop_is_built_where_a_compiler_is():
    """``pip install`` builds it (setup.py) wherever a C compiler is found."""
    if not any(shutil.which(cc) for cc in ("cc", "gcc", "clang")):
        pytest.skip("no C compiler on this machine: the Python loop is the one used")
    assert chars._compiled() is not None, "pip install -e . should have built mineru_tui.pdf._charloop"


def test_pure_chars_turns_the_compiled_loop_off(monkeypatch):
    monkeypatch.setenv("MINERU_TUI_PURE_CHARS", "1")
    assert chars.compiled_loop() is None


def test_characters_are_read_without_the_compiled_loop(monkeypatch):
    """A missing extension (no compiler at install) falls back to the Python loop."""
    def read():  # a text object's address changes from one load of the page to the next
        with open_pdf(CORPUS / "pdf" / "multi_page.pdf") as pdf:
            return [_fields(c)[:12] + _fields(c)[13:] for c in chars.page_chars(pdf[0])]

    expected = read()
    monkeypatch.setitem(sys.modules, "mineru_tui.pdf._charloop", None)  # import fails
    assert chars.compiled_loop() is None
    assert read() == expected
    assert expected


@pytest.mark.skipif(chars._compiled() is None, reason="the C character loop was not built")
def test_compiled_loop_calls_a_record_class_it_cannot_fill_in_place(monkeypatch):
    """The C loop fills a ``Char``'s slots directly; a record class without those slots
    (here a plain dataclass of the same fields) is called instead, with the same values."""
    import dataclasses

    plain = dataclasses.make_dataclass(
        "PlainChar", [(f.name, f.type, f) for f in dataclasses.fields(chars.Char)])
    assert not hasattr(plain, "__slots__")
    with open_pdf(CORPUS / "pdf" / "multi_page.pdf") as pdf:
        page = pdf[0]
        with owned():
            filled = chars._read_chars_owned(page, chars.MAX_NATIVE_CHARS, compiled=True)
            monkeypatch.setattr(chars, "Char", plain)
            called = chars._read_chars_owned(page, chars.MAX_NATIVE_CHARS, compiled=True)
    assert type(filled[0]) is not plain and type(called[0]) is plain
    assert [_fields(c) for c in called] == [_fields(c) for c in filled]
    assert filled
