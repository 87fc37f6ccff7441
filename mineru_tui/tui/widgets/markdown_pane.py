"""The Markdown pane: the selected page's Markdown, rendered, under a "page n of N" line.

It follows the selected page (``[`` / ``]``): the text is set when the page changes or
finishes, never per token (the live pane shows tokens), so rendering cost is one page.
While a page is read, the blocks read so far are shown as they finish. HTML tables are
shown as pipe tables (:mod:`mineru_tui.tui.md_display`); the widget would drop them.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static

from mineru_tui.tui.md_display import for_display
from mineru_tui.tui.widgets.block_view import printable

MAX_CHARS = 400_000  # beyond this only the start is shown (Markdown widget cost)


class MarkdownPane(VerticalScroll):
    """A scrolling Markdown view that knows which file and page it shows."""

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.path: str | None = None
        self.key: tuple | None = None  # what is shown: (path, page, version)
        self.text = ""
        self._pending: str | None = None  # the text to render next (renders are coalesced)
        self._head: Text | str = ""

    def compose(self) -> ComposeResult:
        yield Static(id="markdown-head")
        yield Markdown(id="markdown")

    @property
    def markdown(self) -> Markdown:
        return self.query_one("#markdown", Markdown)

    def show(self, path: str | None, text: str, head: Text | str = "", key: tuple | None = None,
             ) -> None:
        """Show ``text`` under ``head``; nothing is redrawn when ``key`` is unchanged."""
        if key is not None and key == self.key:
            return
        same_page = key is not None and self.key is not None and key[:2] == self.key[:2]
        self.path, self.key, self._head = path, key, head
        self.text = printable(text[:MAX_CHARS])  # control characters never reach the terminal
        self.query_one("#markdown-head", Static).update(head)
        self.query_one("#markdown-head", Static).display = bool(head)
        first = self._pending is None
        self._pending = for_display(self.text)
        if first:
            self.call_later(self._render_markdown)
        if not same_page:  # a page that grows keeps its scroll position
            self.scroll_home(animate=False)

    def highlight(self, found: Text) -> None:
        """Under the caption: the match find went to, highlighted (until the page changes)."""
        head = self.query_one("#markdown-head", Static)
        head.update(Text.assemble(self._head, "\n", ("found: ", "dim"), found))
        head.display = True

    def clear_highlight(self) -> None:
        """Back to the caption alone (a later find matched nothing)."""
        head = self.query_one("#markdown-head", Static)
        head.update(self._head)
        head.display = bool(self._head)

    async def _render_markdown(self) -> None:
        # Awaited here (not fired and forgotten) so an update cut short when the app quits
        # is not reported as an exception nobody retrieved; texts set meanwhile coalesce.
        while self._pending is not None:
            text, self._pending = self._pending, None
            await self.markdown.update(text)
