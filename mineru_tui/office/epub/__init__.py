"""EPUB 2 and 3 books read from their package (see :mod:`.reader`)."""

from mineru_tui.office.epub.reader import read_epub

__all__ = ["read_epub"]
