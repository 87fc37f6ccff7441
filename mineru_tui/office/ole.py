"""Streams of an OLE compound file (legacy .doc, .ppt and .xls pictures), read with
olefile (BSD).

olefile raises on a broken container, and each failure becomes one
:class:`~mineru_tui.errors.InputError` line here. It only logs a sector chain that loops,
though, and reads the stream's declared length around the loop: a 30 KB file whose
sector points at itself read as hundreds of MiB. So before a stream is read, its chain is
walked here (:meth:`Ole._check_chain`): its declared length must fit in the file, and no
sector may come twice; otherwise the file is refused in one line. A stream is read whole,
so streams are capped at :data:`MAX_STREAM_BYTES`.
"""

from __future__ import annotations

from pathlib import Path

from mineru_tui.errors import InputError

MAX_STREAM_BYTES = 256 << 20

ENCRYPTED = ("password-protected (encrypted) Office file: remove the password in Office "
             "(File > Info > Protect) and save a copy, then parse that")


class Ole:
    """An open compound file: ``stream(name)`` gives a stream's bytes (or None)."""

    def __init__(self, path: str | Path):
        import olefile  # only when a legacy file is read

        try:
            self._ole = olefile.OleFileIO(str(path))
        except Exception as exc:  # olefile raises OSError, ValueError, struct errors...
            raise InputError("corrupt or truncated OLE compound file (the container of "
                             "legacy Office files)", f"{type(exc).__name__}: {exc}") from None
        self._mini_checked = False

    def close(self) -> None:
        self._ole.close()

    def __enter__(self) -> "Ole":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def has(self, name: str) -> bool:
        return bool(self._ole.exists(name))

    def stream(self, name: str) -> bytes | None:
        if not self._ole.exists(name):
            return None
        try:
            if self._ole.get_size(name) > MAX_STREAM_BYTES:
                raise InputError(f"refused: its {name} stream is larger than "
                                 f"{MAX_STREAM_BYTES >> 20} MiB")
            entry = self._ole.direntries[self._ole._find(name)]
            self._check_chain(name, entry.isectStart, entry.size)
            return self._ole.openstream(name).read()
        except InputError:
            raise
        except Exception as exc:
            raise InputError(f"corrupt OLE compound file: its {name} stream is damaged",
                             f"{type(exc).__name__}: {exc}") from None

    def _check_chain(self, name: str, first: int, size: int) -> None:
        """Refuse a stream whose declared ``size`` the file cannot hold or whose sector
        chain from ``first`` comes back to a sector (a loop, or two streams chained into
        each other), before anything of it is read."""
        ole = self._ole
        if size < ole.minisectorcutoff:  # in the mini stream: its own chain first
            if not self._mini_checked:
                self._check_fat_chain("mini stream's sector table", ole.minifatsect,
                                      ole.num_mini_fat_sectors * ole.sectorsize)
                self._check_fat_chain("mini stream", ole.root.isectStart, ole.root.size)
                self._mini_checked = True
            if ole.minifat is None:
                ole.loadminifat()
            _walk(name, ole.minifat, first, size, ole.minisectorsize)
        else:
            self._check_fat_chain(f"{name} stream", first, size)

    def _check_fat_chain(self, what: str, first: int, size: int) -> None:
        _walk(what, self._ole.fat, first, size, self._ole.sectorsize)


def _walk(what: str, fat, first: int, size: int, sector: int) -> None:
    """Follow a chain of ``size`` bytes through ``fat`` (which holds one entry a sector of
    the file, so its length is what the file can hold); InputError on a loop."""
    need = -(-size // sector)
    if need > len(fat):
        raise InputError(f"corrupt or truncated OLE compound file: its {what} declares "
                         f"{size:,} bytes, more than the file holds")
    seen = set()
    s = first
    for _ in range(need):
        if s >= len(fat) or s in seen:
            raise InputError(f"corrupt or truncated OLE compound file: the sector chain of "
                             f"its {what} loops or leaves the file")
        seen.add(s)
        s = fat[s]
