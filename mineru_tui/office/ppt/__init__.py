"""Legacy PowerPoint 97-2003 presentations (.ppt) read from their records."""

from mineru_tui.office.ppt.reader import read_ppt

__all__ = ["read_ppt"]
