"""PDFs with their groundtruth by construction, for bench/headings_tables.py.

    pip install reportlab          # only this script needs it
    python bench/make_heading_pdfs.py OUT_DIR

Writes, each with ``<name>.truth.json`` (the headings as ``[level, text]`` in order, and
for each table its header and data rows):

* ``numbered_outline.pdf`` — a title, sections numbered three levels deep (1, 1.1, 1.1.1)
  in three heading sizes, and the PDF outline (bookmarks) of them all;
* ``numbered_plain.pdf`` — the same document without the outline;
* ``sized_plain.pdf`` — unnumbered headings told apart only by size and weight;
* ``chapters_appendix.pdf`` — "Chapter 1" ... chapters, their 1.1 sections, an appendix
  with A.1 / A.2, an outline;
* ``paper_mixed.pdf`` — unnumbered Abstract / References beside numbered sections, third
  level in bold body-size type, a two-line section title, numbered lists in the text;
* ``table_2p.pdf``, ``table_3p.pdf``, ``table_5p.pdf`` — one ruled table over 2, 3 and 5
  pages, its header row repeated on every page.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

BODY = ParagraphStyle("body", fontName="Times-Roman", fontSize=10, leading=13, spaceAfter=6)
SIZES = {1: ("Helvetica-Bold", 22), 2: ("Helvetica-Bold", 16), 3: ("Helvetica-Bold", 13),
         4: ("Helvetica-BoldOblique", 11)}
WORDS = ("the reader keeps every row of a table that runs over several pages and gives each "
         "heading the level its section number and its type size say it has").split()


def _style(level: int) -> ParagraphStyle:
    font, size = SIZES[level]
    return ParagraphStyle(f"h{level}", fontName=font, fontSize=size, leading=size * 1.25,
                          spaceBefore=size * 0.6, spaceAfter=size * 0.4)


def _body(seed: int, sentences: int = 4) -> str:
    out = []
    for s in range(sentences):
        n = 14 + (seed * 7 + s * 3) % 9
        words = [WORDS[(seed * 5 + s * 11 + k) % len(WORDS)] for k in range(n)]
        out.append(" ".join(words).capitalize() + ".")
    return " ".join(out)


class _Doc(SimpleDocTemplate):
    """Bookmarks every heading paragraph (its level) when ``outline`` is on."""

    def __init__(self, path, outline: bool):
        super().__init__(str(path), pagesize=A4, leftMargin=60, rightMargin=60,
                         topMargin=60, bottomMargin=60)
        self.outline, self.n = outline, 0

    def afterFlowable(self, flowable):
        level = getattr(flowable, "heading_level", None)
        if level is None or not self.outline:
            return
        self.n += 1
        key = f"h{self.n}"
        self.canv.bookmarkPage(key)
        self.canv.addOutlineEntry(flowable.getPlainText(), key, level=level - 1)


def _heading(text: str, level: int, style_level: int | None = None) -> Paragraph:
    p = Paragraph(text, _style(style_level or level))
    p.heading_level = level
    return p


def numbered(path: Path, outline: bool) -> list:
    story, truth, seed = [], [], 0
    story.append(_heading("Annual Report on Table Reading", 1))
    truth.append([1, "Annual Report on Table Reading"])
    names = ["Introduction", "Method", "Results", "Discussion"]
    for a, name in enumerate(names, 1):
        story.append(_heading(f"{a} {name}", 2))
        truth.append([2, f"{a} {name}"])
        story.append(Paragraph(_body(seed := seed + 1), BODY))
        for b in range(1, 3):
            story.append(_heading(f"{a}.{b} {name} part {b}", 3))
            truth.append([3, f"{a}.{b} {name} part {b}"])
            story.append(Paragraph(_body(seed := seed + 1, 6), BODY))
            if b == 2:
                for c in range(1, 3):
                    story.append(_heading(f"{a}.{b}.{c} Detail {c} of {name.lower()}", 4))
                    truth.append([4, f"{a}.{b}.{c} Detail {c} of {name.lower()}"])
                    story.append(Paragraph(_body(seed := seed + 1, 5), BODY))
    _Doc(path, outline).build(story)
    return truth


def sized(path: Path) -> list:
    story, truth, seed = [], [], 0
    story.append(_heading("Field Notes from the Archive", 1))
    truth.append([1, "Field Notes from the Archive"])
    for name in ["Origins", "Collections", "Conservation"]:
        story.append(_heading(f"The {name}", 2))
        truth.append([2, f"The {name}"])
        story.append(Paragraph(_body(seed := seed + 1), BODY))
        for sub in ["Early years", "Later years"]:
            story.append(_heading(f"{sub} of the {name.lower()}", 3))
            truth.append([3, f"{sub} of the {name.lower()}"])
            story.append(Paragraph(_body(seed := seed + 1, 7), BODY))
    _Doc(path, False).build(story)
    return truth


def chapters(path: Path) -> list:
    story, truth, seed = [], [], 0
    for a, name in enumerate(["Foundations", "Practice"], 1):
        story.append(_heading(f"Chapter {a} {name}", 1))
        truth.append([1, f"Chapter {a} {name}"])
        story.append(Paragraph(_body(seed := seed + 1), BODY))
        for b in range(1, 4):
            story.append(_heading(f"{a}.{b} Topic {b} in {name.lower()}", 2))
            truth.append([2, f"{a}.{b} Topic {b} in {name.lower()}"])
            story.append(Paragraph(_body(seed := seed + 1, 6), BODY))
    story.append(_heading("Appendix A Tables", 1))
    truth.append([1, "Appendix A Tables"])
    for b in range(1, 3):
        story.append(_heading(f"A.{b} Supplementary table {b}", 2))
        truth.append([2, f"A.{b} Supplementary table {b}"])
        story.append(Paragraph(_body(seed := seed + 1, 5), BODY))
    _Doc(path, True).build(story)
    return truth


def paper(path: Path) -> list:
    """A paper's mix: unnumbered Abstract / References at the section level, third-level
    headings in bold body-size type, a two-line section title, a run-in numbered list."""
    story, truth, seed = [], [], 0
    story.append(_heading("On Reading Long Tables and Deep Outlines", 1))
    truth.append([1, "On Reading Long Tables and Deep Outlines"])
    story.append(_heading("Abstract", 2))
    truth.append([2, "Abstract"])
    story.append(Paragraph(_body(seed := seed + 1, 5), BODY))
    bold_body = ParagraphStyle("b", fontName="Times-Bold", fontSize=10, leading=13, spaceBefore=6)
    for a, name in enumerate(["Background", "A considerably longer section title that needs "
                              "two lines to be set in the heading type of this paper",
                              "Evaluation"], 1):
        story.append(_heading(f"{a} {name}", 2))
        truth.append([2, f"{a} {name}"])
        story.append(Paragraph(_body(seed := seed + 1, 6), BODY))
        for b in range(1, 3):
            p = Paragraph(f"{a}.{b} Point {b} of section {a}", bold_body)
            p.heading_level = 3
            story.append(p)
            truth.append([3, f"{a}.{b} Point {b} of section {a}"])
            story.append(Paragraph(_body(seed := seed + 1, 7), BODY))
            story.append(Paragraph(f"1. {_body(seed, 1)}", BODY))
            story.append(Paragraph(f"2. {_body(seed + 1, 1)}", BODY))
    story.append(_heading("References", 2))
    truth.append([2, "References"])
    story.append(Paragraph(_body(seed := seed + 1, 3), BODY))
    _Doc(path, False).build(story)
    return truth


def long_table(path: Path, pages: int) -> dict:
    header = ["Code", "Description", "Region", "Amount"]
    rows_per_page = 34
    n = rows_per_page * pages - 6  # the last page is not full
    rows = [[f"C{1000 + i}", f"Item number {i} of the ledger", ["North", "South", "East", "West"][i % 4],
             f"{(i * 37) % 1000}.{i % 100:02d}"] for i in range(n)]
    table = Table([header] + rows, repeatRows=1, colWidths=[60, 220, 80, 80])
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black),
                               ("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold"),
                               ("FONTSIZE", (0, 0), (-1, -1), 9)]))
    doc = SimpleDocTemplate(str(path), pagesize=A4, topMargin=50, bottomMargin=50)
    doc.build([Paragraph(f"Ledger over {pages} pages", _style(2)), Spacer(1, 6), table])
    return {"headings": [[1, f"Ledger over {pages} pages"]], "tables": [{"header": header, "rows": rows}]}


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    made = {
        "numbered_outline": lambda p: {"headings": numbered(p, True), "outline": True},
        "numbered_plain": lambda p: {"headings": numbered(p, False)},
        "sized_plain": lambda p: {"headings": sized(p)},
        "chapters_appendix": lambda p: {"headings": chapters(p), "outline": True},
        "paper_mixed": lambda p: {"headings": paper(p)},
        "table_2p": lambda p: long_table(p, 2),
        "table_3p": lambda p: long_table(p, 3),
        "table_5p": lambda p: long_table(p, 5),
    }
    for name, make in made.items():
        truth = make(out / f"{name}.pdf")
        (out / f"{name}.truth.json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
        print(out / f"{name}.pdf")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path, nargs="?", default=Path("bench/results/heading_pdfs"),
                    metavar="OUT_DIR", help="where the PDFs and their .truth.json go")
    main(ap.parse_args().out)
