"""Image preprocessing for Qwen2-VL, bit-exact with transformers' PIL image processor.

Order (``Qwen2VLImageProcessorPil``): convert to RGB → smart_resize → Pillow bicubic on uint8 →
rescale (f64 multiply, cast to f32) → normalise (f32) → merge-window-major patchify.
See ``shared/notes/qwen2vl-numerics.md`` §1 for the rules reproduced here.
"""

from __future__ import annotations

import io
import math
import os
from dataclasses import dataclass

import numpy as np
from PIL import Image, UnidentifiedImageError

from .config import PreprocessorConfig
from mineru_tui.engines.errors import ImageError

__all__ = [
    "MAX_ASPECT_RATIO",
    "MIN_IMAGE_EDGE",
    "ImageError",
    "PreprocessedImage",
    "load_image",
    "normalize_image",
    "patchify",
    "preprocess_image",
    "resize_by_need",
    "smart_resize",
]

MAX_ASPECT_RATIO = 200  # transformers' smart_resize refuses anything longer/thinner
# Smaller images carry no readable content: smart_resize would blow a 1×1 image up to 56×56 of
# one colour. MinerU's own crop step already upsizes crops to a 28-px short edge before this.
MIN_IMAGE_EDGE = 4


def smart_resize(height: int, width: int, factor: int = 28, min_pixels: int = 56 * 56, max_pixels: int = 28 * 28 * 1280) -> tuple[int, int]:
    """Target (height, width): multiples of ``factor`` with min_pixels ≤ h·w ≤ max_pixels, aspect kept.

    Same arithmetic as transformers (f64, Python ``round`` = half to even, same operation order),
    so the result is identical. Aspect ratio above 200 → ImageError.
    """
    if height <= 0 or width <= 0:
        raise ImageError(f"image has no pixels ({width}×{height})")
    if max(height, width) / min(height, width) > MAX_ASPECT_RATIO:
        raise ImageError(
            f"image is {width}×{height} pixels: aspect ratio {max(height, width) / min(height, width):.0f}:1 "
            f"is more than the model's limit of {MAX_ASPECT_RATIO}:1"
        )
    h_bar = round(height / factor) * factor
    w_bar = round(width / factor) * factor
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


ImageSource = str | os.PathLike | bytes | bytearray | memoryview | Image.Image


def load_image(source: ImageSource, *, alpha_background: tuple[int, int, int] | None = None) -> Image.Image:
    """Open and fully decode an image as an RGB ``PIL.Image``.

    ``source``: a path, encoded bytes, or a PIL image. Colour conversion follows MinerU
    (``mineru_vl_utils`` ``get_rgb_image``): palette images go through RGBA, every other mode is
    converted straight to RGB — so alpha is *dropped*, not composited, unless ``alpha_background``
    (e.g. ``(255, 255, 255)``) is given. Unreadable, corrupt or truncated data → ImageError.
    """
    name = "image"
    try:
        if isinstance(source, Image.Image):
            img = source
        elif isinstance(source, (bytes, bytearray, memoryview)):
            img = Image.open(io.BytesIO(bytes(source)))
        else:
            name = os.fspath(source)
            img = Image.open(name)
        img.load()  # decode now, so truncated data fails here and not deep inside resize
    except FileNotFoundError:
        raise ImageError(f"{name}: no such file") from None
    except UnidentifiedImageError:
        raise ImageError(f"{name}: not an image file (or a format Pillow cannot read)") from None
    except Image.DecompressionBombError as e:
        raise ImageError(f"{name}: too many pixels ({e})") from None
    except (OSError, SyntaxError, ValueError, EOFError) as e:  # PIL's ways of saying "corrupt"
        raise ImageError(f"{name}: corrupt or truncated image ({e})") from None

    if alpha_background is not None and (img.mode in ("RGBA", "LA", "PA") or "transparency" in img.info):
        rgba = img.convert("RGBA")
        canvas = Image.new("RGBA", rgba.size, (*alpha_background, 255))
        return Image.alpha_composite(canvas, rgba).convert("RGB")
    if img.mode == "P":
        img = img.convert("RGBA")
    if img.mode != "RGB":
        img = img.convert("RGB")
    return img


def resize_by_need(image: Image.Image, min_edge: int = 28, max_edge_ratio: float = 50) -> Image.Image:
    """MinerU's crop fix-up before a recognition call (protocol notes §3.3 step 4).

    A crop longer than ``max_edge_ratio``:1 is centred on a white canvas whose short side is
    ceil(long / ratio); then a short side under ``min_edge`` is scaled up (sizes rounded up,
    bicubic). Never downscales: large crops are bounded later by smart_resize's max_pixels.
    """
    width, height = image.size
    if width < 1 or height < 1:
        raise ImageError(f"crop has no pixels ({width}×{height})")
    if max(width, height) / min(width, height) > max_edge_ratio:
        if width > height:
            canvas_w, canvas_h = width, math.ceil(width / max_edge_ratio)
        else:
            canvas_w, canvas_h = math.ceil(height / max_edge_ratio), height
        canvas = Image.new(image.mode, (canvas_w, canvas_h), (255, 255, 255))
        canvas.paste(image, (int((canvas_w - width) / 2), int((canvas_h - height) / 2)))
        image, (width, height) = canvas, canvas.size
    if min(width, height) < min_edge:
        scale = min_edge / min(width, height)
        image = image.resize((math.ceil(width * scale), math.ceil(height * scale)), Image.Resampling.BICUBIC)
    return image


def normalize_image(image_u8: np.ndarray, pre: PreprocessorConfig) -> np.ndarray:
    """uint8 [H, W, 3] → float32 [H, W, 3]: ``(u8·f64 scale → f32 − mean_f32) / std_f32``.

    transformers rescales in f64 and casts to f32 before normalising in f32; computing it all in
    f64 would differ by up to 2.4e-7.
    """
    rescaled_hw3 = (image_u8.astype(np.float64) * pre.rescale_factor).astype(np.float32)
    mean = np.asarray(pre.image_mean, dtype=np.float32)
    std = np.asarray(pre.image_std, dtype=np.float32)
    return (rescaled_hw3 - mean) / std


def patchify(normalized_hwc: np.ndarray, pre: PreprocessorConfig) -> np.ndarray:
    """float32 [H, W, C] → pixel_values [gh·gw, C·T·P·P], merge-window-major.

    Row r = ((bh·(gw/M) + bw)·M + mh)·M + mw (the M×M patches of a merge window are consecutive);
    column = ((c·T + t)·P + py)·P + px (the Conv3d weight layout). A still image is repeated over
    the T temporal slots.
    """
    H, W, C = normalized_hwc.shape
    P, M, T = pre.patch_size, pre.merge_size, pre.temporal_patch_size
    gh, gw = H // P, W // P
    if gh * P != H or gw * P != W or gh % M or gw % M:
        raise ValueError(f"image {W}×{H} is not a multiple of {P * M} pixels; smart_resize it first")
    x = normalized_hwc.reshape(gh // M, M, P, gw // M, M, P, C)  # (bh, mh, py, bw, mw, px, c)
    x = x.transpose(0, 3, 1, 4, 6, 2, 5)  # (bh, bw, mh, mw, c, py, px)
    x = np.broadcast_to(x[:, :, :, :, :, None], (gh // M, gw // M, M, M, C, T, P, P))
    return np.ascontiguousarray(x).reshape(gh * gw, C * T * P * P)


@dataclass(frozen=True)
class PreprocessedImage:
    """One image ready for the vision tower.

    pixel_values: "[num_patches, 1176]" float32, num_patches = gh·gw (patch rows, merge-window-major)
    grid_thw: (1, gh, gw) in patches of 14 px (t = 1 for a still image)
    num_image_tokens: gh·gw / merge² — the number of ``<|image_pad|>`` tokens for the prompt
    """

    pixel_values: np.ndarray
    grid_thw: tuple[int, int, int]
    num_image_tokens: int
    original_hw: tuple[int, int]
    resized_hw: tuple[int, int]


def preprocess_image(image: ImageSource, pre: PreprocessorConfig) -> PreprocessedImage:
    """Image (path, bytes or PIL) → PreprocessedImage, exactly as transformers' PIL processor.

    Errors (ImageError): unreadable image, a side under MIN_IMAGE_EDGE pixels, aspect ratio > 200.
    """
    img = load_image(image)
    width, height = img.size
    if min(width, height) < MIN_IMAGE_EDGE:
        raise ImageError(
            f"image is {width}×{height} pixels, too small to read (each side needs at least {MIN_IMAGE_EDGE} pixels)"
        )
    rh, rw = smart_resize(height, width, pre.factor, pre.min_pixels, pre.max_pixels)
    if (rw, rh) != (width, height):
        img = img.resize((rw, rh), resample=Image.Resampling.BICUBIC)  # on uint8, like transformers
    image_u8_hw3 = np.asarray(img, dtype=np.uint8)
    pixel_values = patchify(normalize_image(image_u8_hw3, pre), pre)
    gh, gw = rh // pre.patch_size, rw // pre.patch_size
    return PreprocessedImage(
        pixel_values=pixel_values,
        grid_thw=(1, gh, gw),
        num_image_tokens=gh * gw // pre.merge_size**2,
        original_hw=(height, width),
        resized_hw=(rh, rw),
    )


def each_image(pixel_values_NK, grid_thws, check=None):
    """The images of a vision batch in order, as ``((t, h, w), rows)``: each one's patch rows
    (float32) cut from ``pixel_values_NK`` by its grid. ``check`` runs before each (cancel)."""
    start = 0
    for g in grid_thws:
        t, h, w = (int(v) for v in g)
        n = t * h * w
        rows = np.asarray(pixel_values_NK[start:start + n], np.float32)
        start += n
        if check is not None:
            check()
        yield (t, h, w), rows
