"""The document model every backend fills, and the renderers that turn it into output.

* :mod:`.model` — :class:`Document` → :class:`Page` → :class:`Block` → :class:`Line` →
  :class:`Span` (MinerU's middle-JSON shape), and the small builders readers use;
* :mod:`.markdown` — :func:`to_markdown` (tables as pipe tables, or HTML when cells are
  merged or nested; ``$...$`` / ``$$...$$`` equations; safe links only);
* :mod:`.content_list` — :func:`to_content_list`, MinerU's ``<stem>_content_list.json``;
* :mod:`.middle_json` — :func:`to_middle_json`, MinerU's ``<stem>_middle.json``;
* :mod:`.html_table`, :mod:`.escaping`, :mod:`.links` — the pieces the writers share.

Everything public is importable from ``mineru_tui.document`` directly.
"""

from mineru_tui.document.content_list import to_content_list
from mineru_tui.document.escaping import escape_md
from mineru_tui.document.links import safe_url
from mineru_tui.document.markdown import block_to_md, spans_to_md, table_to_md, to_markdown
from mineru_tui.document.middle_json import number_blocks, to_middle_json
from mineru_tui.document.model import (CHECKED_BOX, STYLES, UNCHECKED_BOX, BBox, Block, BlockType,
                                       Cell, Document, Line, Page, Span, SpanType, Table,
                                       checkbox_span, equation_block, image_block, list_block,
                                       plain_text, table_block, text_block, text_span,
                                       title_block, walk)

__all__ = [
    "BBox", "Block", "BlockType", "CHECKED_BOX", "Cell", "Document", "Line", "Page", "STYLES",
    "Span", "SpanType", "Table", "UNCHECKED_BOX", "block_to_md", "checkbox_span",
    "equation_block", "escape_md", "image_block", "list_block", "number_blocks", "plain_text",
    "safe_url", "spans_to_md", "table_block", "table_to_md", "text_block", "text_span",
    "title_block", "to_content_list", "to_markdown", "to_middle_json", "walk",
]
