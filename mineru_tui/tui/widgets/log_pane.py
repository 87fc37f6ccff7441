"""The Log tab: one entry per event, wrapped at the pane's width so a long warning (a cancel's
reason, the folders being watched) reads whole at any terminal size, the newest in view.

Textual's ``Log`` never wraps (its lines were cut at the pane's edge) and ``RichLog`` wraps
each line once, at the width it had when written: this one keeps the entries and wraps them
again when the pane's width changes (a resize, ``z``, the narrow/wide layout).
"""

from __future__ import annotations

from collections import deque

from rich.text import Text
from textual.events import Resize
from textual.widgets import RichLog


class LogPane(RichLog):
    """A wrapped log of plain-text lines; ``entries`` holds the last ``max_entries`` of them."""

    def __init__(self, *, max_entries: int = 2000, id: str | None = None) -> None:
        # min_width=1: RichLog renders at least 78 columns wide by default (wider than the pane
        # at 80x24); max_lines bounds the wrapped rows kept, entries the lines re-wrapped
        super().__init__(wrap=True, min_width=1, max_lines=max_entries, id=id)
        self.entries: deque[str] = deque(maxlen=max_entries)
        self._wrapped_at = 0  # the width the rows were wrapped at

    def write_line(self, line: str) -> None:
        """Add a line (plain text: no markup) at the bottom."""
        self.entries.append(line)
        if self._size_known and not self.scrollable_content_region.width:
            self._wrapped_at = 0  # hidden (another tab shows): wrapped when shown again
            return
        self.write(Text(line))

    def on_resize(self, event: Resize) -> None:
        # runs before RichLog's own handler (which writes what waited for a first size)
        width = self.scrollable_content_region.width
        if self._size_known and width and width != self._wrapped_at:
            self.clear()
            for line in self.entries:
                self.write(Text(line))
        if width:
            self._wrapped_at = width
