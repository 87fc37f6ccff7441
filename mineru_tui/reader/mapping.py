"""A page's post-processed VLM blocks → a :class:`~mineru_tui.document.Page` (``backend="vlm"``).

The blocks are ``mineru-vl-utils``' output (type, normalised bbox, angle, content, and for text
``merge_prev``), in the model's reading order. They become MinerU's middle-JSON shape:

* ``title``/``doc_title`` → title level 1, ``paragraph_title`` → level 2;
* text-like types → text blocks whose ``\\(...\\)`` pieces are inline-equation spans;
  ``ref_text`` keeps its type; ``list_item`` already became ``text`` in post-processing;
* ``equation`` (``\\[ ... \\]``) → an interline equation; a ``formula_number`` next to it
  becomes its ``\\tag{}``;
* ``table`` (HTML) → a table block; ``image``/``chart`` → an image block whose picture is
  cropped from the page (the analysis, when asked for, is its alt text); ``code``/``algorithm``
  → a code block; captions and footnotes join the neighbouring table, picture or code;
* ``header``, ``footer``, ``page_number``, ``page_footnote``, ``aside_text`` → discarded blocks;
* a ``text`` block with ``merge_prev`` continues the page's previous text block (as the
  library's ``json2md`` joins them: a space, none between CJK).

Boxes are written in page units (PDF points, or pixels for images). Each block records where
its text came from (``source``: model, text_layer) and, when generation did not end normally,
its ``finish_reason`` (length, repetition, error) and ``error``.
"""

from __future__ import annotations

import io
import re

from mineru_tui.document import (Block, BlockType, Document, Line, Page, Span, SpanType,
                                 equation_block, image_block, table_block, text_span, title_block)

TITLE_LEVELS = {"doc_title": 1, "title": 1, "paragraph_title": 2}
DISCARDED = {"header", "footer", "page_number", "page_footnote", "aside_text"}
VISUALS = {"table": "table", "image": "image", "chart": "image", "code": "code", "algorithm": "code"}
CAPTIONS = {"table_caption": ("table", "caption"), "table_footnote": ("table", "footnote"),
            "image_caption": ("image", "caption"), "image_footnote": ("image", "footnote"),
            "code_caption": ("code", "caption"), "caption": (None, "caption"),
            "footnote": (None, "footnote")}
_INLINE_MATH = re.compile(r"\\\((.+?)\\\)", re.S)
_CJK = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")


def set_extra(obj, **values) -> None:
    """Record facts MinerU's schema has no field for (written as extra keys in the middle JSON)."""
    obj.extra.update({k: v for k, v in values.items() if v is not None})


def inline_spans(text: str) -> list[Span]:
    """Text with ``\\(...\\)`` inline maths split into text and inline-equation spans."""
    spans: list[Span] = []
    pos = 0
    for m in _INLINE_MATH.finditer(text):
        if m.start() > pos:
            spans.append(text_span(text[pos:m.start()]))
        spans.append(Span(SpanType.INLINE_EQUATION, m.group(1).strip()))
        pos = m.end()
    if pos < len(text):
        spans.append(text_span(text[pos:]))
    return spans


def text_lines(text: str, source: str = "model") -> list[Line]:
    """Lines of spans: the model's ``\\(...\\)`` as inline equations; a PDF text layer's
    ``<sup>``/``<sub>`` runs as superscript/subscript spans."""
    if source == "text_layer":
        from mineru_tui.pdf.blocks_text import text_to_spans

        return [Line(text_to_spans(line)) for line in text.split("\n") if line.strip()]
    return [Line(inline_spans(line)) for line in text.split("\n") if line.strip()]


def _latex(content: str) -> str:
    s = content.strip()
    if s.startswith("\\["):
        s = s[2:]
    if s.endswith("\\]"):
        s = s[:-2]
    return s.strip()


def page_bbox(bbox, page_size) -> list[float]:
    w, h = page_size
    x0, y0, x1, y1 = bbox
    return [round(x0 * w, 2), round(y0 * h, 2), round(x1 * w, 2), round(y1 * h, 2)]


def crop_jpeg(page_image, bbox) -> bytes:
    """The picture of an image block, cut from the page as MinerU saves it (JPEG)."""
    w, h = page_image.size
    box = (int(bbox[0] * w), int(bbox[1] * h), max(int(bbox[2] * w), int(bbox[0] * w) + 1),
           max(int(bbox[3] * h), int(bbox[1] * h) + 1))
    buf = io.BytesIO()
    page_image.crop(box).convert("RGB").save(buf, "JPEG", quality=90)
    return buf.getvalue()


def to_page(blocks: list, page_idx: int, page_size, page_image, doc: Document) -> Page:
    """Map one page's post-processed blocks (in reading order) into a document page."""
    page = Page(page_idx, page_size=tuple(page_size))
    mapped: list[tuple[dict, Block | None]] = []
    last_text: Block | None = None
    for b in blocks:
        t = b.get("type")
        content = b.get("content")
        block: Block | None
        source = b.get("_source", "model")
        if t in TITLE_LEVELS:
            lines = text_lines((content or "").replace("\n", " ").strip(), source)
            block = title_block(lines[0].spans if lines else [], TITLE_LEVELS[t])
        elif t == "equation":
            block = equation_block(_latex(content or ""))
        elif t == "table":
            block = table_block(html_body=content or "")
            if page_image is not None:  # the printed table's picture, as MinerU saves it
                # (kept for every part of a table continued over pages)
                block.blocks[0].lines[0].spans[0].image_path = doc.add_image(
                    crop_jpeg(page_image, b["bbox"]), "jpg", stem="table")
        elif t in ("image", "chart"):
            name = doc.add_image(crop_jpeg(page_image, b["bbox"]), "jpg") if page_image is not None else None
            block = image_block(name or "", alt=(content or "").strip(), sub_type=b.get("sub_type") or (t if t == "chart" else None))
            if name is None:
                block.blocks[0].lines[0].spans[0].image_path = None
        elif t in ("code", "algorithm"):
            body = Block(BlockType.CODE_BODY, lines=[Line([text_span(content or "")])])
            block = Block(BlockType.CODE, blocks=[body], sub_type=t)
        elif t in ("list", "image_block", "equation_block"):
            continue  # containers: their members are blocks of their own
        else:
            kind = BlockType.REF_TEXT if t == "ref_text" else (t if t in DISCARDED else BlockType.TEXT)
            if t == "text" and b.get("merge_prev") and content and last_text is not None:
                _append_text(last_text, content, source)
                block = Block(BlockType.TEXT)
                set_extra(block, merged_into_previous=True)
            else:
                block = Block(kind, lines=text_lines(content or "", source))
            if t not in DISCARDED and t not in CAPTIONS and t != "formula_number" and kind != BlockType.REF_TEXT:
                set_extra(block, vlm_type=t if t != "text" else None)
        block.bbox = page_bbox(b["bbox"], page_size)
        block.angle = b.get("angle")
        set_extra(block, source=source,
                  finish_reason=b.get("_finish") if b.get("_finish") not in (None, "stop", "text_layer") else None,
                  error=b.get("_error"))
        if t == "text" and not b.get("merge_prev"):
            last_text = block
        elif t == "text" and last_text is None:
            last_text = block
        mapped.append((b, block))
    _attach_captions(mapped)
    _attach_formula_numbers(mapped)
    for b, block in mapped:
        if block is None:
            continue
        if b.get("type") in DISCARDED:
            page.discarded_blocks.append(block)
        else:
            page.para_blocks.append(block)
    return page


def _append_text(target: Block, content: str, source: str = "model") -> None:
    """Join a continuation onto a text block as ``json2md`` does (space unless CJK)."""
    lines = text_lines(content, source)
    if not lines:
        return
    if not target.lines:
        target.lines = lines
        return
    sep = "" if _CJK.search(content) else " "
    if sep:
        lines[0].spans.insert(0, text_span(sep))
    target.lines[-1].spans.extend(lines[0].spans)
    target.lines.extend(lines[1:])


def _gap(a, b) -> float:
    """Distance between two normalised boxes (0 when they touch or overlap)."""
    dx = max(0.0, b[0] - a[2], a[0] - b[2])
    dy = max(0.0, b[1] - a[3], a[1] - b[3])
    return (dx * dx + dy * dy) ** 0.5


def _attach_captions(mapped: list) -> None:
    """Captions and footnotes join the closest (by box distance) table, picture or code of
    their kind among the two blocks before and after them in reading order; the others stay
    text blocks."""
    for k, (b, block) in enumerate(mapped):
        kind = CAPTIONS.get(b.get("type"))
        if kind is None or block is None:
            continue
        family, role = kind
        near = (k + 1, k - 1, k + 2, k - 2) if role == "caption" else (k - 1, k + 1, k - 2, k + 2)
        candidates = [j for j in near if 0 <= j < len(mapped) and mapped[j][1] is not None
                      and VISUALS.get(mapped[j][0].get("type")) is not None
                      and (family is None or VISUALS[mapped[j][0]["type"]] == family)]
        if not candidates:
            block.type = BlockType.TEXT
            set_extra(block, vlm_type=b.get("type"))
            continue
        best = min(candidates, key=lambda j: (round(_gap(b["bbox"], mapped[j][0]["bbox"]), 4), near.index(j)))
        host = mapped[best][1]
        fam = VISUALS[mapped[best][0]["type"]]
        block.type = f"{fam}_{role}"
        if role == "caption" and best > k:
            body_at = next((i for i, kid in enumerate(host.blocks) if kid.type.endswith("_body")), 0)
            caps = [i for i, kid in enumerate(host.blocks[:body_at]) if kid.type.endswith("_caption")]
            host.blocks.insert(len(caps) if caps else body_at, block)
        else:
            host.blocks.append(block)
        mapped[k] = (b, None)


def _attach_formula_numbers(mapped: list) -> None:
    """A formula number next to an equation becomes its ``\\tag{}``."""
    for k, (b, block) in enumerate(mapped):
        if b.get("type") != "formula_number" or block is None:
            continue
        number = "".join(s.content for line in block.lines for s in line.spans).strip().strip("()").strip()
        for j in (k - 1, k + 1):
            if 0 <= j < len(mapped) and mapped[j][1] is not None and mapped[j][0].get("type") == "equation" and number:
                span = mapped[j][1].lines[0].spans[0]
                if "\\tag" not in span.content:
                    span.content = f"{span.content} \\tag{{{number}}}"
                mapped[k] = (b, None)
                break
        else:
            block.type = BlockType.TEXT
