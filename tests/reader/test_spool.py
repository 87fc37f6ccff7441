"""A file's pictures wait on disk while its pages are read (reader/spool.py)."""

from __future__ import annotations

import gc

from mineru_tui.document import Document
from mineru_tui.reader.spool import PictureSpool


def test_pictures_are_on_disk_and_come_back_in_order(tmp_path):
    spool = PictureSpool()
    doc = Document(backend="vlm", images=spool)
    jpeg = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 40
    names = [doc.add_image(jpeg + bytes([k]), "jpg", stem="table" if k % 2 else "image") for k in range(5)]
    assert names == ["image_001.jpg", "table_001.jpg", "image_002.jpg", "table_002.jpg", "image_003.jpg"]
    files = sorted(spool._folder.iterdir())
    assert len(files) == 5 and sum(f.stat().st_size for f in files) == 5 * len(jpeg) + 5
    assert list(doc.images) == names and len(doc.images) == 5 and "table_002.jpg" in doc.images
    assert [data for _, data in doc.images.items()] == [jpeg + bytes([k]) for k in range(5)]
    assert doc.images["table_001.jpg"] == jpeg + b"\x01"
    spool["image_001.jpg"] = b"again"  # a name set twice keeps its place
    assert list(spool) == names and spool["image_001.jpg"] == b"again"
    folder = spool._folder
    spool.close()
    assert not folder.exists()


def test_the_folder_goes_with_the_spool():
    spool = PictureSpool()
    spool["a.jpg"] = b"x"
    folder = spool._folder
    del spool
    gc.collect()
    assert not folder.exists()
