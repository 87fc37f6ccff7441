"""One table of kinds, one epilogue, one parse budget (issue 28): every kind detection names
has a reader, a unit and its place (model or structure) in mineru_tui/kinds.py; an empty
document of any kind gets the same warning; a parse budget spent in any part of any
package-based format fails the file, whatever the reader made of that part."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from mineru_tui import detect as detect_module
from mineru_tui.convert import ConvertError, convert
from mineru_tui.detect import detect
from mineru_tui.kinds import KINDS, PAGE_KINDS, page_unit
from mineru_tui.office import EMPTY_WARNING, package, read_office
from tests.docx_fixtures import build_docx
from testkit import crafted
from tests.office.test_web_readers import _epub, _xhtml

ROOT = Path(__file__).resolve().parents[2]
OFFICE = ROOT / "tests/corpus/office"
ODF = ROOT / "tests/corpus/odf_legacy"
WEB = ROOT / "tests/corpus/web"


def test_every_kind_detection_names_is_in_the_table_with_a_reader():
    named = {v for k, v in vars(detect_module).items() if k.startswith("KIND_")}
    assert named == set(KINDS)
    for kind in KINDS.values():
        assert callable(kind.read_function()), kind
    assert set(PAGE_KINDS) == {"pdf", "image"}
    assert set(detect_module.OFFICE_KINDS) == set(KINDS) - set(PAGE_KINDS)


@pytest.mark.parametrize("kind, n, words", [
    ("pptx", 3, "3 slides"), ("ppt", 1, "1 slide"), ("odp", 2, "2 slides"),
    ("xlsx", 2, "2 sheets"), ("xls", 1, "1 sheet"), ("ods", 4, "4 sheets"),
    ("epub", 12, "12 chapters"), ("csv", 1, "1 table"), ("docx", 2, "2 pages"),
    ("pdf", 1, "1 page"), ("unknown", 2, "2 pages")])
def test_the_progress_unit_comes_from_the_table(kind, n, words):
    assert page_unit(kind, n) == words


def test_a_page_kind_is_not_read_as_an_office_file(tmp_path):
    with pytest.raises(ValueError):
        read_office(tmp_path / "x.pdf", "pdf")


def _empty_files() -> dict[str, bytes]:
    import openpyxl
    import pptx

    pptx_bytes, xlsx_bytes = io.BytesIO(), io.BytesIO()
    pptx.Presentation().save(pptx_bytes)
    openpyxl.Workbook().save(xlsx_bytes)  # one sheet, no cells: its name is no content
    return {
        "docx": build_docx(""), "pptx": pptx_bytes.getvalue(), "xlsx": xlsx_bytes.getvalue(),
        "html": b"<html><body></body></html>",
        "mhtml": b"MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
                 b"<html><body></body></html>\r\n",
        "epub": _epub({"c.xhtml": _xhtml("")}), "csv": b"\n", "rtf": b"{\\rtf1 }",
        "doc": crafted.doc("\r"), "xls": crafted.xls_empty(), "ppt": crafted.ppt(0, b""),
    }


@pytest.mark.parametrize("kind", [k for k in KINDS if k not in PAGE_KINDS])
def test_an_empty_document_of_any_kind_gets_the_one_warning(tmp_path, kind):
    path = tmp_path / f"empty.{kind}"
    odf = {"odt": "text", "ods": "spreadsheet", "odp": "presentation"}
    if kind in odf:
        crafted.odf(path, "", odf[kind])
    else:
        path.write_bytes(_empty_files()[kind])
    assert detect(path).kind == kind
    doc = convert(path)
    assert doc.warnings == [EMPTY_WARNING]


def test_a_document_with_content_gets_no_empty_warning():
    for path in (OFFICE / "docling__word_sample.docx", ODF / "odfdo__two_sheets.ods"):
        assert EMPTY_WARNING not in convert(path).warnings


# A file of each package-based format, with several parts (workbooks with drawings and
# charts, documents with headers and notes, a chart object in an ODF text, EPUB chapters).
BUDGET_FILES = [OFFICE / "mineru__docx_01.docx", OFFICE / "docling__powerpoint_sample.pptx",
                OFFICE / "docling__xlsx_01.xlsx", OFFICE / "mineru__xlsx_01.xlsx",
                ODF / "odfdo__chart.odt", ODF / "odfdo__two_sheets.ods",
                ODF / "docling__odf_presentation_01.odp", WEB / "pandoc__features.epub"]


def _spending(monkeypatch, path: Path) -> list[tuple[str, int]]:
    """The parts a full read parses, in order, with the bytes each charges."""
    spent: list[tuple[str, int]] = []
    spend = package.Package._spend

    def spy(self, name, size):
        spent.append((name, size))
        return spend(self, name, size)

    with monkeypatch.context() as m:
        m.setattr(package.Package, "_spend", spy)
        convert(path)
    return spent


@pytest.mark.parametrize("path", BUDGET_FILES, ids=lambda p: p.name)
def test_a_budget_spent_in_any_part_fails_the_file(monkeypatch, path):
    parts = _spending(monkeypatch, path)
    assert len(parts) >= 2
    init = package.Package.__init__
    for i, (name, size) in enumerate(parts):
        budget = sum(s for _, s in parts[:i]) + size - 1  # one byte short, in this part

        def small(self, *args, _budget=budget, **kwargs):
            init(self, *args, **kwargs)
            self.budget = _budget

        with monkeypatch.context() as m:
            m.setattr(package.Package, "__init__", small)
            with pytest.raises(ConvertError) as err:
                convert(path)
        reason = err.value.reason
        assert reason.startswith("refused: ") and "parse budget" in reason, (name, reason)
        assert f"reached at {name}" in reason


def test_a_slide_whose_only_text_is_its_name_is_content(tmp_path):
    # only a sheet's name, which the reader writes itself, is no content
    frame = ('<draw:page draw:name="Intro"><draw:frame presentation:class="title">'
             '<draw:text-box><text:p>Intro</text:p></draw:text-box></draw:frame></draw:page>')
    doc = convert(crafted.odf(tmp_path / "title.odp", frame, "presentation"))
    assert EMPTY_WARNING not in doc.warnings
