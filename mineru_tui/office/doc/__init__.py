"""Legacy Word 97-2003 documents (.doc) read from their binary structures."""

from mineru_tui.office.doc.reader import read_doc

__all__ = ["read_doc"]
