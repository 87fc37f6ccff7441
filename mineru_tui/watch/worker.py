"""The reader process: runs ``convert()`` for one lane and streams its events back.

Started by :class:`mineru_tui.watch.lanes.Lane` as ``python -m mineru_tui.watch.worker``.
Conversions run here, not in the app's process, so an engine that holds the GIL for a whole
forward pass (Core ML's ``predict`` does) cannot stall the user interface; the model is
loaded once per process and kept.

Protocol (pickled tuples): stdin brings ``("setup", Setup)`` first, then ``("job", Job)``,
``("cancel", job_id)`` and ``("quit",)``; the protocol stream (the original stdout) carries
``("event", job_event)``, ``("engine", name, model)`` and ``("result", job_id, Result)``.
The process's own stdout is pointed at stderr, so nothing a library prints can corrupt it.
"""

from __future__ import annotations

import importlib
import os
import pickle
import queue
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mineru_tui.watch.status import Status


@dataclass(frozen=True)
class Setup:
    """How the process reads: the ``convert`` to call and the engine to open (lazily)."""

    converter: str = "mineru_tui.convert:convert"  # "module:function" (tests use doubles)
    engine: dict[str, Any] | None = None  # EngineOptions fields (built here: no numpy upstairs)
    reading: dict[str, Any] | None = None  # other ConvertOptions fields: mode, effort, extra...


@dataclass(frozen=True)
class Job:
    id: int
    path: str
    out_dir: str
    stem: str
    effort: str = ""  # this file only (the app's "read at effort low"); "" = the watch's
    mineru_format: str = "both"  # which MinerU output set(s): "3", "4" or "both"


@dataclass(frozen=True)
class Result:
    status: Status  # done | failed | needs-model | cancelled
    kind: str = ""
    pages: int = 0
    seconds: float = 0.0
    reason: str = ""
    output: str = ""
    warnings: tuple[str, ...] = field(default_factory=tuple)
    notes: tuple[str, ...] = field(default_factory=tuple)  # why the folder name differs
    text_layer: bool = False  # needs-model: the PDF's own text is usable (effort low reads it)


def load_callable(spec: str):
    """``"package.module:function"`` -> the function."""
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when we stop
    proto = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    inp = sys.stdin.buffer
    send_lock = threading.Lock()

    def send(msg) -> None:
        with send_lock:
            pickle.dump(msg, proto, protocol=pickle.HIGHEST_PROTOCOL)
            proto.flush()

    first = pickle.load(inp)
    setup: Setup = first[1]
    jobs: queue.Queue[Job | None] = queue.Queue()
    cancel = threading.Event()
    current = [-1]

    def control() -> None:
        while True:
            try:
                msg = pickle.load(inp)
            except (EOFError, OSError, pickle.UnpicklingError):
                msg = ("quit",)
            if msg[0] == "job":
                jobs.put(msg[1])
            elif msg[0] == "cancel" and msg[1] == current[0]:
                cancel.set()
            elif msg[0] == "quit":
                cancel.set()
                jobs.put(None)
                return

    threading.Thread(target=control, name="mineru-worker-control", daemon=True).start()
    from mineru_tui.convert import ConvertOptions

    convert = load_callable(setup.converter)
    engine = _make_engine(setup.engine)
    options = ConvertOptions(engine=engine, page_markdown=True, **(setup.reading or {}))
    announced = False
    while (job := jobs.get()) is not None:
        cancel.clear()
        current[0] = job.id
        job_options = replace(options, effort=job.effort) if job.effort else options
        result = _run(job, convert, job_options, cancel, lambda ev: send(("event", ev)))
        current[0] = -1
        if not announced and engine is not None and getattr(engine, "opened", False):
            announced = True
            send(("engine", engine.name, engine.model_id))
        send(("result", job.id, result))
    if engine is not None:
        engine.close()


def _make_engine(fields: dict[str, Any] | None):
    from mineru_tui.engines import EngineOptions, LazyEngine

    # LazyEngine.open_error says why it could not open (no model, no server), so a file failing
    # for that reason is shown as "model needed", not as a broken file.
    return LazyEngine(EngineOptions(**(fields or {})))


def _kept(interrupted: BaseException) -> str:
    """The reason of a cancelled file: with the pages kept for the next run, if any."""
    doc = getattr(interrupted, "document", None)
    n = sum(1 for page in doc.pages if "error" not in page.extra) if doc is not None else 0
    if not n:
        return "cancelled"
    return f"cancelled ({n} page{'s' if n != 1 else ''} kept: the next run resumes after them)"


def _run(job: Job, convert, options, cancel: threading.Event, emit) -> Result:
    from mineru_tui.errors import ConvertError, internal_error
    from mineru_tui.events import FileStarted

    kinds: list[str] = []

    def on_event(ev) -> None:
        if isinstance(ev, FileStarted):
            kinds.append(ev.kind)
        emit(ev)

    if hasattr(options.engine, "open_error"):
        options.engine.open_error = None  # this file's own outcome only
    from dataclasses import replace

    from mineru_tui.output import journal_path

    # finished pages are kept beside the set: a cancel, quit, kill or power cut loses none
    options = replace(options, journal=journal_path(Path(job.out_dir), job.stem))
    t0 = time.perf_counter()
    try:
        doc = convert(Path(job.path), options, on_event=on_event, cancel=cancel)
    except KeyboardInterrupt as e:  # the page reader's PagesInterrupted (SIGINT is ignored here)
        return Result(Status.CANCELLED, kinds[0] if kinds else "", reason=_kept(e))
    except ConvertError as e:
        kind = kinds[0] if kinds else ""
        if cancel.is_set():
            return Result(Status.CANCELLED, kind, reason="cancelled")
        no_engine = getattr(options.engine, "open_error", None) is not None
        status = Status.NEEDS_MODEL if no_engine or e.needs_model else Status.FAILED
        text_layer = False
        if status == Status.NEEDS_MODEL and kind == "pdf":  # here: this process owns PDFium
            from mineru_tui.model_needed import text_layer_usable
            text_layer = text_layer_usable(job.path)
        return Result(status, kind, reason=e.reason, seconds=time.perf_counter() - t0,
                      text_layer=text_layer)
    except Exception as e:  # a converter that breaks its contract: still one line
        return Result(Status.FAILED, kinds[0] if kinds else "",
                      reason=internal_error("the converter", e),
                      seconds=time.perf_counter() - t0)
    kind = kinds[0] if kinds else ""
    if cancel.is_set():
        return Result(Status.CANCELLED, kind, reason="cancelled")
    for event in settled_pages(job.path, doc):
        emit(event)
    try:
        from mineru_tui.events import OutputWriting
        from mineru_tui.output import write_outputs
        emit(OutputWriting(job.path, len(doc.pages)))
        written = write_outputs(doc, Path(job.out_dir), job.stem, source=Path(job.path),
                                mineru_format=job.mineru_format)
    except OSError as e:
        return Result(Status.FAILED, kind, reason=f"cannot write {Path(job.out_dir) / job.stem}: "
                                             f"{e.strerror or e}")
    except Exception as e:
        traceback.print_exc()
        return Result(Status.FAILED, kind, reason=internal_error("the output writer", e))
    return Result(Status.DONE, kind, len(doc.pages), time.perf_counter() - t0,
                  output=str(written.path), warnings=tuple(doc.warnings),
                  notes=tuple(written.notes))


def settled_pages(path: str, doc) -> list:
    """A ``PageSettled`` for each page read from the PDF's own text: its blocks as
    ``_middle.json`` keeps them, after the cross-page merges and furniture (the app showed
    them as each page was read; the restore after a restart reads them from the set)."""
    from mineru_tui.document.page_blocks import page_blocks
    from mineru_tui.document.middle_json import to_middle_json
    from mineru_tui.events import BlockInfo, PageSettled
    from mineru_tui.reader.assemble import one_page

    out = []
    for page in doc.pages:
        if page.extra.get("mode") != "text-layer" and page.extra.get("fallback") != "text_layer":
            continue
        blocks = page_blocks(to_middle_json(one_page(doc, page))["pdf_info"][0])
        out.append(PageSettled(str(path), page.page_idx,
                               tuple(BlockInfo(i, kind, bbox, source="text_layer")
                                     for i, (kind, bbox, _) in enumerate(blocks)),
                               tuple(text for _, _, text in blocks)))
    return out


if __name__ == "__main__":
    # Run the module under its real name, so the pickled Job/Result classes are the ones
    # the parent knows (not copies in __main__).
    from mineru_tui.watch import worker as _worker

    _worker.main()
