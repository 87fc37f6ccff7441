"""MinerU 4's ``model_output.json`` (``docvortex.model`` 2.0) from the page reader's record.

The record is what ``<stem>_model.json`` holds: per page, the model's post-processed blocks
(``type``, ``bbox`` as fractions of the page, ``angle``, ``content``). MinerU 4 keeps the same
answers, with the text of text-like blocks as inline spans (``\\(...\\)`` pieces become
``equation_inline``) and tables, equations and code as strings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from mineru_tui.document.json_stream import json_chunks

_INLINE_TYPES = {"text", "ref_text", "doc_title", "paragraph_title", "title", "header", "footer",
                 "page_number", "aside_text", "page_footnote", "image_caption", "image_footnote",
                 "table_caption", "table_footnote", "chart_caption", "chart_footnote",
                 "code_caption", "code_footnote", "algorithm", "caption", "footnote", "phonetic",
                 "list", "index"}
_INLINE_MATH = re.compile(r"\\\((.+?)\\\)", re.S)


def _spans(text: str) -> list[dict]:
    out, pos = [], 0
    for m in _INLINE_MATH.finditer(text):
        if m.start() > pos:
            out.append({"type": "text", "content": text[pos:m.start()]})
        if m.group(1).strip():
            out.append({"type": "equation_inline", "content": m.group(1).strip()})
        pos = m.end()
    if pos < len(text):
        out.append({"type": "text", "content": text[pos:]})
    return out


def _block(b: dict) -> dict:
    t = b.get("type") or "text"
    d: dict = {"type": "doc_title" if t == "title" else t}
    if b.get("bbox"):
        d["bbox"] = [float(v) for v in b["bbox"]]
    if b.get("angle") is not None:
        d["angle"] = b["angle"]
    if b.get("sub_type"):
        d["sub_type"] = b["sub_type"]
    content = b.get("content")
    if t in _INLINE_TYPES:
        d["content"] = _spans(content) if isinstance(content, str) else []
    else:
        d["content"] = content if isinstance(content, str) else ""
    return d


def model_output_head(record: dict, middle: dict) -> dict | None:
    """``model_output.json`` without its pages (``"pages"`` holds None, in its place), or
    None when the record's pages cannot be listed the way the schema wants (strictly
    increasing, as printed). ``middle`` needs only the middle JSON's head."""
    pages = record.get("pages") or []
    numbers = [p.get("page_no", i + 1) - 1 for i, p in enumerate(pages)]
    if any(b <= a for a, b in zip(numbers, numbers[1:])) or any(n < 0 for n in numbers):
        return None
    full = middle.get("is_full_document", True)
    return {
        "schema": "docvortex.model",
        "schema_version": "2.0",
        "metadata": middle["metadata"],
        "extensions": {k: v for k, v in middle.get("extensions", {}).items()},
        "pages": None,
        "page_index_map": [] if full else numbers,
    }


def model_output_pages(record: dict) -> Iterator[list[dict]]:
    """The pages of ``model_output.json`` one by one."""
    return ([_block(b) for b in p.get("blocks", [])] for p in record.get("pages") or [])


def to_model_output(record: dict, middle: dict) -> dict | None:
    """The ``docvortex.model`` document for a page reader's record, or None when its pages
    cannot be listed the way the schema wants (strictly increasing, as printed)."""
    head = model_output_head(record, middle)
    return None if head is None else {**head, "pages": list(model_output_pages(record))}


def model_output_chunks(record: dict, middle: dict) -> Iterator[str] | None:
    """The text of ``json.dumps(to_model_output(record, middle), indent=2)`` page by page,
    or None (see :func:`model_output_head`)."""
    head = model_output_head(record, middle)
    return None if head is None else json_chunks(model_output_pages(record), head, "pages")
