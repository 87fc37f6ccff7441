"""A file's pictures kept on disk while its pages are read, not in memory.

The page reader cuts a picture for every image, chart and table block it reads (a JPEG of
20-200 KB); a 1,000-page file holds thousands. :class:`PictureSpool` is the mapping
``Document.images`` is (name -> bytes), with each picture written to a private temporary
folder as it is added and read back only when asked for (the output writer takes them one
at a time). The folder goes when the spool is closed or collected.
"""

from __future__ import annotations

import shutil
import tempfile
import weakref
from collections.abc import Iterator, MutableMapping
from pathlib import Path


class PictureSpool(MutableMapping):
    """``name -> bytes``, the bytes in a temporary folder (names are the writers' file
    names: safe, unique, no folder part)."""

    def __init__(self):
        self._folder = Path(tempfile.mkdtemp(prefix="mineru-tui-pictures-"))
        self._files: dict[str, Path] = {}  # insertion order is the pictures' order
        self._cleanup = weakref.finalize(self, shutil.rmtree, str(self._folder), True)

    def __setitem__(self, name: str, data: bytes) -> None:
        path = self._files.get(name) or self._folder / str(len(self._files))
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
