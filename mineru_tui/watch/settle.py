"""Deciding when a file is complete enough to read.

File-system events are hints, never facts: a copy produces a burst of events, a browser
download is renamed at the end, and some platforms send "created" when writing starts. So a
path is read only when (1) no event has come for it for ``quiet`` seconds, (2) its size and
mtime are the same on two looks ``interval`` seconds apart, and (3) it opens for reading.
An empty file is given a few more looks (it may be about to be written) before it is handed
over anyway (the reader then reports "empty file").

Only regular files are looked at: a FIFO, a socket or a device (a link to ``/dev/zero``) is
reported once and dropped, by ``stat`` before any ``open`` (opening a FIFO blocks until a
writer comes). The open itself is non-blocking and happens outside the settler's lock, so
no file can stall the settler or whoever waits for its lock (``stop`` on SIGTERM). A file
that exists but cannot be opened (mode 000) is reported once and dropped too; a later event
for it (a chmod, a rewrite) brings it back.
"""

from __future__ import annotations

import errno
import os
import stat as stat_mod
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

EMPTY_LOOKS = 6  # looks at a stable empty file before handing it over


@dataclass
class _Pending:
    due: float
    last: tuple[int, int] | None = None  # (size, mtime_ns) at the previous look
    empty_looks: int = 0


class Settler:
    """Collects paths from any thread (:meth:`touch`) and calls ``on_ready(path)`` from its
    own thread once each is complete."""

    def __init__(self, on_ready: Callable[[Path], None], *, quiet: float = 1.0,
                 interval: float = 0.5, clock: Callable[[], float] = time.monotonic,
                 on_error: Callable[[str], None] = lambda line: None,
                 on_refused: Callable[[Path, str, bool], None] | None = None):
        self.on_ready = on_ready
        self.on_error = on_error
        # (path, reason, unreadable): a path that is no regular file, or cannot be opened
        self.on_refused = on_refused or (lambda path, reason, _: on_error(f"{path}: {reason}"))
        self._refused: dict[Path, tuple[int, int]] = {}  # only the settler's thread uses it
        self.quiet = quiet
        self.interval = interval
        self.clock = clock
        self._pending: dict[Path, _Pending] = {}
        self._cond = threading.Condition()
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="mineru-settle", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def touch(self, path: Path) -> None:
        """An event came for ``path``: (re)start its quiet period."""
        with self._cond:
            p = self._pending.get(path)
            due = self.clock() + self.quiet
            if p is None:
                self._pending[path] = _Pending(due)
            else:
                p.due, p.last = due, None
            self._cond.notify()

    def waiting(self) -> int:
        """How many paths are waiting to become complete."""
        with self._cond:
            return len(self._pending)

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._stop:
                    return
                now = self.clock()
                due = [path for path, p in self._pending.items() if p.due <= now]
                if not due:
                    nxt = min((p.due for p in self._pending.values()), default=now + 1.0)
                    self._cond.wait(timeout=max(0.01, min(1.0, nxt - now)))
                    continue
            for path in due:
                self._look(path)

    def _look(self, path: Path) -> None:
        try:
            st = os.stat(path)
            stat = (st.st_size, st.st_mtime_ns)
        except OSError:
            stat = None  # gone (moved away, deleted): forget it
        if stat is not None and not stat_mod.S_ISREG(st.st_mode):
            with self._cond:
                gone = self._pending.pop(path, None)
            if gone is not None:
                self._refuse(path, stat, "not a regular file (a FIFO, socket or device)",
                             unreadable=False)
            return
        with self._cond:
            p = self._pending.get(path)
            if p is None:
                return
            if stat is None:
                del self._pending[path]
                return
            if p.last != stat:
                p.last, p.due = stat, self.clock() + self.interval
                return
            if stat[0] == 0 and p.empty_looks < EMPTY_LOOKS:
                p.empty_looks += 1
                p.due = self.clock() + self.interval
                return
        opened = _opens(path)  # outside the lock: touch() and stop() never wait for it
        with self._cond:
            p = self._pending.get(path)
            if p is None or p.last != stat:  # touched again meanwhile: its next look decides
                return
            if opened is True:
                del self._pending[path]
            elif opened == errno.EACCES or opened == errno.EPERM:
                del self._pending[path]  # reported once below; a later event brings it back
            else:  # locked by the writer (Windows) or not yet readable: look again later
                p.due = self.clock() + 2 * self.interval
                return
        if opened is not True:
            self._refuse(path, stat, "cannot read: permission denied", unreadable=True)
            return
        self._refused.pop(path, None)
        try:
            self.on_ready(path)
        except Exception as e:  # a failing consumer must not kill the settling thread
            self.on_error(f"{path}: {type(e).__name__}: {e}")

    def _refuse(self, path: Path, stat, reason: str, unreadable: bool) -> None:
        """Report a path that cannot be read, once for each state of it (a rescan or event
        that finds it unchanged says nothing again)."""
        if self._refused.get(path) == stat:
            return
        self._refused[path] = stat
        try:
            self.on_refused(path, reason, unreadable)
        except Exception as e:  # noqa: BLE001 - as for on_ready
            self.on_error(f"{path}: {type(e).__name__}: {e}")


def _opens(path: Path) -> bool | int:
    """True when ``path`` opens and reads as a regular file; else the errno why not (0 when
    it is no regular file once open). Never blocks: opened with ``O_NONBLOCK``."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        return e.errno or -1
    try:
        if not stat_mod.S_ISREG(os.fstat(fd).st_mode):
            return 0
        os.read(fd, 1)
        return True
    except OSError as e:
        return e.errno or -1
    finally:
        os.close(fd)
