"""The .mht/.mhtml reader: a web page saved with its pictures in one MIME message.

The message is parsed with the standard library's :mod:`email`. The page is the part the
``multipart/related`` ``start`` parameter names, else the first ``text/html`` part; its
pictures are the other parts, found by ``cid:`` or by ``Content-Location`` (the page's
relative ``src`` resolved against the page's own location). Nothing is fetched.
"""

from __future__ import annotations

import os
from email import message_from_binary_file, policy
from email.message import Message
from pathlib import Path

from mineru_tui.document import Document, Page
from mineru_tui.errors import InputError
from mineru_tui.detect import image_ext
from mineru_tui.office.html.reader import (MAX_HTML_BYTES, MAX_IMAGE_BYTES, WebLinks,
                                           data_uri, join_url, read_html_text)

from mineru_tui.office.limits import MAX_MHTML_BYTES
from mineru_tui.office.limits import MAX_MHTML_PARTS as MAX_PARTS
from mineru_tui.office.pictures import data_identity, too_large


class PartResources(WebLinks):
    """Pictures from the message's own parts; links as an HTML page's."""

    def __init__(self, parts: dict[str, Message], location: str | None, base: str | None):
        self.parts = parts
        self.location = location
        self.base = base or location

    def _part(self, src: str) -> Message | None:
        key = src.strip()
        if key.lower().startswith("cid:"):
            return self.parts.get("<" + key[4:].strip().strip("<>").strip() + ">")
        part = self.parts.get(key)
        if part is None and self.location:
            part = self.parts.get(join_url(self.location, key) or "")
        return part

    def image_key(self, src: str):
        if src.lower().startswith("data:"):
            return data_identity(src)
        part = self._part(src)
        return None if part is None else ("part", id(part))  # parts live as long as the read

    def image(self, src: str) -> tuple[bytes, str] | None:
        if src.lower().startswith("data:"):
            return data_uri(src)
        part = self._part(src)
        if part is None:
            return None
        data = part.get_payload(decode=True) or b""
        if len(data) > MAX_IMAGE_BYTES:
            raise too_large(repr(src), len(data))
        ext = image_ext(data)
        return (data, ext) if ext else None


def read_mhtml(path: str | Path) -> Document:
    """Read an MHTML file into a one-page :class:`Document` (backend "office")."""
    path = Path(path)
    if os.path.getsize(path) > MAX_MHTML_BYTES:
        raise InputError(f"refused: the web archive is larger than {MAX_MHTML_BYTES >> 20} MiB")
    with open(path, "rb") as f:
        msg = message_from_binary_file(f, policy=policy.compat32)
    parts: dict[str, Message] = {}
    leaves: list[Message] = []
    for i, part in enumerate(msg.walk()):
        if i > MAX_PARTS:
            raise InputError(f"refused: the web archive has more than {MAX_PARTS} parts")
        if part.is_multipart():
            continue
        leaves.append(part)
        for header in ("Content-Location", "Content-ID"):
            value = part.get(header)
            if value:
                key = value.strip()
                if header == "Content-ID" and not key.startswith("<"):
                    key = f"<{key}>"
                parts.setdefault(key, part)
    start = msg.get_param("start") if msg.is_multipart() else None
    page = parts.get(str(start).strip()) if start else None
    if page is None:
        page = next((p for p in leaves if p.get_content_type() in ("text/html",
                                                                    "application/xhtml+xml")), None)
    if page is None:
        raise InputError("a web archive (MHTML) without an HTML page in it")
    data = page.get_payload(decode=True) or b""
    if len(data) > MAX_HTML_BYTES:
        raise InputError(f"refused: the page holds more than {MAX_HTML_BYTES >> 20} MiB of "
                         f"HTML to read (the parse budget for this format)")
    from mineru_tui.office.html.parse import to_text

    doc = Document(backend="office")
    text = to_text(data, page.get_content_charset())
    location = (page.get("Content-Location") or "").strip() or None
    blocks = read_html_text(text, doc, lambda base: PartResources(parts, location, base))
    doc.pages.append(Page(page_idx=0, para_blocks=blocks))
    return doc  # an empty page: the epilogue of every format says so (office/__init__.py)
