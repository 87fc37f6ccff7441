"""A file's pictures wait on disk while its pages are read (reader/spool.py)."""

from __future__ import annotations

import gc
from pathlib import Path

from mineru_tui.document import Document
from mineru_tui.reader.spool import PictureSpool, sweep_stale


def test_pictures_are_on_disk_and_come_back_in_order(tmp_path):
    spool = PictureSpool()
    doc = Document(backend="vlm", images=spool)
    jpeg = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 40
    names = [doc.add_image(jpeg + bytes([k]), "jpg", stem="table" if k % 2 else "image") for k in range(5)]
    assert names == ["image_001.jpg", "table_001.jpg", "image_002.jpg", "table_002.jpg", "image_003.jpg"]
    files = sorted(f for f in spool.folder.iterdir() if f.name != ".owner")  # not the lock
    assert len(files) == 5 and sum(f.stat().st_size for f in files) == 5 * len(jpeg) + 5
    assert list(doc.images) == names and len(doc.images) == 5 and "table_002.jpg" in doc.images
    assert [data for _, data in doc.images.items()] == [jpeg + bytes([k]) for k in range(5)]
    assert doc.images["table_001.jpg"] == jpeg + b"\x01"
    spool["image_001.jpg"] = b"again"  # a name set twice keeps its place
    assert list(spool) == names and spool["image_001.jpg"] == b"again"
    folder = spool.folder
    spool.close()
    assert not folder.exists()


def test_the_folder_goes_with_the_spool():
    spool = PictureSpool()
    spool["a.jpg"] = b"x"
    folder = spool.folder
    del spool
    gc.collect()
    assert not folder.exists()


CHILD = """
import sys
from mineru_tui.reader.spool import PictureSpool
spool = PictureSpool(sys.argv[1])
spool["a.jpg"] = b"picture"
print(spool.folder, flush=True)
sys.stdin.read()  # until the parent kills it
"""


def test_a_killed_process_leaves_no_folder_behind(tmp_path):
    """A reader killed with SIGKILL cannot remove its spool; the next spool made in the same
    place removes it (its lock is free), and leaves a living process's spool alone."""
    import signal
    import subprocess
    import sys

    children = [subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path)], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        killed, alive = (Path(c.stdout.readline().strip()) for c in children)
        assert killed.is_dir() and alive.is_dir()
        children[0].send_signal(signal.SIGKILL)
        assert children[0].wait() == -signal.SIGKILL
        assert killed.is_dir()  # nothing removed it
        spool = PictureSpool(tmp_path)
        assert not killed.exists()  # swept: its owner is gone
        assert (alive / "0").read_bytes() == b"picture"  # its owner lives: kept
        spool.close()
    finally:
        for c in children:
            c.kill()
            c.wait()
            c.stdin.close()
            c.stdout.close()
    # the second child was killed just now: the next sweep removes its folder too
    assert sweep_stale(tmp_path) == 1 and not any(tmp_path.iterdir())
