"""Build examples/sample.docx: a small Word file with the features mineru-tui reads.

    python examples/make_sample.py            # writes examples/sample.docx

It has headings, styled text, a bulleted and a numbered list (nested), a table with a
merged cell, a hyperlink and a footnote. python-docx writes most of it; the hyperlink
and the footnote part are added as raw WordprocessingML, which python-docx has no API for.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import docx
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.packuri import PackURI
from docx.opc.part import Part
from docx.oxml import parse_xml
from docx.oxml.ns import nsdecls, qn

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
FOOTNOTES_CT = "application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"


def add_hyperlink(paragraph, text: str, url: str) -> None:
    r_id = paragraph.part.relate_to(url, RT.HYPERLINK, is_external=True)
    paragraph._p.append(parse_xml(
        f'<w:hyperlink {nsdecls("w", "r")} r:id="{r_id}"><w:r><w:rPr>'
        f'<w:rStyle w:val="Hyperlink"/><w:color w:val="0563C1"/><w:u w:val="single"/>'
        f'</w:rPr><w:t>{text}</w:t></w:r></w:hyperlink>'))


def add_bullet_numbering(document) -> int:
    """A two-level bullet list definition (the default template's are single-level)."""
    numbering = document.part.numbering_part.element
    abstract_id = 90
    levels = "".join(
        f'<w:lvl w:ilvl="{i}"><w:start w:val="1"/><w:numFmt w:val="bullet"/>'
        f'<w:lvlText w:val="{ch}"/><w:lvlJc w:val="left"/><w:pPr>'
        f'<w:ind w:left="{720 * (i + 1)}" w:hanging="360"/></w:pPr></w:lvl>'
        for i, ch in enumerate(("\u2022", "\u25e6")))
    abstract = parse_xml(f'<w:abstractNum {nsdecls("w")} w:abstractNumId="{abstract_id}">'
                         f'<w:multiLevelType w:val="hybridMultilevel"/>{levels}</w:abstractNum>')
    first_num = numbering.find(qn("w:num"))
    if first_num is not None:
        first_num.addprevious(abstract)  # abstractNum elements come before num elements
    else:
        numbering.append(abstract)
    num_id = 90
    numbering.append(parse_xml(f'<w:num {nsdecls("w")} w:numId="{num_id}">'
                               f'<w:abstractNumId w:val="{abstract_id}"/></w:num>'))
    return num_id


def bullet(document, text: str, num_id: int, level: int):
    p = document.add_paragraph(text, style="List Paragraph")
    p._p.get_or_add_pPr().append(parse_xml(
        f'<w:numPr {nsdecls("w")}><w:ilvl w:val="{level}"/><w:numId w:val="{num_id}"/>'
        '</w:numPr>'))
    return p


def add_footnote(document, paragraph, text: str) -> None:
    """Add footnote 1 with ``text``, referenced at the end of ``paragraph``."""
    xml = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
           f'<w:footnotes xmlns:w="{W_NS}">'
           '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p>'
           '</w:footnote><w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r>'
           '<w:continuationSeparator/></w:r></w:p></w:footnote>'
           '<w:footnote w:id="1"><w:p><w:pPr><w:pStyle w:val="FootnoteText"/></w:pPr>'
           '<w:r><w:rPr><w:vertAlign w:val="superscript"/></w:rPr><w:footnoteRef/></w:r>'
           f'<w:r><w:t xml:space="preserve"> {text}</w:t></w:r></w:p></w:footnote>'
           '</w:footnotes>').encode()
    part = Part(PackURI("/word/footnotes.xml"), FOOTNOTES_CT, xml, document.part.package)
    document.part.relate_to(part, RT.FOOTNOTES)
    paragraph._p.append(parse_xml(
        f'<w:r {nsdecls("w")}><w:rPr><w:vertAlign w:val="superscript"/></w:rPr>'
        '<w:footnoteReference w:id="1"/></w:r>'))


def build(path: Path) -> None:
    d = docx.Document()
    d.core_properties.title = "mineru-tui sample"
    d.core_properties.author = "mineru-tui"
    d.core_properties.created = dt.datetime(2026, 1, 1)
    d.core_properties.modified = dt.datetime(2026, 1, 1)

    d.add_heading("Quarterly report", level=1)
    p = d.add_paragraph("This sample shows what ")
    p.add_run("mineru-tui").bold = True
    p.add_run(" reads from a Word file: ")
    p.add_run("headings").italic = True
    p.add_run(", lists, tables with merged cells, links and notes.")
    add_footnote(d, p, "Everything is read locally; nothing leaves the machine.")

    d.add_heading("Highlights", level=2)
    bullets = add_bullet_numbering(d)
    bullet(d, "Revenue grew in every region", bullets, 0)
    bullet(d, "Europe led the growth", bullets, 1)
    bullet(d, "Costs stayed flat", bullets, 0)
    d.add_paragraph("Plan the next quarter", style="List Number")
    d.add_paragraph("Hire two engineers", style="List Number")

    d.add_heading("Results by region", level=2)
    rows = [("Region", "Q1", "Q2"), ("Europe", "120", "135"), ("Asia", "98", "110"),
            ("Total", "218", "245")]
    table = d.add_table(rows=len(rows) + 1, cols=3)
    table.style = "Table Grid"
    title = table.cell(0, 0).merge(table.cell(0, 2))  # a header spanning all columns
    title.text = "Revenue (kEUR)"
    for r, row in enumerate(rows, start=1):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    d.add_paragraph("Table 1: revenue per quarter.", style="Caption")

    d.add_heading("More", level=2)
    p = d.add_paragraph("The page reader and the MinerU output format are described at ")
    add_hyperlink(p, "the MinerU project", "https://github.com/opendatalab/MinerU")
    p.add_run(".")
    d.save(path)


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="Build the sample Word file mineru-tui's docs use.")
    ap.add_argument("out", nargs="?", type=Path, default=Path(__file__).with_name("sample.docx"),
                    help="where to write it (default: examples/sample.docx)")
    out = ap.parse_args().out
    build(out)
    print(out)
