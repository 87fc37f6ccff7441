"""Streams of an OLE compound file (legacy .doc and .ppt), read with olefile (BSD).

olefile checks the container (sector chains, loops, sizes) and raises on a broken one;
each failure becomes one :class:`~mineru_tui.errors.InputError` line here. A stream is
read whole, so streams are capped at :data:`MAX_STREAM_BYTES`.
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
            return self._ole.openstream(name).read()
        except InputError:
            raise
        except Exception as exc:
            raise InputError(f"corrupt OLE compound file: its {name} stream is damaged",
                             f"{type(exc).__name__}: {exc}") from None
