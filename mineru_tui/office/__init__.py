"""Direct OOXML reading: .docx, .pptx and .xlsx/.xlsm to the shared document model.

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
    raise ValueError(f"not an Office kind: {kind!r}")
