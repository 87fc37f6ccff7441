"""Word (.docx, .docm, .dotx): :func:`read_docx` reads the package into the document model.

``reader`` drives the parts in order; ``body`` walks the body (with ``tables``, ``fields``,
``checkbox``, ``symbols``, ``embedded`` for charts/diagrams/altChunks and ``layout`` for
lists and headings); ``styles``, ``numbering`` and ``notes`` read the parts of the same names;
``wml`` holds the WordprocessingML names.
"""

from mineru_tui.office.docx.reader import read_docx

__all__ = ["read_docx"]
