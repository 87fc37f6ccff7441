"""MinerU 4's ``middle_json.json``: the document model as ``docvortex.middle`` 2.0.

MinerU 4 (4.0.12) reads and writes the middle JSON defined by docvortex's schema classes
(``docvortex.schema.MiddleJson``): ``{"schema": "docvortex.middle", "schema_version": "2.0",
"metadata": {...}, "extensions": {...}, "is_full_document": ..., "pages": [{"page_idx",
"blocks"}]}``. It differs from the 3.x ``pdf_info`` shape we write as ``<stem>_middle.json``:

* a block holds its text as *inline spans* (``text`` with ``styles``, ``equation_inline``,
  ``code_inline``, ``hyperlink``), not lines of spans: the schema forbids extra keys, so line
  boxes and our own facts (where text came from, a generation cut short) stay in the 3.x file;
* boxes are fractions of the page (0-1), required on every top-level block of a PDF;
* titles are ``doc_title`` (level 1) or ``paragraph_title`` (levels 2-6);
* a composite block (table, image, code, list) lists its children under ``content``; a
  table's body is its HTML and may name the picture of the printed table (``image_path``);
* headers, footers, page numbers and page footnotes are blocks of the page like the others
  (3.x keeps them in ``discarded_blocks``);
* a paragraph or table continued from the previous page stays where it was printed, marked
  ``continues_prev``; its text or rows are already joined into the first part (as our 3.x
  files have them), so MinerU's renderers show them once.

``extensions.mineru`` is MinerU's own record of the tier and parse mode (its schema allows
only those two keys); ``extensions.mineru_tui`` keeps our effort and backend.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePath

from mineru_tui import __version__
from mineru_tui.document.controls import page_without_controls
from mineru_tui.document.escaping import list_marker
from mineru_tui.document.html_table import span_table_html
from mineru_tui.document.links import safe_image_name, safe_image_url, safe_url
from mineru_tui.document.markdown import equation_latex
from mineru_tui.document.model import Block, BlockType, Document, Span, SpanType, plain_text

SCHEMA = "docvortex.middle"
SCHEMA_VERSION = "2.0"

# docvortex's FileSuffix values, and the suffixes we read that mean one of them.
FILE_SUFFIXES = {"pdf", "doc", "docx", "ppt", "pptx", "xls", "xlsx", "rtf", "csv", "tsv", "epub",
                 "html", "mhtml", "ofd", "odt", "ods", "odp"}
_SUFFIX_ALIASES = {"docm": "docx", "dotx": "docx", "dotm": "docx", "pptm": "pptx", "potx": "pptx",
                   "ppsx": "pptx", "xlsm": "xlsx", "xltx": "xlsx", "htm": "html", "xhtml": "html",
                   "mht": "mhtml", "txt": "csv"}
# Our efforts as MinerU 4 tiers: low reads only the text layer (MinerU's flash+txt); medium and
# high run the VLM's layout and read crops (MinerU's two-step extract: the advanced tier).
TIERS = {"low": "flash", "medium": "advanced", "high": "advanced"}

_STYLES = {"bold": "bold", "italic": "italic", "underline": "underline", "strike": "strikethrough",
           "superscript": "superscript", "subscript": "subscript"}
_AUX = {BlockType.HEADER, BlockType.FOOTER, BlockType.PAGE_NUMBER, BlockType.ASIDE_TEXT}
_VISUAL_ROLES = {"caption", "footnote"}


def file_suffix(doc: Document, source: str | None) -> str:
    """docvortex's ``file_suffix`` for this document: ``pdf`` for PDFs and page images
    (MinerU 4 wraps an image in a PDF), else the source's own suffix."""
    kind = doc.meta.get("kind")
    if kind in ("pdf", "image") or doc.backend == "vlm":
        return "pdf"
    suffix = PurePath(source).suffix.lower().lstrip(".") if source else ""
    suffix = _SUFFIX_ALIASES.get(suffix, suffix)
    if suffix in FILE_SUFFIXES:
        return suffix
    return kind if kind in FILE_SUFFIXES else "docx"


def mineru_extension(doc: Document) -> dict:
    """``extensions.mineru``: the tier and parse mode MinerU 4 would record for this reading."""
    if doc.backend != "vlm":
        return {"tier": "flash", "parse_mode": "txt"}  # what MinerU 4 records for Office files
    effort = doc.meta.get("effort") or "medium"
    # MinerU 4 decides txt or ocr once per document; we decide per page (the page reader
    # notes it as text_layer.use_text_layer): txt when most pages used their text layer
    # (at effort high the model reads every block, whatever the layer holds)
    heads = getattr(doc.pages, "heads", None)  # pages on disk: their extras, not the pages
    extras = [extra for _, extra in heads()] if heads is not None else [p.extra for p in doc.pages]
    layer = 0 if effort == "high" else sum(
        1 for extra in extras if extra.get("mode") == "text-layer"
        or (extra.get("text_layer") or {}).get("use_text_layer"))
    return {"tier": TIERS.get(effort, "advanced"),
            "parse_mode": "txt" if doc.pages and layer * 2 >= len(doc.pages) else "ocr"}


# ---------------------------------------------------------------------------------------
# inline content


def _text_span(text: str, style: frozenset[str]) -> dict | None:
    if not text:
        return None
    if "code" in style and text.strip():  # MinerU 4 writes a blank code span as `` ``
        return {"type": "code_inline", "content": text}
    styles = sorted({_STYLES[s] for s in style if s in _STYLES})
    if "superscript" in styles and "subscript" in styles:
        styles.remove("subscript")
    d: dict = {"type": "text", "content": text}
    if styles:
        d["styles"] = styles
    return d


def _span(span: Span) -> dict | None:
    if span.type in (SpanType.INLINE_EQUATION, SpanType.INTERLINE_EQUATION):
        latex = span.content.strip()
        return {"type": "equation_inline", "content": latex} if latex else None
    if span.type == SpanType.FOOTNOTE_REF:
        return _text_span(f"[^{span.content}]", frozenset()) if span.content else None
    if span.type != SpanType.TEXT:
        return None  # pictures and tables inside a line are blocks of their own here
    return _text_span(span.content, span.style)


def inline_content(lines, sep: str = "\n") -> list[dict]:
    """A block's lines as docvortex inline spans; lines are joined with ``sep``, links
    (only the safe ones, as everywhere) become ``hyperlink`` spans."""
    out: list[dict] = []
    for n, line in enumerate(lines):
        if n and out:
            _append(out, {"type": "text", "content": sep})
        for s in line.spans:
            d = _span(s)
            if d is None:
                continue
            url = safe_url(s.link) if s.type == SpanType.TEXT else None
            if url:
                if out and out[-1]["type"] == "hyperlink" and out[-1]["url"] == url:
                    _append(out[-1]["content"], d)
                else:
                    out.append({"type": "hyperlink", "url": url, "content": [d]})
            else:
                _append(out, d)
    while out and out[-1]["type"] == "text" and not out[-1]["content"].strip():
        out.pop()
    return out


def _append(out: list[dict], d: dict) -> None:
    """Join neighbouring text spans of one style, as docvortex normalises them."""
    if out and d["type"] in ("text", "code_inline") and out[-1]["type"] == d["type"] \
            and out[-1].get("styles") == d.get("styles"):
        out[-1]["content"] += d["content"]  # `ctrl``K` would show two empty code spans
    else:
        out.append(d)


# ---------------------------------------------------------------------------------------
# blocks


class _Boxes:
    """Block boxes as fractions of the page (docvortex wants 0-1, x1 > x0, y1 > y0)."""

    def __init__(self, page_size):
        self.size = page_size if page_size and page_size[0] > 0 and page_size[1] > 0 else None

    def of(self, bbox) -> list[float] | None:
        if self.size is None or not bbox:
            return None
        w, h = self.size
        x0, y0, x1, y1 = (min(max(v, 0.0), 1.0) for v in
                          (bbox[0] / w, bbox[1] / h, bbox[2] / w, bbox[3] / h))
        x0, x1 = sorted((x0, x1))
        y0, y1 = sorted((y0, y1))
        eps = 0.0001  # a zero-width box (a rule, one glyph column) still has to have an area
        if x1 - x0 < eps:
            x0, x1 = (x0, x0 + eps) if x0 + eps <= 1 else (x1 - eps, x1)
        if y1 - y0 < eps:
            y0, y1 = (y0, y0 + eps) if y0 + eps <= 1 else (y1 - eps, y1)
        return [round(x0, 4), round(y0, 4), round(x1, 4), round(y1, 4)]

    def union(self, block: Block) -> list[float] | None:
        """The block's box, or the union of its parts' boxes (some readers box only lines)."""
        if block.bbox:
            return self.of(block.bbox)
        boxes = [l.bbox for l in block.lines if l.bbox] + [b.bbox for b in block.blocks if b.bbox]
        if not boxes:
            return None
        return self.of([min(b[0] for b in boxes), min(b[1] for b in boxes),
                        max(b[2] for b in boxes), max(b[3] for b in boxes)])


def _with_bbox(d: dict, bbox) -> dict:
    if bbox is not None:
        d["bbox"] = bbox
    return d


def _image_payload(span: Span | None, image_prefix: str) -> dict:
    if span is None:
        return {}
    if safe_image_name(span.image_path):
        return {"image_path": image_prefix + span.image_path}
    url = safe_image_url(span.image_url)
    return {"image_url": url} if url else {}


def _body_span(block: Block, body_type: str) -> Span | None:
    for kid in block.blocks:
        if kid.type == body_type and kid.lines and kid.lines[0].spans:
            return kid.lines[0].spans[0]
    return None


class _Writer:
    def __init__(self, doc: Document, image_prefix: str, boxes: _Boxes):
        self.doc, self.prefix, self.boxes = doc, image_prefix, boxes

    def visual(self, block: Block, family: str, body: dict, index: int, bbox) -> dict:
        """A table/image/code block: captions before the body, footnotes after, the body
        at the parent's index and box (docvortex checks both)."""
        body["index"] = index
        _with_bbox(body, bbox)
        content, placed = [], False
        for kid in block.blocks:  # in our order: MinerU 4 renders the children as listed
            role = kid.type.rpartition("_")[2]
            if kid.type.endswith("_body") and not placed:
                content.append(body)
                placed = True
            elif kid.type.startswith(family + "_") and role in _VISUAL_ROLES:
                content.append(_with_bbox({"type": f"{family}_{role}",
                                           "content": inline_content(kid.lines)},
                                          self.boxes.of(kid.bbox)))
        if not placed:
            content.insert(0, body)
        return _with_bbox({"type": family, "index": index, "content": content}, bbox)

    def table(self, block: Block, index: int, bbox) -> dict:
        span = _body_span(block, BlockType.TABLE_BODY)
        html = span_table_html(span, self.prefix) if span is not None else ""
        body = {"type": "table_body", "content": html or ""}
        body.update(_image_payload(span, self.prefix))
        d = self.visual(block, "table", body, index, bbox)
        if block.extra.get("merged_into_previous"):
            d["continues_prev"] = True
        return d

    def image(self, block: Block, index: int, bbox) -> dict:
        span = _body_span(block, BlockType.IMAGE_BODY)
        # the model's picture analysis is the body's content, as MinerU 4 has it; an Office
        # picture's alt text has no place in the schema
        analysis = span.content.strip() if span is not None and self.doc.backend == "vlm" else ""
        body = {"type": "image_body", "content": analysis}
        body.update(_image_payload(span, self.prefix))
        d = self.visual(block, "image", body, index, bbox)
        if block.sub_type:
            d["sub_type"] = block.sub_type
        return d

    def code(self, block: Block, index: int, bbox) -> dict:
        text = "\n".join(plain_text(b) for b in block.blocks if b.type == BlockType.CODE_BODY)
        if block.sub_type == "algorithm":
            lines = [l for b in block.blocks if b.type == BlockType.CODE_BODY for l in b.lines]
            d = self.visual(block, "code", {"type": "algorithm_body",
                                            "content": inline_content(lines)}, index, bbox)
            d["sub_type"] = "algorithm"
            return d
        lang = block.extra.get("guess_lang") or (
            block.sub_type if block.sub_type not in (None, "code") else "") or "txt"
        d = self.visual(block, "code", {"type": "code_body", "content": text}, index, bbox)
        d.update(sub_type="code", guess_lang=lang)
        return d

    def list(self, block: Block, bbox=None, index: int | None = None) -> dict:
        """Items become text blocks whose text starts with their marker (MinerU 4 renders
        list items as they are written); deeper items become nested lists."""
        sub = "ref_text" if block.sub_type == "ref_text" else "text"
        root: dict = {"type": "list", "content": [], "sub_type": sub}
        stack = [root]  # stack[d] is the list holding depth-d items
        last = -1  # the depth of the item before
        for item in block.blocks:
            if item.type == BlockType.LIST:
                stack[-1]["content"].append(self.list(item))
                continue
            # one level deeper than the item before at most (a list's first item is at the
            # top; one at depth 2 under one at 0 nests once, as our Markdown shows it): an
            # empty list level would indent it as code
            depth = min(max(0, item.depth or 0), last + 1)
            last = depth
            while len(stack) <= depth:
                nested = {"type": "list", "content": [], "sub_type": sub}
                stack[-1]["content"].append(nested)
                stack.append(nested)
            del stack[depth + 1:]
            # an item's lines joined by a space: MinerU 4 does not indent an item's second
            # line, and a Markdown reader would take a sub-list after it as the item's text
            content = inline_content(item.lines, " ") if item.lines else (
                [{"type": "text", "content": plain_text(item)}] if plain_text(item) else [])
            marker, label = list_marker((item.marker or "").strip() or None)
            _prefix_marker(content, marker + (" " + item.marker.strip() if label else ""))
            stack[-1]["content"].append({"type": sub, "content": content})
        if index is not None:
            root["index"] = index
        return _with_bbox(root, bbox)

    def block(self, block: Block, index: int, in_body: bool = True) -> list[dict]:
        """The top-level blocks for one of ours (pictures inside a paragraph follow it).

        Furniture among the body's blocks (an Office comment is an ``aside_text`` there) is
        text: our Markdown shows it, and MinerU 4's leaves page furniture out."""
        t = block.type
        bbox = self.boxes.union(block)
        if t == BlockType.TITLE:
            level = max(1, min(int(block.level or 1), 6))
            d = {"type": "doc_title" if level == 1 else "paragraph_title",
                 "content": inline_content(block.lines), "level": level}
        elif t == BlockType.TABLE:
            return [self.table(block, index, bbox)]
        elif t == BlockType.IMAGE:
            return [self.image(block, index, bbox)]
        elif t == BlockType.CODE:
            return [self.code(block, index, bbox)]
        elif t == BlockType.LIST:
            return [self.list(block, bbox, index)]
        elif t == BlockType.INTERLINE_EQUATION:
            d = {"type": "equation", "content": equation_latex(block)}
        elif t in _AUX and not in_body:
            d = {"type": t, "content": inline_content(block.lines)}
        elif t == BlockType.PAGE_FOOTNOTE:
            d = {"type": "page_footnote", "content": inline_content(block.lines)}
        elif block.blocks and not block.lines:  # any other composite: its text
            text = plain_text(block)
            d = {"type": "text", "content": [{"type": "text", "content": text}] if text else []}
        else:
            d = {"type": "ref_text" if t == BlockType.REF_TEXT else "text",
                 "content": inline_content(block.lines)}
            if block.extra.get("merged_into_previous"):
                d["continues_prev"] = True
        d["index"] = index
        out = [_with_bbox(d, bbox)]
        for span in (s for l in block.lines for s in l.spans if s.type == SpanType.IMAGE):
            payload = _image_payload(span, self.prefix)
            if payload:  # an inline picture: a picture block after its paragraph
                out.append(_with_bbox({"type": "image", "content": [
                    _with_bbox({"type": "image_body", "content": "", **payload}, bbox)]}, bbox))
        return out


def _prefix_marker(content: list[dict], marker: str) -> None:
    head = {"type": "text", "content": marker + " "}
    if content and content[0]["type"] == "text" and not content[0].get("styles"):
        content[0]["content"] = head["content"] + content[0]["content"]
    else:
        content.insert(0, head)


def _page_blocks(doc: Document, page, writer: _Writer) -> list[dict]:
    # Discarded blocks are page furniture: 2.0 has types for the textual ones; a discarded
    # picture (a letterhead's logo) has none MinerU 4's Markdown leaves out, so it is not
    # listed (its file stays in images/ and in the 3.x middle JSON).
    furniture = []
    for b in page.discarded_blocks:
        if b.type in _AUX or b.type == BlockType.PAGE_FOOTNOTE:
            furniture.append(b)
        elif b.lines and plain_text(b):
            furniture.append(Block(BlockType.ASIDE_TEXT, lines=b.lines, bbox=b.bbox))
    headers = [b for b in furniture if b.type == BlockType.HEADER]
    rest = [b for b in furniture if b.type != BlockType.HEADER]
    out: list[dict] = []
    for block in headers + page.para_blocks + rest:
        for d in writer.block(block, len(out), in_body=not any(block is f for f in furniture)):
            d["index"] = len(out)
            for kid in d.get("content", []):  # a visual body shares its parent's index
                if isinstance(kid, dict) and kid.get("type", "").endswith("_body"):
                    kid["index"] = d["index"]
            out.append(d)
    return out


def middle_v2_head(doc: Document, source: str | None = None) -> dict:
    """``middle_json.json`` without its pages (``"pages"`` holds None, in its place)."""
    ours = {"backend": doc.backend}
    for key in ("effort", "engine", "model"):
        if doc.meta.get(key):
            ours[key] = doc.meta[key]
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "metadata": {"file_suffix": file_suffix(doc, source),
                     "producer": {"name": "mineru-tui", "version": __version__}},
        "extensions": {"mineru": mineru_extension(doc), "mineru_tui": ours},
        "is_full_document": not doc.meta.get("page_selection"),
        "pages": None,
    }


def middle_v2_pages(doc: Document, image_prefix: str = "images/",
                    source: str | None = None, clean=page_without_controls) -> Iterator[dict]:
    """The pages of ``middle_json.json`` one by one (a long document's never all at once);
    ``clean`` gives a page without its control characters."""
    suffix = file_suffix(doc, source)
    for page in doc.pages:
        page = clean(page)
        boxes = _Boxes(page.page_size if doc.backend == "vlm" or suffix == "pdf" else None)
        writer = _Writer(doc, image_prefix, boxes)
        blocks = _page_blocks(doc, page, writer)
        if suffix == "pdf":  # every top-level block of a fixed-layout page needs a box
            for d in blocks:
                d.setdefault("bbox", [0.0, 0.0, 1.0, 1.0])
        yield {"page_idx": page.page_idx, "blocks": blocks}


def to_middle_v2(doc: Document, image_prefix: str = "images/", source: str | None = None) -> dict:
    """The document as MinerU 4's ``middle_json.json`` (``docvortex.middle`` 2.0)."""
    return {**middle_v2_head(doc, source), "pages": list(middle_v2_pages(doc, image_prefix, source))}
