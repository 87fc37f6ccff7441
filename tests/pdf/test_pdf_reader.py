"""Opening PDFs made in the tests: page selection, rendering, coordinates, and every way a
file can fail to open (one clear line each)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from testkit.pdf_fixtures import Image, Page, build_pdf, text_lines, write_pdf

from mineru_tui.errors import InputError
from mineru_tui.pdf import PageError, open_pdf, parse_pages, render_scale


def _numbered(tmp_path, n=5, **kw):
    return write_pdf(tmp_path / "doc.pdf",
                     [Page(items=text_lines([f"This is page number {i + 1}."]), **kw)
                      for i in range(n)])


def test_all_pages_by_default(tmp_path):
    with open_pdf(_numbered(tmp_path)) as doc:
        assert len(doc) == 5 and doc.page_count_total == 5
        assert [p.index for p in doc] == [0, 1, 2, 3, 4]


def test_page_range_selects_and_sorts(tmp_path):
    with open_pdf(_numbered(tmp_path), "4,1-2, 2") as doc:
        assert len(doc) == 3 and doc.page_count_total == 5
        texts = []
        for page in doc:
            texts.append(page.textpage().get_text_range())
        assert [p.index for p in doc] == [0, 1, 3]
        assert texts == [f"This is page number {i}." for i in (1, 2, 4)]


@pytest.mark.parametrize("spec, words", [
    ("0", "numbered from 1"), ("3-1", "backwards"), ("6", "past the end"),
    ("1-9", "past the end"), ("a", "not a page number"), ("1,,2", "not a page number"),
    ("1-2-3", "not a page number"),
])
def test_bad_page_ranges_are_one_clear_line(tmp_path, spec, words):
    with pytest.raises(InputError) as err:
        open_pdf(_numbered(tmp_path), spec)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_parse_pages_all_and_blank():
    assert parse_pages(None, 3) == parse_pages(" ", 3) == parse_pages("all", 3) == [0, 1, 2]


def test_render_at_200_dpi_and_capped_edge(tmp_path):
    path = write_pdf(tmp_path / "sizes.pdf", [Page(612, 792), Page(3000, 600)])
    with open_pdf(path) as doc:
        letter, wide = doc.page(0), doc.page(1)
        assert letter.render().size == (1700, 2200)  # 8.5 x 11 in at 200 dpi
        img = wide.render()
        assert max(img.size) == 3500 and img.mode == "RGB"
        assert wide.render_scale() == pytest.approx(3500 / 3000)
    assert render_scale((72, 72)) == pytest.approx(200 / 72)


@pytest.mark.parametrize("rotate", [0, 90, 180, 270])
def test_rotation_size_and_coordinates_match_the_render(tmp_path, rotate):
    """A black square drawn at a known user-space place shows up in the render exactly where
    to_display() says, for every /Rotate."""
    black = bytes(3 * 8 * 8)
    path = write_pdf(tmp_path / "rot.pdf", [Page(400, 600, rotate=rotate, items=[
        Image(50, 400, 100, 60, pixels=black, width=8, height=8)])])
    with open_pdf(path) as doc:
        page = doc[0]
        assert page.rotation == rotate
        w, h = page.size_pt
        assert (w, h) == ((400, 600) if rotate in (0, 180) else (600, 400))
        u0, v0, u1, v1 = page.rect_to_display(50, 400, 150, 460)
        img = page.render()
        s = page.render_scale()
        cx, cy = (u0 + u1) / 2 * s, (v0 + v1) / 2 * s
        assert img.getpixel((int(cx), int(cy))) == (0, 0, 0)
        # just outside the mapped box (by 5 pt) the page is white
        assert img.getpixel((int((u1 + 5) * s), int(cy))) == (255, 255, 255)
        assert img.getpixel((int(cx), int((v0 - 5) * s))) == (255, 255, 255)
        x, y = page.to_user(u0, v0)
        assert page.to_display(x, y) == pytest.approx((u0, v0))


def test_offset_media_box_maps_to_the_render(tmp_path):
    path = write_pdf(tmp_path / "off.pdf", [Page(300, 300, media_origin=(100, 200), items=[
        Image(150, 250, 50, 50, pixels=bytes(3 * 4 * 4), width=4, height=4)])])
    with open_pdf(path) as doc:
        page = doc[0]
        assert page.rect_to_display(150, 250, 200, 300) == pytest.approx((50, 200, 100, 250))
        s = page.render_scale()
        assert page.render().getpixel((int(75 * s), int(225 * s))) == (0, 0, 0)


def test_encrypted_without_password(tmp_path):
    path = tmp_path / "secret.pdf"
    write_pdf(path, [Page(items=text_lines(["Top secret text"]))], user_password="s3cret")
    with pytest.raises(InputError) as err:
        open_pdf(path)
    assert str(err.value) == "secret.pdf: the PDF is encrypted with a password; save an unprotected copy"
    with pytest.raises(InputError, match="password is wrong"):
        open_pdf(path, password="nope")
    # the file really is a working encrypted PDF: the right password opens it
    with open_pdf(path, password="s3cret") as doc:
        assert doc[0].textpage().get_text_range() == "Top secret text"


def test_encrypted_with_an_empty_user_password_opens(tmp_path):
    """Permissions-only encryption (no password to open) is read like any PDF, as MinerU does."""
    path = write_pdf(tmp_path / "perms.pdf", [Page(items=text_lines(["Readable text"]))],
                     user_password="")
    assert b"/Encrypt" in path.read_bytes()
    with open_pdf(path) as doc:
        assert doc[0].textpage().get_text_range() == "Readable text"


def test_truncated_garbage_empty_zero_pages(tmp_path):
    data = build_pdf([Page(items=text_lines(["some text"] * 30)) for _ in range(3)])
    cases = {
        "cut.pdf": (data[: len(data) // 2], "cut.pdf: the PDF is truncated (it ends before its %%EOF marker)"),
        "junk.pdf": (b"\x00\x01garbage" * 200, "junk.pdf: not a PDF (no %PDF header)"),
        "empty.pdf": (b"", "empty.pdf: the file is empty"),
        "none.pdf": (build_pdf([]), "none.pdf: the PDF has no pages"),
        "broken.pdf": (b"%PDF-1.4\n" + b"x" * 500 + b"\n%%EOF\n", "broken.pdf: the PDF is damaged and cannot be opened"),
    }
    for name, (raw, message) in cases.items():
        (tmp_path / name).write_bytes(raw)
        with pytest.raises(InputError) as err:
            open_pdf(tmp_path / name)
        assert str(err.value) == message
    with pytest.raises(InputError, match="no such file"):
        open_pdf(tmp_path / "missing.pdf")


def test_a_damaged_page_fails_alone(tmp_path):
    path = write_pdf(tmp_path / "mixed.pdf", [Page(items=text_lines(["fine"])), Page(broken=True),
                                             Page(items=text_lines(["also fine"]))])
    rendered, failed = [], []
    with open_pdf(path) as doc:
        for page in doc:
            try:
                rendered.append((page.index, page.render().size))
            except PageError as err:
                failed.append(str(err))
    assert rendered == [(0, (1700, 2200)), (2, (1700, 2200))]
    assert len(failed) == 1 and failed[0].startswith("page 2 cannot be loaded")


def test_iteration_releases_each_page(tmp_path):
    with open_pdf(_numbered(tmp_path, 3)) as doc:
        seen = []
        for page in doc:
            page.render()
            page.textpage()
            seen.append(page)
            assert all(p._page is None for p in seen[:-1])  # earlier pages closed
        assert seen[-1]._page is None
        # a released page reopens on use, and keeps the characters it had read
        assert seen[0].textpage().get_text_range() == "This is page number 1."


def test_released_pages_keep_their_characters(tmp_path):
    from mineru_tui.pdf.chars import page_chars

    with open_pdf(_numbered(tmp_path, 2)) as doc:
        pages = []
        for page in doc:
            page_chars(page)
            pages.append(page)
        first = pages[0]
        assert first._page is None and first.chars_cache is not None
        assert "".join(c.text for c in page_chars(first)) == "This is page number 1."
        assert first._page is None  # served from the cache, the page stayed closed
        first.close()
        assert first.chars_cache is None


def test_importing_the_package_does_not_load_pypdfium2():
    """pypdfium2 loads only when a PDF is opened (``parse`` of an Office file never pays)."""
    code = ("import sys, mineru_tui.pdf as p\n"
            "for name in p.__all__: getattr(p, name)\n"  # every module of the package
            "print('pypdfium2' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
