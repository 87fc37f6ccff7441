"""MinerU 4's output set, written beside the 3.x one (names do not collide):

* ``middle_json.json`` — :func:`to_middle_v2`, the document as ``docvortex.middle`` 2.0;
* ``structured_content.json`` — :func:`to_structured_content`, each block as Markdown;
* ``markdown.md`` — the document's Markdown (the same text as ``<stem>.md``);
* ``model_output.json`` — for files the model read, MinerU 4's ``docvortex.model`` record
  of the raw answers (made by the page reader, :attr:`Document.meta` ``["model_output"]``);
* the images, under ``images/`` as for 3.x.

:func:`render_set` gives every file of the set by name.
"""

from __future__ import annotations

from mineru_tui.document.mineru4.middle import file_suffix, mineru_extension, to_middle_v2
from mineru_tui.document.mineru4.structured import to_structured_content

MARKDOWN = "markdown.md"
MIDDLE = "middle_json.json"
STRUCTURED = "structured_content.json"
MODEL_OUTPUT = "model_output.json"
NAMES = (MARKDOWN, MIDDLE, STRUCTURED, MODEL_OUTPUT)

__all__ = ["MARKDOWN", "MIDDLE", "MODEL_OUTPUT", "NAMES", "STRUCTURED", "file_suffix",
           "mineru_extension", "render_set", "to_middle_v2", "to_structured_content"]


def render_set(doc, markdown: str, dumps, image_prefix: str = "images/",
               source: str | None = None) -> dict[str, bytes]:
    """MinerU 4's files for ``doc`` (images excluded: the 3.x set writes the same ones).

    ``markdown`` is the document's Markdown, ``dumps`` the JSON writer of the 3.x set (so
    both sets escape controls alike)."""
    middle = to_middle_v2(doc, image_prefix=image_prefix, source=source)
    files = {MARKDOWN: markdown.encode("utf-8"),
             MIDDLE: dumps(middle).encode("utf-8"),
             STRUCTURED: dumps(to_structured_content(middle)).encode("utf-8")}
    make = doc.meta.get("model_output")
    if make is not None:
        data = make(middle)
        if data is not None:
            files[MODEL_OUTPUT] = dumps(data).encode("utf-8")
    return files
