"""OpenDocument namespaces, as lxml's ``{uri}`` tag prefixes, and the numbers every ODF
reader part reads the same way (attribute integers, the file's cell budget)."""

from __future__ import annotations

from mineru_tui.office.package import local  # noqa: F401  (re-exported)

OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
FO = "{urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0}"
SVG = "{urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0}"
XLINK = "{http://www.w3.org/1999/xlink}"
PRESENTATION = "{urn:oasis:names:tc:opendocument:xmlns:presentation:1.0}"
MATH = "{http://www.w3.org/1998/Math/MathML}"
DC = "{http://purl.org/dc/elements/1.1/}"

# Cells a whole file may show (text tables) or hold (sheets), counted as often as they are
# shown: a repeated cell that holds a table costs its copies times that table's cells
# (issue 32: 1,000 copies of a cell holding a table of 1,000 copies..., 32 levels deep, from
# a 1.2 KB file). At the limit `parse -o` takes about 17 s CPU and 75 MB (docs/hostile-inputs.md).
MAX_FILE_CELLS = 1_000_000

MAX_DIGITS = 10  # a counter, level, span or repeat count of more digits is no number


def number(text: str | None) -> int | None:
    """An attribute's whole number (a start value, a level, a repeat count), or None.

    Only plain ASCII digits, at most :data:`MAX_DIGITS` of them: a start value of 5,000
    digits is past what Python converts (and what any list shows); it reads as unset.
    """
    text = (text or "").strip()
    if text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS:
        return int(text)
    return None
