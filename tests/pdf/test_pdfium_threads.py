"""PDFium is not thread-safe: every call of the process goes through one lock (pdf/pdfium.py).

Eight threads rendering pages of one PDF and reading their characters crashed the process
(SIGSEGV, SIGTRAP, "corrupted double-linked list") 3 runs of 3 before the lock. The threads
run in a child process, so a crash fails this test instead of killing the suite.
"""

import subprocess
import sys
from pathlib import Path

from testkit.pdf_fixtures import joined_pdf

ROOT = Path(__file__).resolve().parents[2]

THREADS = """
import sys, threading
from mineru_tui.pdf.chars import page_chars
from mineru_tui.pdf.reader import open_pdf

path, errors = sys.argv[1], []

def work(k):
    try:
        with open_pdf(path) as doc:
            for i in range(k, doc.page_count_total, 8):
                page = doc.page(i)
                page.render(dpi=72, max_edge=800)
                page_chars(page)
                page.close()
    except Exception as e:
        errors.append(repr(e))

threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("errors:", errors)
"""


def test_eight_threads_render_pages_of_one_pdf(tmp_path):
    pdf = joined_pdf(tmp_path / "joined.pdf", 96)
    r = subprocess.run([sys.executable, "-c", THREADS, str(pdf)], cwd=ROOT, capture_output=True,
                       text=True, timeout=600, env={"PYTHONPATH": str(ROOT), "MINERU_TUI_PAGE_PROBE": "0",
                                                    "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, f"the threads crashed the process ({r.returncode}): {r.stderr[-500:]}"
    assert "errors: []" in r.stdout, r.stdout


def test_previews_render_the_newest_request_and_keep_neighbours(tmp_path):
    import threading

    from mineru_tui.pdf.previews import Previews

    pdf = joined_pdf(tmp_path / "joined.pdf", 12)
    got, started, gate, arrived = [], threading.Event(), threading.Event(), threading.Semaphore(0)

    def on_image(index, image):
        got.append((index, image))
        arrived.release()
        if index == 0:
            started.set()
            gate.wait(60)  # hold the thread: the requests below pile up meanwhile

    previews = Previews(pdf, on_image, keep=3)
    previews.request(0)
    assert started.wait(60)
    for index in range(1, 9):  # a held key: only the newest request is rendered
        previews.request(index)
    gate.set()
    assert arrived.acquire(timeout=60) and arrived.acquire(timeout=60)  # pages 0 and 8
    previews.request(8)  # the same page again comes from the cache: the same image
    assert arrived.acquire(timeout=60)
    previews.close()
    assert [i for i, _ in got] == [0, 8, 8]
    assert got[1][1] is got[2][1] and max(got[1][1].size) <= 900
