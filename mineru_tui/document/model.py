"""The document model every backend fills: pages of blocks of lines of spans.

The model is MinerU's *middle JSON*: a document is a list of pages; a page holds
``para_blocks`` (the content, in reading order) and ``discarded_blocks`` (headers,
footers, page numbers...). A block is made of lines, a line of spans. Composite blocks
(table, image, code, list) hold child blocks instead of lines, exactly as MinerU nests
``table_body`` / ``table_caption`` / ``table_footnote`` inside a ``table``.

Office readers and the VLM page reader both produce a :class:`Document`; nothing in here
knows OOXML or model tokens, and nothing in here writes output (see the sibling modules
:mod:`.markdown`, :mod:`.content_list`, :mod:`.middle_json`).

Office-only facts that MinerU's schema has no field for (span styles, link targets, list
depth and markers, structured table cells, a check box's state) ride along as extra keys;
MinerU readers ignore unknown keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from mineru_tui.errors import cut_warning


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
    hyperlink target; ``image_path`` names an image in :attr:`Document.images`, or
    ``image_url`` gives the web address of a picture that is not in the document (a web
    page's remote picture: referenced, never fetched); ``html``
    or ``table`` carry a table body. ``checked`` is set (True/False) only on a check box:
    a text span whose content is ``[x]`` or ``[ ]``, which Markdown writes unescaped
    (a GitHub task-list box) wherever that cannot start a link (see :func:`checkbox_span`).
    """

    type: str = SpanType.TEXT
    content: str = ""
    style: frozenset[str] = frozenset()
    link: str | None = None
    image_path: str | None = None
    image_url: str | None = None
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
    ``extra`` holds facts MinerU's schema has no field for (the page reader: where the text
    came from, a generation that did not finish); the middle JSON writes them as extra keys.
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
    extra: dict[str, Any] = field(default_factory=dict)


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


@dataclass
class Page:
    """One page (or slide, or sheet)."""

    page_idx: int
    para_blocks: list[Block] = field(default_factory=list)
    discarded_blocks: list[Block] = field(default_factory=list)
    page_size: tuple[float, float] | None = None
    name: str | None = None  # a sheet's or slide's own name
    extra: dict[str, Any] = field(default_factory=dict)  # extra middle-JSON keys (page reader)


@dataclass
class Document:
    """A parsed document: pages, the image files it refers to, and warnings.

    ``images`` maps an image's file name (as used in spans' ``image_path``) to its bytes;
    writers put them under ``images/``. ``backend`` is MinerU's ``_backend`` value
    (``"office"`` for direct OOXML reading, ``"vlm"`` for the page reader).
    ``extra_outputs`` maps a file-name suffix to a function giving a file to write beside
    the output set with ``-o`` (the page reader: ``_model.json``, ``_layout.pdf``): its bytes,
    or pieces in order (text, or a function writing to the open file), or None.
    The page reader's ``pages`` is a :class:`~mineru_tui.document.page_store.PageStore`: a
    sequence that keeps the pages on disk and loads one when it is asked for (index it,
    iterate it, ``len`` it; a page taken from it is a copy, put back with ``pages[i] = page``).
    ``meta`` holds facts about the reading the MinerU 4 set records (the page reader:
    ``kind``, ``effort``, ``engine``, ``model``, ``page_selection``; ``model_output``, a
    function giving MinerU 4's ``model_output.json``).
    """

    pages: list[Page] = field(default_factory=list)
    backend: str = "office"
    images: dict[str, bytes] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    extra_outputs: dict[str, Callable[[], bytes | Iterable | None]] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    def add_image(self, data: bytes, ext: str, stem: str = "image") -> str:
        """Store image bytes under a fresh unique name and return that name.

        The picture passes :func:`~mineru_tui.document.pictures.safe_picture` first (an SVG
        is cleaned of scripts and references, an extension that is no picture's becomes
        ``.bin``); one that cannot be made safe is left out with a ``content cut:`` warning
        and the name is ``""`` (the writers then show the alt text). Names are numbered per
        stem (``image_001``, ``table_001``...), so pictures of one kind keep their numbers
        whatever else a page adds.
        """
        from mineru_tui.document.pictures import safe_picture

        safe = safe_picture(data, ext)
        if safe is None:
            self.warnings.append(cut_warning("an SVG picture that cannot be read as SVG (so "
                                             "not cleaned of scripts) is left out"))
            return ""
        data, ext = safe
        n = sum(1 for taken in self.images if taken.startswith(stem + "_")) + 1
        name = f"{stem}_{n:03d}.{ext}"
        while name in self.images:
            n += 1
            name = f"{stem}_{n:03d}.{ext}"
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


def image_block(image_path: str | None, alt: str = "", captions: Iterable[Block] = (),
                footnotes: Iterable[Block] = (), sub_type: str | None = None,
                image_url: str | None = None) -> Block:
    body = Block(BlockType.IMAGE_BODY, lines=[Line([Span(SpanType.IMAGE, alt, image_path=image_path,
                                                         image_url=image_url)])])
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


def merge_spans(spans: list[Span]) -> list[Span]:
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
