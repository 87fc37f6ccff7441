"""Direct reading: .docx, .pptx, .xlsx/.xlsm, HTML, MHTML, EPUB and CSV/TSV to the shared
document model.

Nothing here renders pages to images. Each reader takes a path (already checked by
:mod:`mineru_tui.detect` to be a sane OOXML zip of its kind) and returns a
:class:`~mineru_tui.document.Document` with ``backend="office"``.
"""

from __future__ import annotations

from pathlib import Path

from mineru_tui.document import Document


def read_office(path: str | Path, kind: str) -> Document:
    """Read an Office file of ``kind`` ("docx", "pptx" or "xlsx")."""
    if kind == "docx":
        from mineru_tui.office.docx import read_docx
        return read_docx(path)
    if kind == "pptx":
        from mineru_tui.office.pptx import read_pptx
        return read_pptx(path)
    if kind == "xlsx":
        from mineru_tui.office.xlsx import read_xlsx
        return read_xlsx(path)
    web = _web_reader(kind)
    if web is not None:
        return web(path)
    raise ValueError(f"not an Office kind: {kind!r}")


def _web_reader(kind: str):
    """The reader of a web or text format ("html", "mhtml", "epub", "csv"), or None."""
    if kind == "html":
        from mineru_tui.office.html import read_html
        return read_html
    if kind == "mhtml":
        from mineru_tui.office.html import read_mhtml
        return read_mhtml
    if kind == "epub":
        from mineru_tui.office.epub import read_epub
        return read_epub
    if kind == "csv":
        from mineru_tui.office.csv import read_csv
        return read_csv
    return None
