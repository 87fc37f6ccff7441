"""Direct reading: Office, OpenDocument, RTF, the legacy binary formats, HTML, MHTML, EPUB
and CSV/TSV to the shared document model.

Nothing here renders pages to images. :func:`read_office` takes a path (already checked by
:mod:`mineru_tui.detect` to be a sane file of its kind), calls the kind's reader from the
table of kinds (:mod:`mineru_tui.kinds`) and ends every format the same way
(:func:`epilogue`): a :class:`~mineru_tui.document.Document` with ``backend="office"``.
"""

from __future__ import annotations

from pathlib import Path

from mineru_tui.document import Document
from mineru_tui.kinds import kind as _kind

# The one warning an empty document gets, whatever its format.
EMPTY_WARNING = "no content found: the document is empty, or all of its text is hidden"


def read_office(path: str | Path, kind: str) -> Document:
    """Read a file of ``kind`` ("docx", "odt", "csv"... any kind not read by the model)."""
    found = _kind(kind)
    if found.pages:
        raise ValueError(f"not a kind read from its structure: {kind!r}")
    return epilogue(found.read_function()(path), sheets=found.unit == "sheet")


def epilogue(doc: Document, sheets: bool = False) -> Document:
    """What every format's reading ends with: a document without content says so, in the
    same words for every format (nothing empty is reported as done without a word)."""
    if not has_content(doc, sheets) and EMPTY_WARNING not in doc.warnings:
        doc.warnings.append(EMPTY_WARNING)
    return doc


def has_content(doc: Document, sheets: bool = False) -> bool:
    """Whether any page holds a block. In a workbook (``sheets``), the heading a reader
    writes from a sheet's name is not content: a workbook of empty sheets is empty."""
    from mineru_tui.document import BlockType, plain_text

    for page in doc.pages:
        for block in page.para_blocks:
            if sheets and block.type == BlockType.TITLE and page.name and \
                    plain_text(block).strip() == page.name.strip():
                continue
            return True
    return False
