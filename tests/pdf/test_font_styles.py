"""A page's font styles (pdf/fonts.font_styles) come out the same whether its text objects'
fonts were read with the characters (pdf/chars.object_fonts) or asked of PDFium afterwards,
character by character."""

from __future__ import annotations

from pathlib import Path

import pytest

from mineru_tui.pdf import chars, fonts, open_pdf

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
PDFS = sorted((CORPUS / "pdf").glob("*.pdf")) + sorted((CORPUS / "pdf_lines").glob("*.pdf"))


def _styles(path: Path, with_fonts: bool, monkeypatch) -> list[dict]:
    out = []
    with monkeypatch.context() as m:
        if not with_fonts:
            m.setattr(fonts, "object_fonts", lambda page: {})
        with open_pdf(path) as pdf:
            for page in pdf:
                page_chars = chars.page_chars(page) or []
                if with_fonts:
                    assert chars.object_fonts(page) or not page_chars
                styles = fonts.font_styles(page, page_chars)
                # by the order of the characters: a text object's address is this load's own
                order = {}
                for c in page_chars:
                    order.setdefault(c.text_object, len(order))
                out.append(sorted((order[k], v) for k, v in styles.items()))
    return out


@pytest.mark.parametrize("path", PDFS, ids=lambda p: p.name)
def test_styles_from_the_fonts_read_with_the_characters_are_pdfiums_own(path, monkeypatch):
    read_with = _styles(path, True, monkeypatch)
    asked = _styles(path, False, monkeypatch)
    assert read_with == asked
    if path.name != "pypdf__r6-empty-password.pdf":  # an encrypted file whose page has no text
        assert any(read_with)


def test_object_fonts_go_with_the_characters():
    with open_pdf(CORPUS / "pdf" / "multi_page.pdf") as pdf:
        page = pdf[0]
        assert chars.object_fonts(page) == {}
        chars.page_chars(page)
        said = chars.object_fonts(page)
        assert said and all(isinstance(name, bytes) for name, _, _ in said.values())
        page.close()
        assert chars.object_fonts(page) == {}
