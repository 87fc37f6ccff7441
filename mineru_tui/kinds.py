"""The kinds of file this tool reads, in one table: who reads each, and what its pages are.

Detection (:mod:`mineru_tui.detect`) names a file's kind from its bytes; this table says
the rest. A kind's ``reader`` is a ``"module:function"`` that turns a path into a
:class:`~mineru_tui.document.Document` (imported only when a file of that kind is read);
``unit`` is what a user calls its pages ("3 slides", "12 chapters"); ``pages`` marks the
kinds read page by page with the model (PDF, images), whose reader is the page reader,
not a function of a path alone.

Adding a format is one row here, its detection in ``detect.py``, and its reader module.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module


@dataclass(frozen=True)
class Kind:
    """One kind of input. ``name`` is what :func:`mineru_tui.detect.detect` says."""

    name: str
    reader: str  # "module:function": the function that reads a file of this kind
    unit: str = "page"
    pages: bool = False  # read page by page with the model

    def read_function(self):
        """The reader, imported on first use (``module:function`` of :attr:`reader`)."""
        module, _, function = self.reader.partition(":")
        return getattr(import_module(module), function)

    def count(self, n: int) -> str:
        """``n`` pages in this kind's words: "1 page", "3 slides", "12 chapters"."""
        return f"{n} {self.unit}{'s' * (n != 1)}"


_OFFICE = "mineru_tui.office"
KINDS: dict[str, Kind] = {k.name: k for k in (
    # Office Open XML
    Kind("docx", f"{_OFFICE}.docx:read_docx"),
    Kind("pptx", f"{_OFFICE}.pptx:read_pptx", unit="slide"),
    Kind("xlsx", f"{_OFFICE}.xlsx:read_xlsx", unit="sheet"),
    # web and text formats (docs/formats-web.md)
    Kind("html", f"{_OFFICE}.html:read_html"),
    Kind("mhtml", f"{_OFFICE}.html:read_mhtml"),
    Kind("epub", f"{_OFFICE}.epub:read_epub", unit="chapter"),
    Kind("csv", f"{_OFFICE}.csv:read_csv", unit="table"),
    # OpenDocument, RTF, the legacy binary formats (docs/formats-odf-legacy.md)
    Kind("odt", f"{_OFFICE}.odf:read_odt"),
    Kind("ods", f"{_OFFICE}.odf:read_ods", unit="sheet"),
    Kind("odp", f"{_OFFICE}.odf:read_odp", unit="slide"),
    Kind("rtf", f"{_OFFICE}.rtf:read_rtf"),
    Kind("doc", f"{_OFFICE}.doc:read_doc"),
    Kind("xls", f"{_OFFICE}.xls:read_xls", unit="sheet"),
    Kind("ppt", f"{_OFFICE}.ppt:read_ppt", unit="slide"),
    # read by the model, page by page (mineru_tui/reader)
    Kind("pdf", "mineru_tui.reader:read_pages", pages=True),
    Kind("image", "mineru_tui.reader:read_pages", pages=True),
)}

# Kinds read from their structure (no model), in the table's order.
DIRECT_KINDS = tuple(name for name, k in KINDS.items() if not k.pages)
PAGE_KINDS = tuple(name for name, k in KINDS.items() if k.pages)


def kind(name: str) -> Kind:
    """The :class:`Kind` called ``name``; ``ValueError`` for a name no reader knows."""
    try:
        return KINDS[name]
    except KeyError:
        raise ValueError(f"not a kind of input: {name!r}") from None


def page_unit(name: str, n: int = 1) -> str:
    """``n`` pages of a file of kind ``name`` in words; "page" for an unknown kind."""
    found = KINDS.get(name)
    return found.count(n) if found else f"{n} page{'s' * (n != 1)}"
