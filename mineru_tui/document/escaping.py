"""Markdown escaping of text and list markers, shared by the Markdown and HTML-table writers."""

from __future__ import annotations

import re


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


ORDERED_MARKER = re.compile(r"^\d{1,9}[.)]$")


def list_marker(marker: str | None) -> tuple[str, str]:
    """A CommonMark list marker for an item, and any label to keep in its text.

    Word and PowerPoint number items "a.", "IV.", "(1)" or "1.2"; CommonMark only knows
    "-" and "N." / "N)". Those others become a bullet that keeps the original label, so
    nothing is lost and the nesting still parses.
    """
    if not marker or marker in ("-", "*", "+"):
        return "-", ""
    if ORDERED_MARKER.match(marker):
        return marker, ""
    if len(marker) == 1 and not marker.isalnum():  # a bullet glyph such as "•" or "▪"
        return "-", ""
    return "-", escape_md(marker) + " "
