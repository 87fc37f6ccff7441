"""Legacy Excel workbooks (.xls, BIFF2-BIFF8) read with xlrd."""

from mineru_tui.office.xls.reader import read_xls

__all__ = ["read_xls"]
