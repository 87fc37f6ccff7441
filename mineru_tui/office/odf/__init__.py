"""OpenDocument (.odt, .ods, .odp and their templates) read from the package's XML."""

from mineru_tui.office.odf.reader import read_odf

__all__ = ["read_odf"]
