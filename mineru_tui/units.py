"""What a file's pages are called where a user reads about them: a presentation's pages
are slides, a workbook's sheets, an e-book's chapters, a CSV's one page is a table."""

from __future__ import annotations

_UNITS = {"pptx": "slide", "xlsx": "sheet"}
_WEB_UNITS = {"epub": "chapter", "csv": "table"}  # the web formats (docs/formats-web.md)


def page_unit(kind: str, n: int = 1) -> str:
    """``n`` pages of a file of ``kind`` in words: "1 page", "3 slides", "12 chapters"."""
    unit = _WEB_UNITS.get(kind) or _UNITS.get(kind, "page")
    return f"{n} {unit}{'s' * (n != 1)}"
