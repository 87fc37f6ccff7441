"""Pages kept as they finish: a per-file journal beside the output set, to resume from.

A page counts as done only once its record (the same record ``<stem>_model.json`` holds: the
model's answers, or what the text layer gave) is appended to the journal and handed to the
system (a kill of the process loses nothing from then on). It is flushed to disk (``fsync``)
at once when the last flush is :data:`SYNC_SECONDS` old, else with the next page kept or when
the journal is closed: a power cut can lose only the pages kept in the quarter second after
a flush (they are read again), and a page read in milliseconds (``--effort low``) does not
pay a flush of its own (a flush per page cost 0.04-0.06 CPU-s over 300 pages, half of
keeping them). A slow page (the model's) is flushed as it is kept.

A later run of the same file — the same bytes, the same reading settings (effort, mode,
engine family, model, image analysis, token cap, pages) — takes those pages from the journal
(rebuilt through the page outcomes, :mod:`.outcomes`, without the model) and reads only the
others, whether the earlier run was quit, cancelled, interrupted, killed or cut by a power
loss. The set it writes is byte-identical to an uninterrupted run's (apart from timings).

Each line also keeps the finished page itself (``document/page_store.dump_page``, the form
the page reader keeps its pages in, base64) with the warnings it gave: a page that cut no
picture from a page image (every page read from the text layer) is taken back as it was,
neither read nor rendered again.

The file is JSON lines: a header with the identity, then one line per finished page with a
CRC-32 of its record (and of its page). A torn or damaged line (the write a kill or a power cut interrupted)
and everything after it are dropped, never read; the file is cut back to the last whole line.
A different identity starts over and says why in one line. Pages that failed are not kept:
the next run tries them again. The journal is removed once the complete set is written.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

FORMAT = "mineru-tui page journal 1"
SYNC_SECONDS = 0.25  # a page kept sooner after the last flush (fsync) waits for the next one
SETTINGS = ("effort", "mode", "engine", "model", "image_analysis", "max_new_tokens", "pages")


def identity(path: Path, settings, engine, pages: str | None) -> dict:
    """What a resume must match: the file's bytes (SHA-256) and the reading settings."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return {"sha256": digest.hexdigest(), "effort": settings.effort, "mode": settings.mode,
            "engine": getattr(engine, "name", None) if settings.effort != "low" else None,
            "model": (getattr(engine, "model_id", None) or None) if settings.effort != "low" else None,
            "image_analysis": settings.image_analysis, "max_new_tokens": settings.max_new_tokens,
            "pages": pages}


def _why_different(old: dict, new: dict) -> str | None:
    """None when ``old`` (the journal's) and ``new`` identities match, else why not."""
    if old.get("sha256") != new["sha256"]:
        return "the file changed since the earlier run"
    changed = []
    for key in SETTINGS:
        a, b = old.get(key), new.get(key)
        if key == "model" and (a is None or b is None):  # not known before the engine loads
            continue
        if a != b:
            changed.append(f"{key.replace('_', ' ')} {a} → {b}")
    return f"the reading settings changed ({', '.join(changed)})" if changed else None


def _crc(record: dict) -> int:
    return zlib.crc32(json.dumps(record, sort_keys=True, ensure_ascii=False).encode("utf-8"))


@dataclass
class Journal:
    """An open journal: ``done`` maps page ordinals to the records kept; ``note`` is the one
    line saying what was found (resumed, or started over and why), None for a fresh start."""

    path: Path
    ident: dict = field(default_factory=dict)
    done: dict[int, dict] = field(default_factory=dict)
    note: str | None = None
    _file: object = None
    _forms: dict[int, tuple[int, int]] = field(default_factory=dict)  # where a kept page's line is
    _synced: float = float("-inf")  # time.monotonic() of the last flush of pages to disk
    _unsynced: bool = False  # pages written since then

    @classmethod
    def open(cls, path: Path, ident: dict) -> Journal:
        """Open the journal at ``path`` for a run with identity ``ident`` (nothing is written
        until the first page is kept: a file that fails early leaves no journal)."""
        journal = cls(Path(path), ident=ident)
        header, done, good, forms = _read(journal.path)
        if header is not None:
            why = _why_different(header, ident)
            if why is None:
                journal.done, journal._forms = done, forms
                if good is not None:  # a torn tail: cut back to the last whole line
                    with open(journal.path, "r+b") as f:
                        f.truncate(good)
                        os.fsync(f.fileno())
                journal._file = open(journal.path, "a", encoding="utf-8")
            else:
                journal.note = f"started over: {why}"
        return journal

    def keep(self, ordinal: int, record: dict, page: bytes | None = None,
             warnings: list[str] = (), pictures: int = 0) -> None:
        """Append a finished page's record (flushed to disk now when the last flush is
        :data:`SYNC_SECONDS` old, else with the next page or at :meth:`close`); ``page``
        is the page itself as ``dump_page`` gives it, with the ``warnings`` reading it gave
        and how many ``pictures`` it cut (a page with pictures is read again on resume)."""
        if self._file is None:  # the first page kept: a new journal replaces any other
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(self.path.name + ".new")
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(json.dumps({"format": FORMAT, **self.ident}, ensure_ascii=False) + "\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
            _sync_dir(self.path.parent)
            self._file = open(self.path, "a", encoding="utf-8")
            # (the header's flush is not a page's: the first page is flushed as it is kept)
        entry = {"page": ordinal, "crc": _crc(record), "record": record}
        if page is not None and not pictures:
            form = base64.b64encode(page).decode("ascii")
            entry.update(form=form, warnings=list(warnings), form_crc=_form_crc(form, warnings))
        line = json.dumps(entry, ensure_ascii=False)
        self._file.write(line + "\n")
        self._file.flush()  # the system has it: a kill loses nothing
        self._unsynced = True
        if time.monotonic() - self._synced >= SYNC_SECONDS:
            self._sync()
        self.done[ordinal] = record

    def _sync(self) -> None:
        """Flush what was written to disk (a power cut keeps it)."""
        os.fsync(self._file.fileno())
        self._synced, self._unsynced = time.monotonic(), False

    def replayed(self) -> set[int]:
        """The ordinals whose page :meth:`kept_page` gives back."""
        return set(self._forms)

    def kept_page(self, ordinal: int) -> tuple[bytes, list[str]] | None:
        """The page an earlier run finished at ``ordinal`` as ``dump_page`` gave it, and the
        warnings it gave; None when the journal has no page there to take back."""
        where = self._forms.get(ordinal)
        if where is None:
            return None
        with open(self.path, "rb") as f:
            f.seek(where[0])
            entry = json.loads(f.read(where[1]))
        return base64.b64decode(entry["form"]), entry["warnings"]

    def close(self, *, sync: bool = True) -> None:
        """Close the file, flushing to disk the pages not yet flushed (``sync``)."""
        if self._file is not None:
            if sync and self._unsynced:
                self._sync()
            self._file.close()
            self._file = None

    def remove(self) -> None:
        """The set is complete and written: the journal is no longer needed."""
        self.close(sync=False)  # removed next: no flush
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass


def read_records(path: Path) -> dict[int, dict]:
    """The records a journal holds, by page ordinal (whatever its identity; for display)."""
    return _read(Path(path))[1]


def _form_crc(form: str, warnings) -> int:
    return zlib.crc32(json.dumps([form, list(warnings)], ensure_ascii=False).encode("utf-8"))


def _read(path: Path) -> tuple[dict | None, dict[int, dict], int | None, dict[int, tuple[int, int]]]:
    """(header, records by ordinal, length to cut the file to when its tail is torn, where
    each line holding a page is)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None, {}, None, {}
    header, done, pos, forms = None, {}, 0, {}
    while pos < len(data):
        end = data.find(b"\n", pos)
        if end < 0:
            break  # no newline: the last write was cut
        try:
            entry = json.loads(data[pos:end].decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            break
        if header is None:
            if not isinstance(entry, dict) or entry.get("format") != FORMAT:
                return None, {}, None, {}
            header = entry
        elif (isinstance(entry, dict) and isinstance(entry.get("record"), dict)
              and entry.get("crc") == _crc(entry["record"]) and isinstance(entry.get("page"), int)):
            done[entry["page"]] = entry["record"]
            if "form" in entry:
                if not (isinstance(entry["form"], str) and isinstance(entry.get("warnings"), list)
                        and entry.get("form_crc") == _form_crc(entry["form"], entry["warnings"])):
                    break
                forms[entry["page"]] = (pos, end - pos)
            else:
                forms.pop(entry["page"], None)
        else:
            break
        pos = end + 1
    return header, done, (pos if pos < len(data) else None), forms


def _sync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the platform allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
