"""Read a .docx into the shared document model.

The parts are read once each, as mammoth does: styles (:mod:`.styles`), numbering
(:mod:`.numbering`), footnotes and endnotes (:mod:`.notes`), then the body
in one pass (:mod:`.body`). Headers and footers become the page's discarded
blocks; notes become ``page_footnote`` blocks at the end. A broken or missing part
costs a warning in ``doc.warnings``, never the file.
"""

from __future__ import annotations

from pathlib import Path

from mineru_tui.document import Block, BlockType, Document, Line, Page, plain_text, walk


def read_docx(path: str | Path) -> Document:
    """Parse ``path`` (a .docx/.docm/.dotx) into a one-page :class:`Document`.

    Raises :class:`~mineru_tui.errors.InputError` when the package has no readable main
    document, or asks to parse more than the parse budget.
    """
    from mineru_tui.office.docx.package import open_main_part

    main = open_main_part(path)
    with main.package:  # raises a spent parse budget on the way out
        return _read(main)


def _read(main) -> Document:
    from mineru_tui.office.docx.body import BodyReader
    from mineru_tui.office.docx.notes import Notes
    from mineru_tui.office.docx.numbering import ListCounter, Numbering
    from mineru_tui.office.docx.styles import Styles
    from mineru_tui.office.docx.wml import w

    doc = Document(backend="office", warnings=main.package.warnings)
    page = Page(page_idx=0)
    doc.pages.append(page)

    styles = _load(doc, main, "styles", Styles, Styles())
    numbering = _load(doc, main, "numbering", lambda root: Numbering(root, styles), Numbering())
    notes = Notes()
    for kind, rel in (("footnote", "footnotes"), ("endnote", "endnotes")):
        for part in main.related_by_type(rel)[:1]:
            try:
                notes.load(kind, part, part.xml())
            except Exception as exc:
                doc.warnings.append(f"{rel} not read ({part.name}): {_reason(exc)}")

    reader = BodyReader(doc, main, styles, ListCounter(numbering), notes)
    try:
        root = main.xml()
    except Exception as exc:
        doc.warnings.append(f"the document body could not be read: {_reason(exc)}")
        return doc
    body = root.find(w("body"))
    if body is None:
        doc.warnings.append("the document has no body")
        return doc
    page.para_blocks = reader.read_blocks(body)
    _shift_headings(reader.headings)
    page.para_blocks += _note_blocks(reader, notes)
    page.discarded_blocks = _headers_footers(reader, main)
    page.page_size = _page_size(body)
    return doc


def _shift_headings(headings) -> None:
    """With a "Title" paragraph present, Heading 1 sits below it (level 2), as docling does."""
    if any(is_title for _, is_title in headings):
        for block, is_title in headings:
            if not is_title:
                block.level = min(6, (block.level or 1) + 1)


def _reason(exc: Exception) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:200]


def _load(doc: Document, main, rel: str, build, empty):
    """Build one part's plain data; a missing part is normal, a broken one a warning."""
    parts = main.related_by_type(rel)
    if not parts:
        return empty
    try:
        return build(parts[0].xml())
    except Exception as exc:
        doc.warnings.append(f"{rel} not read ({parts[0].name}), formatting may be lost: "
                            f"{_reason(exc)}")
        return empty


def _note_blocks(reader, notes) -> list[Block]:
    """One ``page_footnote`` block per referenced note, in reference order."""
    out: list[Block] = []
    i = 0
    while i < len(notes.refs):  # a note may reference another note: the list can grow
        kind, nid, label = notes.refs[i]
        i += 1
        el = notes.bodies[kind].get(nid)
        if el is None:
            reader.warn(f"{kind} {nid} is referenced but missing")
            continue
        try:
            blocks = reader.read_part_blocks(notes.parts[kind], el)
        except Exception as exc:
            reader.warn(f"{kind} {nid} not read: {_reason(exc)}")
            continue
        out.append(Block(BlockType.PAGE_FOOTNOTE, lines=_flat_lines(blocks), note_id=label))
    return out


def _headers_footers(reader, main) -> list[Block]:
    """Header and footer text as discarded blocks (each distinct text once).

    Pictures in headers (logos) stay image blocks among the discarded blocks: their
    files are written with the rest, but MinerU's Markdown leaves them out.
    """
    out: list[Block] = []
    seen: set = set()
    for rel, kind in (("header", BlockType.HEADER), ("footer", BlockType.FOOTER)):
        for part in main.related_by_type(rel):
            try:
                blocks = reader.read_part_blocks(part, part.xml())
            except Exception as exc:
                reader.warn(f"{rel} not read ({part.name}): {_reason(exc)}")
                continue
            for b in blocks:
                if b.type == BlockType.IMAGE:  # a logo: written out, kept off the Markdown
                    path = next((s.image_path for k in b.blocks for l in k.lines
                                 for s in l.spans if s.image_path), None)
                    if path not in seen:
                        seen.add(path)
                        out.append(b)
                    continue
                lines = _flat_lines([b])
                text = plain_text(Block(kind, lines=lines))
                if not text or (kind, text) in seen:
                    continue
                seen.add((kind, text))
                out.append(Block(kind, lines=lines))
    return out


def _flat_lines(blocks: list[Block]) -> list[Line]:
    """The lines of blocks that must become one block (a note, a header), tables included."""
    lines: list[Line] = []
    for b in walk(blocks):
        lines += b.lines if b.type != BlockType.TABLE_BODY else []
        if b.type == BlockType.TABLE_BODY:
            for span in (s for line in b.lines for s in line.spans):
                if span.table is not None:
                    for row in span.table.rows:
                        for cell in row:
                            lines += _flat_lines(cell.blocks)
    return lines


def _page_size(body) -> tuple[float, float] | None:
    """The last section's page size in points (twips / 20)."""
    from mineru_tui.office.docx.wml import int_val, w
    sect = body.find(w("sectPr"))
    size = sect.find(w("pgSz")) if sect is not None else None
    if size is None:
        return None
    width, height = int_val(size, None, w("w")), int_val(size, None, w("h"))
    if not width or not height or width <= 0 or height <= 0:
        return None
    return (width / 20.0, height / 20.0)
