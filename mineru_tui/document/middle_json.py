"""MinerU's ``<stem>_middle.json``: the model itself, page by page, as JSON."""

from __future__ import annotations

from collections.abc import Iterator

from mineru_tui import __version__
from mineru_tui.document.html_table import span_table_html
from mineru_tui.document.json_stream import json_chunks
from mineru_tui.document.links import safe_image_name, safe_image_url, safe_url
from mineru_tui.document.model import Block, Document, Span, SpanType, walk


def _span_json(span: Span, image_prefix: str) -> dict:
    d: dict = {"type": span.type, "content": span.content}
    if span.bbox is not None:
        d["bbox"] = span.bbox
    if span.style:
        d["style"] = sorted(span.style)
    if safe_url(span.link):  # the same link rule as Markdown: no raw unsafe target
        d["link"] = safe_url(span.link)
    if safe_image_name(span.image_path):
        d["image_path"] = span.image_path
    elif safe_image_url(span.image_url):  # a web page's remote picture, never fetched
        d["image_url"] = safe_image_url(span.image_url)
    if span.type == SpanType.TABLE:
        d["html"] = span_table_html(span, image_prefix)
        if not span.content:
            del d["content"]
    if span.score is not None:
        d["score"] = span.score
    if span.checked is not None:
        d["checked"] = span.checked
    return d


def _block_json(block: Block, image_prefix: str) -> dict:
    d: dict = {"type": block.type}
    if block.bbox is not None:
        d["bbox"] = block.bbox
    for key in ("level", "sub_type", "depth", "marker", "note_id", "angle", "index", "score"):
        value = getattr(block, key)
        if value is not None:
            d[key] = value
    if block.lines or not block.blocks:
        d["lines"] = [{"bbox": l.bbox, "spans": [_span_json(s, image_prefix) for s in l.spans]}
                      if l.bbox is not None else
                      {"spans": [_span_json(s, image_prefix) for s in l.spans]}
                      for l in block.lines]
    if block.blocks:
        d["blocks"] = [_block_json(b, image_prefix) for b in block.blocks]
    for key, value in block.extra.items():
        d.setdefault(key, value)
    return d


def number_blocks(doc: Document) -> None:
    """Give every para block its reading-order ``index`` (per page, MinerU style)."""
    for page in doc.pages:
        for i, block in enumerate(b for b in walk(page.para_blocks)):
            block.index = i


def page_json(page, image_prefix: str = "images/") -> dict:
    """One page of the middle JSON's ``pdf_info``."""
    p: dict = {
        "para_blocks": [_block_json(b, image_prefix) for b in page.para_blocks],
        "discarded_blocks": [_block_json(b, image_prefix) for b in page.discarded_blocks],
        "page_idx": page.page_idx,
        "page_size": list(page.page_size) if page.page_size else None,
    }
    if page.name is not None:
        p["page_name"] = page.name
    for key, value in page.extra.items():
        p.setdefault(key, value)
    return p


def _head(doc: Document) -> dict:
    return {"pdf_info": None, "_backend": doc.backend, "_version_name": f"mineru-tui {__version__}"}


def to_middle_json(doc: Document, image_prefix: str = "images/") -> dict:
    """MinerU's middle JSON: ``{"pdf_info": [pages...], "_backend": ..., "_version_name": ...}``."""
    return {**_head(doc), "pdf_info": [page_json(page, image_prefix) for page in doc.pages]}


def middle_json_chunks(doc: Document, image_prefix: str = "images/") -> Iterator[str]:
    """The text of ``json.dumps(to_middle_json(doc), indent=2)`` page by page
    (:mod:`.json_stream`): one page's JSON in memory at a time."""
    return json_chunks((page_json(page, image_prefix) for page in doc.pages), _head(doc), "pdf_info")
