"""``mineru-tui watch --plain`` as a real process: lines on stderr, clean stop on signals."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from tests.docx_fixtures import build_docx, p
from tests.watch_helpers import ROOT, SAMPLE, drop


def spawn(*args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "mineru_tui", "watch", *args], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class Lines:
    """Reads a stream in a thread; ``wait_for`` returns once a line contains some text."""

    def __init__(self, stream) -> None:
        self.lines: list[str] = []
        self._cond = threading.Condition()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            with self._cond:
                self.lines.append(line.rstrip("\n"))
                self._cond.notify_all()

    def wait_for(self, text: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for line in self.lines:
                    if text in line:
                        return line
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no line with {text!r}: {self.lines}")
                self._cond.wait(left)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_plain_prints_a_line_per_event_and_stops_cleanly(tmp_path, sig):
    root = tmp_path / "in"
    root.mkdir()
    drop(SAMPLE, root / "already.docx")
    proc = spawn(str(root), "--plain")
    err = Lines(proc.stderr)
    try:
        err.wait_for("watching ")
        done_first = err.wait_for("done: already.docx")
        (root / "new.docx").write_bytes(build_docx(p("a new document")))
        (root / "broken.docx").write_bytes(b"PK\x03\x04 broken")
        err.wait_for("done: new.docx")
        err.wait_for("failed: broken.docx: corrupt")
        proc.send_signal(sig)
        code = proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    out = proc.stdout.read()
    err.wait_for("stopped")
    assert code == 0 and out == ""
    assert f"-> {tmp_path / 'in-mineru' / 'already'}{os.sep}" in done_first
    assert (tmp_path / "in-mineru" / "new" / "new.md").is_file()
    assert not any("Traceback" in line for line in err.lines)


def test_server_url_reaches_the_page_reader(tmp_path):
    # nobody listens on the port: the PNG waits for a model, naming the server it tried
    from tests.server_helpers import free_port
    from tests.watch_helpers import page_image

    root = tmp_path / "in"
    root.mkdir()
    page_image(root / "scan.png")
    url = f"http://127.0.0.1:{free_port()}"
    proc = spawn(str(root), "--plain", "--server-url", url, "--concurrency", "2")
    err = Lines(proc.stderr)
    try:
        line = err.wait_for("no server answers", timeout=60)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "scan.png" in line and url in line
    assert "check that the server answers" in line and "hf download" not in line


def test_plain_on_a_missing_folder_is_one_error_line(tmp_path):
    proc = spawn(str(tmp_path / "nope"), "--plain")
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1 and out == ""
    assert err == f"error: {tmp_path / 'nope'}: not a folder\n"


_PROBE = """
import os, signal, sys, threading
sys.argv = ["mineru-tui", "watch", sys.argv[1], "--plain"]
threading.Timer(1.5, os.kill, (os.getpid(), signal.SIGTERM)).start()
from mineru_tui.cli import main
try:
    main()
except SystemExit as e:
    code = e.code
print("CODE", code, "TEXTUAL", any(m.split(".")[0] in ("textual", "rich") for m in sys.modules),
      file=sys.stderr)
"""


def test_plain_never_loads_textual(tmp_path):
    r = subprocess.run([sys.executable, "-c", _PROBE, str(tmp_path)], cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True,
                       text=True, timeout=60)
    assert "CODE 0 TEXTUAL False" in r.stderr, r.stderr


def test_the_app_refuses_to_start_without_a_terminal(tmp_path):
    proc = spawn(str(tmp_path))
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 2 and "use --plain" in err


def test_plain_reads_web_pages_books_and_tables(tmp_path):
    """The watcher takes the web formats as documents and reports a broken one."""
    corpus = ROOT / "tests" / "corpus" / "web"
    root = tmp_path / "in"
    root.mkdir()
    for name in ("docling__example_01.html", "pandoc__img.epub", "docling__csv-tab.tsv"):
        drop(corpus / name, root / name)
    (root / "broken.epub").write_bytes(b"PK\x03\x04 broken")
    proc = spawn(str(root), "--plain")
    err = Lines(proc.stderr)
    try:
        for name in ("docling__example_01.html", "pandoc__img.epub", "docling__csv-tab.tsv"):
            err.wait_for(f"done: {name}")
        err.wait_for("failed: broken.epub: corrupt")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert (tmp_path / "in-mineru" / "pandoc__img" / "pandoc__img.md").is_file()
    assert not any("Traceback" in line for line in err.lines)


def test_plain_says_when_a_page_or_file_came_out_empty():
    from mineru_tui import events as je
    from mineru_tui.watch.plain import describe

    root = "/in/"
    assert describe(je.PageDone("/in/a.pdf", 1, 3, "", 0.5), root) == "page 2/3: a.pdf (0.50 s, empty)"
    assert describe(je.PageDone("/in/b.png", 0, 1, "", 0.5), root) == "page 1/1: b.png (0.50 s, empty)"
    assert describe(je.PageDone("/in/b.png", 0, 1, "# x", 0.5), root) is None
    line = describe(je.FileDone("/in/a.pdf", "pdf", 3, 2.0, ("page 2: no text", "x\ny")), root)
    assert line == "warning: a.pdf: page 2: no text; x\\ny"  # one line, escaped
    assert describe(je.FileDone("/in/a.pdf", "pdf", 3, 2.0), root) is None
