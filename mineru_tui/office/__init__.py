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
    if kind in ODF_LEGACY:
        doc = _read_odf_legacy(path, kind)
        if not any(page.para_blocks for page in doc.pages) and not doc.warnings:
            # Nothing empty is reported as done without a word.
            doc.warnings.append("no content found: the document is empty, or all of its "
                                "text is hidden")
        return doc
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


ODF_LEGACY = ("odt", "ods", "odp", "rtf", "xls", "doc", "ppt")


def _read_odf_legacy(path: str | Path, kind: str) -> Document:
    """OpenDocument, RTF and the legacy binary Office formats."""
    if kind in ("odt", "ods", "odp"):
        from mineru_tui.office.odf import read_odf
        return read_odf(path, kind)
    if kind == "rtf":
        from mineru_tui.office.rtf import read_rtf
        return read_rtf(path)
    if kind == "xls":
        from mineru_tui.office.xls import read_xls
        return read_xls(path)
    if kind == "doc":
        from mineru_tui.office.doc import read_doc
        return read_doc(path)
    if kind == "ppt":
        from mineru_tui.office.ppt import read_ppt
        return read_ppt(path)
    raise ValueError(f"not an Office kind: {kind!r}")
