"""MinerU 4's output set, written beside the 3.x one (names do not collide):

* ``middle_json.json`` — :func:`to_middle_v2`, the document as ``docvortex.middle`` 2.0;
* ``structured_content.json`` — :func:`to_structured_content`, each block as Markdown;
* ``markdown.md`` — the document's Markdown (the same text as ``<stem>.md``);
* ``model_output.json`` — for files the model read, MinerU 4's ``docvortex.model`` record
  of the raw answers (made by the page reader, :attr:`Document.meta` ``["model_output"]``);
* the images, under ``images/`` as for 3.x.

:func:`set_chunks` gives the JSON files of the set, page by page.
"""

from __future__ import annotations

from collections.abc import Iterator

from mineru_tui.document.controls import page_without_controls
from mineru_tui.document.json_stream import JsonList
from mineru_tui.document.mineru4.middle import (file_suffix, middle_v2_head, middle_v2_pages,
                                                mineru_extension, to_middle_v2)
from mineru_tui.document.mineru4.structured import (structured_head, structured_page,
                                                    to_structured_content)

MARKDOWN = "markdown.md"
MIDDLE = "middle_json.json"
STRUCTURED = "structured_content.json"
MODEL_OUTPUT = "model_output.json"
NAMES = (MARKDOWN, MIDDLE, STRUCTURED, MODEL_OUTPUT)

__all__ = ["MARKDOWN", "MIDDLE", "MODEL_OUTPUT", "NAMES", "STRUCTURED", "file_suffix",
           "mineru_extension", "set_chunks", "to_middle_v2", "to_structured_content"]


def set_chunks(doc, image_prefix: str = "images/", source: str | None = None,
               clean=page_without_controls) -> Iterator[tuple[str, str]]:
    """MinerU 4's JSON files for ``doc`` as (file name, text piece) pairs, page by page: the
    middle JSON and the structured content in one pass over the pages, then
    ``model_output.json``. ``markdown.md`` and the images are the 3.x set's (the writer's).
    ``clean`` gives a page without its control characters."""
    head = middle_v2_head(doc, source)
    middle, structured = JsonList(head, "pages"), JsonList(structured_head(head), "pages")
    for page in middle_v2_pages(doc, image_prefix, source, clean):
        yield MIDDLE, middle.item(page)
        yield STRUCTURED, structured.item(structured_page(page))
    yield MIDDLE, middle.end() + "\n"
    yield STRUCTURED, structured.end() + "\n"
    make = doc.meta.get("model_output")  # the page reader's: pieces, or None
    chunks = make(head) if make is not None else None
    if chunks is not None:
        for piece in chunks:
            yield MODEL_OUTPUT, piece
        yield MODEL_OUTPUT, "\n"
