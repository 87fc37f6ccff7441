"""The watch service: observer -> settle -> manifest -> lanes -> events.

    service = WatchService(WatchConfig(Path("~/Scans").expanduser()), listener=print)
    service.start()      # watches, queues the files already there, reads in the background
    ...
    service.stop()       # cancels the page being read (between tokens), keeps finished files

``listener`` is called from the service's threads with the events of
:mod:`mineru_tui.watch.events` and the reader's job events (:mod:`mineru_tui.events`). Both
``watch --plain`` and the Textual app are listeners; neither reads files itself.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mineru_tui.watch import events as ev
from mineru_tui.watch.ignore import is_ignored
from mineru_tui.watch.lanes import Lane, Task
from mineru_tui.watch.manifest import (
    DONE,
    FAILED,
    NEEDS_MODEL,
    Entry,
    Manifest,
    file_hash,
)
from mineru_tui.model_needed import reason_and_hint
from mineru_tui.watch.settle import Settler
from mineru_tui.watch.worker import Result, Setup

OFFICE, PAGES = "office", "pages"


def uses_server(engine: dict | None) -> bool:
    """Whether pages are read by a server (``--engine http`` / ``--server-url``)."""
    fields = engine or {}
    return fields.get("engine") == "http" or bool(fields.get("server_urls"))


def hint_for(engine: dict | None, *, kind: str = "", text_layer: bool = False) -> str:
    """What to do when the engine cannot be opened: get the model, or reach the server."""
    return reason_and_hint("", kind=kind, text_layer=text_layer, server=uses_server(engine),
                           model=(engine or {}).get("model"))[1]


def default_output_dir(root: Path) -> Path:
    """Results go beside the watched folder, never inside it: ``~/Scans`` -> ``~/Scans-mineru``."""
    return root.parent / f"{root.name or 'root'}-mineru"


@dataclass
class WatchConfig:
    """What to watch and how (the ``watch`` command's options)."""

    root: Path
    output_dir: Path | None = None  # None: default_output_dir(root)
    poll: bool = False
    engine: dict[str, Any] | None = None  # EngineOptions fields ({"engine": "numpy", "model": DIR})
    reading: dict[str, Any] | None = None  # ConvertOptions fields: mode, effort, extra...
    converter: str = "mineru_tui.convert:convert"
    office_converter: str | None = None  # None: the same as converter
    quiet: float = 1.0  # seconds without events before a file is looked at
    interval: float = 0.5  # seconds between the two size/mtime looks
    rescan: float = 60.0  # seconds between full rescans (events lost, observer died)
    native_factory: Callable | None = field(default=None, repr=False)  # tests: a failing observer

    def resolved(self) -> WatchConfig:
        root = self.root.expanduser().resolve()
        out = (self.output_dir.expanduser().resolve() if self.output_dir
               else default_output_dir(root))
        return replace(self, root=root, output_dir=out)


class WatchError(Exception):
    """The service cannot start (folder missing, output folder not writable): one line."""


class WatchService:
    """Watches ``config.root`` and reads every complete document that appears in it."""

    def __init__(self, config: WatchConfig, listener: Callable[[object], None]):
        self.config = config.resolved()
        self.root: Path = self.config.root
        self.out_dir: Path = self.config.output_dir  # type: ignore[assignment]
        self.listener = listener
        self.gate = threading.Event()
        self.gate.set()
        self.mode = ""
        self._lock = threading.Lock()
        self._active: dict[str, str] = {}  # path -> lane, queued or being read
        self._dirty: set[str] = set()  # changed while queued or read: look again after
        self._seen: dict[str, tuple[int, int]] = {}  # path -> (size, mtime_ns) when considered
        self._stop = threading.Event()
        self.settler = Settler(self._on_ready, quiet=self.config.quiet,
                               interval=self.config.interval, on_error=self._log,
                               on_refused=self._refused)
        engine = self.config.engine
        page_setup = Setup(self.config.converter, engine, self.config.reading)
        office_setup = Setup(self.config.office_converter or self.config.converter, engine,
                             self.config.reading)
        self.lanes = {
            OFFICE: Lane(OFFICE, office_setup, str(self.out_dir), self.gate, self._emit,
                         self._on_result, self._log),
            PAGES: Lane(PAGES, page_setup, str(self.out_dir), self.gate, self._emit,
                        self._on_result, self._log),
        }
        self.manifest: Manifest | None = None
        self._observer = None
        self._rescanner: threading.Thread | None = None

    # -- life cycle ---------------------------------------------------------------------------
    def start(self) -> None:
        """Check the folders, start the observer, then queue what is already there."""
        if not self.root.is_dir():
            raise WatchError(f"{self.root}: not a folder")
        if self.out_dir == self.root or self.out_dir in self.root.parents:
            raise WatchError(f"the output folder {self.out_dir} contains the watched folder; "
                             f"choose another --output-dir")
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise WatchError(f"cannot create the output folder {self.out_dir}: "
                             f"{e.strerror or e} (choose another with --output-dir)") from None
        self.manifest = Manifest(self.out_dir)
        from mineru_tui.watch.observer import start_observer

        self._observer, self.mode = start_observer(
            self.root, self.settler.touch, self._scan_dir, poll=self.config.poll,
            notice=lambda text: self._emit(ev.Notice(text, "warning")), on_error=self._log,
            native_factory=self.config.native_factory)
        eng = self.config.engine or {}
        self._emit(ev.Watching(str(self.root), str(self.out_dir), self.mode,
                               eng.get("engine") or "auto", eng.get("model") or "",
                               (self.config.reading or {}).get("effort") or ""))
        if self.manifest.load_error:
            self._emit(ev.Notice(self.manifest.load_error, "warning"))
        self.settler.start()
        for lane in self.lanes.values():
            lane.start()
        self._scan_dir(self.root)  # after the observer: nothing falls between the two
        self._rescanner = threading.Thread(target=self._supervise, name="mineru-rescan",
                                           daemon=True)
        self._rescanner.start()

    def stop(self) -> None:
        """Stop watching; the file being read is cancelled between tokens, finished ones kept."""
        self._stop.set()
        if self._observer is not None:
            try:
                self._observer.stop()
                self._observer.join(timeout=5)
            except Exception:
                pass
        self.settler.stop()
        threads = [threading.Thread(target=lane.stop) for lane in self.lanes.values()]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    # -- user actions (any thread) ------------------------------------------------------------
    @property
    def paused(self) -> bool:
        return not self.gate.is_set()

    def set_paused(self, paused: bool) -> None:
        """Pause or resume the queue (the file being read finishes)."""
        if paused:
            self.gate.clear()
        else:
            self.gate.set()
        for lane in self.lanes.values():
            lane.wake()
        self._emit(ev.PauseChanged(paused))

    def cancel_current(self) -> bool:
        """Cancel the file(s) being read now; True when something was running."""
        asked = [lane.cancel_current() for lane in self.lanes.values()]  # every lane, no short cut
        return any(asked)

    def requeue(self, path: str | Path, effort: str = "") -> None:
        """Read ``path`` again even if the manifest says it is done or failed (the ``r`` key);
        ``effort`` reads it at that effort this once (``l``: the PDF's own text, no model)."""
        threading.Thread(target=self._consider, args=(Path(path), "retry", effort),
                         daemon=True).start()

    # -- discovery ---------------------------------------------------------------------------
    def _scan_dir(self, top: Path) -> None:
        """Touch every file under ``top`` that is new or changed since it was last considered."""
        for dirpath, dirnames, filenames in os.walk(top):
            here = Path(dirpath)
            dirnames[:] = sorted(d for d in dirnames
                                 if not is_ignored(here / d, self.root, self.out_dir))
            for name in sorted(filenames):
                path = here / name
                if is_ignored(path, self.root, self.out_dir):
                    continue
                try:
                    st = path.stat()
                except OSError:
                    continue
                if self._seen.get(str(path)) != (st.st_size, st.st_mtime_ns):
                    self.settler.touch(path)

    def _supervise(self) -> None:
        while not self._stop.wait(self.config.rescan):
            obs = self._observer
            if obs is not None and not obs.is_alive() and not self._stop.is_set():
                self._emit(ev.Notice("the file watcher stopped; restarting it with polling",
                                     "warning"))
                from mineru_tui.watch.observer import start_observer
                try:
                    self._observer, self.mode = start_observer(
                        self.root, self.settler.touch, self._scan_dir, poll=True,
                        on_error=self._log)
                except OSError as e:
                    self._emit(ev.Notice(f"cannot watch {self.root}: {e.strerror or e}; "
                                         f"retrying", "error"))
            if self.root.is_dir():
                self._scan_dir(self.root)

    def _refused(self, path: Path, reason: str, unreadable: bool) -> None:
        """A file the settler cannot read (mode 000) or that is no file (a FIFO): one line."""
        if not is_ignored(path, self.root, self.out_dir):
            self._emit(ev.FileFinished(str(path), ev.FAILED if unreadable else ev.SKIPPED, reason))

    def _on_ready(self, path: Path) -> None:
        if not is_ignored(path, self.root, self.out_dir):
            self._consider(path, "new")

    def _consider(self, path: Path, why: str, effort: str = "") -> None:
        """A complete file: known from the manifest, not a document, or queued in a lane."""
        key = str(path)
        force = why == "retry"
        with self._lock:
            if key in self._active:
                self._dirty.add(key)
                return
        try:
            st = path.stat()
        except OSError as e:
            if path.exists():
                self._emit(ev.FileFinished(key, ev.FAILED, f"cannot read: {e.strerror or e}"))
            return
        if not stat.S_ISREG(st.st_mode):  # a FIFO put in its place: opening it would block
            self._emit(ev.FileFinished(key, ev.SKIPPED, "not a regular file (a FIFO, socket or device)"))
            return
        self._seen[key] = (st.st_size, st.st_mtime_ns)
        rel = path.relative_to(self.root).as_posix()
        # what the file is, from its first bytes, before it is hashed to its end: a file
        # that is not a document (or no regular file) is never read whole
        lane = self._lane_for(path, key, None, rel)
        if lane is None:
            return
        try:
            sha = file_hash(path)
        except OSError as e:
            if path.exists():
                self._emit(ev.FileFinished(key, ev.FAILED, f"cannot read: {e.strerror or e}"))
            return
        assert self.manifest is not None
        entry = self.manifest.lookup(sha)
        if entry is not None and not force:
            if entry.status == DONE and (self.out_dir / entry.stem).is_dir():
                note = ("already read" if entry.path == rel
                        else f"same content as {entry.path}: already read")
                self._emit(ev.FileFinished(key, ev.DONE, output=str(self.out_dir / entry.stem),
                                           kind=entry.kind, pages=entry.pages,
                                           seconds=entry.seconds, note=note))
                return
            if entry.status in (FAILED, NEEDS_MODEL):
                self._emit(ev.FileFinished(key, entry.status, entry.reason, kind=entry.kind,
                                           note="failed before: read again when it changes, "
                                                "or press r", hint=entry.hint))
                return
        if why == "new" and rel in self.manifest.stems:
            # interrupted mid-read: its journal holds these very bytes, so it resumes
            why = "resumes" if _journal_sha(self.out_dir, self.manifest.stems[rel]) == sha \
                else "changed"
        if isinstance(lane, tuple):  # detection refused it: recorded now that its hash is known
            self._fail(key, sha, rel, lane[1])
            return
        from mineru_tui.output import output_stem
        stem = self.manifest.stem_for(rel, output_stem(path)[0])
        with self._lock:
            if key in self._active:
                self._dirty.add(key)
                return
            self._active[key] = lane
        self._emit(ev.FileQueued(key, lane, why,
                                 effort or (self.config.reading or {}).get("effort") or ""))
        self.lanes[lane].submit(Task(key, stem, sha, why, effort))

    def _lane_for(self, path: Path, key: str, sha: str | None, rel: str) -> str | tuple | None:
        """The lane for a document; ``("failed", reason)`` for a document that cannot be read
        (recorded in the manifest by the caller, once the file is hashed); None after
        reporting a file that is not a document."""
        from mineru_tui.detect import OFFICE_KINDS, detect, is_reported
        from mineru_tui.errors import InputError

        try:
            det = detect(path)
        except InputError as e:
            if is_reported(path, e):
                return ("failed", str(e))
            else:
                self._emit(ev.FileFinished(key, ev.SKIPPED, f"not a document ({e})"))
            return None
        return OFFICE if det.kind in OFFICE_KINDS else PAGES

    def _fail(self, key: str, sha: str, rel: str, reason: str) -> None:
        assert self.manifest is not None
        self.manifest.record(sha, Entry(rel, FAILED, reason=reason))
        self._emit(ev.FileFinished(key, ev.FAILED, reason))

    # -- results --------------------------------------------------------------------------------
    def _on_result(self, task: Task, result: Result) -> None:
        rel = Path(task.path).relative_to(self.root).as_posix()
        assert self.manifest is not None
        reason, hint = result.reason, ""
        if result.status == DONE:
            stem = Path(result.output).name  # the writer may have chosen <stem>_2 (notes say why)
            self.manifest.record(task.sha, Entry(rel, DONE, stem, result.kind, result.pages,
                                                 round(result.seconds, 3)))
            for note in result.notes:
                self._emit(ev.Notice(f"{rel}: {note}", "information"))
        elif result.status in (FAILED, NEEDS_MODEL):
            if result.status == NEEDS_MODEL:
                eng = self.config.engine or {}
                reason, hint = reason_and_hint(result.reason, kind=result.kind,
                                               text_layer=result.text_layer,
                                               server=uses_server(eng), model=eng.get("model"))
                if reason != result.reason:  # the engine's own words: the Log tab's detail
                    self._emit(ev.Notice(f"{rel}: {result.reason}", "detail"))
            self.manifest.record(task.sha, Entry(rel, result.status, kind=result.kind,
                                                 reason=reason, hint=hint,
                                                 seconds=round(result.seconds, 3)))
        with self._lock:
            self._active.pop(task.path, None)
            again = task.path in self._dirty
            self._dirty.discard(task.path)
        self._emit(ev.FileFinished(task.path, result.status, reason, result.output, result.kind,
                                   result.pages, result.seconds, hint=hint))
        if again and not self._stop.is_set():
            self.settler.touch(Path(task.path))

    # -- plumbing ---------------------------------------------------------------------------------
    def _emit(self, event: object) -> None:
        try:
            self.listener(event)
        except Exception as e:  # a broken listener must not stop the readers
            self._log(f"listener: {type(e).__name__}: {e}")

    def _log(self, line: str) -> None:
        try:
            self.listener(ev.Notice(line, "log"))
        except Exception:
            pass


def _journal_sha(out_dir: Path, stem: str) -> str | None:
    """The SHA-256 a page journal left for ``stem`` was started for (None without one)."""
    from mineru_tui.output import journal_path

    try:
        with open(journal_path(out_dir, stem), encoding="utf-8") as f:
            header = json.loads(f.readline(1 << 16))
    except (OSError, ValueError):
        return None
    return header.get("sha256") if isinstance(header, dict) else None
