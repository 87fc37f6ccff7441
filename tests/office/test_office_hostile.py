"""Office readers against damaged and crafted packages (issue 9): nothing read as another
document, no silent loss, a parse budget. Small crafted versions; the full-size bombs are
measured by bench/office_bombs.py, not here."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.docx_fixtures import RT, build_docx, p
from mineru_tui.document import plain_text, to_markdown
from mineru_tui.errors import InputError, is_cut_warning
from mineru_tui.office import package, read_office
from mineru_tui.office.xlsx import sheet as xlsx_sheet

ROOT = Path(__file__).resolve().parents[2]
CHARTS = ROOT / "tests/corpus/office/pythonpptx__cht-charts.pptx"


def _cuts(tmp_path: Path) -> list[Path]:
    """cht-charts.pptx (which embeds chart workbooks) cut by 22 bytes and to 75/90/99 %."""
    data = CHARTS.read_bytes()
    out = []
    for name, size in (("minus22", len(data) - 22), ("p75", len(data) * 75 // 100),
                       ("p90", len(data) * 90 // 100), ("p99", len(data) * 99 // 100)):
        path = tmp_path / f"{name}.pptx"
        path.write_bytes(data[:size])
        out.append(path)
    return out


def test_the_charts_deck_embeds_workbooks_whose_directory_survives_the_cut(tmp_path):
    # the premise of the next test: zipfile alone does open the cut files, as the workbook
    with zipfile.ZipFile(CHARTS) as z:
        assert any(n.startswith("ppt/embeddings/") and n.endswith(".xlsx") for n in z.namelist())
    for path in _cuts(tmp_path):
        with zipfile.ZipFile(path) as z:
            assert "xl/workbook.xml" in z.namelist()


@pytest.mark.parametrize("kind", ["pptx", "xlsx", "docx"])
def test_a_cut_package_is_never_read_as_the_workbook_it_embeds(tmp_path, kind):
    for path in _cuts(tmp_path):
        with pytest.raises(InputError) as err:
            read_office(path, kind)
        message = str(err.value)
        assert message.startswith("damaged package") and "\n" not in message


def test_parse_of_cut_packages_fails_each_with_one_line(tmp_path):
    cuts = _cuts(tmp_path)
    r = subprocess.run([sys.executable, "-m", "mineru_tui", "parse", *map(str, cuts)],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert "sheet" not in r.stdout.lower() and "Sheet1" not in r.stdout
    errors = [line for line in r.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 4 and all("damaged package" in line for line in errors)
    assert "Traceback" not in r.stderr


def test_the_whole_deck_reads_as_a_deck():
    doc = read_office(CHARTS, "pptx")
    assert [page.name for page in doc.pages] == ["Slide 1"]
    assert any(b.sub_type == "chart" for b in doc.iter_blocks())


def test_sheet_cell_cap_is_a_cut_warning(tmp_path, monkeypatch):
    monkeypatch.setattr(xlsx_sheet, "MAX_CELLS", 100)
    path = tmp_path / "big.xlsx"
    rows = "".join(f'<row r="{r}"><c r="A{r}"><v>{r}</v></c></row>' for r in range(1, 301))
    _xlsx(path, [rows])
    doc = read_office(path, "xlsx")
    cut = [w for w in doc.warnings if is_cut_warning(w)]
    assert len(cut) == 1 and "100" in cut[0]
    assert "| 100 |" in to_markdown(doc) and "| 101 |" not in to_markdown(doc)


def _deep_chunk(depth: int) -> bytes:
    return ("<html><head><title>t</title></head><body><h1>Imported</h1><p>before</p>"
            + "<div>" * depth + "deep text" + "</div>" * depth + "<p>after</p></body></html>"
            ).encode()


@pytest.mark.parametrize("depth", [10, 300, 5000])
def test_deeply_nested_altchunk_html_keeps_its_text(tmp_path, depth):
    path = tmp_path / "chunk.docx"
    path.write_bytes(build_docx(p("body") + '<w:altChunk r:id="rIdA"/>', others={
        "rIdA": (RT + "aFChunk", "chunk.html", "text/html", _deep_chunk(depth))}))
    doc = read_office(path, "docx")
    texts = [plain_text(b) for b in doc.pages[0].para_blocks]
    assert texts[:1] == ["body"] and ["before", "deep text", "after"] == texts[-3:]
    deep_warning = [w for w in doc.warnings if "nested too deeply" in w]
    assert bool(deep_warning) == (depth > 2048)
    if depth <= 2048:  # the tree was read: the heading stays a heading
        assert "# Imported" in to_markdown(doc)


def _headers_docx(path: Path, n: int, size: int) -> Path:
    para = p("a")
    header = ("<w:p/>" + para * (size // len(para)))
    parts = {f"word/header{i}.xml": (
        '<?xml version="1.0"?><w:hdr xmlns:w="http://schemas.openxmlformats.org/'
        f'wordprocessingml/2006/main">{header.replace("<w:p/>", p(f"header {i}"))}</w:hdr>'
    ).encode() for i in range(n)}
    others = {f"rIdH{i}": (RT + "header", f"header{i}.xml", "application/xml",
                           parts[f"word/header{i}.xml"]) for i in range(n)}
    path.write_bytes(build_docx(p("body"), others=others))
    return path


def test_docx_parse_budget_refuses_many_big_headers(tmp_path, monkeypatch):
    path = _headers_docx(tmp_path / "headers.docx", 6, 50_000)
    doc = read_office(path, "docx")  # under the default budget: read whole
    assert sum("header" in plain_text(b) for b in doc.pages[0].discarded_blocks) == 6
    monkeypatch.setitem(package.PARSE_BUDGET, "docx", 150_000)
    with pytest.raises(package.BudgetError) as err:
        read_office(path, "docx")
    assert str(err.value).startswith("refused: ") and "parse budget" in str(err.value)


def test_xlsx_parse_budget_refuses_many_big_sheets(tmp_path, monkeypatch):
    rows = "".join(f'<row r="{r}"><c r="A{r}"><v>{r}</v></c></row>' for r in range(1, 2001))
    path = _xlsx(tmp_path / "sheets.xlsx", [rows] * 5)
    assert len(read_office(path, "xlsx").pages) == 5
    monkeypatch.setitem(package.PARSE_BUDGET, "xlsx", 150_000)
    with pytest.raises(package.BudgetError):
        read_office(path, "xlsx")


def test_pptx_parse_budget(tmp_path, monkeypatch):
    monkeypatch.setitem(package.PARSE_BUDGET, "pptx", 1000)
    with pytest.raises(package.BudgetError):
        read_office(CHARTS, "pptx")


def _xlsx(path: Path, sheets: list[str]) -> Path:
    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", '<Types xmlns="http://schemas.openxmlformats.org/'
                   'package/2006/content-types"/>')
        z.writestr("_rels/.rels", '<Relationships xmlns="http://schemas.openxmlformats.org/'
                   f'package/2006/relationships"><Relationship Id="rId1" Type="{rel}/'
                   'officeDocument" Target="xl/workbook.xml"/></Relationships>')
        z.writestr("xl/workbook.xml", f'<workbook xmlns="{main}" xmlns:r="{rel}"><sheets>' + "".join(
            f'<sheet name="S{i + 1}" sheetId="{i + 1}" r:id="rId{i + 1}"/>'
            for i in range(len(sheets))) + "</sheets></workbook>")
        z.writestr("xl/_rels/workbook.xml.rels", '<Relationships xmlns="http://schemas.'
                   'openxmlformats.org/package/2006/relationships">' + "".join(
                       f'<Relationship Id="rId{i + 1}" Type="{rel}/worksheet" '
                       f'Target="worksheets/sheet{i + 1}.xml"/>' for i in range(len(sheets)))
                   + "</Relationships>")
        for i, rows in enumerate(sheets):
            z.writestr(f"xl/worksheets/sheet{i + 1}.xml",
                       f'<worksheet xmlns="{main}"><sheetData>{rows}</sheetData></worksheet>')
    return path


@pytest.mark.filterwarnings("ignore:Duplicate name")  # raw= writes a second document.xml
def test_a_broken_main_part_reads_as_a_sentence_with_the_cause_kept_for_v(tmp_path):
    path = tmp_path / "cut.docx"
    path.write_bytes(build_docx(p("x"), raw={"word/document.xml": (
        '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/'
        'wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>cut here').encode()}))
    with pytest.raises(InputError) as err:
        read_office(path, "docx")
    assert str(err.value) == "not a readable Word document (its main part is damaged)"
    assert "corrupt XML in word/document.xml" in err.value.detail


def test_a_big_body_is_parsed_and_counted_once(tmp_path, monkeypatch):
    # parts over CACHE_MAX are not cached by the package; the Word reader still parses its
    # body once, so a budget of 1.5 bodies is enough
    path = tmp_path / "body.docx"
    path.write_bytes(build_docx(p("line") * 2000))
    with zipfile.ZipFile(path) as z:
        size = z.getinfo("word/document.xml").file_size
    monkeypatch.setattr(package, "CACHE_MAX", 1000)
    monkeypatch.setitem(package.PARSE_BUDGET, "docx", size * 3 // 2)
    assert len(read_office(path, "docx").pages[0].para_blocks) == 2000
