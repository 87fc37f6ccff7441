"""Small helpers for the commands' terminal output (no third-party imports)."""

from __future__ import annotations


def isatty(stream) -> bool:
    """Whether ``stream`` is a terminal; False for closed or stream-less objects."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (newlines included) folded to one space."""
    return " ".join(text.split())
