"""Namespace prefixes of PresentationML and DrawingML, and a tag helper (:func:`q`).

Shared by the PowerPoint reader and the chart and SmartArt readers the three formats use.
"""

from __future__ import annotations

NS = {
    "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
    "p": "http://schemas.openxmlformats.org/presentationml/2006/main",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "c": "http://schemas.openxmlformats.org/drawingml/2006/chart",
    "dgm": "http://schemas.openxmlformats.org/drawingml/2006/diagram",
    "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006",
    "a14": "http://schemas.microsoft.com/office/drawing/2010/main",
    "m": "http://schemas.openxmlformats.org/officeDocument/2006/math",
}


def q(tag: str) -> str:
    """``"a:p"`` → ``"{http://...drawingml/2006/main}p"``."""
    prefix, _, local = tag.partition(":")
    return f"{{{NS[prefix]}}}{local}"


R_ID = q("r:id")
R_EMBED = q("r:embed")
R_LINK = q("r:link")
