"""Legacy PowerPoint (.ppt) presentations to the document model ([MS-PPT] records).

The ``PowerPoint Document`` stream is a tree of records (an 8-byte header: version and
instance, type, length; containers have version 0xF). Read:

* the slide list (``SlideListWithText``, instance 0), which keeps the slides in
  presentation order and the text of their placeholders: a title (text type 0 or 6)
  becomes the slide's heading, body text its paragraphs (a line per paragraph; indented
  outline levels are not kept);
* each slide's own text boxes (``ClientTextbox`` text in the slide's drawing), matched to
  slides in the order the slides are stored;
* speaker notes (``NotesContainer`` text), matched to their slide by its id.

Not read: tables (their cells are text boxes, read as text), pictures, character
formatting. Encrypted presentations (``CryptSession10Container``) are refused.
"""

from __future__ import annotations

import struct
from pathlib import Path

from mineru_tui.document import Block, BlockType, Document, Line, Page, text_span, title_block
from mineru_tui.errors import InputError, cut_warning
from mineru_tui.office.flow import Flow
from mineru_tui.office.ole import ENCRYPTED, Ole

MAX_DEPTH = 32
MAX_RECORDS = 2_000_000

_DOCUMENT, _SLIDE, _NOTES, _MAIN_MASTER = 0x03E8, 0x03EE, 0x03F0, 0x03F8
_SLIDE_LIST, _SLIDE_PERSIST, _NOTES_ATOM = 0x0FF0, 0x03F3, 0x03F1
_TEXT_HEADER, _TEXT_CHARS, _TEXT_BYTES = 0x0F9F, 0x0FA0, 0x0FA8
_CRYPT = 0x2F14
_TITLE_TYPES = (0, 6)
_NOTES_TYPE = 2


def read_ppt(path: str | Path) -> Document:
    """Read a PowerPoint 97-2003 .ppt into a :class:`Document` (backend "office")."""
    with Ole(path) as ole:
        data = ole.stream("PowerPoint Document")
        if data is None:
            raise InputError("not a PowerPoint document: it has no PowerPoint Document stream")
        if ole.has("EncryptedSummary"):
            raise InputError(ENCRYPTED)
    reader = _Reader(data)
    try:
        reader.walk(0, len(data), 0, None)
    except struct.error as exc:
        raise InputError("not a readable PowerPoint 97-2003 presentation: its records are "
                         "damaged", str(exc)) from None
    return reader.document()


class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.count = 0
        self.cut = False
        self.outline: list[tuple[int, list[tuple[int, str]]]] = []  # (slide id, [(type, text)])
        self.slides: list[list[tuple[int, str]]] = []  # text boxes of each SlideContainer
        self.notes: dict[int, list[str]] = {}  # slide id -> notes paragraphs
        self._text_type = 4
        self._notes_for: int | None = None

    def walk(self, start: int, end: int, depth: int, context: str | None) -> None:
        data = self.data
        pos = start
        while pos + 8 <= end:
            ver_inst, rtype, length = struct.unpack_from("<HHI", data, pos)
            body = pos + 8
            stop = min(body + length, end)
            self.count += 1
            if self.count > MAX_RECORDS:
                self.cut = True
                return
            if rtype == _CRYPT:
                raise InputError(ENCRYPTED)
            if ver_inst & 0x0F == 0x0F:  # a container
                if depth < MAX_DEPTH:
                    self._container(rtype, ver_inst >> 4, body, stop, depth, context)
            else:
                self._atom(rtype, body, stop, context)
            pos = body + length

    def _container(self, rtype: int, inst: int, body: int, stop: int, depth: int,
                   context: str | None) -> None:
        if rtype == _MAIN_MASTER:
            return  # master slides: layout text, not content
        if rtype == _SLIDE_LIST and inst == 0:
            self.walk(body, stop, depth + 1, "list")
        elif rtype == _SLIDE_LIST:
            return
        elif rtype == _SLIDE:
            self.slides.append([])
            self.walk(body, stop, depth + 1, "slide")
        elif rtype == _NOTES:
            self._notes_for = None
            self.walk(body, stop, depth + 1, "notes")
        else:
            self.walk(body, stop, depth + 1, context)

    def _atom(self, rtype: int, body: int, stop: int, context: str | None) -> None:
        data = self.data
        if rtype == _SLIDE_PERSIST and context == "list" and stop - body >= 16:
            slide_id = struct.unpack_from("<I", data, body + 12)[0]
            self.outline.append((slide_id, []))
        elif rtype == _NOTES_ATOM and context == "notes" and stop - body >= 4:
            self._notes_for = struct.unpack_from("<I", data, body)[0]
            self.notes.setdefault(self._notes_for, [])
        elif rtype == _TEXT_HEADER and stop - body >= 4:
            self._text_type = struct.unpack_from("<I", data, body)[0]
        elif rtype in (_TEXT_CHARS, _TEXT_BYTES):
            raw = data[body:stop]
            text = (raw[:len(raw) // 2 * 2].decode("utf-16-le", "replace") if rtype == _TEXT_CHARS
                    else raw.decode("cp1252", "replace"))
            text = text.replace("\x0b", "\n").replace("\r", "\n")
            if context == "list" and self.outline:
                self.outline[-1][1].append((self._text_type, text))
            elif context == "slide" and self.slides:
                self.slides[-1].append((self._text_type, text))
            elif context == "notes" and self._notes_for is not None \
                    and self._text_type == _NOTES_TYPE:
                self.notes[self._notes_for].append(text)

    def document(self) -> Document:
        doc = Document(backend="office")
        if self.cut:
            doc.warnings.append(cut_warning(f"more than {MAX_RECORDS} records; the rest of "
                                            "the presentation is left out"))
        count = max(len(self.outline), len(self.slides))
        for i in range(count):
            slide_id, texts = self.outline[i] if i < len(self.outline) else (None, [])
            boxes = self.slides[i] if i < len(self.slides) else []
            page = Page(page_idx=i, name=f"Slide {i + 1}")
            flow = Flow()
            # Placeholder text is stored twice (slide list and drawing): keep it once.
            listed = {t.strip() for _, t in texts}
            for kind, text in texts + [b for b in boxes if b[1].strip() not in listed]:
                key = text.strip()
                if not key or kind == _NOTES_TYPE:
                    continue
                if kind in _TITLE_TYPES:
                    flow.add(title_block([text_span(" ".join(key.split()))], 2))
                    continue
                for para in text.split("\n"):
                    if para.strip():
                        flow.paragraph([text_span(para)])
            blocks = flow.finish()
            notes = self.notes.get(slide_id) if slide_id is not None else None
            lines = [Line([text_span(p.strip())]) for n in (notes or []) for p in n.split("\n")
                     if p.strip()]
            if lines:
                blocks.append(Block(BlockType.NOTES, lines=lines))
            page.para_blocks = blocks
            doc.pages.append(page)
        if not doc.pages:
            doc.pages.append(Page(page_idx=0))
            doc.warnings.append("no slides found in the presentation")
        return doc
