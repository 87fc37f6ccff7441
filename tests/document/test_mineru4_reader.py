"""MinerU 4 reads our ``middle_json.json``: its own schema classes load it and its own
renderers turn it into the same content as the Markdown and content list we write.

Needs the ``mineru4-check`` extra (``pip install -e '.[mineru4-check]'``: mineru 4.0.12 and
docvortex 0.6.4, no torch); without it these tests skip and say so.

The comparison is structural (:mod:`tests.document.mineru4_outline`): headings with their
levels, paragraphs, list items, tables as rows of cells, picture references and code, in
order. Texts are compared without ``* _ ` ~`` and backslashes, for three spellings MinerU 4's
renderer has and ours has not (docs/mineru4.md, "What differs"): an underlined space shown as
``_``, Markdown markup inside an HTML table's cell left unescaped (``**no**`` turns bold), and
``~~`` versus ``<s>``. A run of list items is compared as its joined text: MinerU 4 indents
nested items by four spaces, we by the marker's width, and a Markdown reader nests a
``4.`` item after a line of text differently in the two.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from mineru_tui.convert import ConvertOptions, convert
from mineru_tui.errors import ConvertError
from mineru_tui.output import write_outputs
from testkit.mineru4_outline import html_rows, norm, outline

parser_base = pytest.importorskip(
    "mineru.parser.base",
    reason="MinerU 4 is not installed: pip install -e '.[mineru4-check]' (mineru 4.0.12, no torch)")
ParseResult = parser_base.ParseResult

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
OFFICE = sorted(p for d in ("office", "web", "odf_legacy") for p in (CORPUS / d).iterdir()
                if p.is_file() and p.suffix not in (".tsv", ".md", ".json"))
PDFS = sorted((CORPUS / "pdf").glob("*.pdf"))


_CJK_SPACE = re.compile(r"(?<=[\u3000-\u9fff\uff00-\uffef])\s+|\s+(?=[\u3000-\u9fff\uff00-\uffef])")


def loose(text: str) -> str:
    text = re.sub(r"\s+", " ", re.sub(r"[*`~\\]", "", text.replace("_", " "))).strip()
    return _CJK_SPACE.sub("", text)  # a line break between CJK characters is no space


_MARKER = re.compile(r"(^|\s)((\d+|[A-Za-z]|[ivxlcdmIVXLCDM]+)[.)]|[-*+])(?=\s|$)")


def md_text(markdown: str) -> str:
    """What a reader sees of a short Markdown text (a heading's, a caption's)."""
    return " ".join(str(o[-1]) for o in outline(markdown))


def plain(text: str) -> str:
    """A content list's plain text, with note references as the outline writes them."""
    return norm(re.sub(r"\[\^([^\]\n]+)\]", r"^\1", text))


def comparable(items: list[tuple]) -> list[tuple]:
    out: list[tuple] = []
    for item in items:
        kind = item[0]
        if kind == "li":
            text = loose(_MARKER.sub(" ", item[1]))  # markers in the text or the syntax
            if out and out[-1][0] == "list":
                out[-1] = ("list", loose(out[-1][1] + " " + text))
            else:
                out.append(("list", text))
        elif kind == "table":
            out.append(("table", [[loose(c) for c in row] for row in item[1]]))
        elif kind == "h":
            out.append(("h", item[1], loose(item[2])))
        else:
            out.append((kind, loose(item[1])))
    return out


def check_set(folder: Path) -> None:
    """MinerU 4 loads the set's middle JSON, and its renderers agree with our files."""
    middle = json.loads((folder / "middle_json.json").read_text(encoding="utf-8"))
    result = ParseResult.from_dict(middle)  # docvortex's strict MiddleJson + MinerU's metadata
    assert result.middle_json.metadata.producer.name == "mineru-tui"
    # its Markdown carries what ours carries
    ours_md = (folder / "markdown.md").read_text(encoding="utf-8")
    # a continued table's later parts have no rows (they are in the first part) but keep
    # their picture, which MinerU 4 shows in their place; our Markdown does not
    later_parts = {loose(k["image_path"]) for p in middle["pages"] for b in p["blocks"]
                   if b.get("continues_prev") and b["type"] == "table"
                   for k in b["content"] if k.get("image_path")}
    theirs_md = [o for o in comparable(outline(result.markdown()))
                 if not (o[0] == "img" and o[1] in later_parts)]
    assert theirs_md == comparable(outline(ours_md))
    # its structured content is ours, block for block
    theirs = result.structured_content()
    ours = json.loads((folder / "structured_content.json").read_text(encoding="utf-8"))
    assert [p["page_idx"] for p in theirs["pages"]] == [p["page_idx"] for p in ours["pages"]]
    assert theirs["metadata"] == ours["metadata"] and theirs["extensions"] == ours["extensions"]
    for tp, op in zip(theirs["pages"], ours["pages"]):
        assert len(tp["blocks"]) == len(op["blocks"])
        for tb, ob in zip(tp["blocks"], op["blocks"]):
            for key in ("type", "level", "sub_type", "continues_prev", "image_source"):
                assert tb.get(key) == ob.get(key), (key, tb, ob)
            if tb.get("bbox") or ob.get("bbox"):
                assert tb["bbox"] == pytest.approx(ob["bbox"])
            for key in ("captions", "footnotes"):
                assert [loose(c["content"]) for c in tb.get(key, [])] == \
                       [loose(c["content"]) for c in ob.get(key, [])]
            assert comparable(outline(tb["content"])) == comparable(outline(ob["content"])), \
                (tb, ob)
    check_content_list(folder, ours)


def check_content_list(folder: Path, structured: dict) -> None:
    """Headings, tables and pictures of the 4.x structured content are those of the 3.x
    content list (the other reading of the same document)."""
    stem = next(folder.glob("*_content_list.json"), None)
    if stem is None:
        return
    entries = json.loads(stem.read_text(encoding="utf-8"))
    blocks = [b for p in structured["pages"] for b in p["blocks"]]
    assert [(e["text_level"], loose(plain(e["text"]))) for e in entries if "text_level" in e] == \
           [(b["level"], loose(md_text("# " + b["content"]))) for b in blocks
            if b["type"] in ("doc_title", "paragraph_title")]
    tables_3 = [[[[plain(c) for c in r] for r in t] for t in html_rows(e["table_body"])]
                for e in entries if e["type"] == "table" and e["table_body"]]
    tables_4 = [[o[1] for o in outline(b["content"]) if o[0] == "table"] for b in blocks
                if b["type"] == "table" and b["content"]]
    assert [[[loose(c) for c in r] for t in ts for r in t] for ts in tables_3] == \
           [[[loose(c) for c in r] for t in ts for r in t] for ts in tables_4]
    images_3 = [e.get("img_path") or e.get("img_url") for e in entries
                if e["type"] in ("image", "table") and (e.get("img_path") or e.get("img_url"))]
    images_4 = [b["image_source"] for b in blocks if b.get("image_source")]
    # the 3.x list also has pictures of page furniture (a letterhead's logo), 4.x has not
    middle_3 = json.loads(next(folder.glob("*_middle.json")).read_text(encoding="utf-8"))
    furniture = Counter("images/" + s["image_path"] for p in middle_3["pdf_info"]
                        for s in _spans(p["discarded_blocks"]) if s.get("image_path"))
    assert Counter(images_3) - Counter(images_4) == furniture
    assert not Counter(images_4) - Counter(images_3)


def _spans(blocks):
    for b in blocks:
        for line in b.get("lines", []):
            yield from line["spans"]
        yield from _spans(b.get("blocks", []))


def write(doc, tmp_path: Path, source: Path) -> Path:
    return write_outputs(doc, tmp_path / "out", source.stem, source=source).path


@pytest.mark.parametrize("path", OFFICE, ids=lambda p: p.name)
def test_office_and_web_files(path, tmp_path):
    try:
        doc = convert(path, ConvertOptions())
    except ConvertError as e:  # the corpus has password-protected files on purpose
        pytest.skip(f"not readable by design: {e}")
    check_set(write(doc, tmp_path, path))


@pytest.mark.parametrize("path", PDFS, ids=lambda p: p.name)
def test_pdfs_at_effort_low(path, tmp_path):
    doc = convert(path, ConvertOptions(effort="low"))
    folder = write(doc, tmp_path, path)
    middle = json.loads((folder / "middle_json.json").read_text(encoding="utf-8"))
    assert middle["metadata"]["file_suffix"] == "pdf"
    assert middle["extensions"]["mineru"] == {"tier": "flash", "parse_mode": "txt"}
    assert all(b.get("bbox") for p in middle["pages"] for b in p["blocks"])
    check_set(folder)


def _model_read(doc, tmp_path: Path, source: Path) -> Path:
    folder = write(doc, tmp_path, source)
    check_set(folder)
    schema = pytest.importorskip("docvortex.schema")
    model = schema.ModelJson.from_dict(
        json.loads((folder / "model_output.json").read_text(encoding="utf-8")))
    assert len(model.pages) == len(doc.pages) and model.metadata.file_suffix == "pdf"
    return folder


def test_a_page_image_read_by_the_model(tmp_path):
    from tests.reader.test_pages import ScriptedEngine, page_png, script

    image = page_png(tmp_path / "scan.png")
    doc = convert(image, ConvertOptions(engine=ScriptedEngine(script())))
    folder = _model_read(doc, tmp_path, image)
    middle = json.loads((folder / "middle_json.json").read_text(encoding="utf-8"))
    types = [b["type"] for b in middle["pages"][0]["blocks"]]
    # the title, the equation, the table, the picture with its caption, the page number
    assert types[0] == "doc_title" and {"equation", "table", "image", "page_number"} <= set(types)
    assert middle["extensions"]["mineru"] == {"tier": "advanced", "parse_mode": "ocr"}
    picture = next(b for b in middle["pages"][0]["blocks"] if b["type"] == "image")
    assert picture["content"][0]["image_path"].startswith("images/")
    assert [k["type"] for k in picture["content"]] == ["image_body", "image_caption"]


@pytest.mark.parametrize("effort", ["medium", "high"])
def test_a_pdf_read_by_the_model(tmp_path, effort):
    from tests.reader.test_pages import LAYOUT, PDF_LAYOUT, TABLE, TEXT, ScriptedEngine, text_pdf

    pdf = text_pdf(tmp_path / "paper.pdf", pages=2)
    engine = ScriptedEngine({LAYOUT: [PDF_LAYOUT] * 2, TABLE: ["<fcel>t<nl>"] * 2,
                             TEXT: ["MODEL TEXT"] * 2})
    doc = convert(pdf, ConvertOptions(engine=engine, effort=effort))
    folder = _model_read(doc, tmp_path, pdf)
    middle = json.loads((folder / "middle_json.json").read_text(encoding="utf-8"))
    assert middle["extensions"]["mineru"]["parse_mode"] == ("txt" if effort == "medium" else "ocr")
    assert middle["extensions"]["mineru_tui"]["effort"] == effort


def test_a_table_over_three_pages_read_by_the_model(tmp_path):
    from tests.reader.test_pages import LAYOUT, TABLE, ScriptedEngine, text_pdf
    from testkit.scripted_engine import layout_line

    pdf = text_pdf(tmp_path / "long.pdf", pages=3)
    pages = [("<fcel>Year<fcel>Amount<nl>" + "".join(f"<fcel>{2000 + 10 * p + k}<fcel>{k}<nl>"
                                                      for k in range(5))) for p in range(3)]
    engine = ScriptedEngine({LAYOUT: [layout_line(100, 100, 900, 900, "table")] * 3, TABLE: pages})
    doc = convert(pdf, ConvertOptions(engine=engine, effort="high"))
    folder = _model_read(doc, tmp_path, pdf)
    middle = json.loads((folder / "middle_json.json").read_text(encoding="utf-8"))
    parts = [p["blocks"][0] for p in middle["pages"]]
    assert [p.get("continues_prev") for p in parts] == [None, True, True]
    pictures = [p["content"][0]["image_path"] for p in parts]  # every page's picture is kept
    assert len(set(pictures)) == 3 and all((folder / pic).is_file() for pic in pictures)
    theirs = outline(ParseResult.from_dict(middle).markdown())
    (table,) = [o for o in theirs if o[0] == "table"]
    assert table[1][0] == ["Year", "Amount"] and len(table[1]) == 1 + 15  # every row, one header
    assert [o[1] for o in theirs if o[0] == "img"] == pictures[1:]  # the later parts' pictures


def test_a_page_selection_is_not_the_full_document(tmp_path):
    from tests.reader.test_pages import LAYOUT, PDF_LAYOUT, TABLE, TEXT, ScriptedEngine, text_pdf

    pdf = text_pdf(tmp_path / "three.pdf", pages=3)
    engine = ScriptedEngine({LAYOUT: [PDF_LAYOUT] * 2, TABLE: ["<fcel>t<nl>"] * 2, TEXT: ["X"] * 2})
    doc = convert(pdf, ConvertOptions(engine=engine, pages="2-3"))
    folder = _model_read(doc, tmp_path, pdf)
    middle = json.loads((folder / "middle_json.json").read_text(encoding="utf-8"))
    model = json.loads((folder / "model_output.json").read_text(encoding="utf-8"))
    assert middle["is_full_document"] is False and model["page_index_map"] == [1, 2]
