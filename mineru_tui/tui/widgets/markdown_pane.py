"""The Markdown pane: the selected file's document, rendered.

It is fed page by page: a page that finishes is appended (``Markdown.append`` re-parses only
the tail), the whole text is set only when another file is selected. HTML tables are shown
as pipe tables (:mod:`mineru_tui.tui.md_display`); the widget would drop them. Tokens never reach this
pane (the live pane shows them), so rendering cost grows with pages, not tokens.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from mineru_tui.tui.md_display import for_display

MAX_CHARS = 400_000  # beyond this only the start is shown (Markdown widget cost)


class MarkdownPane(VerticalScroll):
    """A scrolling Markdown view that knows which file and how many pages it shows."""

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.path: str | None = None
        self.pages_shown = 0
        self.text = ""
        self.placeholder = False  # the text is a status line ("Reading…"), not the document

    def compose(self) -> ComposeResult:
        yield Markdown(id="markdown")

    @property
    def markdown(self) -> Markdown:
        return self.query_one("#markdown", Markdown)

    def show(self, path: str | None, text: str, pages: int) -> None:
        """Show ``text`` (``pages`` pages of ``path``) from the top; with ``pages == 0`` the
        text is a placeholder that the first page replaces."""
        self.path, self.pages_shown = path, pages
        self.placeholder = pages == 0
        self.text = text[:MAX_CHARS]
        self.markdown.update(for_display(self.text))
        self.scroll_home(animate=False)

    def append_pages(self, parts: list[str]) -> None:
        """Pages that just finished, in order, for the file already shown."""
        add = "\n\n".join(p for p in parts if p)
        if self.placeholder:
            self.show(self.path, add, self.pages_shown + len(parts))
            return
        self.pages_shown += len(parts)
        if not add or len(self.text) >= MAX_CHARS:
            return
        add = ("\n\n" if self.text else "") + add
        self.text += add
        self.markdown.append(for_display(add))
