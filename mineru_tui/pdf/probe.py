"""Page isolation: every PDF page is parsed first in a child process with a memory limit.

PDFium parses a page's content streams when the page is loaded, and a content-stream
bomb (0.5 MB of compressed path operators inflating to 256 MiB) takes it past 2.8 GB
(about 28 bytes per inflated byte) before it aborts the whole process with SIGABRT and no
line. PDFium has no way to look at a page's content size before parsing it, so the
parse itself is tried where its death costs nothing: a child process (one per open
document, reused page after page) loads the page under an address-space limit
(``RLIMIT_AS``), counts its objects and answers. A page that kills the child, goes over
the object limit or the time limit is refused with one line (:class:`PageError`), the
child is started again for the next page, and the reading process never loads the page.
A page that passes was parsed within the same memory budget, so loading it again in the
reading process costs no more.

The limits (environment variables, read when a document is opened):

* ``MINERU_TUI_PAGE_MEMORY_MB`` — address space a page's parse may add to the child's
  (default 1024 MiB);
* ``MINERU_TUI_PAGE_OBJECTS`` — page objects (paths, text runs, images) on one page
  (default 1,000,000);
* ``MINERU_TUI_PAGE_SECONDS`` — seconds to load one page (default 120).

``RLIMIT_AS`` is enforced on Linux; where it is not (macOS), a page's parse is still
isolated: a crash ends the child, not the run. ``MINERU_TUI_PAGE_PROBE=0`` turns the
check off (pages are then loaded directly, as before).

Run as ``python -m mineru_tui.pdf.probe``, the module is the child: it reads one JSON
line (path, password, limits), then page indices one per line, and answers one line each.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time

DEFAULT_MEMORY_MB = 1024
DEFAULT_OBJECTS = 1_000_000
DEFAULT_SECONDS = 120.0
REOPEN_EVERY = 50  # pages checked before the child opens the file afresh (as pdf/reader.py)


def _env_number(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value if value > 0 else default


def enabled() -> bool:
    """Whether pages are probed (``MINERU_TUI_PAGE_PROBE=0`` turns it off)."""
    return os.environ.get("MINERU_TUI_PAGE_PROBE", "1") != "0"


class PageProbe:
    """The child process that parses each page before the reading process loads it."""

    def __init__(self, path, password: str | None = None, *, memory_mb: float | None = None,
                 objects: int | None = None, seconds: float | None = None):
        self.path = str(path)
        self.password = password
        self.memory_mb = memory_mb or _env_number("MINERU_TUI_PAGE_MEMORY_MB", DEFAULT_MEMORY_MB)
        self.objects = int(objects or _env_number("MINERU_TUI_PAGE_OBJECTS", DEFAULT_OBJECTS))
        self.seconds = seconds or _env_number("MINERU_TUI_PAGE_SECONDS", DEFAULT_SECONDS)
        self._child: subprocess.Popen | None = None
        self._passed: set[int] = set()
        self._lock = threading.Lock()  # one question at a time: answers are lines in order

    def _start(self) -> subprocess.Popen:
        child = subprocess.Popen(
            [sys.executable, "-m", "mineru_tui.pdf.probe"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True)
        setup = {"path": self.path, "password": self.password, "memory_mb": self.memory_mb,
                 "objects": self.objects}
        child.stdin.write((json.dumps(setup) + "\n").encode())
        child.stdin.flush()
        return child

    def check(self, index: int) -> str | None:
        """None when page ``index`` (0-based) can be loaded; else why not, in words."""
        with self._lock:
            return self._check(index)

    def _check(self, index: int) -> str | None:
        if index in self._passed:
            return None
        if self._child is None or self._child.poll() is not None:
            self._child = self._start()
        child = self._child
        try:
            child.stdin.write(f"{index}\n".encode())
            child.stdin.flush()
            answer = _read_line(child.stdout, self.seconds)
        except (BrokenPipeError, OSError):
            answer = b""
        if answer is None:  # the time limit: the child is stopped, the page refused
            self._stop()
            return f"its content takes longer than {self.seconds:g} s to parse"
        text = answer.decode("utf-8", "replace").strip()
        if text == "ok":
            self._passed.add(index)
            return None
        if text.startswith("refused "):
            return text[len("refused "):]
        self._stop()  # the child died on this page (out of memory, or PDFium aborted)
        return (f"its content cannot be parsed within {self.memory_mb:g} MiB "
                "(a content-stream bomb, or a damaged page)")

    def _stop(self) -> None:
        child, self._child = self._child, None
        if child is None:
            return
        if child.poll() is None:
            child.kill()
        child.wait()
        for stream in (child.stdin, child.stdout):
            try:
                stream.close()
            except OSError:
                pass

    def close(self) -> None:
        """Stop the child process."""
        with self._lock:
            self._stop()


def _read_line(stream, seconds: float) -> bytes | None:
    """One line from the child, b"" when it ended, None after ``seconds``."""
    deadline = time.monotonic() + seconds
    fd = stream.fileno()
    buf = b""
    while not buf.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return None
        chunk = os.read(fd, 4096)
        if not chunk:
            return b""
        buf += chunk
        if len(buf) > 4096:  # the child writes short lines only
            return b""
    return buf


# ---------------------------------------------------------------------------------------
# the child


def _limit_memory(extra_mb: float) -> None:
    """Cap this process's address space at its current size plus ``extra_mb``."""
    try:
        import resource

        with open("/proc/self/statm") as f:
            current = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        limit = current + int(extra_mb * 1024 * 1024)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, OSError, ValueError):
        pass  # no /proc (macOS) or no RLIMIT_AS: still isolated, not limited


def _child() -> None:
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    setup = json.loads(sys.stdin.readline())
    doc = pdfium.PdfDocument(setup["path"], password=setup.get("password"))
    _limit_memory(setup["memory_mb"])
    out = sys.stdout
    for n, line in enumerate(sys.stdin):
        index = int(line)
        if n and n % REOPEN_EVERY == 0:  # PDFium keeps what it parsed until the file closes
            doc.close()
            doc = pdfium.PdfDocument(setup["path"], password=setup.get("password"))
        try:
            page = doc[index]
        except MemoryError:
            raise
        except Exception:  # a damaged page: the reading process loads it and says why
            out.write("ok\n")
            out.flush()
            continue
        count = pdfium_c.FPDFPage_CountObjects(page.raw)
        page.close()
        if count > setup["objects"]:
            out.write(f"refused it has {count:,} objects (more than {setup['objects']:,})\n")
        else:
            out.write("ok\n")
        out.flush()


if __name__ == "__main__":
    try:
        _child()
    except BaseException:  # noqa: BLE001 - any failure is an answer-less exit: page refused
        sys.exit(3)
