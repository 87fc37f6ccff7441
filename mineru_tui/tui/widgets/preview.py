"""A page preview: the layout boxes of a page drawn with half-block characters.

Each character cell shows two pixels (upper half "▀" in the foreground colour, lower half in
the background colour), which every terminal can display. Boxes are outlined in a colour per
block type; the selected block is filled.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from mineru_tui.tui.state import PageRow

PAGE_RATIO = 1.414  # A4 portrait, height / width: the events carry no page size
PAPER = "#e8e8e8"
TYPE_COLOUR = {"title": "#d7005f", "text": "#005fd7", "table": "#008700", "image": "#af5f00",
               "equation": "#8700af", "header": "#808080", "footer": "#808080",
               "list": "#0087af", "caption": "#5f8700"}
OTHER = "#444444"


def render_boxes(page: PageRow | None, width: int, height: int, selected: int = -1) -> Text:
    """The page as ``height`` lines of ``width`` half-block characters."""
    if width < 4 or height < 2:
        return Text("")
    px_h = height * 2
    # fit the page (width 1, height PAGE_RATIO) into width x px_h square-ish pixels
    pw = min(width, int(px_h / PAGE_RATIO))
    ph = min(px_h, int(pw * PAGE_RATIO))
    grid: list[list[str | None]] = [[None] * width for _ in range(px_h)]
    for y in range(ph):
        for x in range(pw):
            grid[y][x] = PAPER
    for b in (page.blocks if page else []):
        colour = TYPE_COLOUR.get(b.type, OTHER)
        x0, y0, x1, y1 = b.bbox
        ax, bx = int(x0 * (pw - 1)), round(x1 * (pw - 1))
        ay, by = int(y0 * (ph - 1)), round(y1 * (ph - 1))
        for y in range(ay, by + 1):
            for x in range(ax, bx + 1):
                edge = y in (ay, by) or x in (ax, bx)
                if edge or b.index == selected:
                    grid[y][x] = colour
    out = Text()
    for row in range(height):
        top, bottom = grid[2 * row], grid[2 * row + 1]
        for x in range(width):
            t, b = top[x], bottom[x]
            if t is None and b is None:
                out.append(" ")
            else:
                out.append("▀", Style(color=t or "default", bgcolor=b or "default"))
        if row < height - 1:
            out.append("\n")
    return out


class PagePreview(Static):
    """The selected page's boxes (reading order as drawn by the layout stage)."""

    def show(self, page: PageRow | None, selected: int = -1) -> None:
        self._page, self._selected = page, selected
        self.refresh_preview()

    def refresh_preview(self) -> None:
        page = getattr(self, "_page", None)
        w = max(self.size.width, 10)
        h = max(self.size.height, 5)
        if page is None or not page.blocks:
            self.update(Text("no layout for this page (Office files have none; pages show "
                             "their boxes once the layout stage has run)", style="dim"))
            return
        self.update(render_boxes(page, w, h, getattr(self, "_selected", -1)))

    def on_resize(self) -> None:
        self.refresh_preview()
