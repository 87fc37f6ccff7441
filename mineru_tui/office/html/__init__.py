"""HTML, XHTML and MHTML pages read as static documents (see :mod:`.blocks`)."""

from mineru_tui.office.html.mhtml import read_mhtml
from mineru_tui.office.html.reader import read_html

__all__ = ["read_html", "read_mhtml"]
