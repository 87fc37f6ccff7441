"""The Block tab: the selected block's text, and for pictures, tables and equations its crop
of the page beside it (half-blocks)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from mineru_tui.console import shown
from mineru_tui.tui.block_text import readable
from mineru_tui.tui.block_text import state as block_state
from mineru_tui.tui.page_image import crop, draw_image
from mineru_tui.tui.state import BlockRow, PageRow

CROP_TYPES = ("image", "table", "equation", "chart", "interline_equation", "image_body",
              "table_body", "equation_block")
SOURCE = {"text_layer": "the PDF's own text", "model": "the model", "none": "nothing (not read)",
          "office": "the Office file"}


def printable(text: str) -> str:
    """Block text with control characters escaped, its lines and tabs kept."""
    return "\n".join(shown(line).replace("\\t", "    ") for line in text.split("\n"))


class BlockView(Horizontal):
    """Header, text (scrolls) and, for visual blocks, the crop."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="block-text-scroll"):
            yield Static(id="block-head")
            yield Static(id="block-text", markup=False)
        yield Static(id="block-crop")

    def show(self, page: PageRow | None, block: BlockRow | None, image) -> None:
        self._shown = (page, block, image)
        head = self.query_one("#block-head", Static)
        body = self.query_one("#block-text", Static)
        pic = self.query_one("#block-crop", Static)
        if block is None or page is None:
            head.update(Text("no block selected: j / k move through the blocks of the page",
                             style="dim"))
            body.update("")
            pic.display = False
            return
        state = block_state(block, page) or "read"
        line = Text.assemble((f"block {block.index + 1} of {len(page.blocks)}", "bold"),
                             f" · {block.type} · page {page.index + 1} · {state}")
        if block.done:
            line.append(f" · text from {SOURCE.get(block.source, block.source)}", "dim")
            if block.finish_reason not in ("", "stop", "text_layer"):
                line.append(f" ({block.finish_reason})", "yellow")
        line.append("\nbox " + " ".join(f"{v:.3f}" for v in block.bbox) + "\n", "dim")
        head.update(line)
        text = readable(block.text)
        body.update(Text(printable(text.strip())) if text.strip() else
                    Text("(no text)", style="dim"))
        picture = crop(image, block.bbox) if block.type in CROP_TYPES else None
        pic.display = picture is not None
        if picture is not None:
            w = max(12, self.size.width // 2 - 1)
            pic.styles.width = w
            pic.update(draw_image(picture, w, max(4, self.size.height - 1)))

    def on_resize(self) -> None:
        shown = getattr(self, "_shown", None)
        if shown is not None:
            self.show(*shown)
