"""``mineru-tui watch --plain``: the watch service without the app, for servers.

One line per event on stderr (file and page level; tokens are not printed), nothing on
stdout. SIGTERM and Ctrl-C stop it cleanly: the page being read is cancelled between tokens,
finished files are kept, and the exit code is 0.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import TextIO

from mineru_tui import events as je
from mineru_tui.console import shown
from mineru_tui.watch import events as ev
from mineru_tui.watch.status import Status
from mineru_tui.watch.service import WatchConfig, WatchError, WatchService


def describe(event: object, root: str = "") -> str | None:
    """The line ``--plain`` prints for an event, or None for events it does not print."""
    text = _describe(event, root)
    return shown(text) if text is not None else None  # names: control characters escaped


def _describe(event: object, root: str = "") -> str | None:
    """The text of :func:`describe`, names unescaped."""

    def name(path: str) -> str:
        return os.path.relpath(path, root) if root and path.startswith(root) else path

    if isinstance(event, ev.Watching):
        return (f"watching {event.root} ({event.mode} events); results in {event.output_dir}; "
                f"engine {event.engine}{' model ' + event.model if event.model else ''}")
    if isinstance(event, ev.Notice) and event.level == "detail":
        return None  # the app's Log tab keeps it; the "model needed" line says what to do
    if isinstance(event, ev.Notice):
        return f"{'note' if event.level in ('information', 'log') else event.level}: {event.text}"
    if isinstance(event, ev.FileQueued):
        return f"queued: {name(event.path)} ({event.lane}, {event.why})"
    if isinstance(event, je.FileStarted):
        return f"reading: {name(event.path)} ({event.kind})"
    if isinstance(event, je.PagesResumed):  # pages kept from the journal, or why not
        return f"note: {name(event.path)}: {event.note}"
    if isinstance(event, je.PageDone) and (event.pages > 1 or event.markdown == ""):
        empty = ", empty" if event.markdown == "" else ""  # the reason follows in a warning
        return (f"page {event.page + 1}/{event.pages}: {name(event.path)} "
                f"({event.seconds:.2f} s{empty})")
    if isinstance(event, je.OutputWriting) and event.pages > 1:
        return f"writing: {name(event.path)} (the output set of {event.pages} pages)"
    if isinstance(event, je.FileDone) and event.warnings:  # before its "done:" line
        return f"warning: {name(event.path)}: {'; '.join(event.warnings)}"
    if isinstance(event, ev.EngineReady):
        return f"engine: {event.name} model {event.model} (loaded, kept for every page)"
    if isinstance(event, ev.PauseChanged):
        return "paused" if event.paused else "resumed"
    if isinstance(event, ev.FileFinished):
        if event.status == ev.DONE:
            facts = [f"{event.pages} page{'s' * (event.pages != 1)}"]
            if event.note:
                facts.append(event.note)
            else:
                facts.append(f"{event.seconds:.2f} s")
            return f"done: {name(event.path)} ({', '.join(facts)}) -> {event.output}{os.sep}"
        words = "; ".join(w for w in (event.reason, event.hint) if w)
        return (f"{Status(event.status).label}: {name(event.path)}"
                + (f": {words}" if words else ""))
    return None


def run_plain(config: WatchConfig, stderr: TextIO | None = None) -> int:
    """Watch until SIGTERM/SIGINT; return the exit code (0, or 1 when it cannot start)."""
    out = stderr or sys.stderr
    lock = threading.Lock()
    root = [""]

    def listener(event: object) -> None:
        line = describe(event, root[0])
        if line is not None:
            with lock:
                print(line, file=out, flush=True)

    stop = threading.Event()

    def on_signal(signum, frame) -> None:
        stop.set()

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    service = WatchService(config, listener)
    root[0] = str(service.root) + os.sep
    try:
        try:
            service.start()
        except WatchError as e:
            print(f"error: {e}", file=out, flush=True)
            return 1
        while not stop.wait(0.5):
            pass
        print("stopping: the file being read is cancelled; finished files are kept",
              file=out, flush=True)
        service.stop()
        print("stopped", file=out, flush=True)
        return 0
    finally:
        for s, h in old.items():
            signal.signal(s, h)
