"""The ``parse`` job: gather inputs, read each, write or print the results, report.

Kept apart from the Typer wiring in :mod:`mineru_tui.cli` so it can be driven (and
tested) with plain arguments and streams. Nothing here imports a reader until a file of
its kind comes up, and nothing imports Textual.

Rules the CLI documents:

* stdout carries results only; progress, notes, warnings and errors go to stderr;
* a batch goes on past a failing file, and every failure is named at the end as
  ``error: PATH: REASON``; the return code is 0 (all ok), 1 (some input failed),
  130 (interrupted) or 143 (terminated);
* folders are walked recursively in sorted order; hidden entries, Office lock files
  (``~$...``) and files that are not documents are skipped quietly; PDFs and images are
  read with the page reader like any other document;
* Ctrl-C first asks the page reader to stop between two tokens (a second Ctrl-C stops at
  once); with ``-o`` the pages of the interrupted file finished so far are written.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from mineru_tui.detect import (DEFAULT_LIMITS, Detected, RecognisedError, ZipLimits,
                               detect)
from mineru_tui.console import one_line
from mineru_tui.errors import InputError

# Names that mark a file as meant to be a document, so that a broken one found in a folder
# is reported rather than skipped. Only a hint for reporting: the type comes from the bytes.
_DOC_SUFFIXES = {".docx", ".docm", ".dotx", ".dotm", ".pptx", ".pptm", ".ppsx", ".ppsm",
                 ".potx", ".potm", ".xlsx", ".xlsm", ".xltx", ".xltm", ".xlsb", ".doc",
                 ".dot", ".xls", ".xlt", ".ppt", ".pps", ".pot", ".pdf", ".png", ".jpg",
                 ".jpeg", ".tif", ".tiff", ".webp", ".bmp", ".odt", ".ods", ".odp", ".rtf"}

BUG_HINT = ("this is a bug in mineru-tui, please report it with the file if you can "
            "(rerun with --debug for the traceback)")


class Terminated(BaseException):
    """Raised from the SIGTERM handler so the batch can clean up like on Ctrl-C."""


@dataclass
class Item:
    """One input file: where it is, how to name it to the user, what it was found to be."""

    path: Path
    display: str
    detected: Detected | None = None
    error: str | None = None  # a failure known before reading (missing, empty folder...)


@dataclass
class Options:
    out_dir: Path | None = None
    fmt: str = "md"  # stdout format: "md" or "json"
    verbose: bool = False
    quiet: bool = False
    debug: bool = False
    progress: bool = False  # per-file lines on stderr
    limits: ZipLimits = DEFAULT_LIMITS
    reading: Any = None  # ConvertOptions for every file (engine, mode, pages...); None: defaults
    live: bool = False  # draw the page reader's progress line (stderr is a terminal)


@dataclass
class Report:
    ok: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)


def gather(args: list[Path], opts: Options, note) -> list[Item]:
    """Expand the command-line paths into items, in order, each file once."""
    items: list[Item] = []
    seen: set[Path] = set()
    skip_dir = opts.out_dir.resolve() if opts.out_dir else None

    def add(item: Item) -> None:
        key = _key(item.path)
        if key not in seen:
            seen.add(key)
            items.append(item)

    for arg in args:
        if not arg.is_dir():
            add(Item(arg, str(arg)))
            continue
        found = _walk(arg, opts, skip_dir)
        if not found:
            items.append(Item(arg, str(arg), error="no documents found (.docx, .pptx, .xlsx, "
                                                   ".pdf, images) in this folder"))
        for item in found:
            add(item)
    return items


def _key(p: Path) -> Path:
    try:
        return p.resolve()
    except OSError:
        return p.absolute()


def _walk(root: Path, opts: Options, skip_dir: Path | None) -> list[Item]:
    files: list[tuple[tuple[str, ...], Path]] = []
    unreadable: list[Item] = []

    def on_error(e: OSError) -> None:
        where = Path(e.filename) if e.filename else root
        unreadable.append(Item(where, str(where), error=f"cannot read folder: "
                                                      f"{e.strerror or e}"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=on_error):
        here = Path(dirpath)
        dirnames[:] = [d for d in dirnames if not d.startswith(".")
                       and (skip_dir is None or _key(here / d) != skip_dir)]
        for name in filenames:
            if name.startswith(".") or name.startswith("~$"):
                continue
            path = here / name
            files.append((path.relative_to(root).parts, path))
    files.sort()
    found: list[Item] = []
    for _, path in files:
        try:
            det = detect(path, opts.limits)
        except RecognisedError as e:
            found.append(Item(path, str(path), error=str(e)))
            continue
        except InputError as e:
            if path.suffix.lower() in _DOC_SUFFIXES:
                found.append(Item(path, str(path), error=str(e)))
            continue
        found.append(Item(path, str(path), detected=det))
    return unreadable + found


def run(args: list[Path], opts: Options, stdout: TextIO | None = None,
        stderr: TextIO | None = None) -> int:
    """Parse every input; return the exit code."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr

    def err(line: str) -> None:
        print(line, file=stderr, flush=True)

    report = Report()
    items: list[Item] = []
    live = _Live(stderr if opts.live else None)
    try:
        with _interrupts(live):
            return _run(args, opts, stdout, err, report, items, live)
    finally:
        engine = getattr(opts.reading, "engine", None)
        if engine is not None:
            engine.close()


def _run(args, opts: Options, stdout, err, report: Report, items: list[Item], live) -> int:
    try:
        items[:] = gather(args, opts, err)
        single = len(args) == 1 and len(items) == 1 and not args[0].is_dir()
        stems = None
        if opts.out_dir is not None:
            from mineru_tui.output import assign_stems
            stems = assign_stems([i.path for i in items])
        json_entries: list[dict] = []
        first_md = True
        for n, item in enumerate(items):
            prefix = f"[{n + 1}/{len(items)}] " if len(items) > 1 else ""
            t0 = time.perf_counter()
            try:
                doc, kind = _read(item, opts, live)
                dt = time.perf_counter() - t0
                where = ""
                if opts.out_dir is not None:
                    assert stems is not None
                    final = _guard(lambda: _write(doc, opts.out_dir, stems[n]),
                                   "the output writer")
                    where = f" -> {final}{os.sep}"
                    natural = item.path.stem if item.path.suffix else item.path.name
                    if stems[n] != natural.strip() and not opts.quiet:
                        err(f"note: {item.display}: written to {final}{os.sep} "
                            f"(the name {natural!r} is taken in this batch)")
                elif opts.fmt == "json":
                    from mineru_tui.output import content_list_for_stdout, dumps_json
                    content = _guard(lambda: content_list_for_stdout(doc), "the renderer")
                    if single:
                        stdout.write(dumps_json(content))
                    else:
                        json_entries.append({"file": item.display, "content_list": content})
                else:
                    from mineru_tui.output import markdown_for_stdout
                    md = _guard(lambda: markdown_for_stdout(doc), "the renderer")
                    if not single:
                        if not first_md:
                            stdout.write("\n")
                        stdout.write(f"<!-- mineru-tui: {_comment_safe(item.display)} -->\n\n")
                        first_md = False
                    stdout.write(md)
                    stdout.flush()
            except (KeyboardInterrupt, Terminated) as e:
                _keep_finished_pages(e, item, opts, stems, n, err)
                raise
            except _Failure as f:
                report.failures.append((item.display, f.reason))
                if opts.progress:
                    err(f"{prefix}{item.display}: failed")
                if f.trace and (opts.debug or opts.verbose):
                    err(f.trace.rstrip())
                if opts.fmt == "json" and opts.out_dir is None and not single:
                    json_entries.append({"file": item.display, "error": f.reason})
                continue
            report.ok += 1
            if opts.progress:
                facts = [f"{len(doc.pages)} {_unit(kind)}{'s' * (len(doc.pages) != 1)}"]
                if doc.images:
                    facts.append(f"{len(doc.images)} image{'s' * (len(doc.images) != 1)}"
                                 + ("" if opts.out_dir else " not written (use -o DIR)"))
                if doc.warnings and not opts.verbose:
                    facts.append(f"{len(doc.warnings)} warning"
                                 f"{'s' * (len(doc.warnings) != 1)} (-v lists them)")
                facts.append(f"{dt:.2f} s")
                err(f"{prefix}{item.display}: ok ({', '.join(facts)}){where}")
            if opts.verbose:
                for w in doc.warnings:
                    err(f"warning: {item.display}: {w}")
        if opts.fmt == "json" and opts.out_dir is None and not single:
            from mineru_tui.output import dumps_json
            stdout.write(dumps_json(json_entries))
            stdout.flush()
    except KeyboardInterrupt:
        _finish(report, opts, err, len(items), interrupted="interrupted")
        return 130
    except Terminated:
        _finish(report, opts, err, len(items), interrupted="terminated")
        return 143
    _finish(report, opts, err, len(items))
    return 1 if report.failures else 0


class _Failure(Exception):
    def __init__(self, reason: str, trace: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.trace = trace


def _read(item: Item, opts: Options, live=None):
    """Convert one item; every failure becomes a :class:`_Failure` with one line."""
    from dataclasses import replace

    from mineru_tui.convert import ConvertError, ConvertOptions, convert
    from mineru_tui.events import FileStarted

    if item.error:
        raise _Failure(item.error)
    kinds: list[str] = []

    def on_event(event) -> None:
        if isinstance(event, FileStarted):
            kinds.append(event.kind)
        if live is not None:
            live(event)

    options = replace(opts.reading, limits=opts.limits) if opts.reading else ConvertOptions(limits=opts.limits)
    try:
        doc = convert(item.path, options, detected=item.detected, on_event=on_event,
                      cancel=live.cancel if live is not None else None)
    except ConvertError as e:
        raise _Failure(e.reason, e.trace) from None
    finally:
        if live is not None:
            live.done()
    return doc, kinds[0]


class _Live:
    """The page reader's side of a run: its progress line (on a terminal) and the cancel flag
    the first Ctrl-C sets while a PDF or image is being read."""

    def __init__(self, err: TextIO | None):
        import threading

        self.cancel = threading.Event()
        self.reading_pages = False
        self.line = None
        if err is not None:
            from mineru_tui.pages.progress import ProgressLine
            self.line = ProgressLine(err)

    def __call__(self, event) -> None:
        from mineru_tui.events import FileStarted

        if isinstance(event, FileStarted):
            self.reading_pages = event.kind in ("pdf", "image")
        if self.line is not None:
            self.line(event)

    def done(self) -> None:
        self.reading_pages = False
        if self.line is not None:
            self.line.clear()


class _interrupts:
    """Ctrl-C while pages are read sets the cancel flag (the reader stops between tokens and
    keeps its finished pages); otherwise, or pressed again, it interrupts at once."""

    def __init__(self, live: _Live):
        self.live = live
        self.previous = None

    def _handler(self, signum, frame):
        if self.live.reading_pages and not self.live.cancel.is_set():
            self.live.cancel.set()
            return
        raise KeyboardInterrupt

    def __enter__(self):
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc):
        import signal

        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
        return False


def _keep_finished_pages(e: BaseException, item: Item, opts: Options, stems, n: int, err) -> None:
    """On an interrupted PDF/image with -o, write the pages finished so far."""
    partial = getattr(e, "document", None)
    if partial is None or not partial.pages or opts.out_dir is None or stems is None:
        return
    try:
        final = _write(partial, opts.out_dir, stems[n])
    except _Failure as f:
        err(f"error: {item.display}: {f.reason}")
        return
    err(f"note: {item.display}: interrupted; the {len(partial.pages)} finished "
        f"page{'s' * (len(partial.pages) != 1)} written to {final}{os.sep}")


def _write(doc, out_dir: Path, stem: str) -> Path:
    from mineru_tui.output import write_outputs
    try:
        return write_outputs(doc, out_dir, stem)
    except OSError as e:
        raise _Failure(f"cannot write {out_dir / stem}: {e.strerror or e}") from None


def _guard(fn, what: str):
    """Run ``fn``; an unexpected exception becomes a one-line :class:`_Failure`."""
    try:
        return fn()
    except (_Failure, KeyboardInterrupt, Terminated):
        raise
    except Exception as e:
        reason = (f"internal error in {what} ({type(e).__name__}: "
                  f"{one_line(str(e))[:200]}); {BUG_HINT}")
        raise _Failure(reason, traceback.format_exc()) from None


def _comment_safe(text: str) -> str:
    return text.replace("--", "-\u2010")  # "--" may not appear inside an HTML comment


def _unit(kind: str) -> str:
    return {"pptx": "slide", "xlsx": "sheet"}.get(kind, "page")


def _finish(report: Report, opts: Options, err, total: int, interrupted: str = "") -> None:
    if interrupted:
        done = report.ok + len(report.failures)
        err(f"{interrupted}: {done} of {total} file{'s' * (total != 1)} done; "
            f"no partial output left behind")
    for display, reason in report.failures:
        err(f"error: {display}: {reason}")
    if opts.progress and total > 1 and not interrupted:
        err(f"done: {report.ok} ok, {len(report.failures)} failed")
