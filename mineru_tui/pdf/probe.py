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

**Reading in the child.** A reader may have the child read a page whole right after loading
it (:meth:`PageProbe.read`; effort ``low`` does, ``reader/whole_page.py``): the child is then
``python -m`` of the reader's module, which serves :func:`.probe_child.main` with its own
reading function, and the finished page comes back as bytes, so the reading process never
loads the page. The load keeps its answer and its time limit (counted from the question: the
next page is asked for while the reading process keeps this one); a child that dies after the
load passed (its reading went over the memory limit) costs only the work: the page loaded
within the limits, and the reading process reads it itself.

The child is :mod:`.probe_child`, started with ``python -P`` (the working directory is not
searched for it).
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
MODULE = "mineru_tui.pdf.probe_child"  # the child that only loads pages


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
    """The child process that parses each page before the reading process loads it.

    ``reader``: the module the child runs (``python -m``), one that serves
    :func:`.probe_child.main` with a reading function, for :meth:`read`; ``reading``: what
    that function is told (JSON)."""

    def __init__(self, path, password: str | None = None, *, memory_mb: float | None = None,
                 objects: int | None = None, seconds: float | None = None,
                 reader: str = MODULE, reading: dict | None = None):
        self.path = str(path)
        self.password = password
        self.memory_mb = memory_mb or _env_number("MINERU_TUI_PAGE_MEMORY_MB", DEFAULT_MEMORY_MB)
        self.objects = int(objects or _env_number("MINERU_TUI_PAGE_OBJECTS", DEFAULT_OBJECTS))
        self.seconds = seconds or _env_number("MINERU_TUI_PAGE_SECONDS", DEFAULT_SECONDS)
        self.reader = reader
        self.reading = reading or {}
        self._child: subprocess.Popen | None = None
        self._answers: _Answers | None = None
        self._passed: set[int] = set()
        self._refused: dict[int, str] = {}  # a refused page is not tried again
        self._ahead: tuple[int, float] | None = None  # (page, when) read ahead, answer unread
        self._early: dict[int, bytes | None] = {}  # a page read ahead, answered, not yet taken
        self._lock = threading.Lock()  # one caller at a time: answers come in order

    def _start(self) -> subprocess.Popen:
        # -P: the module comes from this installation, not from a mineru_tui/ folder in the
        # working directory (python -m puts it first on the path otherwise)
        child = subprocess.Popen(
            [sys.executable, "-P", "-m", self.reader], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True)
        setup = {"path": self.path, "password": self.password, "memory_mb": self.memory_mb,
                 "objects": self.objects, "reading": self.reading}
        child.stdin.write((json.dumps(setup) + "\n").encode())
        child.stdin.flush()
        self._answers = _Answers(child.stdout.fileno())
        return child

    def check(self, index: int) -> str | None:
        """None when page ``index`` (0-based) can be loaded; else why not, in words."""
        with self._lock:
            self._settle()
            if index in self._passed:
                return None
            refused = self._refused.get(index)
            if refused is not None:
                return refused
            self._send(f"{index}", start=True)
            return self._loaded(index, time.monotonic())

    def read(self, index: int, ordinal: int, ahead: tuple[int, int] | None = None) -> bytes | None:
        """Page ``index`` loaded and read whole by the child (``ordinal``: its place among
        the pages read): the bytes the reader's function gave for it, or None when this
        process must read the page itself, as without the reader: the page is refused
        (:meth:`check` then says why, without asking again), or the child died after the
        load passed (the reading went over the memory limit; the page loads here).

        ``ahead``: (index, ordinal) of the page to be asked for next: the child reads it
        while this process goes on with this one (its load's time limit counts from then)."""
        with self._lock:
            if self._ahead is not None and self._ahead[0] != index:
                self._settle()
            if index in self._early:
                data = self._early.pop(index)
            elif self._ahead is not None:  # this page, asked ahead
                data = self._answer(index, self._ahead[1])
            elif index in self._refused:
                return None
            else:
                self._send(f"read {index} {ordinal}", start=True)
                data = self._answer(index, time.monotonic())
            self._ahead = None
            if ahead is not None and ahead[0] not in self._refused and self._send(
                    f"read {ahead[0]} {ahead[1]}", start=False):
                self._ahead = (ahead[0], time.monotonic())
            return data

    def _settle(self) -> None:
        """Take the answer to the page asked ahead, to keep for when it is asked for."""
        if self._ahead is not None:
            index, since = self._ahead
            self._ahead = None
            self._early[index] = self._answer(index, since)

    def _send(self, question: str, *, start: bool) -> bool:
        """Write ``question`` to the child (started first when ``start`` and none is
        running); False when there is no child to ask (it died: its answer says so)."""
        if self._child is None or self._child.poll() is not None:
            if not start:
                return False
            self._child = self._start()
        try:
            self._child.stdin.write(f"{question}\n".encode())
            self._child.stdin.flush()
        except OSError:  # BrokenPipeError: it died; reading its answer finds that out
            return start
        return True

    def _answer(self, index: int, since: float) -> bytes | None:
        """The answer to "read": the page's bytes, or None (refused, or the child died or
        said something else after the load passed: the page is read by this process)."""
        if self._loaded(index, since) is not None:
            return None
        try:
            head = self._answers.line(None).split()
            if len(head) == 2 and head[0] == b"page" and head[1].isdigit():
                data = self._answers.exactly(int(head[1]))
                if data is not None:
                    return data
        except OSError:
            pass
        self._stop()
        return None

    def _loaded(self, index: int, since: float) -> str | None:
        """The load's answer for page ``index`` (asked at ``since``): None when it loaded,
        else why not (the page is then refused)."""
        try:
            answer = self._answers.line(since + self.seconds)
        except OSError:
            answer = b""
        text = "" if answer is None else answer.decode("utf-8", "replace").strip()
        word, _, took = text.partition(" ")
        if answer is None or (word == "ok" and _over(took, self.seconds)):
            # the time limit (no answer by then, or one that says it came later: a page
            # asked ahead may be answered before this process looks): stopped, refused
            self._stop()
            return self._refuse(index, f"its content takes longer than {self.seconds:g} s to parse")
        if word == "ok":
            self._passed.add(index)
            return None
        if text.startswith("refused "):
            return self._refuse(index, text[len("refused "):])
        self._stop()  # the child died on this page (out of memory, or PDFium aborted)
        return self._refuse(index, f"its content cannot be parsed within {self.memory_mb:g} MiB "
                                   "(a content-stream bomb, or a damaged page)")

    def _refuse(self, index: int, why: str) -> str:
        self._refused[index] = why
        return why

    def _stop(self) -> None:
        self._ahead = None  # asked of this child: asked again of the next
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


def _over(took: str, seconds: float) -> bool:
    """Whether the child's ``ok SECONDS`` says the load took longer than ``seconds``."""
    try:
        return float(took) > seconds
    except ValueError:  # a bare "ok"
        return False


class _Answers:
    """What the child writes: lines and, after a read's ``page LENGTH`` line, that many bytes."""

    def __init__(self, fd: int):
        self.fd = fd
        self.buf = b""

    def line(self, deadline: float | None) -> bytes | None:
        """One line, b"" when the child ended first, None when none came by ``deadline``
        (``time.monotonic()``; None: no limit). What came before the deadline counts."""
        while b"\n" not in self.buf:
            if len(self.buf) > 4096:  # the child writes short lines only
                return b""
            if deadline is not None:
                left = max(0.0, deadline - time.monotonic())
                if not select.select([self.fd], [], [], left)[0]:
                    return None
            if not self._more():
                return b""
        line, _, self.buf = self.buf.partition(b"\n")
        return line + b"\n"

    def exactly(self, n: int) -> bytes | None:
        """The next ``n`` bytes, None when the child ended first."""
        while len(self.buf) < n:
            if not self._more(n - len(self.buf)):
                return None
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def _more(self, want: int = 4096) -> bool:
        chunk = os.read(self.fd, max(want, 4096))
        self.buf += chunk
        return bool(chunk)
