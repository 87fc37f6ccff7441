"""The watch service end to end: real folders, real watchdog, real reader processes."""

from __future__ import annotations

import json
import os
import shutil
import time

import pytest
from tests.docx_fixtures import build_docx, p
from tests.watch_helpers import (
    FAST,
    ROOT,
    SAMPLE,
    SCRIPTED,
    Recorder,
    drop,
    fake_pdf,
    no_model,
    page_image,
    scripted_env,
)

from mineru_tui import events as je
from mineru_tui.watch import events as ev
from mineru_tui.watch.service import WatchConfig, WatchService, default_output_dir


@pytest.fixture
def watched(tmp_path):
    root = tmp_path / "Scans"
    root.mkdir()
    return root


def start(root, rec, **kw) -> WatchService:
    service = WatchService(WatchConfig(root, **{**FAST, **kw}), rec)
    service.start()
    return service


def test_default_output_folder_is_beside_the_watched_one(tmp_path):
    assert default_output_dir(tmp_path / "Scans") == tmp_path / "Scans-mineru"


def test_dropped_files_are_read_into_the_parse_layout(watched, tmp_path):
    from mineru_tui.convert import convert
    from mineru_tui.output import write_outputs

    rec = Recorder()
    service = start(watched, rec, engine=no_model(tmp_path))
    try:
        drop(SAMPLE, watched / "report.docx")
        (watched / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip")
        (watched / "notes.txt").write_text("hello")
        (watched / "~$report.docx").write_bytes(b"lock")
        (watched / ".hidden.docx").write_bytes(SAMPLE.read_bytes())
        page_image(watched / "scan.pdf")
        (watched / "damaged.pdf").write_bytes(b"%PDF-1.7\n garbage")
        done = rec.wait(ev.FileFinished, path=str(watched / "report.docx"))
        failed = rec.wait(ev.FileFinished, path=str(watched / "broken.docx"))
        skipped = rec.wait(ev.FileFinished, path=str(watched / "notes.txt"))
        model = rec.wait(ev.FileFinished, path=str(watched / "scan.pdf"))
        damaged = rec.wait(ev.FileFinished, path=str(watched / "damaged.pdf"))
        time.sleep(0.5)
    finally:
        service.stop()
    out = tmp_path / "Scans-mineru"
    assert done.status == "done" and done.output == str(out / "report") and done.pages == 1
    assert failed.status == "failed" and "corrupt" in failed.reason
    assert skipped.status == "skipped" and "not a document" in skipped.reason
    assert model.status == "needs-model" and "no-model-here" in model.reason
    assert "`mineru-tui model fetch`" in model.hint  # how to get one, apart from the reason
    assert damaged.status == "failed"  # a broken PDF is not a missing model
    seen = {e.path for e in rec.of(ev.FileFinished)} | {e.path for e in rec.of(ev.FileQueued)}
    assert str(watched / "~$report.docx") not in seen and str(watched / ".hidden.docx") not in seen
    # exactly what parse -o writes for the same file
    ref = write_outputs(convert(SAMPLE), tmp_path / "ref", "report").path
    for name in ("report.md", "report_content_list.json", "report_middle.json"):
        assert (out / "report" / name).read_bytes() == (ref / name).read_bytes()
    assert rec.of(je.FileStarted, path=str(watched / "report.docx"))  # the reader's own events
    manifest = json.loads((out / ".mineru-tui-watch.json").read_text())
    statuses = sorted(e["status"] for e in manifest["files"].values())
    assert statuses == ["done", "failed", "failed", "needs-model"]


def test_restart_resumes_from_the_manifest(watched, tmp_path):
    drop(SAMPLE, watched / "a.docx")
    (watched / "bad.docx").write_bytes(b"PK\x03\x04 broken")
    rec = Recorder()
    service = start(watched, rec)
    try:
        rec.wait(ev.FileFinished, path=str(watched / "a.docx"), status="done")
        rec.wait(ev.FileFinished, path=str(watched / "bad.docx"), status="failed")
    finally:
        service.stop()
    # while stopped: a copy of a.docx under a new name, a renamed bad.docx, a changed file
    shutil.copyfile(watched / "a.docx", watched / "copy.docx")
    os.replace(watched / "bad.docx", watched / "bad-renamed.docx")
    (watched / "c.docx").write_bytes(build_docx(p("first")))

    rec2 = Recorder()
    service = start(watched, rec2)
    try:
        a = rec2.wait(ev.FileFinished, path=str(watched / "a.docx"))
        copy = rec2.wait(ev.FileFinished, path=str(watched / "copy.docx"))
        bad = rec2.wait(ev.FileFinished, path=str(watched / "bad-renamed.docx"))
        rec2.wait(ev.FileFinished, path=str(watched / "c.docx"), status="done")
        # a changed file is read again, into the same output folder
        time.sleep(0.3)
        (watched / "c.docx").write_bytes(build_docx(p("second version")))
        queued = rec2.wait(ev.FileQueued, path=str(watched / "c.docx"), count=2)
        rec2.wait(ev.FileFinished, path=str(watched / "c.docx"), status="done", count=2)
    finally:
        service.stop()
    assert a.status == "done" and a.note == "already read"
    assert copy.status == "done" and copy.note == "same content as a.docx: already read"
    assert bad.status == "failed" and "failed before" in bad.note
    reread = {e.path for e in rec2.of(ev.FileQueued)}
    assert str(watched / "a.docx") not in reread and str(watched / "copy.docx") not in reread
    assert str(watched / "bad-renamed.docx") not in reread
    assert queued.why == "changed"
    md = (tmp_path / "Scans-mineru" / "c" / "c.md").read_text()
    assert "second version" in md


def test_r_reads_a_failed_file_again(watched):
    (watched / "bad.docx").write_bytes(b"PK\x03\x04 broken")
    rec = Recorder()
    service = start(watched, rec)
    try:
        rec.wait(ev.FileFinished, path=str(watched / "bad.docx"), status="failed")
        service.requeue(watched / "bad.docx")  # still broken: detect fails again, reported
        rec.wait(ev.FileFinished, path=str(watched / "bad.docx"), status="failed", count=2)
        drop(SAMPLE, watched / "ok.docx")
        rec.wait(ev.FileFinished, path=str(watched / "ok.docx"), status="done")
        service.requeue(watched / "ok.docx")  # done, but r forces a new read
        q = rec.wait(ev.FileQueued, path=str(watched / "ok.docx"), count=2)
        rec.wait(ev.FileFinished, path=str(watched / "ok.docx"), status="done", count=2)
    finally:
        service.stop()
    assert q.why == "retry"


def test_office_files_never_wait_behind_a_page(watched, monkeypatch):
    scripted_env(monkeypatch, pages=3, token_delay=0.05)
    rec = Recorder()
    service = start(watched, rec, converter=SCRIPTED)
    try:
        fake_pdf(watched / "long.pdf")
        rec.wait(je.BlockTokens, path=str(watched / "long.pdf"))
        drop(SAMPLE, watched / "quick.docx")
        rec.wait(ev.FileFinished, path=str(watched / "quick.docx"), status="done")
        assert not rec.of(ev.FileFinished, path=str(watched / "long.pdf")), \
            "the page file finished first: the Office file waited"
        pdf = rec.wait(ev.FileFinished, path=str(watched / "long.pdf"), status="done")
    finally:
        service.stop()
    assert pdf.pages == 3
    layout = rec.of(je.LayoutDone, path=str(watched / "long.pdf"))
    assert [b.source for b in layout[0].blocks] == ["model", "model", "text_layer"]


def test_pause_holds_the_queue_and_cancel_stops_between_tokens(watched, monkeypatch, tmp_path):
    scripted_env(monkeypatch, pages=50, token_delay=0.02)
    rec = Recorder()
    service = start(watched, rec, converter=SCRIPTED)
    try:
        service.set_paused(True)
        fake_pdf(watched / "a.pdf")
        rec.wait(ev.FileQueued, path=str(watched / "a.pdf"))
        time.sleep(0.8)
        assert not rec.of(je.FileStarted), "read while paused"
        service.set_paused(False)
        rec.wait(je.BlockTokens, path=str(watched / "a.pdf"))
        t0 = time.monotonic()
        assert service.cancel_current()
        end = rec.wait(ev.FileFinished, path=str(watched / "a.pdf"))
        stopped_in = time.monotonic() - t0
    finally:
        service.stop()
    assert end.status == "cancelled" and stopped_in < 2.0
    assert not (tmp_path / "Scans-mineru" / "a").exists()  # nothing half-written
    assert rec.of(ev.PauseChanged, paused=True) and rec.of(ev.PauseChanged, paused=False)


def test_a_reader_process_that_dies_fails_its_file_and_is_restarted(watched, monkeypatch):
    scripted_env(monkeypatch, pages=50, token_delay=0.02)
    rec = Recorder()
    service = start(watched, rec, converter=SCRIPTED)
    try:
        fake_pdf(watched / "a.pdf")
        rec.wait(je.BlockTokens, path=str(watched / "a.pdf"))
        service.lanes["pages"]._proc.kill()
        end = rec.wait(ev.FileFinished, path=str(watched / "a.pdf"))
        monkeypatch.setenv("MINERU_TEST_PAGES", "1")
        fake_pdf(watched / "b.pdf")
        nxt = rec.wait(ev.FileFinished, path=str(watched / "b.pdf"))
    finally:
        service.stop()
    assert end.status == "failed" and "reader process stopped" in end.reason
    assert nxt.status == "done"


def test_a_mineru_tui_folder_in_the_working_directory_is_not_the_reader(watched, tmp_path,
                                                                         monkeypatch):
    """``python -m`` would import a ``mineru_tui/`` in the working directory first (a clone
    beside an installed copy); the reader processes come from this installation."""
    fake = tmp_path / "cwd" / "mineru_tui"
    (fake / "watch").mkdir(parents=True)
    for init in (fake / "__init__.py", fake / "watch" / "__init__.py"):
        init.write_text("")
    (fake / "watch" / "worker.py").write_text("raise SystemExit(3)\n")
    monkeypatch.chdir(tmp_path / "cwd")
    rec = Recorder()
    service = start(watched, rec)
    try:
        drop(SAMPLE, watched / "report.docx")
        done = rec.wait(ev.FileFinished, path=str(watched / "report.docx"))
    finally:
        service.stop()
    assert done.status == "done", done.reason


def test_a_page_is_read_with_the_real_engine_loaded_once(watched, tmp_path):
    """The tiny random checkpoint through the numpy engine: events, outputs, one load."""
    rec = Recorder()
    service = start(watched, rec, engine={"engine": "numpy", "model": str(ROOT / "tests" / "fixtures" / "tiny")},
                    reading={"extra": {"max_new_tokens": 4}})
    try:
        page_image(watched / "one.png")
        first = rec.wait(ev.FileFinished, path=str(watched / "one.png"), timeout=120)
        page_image(watched / "two.png")
        second = rec.wait(ev.FileFinished, path=str(watched / "two.png"), timeout=120)
    finally:
        service.stop()
    assert first.status == "done" and second.status == "done", (first, second)
    ready = rec.of(ev.EngineReady)
    assert len(ready) == 1 and ready[0].name == "numpy"  # loaded once, kept for the next file
    assert rec.of(je.PageStarted, path=str(watched / "one.png"))
    assert (tmp_path / "Scans-mineru" / "one" / "one.md").is_file()


def test_a_reader_that_ignores_cancel_is_killed_and_the_file_cancelled(watched, monkeypatch):
    # deaf to cancel, one token every 10 min: only the kill can end this file (before, the
    # double checked the flag first and a quick cancel ended it the polite way: a race)
    scripted_env(monkeypatch, pages=1, token_delay=600, deaf=1)
    rec = Recorder()
    service = start(watched, rec, converter=SCRIPTED)
    service.lanes["pages"].kill_after = 1.0
    try:
        fake_pdf(watched / "stuck.pdf")
        rec.wait(je.BlockStarted, path=str(watched / "stuck.pdf"))
        assert service.cancel_current()
        end = rec.wait(ev.FileFinished, path=str(watched / "stuck.pdf"), timeout=120)
        monkeypatch.setenv("MINERU_TEST_TOKEN_DELAY", "0")
        monkeypatch.setenv("MINERU_TEST_DEAF", "0")
        drop(SAMPLE, watched / "after.docx")
        rec.wait(ev.FileFinished, path=str(watched / "after.docx"), status="done")
    finally:
        service.stop()
    assert end.status == "cancelled" and "restarted" in end.reason  # killed: the reader was restarted


def test_a_folder_moved_in_is_read_and_polling_sees_new_files(watched, tmp_path):
    outside = tmp_path / "elsewhere"
    (outside / "deep").mkdir(parents=True)
    drop(SAMPLE, outside / "deep" / "moved.docx")
    rec = Recorder()
    service = start(watched, rec, poll=True)
    try:
        assert service.mode == "polling"
        os.replace(outside, watched / "batch")  # a folder arrives whole: no events for its files
        moved = rec.wait(ev.FileFinished, path=str(watched / "batch" / "deep" / "moved.docx"))
        (watched / "new.docx").write_bytes(build_docx(p("polled")))
        new = rec.wait(ev.FileFinished, path=str(watched / "new.docx"))
    finally:
        service.stop()
    assert moved.status == "done" and new.status == "done"


def test_output_folder_inside_the_tree_is_ignored_and_one_around_it_refused(watched, tmp_path):
    from mineru_tui.watch.service import WatchError

    with pytest.raises(WatchError, match="contains the watched folder"):
        WatchService(WatchConfig(watched, output_dir=tmp_path), Recorder()).start()
    rec = Recorder()
    service = start(watched, rec, output_dir=watched / "results")
    try:
        drop(SAMPLE, watched / "a.docx")
        done = rec.wait(ev.FileFinished, path=str(watched / "a.docx"))
        time.sleep(1.0)  # time for the watcher to see the results folder being written
    finally:
        service.stop()
    assert done.output == str(watched / "results" / "a")
    assert {e.path for e in rec.of(ev.FileQueued)} == {str(watched / "a.docx")}
    assert not [e for e in rec.of(ev.FileFinished) if "results" in e.path]


def test_an_interrupted_file_resumes_rather_than_changed(watched, tmp_path):
    """Quit while a PDF was read: restarted, its bytes match its journal, so it resumes."""
    from mineru_tui.output import journal_path
    from mineru_tui.watch.manifest import file_hash

    pdf = fake_pdf(watched / "big.pdf")
    other = fake_pdf(watched / "other.pdf")
    out = tmp_path / "Scans-mineru"
    out.mkdir()
    (out / ".mineru-tui-watch.json").write_text(json.dumps(
        {"version": 1, "files": {}, "stems": {"big.pdf": "big", "other.pdf": "other"}}))
    journal_path(out, "big").write_text(json.dumps({"sha256": file_hash(pdf)}) + "\n")
    journal_path(out, "other").write_text(json.dumps({"sha256": "0" * 64}) + "\n")
    rec = Recorder()
    service = start(watched, rec, engine=no_model(tmp_path))
    try:
        big = rec.wait(ev.FileQueued, path=str(pdf))
        changed = rec.wait(ev.FileQueued, path=str(other))
    finally:
        service.stop()
    assert big.why == "resumes" and changed.why == "changed"
