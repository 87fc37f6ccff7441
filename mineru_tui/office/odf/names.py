"""OpenDocument namespaces, as lxml's ``{uri}`` tag prefixes."""

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
