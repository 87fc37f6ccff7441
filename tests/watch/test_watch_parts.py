"""The watch service's parts, without processes: ignore rules, settling, manifest, observer."""

from __future__ import annotations

import errno
import json
import time
from pathlib import Path

import pytest

from mineru_tui.watch.ignore import ignored_name, is_ignored
from mineru_tui.watch.manifest import DONE, FAILED, Entry, Manifest, file_hash
from mineru_tui.watch.observer import network_fs_type, start_observer
from mineru_tui.watch.settle import Settler


@pytest.mark.parametrize("name", ["~$report.docx", ".~lock.report.docx#", "scan.pdf.part",
                                  "x.crdownload", "a.tmp", ".hidden.docx", "Thumbs.db",
                                  "notes.docx~", ".DS_Store", "photo.jpg.icloud"])
def test_temporary_hidden_and_lock_names_are_ignored(name):
    assert ignored_name(name)


@pytest.mark.parametrize("name", ["report.docx", "scan 1.pdf", "page.PNG", "deck.pptx"])
def test_documents_are_not_ignored(name):
    assert not ignored_name(name)


def test_hidden_folders_and_the_output_folder_are_ignored(tmp_path):
    root, out = tmp_path / "in", tmp_path / "in" / "results"
    assert is_ignored(root / ".git" / "a.docx", root, out)
    assert is_ignored(out / "a" / "a.md", root, out)
    assert is_ignored(out, root, out)
    assert is_ignored(tmp_path / "elsewhere.docx", root, out)
    assert not is_ignored(root / "sub" / "a.docx", root, out)


def test_a_growing_file_is_ready_only_once_it_is_stable(tmp_path):
    ready: list[Path] = []
    settler = Settler(ready.append, quiet=0.1, interval=0.15)
    settler.start()
    try:
        path = tmp_path / "big.pdf"
        with open(path, "wb") as f:
            settler.touch(path)  # one event, then the file keeps growing for ~0.6 s
            for _ in range(6):
                f.write(b"x" * 1000)
                f.flush()
                time.sleep(0.1)
                assert not ready, "handed over while still growing"
        deadline = time.monotonic() + 5
        while not ready and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ready == [path] and path.stat().st_size == 6000
    finally:
        settler.stop()


def test_a_file_that_vanishes_is_forgotten(tmp_path):
    ready: list[Path] = []
    settler = Settler(ready.append, quiet=0.05, interval=0.05)
    settler.start()
    try:
        path = tmp_path / "gone.docx"
        path.write_bytes(b"x")
        settler.touch(path)
        path.unlink()
        time.sleep(0.4)
        assert ready == [] and settler.waiting() == 0
    finally:
        settler.stop()


def test_manifest_keeps_stems_unique_and_survives_a_restart(tmp_path):
    m = Manifest(tmp_path)
    assert m.stem_for("a/x.docx", "x") == "x"
    assert m.stem_for("b/X.pdf", "X") == "X_2"  # case-insensitive, like parse -o
    assert m.stem_for("a/x.docx", "x") == "x"  # kept for good
    m.record("h1", Entry("a/x.docx", DONE, "x", "docx", 1, 0.1))
    m.record("h2", Entry("b/X.pdf", FAILED, reason="corrupt"))
    again = Manifest(tmp_path)
    assert again.lookup("h1").status == DONE and again.lookup("h2").reason == "corrupt"
    assert again.stem_for("b/X.pdf", "X") == "X_2"
    again.record("h3", Entry("a/x.docx", DONE, "x", "docx", 2, 0.1))  # x.docx changed
    assert again.lookup("h1") is None  # that output folder holds the new content now


def test_an_unreadable_manifest_is_reported_and_replaced(tmp_path):
    (tmp_path / ".mineru-tui-watch.json").write_text("{not json", encoding="utf-8")
    m = Manifest(tmp_path)
    assert m.load_error and "starting a new one" in m.load_error
    m.stem_for("a.docx", "a")
    assert json.loads((tmp_path / ".mineru-tui-watch.json").read_text())["stems"] == {"a.docx": "a"}


def test_file_hash_is_sha256_of_the_bytes(tmp_path):
    import hashlib
    p = tmp_path / "f"
    p.write_bytes(b"abc" * 1000)
    assert file_hash(p) == hashlib.sha256(b"abc" * 1000).hexdigest()


def test_inotify_limit_falls_back_to_polling_with_a_notice(tmp_path):
    class Exhausted:
        def schedule(self, *a, **k):
            raise OSError(errno.ENOSPC, "inotify watch limit reached")

        def stop(self):
            pass

    notices: list[str] = []
    seen: list[Path] = []
    obs, mode = start_observer(tmp_path, seen.append, lambda p: None, notice=notices.append,
                               native_factory=Exhausted)
    try:
        assert mode == "polling"
        assert notices and "max_user_watches" in notices[0]
        (tmp_path / "a.docx").write_bytes(b"x")
        deadline = time.monotonic() + 8
        while not seen and time.monotonic() < deadline:
            time.sleep(0.1)
        assert tmp_path / "a.docx" in seen  # the polling observer does see the file
    finally:
        obs.stop()
        obs.join()


def test_native_observer_reports_files_and_folders(tmp_path):
    files: list[Path] = []
    dirs: list[Path] = []
    obs, mode = start_observer(tmp_path, files.append, dirs.append)
    try:
        assert mode == "native"
        (tmp_path / "sub").mkdir()
        (tmp_path / "sub" / "a.docx").write_bytes(b"x")
        deadline = time.monotonic() + 5
        while (tmp_path / "sub" / "a.docx" not in files) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert tmp_path / "sub" / "a.docx" in files and tmp_path / "sub" in dirs
    finally:
        obs.stop()
        obs.join()


def test_network_file_systems_are_recognised(tmp_path):
    mounts = tmp_path / "mounts"
    mounts.write_text("/dev/sda1 / ext4 rw 0 0\n"
                      "server:/export /mnt/scans nfs4 rw 0 0\n"
                      "//nas/share /mnt/nas\\040box cifs rw 0 0\n")
    assert network_fs_type(Path("/mnt/scans/in"), mounts) == "nfs4"
    assert network_fs_type(Path("/mnt/nas box/x"), mounts) == "cifs"
    assert network_fs_type(Path("/home/me/Scans"), mounts) is None
    assert network_fs_type(Path("/mnt/scansX"), mounts) is None


def test_plain_leaves_the_engines_own_words_to_the_apps_log():
    """Without a model, --plain prints the one 'model needed' line (what to do), not also
    the engine's 330-character download error: that is the Log tab's detail."""
    from mineru_tui.watch import events as wev
    from mineru_tui.watch.plain import describe

    assert describe(wev.Notice("scan.pdf: cannot download model … (Got: ConnectError)",
                               "detail")) is None
    assert describe(wev.Notice("polling: the native observer could not start")) \
        .startswith("note: ")
