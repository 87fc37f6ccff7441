"""The .csv/.tsv reader: one table, cells exactly as written.

The character set comes from a byte-order mark, else strict UTF-8, else the statistical
detector (:mod:`mineru_tui.office.html.charset`: a Shift-JIS or cp1252 file reads right).
The delimiter is the one of ``, ; TAB | :`` that splits the first lines into the most
consistent number of fields (quotes respected, through :mod:`csv`); a ``.tsv``/``.tab``
name means TAB unless the content clearly disagrees. The first row is the header row.
Rows shorter than the widest are padded with empty cells. Numbers stay the text they are
(``007``, ``1,5`` and ``1e3`` are not reformatted).

The file is streamed: past :data:`MAX_CELLS` cells the rest is left out with a
``content cut:`` warning, as for a worksheet; a field longer than :data:`MAX_FIELD`
characters ends the reading there, with the same warning.
"""

from __future__ import annotations

import codecs
import csv
import io
from pathlib import Path

from mineru_tui.document import Cell, Document, Page, Table, table_block, text_block, text_span
from mineru_tui.errors import InputError, cut_warning
from mineru_tui.office.html.charset import bom_encoding, detect_encoding

from mineru_tui.office.limits import MAX_CSV_CELLS as MAX_CELLS
from mineru_tui.office.limits import MAX_CSV_FIELD as MAX_FIELD
from mineru_tui.office.limits import MAX_CSV_LINE, MAX_CSV_SEPARATORS

SAMPLE = 64 << 10  # bytes looked at to decide encoding and dialect
_DELIMITERS = (",", ";", "\t", "|", ":")


def read_csv(path: str | Path) -> Document:
    """Read a CSV/TSV file into a one-page :class:`Document` holding one table."""
    path = Path(path)
    with open(path, "rb") as f:
        sample = f.read(SAMPLE)
    if b"\x00" in sample and not bom_encoding(sample):
        raise InputError("not a text file (it holds NUL bytes), so not a CSV table")
    encoding = detect_encoding(sample, declared=False)
    text_sample = codecs.getincrementaldecoder(encoding)("replace").decode(sample)
    delimiter = sniff_delimiter(text_sample, path.suffix.lower() in (".tsv", ".tab"))
    doc = Document(backend="office")
    rows, width = _rows(path, encoding, delimiter, doc)
    page = Page(page_idx=0)
    doc.pages.append(page)
    if not rows:  # the epilogue of every format says it is empty (office/__init__.py)
        return doc
    table = Table([[Cell([text_block([text_span(v)])] if v.strip() else [], header=i == 0)
                    for v in row + [""] * (width - len(row))] for i, row in enumerate(rows)])
    page.para_blocks.append(table_block(table))
    return doc


def sniff_delimiter(text: str, tab_name: bool = False) -> str:
    """The delimiter that splits the sample's lines most consistently."""
    lines = text.splitlines()[:60]
    if len(lines) > 1 and not text.endswith(("\n", "\r")):
        lines = lines[:-1]  # the sample may end inside a line
    sample = "\n".join(lines)
    best, best_score = ("\t" if tab_name else ","), (0.0, 0)
    for d in _DELIMITERS:
        try:
            counts = [len(r) for r in csv.reader(io.StringIO(sample), delimiter=d) if r]
        except csv.Error:
            continue
        if not counts or max(counts) < 2:
            continue
        mode = max(set(counts), key=counts.count)
        if mode < 2:
            continue
        consistency = counts.count(mode) / len(counts)
        score = (round(consistency, 2) + (0.05 if tab_name and d == "\t" else 0), mode)
        if score > best_score:
            best, best_score = d, score
    return best


def _rows(path: Path, encoding: str, delimiter: str, doc: Document) -> tuple[list[list[str]], int]:
    rows: list[list[str]] = []
    cells = width = 0
    old = csv.field_size_limit(MAX_FIELD)
    try:
        with open(path, "r", encoding=encoding, errors="replace", newline="") as f:
            reader = csv.reader(_bounded_lines(f, delimiter, doc), delimiter=delimiter)
            while True:
                try:
                    row = next(reader)
                except StopIteration:
                    break
                except csv.Error as exc:
                    doc.warnings.append(cut_warning(f"row {len(rows) + 1} could not be read "
                                                    f"({exc}); the rest of the file is left out"))
                    break
                if not row or (len(row) == 1 and not row[0].strip()):
                    continue
                if row and row[0].startswith("\ufeff"):
                    row[0] = row[0][1:]
                if cells + max(len(row), width) > MAX_CELLS:
                    doc.warnings.append(cut_warning(
                        f"the table has more than {MAX_CELLS} cells; the rows after row "
                        f"{len(rows)} are left out"))
                    break
                cells += len(row)
                width = max(width, len(row))
                rows.append(row)
    finally:
        csv.field_size_limit(old)
    return rows, width


def _bounded_lines(f, delimiter: str, doc: Document):
    """The file's lines for the csv module, stopped (with a ``content cut:`` warning) at a
    line longer than :data:`MAX_CSV_LINE` or once :data:`MAX_CSV_SEPARATORS` separators and
    line ends went by: the csv module builds a whole row before any cell count is
    checked, so one 150 MB line of commas would be a list of 75 million fields."""
    fed = 0
    while True:
        line = f.readline(MAX_CSV_LINE + 1)
        if not line:
            return
        if len(line) > MAX_CSV_LINE:
            doc.warnings.append(cut_warning(f"a line is longer than {MAX_CSV_LINE >> 20} MiB "
                                            "characters; it and the rest of the file are left out"))
            return
        fed += line.count(delimiter) + 1
        if fed > MAX_CSV_SEPARATORS:
            doc.warnings.append(cut_warning(f"the file has more than {MAX_CSV_SEPARATORS:,} "
                                            "fields; the rest is left out"))
            return
        yield line
