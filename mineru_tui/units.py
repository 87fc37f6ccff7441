"""What a file's pages are called where a user reads about them: a presentation's pages
are slides, a workbook's sheets, an e-book's chapters, a CSV's one page is a table.

The words come from the table of kinds (:mod:`mineru_tui.kinds`); this module keeps the
name callers import.
"""

from __future__ import annotations

from mineru_tui.kinds import page_unit

__all__ = ["page_unit"]
