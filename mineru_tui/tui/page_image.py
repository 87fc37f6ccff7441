"""The page as the app draws it: its image with the layout boxes over it.

:func:`load_page_image` renders a PDF page (pypdfium2, small) or decodes an image frame;
:func:`draw_page` turns it into half-block characters — each character cell shows two
pixels, the upper half "▀" in the foreground colour and the lower half in the background
colour — which every terminal displays. Over the page, each block's box is outlined in
MinerU's colour for its type (:mod:`mineru_tui.pdf.layout_pdf`, the colours of
``_layout.pdf``) with its reading-order number in its corner; a block not read yet is
drawn pale, the block being read is tinted and the selected block is filled.
:func:`composite` draws the same on the image itself, for terminals with a graphics
protocol (see :mod:`mineru_tui.tui.widgets.preview`).

Knows nothing of Textual; returns Rich ``Text``.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
from rich.text import Text

from mineru_tui.tui.state import BlockRow

PAPER = (236, 236, 236)  # the page when there is no image (Office files, not loaded yet)
PAGE_RATIO = 1.414  # A4 portrait, height / width: the shape assumed without an image
RENDER_EDGE = 900  # pixels of the longest edge of a rendered page (enough for a big terminal)
FADE = 0.35  # the page image is blended this much towards white so the boxes stand out


def load_page_image(path: str, kind: str, index: int, max_edge: int = RENDER_EDGE):
    """Page ``index`` (0-based) of a PDF or image file as a small RGB PIL image, or None
    (an Office file, a missing or unreadable file: the boxes are then drawn on paper)."""
    try:
        if kind == "pdf":
            from mineru_tui.pdf.reader import open_pdf

            with open_pdf(path) as doc:
                return doc.page(index).render(dpi=72, max_edge=max_edge)
        if kind == "image":
            from mineru_tui.reader.images import iter_image_pages

            for page in iter_image_pages(path, {index}):
                image = page.image
                image.thumbnail((max_edge, max_edge))
                return image
    except Exception:  # the preview is a nicety: a file that will not render shows paper
        return None
    return None


def page_previews(path: str, kind: str, on_image, *, load=None, keep: int = 5):
    """The page images of one file, rendered in one thread on request, the newest request
    first (:class:`mineru_tui.pdf.previews.Previews`: holding ``]`` never queues renders).
    A PDF is rendered by PDFium; a page image file (or ``load(path, kind, index)``, a
    test's loader) is read the same way, through the same thread. ``on_image(index,
    image)`` is called in that thread."""
    from mineru_tui.pdf.previews import Previews

    if kind == "pdf" and load is None:
        return Previews(path, on_image, max_edge=RENDER_EDGE, keep=keep)
    loader = load or load_page_image

    class LoadedPreviews(Previews):
        def _open(self):
            return _Nothing()

        def _render(self, doc, index: int):
            return loader(path, kind, index)

    return LoadedPreviews(path, on_image, keep=keep)


class _Nothing:
    """The "document" of a loader: nothing to close."""

    def close(self) -> None:
        pass


def colour(block_type: str) -> tuple[int, int, int]:
    """MinerU's colour for a block type, as 0-255 RGB."""
    from mineru_tui.pdf.layout_pdf import colour_for

    return tuple(round(c * 255) for c in colour_for(block_type))  # type: ignore[return-value]


def _mix(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> tuple[int, int, int]:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t),
            round(a[2] + (b[2] - a[2]) * t))


def fit(width: int, height: int, aspect: float) -> tuple[int, int]:
    """Pixels (w, h) of a page of ``aspect`` (height / width) in ``width`` x ``height``
    cells (two pixels per cell vertically)."""
    px_h = height * 2
    pw = min(width, max(1, int(px_h / aspect)))
    ph = min(px_h, max(1, round(pw * aspect)))
    return pw, ph


def _pixels(image, pw: int, ph: int) -> list[list[tuple[int, int, int]]]:
    if image is None:
        return [[PAPER] * pw for _ in range(ph)]
    from PIL import Image

    small = image.convert("RGB").resize((pw, ph), Image.Resampling.BOX)
    raw = small.tobytes()
    white = (255, 255, 255)
    return [[_mix((raw[i], raw[i + 1], raw[i + 2]), white, FADE)
             for i in range(3 * y * pw, 3 * (y + 1) * pw, 3)] for y in range(ph)]


def draw_page(image, blocks: Sequence[BlockRow], width: int, height: int, selected: int = -1,
              numbers: bool = True) -> Text:
    """The page in ``width`` x ``height`` cells: the image (or paper) with the boxes."""
    if width < 4 or height < 2:
        return Text("")
    aspect = image.height / image.width if image is not None and image.width else PAGE_RATIO
    pw, ph = fit(width, height, aspect)
    grid = _pixels(image, pw, ph)
    labels: list[tuple[int, int, str, tuple[int, int, int]]] = []
    # the selected one on top; a block without a box (an Office page, an old set) is not drawn
    order = sorted((b for b in blocks if b.bbox[2] > b.bbox[0] and b.bbox[3] > b.bbox[1]),
                   key=lambda b: b.index == selected)
    for b in order:
        c = colour(b.type)
        x0, y0, x1, y1 = b.bbox
        ax, bx = int(x0 * (pw - 1)), round(x1 * (pw - 1))
        ay, by = int(y0 * (ph - 1)), round(y1 * (ph - 1))
        ax, bx = max(0, min(ax, pw - 1)), max(0, min(bx, pw - 1))
        ay, by = max(0, min(ay, ph - 1)), max(0, min(by, ph - 1))
        line = c if (b.done or b.reading or b.index == selected) else _mix(c, (255, 255, 255), 0.55)
        fill = 0.45 if b.index == selected else 0.2 if b.reading else 0.0
        for y in range(ay, by + 1):
            row = grid[y]
            for x in range(ax, bx + 1):
                if y in (ay, by) or x in (ax, bx):
                    row[x] = line
                elif fill:
                    row[x] = _mix(row[x], c, fill)
        if numbers:
            labels.append((ay // 2, ax, str(b.index + 1), c))
    return _to_text(grid, width, height, labels)


_STYLES: dict[tuple, Style] = {}


def _style(fg, bg) -> Style:
    key = (fg, bg)
    style = _STYLES.get(key)
    if style is None:
        style = _STYLES[key] = Style(color=f"rgb({fg[0]},{fg[1]},{fg[2]})" if fg else None,
                                     bgcolor=f"rgb({bg[0]},{bg[1]},{bg[2]})" if bg else None)
    return style


def _to_text(grid, width: int, height: int, labels) -> Text:
    ph, pw = len(grid), len(grid[0]) if grid else 0
    cells: list[list[tuple[str, Style] | None]] = []
    for row in range(height):
        line: list[tuple[str, Style] | None] = []
        top = grid[2 * row] if 2 * row < ph else None
        bottom = grid[2 * row + 1] if 2 * row + 1 < ph else None
        for x in range(width):
            t = top[x] if top is not None and x < pw else None
            b = bottom[x] if bottom is not None and x < pw else None
            line.append(None if t is None and b is None else ("▀", _style(t, b)))
        cells.append(line)
    for row, col, digits, c in labels:  # reading order, white on the box colour
        if row < height and col + len(digits) <= min(width, pw):
            for i, ch in enumerate(digits):
                cells[row][col + i] = (ch, Style(color="white", bgcolor=f"rgb({c[0]},{c[1]},{c[2]})", bold=True))
    out = Text(no_wrap=True, overflow="crop")
    for r, line in enumerate(cells):
        for cell in line:
            if cell is None:
                out.append(" ")
            else:
                out.append(cell[0], cell[1])
        if r < height - 1:
            out.append("\n")
    return out


def crop(image, bbox: tuple[float, float, float, float]):
    """The block's region of the page image (None without an image or for an empty box)."""
    if image is None:
        return None
    x0, y0, x1, y1 = bbox
    box = (int(x0 * image.width), int(y0 * image.height),
           max(int(x0 * image.width) + 1, round(x1 * image.width)),
           max(int(y0 * image.height) + 1, round(y1 * image.height)))
    if box[2] - box[0] < 2 or box[3] - box[1] < 2:
        return None
    return image.crop(box)


def draw_image(image, width: int, height: int) -> Text:
    """An image alone (a block's crop) in half-blocks, its shape kept."""
    if image is None or width < 2 or height < 1:
        return Text("")
    pw, ph = fit(width, height, image.height / image.width)
    return _to_text(_pixels(image, pw, ph), width, (ph + 1) // 2, [])


def composite(image, blocks: Sequence[BlockRow], selected: int = -1):
    """The page image with the boxes drawn on it (for a graphics-protocol terminal)."""
    from PIL import Image, ImageDraw

    if image is None:
        image = Image.new("RGB", (600, round(600 * PAGE_RATIO)), PAPER)
    out = Image.blend(image.convert("RGB"), Image.new("RGB", image.size, (255, 255, 255)), FADE)
    over = Image.new("RGBA", out.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(over)
    w, h = out.size
    for b in sorted(blocks, key=lambda b: b.index == selected):
        if not (b.bbox[2] > b.bbox[0] and b.bbox[3] > b.bbox[1]):
            continue
        c = colour(b.type)
        x0, y0, x1, y1 = b.bbox
        box = (x0 * w, y0 * h, max(x0 * w, x1 * w), max(y0 * h, y1 * h))
        alpha = 115 if b.index == selected else 50 if b.reading else 0
        line = c if (b.done or b.reading or b.index == selected) else _mix(c, (255, 255, 255), .55)
        draw.rectangle(box, fill=(*c, alpha), outline=(*line, 255), width=2)
        draw.text((box[0] + 3, box[1] + 2), str(b.index + 1), fill=(*c, 255))
    return Image.alpha_composite(out.convert("RGBA"), over).convert("RGB")
