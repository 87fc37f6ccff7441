"""The one rule for text that meets a terminal or a document (no third-party imports).

Every file name the commands and the watch app show goes through :func:`shown`, every
message line through :func:`line`, and the app's Markdown pane through :func:`shown` with
line breaks kept, so a name or a message from a document can neither split a line
(forging an ``error:`` line), nor send escape sequences to the terminal, nor reorder the
text around it (bidi controls), nor fail to encode (a name that is not UTF-8).

Documents (the Markdown and the content list) use the same character classes through
:func:`document_text`: there a control is dropped rather than shown as ``\\xNN``. The JSON
writer keeps the raw text but writes these characters as ``\\uXXXX`` escapes
(:data:`JSON_ESCAPED`). See ``docs/markdown-safety.md``.
"""

from __future__ import annotations

import re
import unicodedata

# Bidi embeddings, overrides and isolates reorder whole runs of text around them.
BIDI_OVERRIDES = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# On a terminal the single marks (LRM, RLM, ALM) are shown escaped too.
_BIDI = BIDI_OVERRIDES | frozenset("\u200e\u200f\u061c")

# What a document may not carry: C0 controls but tab, line feed and carriage return,
# DEL, C1 controls (U+0080-U+009F: U+009B is CSI to many terminals), lone surrogates
# (they cannot be UTF-8) and the bidi embeddings, overrides and isolates.
_DOCUMENT_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff"
                                "\u202a-\u202e\u2066-\u2069]")
# What the JSON writer escapes beyond JSON's own C0 escapes (which it always writes):
# the same set, plus the line and paragraph separators (line breaks to JavaScript).
JSON_ESCAPED = re.compile("[\x7f-\x9f\ud800-\udfff\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def isatty(stream) -> bool:
    """Whether ``stream`` is a terminal; False for closed or stream-less objects."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (newlines included) folded to one space."""
    return " ".join(text.split())


def is_control(c: str) -> bool:
    """A character that must not reach a terminal raw: C0/C1 controls and DEL, line and
    paragraph separators, bidi controls, and lone surrogates (bytes of a non-UTF-8 name)."""
    return unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") or c in _BIDI


def shown(name: object, keep: str = "") -> str:
    """``name`` (a path or text) printable on one line, with control characters escaped.

    ``\\n``, ``\\r`` and ``\\t`` are written as such, other controls as ``\\xNN`` or
    ``\\uNNNN``; a byte of a name that is not UTF-8 (a lone surrogate from Python's file
    system decoding) as ``\\xNN``, its value. Other text is unchanged. Characters in
    ``keep`` (``"\\n\\t"`` for a text pane) are left as they are.
    """
    text = str(name)
    if not any(is_control(c) and c not in keep for c in text):
        return text
    return "".join(_escape(c) if is_control(c) and c not in keep else c for c in text)


def document_text(text: str) -> str:
    """``text`` without what a document may not carry (see the module docstring):
    controls but tab and line ends, DEL, C1, lone surrogates, bidi overrides and isolates."""
    return _DOCUMENT_CONTROLS.sub("", text)


def line(text: str) -> str:
    """A message as one printable line: whitespace runs folded, the rest :func:`shown`."""
    return shown(one_line(text))


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(c: str) -> str:
    if c in _NAMED:
        return _NAMED[c]
    o = ord(c)
    if 0xDC80 <= o <= 0xDCFF:  # surrogateescape: the original byte
        return f"\\x{o - 0xDC00:02x}"
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}"
