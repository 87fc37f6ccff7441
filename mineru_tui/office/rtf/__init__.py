"""Rich Text Format (.rtf) read with a small lexer of its own."""

from mineru_tui.office.rtf.reader import read_rtf

__all__ = ["read_rtf"]
