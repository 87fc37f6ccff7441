"""Every reader's pictures go through office.pictures.Pictures: stored once, within the caps."""

from __future__ import annotations

from mineru_tui.convert import convert
from mineru_tui.document import BlockType, Document
from mineru_tui.office import pictures as pictures_module
from mineru_tui.office.pictures import Pictures
from tests.office.test_pptx import png_bytes


def image_paths(doc) -> list[str]:
    return [s.image_path for b in doc.iter_blocks() if b.type == BlockType.IMAGE_BODY
            for line in b.lines for s in line.spans]


def test_the_same_rtf_picture_twice_is_stored_once(tmp_path):
    pict = r"{\pict\pngblip " + png_bytes().hex() + "}"
    path = tmp_path / "logo.rtf"
    path.write_text(r"{\rtf1\ansi " + pict + r"\par text\par " + pict + r"\par}")
    doc = convert(path)
    assert len(image_paths(doc)) == 2 and len(set(image_paths(doc))) == 1
    assert len(doc.images) == 1


def test_an_rtf_picture_over_the_cap_is_left_out_with_a_cut_warning(tmp_path, monkeypatch):
    data = png_bytes()
    # the reader makes its own intake: lower the per-picture cap of every intake to below this PNG
    monkeypatch.setattr(Pictures.__init__, "__defaults__", (pictures_module.MAX_PICTURES_BYTES,
                                                            len(data) - 1))
    path = tmp_path / "big.rtf"
    path.write_text(r"{\rtf1\ansi {\pict\pngblip " + data.hex() + r"}\par text\par}")
    doc = convert(path)
    assert not doc.images and not image_paths(doc)
    assert any(w.startswith("content cut:") and "larger than" in w for w in doc.warnings)


def test_take_data_stores_bytes_once_and_keeps_the_total():
    doc = Document(backend="office")
    intake = Pictures(doc, total=len(png_bytes()) + 10)
    first = intake.take_data(png_bytes(), "png", "a")
    assert first and intake.take_data(png_bytes(), "png", "b") == first
    assert intake.take_data(png_bytes() + b"\0", "png", "c") is None  # past the total
    assert len(doc.images) == 1 and any("add up to more than" in w for w in doc.warnings)
