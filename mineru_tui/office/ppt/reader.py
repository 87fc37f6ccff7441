"""Legacy PowerPoint (.ppt) presentations to the document model ([MS-PPT] records).

The ``PowerPoint Document`` stream is a tree of records (an 8-byte header: version and
instance, type, length; containers have version 0xF). A file saved many times holds old
copies of its slides too, so the live ones are found the way PowerPoint finds them: the
``Current User`` stream points at the last ``UserEditAtom``, whose chain of persist
directories maps persist ids to record offsets; the document container's slide list
(``SlideListWithText``) gives the slides in presentation order. Read for each slide:

* the placeholder text kept in the slide list (a title, text type 0 or 6, becomes the
  slide's heading; body text its paragraphs, a paragraph per line);
* the slide's own text boxes and shapes' text (``ClientTextbox`` in its drawing);
* pictures (a shape's ``pib`` property into the blip store, the blips in the
  ``Pictures`` stream), PNG and JPEG;
* speaker notes (the notes slide's body text), matched to the slide by its id.

* tables: a group shape whose properties say it is a table; its cells (rectangles in the
  group) laid on the grid of their edges, merged cells kept;
* automatic numbering: PowerPoint 2000's extension (a shape's ``___PPT9`` binary tag, or
  the document's outline props for placeholder text) holds a ``StyleTextProp9Atom`` whose
  entries say "numbered, in this scheme, from this number"; each paragraph points at its
  entry through the ``pp9rt`` bits of its first character run (entry 0 when unset);
* links: a text range's interactive info pointing at a hyperlink of the document's
  ``ExObjList`` (through the allow-list).

When the persist structures are missing or broken, every slide container met in the
stream is read in stored order instead. Character runs give bold, italic, underline and
super/subscript. Encrypted presentations are refused.
"""

from __future__ import annotations

import struct
from pathlib import Path

from mineru_tui.document import (Block, BlockType, Cell, Document, Line, Page, Table,
                                 image_block, table_block, text_span, title_block)
from mineru_tui.document.model import merge_spans
from mineru_tui.errors import InputError, cut_warning
from mineru_tui.office.flow import Flow
from mineru_tui.office.ole import ENCRYPTED, Ole
from mineru_tui.office.pictures import MAX_PACKAGE_PICTURES, Pictures

MAX_DEPTH = 32
MAX_RECORDS = 2_000_000
MAX_SLIDES = 10_000
MAX_EDITS = 1_000
# Text decoded per file: every text atom is read once or twice (a placeholder's text is kept
# in the slide list and in the drawing), so twice the stream, plus room for small files.
# Slides that name one slide record (3,000 slides, one 1 MiB text atom) spend it at once.
TEXT_SLACK = 16 << 20

_DOCUMENT, _SLIDE, _NOTES, _MAIN_MASTER = 0x03E8, 0x03EE, 0x03F0, 0x03F8
_SLIDE_LIST, _SLIDE_PERSIST, _NOTES_ATOM = 0x0FF0, 0x03F3, 0x03F1
_TEXT_HEADER, _TEXT_CHARS, _TEXT_BYTES = 0x0F9F, 0x0FA0, 0x0FA8
_USER_EDIT, _PERSIST_DIR = 0x0FF5, 0x1772
_CRYPT = 0x2F14
_FOPT, _FBSE = 0xF00B, 0xF007
_STYLE_PROPS = 0x0FA1
_STYLE9, _BINARY_TAG_DATA, _OUTLINE9, _OUTLINE9_HEADER = 0x0FAC, 0x138B, 0x0FAE, 0x0FAF
_TABLE = -1  # a (kind, text, styles) entry that is a table: styles holds the Table
_BULLETED = (1, 7, 8)  # body placeholders: bulleted unless a paragraph says not
_TITLE_TYPES = (0, 6)
_NOTES_TYPE = 2


class _Text(str):
    """A text atom's text, with the links of its character ranges: (begin, end, url), and
    its character runs' formatting: (first character, styles)."""

    links: list
    runs: list


def _text_atom(text: str) -> _Text:
    t = _Text(text)
    t.links = []
    t.runs = []
    return t


def read_ppt(path: str | Path) -> Document:
    """Read a PowerPoint 97-2003 .ppt into a :class:`Document` (backend "office")."""
    with Ole(path) as ole:
        data = ole.stream("PowerPoint Document")
        if data is None:
            raise InputError("not a PowerPoint document: it has no PowerPoint Document stream")
        if ole.has("EncryptedSummary"):
            raise InputError(ENCRYPTED)
        user = ole.stream("Current User") or b""
        pictures = ole.stream("Pictures") or b""
    reader = _Reader(data, pictures)
    try:
        return reader.read(user)
    except (struct.error, IndexError, ValueError) as exc:
        raise InputError("not a readable PowerPoint 97-2003 presentation: its records are "
                         "damaged", str(exc)) from None


class _Reader:
    def __init__(self, data: bytes, pictures: bytes):
        self.data = data
        self.pictures = pictures
        self.count = 0
        self.cut = False
        self.doc = Document(backend="office")
        self.intake = Pictures(self.doc, total=MAX_PACKAGE_PICTURES)
        self.blips: list[int] = []  # foDelay of each blip store entry (pib - 1)
        self.hyperlinks: dict[int, str] = {}  # ExHyperlink id -> target (allowed ones only)
        self._link: str | None = None  # the target of the interactive info just read
        self._nine: list | None = None  # numbering entries of the shape being read
        self.outline9: dict[tuple[int, int], list] = {}  # (slide id, text type) -> entries
        self.text_budget = 2 * len(data) + TEXT_SLACK  # bytes of text atoms left to decode
        self.persist_cut = False  # persist directories overlapping each other

    # -- records -------------------------------------------------------------------------

    def records(self, start: int, end: int):
        """(type, instance, body start, body end, is container) of the records in a range."""
        data = self.data
        pos = start
        end = min(end, len(data))
        while pos + 8 <= end:
            ver_inst, rtype, length = struct.unpack_from("<HHI", data, pos)
            self.count += 1
            if self.count > MAX_RECORDS:
                self.cut = True
                return
            if rtype == _CRYPT:
                raise InputError(ENCRYPTED)
            body = pos + 8
            yield rtype, ver_inst >> 4, body, min(body + length, end), ver_inst & 0x0F == 0x0F
            pos = body + length

    def header(self, offset: int):
        if offset + 8 > len(self.data):
            return None
        ver_inst, rtype, length = struct.unpack_from("<HHI", self.data, offset)
        return rtype, ver_inst >> 4, offset + 8, min(offset + 8 + length, len(self.data))

    # -- the live document ---------------------------------------------------------------

    def persist(self, user: bytes) -> tuple[dict[int, int], int | None]:
        """Persist id -> record offset, and the document container's persist id."""
        if len(user) < 20:
            return {}, None
        edit = struct.unpack_from("<I", user, 16)[0]
        table: dict[int, int] = {}
        doc_ref = None
        seen = set()
        directories: set[int] = set()  # each directory read once, however many edits name it
        entries_left = len(self.data) // 4  # disjoint directories hold no more entries
        while edit and edit not in seen and len(seen) < MAX_EDITS:
            seen.add(edit)
            h = self.header(edit)
            if h is None or h[0] != _USER_EDIT or h[3] - h[2] < 20:
                break
            body = h[2]
            last_edit, dir_offset, doc = struct.unpack_from("<III", self.data, body + 8)
            if doc_ref is None:
                doc_ref = doc
            d = self.header(dir_offset) if dir_offset not in directories else None
            directories.add(dir_offset)
            if d is not None and d[0] == _PERSIST_DIR:
                pos = d[2]
                while pos + 4 <= d[3]:
                    word = struct.unpack_from("<I", self.data, pos)[0]
                    first, count = word & 0xFFFFF, word >> 20
                    pos += 4
                    if count > entries_left:  # directories overlap: read each byte once
                        self.persist_cut = True
                        count = entries_left
                    entries_left -= count
                    for k in range(count):
                        if pos + 4 > d[3]:
                            break
                        table.setdefault(first + k, struct.unpack_from("<I", self.data, pos)[0])
                        pos += 4
            edit = last_edit
        return table, doc_ref

    def read(self, user: bytes) -> Document:
        table, doc_ref = self.persist(user)
        doc_at = table.get(doc_ref) if doc_ref is not None else None
        h = self.header(doc_at) if doc_at is not None else None
        if h is None or h[0] != _DOCUMENT:
            return self._fallback()
        slides, notes_refs = [], []
        for rtype, inst, body, end, container in self.records(h[2], h[3]):
            if rtype == _SLIDE_LIST and container and inst in (0, 2):
                entries = self._slide_list(body, end)
                (slides if inst == 0 else notes_refs).extend(entries)
            elif rtype == 0x040B and container:  # PPDrawingGroup: the blip store
                self._blip_store(body, end)
            elif rtype == 0x0409 and container:  # ExObjList: hyperlink targets
                self._hyperlinks(body, end)
            elif rtype == 0x07D0 and container:  # DocInfoList: placeholder text's numbering
                self._outline9(body, end, 0)
        notes: dict[int, list[str]] = {}
        for persist_id, _, _ in notes_refs:
            nh = self.header(table.get(persist_id, -1)) if persist_id in table else None
            if nh is not None and nh[0] == _NOTES:
                slide_id, texts = self._notes(nh[2], nh[3])
                if slide_id is not None:
                    notes[slide_id] = texts
        for i, (persist_id, slide_id, outline) in enumerate(slides[:MAX_SLIDES]):
            sh = self.header(table[persist_id]) if persist_id in table else None
            boxes, images = ([], [])
            if sh is not None and sh[0] == _SLIDE:
                boxes, images = self._slide(sh[2], sh[3])
            self._page(i, outline, boxes, images, notes.get(slide_id, []))
        return self._finish()

    def _outline9(self, body: int, end: int, depth: int) -> None:
        """Numbering of placeholder text: OutlineTextProps9 entries (slide id, text type,
        StyleTextProp9Atom) under the document's ``___PPT9`` tag."""
        if depth > MAX_DEPTH:
            return
        key = None
        for rtype, _, b, e, container in self.records(body, end):
            if rtype == _OUTLINE9_HEADER and e - b >= 8:
                key = struct.unpack_from("<II", self.data, b)
            elif rtype == _STYLE9 and key is not None:
                self.outline9[key] = _numbering9(self.data, b, e)
            elif container or rtype == _BINARY_TAG_DATA:
                self._outline9(b, e, depth + 1)

    def _slide_list(self, body: int, end: int) -> list[tuple[int, int, list]]:
        """(persist id, slide id, [(text type, text)]) for each slide of a slide list."""
        out: list[tuple[int, int, list]] = []
        kind = 4
        for rtype, _, b, e, container in self.records(body, end):
            if rtype == _SLIDE_PERSIST and e - b >= 16:
                persist_id, _, _, slide_id = struct.unpack_from("<IIII", self.data, b)
                out.append((persist_id, slide_id, []))
            elif rtype == _TEXT_HEADER and e - b >= 4:
                kind = struct.unpack_from("<I", self.data, b)[0]
            elif rtype in (_TEXT_CHARS, _TEXT_BYTES) and out:
                out[-1][2].append((kind, self._text(rtype, b, e), None))
            elif rtype == _STYLE_PROPS and out and out[-1][2]:
                k, t, _ = out[-1][2][-1]
                nine = self.outline9.get((out[-1][1], k))
                out[-1][2][-1] = (k, t, _paragraph_styles(self.data, b, e, t, nine))
            elif out and out[-1][2]:
                self._interactive(rtype, b, e, container, out[-1][2][-1][1])
        return out

    def _interactive(self, rtype: int, b: int, e: int, container: bool, text) -> None:
        """A link on a range of ``text``: InteractiveInfo (its target), then its range."""
        if rtype == 0x0FF2 and container:
            self._link = None
            for r2, _, b2, e2, _ in self.records(b, e):
                if r2 == 0x0FF3 and e2 - b2 >= 8:
                    self._link = self.hyperlinks.get(struct.unpack_from("<I", self.data, b2 + 4)[0])
        elif rtype == 0x0FDF and e - b >= 8 and self._link and isinstance(text, _Text):
            begin, end = struct.unpack_from("<ii", self.data, b)
            if 0 <= begin < end:
                text.links.append((begin, end, self._link))

    def _hyperlinks(self, body: int, end: int) -> None:
        from mineru_tui.document import safe_url

        for rtype, _, b, e, container in self.records(body, end):
            if rtype != 0x0FD7 or not container:
                continue
            link_id, target = None, None
            for r2, inst, b2, e2, _ in self.records(b, e):
                if r2 == 0x0FD3 and e2 - b2 >= 4:
                    link_id = struct.unpack_from("<I", self.data, b2)[0]
                elif r2 == 0x0FBA and inst == 1:
                    target = self.data[b2:e2 - (e2 - b2) % 2].decode("utf-16-le", "replace")
            url = safe_url(target.strip("\x00").strip()) if target else None
            if link_id is not None and url:
                self.hyperlinks[link_id] = url

    def _texts(self, body: int, end: int, depth: int, out: list, images: list | None) -> None:
        """Text atoms (with their text type) and picture ids under a record range."""
        if depth > MAX_DEPTH:
            return
        for rtype, _, b, e, container in self.records(body, end):
            if rtype == 0xF003 and container:  # a group: a table when it says so
                table = self._table(b, e, depth)
                if table is not None:
                    out.append((_TABLE, "", table))
                    continue
            if rtype == 0xF004 and container:  # a shape: its own numbering entries
                self._nine = None
            if rtype in (0x0FF2, 0x0FDF) and out and out[-1][1] is not None:
                self._interactive(rtype, b, e, container, out[-1][1])
            elif rtype == _BINARY_TAG_DATA:  # a ___PPT9 tag's records: the numbering
                for r2, _, b2, e2, _ in self.records(b, e):
                    if r2 == _STYLE9:
                        self._nine = _numbering9(self.data, b2, e2)
            elif container:
                self._texts(b, e, depth + 1, out, images)
            elif rtype == _TEXT_HEADER and e - b >= 4:
                out.append((struct.unpack_from("<I", self.data, b)[0], None, None))
            elif rtype in (_TEXT_CHARS, _TEXT_BYTES):
                kind = out.pop()[0] if out and out[-1][1] is None else 4
                out.append((kind, self._text(rtype, b, e), None))
            elif rtype == _STYLE_PROPS and out and out[-1][1] is not None:
                k, t, _ = out[-1]
                out[-1] = (k, t, _paragraph_styles(self.data, b, e, t, self._nine))
            elif rtype == _FOPT and images is not None:
                pib = self._pib(b, e)
                if pib:
                    images.append(pib)

    def _table(self, body: int, end: int, depth: int) -> Table | None:
        """A table shape (a group whose own shape has ``tableProperties``): its cells are the
        group's rectangles, laid on the grid of their edges (a merged cell is one rectangle
        over several grid cells)."""
        shapes = [(b, e) for rtype, _, b, e, c in self.records(body, end) if rtype == 0xF004 and c]
        if not shapes or not self._has_property(*shapes[0], 0x03A0):
            return None
        cells = []
        for b, e in shapes[1:]:
            kind, anchor, found = 0, None, []
            for rtype, inst, b2, e2, c2 in self.records(b, e):
                if rtype == 0xF00A:
                    kind = inst
                elif rtype == 0xF00F and e2 - b2 >= 16:  # child anchor: left, top, right, bottom
                    anchor = struct.unpack_from("<iiii", self.data, b2)
                elif rtype == 0xF010 and e2 - b2 >= 8 and anchor is None:
                    top, left, right, bottom = (struct.unpack_from("<hhhh", self.data, b2)
                                                if e2 - b2 < 16 else
                                                struct.unpack_from("<iiii", self.data, b2))
                    anchor = (left, top, right, bottom)
                elif rtype == 0xF00D and c2:
                    self._texts(b2, e2, depth + 2, found, None)
            if kind == 20 or anchor is None:  # lines are the table's borders
                continue
            text = "\n".join(t for _, t, _ in found if t)
            cells.append((anchor, text))
        if not cells:
            return None
        xs = sorted({a[0] for a, _ in cells} | {a[2] for a, _ in cells})
        ys = sorted({a[1] for a, _ in cells} | {a[3] for a, _ in cells})
        col, row = {x: i for i, x in enumerate(xs)}, {y: i for i, y in enumerate(ys)}
        grid: dict[int, list] = {}
        for (left, top, right, bottom), text in cells:
            flow = Flow()
            for para in text.split("\n"):
                flow.paragraph([text_span(para)])
            cell = Cell(blocks=flow.finish(), colspan=max(1, col[right] - col[left]),
                        rowspan=max(1, row[bottom] - row[top]))
            grid.setdefault(row[top], []).append((col[left], cell))
        return Table([[c for _, c in sorted(grid[r], key=lambda x: x[0])] for r in sorted(grid)])

    def _has_property(self, body: int, end: int, prop: int) -> bool:
        for rtype, inst, b, e, _ in self.records(body, end):
            if rtype in (_FOPT, 0xF122):  # the property table, or its tertiary part
                for k in range(min(inst, (e - b) // 6)):
                    if struct.unpack_from("<H", self.data, b + 6 * k)[0] & 0x3FFF == prop:
                        return True
        return False

    def _slide(self, body: int, end: int) -> tuple[list, list]:
        found: list = []
        images: list = []
        self._texts(body, end, 0, found, images)
        return [x for x in found if x[1] is not None], images

    def _notes(self, body: int, end: int) -> tuple[int | None, list[str]]:
        slide_id = None
        for rtype, _, b, e, _ in self.records(body, end):
            if rtype == _NOTES_ATOM and e - b >= 4:
                slide_id = struct.unpack_from("<I", self.data, b)[0]
                break
        found: list = []
        self._texts(body, end, 0, found, None)
        return slide_id, [t for k, t, _ in found if t is not None and k == _NOTES_TYPE]

    def _text(self, rtype: int, b: int, e: int) -> str:
        self.text_budget -= e - b
        if self.text_budget < 0:  # records shared between slides: said once, at the end
            return _text_atom("")
        raw = self.data[b:e]
        text = (raw[:len(raw) // 2 * 2].decode("utf-16-le", "replace") if rtype == _TEXT_CHARS
                else raw.decode("cp1252", "replace"))
        return _text_atom(text.replace("\x0b", "\n").replace("\r", "\n"))

    # -- pictures --------------------------------------------------------------------------

    def _blip_store(self, body: int, end: int, depth: int = 0) -> None:
        if depth > MAX_DEPTH:
            return
        for rtype, _, b, e, container in self.records(body, end):
            if container:
                self._blip_store(b, e, depth + 1)
            elif rtype == _FBSE and e - b >= 36:
                self.blips.append(struct.unpack_from("<I", self.data, b + 28)[0])

    def _pib(self, b: int, e: int) -> int | None:
        """The blip id of a shape's property table (``pib``, 0x4104), if it has one."""
        inst = struct.unpack_from("<H", self.data, b - 8)[0] >> 4  # the number of properties
        for k in range(min(inst, (e - b) // 6)):
            opid, op = struct.unpack_from("<HI", self.data, b + 6 * k)
            if opid & 0x3FFF == 0x0104 and opid & 0x4000:
                return op
        return None

    def _image(self, pib: int) -> str | None:
        from mineru_tui.office.doc.fib import _blip

        if not 1 <= pib <= len(self.blips):
            return None
        offset = self.blips[pib - 1]
        if offset + 8 > len(self.pictures):
            return None

        def read() -> tuple[bytes, str] | None:
            try:
                return _blip(self.pictures, offset, len(self.pictures))
            except struct.error:
                return None
        # one picture store entry placed on many slides (a logo) is read and stored once
        return self.intake.take(("blip", offset), read, f"number {pib}")

    # -- pages -----------------------------------------------------------------------------

    def _page(self, i: int, outline: list, boxes: list, images: list, notes: list[str]) -> None:
        page = Page(page_idx=i, name=f"Slide {i + 1}")
        flow = Flow()
        # Placeholder text is stored twice (slide list and drawing): keep it once.
        listed = {t.strip() for _, t, _ in outline}
        for kind, text, styles in outline + [b for b in boxes if b[1].strip() not in listed]:
            if kind == _TABLE:
                flow.add(table_block(styles))
                continue
            key = text.strip()
            if not key or kind == _NOTES_TYPE:
                continue
            if kind in _TITLE_TYPES:
                flow.add(title_block([text_span(" ".join(key.split()))], 2))
                continue
            links = getattr(text, "links", [])
            runs = getattr(text, "runs", [])
            offset = 0
            counts: dict[int, int] = {}  # the running number at each depth
            for n, para in enumerate(text.split("\n")):
                depth, bullet, number = (styles[n] if styles and n < len(styles)
                                         else (0, None, None))
                if bullet is None:
                    bullet = kind in _BULLETED
                spans = _linked(para, offset, links, runs)
                offset += len(para) + 1
                if not para.strip():
                    continue
                for deeper in [d for d in counts if d > depth]:
                    del counts[deeper]  # a shallower item restarts the deeper lists
                if bullet and number is not None:
                    scheme, start = number
                    counts[depth] = max(counts.get(depth, 0) + 1, start)
                    flow.paragraph(spans, depth=depth, marker=_marker(scheme, counts[depth]))
                elif bullet:
                    counts.pop(depth, None)
                    flow.paragraph(spans, depth=depth, marker="-")
                else:
                    counts.clear()
                    flow.paragraph(spans)
            flow.end_list()
        for pib in images:
            name = self._image(pib)
            if name is not None:
                flow.add(image_block(name))
        blocks = flow.finish()
        lines = [Line([text_span(p.strip())]) for n in notes for p in n.split("\n") if p.strip()]
        if lines:
            blocks.append(Block(BlockType.NOTES, lines=lines))
        page.para_blocks = blocks
        self.doc.pages.append(page)

    def _fallback(self) -> Document:
        """No usable persist directory: every slide container in stored order."""
        slides: list = []
        found = False
        for rtype, _, b, e, container in self.records(0, len(self.data)):
            if rtype == _DOCUMENT and container:
                found = True
                for r2, _, b2, e2, c2 in self.records(b, e):
                    if r2 == 0x040B and c2:
                        self._blip_store(b2, e2)
            elif rtype == _SLIDE and container and len(slides) < MAX_SLIDES:
                slides.append(self._slide(b, e))
        if not found and not slides:
            raise InputError("not a readable PowerPoint 97-2003 presentation: it has no "
                             "document record")
        for i, (boxes, images) in enumerate(slides):
            self._page(i, [], boxes, images, [])
        return self._finish()

    def _finish(self) -> Document:
        doc = self.doc
        if self.cut:
            doc.warnings.append(cut_warning(f"more than {MAX_RECORDS} records; the rest of "
                                            "the presentation is left out"))
        if self.text_budget < 0:
            doc.warnings.append(cut_warning(
                f"the slides ask to decode more than {_mib(2 * len(self.data) + TEXT_SLACK)} "
                "of text, twice what the file holds (slides that share their records); the "
                "rest of the text is left out"))
        if self.persist_cut:
            doc.warnings.append(cut_warning("the persist directories overlap (they name more "
                                            "entries than the file holds); the entries past "
                                            "that are left out"))
        if not doc.pages:  # no slides: one empty page (the epilogue says it is empty)
            doc.pages.append(Page(page_idx=0))
        return doc


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.0f} MiB"


def _linked(para: str, offset: int, links: list, runs: list = ()) -> list:
    """The paragraph's spans, cut where links (character ranges of its text atom) and
    character runs (their bold, italic... ) start and end."""
    cuts = {0, len(para)}
    for begin, end, _ in links:
        cuts.update(min(max(x - offset, 0), len(para)) for x in (begin, end))
    for start, _ in runs:
        cuts.add(min(max(start - offset, 0), len(para)))
    points = sorted(cuts)
    spans = []
    for a, b in zip(points, points[1:]):
        target = next((url for begin, end, url in links
                       if begin <= offset + a and offset + b <= end), None)
        spans.append(text_span(para[a:b], _style_at(runs, offset + a), target))
    return merge_spans(spans) or [text_span(para)]


def _style_at(runs: list, char: int) -> frozenset:
    style: frozenset = frozenset()
    for start, look in runs:
        if start > char:
            break
        style = look
    return style


def _paragraph_styles(data: bytes, b: int, e: int, text: str, nine: list | None = None
                      ) -> list[tuple[int, bool | None, tuple[int, int] | None]]:
    """(indent level, bulleted or None when not said, (scheme, start) when numbered) of each
    paragraph of ``text``, from the paragraph runs of its StyleTextPropAtom and, with the
    shape's numbering entries ``nine``, the ``pp9rt`` of each paragraph's first character."""
    out: list[tuple[int, bool | None]] = []
    total = len(text) + 1
    pos = b
    covered = 0
    while covered < total and pos + 10 <= e and len(out) < 10_000:
        count, level, masks = struct.unpack_from("<IHI", data, pos)
        pos += 10
        bullet = None
        for bits, size in _PF_FIELDS:
            if masks & bits:
                if bits == 0x0F and pos + 2 <= e and masks & 0x01:
                    bullet = bool(struct.unpack_from("<H", data, pos)[0] & 1)
                pos += size
        if masks & 0x100000 and pos + 2 <= e:  # tab stops: a count and 4 bytes each
            pos += 2 + 4 * struct.unpack_from("<H", data, pos)[0]
        if masks & 0xE0000:
            pos += 2
        if masks & 0x10000:
            pos += 2
        if masks & 0x200000:
            pos += 2
        paragraphs = max(1, text[covered:covered + count].count("\n") + (
            0 if text[covered:covered + count].endswith("\n") else 1))
        out += [(min(level, 8), bullet)] * paragraphs
        covered += max(count, 1)
    runs = _char_runs(data, pos, e, total)
    if isinstance(text, _Text):
        text.runs = [(start, look) for start, _, look in runs]
    if not nine:
        return [(level, bullet, None) for level, bullet in out]
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    styled = []
    for n, (level, bullet) in enumerate(out):
        index = _pp9_at(runs, starts[n]) if n < len(starts) else 0
        styled.append((level, bullet, nine[index] if index < len(nine) else None))
    return styled


# TextPFException fields after the masks, in order: (mask bits, size in bytes)
_PF_FIELDS = ((0x0F, 2), (0x80, 2), (0x10, 2), (0x40, 2), (0x20, 4), (0x800, 2), (0x1000, 2),
              (0x2000, 2), (0x4000, 2), (0x100, 2), (0x400, 2), (0x8000, 2))
# TextCFException fields after the masks and the style word: (mask bits, size in bytes)
_CF_FIELDS = ((0x10000, 2), (0x200000, 2), (0x400000, 2), (0x800000, 2), (0x20000, 2),
              (0x40000, 4), (0x80000, 2), (0x100000, 4), (0x1000000, 2), (0x2000000, 2),
              (0x4000000, 4))


_CF_STYLES = ((0x1, "bold"), (0x2, "italic"), (0x4, "underline"))


def _char_runs(data: bytes, pos: int, e: int, total: int) -> list[tuple[int, int, frozenset]]:
    """(first character, pp9rt, styles) of each character run (the runs after the paragraph
    runs of a StyleTextPropAtom); pp9rt is 0 where a run does not set it. Styles: bold,
    italic, underline from the style word, super/subscript from the position."""
    runs = []
    covered = 0
    while covered < total and pos + 8 <= e and len(runs) < 10_000:
        count, masks = struct.unpack_from("<II", data, pos)
        pos += 8
        pp9rt, look = 0, set()
        if masks & 0xFFFF:
            if pos + 2 <= e:
                word = struct.unpack_from("<H", data, pos)[0]
                pp9rt = (word >> 10) & 0x0F
                look = {name for bit, name in _CF_STYLES if masks & word & bit}
            pos += 2
        for bits, size in _CF_FIELDS:
            if masks & bits:
                if bits == 0x80000 and pos + 2 <= e:  # position: raised or lowered text
                    shift = struct.unpack_from("<h", data, pos)[0]
                    if shift:
                        look.add("superscript" if shift > 0 else "subscript")
                pos += size
        runs.append((covered, pp9rt, frozenset(look)))
        covered += max(count, 1)
    return runs


def _pp9_at(runs: list[tuple[int, int, frozenset]], char: int) -> int:
    index = 0
    for start, pp9rt, _ in runs:
        if start > char:
            break
        index = pp9rt
    return index


# TextAutoNumberScheme values ([MS-PPT] 2.13.36) as DrawingML's scheme names
_SCHEMES = ("alphaLcPeriod", "alphaUcPeriod", "arabicParenR", "arabicPeriod",
            "romanLcParenBoth", "romanLcParenR", "romanLcPeriod", "romanUcPeriod",
            "alphaLcParenBoth", "alphaLcParenR", "alphaUcParenBoth", "alphaUcParenR",
            "arabicParenBoth", "arabicPlain", "romanUcParenBoth", "romanUcParenR")


def _numbering9(data: bytes, b: int, e: int) -> list[tuple[int, int] | None]:
    """The entries of a StyleTextProp9Atom: (scheme, start number) where the entry says the
    paragraph is automatically numbered, else None."""
    out: list[tuple[int, int] | None] = []
    pos = b
    while pos + 4 <= e and len(out) < 10_000:
        masks = struct.unpack_from("<I", data, pos)[0]  # TextPFException9
        pos += 4
        if masks & 0x00800000:  # bulletBlipRef
            pos += 2
        numbered = False
        if masks & 0x02000000 and pos + 2 <= e:  # fBulletHasAutoNumber
            numbered = struct.unpack_from("<H", data, pos)[0] != 0
            pos += 2
        scheme, start = 3, 1  # arabic with a period, from 1
        if masks & 0x01000000 and pos + 4 <= e:
            scheme, start = struct.unpack_from("<Hh", data, pos)
            pos += 4
        if pos + 4 > e:
            out.append((scheme, max(start, 1)) if numbered else None)
            break
        cf_masks = struct.unpack_from("<I", data, pos)[0]  # TextCFException9
        pos += 4 + (4 if cf_masks & 0x100000 else 0)
        if pos + 4 <= e:  # TextSIException
            si = struct.unpack_from("<I", data, pos)[0]
            pos += 4
            pos += 2 * sum(1 for bit in (0x1, 0x2, 0x4, 0x40) if si & bit)
            if si & 0x20:
                pos += 4
            if si & 0x200 and pos + 4 <= e:
                pos += 4 + 4 * struct.unpack_from("<I", data, pos)[0]
        out.append((scheme, max(start, 1)) if numbered else None)
    return out


def _marker(scheme: int, n: int) -> str:
    """An item's label in a TextAutoNumberScheme ("3.", "c)", "(iv)"); the East Asian and
    other schemes are written with digits."""
    from mineru_tui.office.numfmt import number_marker

    name = _SCHEMES[scheme] if 0 <= scheme < len(_SCHEMES) else "arabicPeriod"
    return number_marker(name, n)
