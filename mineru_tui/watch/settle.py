"""Deciding when a file is complete enough to read.

File-system events are hints, never facts: a copy produces a burst of events, a browser
download is renamed at the end, and some platforms send "created" when writing starts. So a
path is read only when (1) no event has come for it for ``quiet`` seconds, (2) its size and
mtime are the same on two looks ``interval`` seconds apart, and (3) it opens for reading.
An empty file is given a few more looks (it may be about to be written) before it is handed
over anyway (the reader then reports "empty file").
"""

from __future__ import annotations

import os
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
                 on_error: Callable[[str], None] = lambda line: None):
        self.on_ready = on_ready
        self.on_error = on_error
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
        ready = False
        try:
            st = os.stat(path)
            stat = (st.st_size, st.st_mtime_ns)
        except OSError:
            stat = None  # gone (moved away, deleted): forget it
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
            if _opens(path):
                del self._pending[path]
                ready = True
            else:  # locked by the writer (Windows) or not yet readable: look again later
                p.due = self.clock() + 2 * self.interval
        if ready:
            try:
                self.on_ready(path)
            except Exception as e:  # a failing consumer must not kill the settling thread
                self.on_error(f"{path}: {type(e).__name__}: {e}")


def _opens(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            f.read(1)
        return True
    except OSError:
        return False
