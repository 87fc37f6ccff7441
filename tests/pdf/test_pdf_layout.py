"""``<stem>_layout.pdf``: written, opened back with pypdfium2, and checked pixel by pixel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from testkit.pdf_fixtures import Image, Page, text_lines, write_pdf
from PIL import Image as PILImage

from mineru_tui.pdf import LayoutPage, open_pdf, write_layout_pdf
from mineru_tui.pdf.layout_pdf import LAYOUT_COLOURS, UNKNOWN_COLOUR

BLACK = bytes(3 * 8 * 8)
BLOCKS = [("title", (0.10, 0.10, 0.60, 0.20)), ("text", (0.10, 0.30, 0.90, 0.50)),
          ("table", (0.15, 0.60, 0.85, 0.85)), ("mystery", (0.70, 0.05, 0.95, 0.12))]


def _source(tmp_path):
    pages = [Page(400, 600, rotate=r, media_origin=(10, 20), items=[
        Image(60, 420, 100, 60, pixels=BLACK, width=8, height=8)] + text_lines(
            ["Original text stays"], x=40, top=560)) for r in (0, 90, 180, 270)]
    return write_pdf(tmp_path / "src.pdf", pages)


def _edge_pixel(img, box, side_px=0):
    """The pixel on the middle of a box's left edge."""
    w, h = img.size
    x = round(box[0] * w) + side_px
    y = round((box[1] + box[3]) / 2 * h)
    return np.asarray(img)[y - 1:y + 2, x - 2:x + 3].reshape(-1, 3)


def _erode(mask, n):
    return ~_dilate(~mask, n)


def _dilate(mask, n):
    """Grow a boolean mask by n pixels (a square), one axis at a time."""
    out = mask.copy()
    for axis in (0, 1):
        grown = out.copy()
        for k in range(1, n + 1):
            if axis == 0:
                grown[k:] |= out[:-k]
                grown[:-k] |= out[k:]
            else:
                grown[:, k:] |= out[:, :-k]
                grown[:, :-k] |= out[:, k:]
        out = grown
    return out


def _has_colour(pixels, rgb, tol=40):
    target = np.array([round(c * 255) for c in rgb])
    return bool((np.abs(pixels.astype(int) - target).max(axis=1) <= tol).any())


def test_layout_pdf_pages_boxes_and_original_content(tmp_path):
    src = _source(tmp_path)
    photo = PILImage.new("RGB", (500, 400), "white")
    pages = [LayoutPage(BLOCKS, pdf_path=src, page_index=i) for i in range(4)]
    pages.append(LayoutPage(BLOCKS[:2], image=photo))
    out = write_layout_pdf(tmp_path / "out" / "src_layout.pdf", iter(pages))
    assert out.name == "src_layout.pdf" and not (tmp_path / "out" / "src_layout.pdf.part").exists()
    with open_pdf(src) as original, open_pdf(out) as drawn:
        assert len(drawn) == 5
        for i in range(4):
            before, after = original.page(i), drawn.page(i)
            assert after.size_pt == pytest.approx(before.size_pt)  # displayed size kept
            assert after.rotation == 0  # the rotation is baked in
            a, b = before.render(dpi=144), after.render(dpi=144)  # 1-pt lines: 2 px
            assert a.size == b.size
            for kind, box in BLOCKS:
                colour = LAYOUT_COLOURS.get(kind, UNKNOWN_COLOUR)
                assert _has_colour(_edge_pixel(b, box), colour), (i, kind)
                assert not _has_colour(_edge_pixel(a, box), colour)
            # the page's own content is where it was (except under the drawn lines):
            # the black square, the text
            rgb_b = np.asarray(b).astype(int)
            drawn_over = (rgb_b.max(axis=2) - rgb_b.min(axis=2)) > 40
            arr_a, arr_b = np.asarray(a).sum(axis=2), rgb_b.sum(axis=2)
            black = arr_a == 0
            assert black.sum() > 300
            inner = _erode(black, 2) & ~_dilate(drawn_over, 2)  # 1-px edges may differ
            assert inner.sum() > 150 and (arr_b[inner] == 0).all()
            assert not ((arr_b == 0) & ~_dilate(black, 2)).any()
            dark = np.argwhere((arr_a < 600) & ~black & ~drawn_over)
            assert len(dark) > 50 and (arr_b[tuple(dark.T)] < 700).mean() > 0.95
        image_page = drawn.page(4)
        assert image_page.size_pt == pytest.approx((500 * 72 / 200, 400 * 72 / 200))
        b = image_page.render(dpi=200)
        assert b.size == (500, 400)
        assert _has_colour(_edge_pixel(b, BLOCKS[1][1]), LAYOUT_COLOURS["text"])


def test_labels_carry_type_and_order(tmp_path):
    src = write_pdf(tmp_path / "one.pdf", [Page()])
    out = write_layout_pdf(tmp_path / "one_layout.pdf", [LayoutPage(
        [("text", (0.1, 0.1, 0.5, 0.2)), ("image_caption", (0.1, 0.4, 0.5, 0.5), 7)],
        pdf_path=src)])
    with open_pdf(out) as doc:
        text = doc[0].textpage().get_text_range()
    assert "text: 0" in text and "image_caption: 7" in text


def test_image_file_pages(tmp_path):
    path = tmp_path / "scan.png"
    PILImage.new("RGB", (300, 200), (250, 250, 250)).save(path)
    out = write_layout_pdf(tmp_path / "scan_layout.pdf",
                           [LayoutPage([("equation", (0.2, 0.2, 0.8, 0.8))], image=path)])
    with open_pdf(out) as doc:
        img = doc[0].render(dpi=200)
        assert img.size == (300, 200)
        assert _has_colour(_edge_pixel(img, (0.2, 0.2, 0.8, 0.8)), LAYOUT_COLOURS["equation"])


def test_pages_without_blocks_are_copied_unparsed(tmp_path):
    """A PDF page without blocks (effort low) is imported as it is, beside drawn pages: it
    shows what the source shows and keeps its /Rotate (it was copied, not drawn anew)."""
    src = _source(tmp_path)
    pages = [LayoutPage([], pdf_path=src, page_index=0), LayoutPage([], pdf_path=src, page_index=1),
             LayoutPage(BLOCKS, pdf_path=src, page_index=2), LayoutPage([], pdf_path=src, page_index=3)]
    out = write_layout_pdf(tmp_path / "low_layout.pdf", pages)
    with open_pdf(src) as original, open_pdf(out) as drawn:
        assert len(drawn) == 4
        assert drawn.page(1).rotation == 90 and drawn.page(2).rotation == 0
        for i in (0, 1, 3):
            a, b = original.page(i).render(dpi=72), drawn.page(i).render(dpi=72)
            assert np.array_equal(np.asarray(a), np.asarray(b)), i
        b = drawn.page(2).render(dpi=144)
        assert _has_colour(_edge_pixel(b, BLOCKS[1][1]), LAYOUT_COLOURS["text"])


def test_layout_pdf_longer_than_a_chunk_equals_the_one_document_drawing(tmp_path, monkeypatch):
    """A drawing longer than CHUNK_PAGES is saved a chunk at a time (the file saved so far
    reopened and saved again incrementally): the same pages, sizes, rotations and pixels as
    the drawing made in one document."""
    from testkit.pdf_fixtures import joined_pdf

    from mineru_tui.pdf import layout_pdf

    src = joined_pdf(tmp_path / "joined.pdf", 11)
    rotated = _source(tmp_path)  # /Rotate 0, 90, 180, 270
    photo = PILImage.new("RGB", (300, 200), "white")
    pages = [LayoutPage(BLOCKS[:2] if i % 3 == 0 else [], pdf_path=src, page_index=i)
             for i in range(11)]
    # blocks and none, a photo and rotated pages across the chunk borders (chunks of 4)
    pages[5:5] = [LayoutPage(BLOCKS, image=photo)]
    pages[8:8] = [LayoutPage(BLOCKS if i % 2 else [], pdf_path=rotated, page_index=i)
                  for i in range(4)]
    whole = write_layout_pdf(tmp_path / "whole_layout.pdf", iter(pages))
    monkeypatch.setattr(layout_pdf, "CHUNK_PAGES", 4)
    chunked = write_layout_pdf(tmp_path / "chunked_layout.pdf", iter(pages))
    assert whole.read_bytes() != chunked.read_bytes()  # really saved in chunks
    # each chunk appended once: no round writes the pages before it again
    assert chunked.stat().st_size < 1.3 * whole.stat().st_size

    with open_pdf(whole) as a, open_pdf(chunked) as b:
        assert len(a.raw) == len(b.raw) == len(pages) == 16
        for i in range(len(pages)):
            assert a.raw[i].get_size() == b.raw[i].get_size()
            assert a.raw[i].get_rotation() == b.raw[i].get_rotation()
            pixels_a = a.raw[i].render(scale=1).to_numpy()
            pixels_b = b.raw[i].render(scale=1).to_numpy()
            assert pixels_a.shape == pixels_b.shape and (pixels_a == pixels_b).all(), i
        # the boxes are there: a page with blocks differs from its source page
        with open_pdf(src) as s:
            assert (a.raw[0].render(scale=1).to_numpy() != s.raw[0].render(scale=1).to_numpy()).any()


def test_chunk_rounds_are_written_beside_the_layout_file(tmp_path, monkeypatch):
    """The files of a chunked drawing's rounds sit beside the file being written (inside the
    output set's partial folder, which the next write removes after a SIGKILL), not in the
    system's temp folder, and are gone once the file is written."""
    import tempfile

    from testkit.pdf_fixtures import joined_pdf

    from mineru_tui.pdf import layout_pdf

    src = joined_pdf(tmp_path / "joined.pdf", 6)
    made: list[str] = []

    class Recorded(tempfile.TemporaryDirectory):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self.name)

    monkeypatch.setattr(tempfile, "TemporaryDirectory", Recorded)
    monkeypatch.setattr(layout_pdf, "CHUNK_PAGES", 2)
    out = tmp_path / "set"
    write_layout_pdf(out / "x_layout.pdf", iter([LayoutPage([], pdf_path=src, page_index=i) for i in range(6)]))
    assert [Path(m).parent for m in made] == [out]
    assert sorted(p.name for p in out.iterdir()) == ["x_layout.pdf"]
