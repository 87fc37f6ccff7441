"""Small helpers for the commands' terminal output (no third-party imports).

Every file name the commands print goes through :func:`shown`, and every message line
through :func:`line`, so a name or a message from a document can neither split a line
(forging an ``error:`` line), nor send escape sequences to the terminal, nor reorder the
text around it (bidi controls), nor fail to encode (a name that is not UTF-8).
"""

from __future__ import annotations

import unicodedata

# Bidirectional marks, overrides and isolates reorder the text around them on screen.
_BIDI = frozenset("\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


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


def shown(name: object) -> str:
    """``name`` (a path or text) printable on one line, with control characters escaped.

    ``\\n``, ``\\r`` and ``\\t`` are written as such, other controls as ``\\xNN`` or
    ``\\uNNNN``; a byte of a name that is not UTF-8 (a lone surrogate from Python's file
    system decoding) as ``\\xNN``, its value. Other text is unchanged.
    """
    text = str(name)
    if not any(is_control(c) for c in text):
        return text
    return "".join(_escape(c) if is_control(c) else c for c in text)


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
