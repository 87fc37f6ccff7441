"""The watcher against hostile folders (issue 19, points 4, 7, 10 and 14): links out of the
tree, FIFOs and devices, unreadable files, manifests of the wrong shape. Settler tests run
its real thread with tiny quiet/interval times; what they wait for happens whenever the
thread gets to it (a guard only turns a hang into a failure)."""

from __future__ import annotations

import errno
import json
import os
import threading
import time
from pathlib import Path

import pytest
from tests.watch_helpers import FAST, SAMPLE, Recorder, drop

from mineru_tui.watch import events as ev
from mineru_tui.watch import settle
from mineru_tui.watch.ignore import is_ignored
from mineru_tui.watch.manifest import Manifest, file_hash
from mineru_tui.watch.service import WatchConfig, WatchService

GUARD = 30.0


def test_a_link_is_judged_by_its_target(tmp_path):
    root, outside = tmp_path / "in", tmp_path / "private.docx"
    root.mkdir()
    outside.write_bytes(b"secret")
    (root / "inside.docx").write_bytes(b"doc")
    (root / "out.docx").symlink_to(outside)
    (root / "in.docx").symlink_to(root / "inside.docx")
    (root / "loop.docx").symlink_to(root / "loop.docx")  # stays in the tree: stat fails on it
    (root / "sub").symlink_to(tmp_path)  # a folder link out of the tree
    assert is_ignored(root / "out.docx", root)
    assert is_ignored(root / "sub" / "private.docx", root)
    assert not is_ignored(root / "in.docx", root)
    assert not is_ignored(root / "inside.docx", root)
    assert not is_ignored(root / "new" / "not-yet.docx", root)  # judged by name and place


def test_the_service_never_reads_a_file_through_a_link_out_of_the_tree(tmp_path):
    root = tmp_path / "in"
    root.mkdir()
    (tmp_path / "private.docx").write_bytes(SAMPLE.read_bytes())
    (root / "x.docx").symlink_to(tmp_path / "private.docx")
    rec = Recorder()
    service = WatchService(WatchConfig(root, **FAST), rec)
    service.start()
    try:
        drop(SAMPLE, root / "after.docx")  # read after the link was looked at
        rec.wait(ev.FileFinished, path=str(root / "after.docx"), timeout=60)
    finally:
        service.stop()
    assert not [e for e in rec.events if getattr(e, "path", None) == str(root / "x.docx")]
    assert not (tmp_path / "in-mineru" / "x").exists()


class Collect:
    def __init__(self):
        self.ready, self.refused, self.cond = [], [], threading.Condition()

    def on_ready(self, path):
        with self.cond:
            self.ready.append(path)
            self.cond.notify_all()

    def on_refused(self, path, reason, unreadable):
        with self.cond:
            self.refused.append((path, reason, unreadable))
            self.cond.notify_all()

    def wait(self, test):
        deadline = time.monotonic() + GUARD
        with self.cond:
            while not test():
                assert time.monotonic() < deadline, "nothing happened"
                self.cond.wait(0.01)


@pytest.fixture
def settler():
    got = Collect()
    s = settle.Settler(got.on_ready, quiet=0.01, interval=0.01, on_refused=got.on_refused)
    s.got = got
    s.start()
    yield s
    s.stop()


def test_a_fifo_is_skipped_by_stat_and_never_blocks_the_settler(settler, tmp_path):
    fifo = tmp_path / "x.pdf"
    os.mkfifo(fifo)
    settler.touch(fifo)
    settler.got.wait(lambda: settler.got.refused)
    assert settler.got.refused == [(fifo, "not a regular file (a FIFO, socket or device)", False)]
    good = tmp_path / "good.docx"
    good.write_bytes(b"x")
    settler.touch(good)
    settler.got.wait(lambda: settler.got.ready)
    assert settler.got.ready == [good]
    t0 = threading.Thread(target=settler.stop)  # stop takes the lock: it is free
    t0.start()
    t0.join(GUARD)
    assert not t0.is_alive()


def test_a_link_to_dev_zero_is_never_hashed_or_opened(settler, tmp_path):
    z = tmp_path / "z.pdf"
    z.symlink_to("/dev/zero")
    with pytest.raises(OSError, match="not a regular file"):
        file_hash(z)
    settler.touch(z)
    settler.got.wait(lambda: settler.got.refused)
    assert settler.got.refused[0][0] == z and not settler.got.ready


def test_file_hash_reads_no_more_than_the_size_it_had(tmp_path):
    f = tmp_path / "a.pdf"
    f.write_bytes(b"abc")
    import hashlib
    assert file_hash(f) == hashlib.sha256(b"abc").hexdigest()
    fifo = tmp_path / "f.pdf"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        file_hash(fifo)  # opened without blocking, refused by fstat


def test_an_unreadable_file_is_reported_once(settler, tmp_path, monkeypatch):
    f = tmp_path / "locked.docx"
    f.write_bytes(b"data")
    real = settle._opens
    monkeypatch.setattr(settle, "_opens", lambda path: errno.EACCES if path == f else real(path))
    for _ in range(3):  # events and rescans keep coming: one report
        settler.touch(f)
        settler.got.wait(lambda: settler.waiting() == 0)
    assert settler.got.refused == [(f, "cannot read: permission denied", True)]
    f.write_bytes(b"changed")  # its state changed: said again
    os.utime(f, ns=(1, 1))
    settler.touch(f)
    settler.got.wait(lambda: len(settler.got.refused) == 2)
    monkeypatch.setattr(settle, "_opens", real)  # readable now: read
    settler.touch(f)
    settler.got.wait(lambda: settler.got.ready == [f])


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads mode 000 files")
def test_a_mode_000_file_is_reported_once(settler, tmp_path):
    f = tmp_path / "locked.docx"
    f.write_bytes(b"data")
    f.chmod(0)
    settler.touch(f)
    settler.got.wait(lambda: settler.got.refused)
    assert settler.got.refused == [(f, "cannot read: permission denied", True)]


@pytest.mark.parametrize("content", [
    json.dumps({"version": 1, "files": [1, 2, 3]}),
    json.dumps({"version": 1, "files": {}, "stems": ["a"]}),
    "[" * 100_000 + "]" * 100_000,
    '{"version": 1, "files": ' + '{"a": ' * 50_000 + "1" + "}" * 50_001,
    json.dumps([1]),
])
def test_a_manifest_of_the_wrong_shape_starts_a_new_one(tmp_path, content):
    (tmp_path / ".mineru-tui-watch.json").write_text(content)
    m = Manifest(tmp_path)
    assert m.load_error and "starting a new one" in m.load_error
    assert m.files == {} and m.stems == {}


def test_manifest_entries_of_the_wrong_shape_are_forgotten(tmp_path):
    good = {"path": "a.docx", "status": "done", "stem": "a", "pages": 1}
    (tmp_path / ".mineru-tui-watch.json").write_text(json.dumps({"version": 1, "files": {
        "s1": good, "s2": {**good, "pages": "many"}, "s3": {**good, "status": "pwned"},
        "s4": {**good, "stem": "../../etc"}, "s5": "x", "s6": {**good, "extra": 1}},
        "stems": {"a.docx": "a", "b.docx": "../../b", "c.docx": 3}}))
    m = Manifest(tmp_path)
    assert m.load_error is None and list(m.files) == ["s1"] and m.stems == {"a.docx": "a"}


def test_the_watcher_starts_with_a_manifest_of_the_wrong_shape(tmp_path):
    root = tmp_path / "in"
    root.mkdir()
    out = tmp_path / "in-mineru"
    out.mkdir()
    (out / ".mineru-tui-watch.json").write_text(json.dumps({"version": 1, "files": [1]}))
    rec = Recorder()
    service = WatchService(WatchConfig(root, **FAST), rec)
    service.start()
    try:
        drop(SAMPLE, root / "a.docx")
        done = rec.wait(ev.FileFinished, path=str(root / "a.docx"), timeout=60)
    finally:
        service.stop()
    assert done.status == "done"
    assert any("starting a new one" in getattr(e, "text", "") for e in rec.events), rec.events
    assert Path(out / ".mineru-tui-watch.json").read_text().startswith("{")
