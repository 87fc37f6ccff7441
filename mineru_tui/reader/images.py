"""Page images from image files: PNG, JPEG (EXIF orientation applied), TIFF (every frame a
page), WebP, BMP — one page at a time, with a decompression-bomb bound.

A page image is as large as the file says; the layout call squeezes it to 1036x1036 and block
crops are cut from it at full resolution (``mineru-vl-protocol.md`` §3). Tiny images need no
special case: the protocol upscales crops whose short side is under 28 px.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mineru_tui.errors import InputError

MAX_PIXELS = 100_000_000  # per page (a 10000x10000 scan); more is refused as a likely bomb
MAX_FRAMES = 10_000


@dataclass
class ImagePage:
    """One page of an image file: ``index`` (0-based frame) and the RGB image."""

    index: int
    image: object  # PIL.Image.Image (RGB)

    @property
    def size(self) -> tuple[int, int]:
        return self.image.size


def _open(path: Path):
    import warnings

    from PIL import Image

    try:
        # Pillow refuses above 2x its own limit and warns above it; our per-frame limit
        # (checked before decoding) is the rule, so its warning is not shown.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            return Image.open(path)
    except Image.DecompressionBombError as e:
        raise InputError(f"refused: {e}") from None
    except (OSError, ValueError, SyntaxError) as e:
        raise InputError(f"cannot read the image ({' '.join(str(e).split())})") from None


def count_pages(path: Path) -> int:
    """Frames in the file (1 for everything but multi-page TIFF / animated WebP)."""
    with _open(path) as im:
        n = int(getattr(im, "n_frames", 1) or 1)
    if n > MAX_FRAMES:
        raise InputError(f"refused: {n} frames (limit {MAX_FRAMES})")
    return n


def _check_size(w: int, h: int, where: str) -> None:
    if w * h > MAX_PIXELS:
        raise InputError(f"refused: {where}{w}x{h} pixels is over the limit of "
                         f"{MAX_PIXELS // 1_000_000} megapixels (possibly a decompression bomb)")
    if w < 1 or h < 1:
        raise InputError(f"{where}empty image ({w}x{h} pixels)")


def iter_image_pages(path: Path, wanted: set[int] | None = None) -> Iterator[ImagePage]:
    """Yield each frame (or only the 0-based frames in ``wanted``) as an RGB page image.

    Raises :class:`InputError` (one line) when the file cannot be read at all; a frame that
    fails to decode raises it for that frame only (the caller records the page as failed).
    """
    import warnings

    from PIL import Image, ImageOps, ImageSequence

    with _open(path) as im:
        n = int(getattr(im, "n_frames", 1) or 1)
        if n > MAX_FRAMES:
            raise InputError(f"refused: {n} frames (limit {MAX_FRAMES})")
        for i, frame in enumerate(ImageSequence.Iterator(im)):
            if wanted is not None and i not in wanted:
                continue
            where = f"frame {i + 1}: " if n > 1 else ""
            _check_size(*frame.size, where)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                    frame.load()
                page = ImageOps.exif_transpose(frame)  # JPEG/TIFF/WebP orientation tags
                page = _to_rgb(page)
            except Image.DecompressionBombError as e:
                raise InputError(f"refused: {where}{e}") from None
            except (OSError, ValueError, SyntaxError) as e:
                raise InputError(f"{where}cannot decode ({' '.join(str(e).split())})") from None
            yield ImagePage(i, page)


def _to_rgb(image):
    """RGB as MinerU's ``get_rgb_image`` makes it (alpha dropped; palettes via RGBA)."""
    if image.mode == "P":
        image = image.convert("RGBA")
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):
        image = image.point(lambda v: v / 256).convert("L")  # 16-bit greyscale scans
    if image.mode != "RGB":
        image = image.convert("RGB")
    return image
