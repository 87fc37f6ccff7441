"""What the watch service reports, besides the job events of :mod:`mineru_tui.events`.

The service calls its listener with these and with the reader's own job events (FileStarted,
PageStarted, BlockTokens ... FileDone / FileFailed), from its own threads. The plain runner
prints them; the Textual app collects them and redraws a few times a second.
"""

from __future__ import annotations

from dataclasses import dataclass

from mineru_tui.watch.status import Status

# FileFinished.status values (the one vocabulary: mineru_tui.watch.status)
DONE, FAILED, SKIPPED = Status.DONE, Status.FAILED, Status.SKIPPED
NEEDS_MODEL, CANCELLED = Status.NEEDS_MODEL, Status.CANCELLED


@dataclass(frozen=True)
class Watching:
    """The service started: what it watches, where results go, native events or polling."""

    root: str
    output_dir: str
    mode: str  # native | polling
    engine: str  # the engine as chosen (auto, numpy ...)
    model: str  # the model as chosen ("" for the default)
    effort: str = ""  # low | default | high ... ("" when not given: the reader's default)


@dataclass(frozen=True)
class Notice:
    """Something the user should see once (a fallback to polling, a manifest problem...)."""

    text: str
    level: str = "information"  # information | warning | error | log | detail (Log tab only)


@dataclass(frozen=True)
class FileQueued:
    path: str
    lane: str  # office | pages
    why: str  # new | changed | resumes (interrupted, its journal has these bytes) | retry
    effort: str = ""  # the effort it is read at ("" = the reader's default)


@dataclass(frozen=True)
class FileFinished:
    """The watcher's verdict on a file, after its results are written and recorded."""

    path: str
    status: Status  # done | failed | skipped | needs-model | cancelled
    reason: str = ""  # why it failed / was skipped (one line, without what to do about it)
    output: str = ""  # the output folder (parse -o layout) when done
    kind: str = ""
    pages: int = 0
    seconds: float = 0.0
    note: str = ""  # e.g. "already read" for a file known from the manifest
    hint: str = ""  # what to do about it ("run `mineru-tui model fetch` once ..."), or ""


@dataclass(frozen=True)
class PauseChanged:
    paused: bool


@dataclass(frozen=True)
class EngineReady:
    """The page lane opened its engine (the model is loaded and kept)."""

    name: str
    model: str
