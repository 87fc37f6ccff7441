"""The document as Markdown.

Tables become pipe tables, or HTML when cells are merged or nested; equations
``$...$`` / ``$$...$$``; only safe links are kept; discarded blocks are left out.
"""

from __future__ import annotations

from collections.abc import Iterator

from mineru_tui.document.controls import page_without_controls
from mineru_tui.document.escaping import (code_fence, code_span, escape_md, latex_display,
                                          latex_inline, list_marker, note_definition, note_label)
from mineru_tui.document.html_table import table_body_html, table_span
from mineru_tui.document.links import safe_image_name, safe_image_url, safe_url
from mineru_tui.document.model import (CHECKED_BOX, UNCHECKED_BOX, Block, BlockType, Cell,
                                       Document, Span, SpanType, merge_spans, plain_text)


def _styled(text: str, style: frozenset[str], pipe: bool = False) -> str:
    """Wrap text in Markdown/HTML markers, keeping its outer whitespace outside them.

    ``pipe`` is set inside a pipe-table cell, where a ``|`` in code must be escaped.
    """
    core = text.strip()
    if not core:
        return text
    lead = text[: len(text) - len(text.lstrip())]
    trail = text[len(text.rstrip()):]
    if "code" in style:
        core = code_span(core, pipe)
    else:
        core = escape_md(core)
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


# Written percent-encoded in a link destination: a space or an unbalanced parenthesis
# would end it, "<" and ">" could start or end an autolink, and "|" would split a pipe-
# table cell.
_IN_TARGET = {" ": "%20", "(": "%28", ")": "%29", "<": "%3C", ">": "%3E", "|": "%7C"}


def _link_target(url: str) -> str:
    return "".join(_IN_TARGET.get(ch, ch) for ch in url)


def _span_md(s: Span, image_prefix: str, pipe: bool = False) -> str:
    if s.type == SpanType.TEXT:
        return _styled(s.content, s.style, pipe)
    if s.type == SpanType.INLINE_EQUATION:
        latex = latex_inline(s.content, pipe)
        return f"${latex}$" if latex else ""
    if s.type == SpanType.INTERLINE_EQUATION:
        latex = latex_inline(s.content, pipe)
        return f"$${latex}$$" if latex else ""
    if s.type == SpanType.FOOTNOTE_REF:
        return f"[^{note_label(s.content)}]"
    if s.type == SpanType.IMAGE and s.image_path:
        alt = escape_md(" ".join(s.content.split()))
        name = safe_image_name(s.image_path)
        return f"![{alt}]({_link_target(image_prefix + name)})" if name else alt
    if s.type == SpanType.IMAGE and s.image_url:
        alt = escape_md(" ".join(s.content.split()))
        url = safe_image_url(s.image_url)
        return f"![{alt}]({_link_target(url)})" if url else alt
    return ""


def _join_code(spans: list[Span]) -> list[Span]:
    """Join neighbouring code spans that go to the same link (or none) into one.

    Markdown shows code in one style whatever its other styles, and two code spans side
    by side would run their fences together (```` `a``b` ````), which reads differently.
    """
    out: list[Span] = []
    for s in spans:
        if not s.is_checkbox and not _span_md(s, ""):
            continue  # shows nothing, so it does not keep its neighbours apart either
        prev = out[-1] if out else None
        if (prev is not None and s.type == prev.type == SpanType.TEXT
                and "code" in s.style and "code" in prev.style
                and not s.is_checkbox and not prev.is_checkbox
                and safe_url(s.link) == safe_url(prev.link)):
            out[-1] = Span(SpanType.TEXT, prev.content + s.content, prev.style, prev.link)
        else:
            out.append(s)
    return out


def spans_to_md(spans: list[Span], image_prefix: str = "", in_pipe_table: bool = False) -> str:
    """Render one line of spans as Markdown inline text.

    Neighbouring spans with the same link become one link (a hyperlink whose runs differ
    in style is still one ``[...](...)``). ``in_pipe_table`` escapes ``|`` in code and
    maths too, for a cell of a pipe table.
    """
    pipe = in_pipe_table
    parts: list[str] = []
    boxes: list[int] = []  # parts that are check boxes written raw, checked below
    refs: list[int] = []  # parts that are footnote references, checked below
    merged = _join_code(merge_spans(spans))
    i = 0
    while i < len(merged):
        url = safe_url(merged[i].link) if merged[i].type == SpanType.TEXT else None
        if not url:
            if merged[i].is_checkbox and merged[i].content in (CHECKED_BOX, UNCHECKED_BOX):
                boxes.append(len(parts))
                parts.append(merged[i].content)
            else:
                if merged[i].type == SpanType.FOOTNOTE_REF:
                    refs.append(len(parts))
                parts.append(_span_md(merged[i], image_prefix, pipe))
            i += 1
            continue
        j = i
        while (j < len(merged) and merged[j].type == SpanType.TEXT
               and safe_url(merged[j].link) == url):
            j += 1
        inner = "".join(_span_md(x, image_prefix, pipe) for x in merged[i:j])
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
    for k in refs:
        # To a reader without footnotes "[^1]" is a link: "(x)" after it makes it one,
        # "!" before it an image (of the note's definition, "[^1]: x"), and "[^1]:" at a
        # line start a definition. Those characters are escaped.
        nxt = next((n for n in range(k + 1, len(parts)) if parts[n]), None)
        if nxt is not None and parts[k] and parts[nxt][0] in "(:":
            parts[nxt] = "\\" + parts[nxt]
        prev = next((n for n in range(k - 1, -1, -1) if parts[n]), None)
        if prev is not None and parts[k] and parts[prev].endswith("!"):
            parts[prev] = parts[prev][:-1] + "\\!"
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


def _lines_md(block: Block, image_prefix: str, pipe: bool = False) -> str:
    return "\n".join(t for t in (spans_to_md(l.spans, image_prefix, pipe).strip()
                                 for l in block.lines) if t)


def _pipe_cell(cell: Cell, image_prefix: str) -> str:
    # Text, code and maths have their "|" escaped; only line breaks need care here.
    text = "<br>".join(t for t in (_lines_md(b, image_prefix, True) for b in cell.blocks) if t)
    return text.replace("\n", "<br>")


def table_to_md(block: Block, image_prefix: str = "") -> str:
    """A table body as a pipe table when lossless, else as HTML."""
    span = table_span(block)
    if span is None:
        return ""
    table = span.table
    if table is None or not table.is_simple():
        return table_body_html(block, image_prefix)
    rows = [[_pipe_cell(c, image_prefix) for c in row] for row in table.rows]
    width = len(rows[0])
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)


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
        marker, label = list_marker(item.marker)
        text = label + _lines_md(item, image_prefix).replace("\n", "\n" + " " * (base + len(marker) + 1))
        lines.append(" " * base + f"{marker} {text}".rstrip())
        indents.append(base + len(marker) + 1)
    return "\n".join(lines)


def equation_latex(block: Block) -> str:
    """A display equation block's LaTeX, as the document has it (one line per span)."""
    return "\n".join(s.content.strip() for l in block.lines for s in l.spans if s.content.strip())


def block_to_md(block: Block, image_prefix: str = "") -> str:
    """Render one para block as Markdown (an empty string when it has no content)."""
    t = block.type
    if t == BlockType.TITLE:
        text = _lines_md(block, image_prefix).replace("\n", " ")
        return f"{'#' * max(1, min(int(block.level or 1), 6))} {text}" if text else ""
    if t == BlockType.INTERLINE_EQUATION:
        latex = latex_display(equation_latex(block))
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
        parts.append(code_fence(body, lang))
        return "\n\n".join(p for p in parts if p)
    if t == BlockType.PAGE_FOOTNOTE and block.note_id:
        text = _lines_md(block, image_prefix).replace("\n", "\n    ")
        return note_definition(block.note_id, text)
    if t == BlockType.NOTES:
        text = _lines_md(block, image_prefix)
        return "\n".join("> " + l if l else ">" for l in text.split("\n")) if text else ""
    if block.blocks:  # any other composite: render its children in order
        return "\n\n".join(p for p in (block_to_md(b, image_prefix) for b in block.blocks) if p)
    return _lines_md(block, image_prefix)


def markdown_chunks(doc: Document, image_prefix: str = "images/",
                    clean=page_without_controls) -> Iterator[str]:
    """The text of :func:`to_markdown` block by block, a page at a time (a long document's
    Markdown is never whole in memory). ``clean`` gives a page without its control
    characters (a writer of several files passes one that cleans each page once)."""
    wrote = False
    for page in doc.pages:
        for block in clean(page).para_blocks:
            md = block_to_md(block, image_prefix)
            if md:
                yield "\n\n" + md if wrote else md
                wrote = True
    if wrote:
        yield "\n"


def to_markdown(doc: Document, image_prefix: str = "images/") -> str:
    """The whole document as Markdown; discarded blocks (headers, footers) are left out.

    ``image_prefix`` is prepended to image names: ``"images/"`` for the MinerU output
    folder, ``""`` when images are referenced by name only (stdout). Control and bidi-
    override characters are dropped first (:mod:`.controls`).
    """
    return "".join(markdown_chunks(doc, image_prefix))
