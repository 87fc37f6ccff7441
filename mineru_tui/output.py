"""Writing results: the MinerU output folder for ``-o DIR``, and text for stdout.

Layout for ``-o DIR`` (MinerU's output set, one folder per input)::

    DIR/<stem>/<stem>.md
    DIR/<stem>/<stem>_middle.json
    DIR/<stem>/<stem>_content_list.json
    DIR/<stem>/images/<image files>
    DIR/<stem>/markdown.md, middle_json.json, structured_content.json, model_output.json
                                          MinerU 4's set (``mineru_format``: "3", "4", "both")
    DIR/<stem>/.mineru-tui.json          the ownership manifest: what this tool wrote

The API the ``parse`` batch and the ``watch`` app share is :func:`write_outputs`:

* **Nothing it did not write is replaced.** A ``DIR/<stem>`` is replaced only when it is a
  folder holding this tool's manifest and nothing but the files that manifest lists. Anything
  else under that name (a user's folder, a plain file, a symlink, one of our folders a user
  added files to) is left alone and the set goes to the next free name, ``<stem>_2``,
  ``<stem>_3``..., with a note.
* **Atomic.** The set is written into a hidden ``DIR/.mineru-tui.partial-*`` folder and
  renamed into place when complete; an older set is moved aside (``.mineru-tui.old-*``)
  and removed after the rename. Signals are held off (:mod:`mineru_tui.interrupts`) from
  the creation of the temporary folder to the end of its clean-up, so Ctrl-C or SIGTERM
  never leaves one behind; only a hard kill (SIGKILL, power loss) can, and the next write
  to ``DIR`` removes it.
* **One writer at a time per DIR.** The name choice, the write and the rename happen under
  an exclusive ``flock`` on ``DIR`` itself (no lock file), so two processes writing to one
  ``DIR`` (two ``parse -o``, a ``watch`` and a ``parse``) take turns and both succeed. A
  writer that waits longer than ``lock_timeout`` gives up with :class:`OutputBusy`.
* **Names fit.** :func:`output_stem` makes a file's stem a usable folder name (no control
  characters, not hidden, not empty, at most :data:`MAX_STEM_BYTES` bytes of UTF-8 so that
  every file name inside stays under the usual 255-byte limit).

Markdown and JSON reference images as ``images/<name>``. On stdout images are not written
and are referenced by name only.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from mineru_tui import interrupts
from mineru_tui.console import JSON_ESCAPED, is_control
from mineru_tui.document import to_content_list, to_markdown
from mineru_tui.document.content_list import content_list_entries
from mineru_tui.document.controls import SharedCleaning
from mineru_tui.document.html_table import shared_tables
from mineru_tui.document.json_stream import json_chunks
from mineru_tui.document.markdown import markdown_chunks
from mineru_tui.document.middle_json import middle_json_chunks

IMAGES_DIR = "images"
MANIFEST = ".mineru-tui.json"
TEMP_PREFIX = ".mineru-tui.partial-"
OLD_PREFIX = ".mineru-tui.old-"
# "<stem>_content_list.json" is the longest name inside a set: 18 bytes after the stem, and
# a "_NNN" suffix may be added; 200 keeps all of it well under 255 bytes.
MAX_STEM_BYTES = 200
_SUFFIXES = (".md", "_middle.json", "_content_list.json", "_model.json", "_layout.pdf")
MINERU_FORMATS = ("3", "4", "both")  # which MinerU version's output set -o writes


class OutputBusy(OSError):
    """Another process kept the output folder locked for longer than the timeout."""


@dataclass
class Written:
    """Where :func:`write_outputs` put a set, and notes on why that is not ``DIR/<stem>``."""

    path: Path
    notes: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------------------
# names


def output_stem(path: Path) -> tuple[str, str | None]:
    """The folder name for ``path``'s results, and why it differs from the file's stem.

    Control characters become ``_``, a leading dot (hidden, ``.``, ``..``) becomes ``_``,
    surrounding spaces are dropped, a name of only spaces or dots becomes underscores, and
    a name longer than :data:`MAX_STEM_BYTES` is cut at a character boundary.
    """
    natural = path.stem if path.suffix else path.name
    stem = "".join("_" if is_control(c) else c for c in natural).strip()
    why = None
    if stem != natural.strip():
        why = "its name has control characters"
    if not stem.strip(". "):  # "", "..", "   ": nothing usable left
        stem = "_" * max(1, min(len(natural), 8))
        why = "its name cannot be a folder name"
    elif stem.startswith("."):
        stem = "_" + stem[1:]  # not hidden: the walker and file managers skip hidden names
        why = why or "a name starting with a dot would be hidden"
    if len(stem.encode("utf-8", "surrogateescape")) > MAX_STEM_BYTES:
        stem = _cut_bytes(stem, MAX_STEM_BYTES).rstrip(" .") or "_"
        why = f"its name is longer than {MAX_STEM_BYTES} bytes; shortened"
    return stem, why


def assign_stems(paths: list[Path]) -> list[tuple[str, str | None]]:
    """An output folder name per input, unique within the batch, and why it was changed.

    The first input with a given stem keeps it; later ones get ``<stem>_2``, ``<stem>_3``...
    in input order (compared case-insensitively, for case-insensitive file systems), so
    ``a/x.docx`` and ``b/x.docx`` never overwrite each other.
    """
    taken: set[str] = set()
    out = []
    for p in paths:
        stem, why = output_stem(p)
        name, n = stem, 1
        while name.casefold() in taken:
            n += 1
            name = f"{stem}_{n}"
        if n > 1:
            why = f"the name {stem!r} is taken in this batch"
        taken.add(name.casefold())
        out.append((name, why))
    return out


def _cut_bytes(text: str, limit: int) -> str:
    data = text.encode("utf-8", "surrogateescape")[:limit]
    return data.decode("utf-8", "ignore")  # drops a character cut in half


# ---------------------------------------------------------------------------------------
# writing a set


def write_outputs(doc, out_dir: Path, stem: str, *, source: Path | None = None,
                  avoid: set[str] | frozenset[str] = frozenset(),
                  lock_timeout: float = 120.0, mineru_format: str = "both") -> Written:
    """Write the MinerU output set for ``doc`` as ``out_dir/<stem>/``; return where it went.

    ``stem`` should come from :func:`output_stem` / :func:`assign_stems`. ``avoid`` lists
    folder names (compared case-insensitively) this caller wrote earlier in the same run
    and must not replace. ``source`` is recorded in the manifest. See the module docstring
    for what is replaced, the atomic rename and the lock. Raises ``OSError`` when the set
    cannot be written (:class:`OutputBusy` when the lock is not obtained in time).
    ``mineru_format`` chooses MinerU 3.x's files, MinerU 4's, or both (the default).
    """
    if mineru_format not in MINERU_FORMATS:
        raise ValueError(f"unknown MinerU format {mineru_format!r}")
    out_dir.mkdir(parents=True, exist_ok=True)
    with _locked(out_dir, lock_timeout):
        with interrupts.deferred():
            _remove_leftovers(out_dir)
            name, replace, notes = _choose_name(out_dir, stem, {a.casefold() for a in avoid})
            tmp = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX, dir=out_dir))
            try:
                # file names inside a set follow its folder name; written as streams
                with shared_tables():  # a table's HTML built once for all the writers
                    files = _write_files(tmp, _pieces(doc, name, mineru_format, source))
                manifest = {"tool": "mineru-tui", "source": str(source) if source else None,
                            "files": sorted(files)}
                (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n",
                                            encoding="utf-8")
                os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes it 0700
                _swap_into_place(tmp, out_dir / name, replace=replace)
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
            journal = getattr(doc, "journal", None)  # set by the page reader once all pages are read
            if journal is not None:
                journal.remove()
    return Written(out_dir / name, notes)


def journal_path(out_dir: Path, stem: str) -> Path:
    """Where the page reader keeps the finished pages of the set ``out_dir/stem`` while it
    is read (``reader/journal.py``): beside the set, hidden; removed once the set is whole."""
    return Path(out_dir) / f".{stem}.journal"


def _pieces(doc, stem: str, mineru_format: str = "both",
            source: Path | None = None) -> Iterator[tuple[str, str | bytes | Callable]]:
    """Every file of the set as (path relative to the set's folder, piece of its text or
    bytes), page by page: a long document's files are never whole in memory. A file's first
    piece may be empty (an empty Markdown file is still written)."""
    prefix = IMAGES_DIR + "/"
    for image, data in doc.images.items():
        yield f"{IMAGES_DIR}/{_image_name(image)}", data
    clean = SharedCleaning()  # three writers need each page without controls: cleaned once
    yield from _side_by_side(doc, [
        lambda d: _markdown_pieces(d, stem, mineru_format, prefix, clean),
        lambda d: _mineru4_pieces(d, mineru_format, prefix, source, clean),
        lambda d: _middle_pieces(d, stem, mineru_format, prefix),
        lambda d: _content_list_pieces(d, stem, mineru_format, prefix, clean)])
    # files a reader adds (the page reader: <stem>_model.json, <stem>_layout.pdf): bytes, or
    # pieces of text, or functions writing to the open file
    for suffix, make in doc.extra_outputs.items():
        data = make()
        if isinstance(data, bytes):
            yield f"{stem}{suffix}", data
        elif data is not None:
            for piece in data:
                yield f"{stem}{suffix}", piece


def _markdown_pieces(doc, stem: str, mineru_format: str, prefix: str, clean):
    markdowns = [f"{stem}.md"] if mineru_format != "4" else []
    if mineru_format != "3":
        from mineru_tui.document import mineru4

        markdowns.append(mineru4.MARKDOWN)
    for md in markdowns:
        yield md, ""
    for piece in markdown_chunks(doc, image_prefix=prefix, clean=clean):
        piece = _no_surrogates(piece)
        for md in markdowns:
            yield md, piece


def _mineru4_pieces(doc, mineru_format: str, prefix: str, source: Path | None, clean):
    if mineru_format != "3":
        from mineru_tui.document import mineru4

        for rel, piece in mineru4.set_chunks(doc, prefix, str(source) if source else None, clean):
            yield rel, _json_escaped(piece)


def _middle_pieces(doc, stem: str, mineru_format: str, prefix: str):
    if mineru_format != "4":
        for piece in middle_json_chunks(doc, image_prefix=prefix):
            yield f"{stem}_middle.json", _json_escaped(piece)
        yield f"{stem}_middle.json", "\n"


def _content_list_pieces(doc, stem: str, mineru_format: str, prefix: str, clean):
    if mineru_format != "4":
        for piece in json_chunks(content_list_entries(doc, image_prefix=prefix, clean=clean)):
            yield f"{stem}_content_list.json", _json_escaped(piece)
        yield f"{stem}_content_list.json", "\n"


class _Following:
    """``doc.pages`` for one writer of :func:`_side_by_side`, noting which page it is on."""

    def __init__(self, pages):
        self.pages = pages
        self.at = -1
        heads = getattr(pages, "heads", None)
        if heads is not None:
            self.heads = heads

    def __iter__(self):
        for i in range(len(self.pages)):
            self.at = i
            yield self.pages[i]
        self.at = len(self.pages)

    def __len__(self) -> int:
        return len(self.pages)

    def __getitem__(self, index):
        return self.pages[index]


def _side_by_side(doc, writers: list[Callable]) -> Iterator:
    """The pieces of every writer (a function of a document giving pieces), taken side by
    side: the writer furthest behind in the pages goes next, so each page is read once
    for all of them (a page on disk is loaded while the others still hold it: see
    ``document/page_store.py``). Each file's pieces keep their order."""
    running = []
    for make in writers:
        follow = _Following(doc.pages)
        running.append((follow, iter(make(_with_pages(doc, follow)))))
    while running:
        entry = min(running, key=lambda r: r[0].at)
        try:
            yield next(entry[1])
        except StopIteration:
            running.remove(entry)


def _with_pages(doc, pages):
    import copy

    view = copy.copy(doc)
    view.pages = pages
    return view


def _write_files(folder: Path, pieces: Iterable[tuple[str, str | bytes | Callable]]) -> list[str]:
    """Write ``pieces`` (from :func:`_pieces`) into ``folder``; the paths written. A Ctrl-C
    held off stops the write between two pieces."""
    open_files: dict = {}
    try:
        for rel, piece in pieces:
            if interrupts.held():
                raise KeyboardInterrupt
            f = open_files.get(rel)
            if f is None:
                target = folder / rel
                target.parent.mkdir(exist_ok=True)
                f = open_files[rel] = open(target, "wb")
            if callable(piece):  # a writer of its own (_layout.pdf): given the open file
                piece(f)
            else:
                f.write(piece if isinstance(piece, bytes) else piece.encode("utf-8"))
            if rel.startswith(IMAGES_DIR + "/"):  # pictures come whole: close them at once
                f.close()
    finally:
        for f in open_files.values():
            f.close()
    return list(open_files)


def _image_name(name: str) -> str:
    # Image names come from the reader (Document.add_image); never let one escape images/.
    base = os.path.basename(name.replace("\\", "/"))
    if base in ("", ".", "..") or any(is_control(c) for c in base):
        raise ValueError(f"bad image name {name!r}")
    return base


def _json_escaped(text: str) -> str:
    """A piece of JSON text with the characters :func:`dumps_json` escapes escaped."""
    if text.isascii() and "\x7f" not in text:  # DEL is the one such character in ASCII
        return text
    return JSON_ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _choose_name(out_dir: Path, stem: str, avoid: set[str]) -> tuple[str, bool, list[str]]:
    """The first of ``stem``, ``stem_2``... that is free or an earlier set of ours; whether
    it replaces one; notes on the names passed over."""
    notes: list[str] = []
    n = 1
    while True:
        name = stem if n == 1 else f"{stem}_{n}"
        if name.casefold() not in avoid:
            state = _state(out_dir / name)
            if state in ("free", "ours"):
                return name, state == "ours", notes
            notes.append(f"{name!r} in the output folder is {state}; left alone")
        n += 1
        if n > 10_000:
            raise OSError(errno.EEXIST, f"no free name for {stem!r} in the output folder")


def _state(path: Path) -> str:
    """"free", "ours" (a set this tool wrote, safe to replace), or what is in the way."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        return "free"
    import stat
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "a file"
    return "ours" if owned_set(path) else "not written by mineru-tui"


def owned_set(folder: Path) -> bool:
    """Whether ``folder`` is an output set this tool wrote and nobody added to since.

    True when it holds a readable manifest and every file below it is one the manifest
    lists (folders only as parents of those files; no symlinks).
    """
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        listed = set(manifest["files"]) if manifest.get("tool") == "mineru-tui" else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
    if listed is None:
        return False
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath)
        for name in filenames + [d for d in dirnames if (here / d).is_symlink()]:
            rel = (here / name).relative_to(folder).as_posix()
            if rel != MANIFEST and rel not in listed:
                return False
    return True


def _remove_leftovers(out_dir: Path) -> None:
    """Remove temporary folders a killed writer left (we hold the lock: none is live)."""
    try:
        entries = list(os.scandir(out_dir))
    except OSError:
        return
    for e in entries:
        if e.name.startswith((TEMP_PREFIX, OLD_PREFIX)) and e.is_dir(follow_symlinks=False):
            shutil.rmtree(e.path, ignore_errors=True)


def _swap_into_place(tmp: Path, final: Path, replace: bool) -> None:
    """Rename the finished folder to ``final``, replacing an older set of ours whole."""
    if not replace:
        try:
            os.rename(tmp, final)  # the name was free (an empty folder is replaced too)
            return
        except OSError as e:
            if e.errno in (errno.EEXIST, errno.ENOTEMPTY):
                raise OSError(e.errno, "something else was put there while writing") from None
            raise
    old = Path(tempfile.mkdtemp(prefix=OLD_PREFIX, dir=final.parent))
    try:
        os.rename(final, old / "set")
        try:
            os.rename(tmp, final)
        except BaseException:
            os.rename(old / "set", final)  # put the older set back
            raise
    finally:
        shutil.rmtree(old, ignore_errors=True)


class _locked:
    """Hold an exclusive ``flock`` on the folder ``path`` (polled, so Ctrl-C works)."""

    def __init__(self, path: Path, timeout: float):
        self.path, self.timeout, self.fd = path, timeout, -1

    def __enter__(self) -> None:
        try:
            import fcntl
        except ImportError:  # Windows: no flock; writers are not kept apart there
            return
        self.fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        deadline = time.monotonic() + self.timeout
        delay = 0.01
        try:
            while True:
                try:
                    fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise OutputBusy(errno.EBUSY, f"another process has kept it busy "
                                                      f"for {self.timeout:.0f} s") from None
                    time.sleep(delay)
                    delay = min(delay * 2, 0.2)
        except BaseException:
            os.close(self.fd)
            raise

    def __exit__(self, *exc) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing releases the lock


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# ---------------------------------------------------------------------------------------
# stdout


def markdown_for_stdout(doc) -> str:
    """Markdown with images referenced by bare name (nothing is written)."""
    return _no_surrogates(to_markdown(doc, image_prefix=""))


def content_list_for_stdout(doc) -> list[dict]:
    """The content list with images referenced by bare name."""
    return to_content_list(doc, image_prefix="")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _no_surrogates(text: str) -> str:
    """Lone surrogates (bytes of a non-UTF-8 file name) cannot be UTF-8: U+FFFD instead."""
    if text.isascii():
        return text
    return _SURROGATE.sub("\ufffd", text)


def dumps_json(data) -> str:
    """JSON as the tool prints it: UTF-8 text, not ASCII-escaped, indented.

    A file name that is not valid UTF-8 reaches Python with lone surrogates; they are
    written as ``\\udcXX`` escapes (valid JSON, and ``json.loads`` gives the same name back).
    So are DEL, C1 controls, bidi overrides and isolates and the line separators
    (:data:`mineru_tui.console.JSON_ESCAPED`): the middle JSON keeps a document's text as
    it is, but ``cat`` of the file shows no raw control. JSON escapes C0 itself.
    """
    return _json_escaped(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
