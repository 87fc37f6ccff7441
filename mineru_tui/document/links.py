"""Which link targets and image names may reach the output.

The rule (see ``docs/markdown-safety.md``): a document from elsewhere may link to the
web, to an e-mail address, or to a place inside itself, and nowhere else. So a link is
kept only when its target is ``http:``, ``https:``, ``mailto:`` or a fragment (``#...``);
``file:``, UNC paths (``\\\\host\\share``), relative paths, ``javascript:``, ``data:`` and
every other scheme are dropped, and the link's text stays as plain text. The same rule
serves Markdown, the HTML tables and the middle JSON, so no output carries a raw unsafe
target.

The scheme is judged twice: on the target as written (after dropping control and
invisible characters, which browsers and Markdown readers ignore or strip) it must be one
of the allowed ones spelled in plain ASCII letters, so look-alikes such as a Cyrillic
``а`` or a full-width ``ｈ`` never pass; and on the target fully normalised (HTML entities
and percent-escapes decoded repeatedly, NFKC, invisible characters dropped) it must still
be one of them.
"""

from __future__ import annotations

import html
import re
import unicodedata
from urllib.parse import unquote

_ALLOWED = re.compile(r"(?:https?:|mailto:|#)", re.IGNORECASE | re.ASCII)

# Default-ignorable letters and marks that are not in the "C" categories (Hangul fillers,
# combining grapheme joiner, variation selectors): invisible, so dropped like ZWSP.
_INVISIBLE = {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0}


def _visible(ch: str) -> bool:
    code = ord(ch)
    if code in _INVISIBLE or 0x180B <= code <= 0x180F or 0xFE00 <= code <= 0xFE0F \
            or 0xE0100 <= code <= 0xE01EF:
        return False
    # Cc control, Cf format (zero-width, bidi marks, soft hyphen), Zl/Zp separators.
    return unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp")


def _drop_invisible(text: str) -> str:
    if text.isascii() and text.isprintable():  # the common case: nothing to drop (fast)
        return text
    return "".join(ch for ch in text if _visible(ch))


def normalise_url(url: str) -> str:
    """The target as the most lenient reader could understand it, for judging its scheme.

    Entities and percent-escapes are decoded until nothing changes (``%256A`` is a
    twice-encoded ``j``), the result is NFKC-normalised and stripped of invisible
    characters, and Markdown backslash escapes are removed.
    """
    probe = url
    for _ in range(16):  # every round shortens the text; 16 is far beyond real nesting
        new = _drop_invisible(unicodedata.normalize("NFKC", unquote(html.unescape(probe))))
        new = new.replace("\\", "").strip()
        if new == probe:
            break
        probe = new
    return probe


def safe_url(url: str | None) -> str | None:
    """The URL if it is safe to put in a link (``http``, ``https``, ``mailto``, ``#...``), else None.

    The returned target has control and invisible characters removed and spaces
    written as ``%20``; everything else is kept as the document has it.
    """
    if not url:
        return None
    kept = _drop_invisible(url).strip()
    if not _ALLOWED.match(kept) or not _ALLOWED.match(normalise_url(kept)):
        return None
    return kept.replace(" ", "%20")


def safe_image_url(url: str | None) -> str | None:
    """A picture's web address if it may be written as a remote image (``![alt](url)``):
    ``http`` or ``https`` only, judged as :func:`safe_url` judges links. Nothing fetches
    it here; whatever renders the Markdown later may (see docs/formats-web.md)."""
    kept = safe_url(url)
    if kept is None or not re.match(r"https?://[^/?#\s\\]", kept, re.IGNORECASE | re.ASCII):
        return None
    if not re.match(r"https?://", normalise_url(kept), re.IGNORECASE | re.ASCII):
        return None
    return kept


def safe_image_name(name: str | None) -> str | None:
    """An image name (a key of ``Document.images``) if it can only name a file in the
    output's images folder: no scheme, no absolute or UNC path, no ``..``, no control
    characters. Anything else is refused (None) and the image is written as its alt text.
    """
    if not name or name != _drop_invisible(name) or ":" in name or "\\" in name:
        return None
    if name.startswith("/") or any(part in ("", ".", "..") for part in name.split("/")):
        return None
    return name
