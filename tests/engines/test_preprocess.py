"""preprocess.py: bit-exact against the transformers PIL image processor, and bad images."""

import io

import numpy as np
import pytest
from PIL import Image

from mineru_tui.engines.qwen2vl.config import PreprocessorConfig, load_preprocessor_config
from mineru_tui.engines.errors import ImageError
from mineru_tui.engines.qwen2vl.preprocess import (
    MIN_IMAGE_EDGE,
    load_image,
    normalize_image,
    patchify,
    preprocess_image,
    resize_by_need,
    smart_resize,
)
from tests.tiny_checkpoint import REF_NPZ, REF_PNG, TINY_DIR


@pytest.fixture(scope="module")
def ref():
    with np.load(REF_NPZ) as z:
        return {k: z[k] for k in z.files if k.startswith("pre.")}


@pytest.fixture(scope="module")
def pre():
    return load_preprocessor_config(TINY_DIR)


def test_smart_resize_cases(ref):
    cases = ref["pre.smart_resize_cases"]
    assert cases.shape == (17, 6)
    for h, w, mn, mx, eh, ew in cases.tolist():
        assert smart_resize(h, w, 28, mn, mx) == (eh, ew), (h, w, mn, mx)


def test_smart_resize_rounds_half_to_even():
    assert smart_resize(42, 70, 28, 28 * 28, 10**9) == (56, 56)  # 1.5 -> 2, 2.5 -> 2


def test_pixel_values_bit_exact(ref, pre):
    out = preprocess_image(REF_PNG, pre)
    assert out.grid_thw == tuple(ref["pre.image_grid_thw"][0]) == (1, 6, 12)
    assert out.num_image_tokens == 18
    assert out.original_hw == (97, 181) and out.resized_hw == (84, 168)
    assert out.pixel_values.dtype == np.float32 and out.pixel_values.shape == (72, 1176)
    np.testing.assert_array_equal(out.pixel_values, ref["pre.pixel_values"])


def test_intermediates_bit_exact(ref, pre):
    img = load_image(REF_PNG)
    np.testing.assert_array_equal(np.asarray(img), ref["pre.image_rgb_u8"])
    resized = np.asarray(img.resize((168, 84), Image.Resampling.BICUBIC))
    np.testing.assert_array_equal(resized.transpose(2, 0, 1), ref["pre.resized_chw_u8"])
    normalized_hwc = normalize_image(resized, pre)
    np.testing.assert_array_equal(normalized_hwc.transpose(2, 0, 1), ref["pre.normalized_chw"])


def test_patchify_layout():
    """Row = merge-window-major patch, column = (c, t, py, px); both temporal slots equal."""
    pre = PreprocessorConfig()
    H, W = 56, 84  # gh = 4, gw = 6
    x_hwc = np.random.default_rng(0).standard_normal((H, W, 3)).astype(np.float32)
    pv = patchify(x_hwc, pre)
    assert pv.shape == (24, 1176)
    gw, M = 6, 2
    for r in (0, 1, 2, 3, 4, 13, 23):
        bh, bw, mh, mw = r // (gw // M * 4), (r // 4) % (gw // M), (r // 2) % 2, r % 2
        row, col = bh * M + mh, bw * M + mw
        patch_c_t_y_x = pv[r].reshape(3, 2, 14, 14)
        expected_c_y_x = x_hwc[row * 14 : (row + 1) * 14, col * 14 : (col + 1) * 14].transpose(2, 0, 1)
        np.testing.assert_array_equal(patch_c_t_y_x[:, 0], expected_c_y_x)
        np.testing.assert_array_equal(patch_c_t_y_x[:, 1], expected_c_y_x)


def test_inputs_bytes_and_pil_equal_path(pre):
    a = preprocess_image(REF_PNG, pre).pixel_values
    b = preprocess_image(REF_PNG.read_bytes(), pre).pixel_values
    c = preprocess_image(Image.open(REF_PNG), pre).pixel_values
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)


def test_corrupt_and_truncated(tmp_path):
    data = REF_PNG.read_bytes()
    with pytest.raises(ImageError, match="corrupt or truncated"):
        load_image(data[: len(data) // 2])
    with pytest.raises(ImageError, match="not an image"):
        load_image(b"this is not a png")
    p = tmp_path / "broken.png"
    p.write_bytes(data[:100])
    with pytest.raises(ImageError, match="broken.png"):
        load_image(p)
    with pytest.raises(ImageError, match="no such file"):
        load_image(tmp_path / "missing.png")


def _png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def test_tiny_images(pre):
    with pytest.raises(ImageError, match=r"1×1 pixels, too small"):
        preprocess_image(_png(Image.new("RGB", (1, 1), (255, 0, 0))), pre)
    with pytest.raises(ImageError, match="too small"):
        preprocess_image(Image.new("RGB", (300, MIN_IMAGE_EDGE - 1)), pre)
    # the smallest accepted image is upsized by smart_resize's min branch (4x4 -> 56x56, 4 tokens)
    out = preprocess_image(Image.new("RGB", (MIN_IMAGE_EDGE, MIN_IMAGE_EDGE), (10, 20, 30)), pre)
    assert out.grid_thw == (1, 4, 4) and out.num_image_tokens == 4
    assert smart_resize(1, 1, 28, 3136, 12845056) == (56, 56)  # the raw rule itself never crashes


def test_extreme_aspect_ratio(pre):
    with pytest.raises(ImageError, match="aspect ratio 300:1"):
        preprocess_image(Image.new("RGB", (3000, 10), "white"), pre)
    with pytest.raises(ImageError, match="aspect ratio"):
        smart_resize(10, 2010)
    assert smart_resize(10, 2000, 28, 3136, 12845056)  # exactly 200:1 is allowed


def test_mode_conversion_like_mineru():
    """P → RGBA → RGB, other modes straight to RGB: alpha is dropped (MinerU get_rgb_image)."""
    rgba = Image.new("RGBA", (8, 8), (10, 20, 30, 0))
    assert load_image(rgba).getpixel((0, 0)) == (10, 20, 30)
    assert load_image(rgba, alpha_background=(255, 255, 255)).getpixel((0, 0)) == (255, 255, 255)
    assert load_image(Image.new("L", (8, 8), 77)).getpixel((0, 0)) == (77, 77, 77)
    pal = Image.new("P", (8, 8), 0)
    pal.putpalette([200, 100, 50] * 256)
    assert load_image(_png(pal)).getpixel((0, 0)) == (200, 100, 50)
    cmyk = load_image(Image.new("CMYK", (8, 8), (0, 0, 0, 0)))
    assert cmyk.mode == "RGB" and cmyk.getpixel((0, 0)) == (255, 255, 255)


@pytest.mark.parametrize(
    "size, expected",
    [
        ((10, 10), (28, 28)), ((5, 400), (28, 1400)), ((3000, 20), (3000, 60)), ((20, 3000), (60, 3000)),
        ((100, 28), (100, 28)), ((27, 1000), (28, 1038)), ((2000, 2000), (2000, 2000)), ((1, 1), (28, 28)),
    ],
)  # fmt: skip
def test_resize_by_need_matches_mineru_vectors(size, expected, pre):
    """mineru-vl-utils 2.0.7 test vectors (W, H) -> (W, H); the result always preprocesses."""
    out = resize_by_need(Image.new("RGB", size, (0, 0, 0)))
    assert out.size == expected
    preprocess_image(out, pre)


def test_resize_by_need_pads_thin_crops_with_white():
    out = resize_by_need(Image.new("RGB", (3000, 20), (0, 0, 0)))
    assert out.getpixel((0, 0)) == (255, 255, 255) and out.getpixel((1500, 30)) == (0, 0, 0)
