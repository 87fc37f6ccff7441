"""The Page tab: the selected page's image with its layout boxes in reading order and the
selected block (drawn by :mod:`mineru_tui.tui.page_image` in half-blocks), and beside it
the page's blocks and the selected block's text, so the width left by a tall page is used."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from mineru_tui.console import shown
from mineru_tui.tui.block_text import state as block_state
from mineru_tui.tui.block_text import summary
from mineru_tui.tui.page_image import PAGE_RATIO, colour, crop, draw_image, draw_page, fit
from mineru_tui.tui.state import EMPTY, READING, FileRow, PageRow
from mineru_tui.watch.status import label as status_label

SIDE_MIN = 24  # columns kept for the block list beside the page


def page_caption(row: FileRow | None, page: PageRow | None, selected: int = -1) -> Text:
    """One line: which page of how many, its status and blocks, the selected block."""
    if row is None or page is None:
        return Text("")
    total = max(row.pages_total, len(row.pages))
    out = Text.assemble((f"page {page.index + 1} of {total}", "bold"))
    if page.blocks:
        out.append(f" · {page.blocks_done} of {page.blocks_to_read} blocks read"
                   if page.status == READING else f" · {len(page.blocks)} blocks")
    if page.status == READING:
        out.append(" · reading", "cyan")
    elif page.status == EMPTY:
        out.append(f" · empty: {shown(page.why_empty)}", "yellow")
    elif page.status != "done":
        out.append(f" · {status_label(page.status)}", "magenta")
    for b in page.blocks:
        if b.index == selected:
            out.append(f" · block {b.index + 1}: {b.type}", "bold")
    return out


def block_list(page: PageRow, selected: int) -> Text:
    """The blocks in reading order: number in its box colour, type, state, first words."""
    out = Text(no_wrap=True, overflow="ellipsis")
    for b in page.blocks:
        c = colour(b.type)
        mark = "▶" if b.index == selected else " "
        word = block_state(b, page)
        state = " ▸ reading" if word == "reading" else f" · {word}" if word else ""
        out.append(f"{mark}")
        out.append(f"{b.index + 1:>2}", style=f"bold white on rgb({c[0]},{c[1]},{c[2]})")
        out.append(f" {b.type}", style="bold" if b.index == selected else "")
        out.append(state, style="cyan" if b.reading else "dim")
        words = summary(b, 48) if b.text else ""
        if words:
            out.append(f"  {shown(words[:48])}", style="dim")
        out.append("\n")
    return out


class PagePreview(Horizontal):
    """The page, redrawn to the pane's size; ``image`` is None until it is loaded (the
    boxes are drawn on paper of the page's shape meanwhile, and for Office files)."""

    def __init__(self, graphics=None, **kw) -> None:
        super().__init__(**kw)
        self._graphics = graphics  # a textual-image widget class, or None (half-blocks)
        self._row: FileRow | None = None
        self._page: PageRow | None = None
        self._image = None
        self._selected = -1

    def compose(self) -> ComposeResult:
        yield Static(id="page-image")
        if self._graphics is not None:
            yield self._graphics(id="page-graphic")
        with VerticalScroll(id="page-side"):
            yield Static(id="page-text")

    def show(self, row: FileRow | None, page: PageRow | None, image, selected: int = -1) -> None:
        self._row, self._page, self._image, self._selected = row, page, image, selected
        self.refresh_preview()

    def _message(self) -> str:
        row, page = self._row, self._page
        if row is None:
            return "no file selected"
        if page is None:
            if row.status in ("queued", "reading"):
                return "the first page appears here once it is being read"
            if row.detail in ("pending", "loading"):
                return "loading the pages from the output folder…"
            return "this file has no pages to show" + (f" ({shown(row.reason)})"
                                                      if row.reason else "")
        if row.kind and row.kind not in ("pdf", "image"):
            return ("only PDFs and images have a page image and layout boxes; this file's "
                    "Markdown is in tab 1")
        if not page.blocks and page.status == READING:
            return "the boxes appear when the layout answer lands…"
        if not page.blocks:
            return page.why_empty if page.status == EMPTY else "no layout blocks on this page"
        return ""

    def refresh_preview(self) -> None:
        pic = self.query_one("#page-image", Static)
        side = self.query_one("#page-text", Static)
        w, h = max(self.size.width, 10), max(self.size.height, 4)
        row, page = self._row, self._page
        caption = page_caption(row, page, self._selected)
        message = self._message()
        drawable = page is not None and row is not None and row.kind in ("pdf", "image")
        if not drawable:
            pic.display = False
            if self._graphics is not None:
                self.query_one("#page-graphic").display = False
            side.update(Group(caption, Text(message, style="dim")))
            return
        if not self.size.width or not self.size.height:
            return  # not laid out yet (its tab just shown): drawn at its size on_resize,
            # not as a 4x3-cell thumbnail of a 10x4 guess
        aspect = (self._image.height / self._image.width if self._image is not None
                  else PAGE_RATIO)
        zoomed = self.screen.maximized is not None  # z: the page takes the whole width
        if zoomed:
            pw = max(4, w - 2)
            h = max(h, (round(pw * aspect) + 1) // 2)  # taller than the pane: it scrolls
        else:
            pw, _ = fit(max(4, w - SIDE_MIN), h, aspect)
        self.styles.overflow_y = "auto" if zoomed else "hidden"
        self.query_one("#page-side").display = not zoomed
        self._draw_image(pic, page, pw, h)
        parts = [caption, Text("")]
        if message:
            parts.append(Text(message, style="dim"))
        else:
            parts.append(block_list(page, self._selected))
            parts += self._selected_crop(page, max(10, w - pw - 3))
        side.update(Group(*parts))

    def _draw_image(self, pic: Static, page: PageRow, pw: int, h: int) -> None:
        if self._graphics is not None and self._image is not None:
            from mineru_tui.tui.page_image import composite

            pic.display = False
            graphic = self.query_one("#page-graphic")
            graphic.display = True
            graphic.styles.width = pw
            graphic.image = composite(self._image, page.blocks, self._selected)
            return
        if self._graphics is not None:
            self.query_one("#page-graphic").display = False
        pic.display = True
        pic.styles.width = pw
        pic.styles.height = h
        pic.update(draw_page(self._image, page.blocks, pw, h, self._selected))

    def _selected_crop(self, page: PageRow, width: int) -> list[Text]:
        """The selected block cut from the page at the side's full width: larger than in the
        page beside it, so a text block's lines can be made out."""
        block = next((b for b in page.blocks if b.index == self._selected), None)
        picture = crop(self._image, block.bbox) if block is not None else None
        if picture is None:
            return []
        rows = max(3, min(20, round(width * picture.height / picture.width / 2) + 1))
        return [Text(""), Text(f"block {block.index + 1} at full width:", style="dim"),
                draw_image(picture, width, rows)]

    def on_resize(self) -> None:
        self.refresh_preview()
