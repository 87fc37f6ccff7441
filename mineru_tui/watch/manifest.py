"""What the watcher has read, keyed by content hash, so a restart resumes.

The manifest is one JSON file in the output folder (``.mineru-tui-watch.json``)::

    {"version": 1,
     "files": {"<sha256>": {"path": "sub/a.docx", "status": "done", "stem": "a",
                            "kind": "docx", "pages": 3, "seconds": 0.04, "reason": "",
                            "finished": "2026-12-03T08:00:00Z"}},
     "stems": {"sub/a.docx": "a"}}

* a file whose bytes hash to a ``done`` entry (and whose output folder still exists) is not
  read again, whatever it is called now: a renamed or copied file is recognised;
* a changed file has a new hash and is read again, into the same output folder (its path
  keeps its stem);
* ``failed`` and ``needs-model`` entries keep their reason; the file is read again only when
  its bytes change or the user asks (``r``).

Stems are given out like ``parse -o`` does in a batch: the first path with a stem keeps it,
later ones get ``_2``, ``_3``... (case-insensitively), and a path keeps its stem for good.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from mineru_tui.watch.status import KEPT, Status

FILE_NAME = ".mineru-tui-watch.json"
VERSION = 1

DONE, FAILED, NEEDS_MODEL = Status.DONE, Status.FAILED, Status.NEEDS_MODEL  # the words it keeps


@dataclass
class Entry:
    """What happened to one content hash."""

    path: str  # relative to the watched folder, "/"-separated
    status: Status  # done | failed | needs-model (KEPT)
    stem: str = ""
    kind: str = ""
    pages: int = 0
    seconds: float = 0.0
    reason: str = ""
    finished: str = ""
    hint: str = ""  # needs-model: what to do about it (kept for the next run)


def file_hash(path: Path) -> str:
    """The SHA-256 of a regular file's bytes (read in 1 MiB chunks).

    Bounded: the file is opened without blocking (a FIFO put in its place cannot hang
    the watcher), must be a regular file once open (not a device such as ``/dev/zero``),
    and is read up to the size it had when opened, never further (a file that keeps
    growing is read again when it changes). OSError otherwise.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        h = hashlib.sha256()
        left = st.st_size
        while left > 0:
            chunk = f.read(min(left, 1 << 20))
            if not chunk:
                break
            h.update(chunk)
            left -= len(chunk)
    return h.hexdigest()


class Manifest:
    """The manifest of one output folder; every method is thread-safe and saves at once."""

    def __init__(self, out_dir: Path):
        self.path = out_dir / FILE_NAME
        self._lock = threading.Lock()
        self.files: dict[str, Entry] = {}
        self.stems: dict[str, str] = {}
        self.load_error: str | None = None
        self._load()

    def _load(self) -> None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as e:
            self.load_error = f"cannot read {self.path} ({' '.join(str(e).split())[:200]}); " \
                              "starting a new one"
            return
        except RecursionError:
            self.load_error = f"{self.path} is nested too deeply to be a manifest; starting a new one"
            return
        files = data.get("files") if isinstance(data, dict) else None
        stems = data.get("stems") if isinstance(data, dict) else None
        if (not isinstance(data, dict) or data.get("version") != VERSION
                or not isinstance(files or {}, dict) or not isinstance(stems or {}, dict)):
            self.load_error = f"{self.path} is not a version {VERSION} manifest; starting a new one"
            return
        for sha, e in (files or {}).items():
            entry = _entry(e)
            if entry is not None:  # an entry of the wrong shape is forgotten: read again
                self.files[str(sha)] = entry
        self.stems = {k: v for k, v in (stems or {}).items()
                      if isinstance(k, str) and _safe_stem(v)}

    def lookup(self, sha: str) -> Entry | None:
        with self._lock:
            return self.files.get(sha)

    def stem_for(self, rel: str, natural: str) -> str:
        """The output folder name for the watched path ``rel`` (given out once, kept)."""
        with self._lock:
            stem = self.stems.get(rel)
            if stem:
                return stem
            taken = {s.casefold() for s in self.stems.values()}
            base = natural.strip().lstrip(".") or "document"
            stem, n = base, 1
            while stem.casefold() in taken:
                n += 1
                stem = f"{base}_{n}"
            self.stems[rel] = stem
            self._save()
            return stem

    def record(self, sha: str, entry: Entry) -> None:
        """Store the outcome for ``sha``; a ``done`` entry replaces older ones with its stem."""
        entry.finished = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with self._lock:
            if entry.status == DONE and entry.stem:
                for old in [s for s, e in self.files.items()
                            if e.stem == entry.stem and s != sha]:
                    del self.files[old]  # that output folder now holds other content
            self.files[sha] = entry
            self._save()

    def forget(self, sha: str) -> None:
        with self._lock:
            if self.files.pop(sha, None) is not None:
                self._save()

    def _save(self) -> None:
        data = {"version": VERSION, "files": {s: asdict(e) for s, e in self.files.items()},
                "stems": self.stems}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".mineru-tui-watch.", suffix=".tmp",
                                   dir=self.path.parent)
        try:
            os.chmod(tmp, 0o644 & ~_umask())
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, ensure_ascii=False, indent=1)
                f.write("\n")
            os.replace(tmp, self.path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise


_FIELD_TYPES = {"path": str, "status": str, "stem": str, "kind": str, "pages": int,
                "seconds": (int, float), "reason": str, "finished": str, "hint": str}


def _entry(data) -> Entry | None:
    """A manifest entry from its JSON, or None when it is not one (wrong type, unknown
    status, an output folder name that is not one plain name)."""
    if not isinstance(data, dict) or set(data) - set(_FIELD_TYPES) or "path" not in data:
        return None
    for key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, _FIELD_TYPES[key]):
            return None
    if data.get("status") not in KEPT:
        return None
    data = {**data, "status": Status(data["status"])}
    if data.get("stem") and not _safe_stem(data["stem"]):
        return None
    return Entry(**data)


def _safe_stem(stem) -> bool:
    """An output folder name that stays inside the output folder: one plain name."""
    return (isinstance(stem, str) and stem not in ("", ".", "..") and "/" not in stem
            and "\\" not in stem and "\x00" not in stem)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
