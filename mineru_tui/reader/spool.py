"""A file's pictures (and finished pages) kept on disk while its pages are read, not in memory.

The page reader cuts a picture for every image, chart and table block it reads (a JPEG of
20-200 KB); a 1,000-page file holds thousands. :class:`PictureSpool` is the mapping
``Document.images`` is (name -> bytes), with each picture written to a private temporary
folder as it is added and read back only when asked for (the output writer takes them one
at a time). The same folder holds the document's pages (``document/page_store.py``). The
folder goes when the spool is closed or collected.

A process killed outright (SIGKILL, a power cut) cannot remove its folder. Each folder holds
a lock (``flock``) for as long as its process lives, and every new spool removes the folders
whose lock is free: their owner is gone.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref
from collections.abc import Iterator, MutableMapping
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no flock; folders are removed by their own process only
    fcntl = None

PREFIX = "mineru-tui-pictures-"
LOCK = ".owner"


class PictureSpool(MutableMapping):
    """``name -> bytes``, the bytes in a temporary folder (names are the writers' file
    names: safe, unique, no folder part). ``folder`` is that folder."""

    def __init__(self, parent: str | Path | None = None):
        sweep_stale(parent)
        self.folder = Path(tempfile.mkdtemp(prefix=PREFIX, dir=parent))
        self._lock = _hold_lock(self.folder)
        self._files: dict[str, Path] = {}  # insertion order is the pictures' order
        self._cleanup = weakref.finalize(self, _remove, str(self.folder), self._lock)

    def __setitem__(self, name: str, data: bytes) -> None:
        path = self._files.get(name) or self.folder / str(len(self._files))
        path.write_bytes(data)
        self._files[name] = path

    def __getitem__(self, name: str) -> bytes:
        return self._files[name].read_bytes()

    def __delitem__(self, name: str) -> None:
        self._files.pop(name).unlink()

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)

    def __contains__(self, name) -> bool:
        return name in self._files

    def close(self) -> None:
        """Remove the folder and its pictures now."""
        self._cleanup()


def _hold_lock(folder: Path) -> int | None:
    """An open descriptor holding an exclusive lock on ``folder``'s lock file for as long as
    it is open (the kernel drops it when the process dies, however it dies)."""
    if fcntl is None:
        return None
    fd = os.open(folder / (LOCK + ".new"), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.rename(folder / (LOCK + ".new"), folder / LOCK)  # a sweep sees it only once it is held
    return fd


def _remove(folder: str, lock: int | None) -> None:
    shutil.rmtree(folder, True)
    if lock is not None:
        os.close(lock)


def sweep_stale(parent: str | Path | None = None) -> int:
    """Remove the spool folders in ``parent`` (the temporary directory when None) whose
    process is gone (their lock is free); returns how many were removed."""
    if fcntl is None:
        return 0
    removed = 0
    try:
        candidates = list(Path(parent or tempfile.gettempdir()).glob(PREFIX + "*"))
    except OSError:
        return 0
    for folder in candidates:
        try:
            fd = os.open(folder / LOCK, os.O_RDWR)
        except OSError:  # no lock file: not ours, or a folder being made this moment
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held: its process is alive
            os.close(fd)
            continue
        shutil.rmtree(folder, True)  # its owner is gone (we hold the lock while removing)
        os.close(fd)
        removed += 1
    return removed
