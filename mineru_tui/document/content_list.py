"""MinerU's ``<stem>_content_list.json``: one flat entry per block, in reading order."""

from __future__ import annotations

from collections.abc import Iterator

from mineru_tui.document.controls import page_without_controls
from mineru_tui.document.escaping import code_fence, latex_links_safe
from mineru_tui.document.html_table import table_body_html
from mineru_tui.document.links import safe_image_name, safe_image_url
from mineru_tui.document.markdown import equation_latex
from mineru_tui.document.model import Block, BlockType, Document, SpanType, plain_text, walk


def _lines_text(block: Block) -> str:
    """A block's text as MinerU's content list has it: plain, inline equations as ``$...$``."""
    lines = []
    for line in block.lines:
        parts = []
        for s in line.spans:
            if s.type == SpanType.TEXT:
                parts.append(s.content)
            elif s.type == SpanType.INLINE_EQUATION and s.content.strip():
                parts.append(f"${latex_links_safe(s.content).strip()}$")
            elif s.type == SpanType.INTERLINE_EQUATION and s.content.strip():
                parts.append(f"$${latex_links_safe(s.content).strip()}$$")
            elif s.type == SpanType.FOOTNOTE_REF:
                parts.append(f"[^{s.content}]")
        text = "".join(parts).strip()
        if text:
            lines.append(text)
    return "\n".join(lines)


def _captions(block: Block, type: str) -> list[str]:
    return [_lines_text(b) for b in block.blocks if b.type == type]


def _bbox_key(entry: dict, block: Block, page_size: tuple[float, float] | None = None) -> dict:
    """The block's box as MinerU writes it in the content list.

    MinerU scales the middle JSON's page coordinates to 0-1000 per axis, truncating
    (``int(x0 * 1000 / page_width)``); without a page size the box is kept as it is.
    """
    if block.bbox is not None:
        if page_size and page_size[0] > 0 and page_size[1] > 0:
            w, h = page_size
            x0, y0, x1, y1 = block.bbox
            entry["bbox"] = [int(x0 * 1000 / w), int(y0 * 1000 / h),
                             int(x1 * 1000 / w), int(y1 * 1000 / h)]
        else:
            entry["bbox"] = [int(round(v)) for v in block.bbox]
    return entry


def _content_entry(block: Block, page_idx: int, image_prefix: str,
                   vlm: bool = False, page_size: tuple[float, float] | None = None) -> dict | None:
    t = block.type
    if t in (BlockType.TEXT, BlockType.TITLE, BlockType.REF_TEXT, BlockType.NOTES):
        text = _lines_text(block)
        if not text:
            return None
        entry: dict = {"type": "text", "text": text}
        if t == BlockType.TITLE:
            entry["text_level"] = block.level or 1
        if t == BlockType.NOTES:
            entry["sub_type"] = "notes"
    elif t == BlockType.LIST:
        entry = {"type": "list", "sub_type": block.sub_type or "text",
                 "list_items": [_lines_text(i) for i in walk(block.blocks)
                                if i.type != BlockType.LIST]}
    elif t == BlockType.TABLE:
        body = next((l.spans[0] for b in block.blocks if b.type == BlockType.TABLE_BODY
                     for l in b.lines[:1] if l.spans), None)
        picture = body.image_path if body is not None and safe_image_name(body.image_path) else None
        entry = {"type": "table", "img_path": image_prefix + picture if picture else "",
                 "table_caption": _captions(block, BlockType.TABLE_CAPTION),
                 "table_footnote": _captions(block, BlockType.TABLE_FOOTNOTE),
                 "table_body": table_body_html(block, image_prefix)}
        if block.sub_type:
            entry["sub_type"] = block.sub_type
    elif t == BlockType.IMAGE:
        path = url = ""
        for line in (l for b in block.blocks if b.type == BlockType.IMAGE_BODY for l in b.lines):
            for s in line.spans:
                if safe_image_name(s.image_path):
                    path = image_prefix + s.image_path
                elif safe_image_url(s.image_url):
                    url = safe_image_url(s.image_url)
        entry = {"type": "image", "img_path": path,
                 "image_caption": _captions(block, BlockType.IMAGE_CAPTION),
                 "image_footnote": _captions(block, BlockType.IMAGE_FOOTNOTE)}
        if url and not path:  # a web page's remote picture: its address, not a file
            entry["img_url"] = url
    elif t == BlockType.INTERLINE_EQUATION:
        # as the document has it (JSON needs no Markdown escaping) but for unsafe links
        latex = latex_links_safe(equation_latex(block))
        entry = {"type": "equation", "img_path": "", "text": f"$$\n{latex}\n$$" if latex else "",
                 "text_format": "latex"}
    elif t == BlockType.CODE:
        entry = {"type": "code", "sub_type": block.sub_type or "code",
                 "code_caption": _captions(block, BlockType.CODE_CAPTION),
                 "code_body": "\n".join(plain_text(b) for b in block.blocks
                                        if b.type == BlockType.CODE_BODY)}
    else:  # header, footer, page_number, page_footnote, aside_text ...
        text = _lines_text(block)
        if not text:
            return None
        entry = {"type": t, "text": text}
    if vlm:
        _as_mineru_vlm(entry, block)
    entry["page_idx"] = page_idx
    return _bbox_key(entry, block, page_size)


def _as_mineru_vlm(entry: dict, block: Block) -> None:
    """What MinerU's VLM content list has beyond the Office one (``_backend: "vlm"`` only).

    A reference keeps its own type, a picture carries its analysis text (``content``)
    and its ``sub_type`` (chart...), and a code block (not an algorithm) has its body
    fenced with its language, ``txt`` when unknown.
    """
    if block.type == BlockType.REF_TEXT:
        entry["type"] = "ref_text"
    elif block.type == BlockType.IMAGE:
        entry["content"] = " ".join(s.content for b in block.blocks if b.type == BlockType.IMAGE_BODY
                                    for line in b.lines for s in line.spans
                                    if s.type == SpanType.IMAGE).strip()
        if block.sub_type:
            entry["sub_type"] = block.sub_type
    elif block.type == BlockType.CODE and entry.get("sub_type") == "code":
        lang = block.extra.get("guess_lang") or "txt"
        entry["code_body"] = code_fence(entry["code_body"], lang)


def content_list_entries(doc: Document, image_prefix: str = "images/",
                         clean=page_without_controls) -> Iterator[dict]:
    """The content list's entries one by one, a page at a time (see :func:`to_content_list`);
    ``clean`` gives a page without its control characters."""
    for page in doc.pages:
        page = clean(page)
        for block in page.para_blocks + page.discarded_blocks:
            entry = _content_entry(block, page.page_idx, image_prefix, doc.backend == "vlm",
                                   page.page_size)
            if entry is not None:
                yield entry


def to_content_list(doc: Document, image_prefix: str = "images/") -> list[dict]:
    """MinerU's content list: one flat entry per block, in reading order, per page; its
    text holds no control or bidi-override character (:mod:`.controls`)."""
    return list(content_list_entries(doc, image_prefix))
