"""The document as the Markdown and the content list see it: no control characters.

PDF text layers and model answers can carry what Office XML cannot: ESC, BEL, BS, DEL,
C1 controls (U+009B is CSI to many terminals), bidi overrides and isolates. Before the
Markdown or the content list is written, every text field of the document (span text
and LaTeX, ready table HTML, list markers, note labels, types and names) loses them by
:func:`mineru_tui.console.document_text`, the same character rule the terminal output
uses. Dropping them before escaping (not after) matters: a control between two backticks
removed after a code fence was chosen would join them into a longer run. The middle
JSON keeps the text as the document has it; its writer escapes these characters.
"""

from __future__ import annotations

import dataclasses

from mineru_tui.console import document_text
from mineru_tui.document.model import Block, Cell, Document, Line, Page, Span, Table

_MODEL = (Span, Line, Block, Cell, Table, Page)


def _clean(value):
    if isinstance(value, str):
        return document_text(value)
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, _MODEL):
        changes = {f.name: _clean(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return dataclasses.replace(value, **changes)
    if isinstance(value, dict):  # a block's or page's extra keys (a code block's language)
        return {k: _clean(v) for k, v in value.items()}
    return value


def without_controls(doc: Document) -> Document:
    """A copy of ``doc`` whose text holds no control, DEL, C1 or bidi-override character
    (the page's images and warnings are shared, not copied)."""
    return dataclasses.replace(doc, pages=[_clean(p) for p in doc.pages])
