"""The document model every backend fills, and the one renderer that turns it into output.

The model is MinerU's *middle JSON*: a document is a list of pages; a page holds
``para_blocks`` (the content, in reading order) and ``discarded_blocks`` (headers,
footers, page numbers...). A block is made of lines, a line of spans. Composite blocks
(table, image, code, list) hold child blocks instead of lines, exactly as MinerU nests
``table_body`` / ``table_caption`` / ``table_footnote`` inside a ``table``.

Office readers and the VLM page reader both produce a :class:`Document`; nothing in here
knows OOXML or model tokens. Outputs:

* :func:`to_markdown` — Markdown (tables as pipe tables, or HTML when cells are merged or
  nested; ``$...$`` / ``$$...$$`` equations; safe links only),
* :func:`to_content_list` — MinerU's ``<stem>_content_list.json``,
* :func:`to_middle_json` — MinerU's ``<stem>_middle.json``.

Office-only facts that MinerU's schema has no field for (span styles, link targets, list
depth and markers, structured table cells, a check box's state) ride along as extra keys;
MinerU readers ignore unknown keys.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from mineru_tui import __version__


class BlockType:
    """Block type names, as MinerU spells them (plus a few office-only ones)."""

    TITLE = "title"
    TEXT = "text"
    LIST = "list"
    TABLE = "table"
    TABLE_BODY = "table_body"
    TABLE_CAPTION = "table_caption"
    TABLE_FOOTNOTE = "table_footnote"
    IMAGE = "image"
    IMAGE_BODY = "image_body"
    IMAGE_CAPTION = "image_caption"
    IMAGE_FOOTNOTE = "image_footnote"
    INTERLINE_EQUATION = "interline_equation"
    CODE = "code"
    CODE_BODY = "code_body"
    CODE_CAPTION = "code_caption"
    REF_TEXT = "ref_text"
    HEADER = "header"
    FOOTER = "footer"
    PAGE_NUMBER = "page_number"
    PAGE_FOOTNOTE = "page_footnote"
    ASIDE_TEXT = "aside_text"
    NOTES = "notes"  # office only: a slide's speaker notes


class SpanType:
    """Span type names, as MinerU spells them (plus ``footnote_ref`` for office notes)."""

    TEXT = "text"
    INLINE_EQUATION = "inline_equation"
    INTERLINE_EQUATION = "interline_equation"
    IMAGE = "image"
    TABLE = "table"
    FOOTNOTE_REF = "footnote_ref"


# Styles a span may carry; Markdown renders the first four, HTML tags the last two.
STYLES = ("bold", "italic", "strike", "underline", "superscript", "subscript", "code")

BBox = list[float]


@dataclass
class Span:
    """A run of content with one type and one set of styles.

    ``content`` is the text (or LaTeX for equations, alt text for images). ``link`` is a
    hyperlink target; ``image_path`` names an image in :attr:`Document.images`; ``html``
    or ``table`` carry a table body. ``checked`` is set (True/False) only on a check box:
    a text span whose content is ``[x]`` or ``[ ]``, which Markdown writes unescaped
    (a GitHub task-list box) wherever that cannot start a link (see :func:`checkbox_span`).
    """

    type: str = SpanType.TEXT
    content: str = ""
    style: frozenset[str] = frozenset()
    link: str | None = None
    image_path: str | None = None
    html: str | None = None
    table: "Table | None" = None
    bbox: BBox | None = None
    score: float | None = None
    checked: bool | None = None

    @property
    def is_checkbox(self) -> bool:
        return self.checked is not None


@dataclass
class Line:
    """One line of a block: spans in reading order."""

    spans: list[Span] = field(default_factory=list)
    bbox: BBox | None = None


@dataclass
class Block:
    """A layout block: lines of spans, or child blocks for composite types.

    ``level`` is a title's heading level (1 = top). Inside a ``list`` block, each child
    is an item with ``depth`` (0 = outermost) and ``marker`` (``"-"`` or ``"3."``).
    ``index`` is the reading-order index MinerU writes; ``angle`` the text rotation.
    """

    type: str
    lines: list[Line] = field(default_factory=list)
    blocks: list["Block"] = field(default_factory=list)
    bbox: BBox | None = None
    level: int | None = None
    sub_type: str | None = None
    depth: int | None = None
    marker: str | None = None
    note_id: str | None = None
    angle: int | None = None
    index: int | None = None
    score: float | None = None


@dataclass
class Cell:
    """A table cell. Covered cells of a merge are not listed (HTML semantics)."""

    blocks: list[Block] = field(default_factory=list)
    colspan: int = 1
    rowspan: int = 1
    header: bool = False


@dataclass
class Table:
    """A table as rows of cells; a cell may hold paragraphs, lists and nested tables."""

    rows: list[list[Cell]] = field(default_factory=list)

    def has_merges(self) -> bool:
        return any(c.colspan > 1 or c.rowspan > 1 for row in self.rows for c in row)

    def is_simple(self) -> bool:
        """True when a Markdown pipe table can hold it without loss."""
        if not self.rows or self.has_merges():
            return False
        width = len(self.rows[0])
        for row in self.rows:
            if len(row) != width:
                return False
            for cell in row:
                if any(b.type not in (BlockType.TEXT, BlockType.TITLE) for b in cell.blocks):
                    return False
        return True

    def to_html(self, image_prefix: str = "") -> str:
        """The table as one line of HTML, with colspan/rowspan and nested tables kept."""
        out = ["<table>"]
        for row in self.rows:
            out.append("<tr>")
            for cell in row:
                tag = "th" if cell.header else "td"
                attrs = ""
                if cell.colspan > 1:
                    attrs += f' colspan="{cell.colspan}"'
                if cell.rowspan > 1:
                    attrs += f' rowspan="{cell.rowspan}"'
                out.append(f"<{tag}{attrs}>{_cell_html(cell, image_prefix)}</{tag}>")
            out.append("</tr>")
        out.append("</table>")
        return "".join(out)


@dataclass
class Page:
    """One page (or slide, or sheet)."""

    page_idx: int
    para_blocks: list[Block] = field(default_factory=list)
    discarded_blocks: list[Block] = field(default_factory=list)
    page_size: tuple[float, float] | None = None
    name: str | None = None  # a sheet's or slide's own name


@dataclass
class Document:
    """A parsed document: pages, the image files it refers to, and warnings.

    ``images`` maps an image's file name (as used in spans' ``image_path``) to its bytes;
    writers put them under ``images/``. ``backend`` is MinerU's ``_backend`` value
    (``"office"`` for direct OOXML reading, ``"vlm"`` for the page reader).
    """

    pages: list[Page] = field(default_factory=list)
    backend: str = "office"
    images: dict[str, bytes] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def add_image(self, data: bytes, ext: str, stem: str = "image") -> str:
        """Store image bytes under a fresh unique name and return that name."""
        ext = ext.lower().lstrip(".") or "bin"
        name = f"{stem}_{len(self.images) + 1:03d}.{ext}"
        while name in self.images:
            name = f"{stem}_{len(self.images) + 2:03d}.{ext}"
        self.images[name] = data
        return name

    def iter_blocks(self) -> Iterator[Block]:
        """Every content block of every page, depth first (children after parents)."""
        for page in self.pages:
            yield from walk(page.para_blocks)


# ---------------------------------------------------------------------------------------
# Small constructors the readers use


def text_span(content: str, style: Iterable[str] = (), link: str | None = None) -> Span:
    return Span(SpanType.TEXT, content, frozenset(style), link)


CHECKED_BOX, UNCHECKED_BOX = "[x]", "[ ]"


def checkbox_span(checked: bool, link: str | None = None) -> Span:
    """A check box as its own text span: ``[x]`` when ticked, ``[ ]`` when not.

    It is text (MinerU readers that only know text spans still show the box), and it is
    never merged into neighbouring text, so the Markdown writer can leave its brackets
    unescaped where that is safe.
    """
    return Span(SpanType.TEXT, CHECKED_BOX if checked else UNCHECKED_BOX, link=link,
                checked=bool(checked))


def text_block(spans: list[Span], type: str = BlockType.TEXT, **kw) -> Block:
    return Block(type, lines=[Line(spans)], **kw)


def title_block(spans: list[Span], level: int) -> Block:
    return Block(BlockType.TITLE, lines=[Line(spans)], level=max(1, min(int(level), 6)))


def equation_block(latex: str) -> Block:
    span = Span(SpanType.INTERLINE_EQUATION, latex)
    return Block(BlockType.INTERLINE_EQUATION, lines=[Line([span])])


def image_block(image_path: str, alt: str = "", captions: Iterable[Block] = (),
                footnotes: Iterable[Block] = (), sub_type: str | None = None) -> Block:
    body = Block(BlockType.IMAGE_BODY,
                 lines=[Line([Span(SpanType.IMAGE, alt, image_path=image_path)])])
    kids = [body] + [_retype(b, BlockType.IMAGE_CAPTION) for b in captions]
    kids += [_retype(b, BlockType.IMAGE_FOOTNOTE) for b in footnotes]
    return Block(BlockType.IMAGE, blocks=kids, sub_type=sub_type)


def table_block(table: Table | None = None, html_body: str | None = None,
                captions: Iterable[Block] = (), footnotes: Iterable[Block] = (),
                sub_type: str | None = None) -> Block:
    """A table block from a structured :class:`Table` or a ready HTML body (VLM path)."""
    span = Span(SpanType.TABLE, table=table, html=html_body)
    kids = [_retype(b, BlockType.TABLE_CAPTION) for b in captions]
    kids.append(Block(BlockType.TABLE_BODY, lines=[Line([span])]))
    kids += [_retype(b, BlockType.TABLE_FOOTNOTE) for b in footnotes]
    return Block(BlockType.TABLE, blocks=kids, sub_type=sub_type)


def list_block(items: list[Block], sub_type: str = "text") -> Block:
    """A list of item blocks; give each item ``depth`` and ``marker``."""
    return Block(BlockType.LIST, blocks=items, sub_type=sub_type)


def _retype(block: Block, type: str) -> Block:
    block.type = type
    return block


def walk(blocks: Iterable[Block]) -> Iterator[Block]:
    for b in blocks:
        yield b
        yield from walk(b.blocks)


def plain_text(block: Block) -> str:
    """The block's text without any Markdown: spans joined, lines joined with newlines."""
    if block.blocks:
        return "\n".join(t for t in (plain_text(b) for b in block.blocks) if t)
    return "\n".join("".join(s.content for s in line.spans
                             if s.type in (SpanType.TEXT, SpanType.INLINE_EQUATION,
                                           SpanType.INTERLINE_EQUATION))
                     for line in block.lines).strip()


# ---------------------------------------------------------------------------------------
# Links

_SAFE_SCHEMES = ("http", "https", "mailto", "ftp", "ftps", "tel", "news", "sms", "file")
_SCHEME_RE = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")


def safe_url(url: str | None) -> str | None:
    """The URL if it is safe to put in a link, else None.

    Relative links and fragments are kept; of absolute URLs only ordinary schemes are:
    ``javascript:``, ``data:``, ``vbscript:`` and anything unknown are dropped.
    Control characters (used to smuggle ``java\\tscript:``) are removed first.
    """
    if not url:
        return None
    kept = "".join(ch for ch in url.strip() if ord(ch) >= 0x20 and ord(ch) != 0x7F)
    # Judge the scheme a Markdown or HTML reader will see: it decodes entities
    # ("javascript&#58;") and backslash escapes ("javascript\:") in link targets.
    probe = html.unescape(kept).replace("\\", "")
    probe = "".join(ch for ch in probe if ord(ch) > 0x20 and ord(ch) != 0x7F)
    m = _SCHEME_RE.match(probe)
    if m and m.group(1).lower() not in _SAFE_SCHEMES:
        return None
    return kept.replace(" ", "%20") or None


# ---------------------------------------------------------------------------------------
# Markdown


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|$~])")
# What would start a heading, list, quote or setext underline at the start of any line
# of the text (a span may hold line breaks). Digits take the backslash before their
# delimiter: "1\." (a backslash before a digit would be printed as is).
_LINE_START = re.compile(r"^([ \t]*)(?:(#{1,6}|>|\+|-+|=+)|(\d{1,9})([.)]))(?=[ \t]|$)", re.M)


def _escape_line_start(m: re.Match) -> str:
    if m.group(2):
        return m.group(1) + "\\" + m.group(2)
    return m.group(1) + m.group(3) + "\\" + m.group(4)


def escape_md(text: str) -> str:
    """Escape the characters that would change meaning in Markdown inline text."""
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return _LINE_START.sub(_escape_line_start, text)


def _styled(text: str, style: frozenset[str], escape: bool = True) -> str:
    """Wrap text in Markdown/HTML markers, keeping its outer whitespace outside them."""
    core = text.strip()
    if not core:
        return text
    lead = text[: len(text) - len(text.lstrip())]
    trail = text[len(text.rstrip()):]
    if "code" in style:
        fence = "``" if "`" in core else "`"
        core = f"{fence}{core}{fence}" if fence == "`" else f"{fence} {core} {fence}"
    else:
        core = escape_md(core) if escape else core
        if "superscript" in style:
            core = f"<sup>{core}</sup>"
        if "subscript" in style:
            core = f"<sub>{core}</sub>"
        if "strike" in style:
            core = f"~~{core}~~"
        if "italic" in style:
            core = f"*{core}*"
        if "bold" in style:
            core = f"**{core}**"
    return lead + core + trail


def _merge_spans(spans: list[Span]) -> list[Span]:
    """Join neighbouring text spans with the same style and link (avoids ``**a****b**``)."""
    out: list[Span] = []
    for s in spans:
        if (out and s.type == SpanType.TEXT and out[-1].type == SpanType.TEXT
                and out[-1].style == s.style and out[-1].link == s.link
                and not s.is_checkbox and not out[-1].is_checkbox):
            prev = out[-1]
            out[-1] = Span(SpanType.TEXT, prev.content + s.content, prev.style, prev.link)
        else:
            out.append(s)
    return out


def _link_target(url: str) -> str:
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29")


def _span_md(s: Span, image_prefix: str) -> str:
    if s.type == SpanType.TEXT:
        return _styled(s.content, s.style)
    if s.type == SpanType.INLINE_EQUATION:
        return f"${s.content.strip()}$" if s.content.strip() else ""
    if s.type == SpanType.INTERLINE_EQUATION:
        return f"$${s.content.strip()}$$" if s.content.strip() else ""
    if s.type == SpanType.FOOTNOTE_REF:
        return f"[^{s.content}]"
    if s.type == SpanType.IMAGE and s.image_path:
        return f"![{escape_md(s.content)}]({_link_target(image_prefix + s.image_path)})"
    return ""


def spans_to_md(spans: list[Span], image_prefix: str = "") -> str:
    """Render one line of spans as Markdown inline text.

    Neighbouring spans with the same link become one link (a hyperlink whose runs differ
    in style is still one ``[...](...)``).
    """
    parts: list[str] = []
    boxes: list[int] = []  # parts that are check boxes written raw, checked below
    merged = _merge_spans(spans)
    i = 0
    while i < len(merged):
        url = safe_url(merged[i].link) if merged[i].type == SpanType.TEXT else None
        if not url:
            if merged[i].is_checkbox:
                boxes.append(len(parts))
                parts.append(merged[i].content)
            else:
                parts.append(_span_md(merged[i], image_prefix))
            i += 1
            continue
        j = i
        while (j < len(merged) and merged[j].type == SpanType.TEXT
               and safe_url(merged[j].link) == url):
            j += 1
        inner = "".join(_span_md(x, image_prefix) for x in merged[i:j])
        core = inner.strip()
        if core:
            lead = inner[: len(inner) - len(inner.lstrip())]
            trail = inner[len(inner.rstrip()):]
            inner = f"{lead}[{core}]({_link_target(url)}){trail}"
        parts.append(inner)
        i = j
    for k in boxes:  # left to right: an escaped box is the context of the next one
        if not _raw_box_is_safe("".join(parts[:k]), "".join(parts[k + 1:])):
            parts[k] = escape_md(parts[k])
    return "".join(parts)


def _raw_box_is_safe(before: str, after: str) -> bool:
    """Whether ``[x]``/``[ ]`` between these two strings stays literal text in Markdown.

    Right after it, ``(`` would make it a link (``[x](y)``), ``[`` a reference link
    (``[x][y]``) and ``:`` a link reference definition (``[x]: y``) that swallows the
    line. Right before it, ``]`` (``[^1][x]``) or ``!`` (``![x](...)``) could pair up with
    it too. Text spans escape their own brackets, so these characters can only come from
    the renderer's own links, images, notes or another box. A box inside a link's text is
    escaped by the link path and never gets here.
    """
    return after[:1] not in ("(", "[", ":") and before[-1:] not in ("]", "!")


def _lines_md(block: Block, image_prefix: str) -> str:
    return "\n".join(t for t in (spans_to_md(l.spans, image_prefix).strip()
                                 for l in block.lines) if t)


def _cell_html(cell: Cell, image_prefix: str) -> str:
    parts = []
    for b in cell.blocks:
        if b.type == BlockType.TABLE:
            parts.append(_table_body_html(b, image_prefix))
        elif b.type == BlockType.LIST:
            parts.append(_list_html(b, image_prefix))
        elif b.type == BlockType.IMAGE:
            for kid in b.blocks:
                for line in kid.lines:
                    for s in line.spans:
                        if s.type == SpanType.IMAGE and s.image_path:
                            src = html.escape(image_prefix + s.image_path, quote=True)
                            parts.append(f'<img src="{src}" alt="{html.escape(s.content, quote=True)}">')
        else:
            parts.append(_lines_html(b, image_prefix))
    return "<br>".join(p for p in parts if p)


def _list_html(block: Block, image_prefix: str) -> str:
    """A list inside a table cell as nested ``<ul>``/``<ol>`` (Markdown lists can't go there)."""
    out: list[str] = []
    open_tags: list[str] = []  # closing tag of each open depth
    for item in walk(block.blocks):
        if item.type == BlockType.LIST:
            continue
        depth = max(0, item.depth or 0)
        while len(open_tags) > depth + 1:
            out.append("</li>" + open_tags.pop())
        if len(open_tags) == depth + 1:
            out.append("</li>")
        while len(open_tags) < depth + 1:
            tag = "ol" if item.marker and _MD_ORDERED.match(item.marker) else "ul"
            out.append(f"<{tag}>")
            open_tags.append(f"</{tag}>")
        _, label = _md_marker(item.marker)
        out.append("<li>" + html.escape(label, quote=False) + _lines_html(item, image_prefix))
    while open_tags:
        out.append("</li>" + open_tags.pop())
    return "".join(out)


def _lines_html(block: Block, image_prefix: str) -> str:
    out = []
    for line in block.lines:
        pieces = []
        for s in _merge_spans(line.spans):
            if s.type == SpanType.TEXT:
                t = html.escape(s.content, quote=False)
                for st, tag in (("bold", "b"), ("italic", "i"), ("strike", "s"),
                                ("superscript", "sup"), ("subscript", "sub"), ("code", "code")):
                    if st in s.style and t.strip():
                        t = f"<{tag}>{t}</{tag}>"
                url = safe_url(s.link)
                if url and t.strip():
                    t = f'<a href="{html.escape(url, quote=True)}">{t}</a>'
                pieces.append(t)
            elif s.type == SpanType.INLINE_EQUATION:
                pieces.append(f"${html.escape(s.content.strip(), quote=False)}$")
            elif s.type == SpanType.INTERLINE_EQUATION:
                pieces.append(f"$${html.escape(s.content.strip(), quote=False)}$$")
            elif s.type == SpanType.FOOTNOTE_REF:
                pieces.append(f"[^{html.escape(s.content)}]")
            elif s.type == SpanType.IMAGE and s.image_path:
                src = html.escape(image_prefix + s.image_path, quote=True)
                pieces.append(f'<img src="{src}" alt="{html.escape(s.content, quote=True)}">')
        text = "".join(pieces).strip()
        if text:
            out.append(text)
    return "<br>".join(out)


def _table_span(block: Block) -> Span | None:
    for kid in walk([block]):
        if kid.type == BlockType.TABLE_BODY or kid is block:
            for line in kid.lines:
                for s in line.spans:
                    if s.type == SpanType.TABLE:
                        return s
    return None


def _table_body_html(block: Block, image_prefix: str) -> str:
    span = _table_span(block)
    if span is None:
        return ""
    if span.table is not None:
        return span.table.to_html(image_prefix)
    return span.html or ""


def _pipe_cell(cell: Cell, image_prefix: str) -> str:
    # escape_md already escaped any "|" in the text; only line breaks need care here.
    text = "<br>".join(t for t in (_lines_md(b, image_prefix) for b in cell.blocks) if t)
    return text.replace("\n", "<br>")


def table_to_md(block: Block, image_prefix: str = "") -> str:
    """A table body as a pipe table when lossless, else as HTML."""
    span = _table_span(block)
    if span is None:
        return ""
    table = span.table
    if table is None or not table.is_simple():
        return _table_body_html(block, image_prefix)
    rows = [[_pipe_cell(c, image_prefix) for c in row] for row in table.rows]
    width = len(rows[0])
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)


_MD_ORDERED = re.compile(r"^\d{1,9}[.)]$")


def _md_marker(marker: str | None) -> tuple[str, str]:
    """A CommonMark list marker for an item, and any label to keep in its text.

    Word and PowerPoint number items "a.", "IV.", "(1)" or "1.2"; CommonMark only knows
    "-" and "N." / "N)". Those others become a bullet that keeps the original label, so
    nothing is lost and the nesting still parses.
    """
    if not marker or marker in ("-", "*", "+"):
        return "-", ""
    if _MD_ORDERED.match(marker):
        return marker, ""
    if len(marker) == 1 and not marker.isalnum():  # a bullet glyph such as "•" or "▪"
        return "-", ""
    return "-", escape_md(marker) + " "


def _list_md(block: Block, image_prefix: str) -> str:
    """Nested Markdown list: each item indented under the content of its parent."""
    lines: list[str] = []
    indents: list[int] = []  # content column of each open depth
    for item in block.blocks:
        if item.type == BlockType.LIST:  # a sub-list nested as a block
            sub = _list_md(item, image_prefix)
            pad = " " * (indents[-1] if indents else 0)
            lines += [pad + l if l else l for l in sub.split("\n")]
            continue
        depth = max(0, item.depth or 0)
        del indents[depth:]
        while len(indents) < depth:
            indents.append(indents[-1] if indents else 0)
        base = indents[depth - 1] if depth else 0
        marker, label = _md_marker(item.marker)
        text = label + _lines_md(item, image_prefix).replace("\n", "\n" + " " * (base + len(marker) + 1))
        lines.append(" " * base + f"{marker} {text}".rstrip())
        indents.append(base + len(marker) + 1)
    return "\n".join(lines)


def block_to_md(block: Block, image_prefix: str = "") -> str:
    """Render one para block as Markdown (an empty string when it has no content)."""
    t = block.type
    if t == BlockType.TITLE:
        text = _lines_md(block, image_prefix).replace("\n", " ")
        return f"{'#' * (block.level or 1)} {text}" if text else ""
    if t == BlockType.INTERLINE_EQUATION:
        latex = "\n".join(s.content.strip() for l in block.lines for s in l.spans if s.content.strip())
        return f"$$\n{latex}\n$$" if latex else ""
    if t == BlockType.LIST:
        return _list_md(block, image_prefix)
    if t == BlockType.TABLE:
        parts = [_lines_md(b, image_prefix) for b in block.blocks if b.type == BlockType.TABLE_CAPTION]
        parts.append(table_to_md(block, image_prefix))
        parts += [_lines_md(b, image_prefix) for b in block.blocks if b.type == BlockType.TABLE_FOOTNOTE]
        return "\n\n".join(p for p in parts if p)
    if t == BlockType.IMAGE:
        parts = [_lines_md(b, image_prefix) for b in block.blocks if b.type == BlockType.IMAGE_BODY]
        parts += [_lines_md(b, image_prefix) for b in block.blocks
                  if b.type in (BlockType.IMAGE_CAPTION, BlockType.IMAGE_FOOTNOTE)]
        return "\n\n".join(p for p in parts if p)
    if t == BlockType.CODE:
        body = "\n".join(plain_text(b) for b in block.blocks if b.type == BlockType.CODE_BODY)
        lang = block.sub_type if block.sub_type not in (None, "code", "algorithm") else ""
        parts = [_lines_md(b, image_prefix) for b in block.blocks if b.type == BlockType.CODE_CAPTION]
        parts.append(f"```{lang}\n{body}\n```")
        return "\n\n".join(p for p in parts if p)
    if t == BlockType.PAGE_FOOTNOTE and block.note_id:
        text = _lines_md(block, image_prefix).replace("\n", "\n    ")
        return f"[^{block.note_id}]: {text}"
    if t == BlockType.NOTES:
        text = _lines_md(block, image_prefix)
        return "\n".join("> " + l if l else ">" for l in text.split("\n")) if text else ""
    if block.blocks:  # any other composite: render its children in order
        return "\n\n".join(p for p in (block_to_md(b, image_prefix) for b in block.blocks) if p)
    return _lines_md(block, image_prefix)


def to_markdown(doc: Document, image_prefix: str = "images/") -> str:
    """The whole document as Markdown; discarded blocks (headers, footers) are left out.

    ``image_prefix`` is prepended to image names: ``"images/"`` for the MinerU output
    folder, ``""`` when images are referenced by name only (stdout).
    """
    parts = []
    for page in doc.pages:
        for block in page.para_blocks:
            md = block_to_md(block, image_prefix)
            if md:
                parts.append(md)
    return "\n\n".join(parts) + "\n" if parts else ""


# ---------------------------------------------------------------------------------------
# MinerU JSON


def _lines_text(block: Block) -> str:
    """A block's text as MinerU's content list has it: plain, inline equations as ``$...$``."""
    lines = []
    for line in block.lines:
        parts = []
        for s in line.spans:
            if s.type == SpanType.TEXT:
                parts.append(s.content)
            elif s.type == SpanType.INLINE_EQUATION and s.content.strip():
                parts.append(f"${s.content.strip()}$")
            elif s.type == SpanType.INTERLINE_EQUATION and s.content.strip():
                parts.append(f"$${s.content.strip()}$$")
            elif s.type == SpanType.FOOTNOTE_REF:
                parts.append(f"[^{s.content}]")
        text = "".join(parts).strip()
        if text:
            lines.append(text)
    return "\n".join(lines)


def _captions(block: Block, type: str) -> list[str]:
    return [_lines_text(b) for b in block.blocks if b.type == type]


def _bbox_key(entry: dict, block: Block) -> dict:
    if block.bbox is not None:
        entry["bbox"] = [int(round(v)) for v in block.bbox]
    return entry


def _content_entry(block: Block, page_idx: int, image_prefix: str) -> dict | None:
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
        entry = {"type": "table", "img_path": "",
                 "table_caption": _captions(block, BlockType.TABLE_CAPTION),
                 "table_footnote": _captions(block, BlockType.TABLE_FOOTNOTE),
                 "table_body": _table_body_html(block, image_prefix)}
        if block.sub_type:
            entry["sub_type"] = block.sub_type
    elif t == BlockType.IMAGE:
        path = ""
        for line in (l for b in block.blocks if b.type == BlockType.IMAGE_BODY for l in b.lines):
            for s in line.spans:
                if s.image_path:
                    path = image_prefix + s.image_path
        entry = {"type": "image", "img_path": path,
                 "image_caption": _captions(block, BlockType.IMAGE_CAPTION),
                 "image_footnote": _captions(block, BlockType.IMAGE_FOOTNOTE)}
    elif t == BlockType.INTERLINE_EQUATION:
        entry = {"type": "equation", "img_path": "", "text": block_to_md(block, image_prefix),
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
    entry["page_idx"] = page_idx
    return _bbox_key(entry, block)


def to_content_list(doc: Document, image_prefix: str = "images/") -> list[dict]:
    """MinerU's content list: one flat entry per block, in reading order, per page."""
    out = []
    for page in doc.pages:
        for block in page.para_blocks + page.discarded_blocks:
            entry = _content_entry(block, page.page_idx, image_prefix)
            if entry is not None:
                out.append(entry)
    return out


def _span_json(span: Span, image_prefix: str) -> dict:
    d: dict = {"type": span.type, "content": span.content}
    if span.bbox is not None:
        d["bbox"] = span.bbox
    if span.style:
        d["style"] = sorted(span.style)
    if span.link and safe_url(span.link):
        d["link"] = safe_url(span.link)
    if span.image_path:
        d["image_path"] = span.image_path
    if span.type == SpanType.TABLE:
        d["html"] = span.table.to_html(image_prefix) if span.table is not None else (span.html or "")
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
    return d


def number_blocks(doc: Document) -> None:
    """Give every para block its reading-order ``index`` (per page, MinerU style)."""
    for page in doc.pages:
        for i, block in enumerate(b for b in walk(page.para_blocks)):
            block.index = i


def to_middle_json(doc: Document, image_prefix: str = "images/") -> dict:
    """MinerU's middle JSON: ``{"pdf_info": [pages...], "_backend": ..., "_version_name": ...}``."""
    pages = []
    for page in doc.pages:
        p: dict = {
            "para_blocks": [_block_json(b, image_prefix) for b in page.para_blocks],
            "discarded_blocks": [_block_json(b, image_prefix) for b in page.discarded_blocks],
            "page_idx": page.page_idx,
            "page_size": list(page.page_size) if page.page_size else None,
        }
        if page.name is not None:
            p["page_name"] = page.name
        pages.append(p)
    return {"pdf_info": pages, "_backend": doc.backend, "_version_name": f"mineru-tui {__version__}"}
