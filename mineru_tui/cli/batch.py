"""The ``parse`` job: gather inputs, convert each, write or print the results, report.

Kept apart from the Typer wiring in :mod:`mineru_tui.cli` so it can be driven (and
tested) with plain arguments and streams. Files are read through
:func:`mineru_tui.convert.convert` (the one dispatch on file types) and written through
:func:`mineru_tui.output.write_outputs`; nothing here imports a reader or Textual.

Rules the CLI documents:

* stdout carries results only; progress, notes, warnings and errors go to stderr, one
  line each, with file names escaped (:func:`mineru_tui.console.shown`);
* a batch goes on past a failing file, and every failure is named at the end as
  ``error: PATH: REASON``; the return code is 0 (all ok), 1 (some input failed),
  130 (interrupted) or 143 (terminated), the last two whatever a library did with the
  interrupt (:mod:`mineru_tui.interrupts`);
* folders are walked recursively in sorted order; hidden entries, Office lock files
  (``~$...``), output sets this tool wrote and files that are not documents are skipped
  quietly;
* ``workers`` > 1 reads that many files at once over the one engine (pages of different
  files in flight together, so every server of ``--engine http`` stays busy), while the
  results are still printed, written and reported in input order, exactly as with one;
* while a PDF or image is read, the first Ctrl-C asks the page reader to stop between two
  tokens (a second one stops at once); with ``-o`` its finished pages are written.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from mineru_tui import interrupts
from mineru_tui.collector import collect_less
from mineru_tui.console import line, shown
from mineru_tui.detect import (DEFAULT_LIMITS, OFFICE_KINDS, PAGE_KINDS, SUPPORTED, Detected,
                               ZipLimits, detect, is_reported)
from mineru_tui.errors import DEBUG_HINT, InputError, internal_error, is_cut_warning, os_reason
from mineru_tui.interrupts import Terminated  # noqa: F401  (re-exported for the CLI)
from mineru_tui.units import page_unit



@dataclass
class Item:
    """One input file: where it is, what it was found to be, or why it cannot be read."""

    path: Path
    detected: Detected | None = None
    error: str | None = None  # a failure known before reading (missing, empty folder...)
    detail: str | None = None  # its technical cause, for -v
    journal: Path | None = None  # with -o: its finished pages are kept there (resume)

    @property
    def name(self) -> str:
        """The path as given (JSON "file" carries it as is)."""
        return str(self.path)

    @property
    def display(self) -> str:
        """The path as printed on a terminal: control characters escaped."""
        return shown(self.path)


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
    workers: int = 1  # files read at once (see _Prefetch)
    mineru_format: str = "both"  # -o: MinerU 3.x's output set, MinerU 4's, or both


@dataclass
class Report:
    ok: int = 0
    failures: list[tuple[Item, str, str | None]] = field(default_factory=list)


def out_dir_problem(out_dir: Path) -> str | None:
    """Why ``out_dir`` cannot be the output folder (a usage error), or None."""
    p = out_dir
    while True:
        try:
            st = p.stat()
        except (FileNotFoundError, NotADirectoryError):
            if p.parent == p:
                return None
            p = p.parent
            continue
        except OSError as e:
            return f"cannot use {shown(p)}: {os_reason(e)}"
        if stat.S_ISDIR(st.st_mode):
            return None
        what = "is a file, not a folder" if p == out_dir else f"is inside {shown(p)}, a file"
        return f"{shown(out_dir)} {what}"


def gather(args: list[Path], opts: Options) -> list[Item]:
    """Expand the command-line paths into items, in order, each file once."""
    items: list[Item] = []
    seen: set[str] = set()
    skip_dir = _key(opts.out_dir) if opts.out_dir else None
    def add(item: Item) -> None:
        key = _key(item.path)
        if key not in seen:
            seen.add(key)
            items.append(item)

    for arg in args:
        if not _is_dir(arg):
            add(Item(arg))
            continue
        found = _walk(arg, opts, skip_dir)
        if not found:
            items.append(Item(arg, error=f"no documents found in this folder (supported: {SUPPORTED})"))
        for item in found:
            add(item)
    return items


def _key(p: Path) -> str:
    """The real path of ``p`` where it can be found (never raises: loops, long names...)."""
    try:
        return os.path.realpath(p)
    except (OSError, RuntimeError, ValueError):
        return os.path.abspath(p)


def _is_dir(p: Path) -> bool:
    try:
        return stat.S_ISDIR(os.stat(p).st_mode)
    except (OSError, ValueError):
        return False


def _walk(root: Path, opts: Options, skip_dir: str | None) -> list[Item]:
    from mineru_tui.output import MANIFEST

    files: list[tuple[tuple[str, ...], Path]] = []
    unreadable: list[Item] = []

    def on_error(e: OSError) -> None:
        where = Path(e.filename) if e.filename else root
        unreadable.append(Item(where, error=f"cannot read the folder: {os_reason(e)}"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=on_error):
        here = Path(dirpath)
        if here != root and os.path.isfile(here / MANIFEST):
            dirnames[:] = []  # an output set this tool wrote: never read as input
            continue
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
        except InputError as e:
            if is_reported(path, e):
                found.append(Item(path, error=str(e), detail=e.detail))
            continue
        if det.kind in OFFICE_KINDS or det.kind in PAGE_KINDS:
            found.append(Item(path, detected=det))
    return unreadable + found


def run(args: list[Path], opts: Options, stdout: TextIO | None = None,
        stderr: TextIO | None = None) -> int:
    """Parse every input; return the exit code."""
    collect_less()
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr

    def err(text: str) -> None:
        print(text, file=stderr, flush=True)

    report = Report()
    items: list[Item] = []
    # One file's progress line cannot show several files read at once: per-file lines only.
    live = _Live(stderr if opts.live and opts.workers <= 1 else None)
    ahead: _Prefetch | None = None
    try:
        items = gather(args, opts)
        pages_note = _pages_note(opts)
        single = len(args) == 1 and len(items) == 1 and not _is_dir(args[0])
        stems = written = None
        if opts.out_dir is not None:
            from mineru_tui.output import assign_stems, journal_path
            stems = assign_stems([i.path for i in items])
            written: set[str] = set()
            for item, (stem, _) in zip(items, stems):
                item.journal = journal_path(opts.out_dir, stem)
        if opts.workers > 1 and len(items) > 1:
            ahead = _Prefetch(items, opts)
        json_entries: list[dict] = []
        first_md = True
        for n, item in enumerate(items):
            interrupts.check()  # an interrupt a library swallowed still stops the batch
            prefix = f"[{n + 1}/{len(items)}] " if len(items) > 1 else ""
            t0 = time.perf_counter()
            try:
                doc, kind = ahead.result(n) if ahead is not None else _read(item, opts, live)
                interrupts.check()  # the result may be partial if a reader ate Ctrl-C
                dt = time.perf_counter() - t0
                where, read_s = "", None
                resumed = getattr(getattr(doc, "journal", None), "note", None)
                if resumed and not opts.quiet:  # "resumed at page 18 of 20 ...", or why not
                    err(f"note: {item.display}: {resumed}")
                if opts.out_dir is not None:
                    assert stems is not None and written is not None
                    live.writing(item.path, len(doc.pages))
                    try:
                        where = _write_set(doc, item, opts, stems[n], written, err)
                    finally:
                        live.done()
                    read_s, dt = dt, time.perf_counter() - t0
                elif opts.fmt == "json":
                    from mineru_tui.output import content_list_for_stdout, dumps_json
                    content = _guard("the renderer", content_list_for_stdout, doc)
                    if single:
                        stdout.write(dumps_json(content))
                    else:
                        json_entries.append({"file": item.name, "content_list": content})
                else:
                    _print_markdown(doc, item, stdout, header=not single, first=first_md)
                    first_md = False
            except (KeyboardInterrupt, Terminated) as e:
                if stems is not None and written is not None:
                    _keep_finished_pages(e, item, opts, stems[n][0], written, err)
                    if ahead is not None:  # this file's and the later ones' finished pages
                        for m, stopped in ahead.stop(after=n):
                            if m > n or getattr(e, "document", None) is None:
                                _keep_finished_pages(stopped, items[m], opts, stems[m][0],
                                                     written, err)
                raise
            except _Failure as f:
                interrupts.check()  # a failure caused by an interrupt is not the file's
                report.failures.append((item, f.reason, f.detail))
                _say_failed(item, f, opts, err)  # now, not only at the end of a long run
                if opts.fmt == "json" and opts.out_dir is None and not single:
                    json_entries.append({"file": item.name, "error": f.reason})
                continue
            report.ok += 1
            if pages_note and kind in OFFICE_KINDS:
                err(f"note: {item.display}: {pages_note}")
                pages_note = None  # once per run
            _say_done(doc, kind, item, opts, f"{prefix}{item.display}", dt, where, err, read_s)
        interrupts.check()
        if opts.fmt == "json" and opts.out_dir is None and not single:
            from mineru_tui.output import dumps_json
            stdout.write(dumps_json(json_entries))
            stdout.flush()
    except (KeyboardInterrupt, Terminated) as e:
        code = interrupts.exit_code() or (143 if isinstance(e, Terminated) else 130)
        _finish(report, opts, err, len(items),
                interrupted="terminated" if code == 143 else "interrupted")
        return code
    finally:
        if ahead is not None:
            ahead.stop()
        engine = getattr(opts.reading, "engine", None)
        if engine is not None:
            engine.close()
    _finish(report, opts, err, len(items))
    return 1 if report.failures else 0


def _write_set(doc, item: Item, opts: Options, stem_why: tuple, written: set[str], err) -> str:
    """Write ``doc``'s output set under ``-o``; returns `` -> DIR/stem/`` for the ok line."""
    stem, why = stem_why
    done = _guard("the output writer", _write, doc, opts.out_dir, stem, item.path, written,
                  opts.mineru_format)
    written.add(done.path.name)
    whys = ([why] if why else []) + done.notes
    if whys and not opts.quiet:
        err(f"note: {item.display}: written to {shown(done.path)}{os.sep} "
            f"({line('; '.join(whys))})")
    return f" -> {shown(done.path)}{os.sep}"


def _print_markdown(doc, item: Item, stdout: TextIO, *, header: bool, first: bool) -> None:
    """``doc``'s Markdown on stdout; in a batch after a ``<!-- mineru-tui: PATH -->`` line."""
    from mineru_tui.output import markdown_for_stdout

    md = _guard("the renderer", markdown_for_stdout, doc)
    if header:
        if not first:
            stdout.write("\n")
        stdout.write(f"<!-- mineru-tui: {_comment_safe(item.display)} -->\n\n")
    stdout.write(md)
    stdout.flush()


def _say_failed(item: Item, f: _Failure, opts: Options, err) -> None:
    """A file's error line as it fails (its detail with -v, its traceback with --debug)."""
    err(f"error: {item.display}: {line(f.reason)}")
    if f.detail and opts.verbose and f.detail != f.reason:
        err(f"  detail: {line(f.detail)}")
    if f.trace and (opts.debug or opts.verbose):
        err(f.trace.rstrip())


def _say_done(doc, kind: str, item: Item, opts: Options, label: str, seconds: float,
              where: str, err, read_s: float | None = None) -> None:
    """The file's ``ok (...)`` line (with progress) and the warnings it must show."""
    if opts.progress:
        facts = [page_unit(kind, len(doc.pages))]
        if doc.images:
            facts.append(f"{len(doc.images)} image{'s' * (len(doc.images) != 1)}"
                         + ("" if opts.out_dir else " not written (use -o DIR)"))
        hidden = [w for w in doc.warnings if not is_cut_warning(w)]
        if hidden and not opts.verbose:
            facts.append(f"{len(hidden)} warning{'s' * (len(hidden) != 1)} (-v lists them)")
        facts.append(f"{seconds:.2f} s" + (f": read {read_s:.2f} s, output written "
                                           f"{seconds - read_s:.2f} s" if read_s is not None
                                           else ""))
        err(f"{label}: ok ({', '.join(facts)}){where}")
    for w in doc.warnings:
        if opts.verbose or (is_cut_warning(w) and not opts.quiet):
            err(f"warning: {item.display}: {line(w)}")


class _Failure(Exception):
    def __init__(self, reason: str, trace: str | None = None, detail: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.trace = trace
        self.detail = detail


def _read(item: Item, opts: Options, live=None, cancel=None):
    """Convert one item; every failure becomes a :class:`_Failure` with one line.

    ``cancel`` (for reads on a worker thread) stops a page read between two tokens; on the
    main thread the first Ctrl-C sets ``live.cancel`` instead (:func:`interrupts.cancelling`).
    """
    from dataclasses import replace

    from mineru_tui.convert import ConvertOptions, convert
    from mineru_tui.errors import ConvertError
    from mineru_tui.events import FileStarted

    if item.error:
        raise _Failure(item.error, detail=item.detail)
    kinds: list[str] = []

    def on_event(event) -> None:
        if isinstance(event, FileStarted):
            kinds.append(event.kind)
        if live is not None:
            live(event)

    options = (replace(opts.reading, limits=opts.limits, journal=item.journal) if opts.reading is not None
               else ConvertOptions(limits=opts.limits, journal=item.journal))
    if live is not None:
        cancel = live.cancel
    try:
        with interrupts.cancelling(cancel) if live is not None else contextlib.nullcontext():
            doc = convert(item.path, options, detected=item.detected, on_event=on_event,
                          cancel=cancel)
    except ConvertError as e:
        if e.needs_model:  # the way forward, not the engine's connection error
            raise _Failure(_needs_model(e.reason, item, opts, kinds), e.trace,
                           e.detail or e.reason) from None
        raise _Failure(e.reason, e.trace, e.detail) from None
    finally:
        if live is not None:
            live.done()
    return doc, kinds[0]


def _needs_model(reason: str, item: Item, opts: Options, kinds: list[str]) -> str:
    """"needs the MinerU2.5 model (2.3 GB, not downloaded yet): run `mineru-tui model fetch`
    once, or read this PDF's own text now with `--effort low`" (the last part only for a
    PDF whose text layer is usable; it is looked at only when one file is read at a time,
    as PDFium must not be entered from two threads)."""
    from mineru_tui.model_needed import reason_and_hint, text_layer_usable

    kind = kinds[0] if kinds else getattr(item.detected, "kind", "")
    fields = getattr(getattr(opts.reading, "engine", None), "options", None)
    server = bool(getattr(fields, "server_urls", None)) or getattr(fields, "engine", "") == "http"
    text_layer = kind == "pdf" and opts.workers <= 1 and text_layer_usable(item.path)
    why, hint = reason_and_hint(reason, kind=kind, text_layer=text_layer, server=server,
                                model=getattr(fields, "model", None))
    return f"{why}: {hint}"


class _Prefetch:
    """``--workers N``: files read ahead on N threads sharing the run's one engine.

    The main thread still takes the results in input order (:meth:`result`) and does all
    printing and writing, so the output does not depend on N. At most N files are read
    ahead of the one being written, which bounds the documents held in memory. Engines are
    safe to share: the http and llama-cpp engines cap requests per server across callers,
    the numpy and Core ML engines run one call at a time.
    """

    def __init__(self, items: list[Item], opts: Options):
        import threading
        from concurrent.futures import ThreadPoolExecutor

        self.items = items
        self.opts = opts
        self.cancel = threading.Event()
        self.pool = ThreadPoolExecutor(opts.workers, thread_name_prefix="mineru-tui-read")
        self.futures: dict = {}
        self.submitted = 0
        self._fill(0)

    def _fill(self, current: int) -> None:
        while self.submitted < len(self.items) and self.submitted <= current + self.opts.workers:
            item = self.items[self.submitted]
            self.futures[self.submitted] = self.pool.submit(_read, item, self.opts, None, self.cancel)
            self.submitted += 1

    def result(self, n: int):
        """Item ``n``'s ``(doc, kind)``, or its :class:`_Failure`, once it has been read."""
        self._fill(n)
        result = self.futures[n].result()  # kept until done: stop() looks at it
        del self.futures[n]
        return result

    def stop(self, after: int | None = None) -> list[tuple[int, BaseException]]:
        """Cancel what is queued and stop the reads in flight between two tokens. With
        ``after``, wait for the files from ``after`` on that were being read and return the
        interrupts that carry finished pages (a second Ctrl-C while waiting stops at once)."""
        self.cancel.set()
        self.pool.shutdown(wait=False, cancel_futures=True)
        stopped = []
        if after is not None:
            try:
                for m in sorted(self.futures):
                    fut = self.futures[m]
                    if m >= after and not fut.cancelled():
                        e = fut.exception()
                        if getattr(e, "document", None) is not None:
                            stopped.append((m, e))
            except (KeyboardInterrupt, Terminated):
                pass
        self.futures.clear()
        return stopped


class _Live:
    """The page reader's side of a run: the cancel flag a first Ctrl-C sets while a PDF or
    image is read, and its progress line on a terminal (:mod:`mineru_tui.cli.progress`)."""

    def __init__(self, err: TextIO | None):
        import threading

        self.cancel = threading.Event()
        self.cancel.armed = False  # only while a PDF or image is read (see interrupts.cancelling)
        self.line = None
        if err is not None:
            from mineru_tui.cli.progress import ProgressLine
            self.line = ProgressLine(err)

    def __call__(self, event) -> None:
        from mineru_tui.events import FileStarted

        if isinstance(event, FileStarted):
            self.cancel.armed = event.kind in PAGE_KINDS
        if self.line is not None:
            self.line(event)

    def writing(self, path: Path, pages: int) -> None:
        """The output set is being written: the progress line says so (a long document's
        set takes seconds)."""
        from mineru_tui.events import OutputWriting

        if self.line is not None:
            self.line(OutputWriting(str(path), pages))

    def done(self) -> None:
        self.cancel.armed = False
        if self.line is not None:
            self.line.clear()


def _keep_finished_pages(e: BaseException, item: Item, opts: Options, stem: str,
                         written: set[str], err) -> None:
    """An interrupted PDF/image: with -o, write the pages it finished (the page reader's
    ``PagesInterrupted`` carries them)."""
    partial = getattr(e, "document", None)
    if partial is None or not partial.pages or opts.out_dir is None:
        return
    try:
        done = _write(partial, opts.out_dir, stem, item.path, written, opts.mineru_format)
    except (_Failure, KeyboardInterrupt, Terminated):
        return
    err(f"note: {item.display}: interrupted; {len(partial.pages)} finished "
        f"page{'s' * (len(partial.pages) != 1)} written to {shown(done.path)}{os.sep}")


def _write(doc, out_dir: Path, stem: str, source: Path, written: set[str],
           mineru_format: str = "both"):
    from mineru_tui.output import write_outputs
    try:
        return write_outputs(doc, out_dir, stem, source=source, avoid=written,
                             mineru_format=mineru_format)
    except OSError as e:
        raise _Failure(f"cannot write its output in {shown(out_dir)}: {os_reason(e)}",
                       detail=f"{type(e).__name__}: {e}") from None


def _guard(what: str, fn, *args):
    """``fn(*args)``; an unexpected exception becomes a one-line :class:`_Failure`."""
    try:
        return fn(*args)
    except (_Failure, KeyboardInterrupt, Terminated):
        raise
    except Exception as e:
        raise _Failure(internal_error(what, e, DEBUG_HINT), traceback.format_exc()) from None


def _comment_safe(text: str) -> str:
    return text.replace("--", "-\u2010")  # "--" may not appear inside an HTML comment


def _pages_note(opts: Options) -> str | None:
    """What to say the first time an Office file is read with ``--pages`` (it is read whole)."""
    if opts.quiet or opts.reading is None or not getattr(opts.reading, "pages", None):
        return None
    return "read whole: --pages selects PDF pages and TIFF frames only"


def _finish(report: Report, opts: Options, err, total: int, interrupted: str = "") -> None:
    if interrupted:
        done = report.ok + len(report.failures)
        err(f"{interrupted}: {done} of {total} file{'s' * (total != 1)} done")
    if opts.progress and total > 1 and not interrupted:
        err(f"done: {report.ok} ok, {len(report.failures)} failed")
